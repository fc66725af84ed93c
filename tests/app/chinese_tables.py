"""What the Chinese table tests share: a library of real files indexed by the real indexer into real LanceDB on
multilingual-e5-small (as the app picks for a library that is not all English), and a question asked through
the runtime's pipeline."""

from __future__ import annotations

from pathlib import Path

from app.paths import Paths
from app.runtime import Runtime
from kimas_desktop.answer.outcome import Answered, Declined
from kimas_desktop.config import parse_config
from kimas_desktop.events import Done, TableReady
from local_models.catalog.catalog import MULTILINGUAL_EMBEDDER


def indexed(tmp: Path, files: dict[str, bytes | str]) -> Runtime:
    """A runtime over ``tmp``, its collection "home" holding ``files`` (name → bytes, or text as UTF-8)."""
    docs = tmp / "docs"
    docs.mkdir()
    for name, content in files.items():
        path = docs / name
        path.write_bytes(content) if isinstance(content, bytes) else path.write_text(content, "utf-8")
    data = tmp / "data"
    config = parse_config(
        {"collections": {"home": {"folders": [str(docs)]}}, "embedding": {"name": MULTILINGUAL_EMBEDDER}}
    )
    rt = Runtime(Paths(data, data / "config.toml"), config)
    report = rt.indexer().index("home", [docs])
    assert report.indexed == len(files) and not report.problems, report
    return rt


def ask(rt: Runtime, question: str) -> tuple[Answered | Declined, TableReady | None]:
    """The outcome of ``question`` and the table event it sent, if any."""
    events = list(rt.pipeline().ask(question))
    (done,) = [e for e in events if isinstance(e, Done)]
    assert isinstance(done.outcome, Answered | Declined), done.outcome
    tables = [e for e in events if isinstance(e, TableReady)]
    return done.outcome, tables[0] if tables else None
