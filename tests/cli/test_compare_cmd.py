"""Comparisons answered in code (issue 25): two documents each give a date; `kimas ask` (real files,
indexer, LanceDB and the embedded models) names the earlier one and shows both dates with their citations."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.test_query_cmd import kimas

pytestmark = pytest.mark.slow

RHINE = """# The Rhine Shipping Company

The Rhine Shipping Company was founded in 1851 in Cologne by a group of merchants.
It carried coal and grain between Basel and Rotterdam, and its steamers were built in Duisburg.
"""

ELBE = """# Elbe Works

The Elbe Works were founded in 1892 in Hamburg as a repair yard for river barges.
Today the yard builds ferries; in 1931 it opened a second dock.
"""


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("compare")
    folder = root / "docs"
    folder.mkdir()
    (folder / "rhine.md").write_text(RHINE)
    (folder / "elbe.md").write_text(ELBE)
    out = kimas(root / "data", "index", str(folder), "--collection", "companies")
    assert out.returncode == 0, out.stderr
    return root / "data"


@pytest.mark.parametrize("preset", ["full", "turbo"])
def test_which_was_founded_first_is_answered_from_both_dates(data_dir: Path, preset: str) -> None:
    question = "Which was founded first, the Elbe Works or the Rhine Shipping Company?"
    out = kimas(data_dir, "ask", question, "--json", "--preset", preset)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    answer = result["answer"]
    assert answer.startswith("Rhine Shipping Company came first:"), answer
    assert "1851" in answer and "1892" in answer
    cited = {Path(c["source"]).name: c["sentence"] for c in result["citations"]}
    assert cited == {
        "rhine.md": "The Rhine Shipping Company was founded in 1851 in Cologne by a group of merchants.",
        "elbe.md": "The Elbe Works were founded in 1892 in Hamburg as a repair yard for river barges.",
    }
    stages = {s["stage"]: s for s in result["trace"]["stages"]}
    assert stages["decision"]["rule"] == "computed"
    assert set(stages["compute"]["values"]) == {"1851", "1892"}
    assert "answer" not in stages  # the chat model did not write it


def test_how_many_years_between_and_a_question_without_both_values(data_dir: Path) -> None:
    question = "How many years passed between the founding of the Rhine Shipping Company and the Elbe Works?"
    result = json.loads(kimas(data_dir, "ask", question, "--json", "--preset", "turbo").stdout)
    assert result["answer"].startswith("41 years:"), result["answer"]
    # Only one of the two is in the documents: no computed answer, the usual path decides.
    result = json.loads(
        kimas(
            data_dir,
            "ask",
            "Which was founded first, the Elbe Works or the Weser Mill?",
            "--json",
            "--preset",
            "turbo",
        ).stdout
    )
    assert "compute" not in {s["stage"] for s in result["trace"]["stages"]}
