"""German known-item questions (issue 42): a German sentence is asked about in German, about a phrase
picked with German stopwords, and an English sentence's question is the one it was before German.

German text: the real Debian Reference in German (``debian-reference-de``: /usr/share/debian-reference/
ch01.de.html, "GNU/Linux-Grundlagen"), parsed by the product's HTML parser. English: 80 evidence
sentences of the English Debian Reference with the question the generator wrote for each before German
was added (``data/english_questions_before_german.json``, made with the commit before this test)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from app.evaluation.phrases import ask_about, best_phrase
from app.evaluation.questions import generate
from indexer.parse.html import parse_html
from kimas_desktop.text.language import LanguageDetector
from kimas_desktop.text.stopwords import GERMAN, STOPWORDS
from kimas_desktop.text.words import words
from kimas_desktop.types import Chunk

CHAPTER = Path("/usr/share/debian-reference/ch01.de.html")
ENGLISH = Path(__file__).parent / "data" / "english_questions_before_german.json"
ASKED_DE = re.compile(r"^Was steht in den Dokumenten über (.+)\?$")


def needs_debian_reference() -> None:
    """Outside Debian (macOS, Windows) the manual is not there; scripts/test.sh installs it on Debian."""
    if not (CHAPTER.exists() and CHAPTER.with_name("ch02.en.html").exists()):
        pytest.skip("debian-reference-de/-en are not installed (scripts/test.sh installs them)")


def length(word: str) -> float:
    return float(len(word))


def german_chunks() -> list[Chunk]:
    blocks = [b.text for b in parse_html(CHAPTER.read_bytes()) if len(b.text.split()) >= 12]
    return [Chunk(f"de{i}", "debian", "/docs/ch01.de.html", t) for i, t in enumerate(blocks)]


def test_a_german_sentence_is_asked_about_in_german_with_a_phrase_of_it_without_stopwords() -> None:
    needs_debian_reference()
    detector = LanguageDetector()
    made = generate({"debian": german_chunks()}, 30, seed=42)
    german = [q for q in made.questions if q.answerable and detector.detect(q.evidence) == "de"]
    assert len(german) >= 15
    for q in german:
        asked = ASKED_DE.match(q.question)
        assert asked, q.question
        phrase = asked.group(1)
        assert phrase in " ".join(q.evidence.split()), (phrase, q.evidence)  # a part of it, as written
        assert q.answer not in words(phrase)
        edges = words(phrase)[0].lower(), words(phrase)[-1].lower()
        assert not set(edges) & GERMAN, q.question  # no "Sie", "bitte", "indem" at either end


def test_the_german_phrase_is_a_noun_phrase_of_the_sentence() -> None:
    needs_debian_reference()
    sentence = next(
        " ".join(b.text.split())
        for b in parse_html(CHAPTER.read_bytes())
        if "Bitte beachten Sie" in b.text and "Alt-Taste" in b.text
    )
    sentence = sentence[sentence.index("Bitte beachten Sie") :]
    phrase = best_phrase(sentence, length, "Alt-Taste")
    assert phrase is not None and phrase.language == "de"
    assert "Sie" not in phrase.words and "Bitte" not in phrase.words and phrase.text in sentence
    assert ask_about(phrase) == f"Was steht in den Dokumenten über {phrase.text}?"
    made = best_phrase("Die Liste der Pakete lässt sich mit dem Befehl aptitude aktualisieren.", length)
    assert made is not None and made.text == "Liste der Pakete"  # joined by a genitive; no verb at the end


def test_an_english_sentence_gets_the_question_it_got_before_german() -> None:
    rows = json.loads(ENGLISH.read_text("utf-8"))
    assert len(rows) == 80
    for row in rows:
        phrase = best_phrase(row["sentence"], length, row["answer"])
        assert (ask_about(phrase) if phrase else None) == row["question"], row["sentence"]


def test_german_stopwords_stay_out_of_the_union_english_text_reads() -> None:
    assert {"die", "war", "man", "hat", "bin"} <= GERMAN
    assert not {"die", "war", "man", "hat", "bin"} & STOPWORDS


def test_a_note_boxs_label_is_not_the_sentence_asked_about() -> None:
    """The Debian Reference's Tip/Note/Caution boxes start with their label on a line of its own ("Tipp",
    then the text): the evidence is the sentence after it, and no question is about the label."""
    labels = {"Tipp", "Tip", "Anmerkung", "Note", "Achtung", "Caution", "Warnung", "Warning"}
    needs_debian_reference()
    for lang in ("de", "en"):
        chapters = [CHAPTER.with_name(f"ch0{n}.{lang}.html") for n in (2, 5)]
        blocks = [(c, b.text) for c in chapters for b in parse_html(c.read_bytes())]
        boxes = [(c, t) for c, t in blocks if t.split("\n", 1)[0] in labels]
        chunks = [Chunk(f"{lang}{i}", "debian", str(c), t) for i, (c, t) in enumerate(boxes)]
        made = generate({"debian": chunks}, 60, seed=7)
        asked = [q for q in made.questions if q.answerable]
        assert len(asked) >= 20, (lang, len(asked))
        for q in asked:
            assert q.evidence.split()[0] not in labels, q
            assert not any(label in q.question.split() for label in labels), q
