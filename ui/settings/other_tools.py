"""The Settings tab's "Use it from other tools": the MCP command line and the API and MCP addresses, each
with a copy button; the switch that serves the API and MCP over HTTP; the token, hidden until asked.
The actions are ``app.settings.tools_access``."""

from __future__ import annotations

import gradio as gr

from app.settings.tools_access import ToolsAccess

__all__ = ["build"]


def _copyable(value: str, label: str, elem_id: str) -> gr.Textbox:
    return gr.Textbox(value, label=label, interactive=False, buttons=["copy"], elem_id=elem_id)


def build(access: ToolsAccess) -> None:
    """Lay the section out inside the Settings tab and bind it."""
    ends = access.endpoints()
    gr.Markdown("### Use it from other tools")
    _copyable(ends.mcp_command, "MCP server on stdio: the command for Claude Desktop, VS Code, Cursor…", "mcp-command")  # fmt: skip
    with gr.Row():
        _copyable(ends.api_url, "OpenAI-compatible API (base URL)", "api-url")
        _copyable(ends.mcp_url, "MCP over streamable HTTP", "mcp-url")
    on = gr.Checkbox(ends.api_on, label="Serve the API and MCP over HTTP", elem_id="api-on")
    state = gr.Markdown(access.state(), elem_id="api-state")
    with gr.Row():
        token = gr.Textbox("", label="Token (send it as Authorization: Bearer …)", interactive=False,
                           buttons=["copy"], visible=False, elem_id="api-token", scale=3)  # fmt: skip
        show = gr.Button("Show the token", scale=1, elem_id="show-token")
    on.input(access.switch, [on], [state])
    show.click(lambda: gr.Textbox(value=access.token(), visible=True), None, [token])
