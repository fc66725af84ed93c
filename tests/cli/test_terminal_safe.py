"""What ``kimas`` prints is shown by the terminal, never obeyed (issue 40).

A document's text, a file's name and a folder's name can carry escape sequences: set the window title
(``ESC ]0;…BEL``), write the clipboard (OSC 52), hide text (``ESC [8m``), overwrite a line (CR). The real
``kimas`` processes print them visibly (``\\x1b``) and ``--json`` keeps them exact and escaped."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
import unicodedata
from dataclasses import replace
from pathlib import Path

import pytest

from app import runtime
from cli.main import main
from cli.terminal import json_text, shown
from local_models.fake import HashEmbedder

ROOT = Path(__file__).resolve().parents[2]
TITLE = "\x1b]0;pwned\x07"
CLIPBOARD = "\x1b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\x07"
HIDDEN = "\x1b[8mhidden\x1b[0m"
C1 = "\x9b31m"  # CSI as one C1 character
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # anything a terminal would act on (but \n and \t)


def kimas(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cli.main", *args, "--data-dir", str(data_dir)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=600,
        check=False,
    )


def test_shown_writes_every_control_character_visibly_but_newline_and_tab() -> None:
    assert shown(f"a{TITLE}b") == "a\\x1b]0;pwned\\x07b"
    assert shown("one\ttwo\nthree\rfour\x08\x7f" + C1) == "one\ttwo\nthree\\x0dfour\\x08\\x7f\\x9b31m"
    assert shown("naïve 東京 नमस्ते") == "naïve 東京 नमस्ते"
    assert json.loads(json_text({"t": TITLE + C1})) == {"t": TITLE + C1}
    assert not RAW.search(json_text({"t": TITLE + C1 + "\x7f"}))


def test_every_command_prints_through_the_safe_printer() -> None:
    """No bare ``print`` or ``sys.stdout.write`` in the commands (serve_cmd aside: it prints only its own
    sentences and the address): a new line of output cannot bypass ``cli.terminal``."""
    found = []
    for path in sorted((ROOT / "cli").glob("*_cmd.py")):
        if path.name == "serve_cmd.py":
            continue
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Call):
                name = ast.unparse(node.func)
                if name == "print" or name.endswith((".write", "stdout.write", "stderr.write")):
                    found.append(f"{path.name}:{node.lineno}: {name}")
    assert found == []


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    """A folder whose name sets the window title, with a file whose name writes the clipboard and whose
    text hides words."""
    folder = tmp_path / f"notes{TITLE}"
    folder.mkdir()
    (folder / f"plan{CLIPBOARD}.md").write_text(
        f"# Plan\n\nThe launch code of Project Heliotrope is 4471{HIDDEN}{TITLE}.\n", "utf-8"
    )
    (folder / "blob.bin").write_bytes(b"\x00\x01")  # a problem line that prints the folder's name
    return folder


def test_kimas_collections_shows_escapes_from_folder_and_file_names(
    tmp_path: Path, hostile: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real = runtime.real_builders
    monkeypatch.setattr(
        runtime, "real_builders", lambda: replace(real(), embedder=lambda cfg, cache: HashEmbedder(dim=32))
    )
    data = tmp_path / "data"
    assert main(["index", str(hostile), "--collection", "notes", "--data-dir", str(data)]) == 0
    out = capsys.readouterr().out
    assert not RAW.search(out) and "notes\\x1b]0;pwned\\x07" in out
    listing = kimas(data, "collections")  # a real process, as a user runs it
    assert listing.returncode == 0, listing.stderr
    assert not RAW.search(listing.stdout + listing.stderr)
    assert f"folder: {tmp_path}/notes\\x1b]0;pwned\\x07" in listing.stdout
    as_json = kimas(data, "collections", "--json")
    assert not RAW.search(as_json.stdout)
    [info] = json.loads(as_json.stdout)
    assert info["folders"] == [str(hostile)]  # exact once decoded


@pytest.mark.slow
def test_kimas_ask_shows_escapes_from_a_document_and_its_name(tmp_path: Path, hostile: Path) -> None:
    data = tmp_path / "data"
    indexed = kimas(data, "index", str(hostile), "--collection", "notes")
    assert indexed.returncode == 0, indexed.stderr
    answer = kimas(data, "ask", "What is the launch code of Project Heliotrope?")
    assert answer.returncode == 0, answer.stderr
    assert not RAW.search(answer.stdout + answer.stderr)
    assert "4471\\x1b[8mhidden\\x1b[0m\\x1b]0;pwned\\x07" in answer.stdout  # the quote, shown
    assert "plan\\x1b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\\x07.md" in answer.stdout  # its source
    as_json = kimas(data, "ask", "What is the launch code of Project Heliotrope?", "--json")
    assert as_json.returncode == 0 and not RAW.search(as_json.stdout)
    out = json.loads(as_json.stdout)
    assert any(TITLE in part["text"] for part in out["quote"]["parts"])
    assert any(c["source"].endswith(f"plan{CLIPBOARD}.md") for c in out["citations"])


def test_kimas_collections_shows_bidi_invisible_and_nfd_names_visibly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 70: a folder named with U+202E and two files whose names differ only by NFC and NFD. The
    listing shows the control as ``\\u202e`` (it reversed what followed) and the two names apart; ``--json``
    writes them as JSON escapes, exact once decoded."""
    folder = tmp_path / "bills\u202egpj.exe"
    folder.mkdir()
    nfc, nfd = (unicodedata.normalize(form, "café.bin") for form in ("NFC", "NFD"))
    for name in (nfc, nfd):
        (folder / name).write_bytes(b"\x00\x01")  # each a problem line with its name
    (folder / "note.md").write_text("# Note\n\nThe café opens at seven.\n", "utf-8")
    real = runtime.real_builders
    monkeypatch.setattr(
        runtime, "real_builders", lambda: replace(real(), embedder=lambda cfg, cache: HashEmbedder(dim=32))
    )
    data = tmp_path / "data"
    assert main(["index", str(folder), "--collection", "bills", "--data-dir", str(data)]) == 0
    assert "bills\\u202egpj.exe" in capsys.readouterr().out
    listing = kimas(data, "collections")
    assert listing.returncode == 0, listing.stderr
    assert not re.search("[\u202e\u0301]", listing.stdout), listing.stdout
    assert f"folder: {tmp_path}/bills\\u202egpj.exe" in listing.stdout
    assert "bills\\u202egpj.exe/café.bin" in listing.stdout
    assert "bills\\u202egpj.exe/cafe\\u0301.bin" in listing.stdout
    as_json = kimas(data, "collections", "--json")
    assert not re.search("[\u202e\u0301]", as_json.stdout)
    [info] = json.loads(as_json.stdout)
    assert info["folders"] == [str(folder)]
    assert {Path(p["path"]).name for p in info["problems"]} == {nfc, nfd}  # exact once decoded


def test_json_text_escapes_what_a_name_hides_and_stays_json() -> None:
    name = "tag\U000e0041\u202e" + unicodedata.normalize("NFD", "é")
    text = json_text({"file": name, "lines": ["a", "b"]}, indent=2)
    assert text.isascii() and json.loads(text) == {"file": name, "lines": ["a", "b"]}
