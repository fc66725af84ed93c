"""The conversation sets that the follow-up benchmarks share (`bench.topic_shift`, `bench.followup_replay`):
the SQuAD-Shifts domain asked after a conversation, QuAC's whole conversations, and the tune/held-out
halves (even positions tune, odd ones held out; QuAC by whole conversation)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench.devkit import NO_ANSWER, history_messages, quac_turns

ROOT = Path(__file__).resolve().parents[1]

DOMAIN = "squadshifts_new_wiki"
K = 5


def halves(values: list[Any]) -> dict[str, list[Any]]:
    return {"tune": values[0::2], "holdout": values[1::2]}


def conversation_halves(turns: list[Any]) -> dict[str, list[Any]]:
    """QuAC turns split by whole conversation (even-numbered conversations tune, odd ones held out). Every
    conversation has three turns, so halving the follow-ups by position would put every second turn (one
    earlier exchange) in one half and every third turn (two) in the other."""
    order = list(dict.fromkeys(t.qid.rsplit("_", 1)[0] for t in turns))
    side = {c: i % 2 for i, c in enumerate(order)}
    return {
        part: [t for t in turns if side[t.qid.rsplit("_", 1)[0]] == k]
        for k, part in enumerate(("tune", "holdout"))
    }


def quac_docs(cache: Path) -> Path:
    return cache / "docs" / "quac"


def conversations(n: int, quac_docs: Path, with_sources: bool) -> list[list[dict[str, Any]]]:
    """Whole QuAC conversations: 2 or 3 exchanges each."""
    out: list[list[dict[str, Any]]] = []
    for t in quac_turns(n):
        full = [*t.history, ("user", t.question), ("assistant", t.answers[0] if t.answers else NO_ANSWER)]
        if len(full) >= 6:
            out.append(
                history_messages(full[: 4 + 2 * (len(out) % 2)], quac_docs / t.gold_file, with_sources)
            )
    return out
