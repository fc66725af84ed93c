"""``kimas ask`` numbers an answer's sources as the chat does: [1], [2], … in the order a reader meets them
(issue 69: the quote, the answer's markers and the sources started at [2]). The real CLI over a real index
(parser, indexer, LanceDB), the fake embedder and reranker, and a scripted chat model that cites by the
evidence's numbers: the passage ranked first shares the question's words but not its answer."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from app import runtime
from cli.main import main
from local_models.fake import HashEmbedder, ScriptedChatModel, WordOverlapReranker
from tests.kimas_desktop.pipeline_rig import DOGS, by_schema

QUESTION = "How many minutes did Anna walk Rex every day?"
ANSWER = "Anna walked Rex for 30 minutes every day [2]. Rex did love Anna every day [1]."
FILES = {
    "love.md": "Anna and Rex did walk; Rex did love Anna every day.\n",
    "walks.md": "Rex was walked by Anna for 30 minutes every day.\n",
    "park.md": "Anna walked Rex in the park near the river.\n",
}


def test_kimas_ask_numbers_the_quote_the_answer_and_the_sources_from_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real = runtime.real_builders
    fakes = replace(
        real(),
        embedder=lambda cfg, cache: HashEmbedder(dim=32),
        reranker=lambda cfg, emb, cache: WordOverlapReranker(),
        chat=lambda cfg: ScriptedChatModel(by_schema(DOGS, ANSWER), judges=True),
    )
    monkeypatch.setattr(runtime, "real_builders", lambda: fakes)
    docs = tmp_path / "pets"
    docs.mkdir()
    for name, text in FILES.items():
        (docs / name).write_text(text, "utf-8")
    data = str(tmp_path / "data")
    assert main(["index", str(docs), "--collection", "pets", "--data-dir", data]) == 0
    capsys.readouterr()
    assert main(["ask", QUESTION, "--data-dir", data]) == 0
    out = capsys.readouterr().out
    quote, answer, sources = out.split("\n\n")[0], out.split("\n\n")[1], out.split("Sources:")[1]
    # the quote: walks.md first (the model cited it as [2]), then love.md
    assert re.findall(r"\] .*/(\w+\.md)", quote) == ["walks.md", "love.md"], out
    assert re.findall(r"\[(\d+)\]", quote) == ["1", "2"], out
    assert answer == "Anna walked Rex for 30 minutes every day [1]. Rex did love Anna every day [2].", out
    assert re.findall(r"\[(\d+)\] .*/(\w+\.md)", sources) == [("1", "walks.md")], out
    assert "(not found in the sources: Rex did love Anna every day [2].)" in out  # in the same numbers
    json_out = main(["ask", QUESTION, "--data-dir", data, "--json"])
    assert json_out == 0 and '"n": 2' in capsys.readouterr().out  # --json keeps the evidence's numbers
