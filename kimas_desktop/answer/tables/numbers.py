"""How a computed number is written in a table answer, in any language: whole numbers without a decimal
point, others to at most four decimals, never in scientific notation."""

from __future__ import annotations

__all__ = ["number_text"]


def number_text(v: float) -> str:
    """A computed number as the answer writes it: whole numbers without a decimal point, others to at
    most four decimals."""
    if v == int(v) and abs(v) < 1e15:
        return str(int(v))
    return f"{v:.4f}".rstrip("0").rstrip(".")
