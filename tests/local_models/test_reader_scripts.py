"""The shipped reader (``local_models/reader``, issue 68) on one real question per script, and on one question
its candidates do not answer.

Each question is asked against the real text that answers it and the real texts around it: the blocks of one
section of the Debian Reference (GPL-2+; Osamu Aoki and its translators) as the product's HTML parser reads
them, from the chapters the reader never trained on (ch04, ch12), or the sentences of a Hindi passage of
BIG-bench's Hindi QA (measure-only data, never trained on). English and German pages are read where
``scripts/test.sh`` installs them; the Chinese and Japanese sections and the Hindi passage are kept in
``data/reader_scripts.json``, each with its source. The questions were written before the reader read them;
the Hindi one is the dev kit's first question whose passage has four sentences or more and the answer in
exactly one (q2).

What the reader does not hold, measured when this test was written: a Japanese question on PolicyKit (4.7.2,
"which users may it let perform administrative operations") ranks the sentence on those operations (0.839)
above the one that answers (0.556), as the English one does; and "Which programming language is Meson
written in?", which 12.6.3 does not answer, reads its Meson sentence at 0.570, above the 0.436 that sentence
gets for the question it answers.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from indexer.parse.html import parse_html
from kimas_desktop.text.sentences import split_sentences
from local_models.reader.onnx_reader import EmbeddedReader

pytestmark = pytest.mark.slow

DEBIAN = Path("/usr/share/debian-reference")
KEPT = json.loads((Path(__file__).parent / "data" / "reader_scripts.json").read_text("utf-8"))


def section(page: str, number: str) -> list[str]:
    """The blocks of section ``number`` of an installed page, its heading left out."""
    path = DEBIAN / page
    if not path.exists():
        pytest.skip(f"{path} is not installed (scripts/test.sh installs debian-reference-en and -de)")
    found = []
    for block in parse_html(path.read_bytes()):
        heading = block.heading.split(" > ")[-1]
        if heading.split(" ")[0].rstrip(".") == number and block.text != heading:
            found.append(block.text)
    return found


def kept(lang: str) -> list[str]:
    return list(KEPT[lang]["texts"])


def hindi() -> list[str]:
    return [s.text for s in split_sentences(KEPT["hi"]["passage"])]


@dataclass(frozen=True)
class Asked:
    question: str
    texts: Callable[[], list[str]]
    answer: str  # a piece of the one text that answers


ASKED = {
    "Latin: English": Asked(
        "When was Meson first released?",
        lambda: section("ch12.en.html", "12.6.3"),
        "Meson initially released in 2013",
    ),
    "Latin: German": Asked(
        "Aus wie vielen Zeichen sollte ein gutes Passwort mindestens bestehen?",
        lambda: section("ch04.de.html", "4.3"),
        "mindestens sechs bis acht Zeichen",
    ),
    "Han: Chinese": Asked("Meson 是哪一年首次发布的？", lambda: kept("zh-cn"), "Meson 在 2013 年初始发布"),
    "Japanese": Asked(
        "sudo にはどのパスワードが必要ですか？", lambda: kept("ja"), "通常パスワードだけが必要"
    ),
    "Devanagari: Hindi": Asked("चीन में 6वी जनसंख्या गणना कब आयोजित की गई?", hindi, "1 नवंबर 2010"),
    # What the product reads the reader for: a question in Latin letters over text in another script.
    "Latin question, Han text": Asked(
        "When was Meson first released?", lambda: kept("zh-cn"), "Meson 在 2013 年初始发布"
    ),
}


@pytest.fixture(scope="module")
def reader() -> EmbeddedReader:
    return EmbeddedReader()


def answering(texts: list[str], piece: str) -> int:
    found = [i for i, t in enumerate(texts) if piece in t]
    assert len(found) == 1, (piece, texts)
    return found[0]


@pytest.mark.parametrize("script", list(ASKED))
def test_the_text_that_answers_reads_above_every_other_of_its_section(
    reader: EmbeddedReader, script: str
) -> None:
    asked = ASKED[script]
    texts = asked.texts()
    gold = answering(texts, asked.answer)
    read = reader.read(asked.question, texts)
    others = [round(p, 3) for i, p in enumerate(read) if i != gold]
    assert read[gold] > max(others), (round(read[gold], 3), others)


def test_a_question_the_section_does_not_answer_reads_below_one_it_answers(reader: EmbeddedReader) -> None:
    """4.7.1 says what password sudo asks for, not how long it keeps it: the reader gives the unanswered
    question's best text less than it gives the answering text (0.148 and 0.877 when written), and less
    than even odds."""
    texts = section("ch04.en.html", "4.7.1")
    gold = answering(texts, "requires only an ordinary user's password")
    answered = reader.read("What password does sudo require?", texts)[gold]
    unanswered = reader.read("How long does sudo remember a password?", texts)
    assert max(unanswered) < min(answered, 0.5), ([round(p, 3) for p in unanswered], round(answered, 3))


@pytest.mark.parametrize("lang", ["zh-cn", "ja"])
def test_the_kept_sections_are_what_the_pages_hold(lang: str) -> None:
    """Where the translated page is installed, the kept section is what the product's parser reads in it."""
    assert section(KEPT[lang]["page"], KEPT[lang]["section"]) == kept(lang)
