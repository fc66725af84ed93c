"""Stored records keep non-finite floats as floats (JSON itself has no inf or nan)."""

from __future__ import annotations

import math

from app.chat import record_codec


def test_non_finite_floats_round_trip_as_floats() -> None:
    back = record_codec.loads(record_codec.dumps((float("-inf"), float("inf"), float("nan"), 1.5, "-inf")))
    assert back[0] == float("-inf") and back[1] == float("inf") and math.isnan(back[2])
    assert back[3] == 1.5 and back[4] == "-inf"  # a string that reads like one stays a string
