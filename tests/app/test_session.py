"""Stop reaches the model: a long model step in progress ends at once, not at the pipeline's next event."""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from kimas_desktop.control import CancelToken
from kimas_desktop.errors import Cancelled
from kimas_desktop.types import Message
from local_models.fake import ScriptedChatModel
from tests.rigs import make_rig, scripted, write_docs


class BlockingJudge(ScriptedChatModel):
    """The agentic judgement (a JSON step before the answer) blocks until its call is cancelled."""

    def __init__(self) -> None:
        super().__init__(scripted("The launch code is 7-4-1."))
        self.entered = threading.Event()
        self.cancelled_after: float | None = None

    def complete(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int = 256,
        temperature: float = 0.0,
        json_schema: Mapping[str, Any] | None = None,
        cancel: CancelToken | None = None,
    ) -> str:
        if json_schema is None or "is_sufficient" not in json_schema.get("required", ()):
            return super().complete(messages, json_schema=json_schema, cancel=cancel)
        assert cancel is not None, "the pipeline did not pass the answer's cancel token to the model"
        done = threading.Event()
        cancel.on_cancel(done.set)
        started = time.perf_counter()
        self.entered.set()
        done.wait(30)
        self.cancelled_after = time.perf_counter() - started
        raise Cancelled("stopped")


def test_stop_ends_a_model_step_in_progress_at_once(tmp_path: Path) -> None:
    chat = BlockingJudge()
    # Grounding off: with it, the embedded model's agentic judgement (the step that blocks here) is skipped.
    rig = make_rig(
        tmp_path, chat=chat, config={"agentic": {"enabled": True}, "grounding": {"enabled": False}}
    )
    s = rig.session
    assert s.add_uploads("docs", [(write_docs(tmp_path / "t") / "heliotrope.pdf", "heliotrope.pdf")]).ok
    rig.wait_idle()
    conv = s.chat.new_conversation()
    turns = s.chat.ask(conv, "What is the launch code of Project Heliotrope?")
    next(turns)
    threading.Thread(target=lambda: list(turns), daemon=True).start()
    assert chat.entered.wait(10), "the agentic judgement never ran"
    stopped_at = time.perf_counter()
    s.chat.stop(conv)
    deadline = time.perf_counter() + 5
    while chat.cancelled_after is None and time.perf_counter() < deadline:
        time.sleep(0.01)
    assert chat.cancelled_after is not None, "the model call was not cancelled"
    assert time.perf_counter() - stopped_at < 1.0
    while conv.turns[-1].state == "running" and time.perf_counter() < deadline:
        time.sleep(0.01)
    assert conv.turns[-1].state == "stopped"
