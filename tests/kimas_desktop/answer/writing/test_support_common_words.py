"""A quote that answers in common words, no name, number or date (issue 45, from the dev kit's tune split):
a sentence that answers the question must take what it adds from there, not from a passage further from
the question ("Structural engineers are responsible for …" asked who designs a structure's elements)."""

from __future__ import annotations

from collections.abc import Sequence

from kimas_desktop.answer.writing.support import SupportChecker
from kimas_desktop.types import Chunk, Hit, Quote, SentenceSupport
from local_models.fake import HashEmbedder


def check(question: str, answer: str, passages: Sequence[str]) -> SentenceSupport:
    """The one sentence of ``answer`` checked against ``passages``; the first passage is the quote."""
    hits = [Hit(Chunk(str(i), "docs", f"/docs/{i}.md", t), 0.9) for i, t in enumerate(passages)]
    quote = [Quote(1, hits[0].chunk, 0, len(passages[0]), passages[0], 1.0)]
    [sentence] = SupportChecker(HashEmbedder()).check(answer, hits, question, quote).sentences
    return sentence


def test_an_answer_from_a_passage_further_from_the_question_misses_the_quotes_answer() -> None:
    question = "Who designs the individual elements of a structure?"
    passages = [
        "Entry-level structural engineers may design the individual elements of a structure, such as beams.",
        "Structural engineers are responsible for efficient use of funds, structural elements and materials "
        "to achieve these goals.",
    ]
    wrong = check(
        question,
        "Structural engineers are responsible for designing the structural elements and materials to "
        "achieve these goals.",
        passages,
    )
    assert not wrong.supported and wrong.reason == "misses the answer"
    right = check(question, "Entry-level structural engineers design the individual elements.", passages)
    assert right.supported


def test_chinese() -> None:
    question = "谁设计结构的单个构件？"
    passages = [
        "初级结构工程师负责设计结构的单个构件，例如梁和柱。",
        "结构工程师负责资金、材料和预算，以实现这些目标。",
    ]
    wrong = check(question, "结构工程师负责设计构件、材料和预算，以实现这些目标。", passages)
    assert not wrong.supported and wrong.reason == "misses the answer"
    assert check(question, "初级结构工程师设计单个构件。", passages).supported


def test_hindi() -> None:
    question = "संरचना के अलग-अलग तत्वों को कौन डिज़ाइन करता है?"
    passages = [
        "प्रवेश स्तर के संरचनात्मक इंजीनियर संरचना के अलग-अलग तत्वों को डिज़ाइन करते हैं, जैसे बीम और खंभे।",
        "संरचनात्मक इंजीनियर धन, सामग्री और बजट के लिए ज़िम्मेदार हैं ताकि लक्ष्य पूरे हों।",
    ]
    wrong = check(
        question,
        "संरचनात्मक इंजीनियर तत्वों को डिज़ाइन करने, सामग्री और बजट के लिए ज़िम्मेदार हैं ताकि लक्ष्य पूरे हों।",
        passages,
    )
    assert not wrong.supported and wrong.reason == "misses the answer"
    assert check(question, "प्रवेश स्तर के संरचनात्मक इंजीनियर इन्हें डिज़ाइन करते हैं।", passages).supported
