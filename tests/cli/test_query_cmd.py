"""`kimas retrieve` / `kimas ask` end to end: real files, real indexer and LanceDB, the real tiny models."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow

BAKING = """# Sourdough baking notes

## Starter
Feed the sourdough starter with equal weights of rye flour and water every twelve hours.

## Oven
Bake the loaf in a Dutch oven at 250 degrees Celsius for twenty minutes with the lid on.
"""

GARDEN = """# Greenhouse log

## Tomatoes
The greenhouse tomatoes need watering every morning; the cherry variety ripened in July.

## Pests
Aphids on the peppers were removed with soapy water.
"""


def kimas(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cli.main", *args, "--data-dir", str(data_dir)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("kimas")
    for name, text in (("baking", BAKING), ("garden", GARDEN)):
        folder = root / "docs" / name
        folder.mkdir(parents=True)
        (folder / f"{name}.md").write_text(text)
        out = kimas(root / "data", "index", str(folder), "--collection", name)
        assert out.returncode == 0, out.stderr
    return root / "data"


def test_retrieve_json_contract_and_routing(data_dir: Path) -> None:
    out = kimas(data_dir, "retrieve", "At what temperature should the loaf be baked?", "--json")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert set(result) == {
        "question",
        "query",
        "routes",
        "hits",
        "timings_ms",
        "decision",
        "hops",
        "hops_stopped",
    }
    assert result["hops_stopped"]  # why no further hop was made
    assert result["decision"] == {
        "depends": "self-contained",
        "turns": [],
        "method": "first-turn",
        "reason": "the conversation's first question",
    }
    assert result["routes"][0]["collection"] == "baking"
    top = result["hits"][0]
    assert set(top) == {
        "collection",
        "source",
        "page",
        "ocr",
        "lines",
        "chunk_id",
        "heading",
        "text",
        "score",
    }
    assert "250 degrees" in top["text"]
    assert Path(top["source"]).is_absolute() and top["source"].endswith("baking.md")
    assert [h["score"] for h in result["hits"]] == sorted((h["score"] for h in result["hits"]), reverse=True)
    assert {"route", "retrieve", "rerank", "total"} <= set(result["timings_ms"])


def test_retrieve_batch_with_history(data_dir: Path, tmp_path: Path) -> None:
    batch = tmp_path / "q.jsonl"
    history = [
        {"role": "user", "content": "Tell me about the greenhouse tomatoes"},
        {"role": "assistant", "content": "They are watered daily."},
    ]
    batch.write_text(
        json.dumps({"id": "a", "question": "How do I feed the starter?"})
        + "\n"
        + json.dumps({"id": "b", "question": "When did they ripen?", "history": history})
        + "\n"
    )
    out = kimas(data_dir, "retrieve", "--batch", str(batch))
    assert out.returncode == 0, out.stderr
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    assert [r["id"] for r in rows] == ["a", "b"]
    assert rows[1]["query"] != rows[1]["question"]  # the context manager carried the topic over
    assert "tomatoes" in rows[1]["query"].lower()
    assert rows[1]["routes"][0]["collection"] == "garden"
    assert "July" in rows[1]["hits"][0]["text"]


def test_ask_cites_chunks_that_were_in_the_context(data_dir: Path) -> None:
    out = kimas(
        data_dir,
        "ask",
        "At what temperature should the loaf be baked in the Dutch oven?",
        "--json",
        "--preset",
        "turbo",
    )
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["answer"].strip()
    evidence = {e["chunk_id"] for e in result["trace"]["evidence"]}
    assert result["citations"], result
    assert {c["chunk_id"] for c in result["citations"]} <= evidence
    assert any(c["source"].endswith("baking.md") for c in result["citations"])
    assert "first_token" in result["timings_ms"]


def test_unanswerable_question_is_answered_as_such(data_dir: Path) -> None:
    out = kimas(data_dir, "ask", "Who won the 1998 football world cup final?", "--json", "--preset", "turbo")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["answered_from_sources"] is False and result["outcome"] == "nothing found"
    assert result["answer"] == "Nothing in your documents comes close to this question."
    assert result["citations"] == []


def test_history_can_be_a_stored_conversation_of_the_app(data_dir: Path) -> None:
    from app.chat.conversation import Conversation, Turn
    from app.chat.store import FILE_NAME, ConversationStore

    conv = Conversation(
        turns=[Turn("Tell me about the greenhouse tomatoes", "They are watered daily.", state="done")]
    )
    ConversationStore(data_dir / FILE_NAME).save(conv)
    out = kimas(data_dir, "retrieve", "When did they ripen?", "--history", conv.id)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert "tomatoes" in result["query"].lower()  # the stored chat carried the topic over
    assert result["routes"][0]["collection"] == "garden"
    missing = kimas(data_dir, "retrieve", "q", "--history", "no-such-chat")
    assert missing.returncode == 2
    assert "no stored conversation with that id" in missing.stderr and "Traceback" not in missing.stderr


def test_bad_history_file_is_a_clear_error(data_dir: Path, tmp_path: Path) -> None:
    bad = tmp_path / "h.json"
    bad.write_text('{"role": "user"}')
    out = kimas(data_dir, "retrieve", "q", "--history", str(bad))
    assert out.returncode == 2
    assert "history must be a JSON list" in out.stderr
    assert "Traceback" not in out.stderr
    bad.write_text('[{"role": "assistant", "content": "Daily.", "sources": "/docs/garden.md"}]')
    out = kimas(data_dir, "retrieve", "q", "--history", str(bad))
    assert out.returncode == 2 and "sources must be a list of file paths" in out.stderr


def test_ask_json_quote_answerable_and_support_contract(data_dir: Path) -> None:
    out = kimas(
        data_dir,
        "ask",
        "At what temperature should the loaf be baked in the Dutch oven?",
        "--json",
        "--preset",
        "turbo",
        "--try-anyway",  # the embedded model writes (else its answer is the quote: issue 69), and is checked
    )
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    evidence = {e["chunk_id"]: e["text"] for e in result["trace"]["evidence"]}
    quote = result["quote"]
    part = quote["parts"][0]
    assert set(part) == {"text", "n", "source", "page", "ocr", "lines", "chunk_id", "start", "end", "score"}
    assert "250 degrees Celsius" in part["text"] and part["source"].endswith("baking.md")
    assert evidence[part["chunk_id"]][part["start"] : part["end"]] == part["text"]  # verbatim, with offsets
    assert result["trace"]["evidence"][part["n"] - 1]["chunk_id"] == part["chunk_id"]  # numbered as cited
    answerable = result["answerable"]
    assert answerable["decision"] is True and answerable["score"] >= answerable["threshold"]
    assert set(answerable["evidence"]) == {"sentence_overlap", "evidence_overlap", "cosine", "rerank"}
    # The quote is ready before the model's first token.
    stages = {s["stage"]: s for s in result["trace"]["stages"]}
    assert stages["quote"]["at_ms"] < result["timings_ms"]["first_token"]
    support = result["support"]
    assert support, result["answer"]
    for s in support:
        assert set(s) == {
            "text",
            "start",
            "end",
            "supported",
            "lexical",
            "cosine",
            "source",
            "evidence",
            "missing",
            "reason",  # why an unsupported sentence is marked (issue 45), "" for a backed one
            "lacks",
        }
        assert result["answer"][s["start"] : s["end"]] == s["text"]
        assert (s["reason"] == "") == s["supported"] and isinstance(s["lacks"], list)
    assert stages["support"]["unsupported"] == sum(1 for s in support if not s["supported"])


def test_ask_shows_the_quote_once_with_its_source_when_the_quote_is_the_answer(data_dir: Path) -> None:
    """Issue 69 follow-up: the embedded chat model writes no answer of its own, so its answer is the quote.
    ``kimas ask`` printed that quote twice: as the quote, then again as the answer ("Your documents say:
    …"). Now once, with its source, and why there is no other answer."""
    out = kimas(data_dir, "ask", "At what temperature should the loaf be baked in the Dutch oven?")
    assert out.returncode == 0, out.stderr
    quote = "Bake the loaf in a Dutch oven at 250 degrees Celsius for twenty minutes with the lid on."
    assert out.stdout.count(quote) == 1, out.stdout
    assert re.search(rf"“{re.escape(quote)}” \[1\] \S*baking\.md, lines 6-7\n", out.stdout), out.stdout
    assert "--try-anyway" in out.stdout  # why no answer was written, and how to have one
    assert re.search(r"\n\nSources:\n  \[1\] \S*baking\.md, lines 6-7\n$", out.stdout), out.stdout


def test_an_on_topic_question_the_documents_do_not_answer_is_declined_without_the_model(
    data_dir: Path,
) -> None:
    out = kimas(
        data_dir, "ask", "Which brand of rye flour does the bakery buy?", "--json", "--preset", "turbo"
    )
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["answerable"]["decision"] is False
    assert result["answered_from_sources"] is False
    assert result["answer"].startswith(
        "Your documents don't say “Which brand of rye flour does the bakery buy”"
    )
    assert "baking.md" in result["answer"]  # the closest passage is named
    assert result["quote"]["parts"][0]["source"].endswith("baking.md")
    assert "first_token" not in result["timings_ms"]  # the chat model was not asked
    assert result["support"] is None
    assert result["citations"] and result["citations"][0]["sentence"] == result["quote"]["parts"][0]["text"]


def test_a_source_read_by_ocr_says_so_where_it_is_printed() -> None:
    from cli.query_cmd import _where
    from kimas_desktop.types import Chunk

    assert _where(Chunk("c", "docs", "scan.pdf", "text", page=3, ocr=True)) == "scan.pdf, p. 3 (OCR)"
    assert _where(Chunk("c", "docs", "scan.pdf", "text", page=3)) == "scan.pdf, p. 3"
    assert _where(Chunk("c", "docs", "a.md", "text", line_start=10, line_end=24)) == "a.md, lines 10-24"
