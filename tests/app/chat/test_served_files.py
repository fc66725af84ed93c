"""Source links (issue 21): unguessable tokens, issued only for files this run has shown."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

from app.chat.served_files import SourceRegistry, source_token
from tests.rigs import make_rig, write_docs
from ui.chat import handlers as chat_handlers

ROOT = Path(__file__).resolve().parents[3]


def _token_in_new_process(path: str) -> str:
    code = "import sys; from app.chat.served_files import source_token; print(source_token(sys.argv[1]))"
    out = subprocess.run([sys.executable, "-c", code, path], cwd=ROOT, capture_output=True, text=True)
    return out.stdout.strip()


def test_a_token_cannot_be_computed_from_the_path() -> None:
    path = "/etc/shadow"
    old = hashlib.sha256(path.encode()).hexdigest()[:24]  # the token before issue 21
    assert source_token(path) != old and not source_token(path).startswith(old)
    assert source_token(path) == source_token(path)  # stable within this run
    assert _token_in_new_process(path) != _token_in_new_process(path)  # a new key in every process


def test_only_a_shown_file_inside_a_collection_opens(tmp_path: Path) -> None:
    folder = tmp_path / "handbook"
    folder.mkdir()
    shown, unshown, outside = folder / "a.md", folder / "b.md", tmp_path / "secret.txt"
    for f in (shown, unshown, outside):
        f.write_text("x")
    registry = SourceRegistry(lambda: [folder])
    registry.remember([str(shown), str(outside)])
    assert registry.file(source_token(str(shown))) == shown.resolve()
    assert registry.file(source_token(str(unshown))) is None  # in the collection, never shown
    assert registry.file(source_token(str(outside))) is None  # shown once, but not in a collection


def test_a_chat_drawn_again_after_a_restart_opens_its_citations(tmp_path: Path) -> None:
    rig = make_rig(tmp_path)
    s = rig.session
    s.start()
    assert s.add_uploads("docs", [(write_docs(tmp_path / "t") / "heliotrope.pdf", "x.pdf")]).ok
    rig.wait_idle()
    conv = s.history.new()
    turn = list(s.chat.ask(conv, "What is the launch code of Project Heliotrope?"))[-1]
    source = turn.citations[0].chunk.source
    s.sources = SourceRegistry(s.sources._folders)  # what a restarted app starts with: nothing shown
    assert s.sources.file(source_token(source)) is None
    chat_handlers.open_chat(s, None, conv.id, page="tab")
    assert s.sources.file(source_token(source)) == Path(source).resolve()
    s.close()
