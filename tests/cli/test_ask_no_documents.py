"""`kimas ask --no-documents` (issue 45) end to end, with the real embedded chat model on a data dir that has
no collection: the reply is labelled as not from your documents, in the text and in the JSON; it has no
quote, citations or support; its trace names the model and says no retrieval ran; no store is opened; and,
under the network guard's strace, nothing reaches beyond this machine."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kimas_desktop.answer.model_alone import LABEL, RULE
from tests.test_no_network import _env, _guard_usable, outside_attempts, report, run_guarded

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
QUESTION = "What is the capital of France?"


def kimas(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cli.main", *args, "--data-dir", str(data_dir)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def test_ask_no_documents_json_is_labelled_uncited_and_sends_nothing(tmp_path: Path) -> None:
    _guard_usable()
    home, data, log = tmp_path / "home", tmp_path / "data", tmp_path / "ask.trace"
    home.mkdir()
    done = run_guarded(log, _env(home), "ask", QUESTION, "--no-documents", "--json", "--data-dir", str(data))
    assert done.returncode == 0, done.stderr[-3000:]
    trace_log = log.read_text()
    assert outside_attempts(trace_log) == [], f"kimas ask --no-documents reached outside: {report(trace_log)}"
    out = json.loads(done.stdout)
    assert out["mode"] == "model alone" and out["label"] == LABEL and out["outcome"] == "model alone"
    assert out["answer"].strip() and out["answered_from_sources"] is False
    assert out["citations"] == [] and out["quote"] is None and out["support"] is None
    assert "SmolLM2" in out["model"]
    stages = {s["stage"]: s for s in out["trace"]["stages"]}
    assert stages["decision"]["rule"] == RULE and stages["answer"]["model"] == out["model"]
    assert "retrieve" not in stages and "quote" not in stages and out["trace"]["evidence"] == []
    assert not (data / "lancedb").exists()  # nothing was searched: no store was opened


def test_ask_no_documents_says_so_before_the_answer(tmp_path: Path) -> None:
    done = kimas(tmp_path / "data", "ask", QUESTION, "--no-documents")
    assert done.returncode == 0, done.stderr[-3000:]
    first, _, rest = done.stdout.partition("\n")
    assert first == f"[{LABEL}]" and rest.strip()
    assert "Sources:" not in done.stdout


def test_no_documents_takes_no_online_source(tmp_path: Path) -> None:
    done = kimas(tmp_path / "data", "ask", QUESTION, "--no-documents", "--source", "web")
    assert done.returncode != 0 and "--no-documents" in done.stderr
