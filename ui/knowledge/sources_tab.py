"""The Knowledge tab's online sources: add, try, edit and remove a web search or HTTP API source."""

from __future__ import annotations

from dataclasses import astuple
from typing import Any

import gradio as gr

from app.desktop import DesktopApp
from ui.i18n import Language, page_language, t
from ui.knowledge import sources_handlers as sh

__all__ = ["also_ask_update", "build"]


def also_ask_update(desk: DesktopApp) -> Any:
    choices = sh.also_ask_choices(desk)
    return gr.update(choices=choices, visible=bool(choices))


# The form's widgets in ``SourceFields`` order (the order they are laid out in differs).
FIELDS = ("name", "kind", "enabled", "use", "base_url", "site", "description", "timeout", "pages", "method",
          "query_param", "results_path", "title_field", "url_field", "text_field", "token_env", "json_body",
          "headers")  # fmt: skip


def _http_fields() -> dict[str, Any]:
    """How an HTTP API source is asked and where its results are."""
    with gr.Accordion(t("src_http"), open=False):
        method = gr.Radio(["GET", "POST"], value="GET", label=t("src_method"))
        query_param = gr.Textbox(label=t("src_query_param"), value="q")
        json_body = gr.Textbox(label='JSON body (POST; "{query}" is replaced)', lines=2)
        headers = gr.Textbox(label='Headers as JSON ("${NAME}" reads the environment)', lines=2)
        token_env = gr.Textbox(label=t("src_token_env"))
        results_path = gr.Textbox(label=t("src_results_path"))
        with gr.Row():
            title_field = gr.Textbox(label=t("src_title_field"), value="title")
            url_field = gr.Textbox(label=t("src_url_field"), value="url")
            text_field = gr.Textbox(label=t("src_text_field"), value="text")
    return {
        "method": method,
        "query_param": query_param,
        "json_body": json_body,
        "headers": headers,
        "token_env": token_env,
        "results_path": results_path,
        "title_field": title_field,
        "url_field": url_field,
        "text_field": text_field,
    }


def _source_fields() -> list[Any]:
    """The source's form, returned in ``SourceFields`` order."""
    with gr.Row():
        name = gr.Textbox(label=t("src_name"), placeholder=t("src_name_example"), elem_id="source-name")
        kinds = [(t(f"src_kind_{value}"), value) for value in sh.KINDS]
        kind = gr.Dropdown(choices=kinds, value="searxng", label=t("src_kind"), elem_id="source-kind")
    base_url = gr.Textbox(label=t("src_address"), elem_id="source-url")
    site = gr.Textbox(label=t("src_site"), placeholder="docs.example.org", elem_id="source-site")
    description = gr.Textbox(label=t("src_knows"), lines=2, elem_id="source-description")
    with gr.Row():
        enabled = gr.Checkbox(label=t("src_enabled"), value=False, elem_id="source-enabled")
        uses = [(t(f"src_use_{value}"), value) for value in sh.USES]
        use = gr.Radio(choices=uses, value="weak", label=t("src_use"), elem_id="source-use")
    with gr.Row():
        timeout = gr.Number(label=t("src_timeout"), value=8, minimum=1, maximum=120, elem_id="source-timeout")
        pages = gr.Number(label=t("src_pages"), value=3, minimum=0, maximum=10, precision=0)
    form = {
        "name": name,
        "kind": kind,
        "base_url": base_url,
        "site": site,
        "description": description,
        "enabled": enabled,
        "use": use,
        "timeout": timeout,
        "pages": pages,
        **_http_fields(),
    }
    return [form[f] for f in FIELDS]


def build(desk: DesktopApp, also_ask: gr.CheckboxGroup) -> None:
    with gr.Accordion(t("online_sources"), open=False, elem_id="online-sources"):
        gr.Markdown(t("src_privacy"), elem_classes=["kimas-note"])
        pick = gr.Dropdown(
            choices=sh.source_choices(desk), value=sh.NEW, label=t("src_pick"), elem_id="source-select"
        )
        message = gr.Markdown("", elem_id="source-message")
        fields = _source_fields()
        with gr.Row():
            query = gr.Textbox(label=t("src_try_query"), scale=3, elem_id="source-query")
            try_it = gr.Button(t("src_try"), scale=1, elem_id="source-try")
        tried = gr.Markdown("", elem_id="source-results")
        with gr.Row():
            save = gr.Button(t("src_save"), variant="primary", elem_id="source-save")
            remove = gr.Button(t("src_remove"), variant="stop", size="sm", elem_id="source-remove")

    def action(a: sh.SourceAction) -> tuple[Any, ...]:
        return (a.message, gr.update(choices=a.choices, value=a.selected), also_ask_update(desk))

    def language(request: gr.Request) -> Language:
        return page_language(desk.config.ui.language, request)

    # gr.Request first where the form's fields follow: Gradio passes it to positional parameters only
    def on_save(request: gr.Request, p: str | None, *values: Any) -> tuple[Any, ...]:
        return action(sh.save_source(desk, p, sh.SourceFields(*values), language(request)))

    def on_remove(p: str | None, request: gr.Request) -> tuple[Any, ...]:
        a = sh.remove_source(desk, p, language(request))
        gone = bool(p) and a.selected == sh.NEW  # the form of a new source; else the form as it is
        return (*action(a), *(astuple(sh.load_source_defaults()) if gone else [gr.skip()] * len(fields)))

    def on_try(request: gr.Request, q: str, *values: Any) -> str:
        return sh.try_source(desk, sh.SourceFields(*values), q, language(request))

    def on_load(request: gr.Request) -> Any:  # the picker's words in the page's language
        return gr.update(choices=sh.source_choices(desk, language(request)))

    gr.on(None, on_load, None, [pick])  # no trigger: at each page load
    # The form follows the user's pick (input), not the picker's value being set by Save: on a busy machine
    # that reload came after the user had ticked "Enabled" and undid it.
    pick.input(lambda n: astuple(sh.load_source(desk, n)), [pick], fields)
    save.click(on_save, [pick, *fields], [message, pick, also_ask])
    remove.click(on_remove, [pick], [message, pick, also_ask, *fields])
    try_it.click(on_try, [query, *fields], [tried])
    query.submit(on_try, [query, *fields], [tried])
