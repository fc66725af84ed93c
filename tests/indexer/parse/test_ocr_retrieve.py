"""End to end through the real CLI (`kimas index`, `kimas retrieve`): a scanned PDF's sentence and a
table cell's value are found, with the real indexer, LanceDB and the embedded models."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from indexer.parse.ocr import tesseract
from tests.indexer.scans import scanned_pdf_bytes

ROOT = Path(__file__).resolve().parents[3]

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(tesseract() is None, reason="Tesseract (tesseract-ocr) is not installed"),
]

SCANNED = "The harbour master keeps the tide tables\nin the blue cabinet beside the radio room."
NOTES = """# Depot handbook

## Opening hours
The depot opens at seven and closes at six on weekdays.

## Vehicles

| Vehicle | Registration | Load limit |
|---|---|---|
| Blue van | KL 4471 | 900 kg |
| Flatbed truck | KL 9902 | 3500 kg |
| Electric cart | none | 250 kg |

## Keys
Keys are signed out at the front desk.
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
    folder = root / "docs"
    folder.mkdir()
    (folder / "a-scan.pdf").write_bytes(scanned_pdf_bytes(["Harbour office, page one", SCANNED]))
    (folder / "depot.md").write_text(NOTES)
    out = kimas(root / "data", "index", str(folder), "--collection", "office")
    assert out.returncode == 0, out.stderr
    return root / "data"


def test_a_scanned_pdf_sentence_is_retrievable(data_dir: Path) -> None:
    out = kimas(data_dir, "retrieve", "Where are the tide tables kept?", "--json")
    assert out.returncode == 0, out.stderr
    top = json.loads(out.stdout)["hits"][0]
    assert top["source"].endswith("a-scan.pdf") and top["page"] == 2 and top["ocr"] is True
    assert "blue cabinet" in top["text"]


def test_a_table_cell_question_is_answered_from_its_row(data_dir: Path) -> None:
    out = kimas(data_dir, "retrieve", "What is the load limit of the flatbed truck?", "--json")
    assert out.returncode == 0, out.stderr
    top = json.loads(out.stdout)["hits"][0]
    assert top["source"].endswith("depot.md")
    assert "Vehicle: Flatbed truck; Registration: KL 9902; Load limit: 3500 kg" in top["text"]
