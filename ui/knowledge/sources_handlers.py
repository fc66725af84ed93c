"""The online sources' handlers (Knowledge tab): plain functions of the app and the widgets' values."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from app.desktop import DesktopApp
from kimas_desktop.config import SourceConfig
from kimas_desktop.errors import KimasError
from ui.i18n import Language, word
from ui.markup import esc

NEW = ""  # the dropdown's value for "a new source"
USES = ("weak", "always", "ask")  # labelled ``src_use_<use>`` in ``ui.i18n``
KINDS = ("searxng", "ddgs", "http")  # labelled ``src_kind_<kind>``


@dataclass(frozen=True)
class SourceFields:
    """The form, in widget order."""

    name: str
    kind: str
    enabled: bool
    use: str
    base_url: str
    site: str
    description: str
    timeout_s: float
    max_pages: int
    method: str
    query_param: str
    results_path: str
    title_field: str
    url_field: str
    text_field: str
    token_env: str
    json_body: str  # JSON text
    headers: str  # JSON text

    def values(self) -> dict[str, Any]:
        """The config values these fields say (``KimasError`` for JSON that does not parse)."""
        out: dict[str, Any] = {
            "kind": self.kind,
            "enabled": bool(self.enabled),
            "use": self.use,
            "base_url": self.base_url.strip(),
            "site": self.site.strip(),
            "description": self.description.strip(),
            "timeout_s": float(self.timeout_s or 8),
            "max_pages": int(self.max_pages or 0),
        }
        if self.kind == "http":
            out |= {
                "method": self.method,
                "query_param": self.query_param.strip() or "q",
                "results_path": self.results_path.strip(),
                "title_field": self.title_field.strip(),
                "url_field": self.url_field.strip(),
                "text_field": self.text_field.strip(),
                "token_env": self.token_env.strip(),
                "json_body": _json(self.json_body, "JSON body"),
                "headers": _json(self.headers, "headers"),
            }
        return out


def _json(text: str, what: str) -> dict[str, Any]:
    if not text.strip():
        return {}
    try:
        value = json.loads(text)
    except ValueError as err:
        raise KimasError(f"The {what} is not valid JSON: {err}") from None
    if not isinstance(value, dict):
        raise KimasError(f"The {what} must be a JSON object ({{...}}).")
    return value


def source_choices(desk: DesktopApp, language: Language = "en") -> list[tuple[str, str]]:
    rows = desk.online.rows()
    return [(word("src_new", language), NEW)] + [
        (word("src_on" if r.spec.enabled else "src_off", language, name=r.name), r.name) for r in rows
    ]


def load_source(desk: DesktopApp, name: str | None) -> SourceFields:
    return load_source_spec(name, desk.online.spec(name)) if name else load_source_defaults()


def load_source_spec(name: str, spec: SourceConfig) -> SourceFields:
    return SourceFields(
        name,
        spec.kind,
        spec.enabled,
        spec.use,
        spec.base_url,
        spec.site,
        spec.description,
        spec.timeout_s,
        spec.max_pages,
        spec.method,
        spec.query_param,
        spec.results_path,
        spec.title_field,
        spec.url_field,
        spec.text_field,
        spec.token_env,
        json.dumps(spec.json_body) if spec.json_body else "",
        json.dumps(spec.headers) if spec.headers else "",
    )


@dataclass(frozen=True)
class SourceAction:
    message: str
    choices: list[tuple[str, str]]
    selected: str


def save_source(
    desk: DesktopApp, original: str | None, fields: SourceFields, language: Language = "en"
) -> SourceAction:
    try:
        row = desk.online.save(fields.name, fields.values(), replaces=original or "")
    except KimasError as err:
        message = word("src_not_saved", language, why=esc(str(err)))
        return SourceAction(message, source_choices(desk, language), original or NEW)
    name = esc(row.name)
    message = (
        word("src_saved_on", language, name=name, use=word(f"src_use_{row.spec.use}", language))
        if row.spec.enabled
        else word("src_saved_off", language, name=name)
    )
    return SourceAction(message, source_choices(desk, language), row.name)


def remove_source(desk: DesktopApp, name: str | None, language: Language = "en") -> SourceAction:
    if not name:
        return SourceAction(word("src_choose", language), source_choices(desk, language), NEW)
    try:
        desk.online.remove(name)
    except KimasError as err:
        message = word("src_not_removed", language, why=esc(str(err)))
        return SourceAction(message, source_choices(desk, language), name)
    return SourceAction(word("src_removed", language, name=esc(name)), source_choices(desk, language), NEW)


def try_source(desk: DesktopApp, fields: SourceFields, query: str, language: Language = "en") -> str:
    """Ask the source as the form describes it, once (the user asked for this request)."""
    try:
        docs = desk.online.try_query(query, name=fields.name.strip() or "trial", values=fields.values())
    except KimasError as err:
        return word("src_failed", language, why=esc(str(err)))
    if not docs:
        return word("src_no_results", language)
    lines = [word("src_results", language, n=len(docs), query=esc(query.strip())) + "\n"]
    for i, d in enumerate(docs, 1):
        kind = word("src_page_read" if d.page_read else "src_snippet_only", language)
        text = esc(" ".join(d.text.split())[:240])
        lines.append(f"{i}. **{esc(d.title or d.url)}** · `{esc(d.url)}` · {kind}\n   {text}")
    return "\n".join(lines)


def also_ask_choices(desk: DesktopApp) -> list[tuple[str, str]]:
    """The enabled sources a question can ask besides those asked anyway (the chat's checkboxes)."""
    return [(r.name, r.name) for r in desk.online.rows() if r.spec.enabled and r.spec.use != "always"]


def load_source_defaults() -> SourceFields:
    """The form for a new source."""
    return load_source_spec("", SourceConfig(kind="searxng", base_url="http://127.0.0.1:8888"))
