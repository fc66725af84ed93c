"""The Gradio app: tabs Chat / Knowledge / Evaluation / Settings, each built by its folder's ``layout``,
and the one timer that keeps them current. Layout and wiring only."""

from __future__ import annotations

import os
from typing import Any, cast

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

import gradio as gr

from app.desktop import DesktopApp
from ui.chat import layout as chat_layout
from ui.evaluation import layout as eval_layout
from ui.i18n import I18N, apply_language, page_language, t
from ui.knowledge import documents_tab, sources_tab
from ui.knowledge import layout as knowledge_layout
from ui.poll import poll
from ui.settings import first_start_view
from ui.settings import layout as settings_layout
from ui.style import CSS, PAGE_JS, THEME

__all__ = ["build_app", "launch_kwargs"]


def _skip_none(value: Any) -> Any:
    return gr.skip() if value is None else value


def _bind_timer(
    desk: DesktopApp,
    timer: gr.Timer,
    seen: gr.State,
    chat: chat_layout.ChatTab,
    k: knowledge_layout.KnowledgeTab,
    settings_status: gr.Markdown,
) -> None:
    """Every second: what changed in the collections, indexing and models, on every tab."""
    docs = k.documents

    def tick(
        version: int, current: str | None, show: str, path: str | None, request: gr.Request
    ) -> tuple[Any, ...]:
        language = page_language(desk.config.ui.language, request)
        p = poll(desk, version, language)
        view = (
            None
            if p.names is None or current not in p.names
            else documents_tab.timed_view(desk, docs["picks"], current, show, path, request)
        )
        files = (gr.skip(), gr.skip()) if view is None else documents_tab.outputs(view)
        if p.names is None:
            names_update = gr.skip()
        elif current in p.names:  # keep the value: re-setting it would reload the settings fields
            names_update = gr.update(choices=p.choices)
        else:
            names_update = gr.update(choices=p.choices, value=p.names[0] if p.names else None)
        return (
            p.version,
            _skip_none(p.collections_md),
            names_update,
            _skip_none(p.chat_hint),
            _skip_none(p.activity_md),
            p.progress_html,
            p.model_md,
            p.model_md,
            *files,
        )

    timer.tick(
        tick,
        [seen, k.selected, docs["show"], docs["pick"]],
        [
            seen,
            k.collections,
            k.selected,
            chat.hint,
            k.activity,
            k.progress,
            chat.model_status,
            settings_status,
            docs["list"],
            docs["pick"],
        ],
        show_progress="hidden",
        queue=False,
    )


def build_app(desk: DesktopApp) -> gr.Blocks:
    """The whole UI for one running app. Launch it with ``launch_kwargs()``."""
    apply_language(I18N, desk.config.ui.language)  # Settings' choice over the browser's language
    # Uploads pass through Gradio's cache on their way into the data dir: clear it hourly.
    with gr.Blocks(title="KIMAs Desktop", analytics_enabled=False, delete_cache=(3600, 3600)) as demo:
        conv = gr.State(None)
        seen = gr.State(-1)
        gr.Markdown(t("title"))
        first_start = first_start_view.build(desk)
        with gr.Tabs():
            with gr.Tab(t("tab_chat"), id="chat"):
                chat = chat_layout.build(desk, conv)
            with gr.Tab(t("tab_knowledge"), id="knowledge"):
                k = knowledge_layout.build(desk, chat.also_ask)
            with gr.Tab(t("tab_evaluation"), id="evaluation"):
                evaluation = eval_layout.build(desk)
            with gr.Tab(t("tab_settings"), id="settings") as settings_tab:
                settings_status = settings_layout.build(desk, settings_tab)
        timer = gr.Timer(1.0)
        _bind_timer(desk, timer, seen, chat, k, settings_status)
        eval_layout.bind(desk, evaluation, timer, demo)
        knowledge_layout.bind_load(desk, k, demo)
        chat.bind_restore(demo)
        first_start_view.bind(desk, first_start, demo)
        demo.load(lambda: sources_tab.also_ask_update(desk), None, [chat.also_ask])
    return cast(gr.Blocks, demo)


def launch_kwargs() -> dict[str, Any]:
    """How Gradio shows the app (``ui.server.server.serve`` serves it on 127.0.0.1 only): no footer links, no
    API page, no server-side rendering, no MCP server, errors as sentences."""
    return {
        "show_error": False,
        "footer_links": [],
        "ssr_mode": False,
        "mcp_server": False,
        "css": CSS + settings_layout.CSS + eval_layout.CSS,
        "theme": THEME,
        "js": PAGE_JS,
        "i18n": I18N,
    }
