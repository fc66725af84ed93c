"""A busy machine (issue 46): the time budget follows the machine's measured speed as it drops, and the
status line's pace (``PaceMeter``) reads a scripted clock. Logic about our code: scripted speeds and times."""

from kimas_desktop.answer.writing.budget import OVERHEAD_S, PaceMeter, PromptSpeed, first_word_s, plan


def test_the_budget_shrinks_as_the_measured_speed_drops_and_grows_back() -> None:
    """Load 7-12 on two cores read prompts about six times slower than at load time: within a few answers
    the budget plans for that speed (before: the estimate stopped at a fifth of the load-time speed)."""
    speed = PromptSpeed()
    speed.loaded(250.0)
    quiet = plan(2.5, 0.5, speed).tokens
    assert quiet == int((2.5 - 0.5 - OVERHEAD_S) * 250)
    budgets = []
    for _ in range(6):  # each answer's 400-token prompt took 10 s to its first word: 40 tokens/s
        speed.observe(400, 10.0)
        budgets.append(plan(2.5, 0.5, speed).tokens)
    assert budgets == sorted(budgets, reverse=True) and budgets[0] is not None and budgets[0] < quiet
    assert budgets[-1] is not None and budgets[-1] <= int((2.5 - 0.5 - OVERHEAD_S) * 45)
    slow = speed.current()[0]
    assert slow is not None and 40 <= slow < 45
    # At that speed a 400-token prompt planned at 0.5 s is expected at ~10.6 s, not at the 2.5 s aim.
    expected = first_word_s(0.5, 400, slow)
    assert expected is not None and expected > 9
    for _ in range(8):  # the other work ended
        speed.observe(400, 1.6)
    back = plan(2.5, 0.5, speed).tokens
    assert back is not None and back > 0.9 * (quiet or 0)


def test_the_pace_reads_then_writes_at_the_measured_words_per_second() -> None:
    speed = PromptSpeed()
    speed.loaded(200.0)
    clock = iter([10.0, 10.2, 10.9, 11.0, 12.0, 12.5]).__next__
    meter = PaceMeter(speed, now=clock, every_s=1.0)
    reading = meter.reading(1240)
    assert (reading.step, reading.prompt_tokens, reading.tokens_per_s) == ("reading", 1240, 200.0)
    assert meter.wrote("The oil") is None  # the first word (10.0): the writing starts
    assert meter.wrote(" is changed") is None  # 10.2: less than a second since
    assert meter.wrote(" every") is None  # 10.9
    pace = meter.wrote(" year.")  # 11.0: a second of writing, six words
    assert pace is not None and pace.step == "writing" and pace.words == 6 and pace.words_per_s == 6.0
    assert meter.wrote(" 油每年更换一次。") is not None  # 12.0: the text layer's words, every script


def test_the_pace_counts_chinese_and_hindi_words_as_they_read() -> None:
    for text, least in (
        ("油每年更换一次。检索增强生成设计模式。", 5),
        ("चीन की जनसंख्या अरबों अंक पर पहुंच गई।", 7),
    ):
        clock = iter([0.0, 2.0]).__next__
        meter = PaceMeter(PromptSpeed(), now=clock)
        meter.wrote(text[:2])
        pace = meter.wrote(text[2:])
        assert pace is not None and pace.words >= least and pace.words_per_s == pace.words / 2


def test_the_pipeline_says_what_the_model_reads_before_its_first_word() -> None:
    """Through ``Pipeline.ask``: the status before the answer carries the prompt and its planned speed."""
    import json

    from kimas_desktop.events import AnswerDelta, Status
    from local_models.fake import ScriptedChatModel
    from tests.kimas_desktop.pipeline_rig import by_schema, make

    chat = ScriptedChatModel(
        by_schema(
            {"is_sufficient": json.dumps({"is_sufficient": True, "missing_info": "", "queries": []})},
            "Change the engine oil every 10000 km [1].",
        )
    )
    pipe, _ = make(chat, grounding={"llm_check": "off"})
    events = list(pipe.ask("How often must the engine oil be changed?"))
    first = next(i for i, e in enumerate(events) if isinstance(e, AnswerDelta))
    paced = [e for e in events[:first] if isinstance(e, Status) and e.pace is not None]
    assert paced and paced[-1].pace is not None and paced[-1].pace.step == "reading"
    assert paced[-1].pace.prompt_tokens > 0
