"""``kimas index``, ``kimas collections``, ``kimas rename-collection``, ``kimas unwatch-folder`` and
``kimas remove-collection``: managing collections. A collection is named by its name (any text, quoted in
the shell) or its id, as ``kimas collections`` lists them."""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any, TextIO

from app.knowledge.collections import Knowledge
from app.knowledge.indexing import describe_report
from app.models.first_embedder import FirstEmbedder, with_embedder
from app.models.languages import collection_languages, multilingual_advice
from app.paths import read_config, resolve_paths
from app.runtime import Runtime
from app.settings.config_store import ConfigStore
from cli.render import dumps
from cli.terminal import redraw, say
from kimas_desktop.config import Config
from kimas_desktop.control import IndexControl
from kimas_desktop.errors import Cancelled
from kimas_desktop.text.visible import visible_name
from kimas_desktop.types import CollectionInfo, IndexProgress, IndexReport


def add_parsers(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    p = sub.add_parser("index", parents=[common], help="add a folder to a collection and index it")
    p.add_argument("path", help="the folder to index")
    p.add_argument("--collection", help="collection name (default: the folder's name)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(run=run_index)

    p = sub.add_parser("collections", parents=[common], help="list collections: counts, folders, problems")
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=run_collections)

    p = sub.add_parser("remove-collection", parents=[common], help="delete a collection's index and config")
    p.add_argument("name")
    p.set_defaults(run=run_remove)

    p = sub.add_parser(
        "rename-collection", parents=[common], help="give a collection another name (nothing is re-indexed)"
    )
    p.add_argument("name", help="its name or id now")
    p.add_argument("new_name", help="the new name: any text (quote it if it has spaces)")
    p.set_defaults(run=run_rename)

    p = sub.add_parser(
        "unwatch-folder",
        parents=[common],
        help="stop watching a folder of a collection and take its files out of the index",
    )
    p.add_argument("name", help="the collection's name or id")
    p.add_argument("folder", help="the folder, as `kimas collections` lists it")
    p.set_defaults(run=run_unwatch)


def _open(args: argparse.Namespace) -> tuple[Runtime, Knowledge]:
    """The runtime and the collections, under the same rules as the app's."""
    paths = resolve_paths(args.data_dir, args.config)
    runtime = Runtime(paths, read_config(paths))
    store = ConfigStore(paths.config_file, runtime.config)
    return runtime, Knowledge(store, runtime.store, paths.data_dir)


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return "?"
    seconds = int(seconds)
    if seconds >= 3600:
        return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    return f"{seconds // 60}m{seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"


class ProgressBar:
    """One line on stderr, redrawn in place: files done/total, chunks/s, ETA, current file."""

    def __init__(self, out: TextIO = sys.stderr) -> None:
        self._out = out
        self._drawn = False

    def __call__(self, p: IndexProgress) -> None:
        if p.files_total == 0:
            return
        width = 24
        filled = int(width * p.files_done / p.files_total)
        name = visible_name(Path(p.current_file).name) if p.current_file else ""
        n = p.ocr_pages_waiting
        ocr = f" {n} page{'' if n == 1 else 's'} waiting for OCR" if n else ""
        line = (
            f"[{'#' * filled}{'-' * (width - filled)}] {p.files_done}/{p.files_total} files "
            f"{p.chunks_done} chunks {p.chunks_per_s:5.1f}/s eta {_duration(p.eta_s):>6} {name[:32]:<32}"
            f"{ocr:<30}"  # padded: a shorter redraw leaves nothing of the longer one behind
        )
        redraw(line, self._out)
        self._drawn = True
        if p.finished:
            say(file=self._out)
            self._drawn = False


def summary(report: IndexReport) -> str:
    lines = [f"collection {visible_name(report.collection)}: {describe_report(report)}"]
    for problem in report.problems:
        lines.append(f"  {problem.kind}: {visible_name(problem.path)}: {problem.reason}")
    return "\n".join(lines)


@contextlib.contextmanager
def _cancel_on_interrupt(control: IndexControl) -> Iterator[None]:
    """The first Ctrl+C cancels the run at its next step (what is written stays); a second one stops now.
    Ctrl+Z pauses it and ``fg`` resumes it, as for any program."""

    def cancel(signum: int, frame: object) -> None:
        say("\nkimas: cancelling at the next step (Ctrl+C again to stop at once)…", file=sys.stderr)
        control.cancel()
        signal.signal(signal.SIGINT, signal.default_int_handler)

    try:
        previous = signal.signal(signal.SIGINT, cancel)
    except ValueError:  # not the main thread: no signal handling
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def run_index(args: argparse.Namespace) -> int:
    folder = Path(args.path).expanduser().resolve()
    runtime, knowledge = _open(args)
    new_library = not knowledge.has_knowledge()
    _, folders = knowledge.add_folder(args.collection or folder.name, folder)
    name = knowledge.resolve(args.collection or folder.name)
    choice = FirstEmbedder().choose([folder], runtime.config.embedding) if new_library else None
    if choice is not None:
        store = ConfigStore(runtime.paths.config_file, read_config(runtime.paths))
        store.update(lambda c: with_embedder(c, choice))
        runtime.close()
        runtime, knowledge = _open(args)
        say(f"kimas: these documents are not all in English: indexing with the multilingual model {choice}")
    bar = None if args.quiet or not sys.stderr.isatty() else ProgressBar()
    control = IndexControl()
    try:
        with _cancel_on_interrupt(control):
            report: IndexReport = runtime.indexer().index(name, folders, bar, control)
    except Cancelled:
        say(f"kimas: indexing of '{name}' cancelled; run the same command again to go on.", file=sys.stderr)
        return 130
    finally:
        runtime.close()
    say(summary(report))
    return 0


def _info_json(info: CollectionInfo, title: str) -> dict[str, Any]:
    data = asdict(info)
    data["id"], data["name"] = info.name, title
    data["folders"] = list(info.folders)
    data["problems"] = [asdict(p) for p in info.problems]
    return data


def _not_indexed(name: str, config: Config) -> CollectionInfo:
    return CollectionInfo(name, tuple(config.collection(name).folders), "", 0, 0, 0, None)


def _languages(runtime: Runtime, info: CollectionInfo) -> Counter[str]:
    """Documents per language (each file's, told at indexing: its card); files indexed before have none."""
    if not info.files:
        return Counter()
    return collection_languages(runtime.store(runtime.config), info.name)


def run_collections(args: argparse.Namespace) -> int:
    runtime, knowledge = _open(args)
    config = runtime.config
    infos = list(knowledge.infos().values())
    known = {i.name for i in infos}
    infos += [_not_indexed(n, config) for n in sorted(config.collections) if n not in known]
    if args.json:
        rows = [
            {
                **_info_json(i, knowledge.title(i.name)),
                "languages": dict(_languages(runtime, i).most_common()),
            }
            for i in infos
        ]
        say(dumps(rows, indent=2))
        return 0
    if not infos:
        say("no collections yet: add one with `kimas index PATH`")
        return 0
    for info in infos:
        when = (
            time.strftime("%Y-%m-%d %H:%M", time.localtime(info.updated_at))
            if info.updated_at
            else "never indexed"
        )
        model = f"{info.embedding_model} ({info.dim}-d)" if info.embedding_model else "-"
        title = visible_name(knowledge.title(info.name))
        named = title if title == info.name else f"{title} (id {info.name})"
        say(f"{named}: {info.files} files, {info.chunks} chunks, model {model}, last update {when}")
        languages = _languages(runtime, info)
        if languages:
            say("  languages: " + ", ".join(f"{code} {n}" for code, n in languages.most_common()))
        advice = multilingual_advice(info.name, languages, config.embedding)
        if advice:
            say(f"  {advice}")
        if info.needs_reembedding:
            say(f"  needs re-embedding for the configured embedding model: kimas reindex {info.name}")
        for folder in info.folders:
            say(f"  folder: {visible_name(folder)}")
        for problem in info.problems:
            say(f"  {problem.kind}: {visible_name(problem.path)}: {problem.reason}")
    return 0


def run_remove(args: argparse.Namespace) -> int:
    runtime, knowledge = _open(args)
    try:
        title = knowledge.title(knowledge.resolve(args.name))
        knowledge.remove(args.name, runtime.indexer().remove)
    finally:
        runtime.close()
    say(
        f"removed collection {visible_name(title)} and its uploaded files (files in folders you added are untouched)"
    )
    return 0


def run_rename(args: argparse.Namespace) -> int:
    runtime, knowledge = _open(args)
    try:
        old = knowledge.title(knowledge.resolve(args.name))
        cid, title = knowledge.rename(args.name, args.new_name)
    finally:
        runtime.close()
    say(
        f"collection {visible_name(old)} is now named {visible_name(title)} (id {cid}; nothing was re-indexed)"
    )
    return 0


def run_unwatch(args: argparse.Namespace) -> int:
    """Take the folder out of the collection, then sync it so its files leave the index now."""
    runtime, knowledge = _open(args)
    try:
        cid, path, folders = knowledge.unwatch(args.name, args.folder)
        report = runtime.indexer().index(cid, folders, None, IndexControl())
    finally:
        runtime.close()
    say(
        f"no longer watching {visible_name(str(path))} for {visible_name(knowledge.title(cid))}; the files stay on disk"
    )
    say(summary(report))
    return 0
