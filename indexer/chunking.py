"""Structure-aware chunking, sized in the embedding model's own tokens.

Blocks from a parser are cut into *pieces* (lines; a line longer than a chunk is cut at sentences, by the
sentence splitter the quote and the support check use, then words; a very long line, such as a 50 MB file
without line breaks, is first cut into windows of a few thousand characters without counting its tokens, so
the tokenizer never sees more than a window), and pieces are packed greedily into chunks of at most ``chunk_tokens`` (never more than the
embedder's window). A chunk never crosses a change of heading path or PDF page, so each chunk has one
heading and one page. Consecutive chunks of the same section overlap by up to ``overlap_tokens``: the
trailing pieces of one chunk (or the tail words of its last piece) start the next.

A chunk's id is a hash of (collection, source path, ordinal in the file, text): the same file content at
the same path always gives the same ids, whoever indexes it.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import pairwise

from indexer.parse.blocks import Block
from kimas_desktop.protocols import Embedder
from kimas_desktop.text.language import written_in_latin
from kimas_desktop.text.scripts import has_unspaced
from kimas_desktop.text.sentences import split_sentences

_WORD_START = re.compile(r"(?<!\S)\S")
WINDOW_TOKENS_FACTOR = 64  # a line longer than this many characters per token of a chunk is windowed first
# Where a window of a very long line may end: after a sentence's end mark (found without tokenizing); the
# marks of Chinese and Japanese (and the danda) are followed by no space.
UNREAD_CHARS_PER_TOKEN = 12  # text in a script the embedder cannot read (``measure``)
# The version of the chunk sizes, recorded in each file's card (``indexer.upkeep.cards.card_json``). 2: text
# in a script the embedder cannot read counted a token per ``UNREAD_CHARS_PER_TOKEN`` characters, not four.
CHUNKING = 2
_WINDOW_CUT = re.compile(r"(?<=[.!?…])\s+|(?<=[。！？।])")


def chunked_before(card: str | None) -> bool:
    """Whether a file's chunks were cut by an older ``CHUNKING`` whose sizes differ for its script: its card
    (as stored in the manifest) records no version, and its sentences are neither Latin nor Chinese,
    Japanese or Korean (version 2 changed only the others: Devanagari, Cyrillic, Arabic...). The sync reads
    such a file again, in the background as for any change; a chunk whose text stays re-uses its vector."""
    if not card:
        return False
    try:
        data = json.loads(card)
    except ValueError:
        return False
    if not isinstance(data, dict) or int(data.get("chunking", 1)) >= CHUNKING:
        return False
    sentences = [str(s[0]) for s in data.get("synopsis", []) if s]
    text = " ".join([str(data.get("title", "")), *sentences])
    return any(ch.isalpha() for ch in text) and not written_in_latin(text) and not has_unspaced(text)


def chunk_id(collection: str, source: str, ordinal: int, text: str) -> str:
    key = "\x1f".join((collection, source, str(ordinal), text))
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:32]


@dataclass(frozen=True)
class ChunkDraft:
    """A chunk before it has an id, a vector and a source."""

    ordinal: int  # position in the file, 0-based
    text: str
    tokens: int  # estimated content tokens (sum over pieces), for sorting batches by length
    page: int | None = None
    line_start: int | None = None
    line_end: int | None = None
    heading: str = ""
    ocr: bool = False  # read by OCR from an image of the page


@dataclass(frozen=True)
class _Piece:
    text: str
    tokens: int
    block: int  # index of the block it came from
    line: int  # index of the line within the block: parts of one line are joined by " ", lines by "\n",
    # blocks by "\n\n"
    line_start: int | None
    line_end: int | None


def measure(embedder: Embedder) -> Callable[[str], int]:
    """How the chunker counts a text's tokens: the embedder's own tokens for text it reads. Text in a script
    the embedder never learned (Hindi or Chinese for an English-only model) is cut by its tokenizer into
    single characters or bytes: counted that way, a Hindi chunk held a third of the text of an English one
    (155 characters, about 30 words, on the Hindi dev kit), and a question's words and its answer fell into
    different chunks. Such text is found by its words alone (full-text search, the fallback reranker),
    which find a passage best whole, so it is counted a token per ``UNREAD_CHARS_PER_TOKEN`` characters:
    a chunk holds up to about 1,400 characters. On the Hindi dev kit (tune half, BM25 top 5 over the
    chunks) a token per 4 characters (as English reads) gave 0.707, per 8 0.740, per 12 0.751, whole
    passages 0.756. A Chinese, Japanese or Korean character counts one token, as it carries about a word
    (and as the tokenizer counted it before; counted by width, the Chinese seed papers' quote fell), and
    the other characters of such a text a token per four, as before."""
    base = embedder.count_tokens("")

    def count(text: str) -> int:
        if embedder.reads(text):
            return embedder.count_tokens(text)
        wide = sum(1 for ch in text if ord(ch) > 0x2E7F and unicodedata.east_asian_width(ch) in "WF")
        per_token = 4 if wide else UNREAD_CHARS_PER_TOKEN  # the rest of a Chinese text: as English reads
        return base + wide + math.ceil((len(text) - wide) / per_token)

    return count


class Chunker:
    """Packs a document's blocks into ``ChunkDraft``s. ``count_tokens`` is the embedder's tokenizer
    (``measure``)."""

    def __init__(
        self, count_tokens: Callable[[str], int], *, chunk_tokens: int, overlap_tokens: int, max_tokens: int
    ) -> None:
        self._count = count_tokens
        # Special tokens ([CLS], [SEP]) the count includes for every input; when it leaves them out,
        # still keep room for two of them in the model's window.
        self._base = max(0, count_tokens(""))
        self.limit = max(8, min(chunk_tokens - self._base, max_tokens - max(self._base, 2)))
        self.overlap = min(overlap_tokens, self.limit // 2)
        self._window = WINDOW_TOKENS_FACTOR * self.limit  # characters: far more than a chunk can hold

    def _windows(self, text: str) -> Iterator[str]:
        """``text`` in windows of at most ``self._window`` characters, each cut after its last sentence end
        (else at its last space), found without tokenizing: linear in the length of ``text``."""
        start, n = 0, len(text)
        while n - start > self._window:
            window = text[start : start + self._window]
            cut = 0
            for m in _WINDOW_CUT.finditer(window):
                cut = m.start()
            if cut <= 0:
                cut = window.rfind(" ")
            if cut <= 0:
                cut = len(window)
            yield window[:cut]
            start += cut
            while start < n and text[start].isspace():
                start += 1
        if start < n:
            yield text[start:]

    def _tokens(self, text: str) -> int:
        return max(0, self._count(text) - self._base)

    def _fit(self, text: str) -> Iterator[tuple[str, int]]:
        """``text`` cut into parts that each fit the limit: at sentences first, then halving by words."""
        if len(text) > self._window:
            for window in self._windows(text):
                yield from self._fit(window)
            return
        tokens = self._tokens(text)
        if tokens <= self.limit:
            yield text, tokens
            return
        sentences = self._sentences(text)
        if len(sentences) > 1:
            for sentence in sentences:
                yield from self._fit(sentence)
            return
        words = text.split()
        if len(words) > 1:
            half = len(words) // 2
            yield from self._fit(" ".join(words[:half]))
            yield from self._fit(" ".join(words[half:]))
            return
        half = max(1, len(text) // 2)  # one enormous "word" (base64, a hash dump): cut by characters
        yield from self._fit(text[:half])
        yield from self._fit(text[half:])

    def _sentences(self, text: str) -> list[str]:
        """``text`` cut where the project's sentence splitter starts a sentence (a sentence longer than
        about a chunk is cut at ``;``/``:`` too); the cuts keep every character but the spaces at them."""
        cuts = [s.start for s in split_sentences(text, max_chars=self.limit * 4)[1:]]
        bounds = [0, *cuts, len(text)]
        return [part for a, b in pairwise(bounds) if (part := text[a:b].strip())]

    def _pieces(self, block: Block, index: int) -> Iterator[_Piece]:
        for offset, line in enumerate(block.text.split("\n")):
            if not line.strip():
                continue
            number = None if block.line_start is None else block.line_start + offset
            for part, tokens in self._fit(line):
                yield _Piece(part, tokens, index, offset, number, number)

    def _tail(self, piece: _Piece) -> _Piece | None:
        """The last words of ``piece`` that fit in the overlap budget."""
        if self.overlap <= 0:
            return None
        starts = [m.start() for m in _WORD_START.finditer(piece.text)]
        words = max(1, min(len(starts) - 1, int(self.overlap * len(starts) / max(piece.tokens, 1))))
        while words >= 1:
            cut = starts[len(starts) - words]
            tail = piece.text[cut:]
            tokens = self._tokens(tail)
            if tokens <= self.overlap:
                line = None if piece.line_start is None else piece.line_start + piece.text[:cut].count("\n")
                return _Piece(tail, tokens, piece.block, piece.line, line, piece.line_end)
            words = words * 3 // 4 if words > 1 else 0
        return None

    def _carry(self, pieces: list[_Piece]) -> list[_Piece]:
        """The overlap that starts the next chunk: trailing pieces within the budget, else a word tail."""
        carried: list[_Piece] = []
        total = 0
        for piece in reversed(pieces):
            if total + piece.tokens > self.overlap:
                break
            carried.insert(0, piece)
            total += piece.tokens
        if carried or not pieces:
            return carried if len(carried) < len(pieces) else carried[1:]
        tail = self._tail(pieces[-1])
        return [tail] if tail is not None else []

    def chunks(self, blocks: Iterable[Block], *, first_ordinal: int = 0) -> Iterator[ChunkDraft]:
        """Drafts in document order; consumes ``blocks`` lazily (PDF pages may still be streaming in).
        ``first_ordinal``: where numbering starts (OCR pages of a file are chunked after its text)."""
        ordinal = first_ordinal
        section: tuple[str, int | None, bool] | None = None
        current: list[_Piece] = []
        fresh = 0  # pieces in ``current`` that are not overlap from the previous chunk

        def emit() -> ChunkDraft:
            assert section is not None
            parts: list[str] = []
            for i, piece in enumerate(current):
                if i:
                    before = current[i - 1]
                    if piece.block != before.block:
                        parts.append("\n\n")
                    else:
                        parts.append(" " if piece.line == before.line else "\n")
                parts.append(piece.text)
            lines = [p.line_start for p in current if p.line_start is not None]
            ends = [p.line_end for p in current if p.line_end is not None]
            return ChunkDraft(
                ordinal=ordinal,
                text="".join(parts),
                tokens=sum(p.tokens for p in current),
                page=section[1],
                line_start=min(lines) if lines else None,
                line_end=max(ends) if ends else None,
                heading=section[0],
                ocr=section[2],
            )

        for index, block in enumerate(blocks):
            key = (block.heading, block.page, block.ocr)
            if key != section:
                if fresh:
                    yield emit()
                    ordinal += 1
                section, current, fresh = key, [], 0
            for piece in self._pieces(block, index):
                used = sum(p.tokens for p in current)
                if current and used + piece.tokens > self.limit:
                    if fresh:
                        yield emit()
                        ordinal += 1
                    current = self._carry(current)
                    if sum(p.tokens for p in current) + piece.tokens > self.limit:
                        current = []
                    fresh = 0
                current.append(piece)
                fresh += 1
        if fresh:
            yield emit()
