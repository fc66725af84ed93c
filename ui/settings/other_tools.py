"""The Settings tab's "Use it from other tools": the MCP command line and the API and MCP addresses, each
with a copy button; the switch that serves the API and MCP over HTTP; the token, hidden until asked.
The actions are ``app.settings.tools_access``."""

from __future__ import annotations

from typing import Any

import gradio as gr

from app.desktop import DesktopApp
from app.settings.tools_access import ToolsAccess
from ui.i18n import page_language, t, told

__all__ = ["build"]


def _copyable(value: str, label: Any, elem_id: str) -> gr.Textbox:
    return gr.Textbox(value, label=label, interactive=False, buttons=["copy"], elem_id=elem_id)


def build(desk: DesktopApp, access: ToolsAccess, opened: gr.Tab | None = None) -> None:
    """Lay the section out inside the Settings tab and bind it; the state line follows the page's
    language once ``opened`` (the tab) is opened, and after a switch."""
    ends = access.endpoints()
    gr.Markdown(t("tools_heading"))
    _copyable(ends.mcp_command, t("tools_mcp"), "mcp-command")
    with gr.Row():
        _copyable(ends.api_url, t("tools_api"), "api-url")
        _copyable(ends.mcp_url, t("tools_mcp_http"), "mcp-url")
    on = gr.Checkbox(ends.api_on, label=t("tools_serve"), elem_id="api-on")
    state = gr.Markdown(access.state(), elem_id="api-state")
    with gr.Row():
        token = gr.Textbox("", label=t("tools_token"), interactive=False,
                           buttons=["copy"], visible=False, elem_id="api-token", scale=3)  # fmt: skip
        show = gr.Button(t("tools_show_token"), scale=1, elem_id="show-token")

    def said(request: gr.Request | None) -> str:
        return told(access.said_state(), access.state(), page_language(desk.config.ui.language, request))

    def on_switch(value: bool, request: gr.Request) -> str:
        access.switch(value)
        return said(request)

    on.input(on_switch, [on], [state])
    if opened is not None:
        opened.select(said, None, [state], queue=False)
    show.click(lambda: gr.Textbox(value=access.token(), visible=True), None, [token])
