"""A document's outline and card, built while its chunks stream past the reader (issue 25; KAG's builder
splits by outline and keeps a summary of each document beside its chunks).

- **outline**: the heading paths in the order they first appear, each with the page or line where its text
  starts. Parsers already give every block its heading path (Markdown, HTML and docx headings, PDF
  bookmarks, slide titles), so the outline is read off the chunks.
- **card**: the title and the document's most central sentences, in document order: its first sentence of
  prose (what an abstract, an introduction or a lead says), then the most central others, judged the
  SumBasic way: a sentence scores the mean frequency of its content words in the whole document; after each
  pick the picked words count for less, so the card does not say one thing three times. No model runs:
  it costs a sentence split per chunk.

Only prose makes the card, in every script (issue 46): a sentence ends as its script ends one (``。``, ``।``,
a closing quote after the stop), counts its words as the text layer does (jieba's words in Chinese), and is
not code (a function signature, a call, a path), a table row, a list item, or the start of a sentence the
previous chunk held already (chunks overlap). A byline or label line a sentence runs on from
("来自:旺知识", "Abstract") is left out of it.

The card is stored as JSON in the file's manifest record, written after its chunks (so it is as
crash-safe and as incremental as they are: a changed file gets a new card, a moved one keeps its own).
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections import Counter
from pathlib import Path

from indexer.chunking import CHUNKING, ChunkDraft
from kimas_desktop.text.language import LanguageDetector
from kimas_desktop.text.scripts import has_unspaced
from kimas_desktop.text.sentences import ends_sentence, split_sentences, text_kind
from kimas_desktop.text.words import content_words, stem, words
from kimas_desktop.types import CardSentence, CardTable, DocumentCard, Section

__all__ = ["CardBuilder", "card_from_json", "card_json"]

CARD_SENTENCES = 3
MAX_CANDIDATES = 3000  # sentences of one file considered for its card
MAX_SECTIONS = 400  # headings kept in one file's outline
MIN_OVERLAP = 8  # characters a chunk shares with the previous one to count as overlapping it
LANGUAGE_SAMPLE = 4000  # characters from the start of a file that tell its language
# One detector for the process: the script decides Chinese, Hindi, Japanese… at once; py3langid (loaded on
# the first text in a shared script, about 1.5 s and 80 MB) tells English from German or French.
_DETECTOR = LanguageDetector()
_MIN_WORDS, _MAX_WORDS = 6, 60
_MAX_UNSPACED = 100  # jieba's words: a Chinese sentence of 60 of them is common
_NOT_PROSE = re.compile(r"^\s*(#|\||[-*+>•·▪◦‣●○■□➢➤✓✔]\s?|```|~~~|\d{1,3}[.)]\s|[-\d]{1,3}\s*[:：])")
# Marks of code in a sentence: a keyword that opens a definition, an arrow, a call, an identifier in
# snake_case or a path, a brace, an operator, a tag.
_DEFINES = re.compile(
    r"^\s*((def|class|function|func|fn|async|import|from|return|public|private|static|const|let|var)\s+\w"
    r"|\"\"\"|\'\'\'|//|/\*|#!|[A-Za-z_][\w.]*\s*=\s)"
)
_CODE_MARKS = re.compile(
    r"->|=>|::|[=!<>:]=|[{};]|</?[A-Za-z]+>|[A-Za-z0-9]_[A-Za-z0-9]|[A-Za-z0-9]/[A-Za-z0-9]|\w\.\w|[A-Za-z]\("
)
_FENCE = re.compile(r"^\s{0,3}(```|~~~)", re.MULTILINE)
_CELLS = re.compile(r"\t|\s\|\s| {3,}\S")  # a table row's cell breaks
# A list runs through the sentence: a later line opens with an item's number or bullet ("…failure\n  2.").
_LIST_LINE = re.compile(r"\n\s*(\d{1,3}[.)]|[-*+•·▪◦‣●○■□➢➤✓✔])(\s|$)")


class CardBuilder:
    """Fed every chunk of one file in order (``add``), then ``card()``. Memory stays bounded for any file
    length (``MAX_CANDIDATES``, ``MAX_SECTIONS``)."""

    def __init__(self, path: str) -> None:
        self._path = path
        self._kind = text_kind(path)
        self._sections: dict[str, Section] = {}
        self._counts: Counter[str] = Counter()
        self._candidates: list[tuple[CardSentence, frozenset[str]]] = []
        self._seen: set[str] = set()
        self._opening: str | None = None  # the heading path of the file's first chunk
        self._sample: list[str] = []  # the first LANGUAGE_SAMPLE characters, for its language
        self._sampled = 0
        self._previous = ""  # the previous chunk's text (chunks overlap)
        self._starts: set[int] = set()  # where its sentences start
        self._fence_open = False  # the previous chunk started inside a code fence (Markdown)

    def add(self, draft: ChunkDraft) -> None:
        if self._opening is None:
            self._opening = draft.heading
        if self._sampled < LANGUAGE_SAMPLE:
            self._sample.append(draft.text)
            self._sampled += len(draft.text)
        if draft.heading and draft.heading not in self._sections and len(self._sections) < MAX_SECTIONS:
            self._sections[draft.heading] = Section(draft.heading, draft.page, draft.line_start)
        if self._kind == "code":
            return
        at = self._overlap(draft.text)
        fenced = self._fenced(draft.text, at) if self._kind == "markdown" else []
        sentences = split_sentences(draft.text, self._kind)
        self._previous, starts, self._starts = draft.text, self._starts, {s.start for s in sentences}
        for s in sentences:
            if s.text in self._seen or any(a <= s.start < b for a, b in fenced):  # chunks overlap
                continue
            if s.index == 0 and at >= 0 and at not in starts:  # the chunk opens inside a sentence
                continue
            self._seen.add(s.text)
            found = [stem(w) for w in content_words(s.text) if not w.isdigit()]
            self._counts.update(found)
            text, skipped = _without_label_lines(s.text)
            if len(self._candidates) < MAX_CANDIDATES and _prose(text):
                line = None
                if draft.line_start is not None:
                    line = draft.line_start + draft.text.count("\n", 0, s.start) + skipped
                sentence = CardSentence(text, draft.heading, draft.page, line)
                self._candidates.append((sentence, frozenset(found)))

    def _overlap(self, text: str) -> int:
        """Where in the previous chunk this one starts: the previous chunk's longest tail (of at least
        ``MIN_OVERLAP`` characters) this one opens with; -1: it does not overlap it."""
        previous = self._previous
        if not text:
            return -1
        at = previous.find(text[0])
        while 0 <= at <= len(previous) - MIN_OVERLAP:
            if text.startswith(previous[at:]):
                return at
            at = previous.find(text[0], at + 1)
        return -1

    def _fenced(self, text: str, at: int) -> list[tuple[int, int]]:
        """The spans of a Markdown chunk inside code fences. A chunk that overlaps the previous one starts
        in the fence state of the previous one at that point; one that does not, as the previous one ends."""
        previous = self._previous
        upto = at if at >= 0 else len(previous)
        self._fence_open = self._fence_open ^ (len(_FENCE.findall(previous[:upto])) % 2 == 1)
        return _fenced(text, self._fence_open)

    def card(self) -> DocumentCard:
        outline = tuple(self._sections.values())
        title = _title(self._path, self._opening or "")
        sample = " ".join(self._sample)[:LANGUAGE_SAMPLE]
        language = _DETECTOR.detect(sample) if self._kind != "code" and sample.strip() else "und"
        return DocumentCard(self._path, title, outline, self._central(), language)

    def _central(self) -> tuple[CardSentence, ...]:
        total = sum(self._counts.values())
        if not total:
            return ()
        weight = {w: c / total for w, c in self._counts.items()}
        left = [(i, s, ws) for i, (s, ws) in enumerate(self._candidates) if len(ws) >= 3]
        picked: list[tuple[int, CardSentence]] = []
        for _ in range(CARD_SENTENCES):
            if not left:
                break
            # A document's first sentence of prose usually says what it is about (an abstract, an
            # introduction, a lead): it always opens the card.
            best = (
                left[0] if not picked else max(left, key=lambda x: sum(weight[w] for w in x[2]) / len(x[2]))
            )
            picked.append((best[0], best[1]))
            for w in best[2]:
                weight[w] = weight[w] ** 2
            left = [x for x in left if x[0] != best[0]]
        return tuple(s for _, s in sorted(picked, key=lambda x: x[0]))


def _prose(text: str) -> bool:
    """A sentence of prose: 6–60 words (jieba's words in Chinese, bigrams in Japanese, up to 100 of them:
    a sentence written without spaces is no one-word sentence), ending as a sentence ends in its script,
    and neither code (an assignment opening it too: ``query = "…"``) nor a table row nor a list item (one that opens
    with a symbol, "❌ …", or runs into the next item's number)."""
    unspaced = has_unspaced(text)
    n = len(words(text)) if unspaced else len(text.split())
    most = _MAX_UNSPACED if unspaced else _MAX_WORDS
    if not (_MIN_WORDS <= n <= most and ends_sentence(text)) or _NOT_PROSE.match(text):
        return False
    if unicodedata.category(text.lstrip()[0]) == "So" or _LIST_LINE.search(text):  # "❌ …": a list's mark
        return False
    return not _code(text, n) and not _CELLS.search(text)


def _code(text: str, n_words: int) -> bool:
    """Code, not prose: it opens a definition or a comment, or one word in eight carries a mark of code."""
    if _DEFINES.match(text):
        return True
    return len(_CODE_MARKS.findall(text)) * 8 > n_words


def _fenced(text: str, open_at_start: bool) -> list[tuple[int, int]]:
    """The spans of a Markdown chunk inside code fences (a fence left open runs to the chunk's end)."""
    spans: list[tuple[int, int]] = []
    opened: int | None = 0 if open_at_start else None
    for m in _FENCE.finditer(text):
        if opened is None:
            opened = m.start()
        else:
            spans.append((opened, m.end()))
            opened = None
    if opened is not None:
        spans.append((opened, len(text)))
    return spans


def _without_label_lines(text: str) -> tuple[str, int]:
    """The sentence without the short lines it runs on from (a byline, a label, a heading a PDF or a
    plain text put on its own line, without a stop): its text and how many lines were left out."""
    lines = text.split("\n")
    longest = max(len(line.strip()) for line in lines)
    skipped = 0
    while skipped < len(lines) - 1:
        line = lines[skipped].strip()
        if ends_sentence(line) or 2 * len(line) >= longest:
            break
        skipped += 1
    return "\n".join(lines[skipped:]).strip(), skipped


def _title(path: str, opening: str) -> str:
    """The top heading the document opens under, else the file's name."""
    if opening:
        return opening.split(" > ", 1)[0]
    return re.sub(r"[_\s]+", " ", Path(path).stem).strip() or Path(path).name


def card_json(card: DocumentCard) -> str:
    """The card as stored in the manifest (without its path: a moved file keeps it)."""
    return json.dumps(
        {
            "title": card.title,
            "outline": [[s.heading, s.page, s.line] for s in card.outline],
            "synopsis": [[s.text, s.heading, s.page, s.line] for s in card.synopsis],
            "language": card.language,
            "chunking": CHUNKING,  # the chunk sizes' version (``indexer.chunking.chunked_before``)
        },
        ensure_ascii=False,
    )


def card_from_json(source: str, text: str | None) -> DocumentCard | None:
    """The stored card of ``source``; None when it has none (indexed before cards) or it is unreadable."""
    if not text:
        return None
    try:
        data = json.loads(text)
        outline = tuple(Section(h, p, ln) for h, p, ln in data["outline"])
        synopsis = tuple(CardSentence(t, h, p, ln) for t, h, p, ln in data["synopsis"])
        tables = tuple(
            CardTable(
                str(t["sheet"]), int(t["header_row"]), int(t["rows"]), tuple((n, k) for n, k in t["columns"])
            )
            for t in data.get("tables", ())
        )
        language = str(data.get("language", ""))
        return DocumentCard(source, str(data["title"]), outline, synopsis, language, tables)
    except (ValueError, KeyError, TypeError):
        return None
