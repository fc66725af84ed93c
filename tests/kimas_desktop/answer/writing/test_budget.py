"""The answer's latency budget (``answer/writing/budget.py``): the prompt speed it plans with, and the allowance."""

from kimas_desktop.answer.writing.budget import OVERHEAD_S, PromptSpeed, plan


def test_no_speed_no_limit_and_no_target_no_limit() -> None:
    speed = PromptSpeed()
    assert plan(2.5, 0.3, speed).tokens is None
    assert plan(2.5, 0.3, speed).speed_from == "unknown"
    speed.loaded(200.0)
    assert plan(0.0, 0.3, speed).tokens is None  # 0: no time limit


def test_the_allowance_is_the_time_left_at_the_measured_speed() -> None:
    speed = PromptSpeed()
    speed.loaded(200.0)
    budget = plan(2.5, 0.5, speed)
    assert budget.speed_from == "measured at load" and budget.tokens_per_s == 200.0
    assert budget.tokens == int((2.5 - 0.5 - OVERHEAD_S) * 200)
    assert plan(2.5, 3.0, speed).tokens == 0  # already late: nothing but what must stay


def test_answers_move_the_estimate_but_a_cached_prompt_does_not() -> None:
    speed = PromptSpeed()
    speed.loaded(200.0)
    speed.observe(300, 3.0)  # a busy machine: 100 tokens/s
    slower, source = speed.current()
    assert source == "recent answers" and slower is not None and 100 < slower < 200
    speed.observe(900, 1.0)  # 900 tokens/s: the cache held most of the prompt
    assert speed.current()[0] == slower
    for _ in range(10):
        speed.observe(200, 1.0)
    recovered = speed.current()[0]
    assert recovered is not None and abs(recovered - 200) < 1
    speed.observe(10, 100.0)  # a stall counts, but only down to a twentieth of the measured speed
    stalled = speed.current()[0]
    assert stalled is not None and stalled >= (200 + 10) / 2 - 1


def test_a_model_that_did_not_measure_itself_is_planned_from_its_answers() -> None:
    speed = PromptSpeed()  # e.g. an OpenAI-compatible server
    speed.loaded(None)
    speed.observe(500, 2.0)
    assert speed.current() == (250.0, "recent answers")
