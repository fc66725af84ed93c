"""``kimas ask`` text output: the answer again with its [n] markers once the sources are known."""

from __future__ import annotations

from cli.render import marked_text
from kimas_desktop.text.sentences import split_sentences
from kimas_desktop.types import Chunk, Citation, SentenceSupport

ANSWER = (
    "The launch code is PURPLE-OTTER-42. Dana waters the plants on Mondays.\n\n"
    "The moon is made of cheese. Badges are renewed in March."
)


def _support(answer: str, verdicts: list[tuple[bool, int | None]]) -> list[SentenceSupport]:
    return [
        SentenceSupport(s.text, s.start, s.end, ok, 0.9 if ok else 0.1, 0.9 if ok else 0.1, n)
        for s, (ok, n) in zip(split_sentences(answer, "markdown"), verdicts, strict=True)
    ]


def test_kimas_ask_prints_the_answer_with_its_markers() -> None:
    support = _support(ANSWER, [(True, 1), (True, 2), (False, 1), (True, 3)])
    chunk = Chunk("c", "docs", "/d/a.md", "text")
    cited = [Citation(1, chunk, "text"), Citation(3, chunk, "text")]
    assert marked_text(ANSWER, support, cited) == (
        "The launch code is PURPLE-OTTER-42.[1] Dana waters the plants on Mondays.\n\n"
        "The moon is made of cheese. Badges are renewed in March.[3]"
    )
    assert marked_text(ANSWER, support, []) == ""
