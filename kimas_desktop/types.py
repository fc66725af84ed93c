"""Typed values passed between stages. Frozen dataclasses, never dicts."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

__all__ = [
    "Answerability",
    "CardSentence",
    "CardTable",
    "ChatModelDescription",
    "Chunk",
    "Citation",
    "CollectionInfo",
    "DocumentCard",
    "Evidence",
    "FileProblem",
    "Hit",
    "IndexProgress",
    "IndexReport",
    "Message",
    "OnlineDocument",
    "Quote",
    "Role",
    "Route",
    "Section",
    "SentenceSupport",
    "SupportReason",
    "Synopsis",
]

Role = Literal["user", "assistant", "system"]


@dataclass(frozen=True)
class Message:
    role: Role
    content: str
    # An answer's files (its quote's and citations' sources): a later question whose own search finds one
    # is also searched in them (``TurnDecision.sources``). Empty for a question and an answer from no file.
    sources: tuple[str, ...] = ()


@dataclass(frozen=True)
class Chunk:
    """One indexed piece of a source file."""

    chunk_id: str
    collection: str
    source: str  # absolute path of the file
    text: str
    page: int | None = None  # 1-based PDF page
    line_start: int | None = None  # 1-based, inclusive
    line_end: int | None = None
    heading: str = ""  # heading path, "A > B > C"
    file_hash: str = ""
    indexed_at: float = 0.0
    ocr: bool = False  # the text was read by OCR from an image of the page

    @property
    def lines(self) -> tuple[int, int] | None:
        if self.line_start is None or self.line_end is None:
            return None
        return (self.line_start, self.line_end)

    @property
    def file_name(self) -> str:
        """The file's name, as the model's sources are labelled (a web passage: its address's last part)."""
        return self.source.replace("\\", "/").rsplit("/", 1)[-1]

    @property
    def online(self) -> bool:
        """The chunk is a passage of a web page an online source returned (``source`` is its address)."""
        return self.source.startswith(("http://", "https://"))

    @property
    def locator(self) -> str:
        """Human-readable position: 'p. 3', 'p. 3 (OCR)', 'lines 10-24' or ''."""
        if self.page is not None:
            return f"p. {self.page} (OCR)" if self.ocr else f"p. {self.page}"
        if self.lines is not None:
            return f"lines {self.line_start}-{self.line_end}"
        return ""


@dataclass(frozen=True)
class Hit:
    """A chunk found for a query, with the score of whoever found it."""

    chunk: Chunk
    score: float
    origin: str = ""  # which agent/query/search produced it
    # The chunk's stored embedding when the store returned it (the reranker reuses it instead of
    # embedding the text again); None once the text no longer matches it (digests).
    vector: tuple[float, ...] | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Route:
    """The router's verdict for one collection (the parts are explained in ``kimas_desktop/router.py``).

    ``score`` is the final one: the collection's scale × its share of the mixed dense/lexical posterior
    (between 0 and ``scale``). ``dense_score`` is the dense similarity, the ``mixin_weight`` average of
    ``centroid_score`` (best centroid cosine) and ``mixin_score`` (best description/example cosine, None
    without mix-in texts). ``lexical_score`` is the query-likelihood log-likelihood ratio against the
    background of all candidate collections, in nats (> 0: the query's words are more typical of this
    collection than of the candidates together); None when no lexical evidence went into ``score``.
    """

    collection: str
    score: float
    centroid_score: float
    mixin_score: float | None = None
    dense_score: float = 0.0
    lexical_score: float | None = None


@dataclass(frozen=True)
class Synopsis:
    """What the router knows about a collection: centroids of its chunk embeddings, and how often each
    content word (``kimas_desktop.text.content_words``) occurs in its chunks.

    ``terms`` is None when the collection has no term counts yet (indexed by an older version; the next
    sync adds them); ``term_total`` is the sum of the counts.
    """

    collection: str
    centroids: tuple[tuple[float, ...], ...]
    chunk_count: int = 0
    terms: Mapping[str, int] | None = field(default=None, hash=False)
    term_total: int = 0


@dataclass(frozen=True)
class Section:
    """One heading of a document's outline, where its text starts."""

    heading: str  # the heading path, "A > B > C" (as ``Chunk.heading``)
    page: int | None = None
    line: int | None = None

    @property
    def title(self) -> str:
        return self.heading.rsplit(" > ", 1)[-1]

    @property
    def level(self) -> int:
        return self.heading.count(" > ") + 1


@dataclass(frozen=True)
class CardSentence:
    """A sentence of a document's card, with where it stands in the document (for its citation)."""

    text: str
    heading: str = ""
    page: int | None = None
    line: int | None = None


@dataclass(frozen=True)
class CardTable:
    """One table of a spreadsheet or CSV, as its card shows it (``indexer.tables``): its sheet ("" in a
    CSV), its header row (0: none), its data rows, and each column's name and kind (number, date, text)."""

    sheet: str
    header_row: int
    rows: int
    columns: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class DocumentCard:
    """What a whole document is about, built at index time (``indexer.upkeep.cards``): its title, its heading
    tree and its most central sentences, in document order."""

    source: str
    title: str
    outline: tuple[Section, ...] = ()
    synopsis: tuple[CardSentence, ...] = ()
    language: str = ""  # ISO 639-1 of most of its text ("und": not told; "": indexed before languages)
    tables: tuple[CardTable, ...] = ()  # a spreadsheet's or CSV's tables

    def text(self) -> str:
        """The card as one passage: the title, the synopsis, then the outline's top headings."""
        said = " ".join(s.text for s in self.synopsis)
        contents = f"Contents: {'; '.join(self.contents())}." if self.contents() else ""
        return " ".join(p for p in (f"{self.title}.", said, contents) if p)

    def synopsis_span(self) -> tuple[int, int]:
        """Where the synopsis stands in ``text()`` (start, end); empty when there is none."""
        start = len(self.title) + 2
        return start, start + len(" ".join(s.text for s in self.synopsis))

    def contents(self) -> list[str]:
        """The titles of the first twelve chapters (``chapters``)."""
        return [s.title for s in self.chapters()][:12]

    def chapters(self) -> tuple[Section, ...]:
        """The outline's main divisions: the shallowest level with more than one heading (a document's
        title above its chapters is not a chapter)."""
        for level in sorted({s.level for s in self.outline}):
            found = tuple(s for s in self.outline if s.level == level)
            if len(found) > 1:
                return found
        return ()


@dataclass(frozen=True)
class FileProblem:
    """A file that was skipped or failed, and why (shown to the user)."""

    path: str
    reason: str
    kind: Literal["skipped", "failed"] = "skipped"


@dataclass(frozen=True)
class CollectionInfo:
    name: str
    folders: tuple[str, ...]
    embedding_model: str
    dim: int
    files: int
    chunks: int
    updated_at: float | None
    problems: tuple[FileProblem, ...] = ()
    # Built with another embedding model than the configured one: re-embed it (``kimas reindex``).
    needs_reembedding: bool = False


@dataclass(frozen=True)
class IndexProgress:
    """Reported through the indexer's progress callback (CLI and UI both use it)."""

    collection: str
    files_done: int
    files_total: int
    current_file: str
    chunks_done: int
    chunks_per_s: float
    eta_s: float | None
    finished: bool = False
    ocr_pages_waiting: int = 0  # scanned pages and images queued for OCR, read after everything else


@dataclass(frozen=True)
class IndexReport:
    collection: str
    indexed: int
    unchanged: int
    deleted: int
    skipped: int
    failed: int
    chunks_added: int
    seconds: float
    problems: tuple[FileProblem, ...] = ()


@dataclass(frozen=True)
class Citation:
    n: int  # 1-based number of the source as shown to the model
    chunk: Chunk
    snippet: str
    # The cited sentence's offsets in ``chunk.text`` (the one that supports the answer, or the quote),
    # for highlighting; None when only the chunk is known.
    start: int | None = None
    end: int | None = None

    @property
    def sentence(self) -> str:
        if self.start is None or self.end is None:
            return ""
        return self.chunk.text[self.start : self.end]


@dataclass(frozen=True)
class Quote:
    """Verbatim text of a source: ``chunk.text[start:end] == text``. ``n`` numbers the source as the
    answer prompt does ([n]); ``score`` is the best of its sentences' scores."""

    n: int
    chunk: Chunk
    start: int
    end: int
    text: str
    score: float

    @property
    def display(self) -> str:
        """The text on one line (a PDF's line breaks and hyphenation left as they are in the source)."""
        return " ".join(self.text.split())


# Why a sentence is marked: a fact no source holds; words no source sentence comes close to; the
# question's own words and nothing more; an answer without what the quote answers. "" when supported.
SupportReason = Literal[
    "", "not in the sources", "weakly backed", "restates the question", "misses the answer"
]


@dataclass(frozen=True)
class SentenceSupport:
    """One answer sentence (``answer[start:end]``) and how well the sources back it.

    ``source`` is the 1-based number of the best supporting source and ``evidence_start``/``evidence_end``
    the offsets of its best sentence in that chunk's text (None when no source sentence comes close);
    ``missing`` lists the facts found in no source. ``reason`` says why an unsupported sentence is marked
    (``SupportReason``); ``lacks``: what the quote answers, which a sentence that restates the question or
    misses the answer does not hold ("Nairobi").
    """

    text: str
    start: int
    end: int
    supported: bool
    lexical: float
    cosine: float
    source: int | None = None
    evidence_start: int | None = None
    evidence_end: int | None = None
    missing: tuple[str, ...] = ()
    reason: SupportReason = ""
    lacks: tuple[str, ...] = ()


@dataclass(frozen=True)
class Evidence:
    """What the decision is made from (kept in the trace so a decision can be explained and refitted)."""

    sentence_overlap: float
    evidence_overlap: float
    cosine: float
    rerank: float

    def vector(self) -> tuple[float, ...]:
        return (self.sentence_overlap, self.evidence_overlap, self.cosine, self.rerank)


@dataclass(frozen=True)
class Answerability:
    """The decision: ``answerable`` is ``score >= threshold``."""

    answerable: bool
    score: float
    threshold: float
    evidence: Evidence | None = None


@dataclass(frozen=True)
class ChatModelDescription:
    """What the pipeline may expect of a loaded chat model: read from its GGUF metadata (or the server it
    runs on) and measured at load, never guessed from a display name.

    ``judges``: it copies answers from sources reliably enough that its extract-and-verify check is
    evidence (measured: the embedded SmolLM2-135M's copies verify for 2 of 20 answerable questions; the
    0.5B benchmark model's check declines 0.55-0.75 of unanswerable ones; bench/RESULTS.md).
    ``writes``: its own sentences are worth showing beside the quote. False for a model measured to add
    nothing to it (the embedded SmolLM2-135M: the gold beyond the quote for 0 of 250 held-out questions,
    bench/RESULTS.md "answer loops"): its answer is then the quote, and it writes only when asked to try."""

    model_id: str
    context_window: int
    judges: bool
    parameters: int | None = None  # from the model file, when it says
    prompt_tokens_per_s: float | None = None  # measured at load
    chat_template: str = ""  # the template's name, or "built-in" when the model file carries one
    writes: bool = True  # its written answer is shown (False: the quote is the answer; see above)


@dataclass(frozen=True)
class OnlineDocument:
    """A result of an online source: a fetched page's main text, or the result's own snippet when the
    page was not read (``page_read`` False)."""

    source: str  # the source's name in the config
    url: str
    title: str
    text: str
    retrieved_at: float  # when it was fetched (seconds since the epoch)
    date: str = ""  # the page's own date, when it states one
    page_read: bool = False
