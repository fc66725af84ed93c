"""Text from documents is data (issue 69): what the chat renders from it shows its characters.

Each piece of markup is rendered by a CommonMark renderer (with GFM tables and strikethrough, and line
breaks, as Gradio's chat renders a message) and read back as a browser reads text: the characters must be
the document's, drawn with no element of their own. No "$$" is left in the markup, so nothing in it can be
taken for a formula (Gradio turns ``$$…$$`` into KaTeX, across the HTML around it); none of the app's HTML
holds a ``$`` or a backslash at all. The browser test beside this one (``test_browser_inert_text.py``)
checks the same in Chromium.
"""

from __future__ import annotations

from collections.abc import Callable
from html.parser import HTMLParser

import pytest
from markdown_it import MarkdownIt

from app.chat.conversation import Turn
from kimas_desktop.answer.writing.markers import place_markers
from kimas_desktop.trace import TraceBuilder
from kimas_desktop.types import Chunk, Citation, Hit, Quote, SentenceSupport
from ui.chat import render
from ui.chat.trace_view import trace_markdown
from ui.markup import code, esc, esc_html

VOID = {"br", "hr", "img", "input", "wbr"}
SAMPLES = [
    "$\\alpha = 0.65$ and $$E = m c^2$$ and $10 and $20",
    "a rate \\(x\\) and \\[y\\] and C:\\temp\\new",
    "`fit_model` and ``two`` ticks",
    "<b>bold</b> &amp; <script>alert(1)</script> a < b > c",
    "| option | default |\n|---|---|\n| max_iter | 200 |",
    "snake_case_name and _em_ and __strong__ and *star* and **bold** and ~~gone~~",
    "# not a heading",
    "> not a quote",
    "- one\n+ two\n* three\n1. four\n2) five",
    "---",
    "Title\n=====",
    "[link](http://x.test) ![img](y.png) [ref][1] [a]: http://z.test",
    "[1]: http://z.test\n\n[1]",
    "    not code",
    "a hard\\\nbreak and\n\nparagraphs",
    "α取值为$0.65$，`β_1` 取值为 <i>1_000</i>。",
    "मान $x_1$ है और **y** | z_2 है।",
]


class _Reader(HTMLParser):
    """The text a browser shows of some HTML (``<br>`` as a line break) and the elements it draws; with
    ``part`` (a class or a tag), only the text inside those elements, one string each."""

    def __init__(self, part: str = "") -> None:
        super().__init__(convert_charrefs=True)
        self.part = part
        self.tags: list[str] = []
        self.found: list[list[str]] = []
        self.depth = 0 if part else 1

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        classes = (dict(attrs).get("class") or "").split()
        if self.depth == 0 and (self.part in classes or self.part == tag):
            self.found.append([])
            self.depth = 1
        elif self.depth and tag not in VOID:
            self.depth += 1
        if self.depth:
            self.tags.append(tag)
            if tag == "br":
                self._text("\n")

    def handle_endtag(self, tag: str) -> None:
        if self.depth and tag == "p":
            self._text("\n\n")
        if self.part and self.depth and tag not in VOID:
            self.depth -= 1

    def handle_data(self, data: str) -> None:
        if self.depth:
            self._text(" ".join(data.split("\n")))

    def _text(self, text: str) -> None:
        if not self.found:
            self.found.append([])
        self.found[-1].append(text)


def rendered(markdown: str) -> str:
    return str(MarkdownIt("commonmark", {"breaks": True}).enable(["table", "strikethrough"]).render(markdown))


def seen(text: str) -> str:
    """``text`` as a browser lays it out: each line without the spaces around it, runs of spaces as one."""
    return "\n".join(" ".join(line.split()) for line in text.strip().split("\n"))


def shown(markdown: str, part: str = "") -> tuple[list[str], list[str]]:
    """The text of ``markdown`` as a browser shows it (of each element of class or tag ``part``), and the
    elements drawn."""
    reader = _Reader(part)
    reader.feed(rendered(markdown))
    return [seen("".join(parts)) for parts in reader.found], reader.tags


@pytest.mark.parametrize("text", SAMPLES)
@pytest.mark.parametrize("escape", [esc, esc_html])
def test_escaped_text_shows_its_characters_and_draws_nothing(text: str, escape: Callable[[str], str]) -> None:
    markup = escape(text)
    assert "$$" not in markup, markup  # nothing to take for a formula
    texts, tags = shown(markup)
    assert texts == [seen(text)], rendered(markup)
    assert set(tags) <= {"p", "br"}, rendered(markup)  # no list, heading, code, table, link or emphasis


def test_escaped_text_stays_text_inside_the_apps_html() -> None:
    """Inside an HTML block Markdown is off (a backslash escape would show): still the characters."""
    for text in SAMPLES:
        markup = esc_html(text)
        assert "$" not in markup and "\\" not in markup, markup
        texts, tags = shown(f"<div class='kimas-x'>{markup}</div>\n\nafter", "kimas-x")
        assert texts == [seen(text)] and tags == ["div", *(["br"] * text.count("\n"))], texts
    assert shown(code("C:\\fit_model $v2$ `x`.txt"))[0] == ["C:\\fit_model $v2$ `x`.txt"]


NAME = "fit_model $v2$ *draft*.txt"
SENTENCE = (
    "The factor α_min of `fit_model` is $\\alpha = 0.65$ for <b>bold</b> steps, $$E = m c^2$$ at \\(x\\)."
)
DOC = f"Damping in the fit_model solver\n\n{SENTENCE}\n\n| option | default |\n|---|---|\n| tol_abs | $10^{{-6}}$ |"
CHUNK = Chunk("c1", "notes", f"/docs/{NAME}", DOC, line_start=1, line_end=7, heading="Damping_in $x$")
AT = DOC.index(SENTENCE)
BACKED = "The factor α_min of `fit_model` is $\\alpha = 0.65$ for <b>bold</b> steps | 1_000 runs."
UNBACKED = "Its energy is $$E = m c^2$$ at \\(x\\) per *step*."
ANSWER = f"{BACKED}\n{UNBACKED}"


def _turn(state: str = "done") -> Turn:
    support = (
        SentenceSupport(BACKED, 0, len(BACKED), True, 0.9, 0.9, 1),
        SentenceSupport(UNBACKED, len(BACKED) + 1, len(ANSWER), False, 0.1, 0.1, None, missing=("$$E$$",)),
    )
    return Turn(
        "What is the damping factor α_min of the `fit_model` solver?",
        answer=ANSWER,
        state=state,  # type: ignore[arg-type]
        support=support if state == "done" else (),
        quotes=(Quote(1, CHUNK, AT, AT + len(SENTENCE), SENTENCE, 0.9),),
        citations=(Citation(1, CHUNK, SENTENCE, AT, AT + len(SENTENCE)),) if state == "done" else (),
    )


def test_the_answer_shows_the_documents_characters_with_the_apps_marks() -> None:
    """The model's answer copies the document: its characters show, while the app's [1] after the backed
    sentence and the flag on the other one stay the app's markup."""
    support = _turn().support
    marked = render.marked_answer(ANSWER, support, place_markers(ANSWER, support, {1}), "1")
    texts, tags = shown(marked)
    assert texts == [f"{BACKED}[1]\n{UNBACKED}⚠"], rendered(marked)
    assert set(tags) == {"p", "sup", "a", "span", "br"}, tags
    assert shown(marked, "kimas-unsupported")[0] == [UNBACKED]
    streaming = render.answer_markdown(_turn("running"))  # while it is written: its characters too
    assert "$" not in streaming and "\\" not in streaming
    assert f"{BACKED}\n{UNBACKED}" in "\n".join(shown(streaming)[0])


def test_the_quote_sources_and_chunk_show_the_documents_characters() -> None:
    message = render.answer_markdown(_turn(), "1")
    assert "$" not in message and "\\" not in message, message  # nothing for KaTeX in the whole message
    assert shown(message, "kimas-quote")[0] == [f"“{SENTENCE}”"]
    where = f"[1] {NAME} · lines 1-7"
    assert shown(message, "summary")[0] == [where, f"{where} — “{SENTENCE}”"]  # the quote's, the sources'
    assert shown(message, "kimas-chunk")[0] == [DOC] * 2
    assert shown(message, "kimas-heading")[0] == ["Damping_in $x$"] * 2
    assert shown(message, "kimas-unsupported")[0] == [UNBACKED]
    assert "kimas-" not in "".join(shown(message)[0])  # no markup of the app shows as text


def test_the_trace_shows_the_documents_characters_and_links_its_evidence() -> None:
    trace = TraceBuilder(question="What is α_min?", query="α_min of `fit_model` $x$")
    trace.evidence.append(Hit(CHUNK, 0.9))
    markdown = trace_markdown(trace.snapshot())
    assert "$$" not in markdown, markdown
    html = rendered(markdown)
    assert "<a class='kimas-evidence'" in html  # drawn as a link, not shown as a tag
    texts = shown(markdown)[0][0]
    assert "Search query: α_min of `fit_model` $x$" in texts
    assert f"{NAME} · lines 1-7 · notes · score 0.900 — {' '.join(DOC.split())[:150]}" in texts, texts
    assert "kimas-" not in texts
