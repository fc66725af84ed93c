"""Uploaded files' names and copies: nothing is written outside the collection's folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.knowledge.uploads import check_collection_name, copy_uploads, safe_file_name
from kimas_desktop.errors import ConfigError


@pytest.mark.parametrize(
    ("sent", "expected"),
    [
        ("report.pdf", "report.pdf"),
        ("../../x", "x"),
        ("../../../etc/passwd", "passwd"),
        ("/etc/passwd", "passwd"),
        ("C:\\Users\\me\\notes.md", "notes.md"),
        ("..", "file"),
        ("", "file"),
        ("  .hidden.md  ", "hidden.md"),
        ("CON", "_CON"),
        ("con.txt", "_con.txt"),
        ("LPT1.tar.gz", "_LPT1.tar.gz"),
        ("a<b>c:d|e?f*.md", "a_b_c_d_e_f_.md"),
        ("tab\there\x00.md", "tabhere.md"),
        ("invoice\u202egnp.exe", "invoicegnp.exe"),  # right-to-left override would disguise .exe
        ("zero\u200bwidth.md", "zerowidth.md"),
        ("Cafe\u0301 ☕ résumé.md", "Café ☕ résumé.md"),  # NFC, emoji kept
        ("wide\u3000space.md", "wide space.md"),
    ],
)
def test_safe_file_name(sent: str, expected: str) -> None:
    assert safe_file_name(sent) == expected


def test_safe_file_name_cuts_long_names_and_keeps_the_extension() -> None:
    name = safe_file_name("é" * 300 + ".pdf")
    assert name.endswith(".pdf") and len(name.encode("utf-8")) <= 180
    assert name[:-4] == "é" * len(name[:-4])  # cut on a character boundary


@pytest.mark.parametrize("bad", ["", "../x", "a b", "a/b", ".hidden", "x" * 65, "naïve"])
def test_collection_names_are_checked(bad: str) -> None:
    with pytest.raises(ConfigError, match="cannot name a collection"):
        check_collection_name(bad)


def test_copy_uploads_never_writes_outside_and_keeps_both_on_collision(tmp_path: Path) -> None:
    src = tmp_path / "incoming"
    src.mkdir()
    a, b = src / "one", src / "two"
    a.write_text("first")
    b.write_text("second")
    target = tmp_path / "data" / "uploads" / "docs"
    copied = copy_uploads(
        target, [(a, "../../x"), (b, "/abs/x"), (a, "..\\..\\x"), (b, "C:\\x"), (a, "NUL.md")]
    )
    assert [c.path.name for c in copied] == ["x", "x (2)", "x", "x (2)", "_NUL.md"]
    assert [c.status for c in copied] == ["added", "renamed", "unchanged", "unchanged", "added"]
    everything = {p for p in tmp_path.rglob("*") if p.is_file()}
    assert everything == {a, b, target / "x", target / "x (2)", target / "_NUL.md"}
    assert (target / "x").read_text() == "first" and (target / "x (2)").read_text() == "second"
