"""A question asked through ``kimas mcp`` on stdio is kept as a chat of its data dir (issue 44), so the app's
Chat tab lists it (``MCP · …``) and opens its answer with the trace. Real ``kimas mcp`` process, real index."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from mcp.client.session import ClientSession

from app.chat.history import ChatHistory
from tests.app.tools.test_mcp_stdio import BAKING, OVEN, ROOT, call, with_server

pytestmark = pytest.mark.slow


def test_an_answer_over_stdio_is_a_chat_of_the_app(tmp_path: Path) -> None:
    folder, data = tmp_path / "docs" / "baking", tmp_path / "data"
    folder.mkdir(parents=True)
    (folder / "baking.md").write_text(BAKING)
    cmd = [sys.executable, "-m", "cli.main", "index", str(folder), "--collection", "baking"]
    out = subprocess.run(
        [*cmd, "--data-dir", str(data)], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert out.returncode == 0, out.stderr

    async def talk(session: ClientSession) -> None:
        answer = await call(session, "ask", question=OVEN)
        assert "250" in answer["answer"]

    with_server(data, talk)
    history = ChatHistory(data)
    [chat] = history.summaries()
    assert chat.title == f"MCP · {OVEN}"
    turn = history.get(chat.id).turns[0]
    assert "250" in turn.answer and turn.trace is not None and turn.state == "done"
