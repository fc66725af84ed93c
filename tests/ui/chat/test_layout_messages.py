"""The Chat tab speaks the app's language (issue 46): the rename panel of an open chat shows no command-line
hint (it showed ``kimas ask --history <id>``, which means nothing in the app)."""

from __future__ import annotations

import json

from ui.chat.handlers import Sidebar
from ui.chat.layout import _sidebar_outputs


def test_the_rename_panel_shows_no_command_line_hint() -> None:
    open_chat = Sidebar([("Kenya trip", "52cef0a1")], "52cef0a1", "Kenya trip", "")
    updates = _sidebar_outputs(open_chat)
    shown = json.dumps(updates, default=str)
    assert "Kenya trip" in shown
    assert "kimas " not in shown and "command line" not in shown
