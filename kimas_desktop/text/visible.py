"""Names shown honestly (issue 70): a file, folder or collection name written so that a person sees what
it holds. A name comes from the user's disk or from whoever made the file, and two kinds of character let
it lie:

- characters that draw nothing or move others: bidirectional controls (U+202E RIGHT-TO-LEFT OVERRIDE
  makes ``invoice<U+202E>fdp.md`` read "invoicedm.pdf"), zero-width and other invisible characters
  (U+200B, U+2060, U+FEFF, the tags U+E0000…), control characters, line separators and spaces other than
  U+0020 (U+00A0 looks like one) — the ideographic space U+3000 is left, it shows as what it is;
- spellings that Unicode normalization makes equal: "café" with é as one character (NFC) and as "e" and a
  combining accent (NFD, as macOS may write names) are two files that look alike.

``visible_name`` writes each such character as an escape (``\\u202e``, ``\\x1b``, ``\\U000e0041``; the
CLI's ``\\xNN`` for controls) and, where NFC would change a letter and its marks, the marks (or the letter
NFC replaces) as escapes: NFD "café" shows as ``cafe\\u0301``, NFC "café" as itself. Everything else stays
as written: Chinese, Hindi, Arabic or accented names read as they are. The zero-width joiners (U+200C,
U+200D) some scripts use inside words are shown too: in a name they could hide a difference. A variation
selector right after a symbol (an emoji's U+FE0F) stays.

Shown this way wherever a name leaves the app: the CLI (``cli/``), the MCP and API results
(``app/tools/results.py``) and the UI (``ui/``). ``escape`` lets the CLI's JSON write the same characters
as JSON's own escapes, which a JSON reader turns back into the exact name (``cli.terminal.json_text``).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterator

__all__ = ["escaped", "visible_name"]

# Invisible characters outside the categories ``str.isprintable`` refuses (Cc, Cf, Cs, Co, Cn, Zl, Zp, Zs
# but U+0020): combining grapheme joiner, Hangul fillers, Khmer inherent vowels, Mongolian and other
# variation selectors, tags (Unicode's Default_Ignorable_Code_Point).
_INVISIBLE = re.compile(
    "[\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u3164\ufe00-\ufe0f\uffa0\U000e0000-\U000e0fff]"
)
_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
_EMOJI_STYLE = "\ufe0e\ufe0f"


def escaped(ch: str) -> str:
    """``ch`` as an escape: ``\\xNN`` below U+0100, ``\\uNNNN`` in the BMP, ``\\UNNNNNNNN`` beyond."""
    code = ord(ch)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def visible_name(name: str, escape: Callable[[str], str] = escaped) -> str:
    """``name`` with every character a reader could not see, and every spelling NFC would change, written
    as ``escape`` writes it (see the module docstring); a plain name is returned as it is."""
    if name.isprintable() and not _INVISIBLE.search(name) and unicodedata.is_normalized("NFC", name):
        return name
    return "".join(_shown(cluster, escape) for cluster in _clusters(name))


def _follows(ch: str) -> bool:
    """A character that belongs to the one before it: a combining mark, a Hangul vowel or final jamo."""
    return unicodedata.category(ch)[0] == "M" or "\u1160" <= ch <= "\u11ff" or "\ud7b0" <= ch <= "\ud7ff"


def _clusters(name: str) -> Iterator[str]:
    """``name`` cut into base characters, each with the marks (or jamo) that follow it."""
    start = 0
    for i in range(1, len(name) + 1):
        if i == len(name) or not _follows(name[i]):
            yield name[start:i]
            start = i


def _hidden(ch: str, base: str) -> bool:
    if ch in _EMOJI_STYLE and base and unicodedata.category(base) == "So":
        return False
    category = unicodedata.category(ch)
    return (
        category in _HIDDEN_CATEGORIES
        or (category == "Zs" and ch not in " \u3000")
        or _INVISIBLE.match(ch) is not None
    )


def _shown(cluster: str, escape: Callable[[str], str]) -> str:
    """A base character and its marks: each hidden one escaped; when NFC would change the cluster, its
    marks escaped, and the base too when NFC replaces it (U+212B ANGSTROM SIGN, U+0929)."""
    renormalized = unicodedata.normalize("NFC", cluster) != cluster
    out = []
    for i, ch in enumerate(cluster):
        base = cluster[0] if i else ""
        changed = renormalized and (i > 0 or not unicodedata.is_normalized("NFC", ch))
        out.append(escape(ch) if changed or _hidden(ch, base) else ch)
    return "".join(out)
