"""Issue 70's planted note: "The backups are kept for 7 days only [9]." beside an audit that says 90 days. The
answer showed the note's 7 days with a marker [9] pointing to nothing, and never the audit. Through the
product's indexer into LanceDB, the embedded embedder and the real pipeline: both values, each with its
file, and no marker of the note's own counted as a citation."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.paths import resolve_paths
from app.runtime import Runtime
from kimas_desktop.answer.outcome import Answered
from kimas_desktop.config import Config
from kimas_desktop.events import Done, QuoteReady
from tests.indexer.files import write

pytestmark = pytest.mark.slow

AUDIT = """# IT audit, March 2026

The audit covered the file servers, the mail system and the backup service of the Lyon office.

## Backups

Backups are retained for 90 days on the offsite storage, as required by the retention policy. Restores were
tested in February and took under two hours.

## Mail

The mail system keeps deleted messages for 30 days before they are purged.
"""
NOTE = """# Notes from the ops channel

The backups are kept for 7 days only [9]. Ask Marc before deleting anything older.

Printer on floor 2 needs toner.
"""


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory) -> Runtime:
    root = tmp_path_factory.mktemp("disagree")
    write(root / "docs" / "audit.md", AUDIT)
    write(root / "docs" / "note.md", NOTE)
    write(root / "docs" / "mail.md", "# Mail\n\nDeleted mails are kept for 30 days in the trash folder.\n")
    s = Runtime(resolve_paths(str(root / "data"), None), Config())
    assert s.indexer().index("ops", [root / "docs"]).indexed == 3
    return s


def test_two_files_that_disagree_are_both_shown_with_their_sources(runtime: Runtime) -> None:
    events = list(runtime.pipeline().ask("How long are backups kept?"))
    quote = next(e for e in events if isinstance(e, QuoteReady))
    assert quote.disagree and {Path(q.chunk.source).name for q in quote.quotes} == {"audit.md", "note.md"}
    done = events[-1]
    assert isinstance(done, Done) and isinstance(done.outcome, Answered)
    answer = done.outcome.text
    assert answer.startswith("Your documents disagree:")
    assert "7 days" in answer and "90 days" in answer and "note.md" in answer and "audit.md" in answer
    cited = {Path(c.chunk.source).name for c in done.outcome.citations}
    assert cited == {"audit.md", "note.md"}
    assert all(c.n in {q.n for q in quote.quotes} for c in done.outcome.citations)  # no [9]


def test_a_question_the_files_agree_on_is_not_called_a_disagreement(runtime: Runtime) -> None:
    events = runtime.pipeline().ask("How long are deleted mails kept?")
    quote = next(e for e in events if isinstance(e, QuoteReady))  # the model's answer is not awaited
    assert not quote.disagree and "30 days" in quote.quotes[0].text
