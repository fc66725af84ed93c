"""Names shown honestly (issue 70): ``visible_name`` escapes what a reader cannot see (bidi controls,
zero-width and other invisible characters) and tells apart spellings NFC makes equal, and leaves the
names of every script as they are written."""

from __future__ import annotations

import unicodedata

import pytest

from kimas_desktop.text.visible import visible_name

NFC = unicodedata.normalize("NFC", "café.md")
NFD = unicodedata.normalize("NFD", "café.md")


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("invoice\u202efdp.md", "invoice\\u202efdp.md"),  # reads "invoicedm.pdf" when obeyed
        ("report\u200b.pdf", "report\\u200b.pdf"),
        ("a\u2066b\u2069\ufeff.txt", "a\\u2066b\\u2069\\ufeff.txt"),
        ("plan\x1b]0;x\x07.md", "plan\\x1b]0;x\\x07.md"),
        ("two\u00a0spaces.md", "two\\xa0spaces.md"),  # looks like a space
        ("tag\U000e0041.md", "tag\\U000e0041.md"),  # ASCII smuggled in tag characters
        ("a\u3164b.md", "a\\u3164b.md"),  # Hangul filler: a letter that draws nothing
        ("note\ufe0f.md", "note\\ufe0f.md"),  # an emoji selector after a letter selects nothing
        ("\u212b.txt", "\\u212b.txt"),  # ANGSTROM SIGN: NFC makes it Å
    ],
)
def test_what_a_reader_cannot_see_is_escaped(name: str, shown: str) -> None:
    assert visible_name(name) == shown


def test_names_that_differ_only_by_normalization_are_told_apart() -> None:
    assert NFC != NFD and visible_name(NFC) == "café.md"
    assert visible_name(NFD) == "cafe\\u0301.md"
    hindi_nfd = "\u0928\u093c.txt"  # NFC composes it into U+0929
    assert visible_name("\u0929.txt") == "\u0929.txt" and visible_name(hindi_nfd) == "न\\u093c.txt"
    kana = unicodedata.normalize("NFD", "がぎ.txt")  # as macOS may store a Japanese name
    assert visible_name(kana) == "か\\u3099き\\u3099.txt"


@pytest.mark.parametrize(
    "name",
    [
        "年度报告.pdf",
        "रिपोर्ट २०२४.pdf",  # vowel signs and virama are marks, NFC already
        "تقرير.docx",
        "ファイル　名.txt",  # the ideographic space shows as what it is
        "Łódź — zażółć.md",
        "❤️ notes.md",  # an emoji's selector stays
        "/home/me/Docs/plan (v2).md",
    ],
)
def test_the_names_of_every_script_stay_as_written(name: str) -> None:
    assert visible_name(name) == name


def test_escape_is_the_callers() -> None:
    def upper(ch: str) -> str:
        return f"<U+{ord(ch):04X}>"

    assert visible_name("invoice\u202efdp.md", upper) == "invoice<U+202E>fdp.md"
