"""What the table benchmarks share (`bench.tables`, `bench.tables_asked`): whether an answer states the
expected value. A library, not a benchmark."""

from __future__ import annotations

import re
from typing import Any

NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def holds(answer: str, expected: Any) -> bool:
    """Whether ``answer`` states ``expected``: a number within rounding (to four decimals), else the text."""
    if isinstance(expected, bool) or not isinstance(expected, int | float):
        return str(expected).replace("_", " ").lower() in answer.replace("_", " ").lower()
    want = float(expected)
    return any(
        abs(float(m) - want) <= max(5e-5, 1e-6 * abs(want)) for m in NUMBER.findall(answer.replace(",", ""))
    )
