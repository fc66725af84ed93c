"""A question over the ``[limits]`` is refused in the chat in the question's language (issue 70): a Chinese,
Japanese or Hindi question gets ``app_over_limit``'s sentence with its size, the limit and the setting (it
was the English sentence); an English one keeps the app's own. The turn keeps the sentence's code and
values, so a chat read back from ``conversations.sqlite3`` says it the same way."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.chat.conversation import Conversation
from app.chat.store import FILE_NAME, ConversationStore
from tests.rigs import indexed_rig
from ui.chat import render

CHINESE = "备份保留多少天？" * 600
JAPANESE = "バックアップは何日間保存されますか？" * 300
HINDI = "बैकअप कितने दिन रखे जाते हैं? " * 200  # 5,999 characters once stripped
ENGLISH = "How long are the backups kept? " * 200  # 6,199


def shown(conv: Conversation) -> str:
    """The chat's last message as a reader sees it (Markdown's backslashes gone)."""
    return render.chat_messages(conv)[-1]["content"].replace("\\", "")


@pytest.mark.parametrize(
    ("question", "said"),
    [
        (CHINESE, "⚠ **无法回答：** 问题超出了上限：4,800，而 config.toml 中 [limits] 的 question_chars"),
        (JAPANESE, "質問が上限を超えています：5,400（config.toml の [limits] の question_chars が許す"),
        (HINDI, "प्रश्न सीमा से अधिक है: 5,999, जबकि config.toml में [limits] की question_chars अधिकतम 4,000"),
        (ENGLISH, "The question has 6,199 characters; the limit is 4,000 ([limits] question_chars"),
    ],
)
def test_a_refused_question_is_told_why_in_its_language(tmp_path: Path, question: str, said: str) -> None:
    rig = indexed_rig(tmp_path)
    conv = rig.session.chat.new_conversation()
    [turn] = list(rig.session.chat.ask(conv, question))
    assert turn.state == "failed" and turn.error_code == "over_limit"
    assert said in shown(conv), shown(conv)
    stored = ConversationStore(rig.data_dir / FILE_NAME).load(conv.id)
    assert stored is not None and shown(stored) == shown(conv)
