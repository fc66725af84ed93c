"""``[limits]`` (issue 70): a question, a conversation and the texts to embed are measured in characters
(Unicode code points, in any script) and then in tokens, and a refusal names the limit and its setting.
A text too short in bytes to reach a token limit is never counted (a short question never waits for the
chat model); a text over its character limit is never counted either (a 20 MB question is not tokenized)."""

from __future__ import annotations

import pytest

from kimas_desktop.config import LimitsConfig, parse_config
from kimas_desktop.errors import OverLimitError
from kimas_desktop.limits import check_embedding_inputs, check_history, check_question
from kimas_desktop.types import Message
from local_models.fake import HashEmbedder

LIMITS = LimitsConfig(question_chars=100, question_tokens=20, history_messages=4, history_chars=300,
                      history_tokens=40, embedding_inputs=3, embedding_chars=200, embedding_tokens=30)  # fmt: skip
CHINESE = "备份保留多少天"  # 7 characters, 21 bytes
HINDI = "बैकअप कितने दिन रखे जाते हैं"  # combining marks: 28 code points, 76 bytes


class Counted:
    """A chat model's token count that records what it was asked to count."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def __call__(self, text: str) -> int:
        self.seen.append(text)
        return len(text)  # one token a character: Chinese in a byte-level tokenizer is more


def test_a_question_over_its_characters_is_refused_uncounted_in_any_script() -> None:
    count = Counted()
    for text in (CHINESE * 15, HINDI * 4):  # 105 and 112 code points
        with pytest.raises(OverLimitError) as refused:
            check_question(text, LIMITS, count)
        assert refused.value.setting == "question_chars" and refused.value.size == len(text)
        assert str(refused.value) == (
            f"The question has {len(text)} characters; the limit is 100 ([limits] question_chars in "
            "config.toml)."
        )
    assert count.seen == []


def test_tokens_are_counted_only_when_the_bytes_could_reach_the_limit() -> None:
    count = Counted()
    check_question("How long?", LIMITS, count)  # 9 bytes: under 20 tokens whatever the tokenizer
    assert count.seen == []
    with pytest.raises(OverLimitError) as refused:
        check_question(HINDI, LIMITS, count)  # 28 characters, 76 bytes: counted, 28 tokens
    assert count.seen == [HINDI] and refused.value.setting == "question_tokens"
    assert "has 28 tokens; the limit is 20 ([limits] question_tokens" in str(refused.value)
    check_question(CHINESE, LIMITS, count)  # 21 bytes: counted, 7 tokens
    assert count.seen[-1] == CHINESE


def test_a_conversation_is_limited_in_messages_characters_and_tokens() -> None:
    count = Counted()
    said = [Message("user", "Hi?"), Message("assistant", "Hello.")]
    check_history(said * 2, LIMITS, count)
    cases = {
        "history_messages": said * 3,
        "history_chars": [Message("user", CHINESE * 50)],
        "history_tokens": [Message("user", HINDI), Message("assistant", HINDI)],
    }
    for setting, history in cases.items():
        with pytest.raises(OverLimitError) as refused:
            check_history(history, LIMITS, count)
        assert refused.value.setting == setting
        assert str(refused.value).startswith("The conversation before the question has ")


def test_texts_to_embed_are_limited_and_their_tokens_returned() -> None:
    embedder = HashEmbedder()
    assert check_embedding_inputs(["rye flour", "Dutch oven at 250"], LIMITS, embedder.count_tokens) == 6
    cases = {
        "embedding_inputs": ["a", "b", "c", "d"],
        "embedding_chars": [CHINESE * 30],
        "embedding_tokens": [" ".join(["word"] * 31)],
    }
    for setting, texts in cases.items():
        with pytest.raises(OverLimitError) as refused:
            check_embedding_inputs(texts, LIMITS, embedder.count_tokens)
        assert refused.value.setting == setting and refused.value.limit == getattr(LIMITS, setting)


def test_the_limits_are_a_config_section() -> None:
    config = parse_config({"limits": {"question_chars": 8000}})
    assert config.limits.question_chars == 8000 and config.limits.embedding_inputs == 2048
