"""Markup shared by the tabs: text from documents and models shown as itself in Markdown or HTML, the
link to a cited file, and the one-line status of an action, of the models and of a broken store."""

from __future__ import annotations

import html
import re
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
    "attr",
    "code",
    "esc",
    "esc_html",
    "model_markdown",
    "models_named",
    "outcome_markdown",
    "said_naming_models",
    "source_url",
    "store_problem",
    "viewer_url",
]


# Text from documents, models and the user is data (issue 69: a "$$" in a quoted paper turned the quote and
# its sources into raw HTML, Gradio having read what lay between two "$$" as one formula). Markdown, GFM and
# LaTeX (KaTeX's "$$…$$", "\\(…\\)") read these characters as syntax anywhere in a line:
_SYNTAX = "\\`*_[]|#$~"
# and these where a line starts: a list item ("- ", "+ ", "1. ", "2) "), a heading's underline ("==="),
# an indented code block.
_BLOCK_START = re.compile(r"[-+=]|[0-9]{1,9}[.)]| {4}| {0,3}\t")
_LINE_START = re.compile(rf"^(?:{_BLOCK_START.pattern})", re.MULTILINE)
_BACKSLASHED = {ord(c): "\\" + c for c in _SYNTAX}
# In the app's HTML Markdown is off (a backslash would show), so there a character is written as a numeric
# character reference, which the browser shows as itself and no parser reads as syntax, in HTML and in
# Markdown alike. "[1]" stays: "[a]" makes a link only with "(", "[" or ":" after it.
_REFERENCED = {ord(c): f"&#{ord(c)};" for c in _SYNTAX if c not in "[]"} | {
    ord("&"): "&amp;",
    ord("<"): "&lt;",
    ord(">"): "&gt;",
    ord("\n"): "<br>",  # a line break that starts no line and ends no HTML block (a blank line would)
}
_LINK = re.compile(r"\]([(\[:])")


def _starts_no_block(found: re.Match[str]) -> str:
    """The opening of a block (``_BLOCK_START``), its telling character escaped: "1&#46;", "&#45;"."""
    mark = found.group()
    at = len(mark) - 1 if mark[-1] in ".)" else 0
    return f"{mark[:at]}&#{ord(mark[at])};{mark[at + 1 :]}"


def esc(text: str) -> str:
    """``text`` as Markdown (a chat message, ``gr.Markdown``) that shows its characters and draws nothing:
    no emphasis, code, link, table, list, heading or formula. Inside the app's HTML: ``esc_html``."""
    out = html.escape(text.replace("\r\n", "\n").replace("\r", "\n").translate(_BACKSLASHED), quote=False)
    return _LINE_START.sub(_starts_no_block, out)


def esc_html(text: str) -> str:
    """``text`` as markup that shows its characters and line breaks and draws nothing, inside the app's
    HTML (a quote, a citation, a chunk) and inside Markdown alike, whatever HTML, Markdown or LaTeX it
    holds."""
    out = text.replace("\r\n", "\n").replace("\r", "\n").translate(_REFERENCED)
    out = _LINK.sub(lambda found: f"]&#{ord(found.group(1))};", out)
    return _BLOCK_START.sub(_starts_no_block, out, count=1) if _BLOCK_START.match(out) else out


def attr(text: str) -> str:
    """``text`` as the value of an HTML attribute (a tooltip, a link) in either quotes: its characters, and
    no ``$`` or backslash that a LaTeX renderer reading the message's source could take for a formula."""
    return html.escape(text).translate({ord("$"): "&#36;", ord("\\"): "&#92;"})


def code(text: str) -> str:
    """``text`` in the code style, in Markdown or in the app's HTML (Markdown reads inside ``<code>``)."""
    return f"<code>{esc_html(text)}</code>"


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
