"""Real text in Chinese, Hindi and English for the multilingual recommendation's tests (issue 42): the
first paragraphs of two Chinese design papers (../shared/papers), a Hindi passage of the bigbench Hindi QA
dev kit, and English sentences."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[4] / "shared"
ENGLISH = (
    "The lighthouse keeper writes the weather in the log book every day at noon. "
    "Ships that pass the cape at night signal with two short flashes."
)


def _shared(relative: str) -> Path:
    path = SHARED / relative
    if not path.exists():
        pytest.skip(f"{path} is not on this machine")
    return path


def write_mixed(folder: Path) -> Path:
    """Two Chinese files, one Hindi, one English: mostly not English."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("kag.zh.txt", "ragenta.zh.txt"):
        text = _shared(f"papers/{name}").read_text("utf-8")[:1200]
        (folder / name).write_text(text, "utf-8")
    corpus = _shared("eval/devkit/hindi_qa_bigbench_even/corpus.jsonl")
    with corpus.open(encoding="utf-8") as lines:
        passage = json.loads(next(lines))["text"]
    (folder / "hindi.txt").write_text(passage, "utf-8")
    (folder / "english.md").write_text(ENGLISH + "\n", "utf-8")
    return folder


def write_english(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "keeper.md").write_text(ENGLISH + "\n", "utf-8")
    (folder / "plants.md").write_text("The office plants are watered on Mondays by the facilities team.\n")
    return folder
