"""Markup shared by the tabs: text from documents and models shown as itself in Markdown or HTML, the
link to a cited file, and the one-line status of an action, of the models and of a broken store."""

from __future__ import annotations

import html
from pathlib import Path
from urllib.parse import quote, urlencode

from app.chat.served_files import source_token
from app.desktop import ActionResult, ModelState
from app.outcomes import Said
from app.settings.form import MULTILINGUAL_EMBEDDER, describe_models
from kimas_desktop.config import Config
from ui.i18n import Language, told, word

__all__ = [
    "SOURCE_ROUTE",
    "VIEW_ROUTE",
    "code",
    "esc",
    "model_markdown",
    "models_named",
    "outcome_markdown",
    "said_naming_models",
    "source_url",
    "store_problem",
    "viewer_url",
]


def esc(text: str) -> str:
    """Text that shows as itself inside Markdown or HTML."""
    out = text
    for ch in "\\`*_[]|#":
        out = out.replace(ch, "\\" + ch)
    return html.escape(out, quote=False)


def code(text: str) -> str:
    return f"<code>{html.escape(text)}</code>"


SOURCE_ROUTE = "/kimas/source"  # serves cited files; registered by cli/serve_cmd.py


def source_url(path: str, page: int | None = None) -> str:
    url = f"{SOURCE_ROUTE}/{source_token(path)}/{quote(Path(path).name)}"
    return url + (f"#page={page}" if page else "")


VIEW_ROUTE = "/kimas/view"  # shows cited files at the passage (ui/server/viewer_route.py)
PASSAGE_CHARS = 400  # the cited words a link carries: enough to find them, short enough for any URL


def viewer_url(
    path: str, page: int | None = None, lines: tuple[int, int] | None = None, passage: str = ""
) -> str:
    """The viewer's page for ``path`` at the passage: its page or lines, the cited words highlighted and
    scrolled into view (``#kimas-hit``)."""
    query = {"page": str(page) if page else "", "lines": f"{lines[0]}-{lines[1]}" if lines else ""}
    query["q"] = " ".join(passage.split())[:PASSAGE_CHARS]
    params = urlencode({k: v for k, v in query.items() if v})
    url = f"{VIEW_ROUTE}/{source_token(path)}/{quote(Path(path).name)}"
    return url + (f"?{params}" if params else "") + "#kimas-hit"


def outcome_markdown(outcome: ActionResult, language: Language = "en") -> str:
    """How a button press went, in ``language`` when the app gave it a code."""
    text = esc(told(outcome.said, outcome.message, language))
    return text if outcome.ok else f"⚠ {text}"


def models_named(config: Config, language: Language = "en") -> str:
    """The chat and embedding models of ``config`` in ``language``: in English, what ``describe_models``
    says (app/ writes that into the model status)."""
    chat_model = config.chat
    if chat_model.kind == "openai":
        model = chat_model.model or word("the_server_model", language)
        chat = word("server_model", language, model=model, url=chat_model.base_url)
    elif chat_model.path:
        chat = Path(chat_model.path).name
    elif chat_model.hf_repo:
        chat = chat_model.hf_repo
    else:
        chat = word("built_in", language, name="SmolLM2-135M-Instruct")
    if config.embedding.path:
        embedding = Path(config.embedding.path).name
    elif config.embedding.name == MULTILINGUAL_EMBEDDER:  # installed with the app, like the default
        embedding = word("built_in", language, name=MULTILINGUAL_EMBEDDER)
    else:
        embedding = config.embedding.name or word("built_in", language, name="all-MiniLM-L6-v2")
    return word("models", language, chat=chat, embedding=embedding)


def said_naming_models(said: Said | None, english: str, language: Language = "en") -> str:
    """``said`` in ``language`` (None: ``english``), its ``Config`` values as the models they name."""
    if said is None:
        return english
    values = {k: models_named(v, language) if isinstance(v, Config) else v for k, v in said.values.items()}
    return told(Said(said.english, said.code, values), said.english, language)


def model_sentence(state: ModelState, config: Config | None = None, language: Language = "en") -> str:
    """The model status in ``language``. app/ writes it in English: the sentences of loading the models of
    ``config`` and of being ready with them are said again here in ``language`` (Japanese and Hindi too);
    any other by its code (``state.said``: its values may be configs, whose models are named here)."""
    if language == "en":
        return state.message
    if config is not None:
        described = describe_models(config)
        if state.message == "Loading model…":
            return word("model_loading", language)
        if state.message == f"Loading model… ({described})":
            return word("model_loading_named", language, models=models_named(config, language))
        if state.message == f"Ready: {described}.":
            return word("model_ready", language, models=models_named(config, language))
    return said_naming_models(state.said, state.message, language)


def model_markdown(state: ModelState, config: Config | None = None, language: Language = "en") -> str:
    """The model status line, its sentence in ``language`` where it is one of ``config``'s."""
    icon = {"loading": "◌", "ready": "✓", "failed": "⚠"}[state.phase]
    return f"{icon} {esc(model_sentence(state, config, language))}"


def store_problem(message: str, log_file: str, language: Language = "en") -> str:
    """Why the collections cannot be shown: the store itself failed (never mistaken for "no knowledge")."""
    return word("store_problem", language, message=esc(message), log=code(log_file))
