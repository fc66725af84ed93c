"""bench.loops: the loop detector of the issue 69 benchmark (written apart from the product's stream guard)
finds the loops a person saw, in Chinese and Hindi too, and leaves sound answers alone; the tallies count a
sound answer set aside, what the model adds over the quote and what it costs."""

from __future__ import annotations

from typing import Any

import pytest

from bench.loops import Shown, loop_kind, percentile, tally


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("最大的数据集，" * 46, "span"),
        ("KAG-Builder:[3] KAG-Solver:[1] KAG-Model:[3] " * 17, "span"),
        ("यह सबसे बड़ा डेटा सेट है।\nयह सबसे बड़ा डेटा सेट है।", "line"),
        ("The answer is in the sources. [1] [2] [3]", "markers"),
        ("[1] [2]", "markers"),
    ],
)
def test_the_loops_a_person_saw_are_found(text: str, kind: str) -> None:
    assert loop_kind(text) == kind


@pytest.mark.parametrize(
    "text",
    [
        "KAG 框架由 KAG-Builder、KAG-Solver 和 KAG-Model 三部分组成 [1]。",
        "यह ढांचा तीन भागों से बना है: बिल्डर, सॉल्वर और मॉडल [2]।",
        "The Paz Miño family, of five centuries ago [1]. Both Pazmiño and Paz y Miño descend from it [2].",
        "哈哈哈",  # short: no span of ten characters
    ],
)
def test_a_sound_answer_has_no_loop(text: str) -> None:
    assert loop_kind(text) == ""


def test_the_documents_own_repeats_are_no_loop() -> None:
    table = (
        "设备文件: /dev/zero; 操作: 读取; 设备文件: /dev/null; 操作: 读取; 设备文件: /dev/random; 操作: 读取"
    )
    assert loop_kind(f"你的文档中写道： “{table}” [1]", sources=table) == ""
    assert loop_kind(f"你的文档中写道： “{table}” [1]") == "span"
    # The model writing the passage's line once more than the passage holds it is a loop again.
    line = "Red Bull had announced that it was dropping the Renault engine."
    assert loop_kind(f"{line}\n{line}", sources=line) == "line"


def _result(
    answer: str, *, quote: str = "", aside: bool = False, unsupported: bool = False
) -> dict[str, Any]:
    stages = [
        {"stage": "quote", "at_ms": 900.0},
        {"stage": "answer", "stopped": ""},
        {"stage": "support", "set_aside": aside},
        {"stage": "citations", "note": "the model's answer was set aside (markers only)" if aside else ""},
    ]
    return {
        "answer": "Your documents say: “…” [1]" if aside else answer,
        "quote": {"text": quote},
        "outcome": "answered",
        "support": [{"text": answer, "supported": not unsupported}],
        "timings_ms": {"total": 4000.0},
        "trace": {"stages": stages},
    }


def test_the_tallies_count_what_the_model_adds_and_costs() -> None:
    gold = ("Paz Miño",)
    rows = [
        Shown.of("adds", gold, _result("The Paz Miño family.", quote="They descend from a family.")),
        Shown.of("costs", gold, _result("A Spanish king.", quote="The Paz Miño family.", unsupported=True)),
        Shown.of("sound aside", gold, _result("The Paz Miño family.", quote="A family.", aside=True)),
        Shown.of("loop", gold, _result("最大的数据集，" * 6, quote="The Paz Miño family.")),
    ]
    t = tally(rows)
    assert t["adds: gold in answer, not in quote"] == 1
    assert t["costs: no gold, unsupported sentences shown"] == 1
    assert t["sound answers set aside"] == 1
    assert t["sound answers set aside, quote without gold"] == 1
    assert t["set aside by shape"] == 1
    assert t["loops shown"] == 1
    assert t["finished answer s p95"] == 4.0 and t["quote s p50"] == 0.9


def test_percentile_is_the_nearest_rank() -> None:
    values = [float(v) for v in range(1, 21)]
    assert percentile(values, 50) == 10.0
    assert percentile(values, 95) == 19.0
    assert percentile([], 95) is None
