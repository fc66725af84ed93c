"""The README is the first five minutes and docs/ the manual (issue 60): the README stays short and links
every page, no link in them is dead, every `kimas` command they show still exists with the options shown,
and the configuration they show is accepted as written."""

from __future__ import annotations

import argparse
import re
import shlex
import tomllib
from pathlib import Path
from typing import Any

import pytest

from cli.main import build_parser
from kimas_desktop.config import parse_config

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
PAGES = [README, *sorted(DOCS.glob("*.md"))]

FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
INLINE_CODE = re.compile(r"`([^`\n]+)`")


def prose(text: str) -> str:
    """The text without its fenced code blocks (a link in a code block is an example, not a link)."""
    return FENCE.sub("", text)


def anchors(page: Path) -> set[str]:
    """The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as hyphens,
    a repeated heading numbered."""
    slugs: set[str] = set()
    counts: dict[str, int] = {}
    for heading in re.findall(r"^#{1,6} +(.+?) *$", prose(page.read_text("utf-8")), re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")
        seen = counts.get(slug, 0)
        counts[slug] = seen + 1
        slugs.add(slug if seen == 0 else f"{slug}-{seen}")
    return slugs


def dead_links(page: Path) -> list[str]:
    dead = []
    for target in LINK.findall(prose(page.read_text("utf-8"))):
        if re.match(r"[a-z]+:", target):  # https:, mailto:: not checked here (the tests run offline)
            continue
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        lost_anchor = anchor and (file.suffix != ".md" or anchor not in anchors(file))
        if not file.exists() or lost_anchor:
            dead.append(target)
    return dead


def commands(text: str) -> list[list[str]]:
    """Every `kimas …` command shown: a line of a fenced block, or an inline code span, that starts with
    `kimas` (or a path to it), up to its comment. Square brackets (optional parts) are dropped."""
    lines = [line for _, block in FENCE.findall(text) for line in block.splitlines()]
    lines += INLINE_CODE.findall(prose(text))
    found = []
    for line in lines:
        first = line.split(maxsplit=1)[0] if line.strip() else ""
        if Path(first).name != "kimas":
            continue
        words = shlex.split(line.split(" #", 1)[0].replace("[", " ").replace("]", " "))
        if len(words) > 1:
            found.append(words[1:])
    return found


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def unknown_parts(words: list[str]) -> list[str]:
    """What of a command line the `kimas` parser does not know: its command, an action, an option."""
    parser = build_parser()
    commands_ = subcommands(parser)
    if words[0].startswith("-"):
        options = {o for a in parser._actions for o in a.option_strings}
        return [w for w in words if w.startswith("-") and w not in options]
    if words[0] not in commands_:
        return [words[0]]
    command = commands_[words[0]]
    for word in words[1:]:
        if word in subcommands(command):
            command = subcommands(command)[word]
            break
    options = {o for a in command._actions for o in a.option_strings}
    return [w for w in words[1:] if w.startswith("--") and w.split("=", 1)[0] not in options]


def test_the_readme_is_the_first_five_minutes() -> None:
    text = README.read_text("utf-8")
    assert len(text.splitlines()) <= 150
    assert "bash scripts/run.sh " in text and "bash scripts/test.sh " in text
    assert "](docs/screenshot.png)" in text


def test_the_readme_links_every_docs_page() -> None:
    linked = {(ROOT / t.partition("#")[0]).resolve() for t in LINK.findall(README.read_text("utf-8"))}
    unlinked = [p.name for p in DOCS.glob("*.md") if p.resolve() not in linked]
    assert not unlinked, unlinked


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_link_is_dead(page: Path) -> None:
    assert not dead_links(page)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_command_shown_exists(page: Path) -> None:
    shown = commands(page.read_text("utf-8"))
    unknown = {" ".join(words): unknown_parts(words) for words in shown}
    assert not {line: parts for line, parts in unknown.items() if parts}


def test_the_checks_find_what_they_look_for(tmp_path: Path) -> None:
    """Not vacuous: the README shows commands, and a dead link, a lost anchor, a removed command and a
    removed option are each found."""
    assert len(commands((DOCS / "cli.md").read_text("utf-8"))) >= 20
    assert commands(README.read_text("utf-8"))
    page = tmp_path / "page.md"
    page.write_text(
        "[a](nowhere.md) [b](#no-such-heading) [c](#here)\n\n## Here\n\n```bash\nkimas"
        " frobnicate\nkimas ask --frobnicate x\n```\n",
        "utf-8",
    )
    assert dead_links(page) == ["nowhere.md", "#no-such-heading"]
    assert [unknown_parts(words) for words in commands(page.read_text("utf-8"))] == [
        ["frobnicate"],
        ["--frobnicate"],
    ]


def test_the_configuration_shown_is_accepted_as_written() -> None:
    """Every TOML block of the docs, all at once: an unknown or misspelt key would be an error."""
    blocks = [
        block for page in PAGES for lang, block in FENCE.findall(page.read_text("utf-8")) if lang == "toml"
    ]
    assert len(blocks) >= 3
    data: dict[str, Any] = {}
    for block in blocks:
        for key, value in tomllib.loads(block).items():
            data[key] = {**data[key], **value} if isinstance(value, dict) and key in data else value
    config = parse_config(data, origin="docs")
    assert "manuals" in config.collections and "team-wiki" in config.sources
    assert config.chat.path.endswith("qwen2.5-3b-instruct-q4_k_m.gguf")
