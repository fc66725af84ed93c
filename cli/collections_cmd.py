"""``kimas index``, ``kimas collections`` and ``kimas remove-collection``: managing collections."""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any, TextIO

import launch
from kimas_desktop.config import CollectionConfig, Config, save_config
from kimas_desktop.errors import CollectionNotFoundError
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


def _with_folder(config: Config, name: str, folder: Path) -> Config:
    collections = {n: c.model_dump() for n, c in config.collections.items()}
    entry = collections.setdefault(name, CollectionConfig().model_dump())
    if str(folder) not in entry["folders"]:
        entry["folders"] = [*entry["folders"], str(folder)]
    return config.updated(collections=collections)


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
        name = Path(p.current_file).name if p.current_file else ""
        line = (
            f"\r[{'#' * filled}{'-' * (width - filled)}] {p.files_done}/{p.files_total} files "
            f"{p.chunks_done} chunks {p.chunks_per_s:5.1f}/s eta {_duration(p.eta_s):>6} {name[:32]:<32}"
        )
        self._out.write(line)
        self._out.flush()
        self._drawn = True
        if p.finished:
            self._out.write("\n")
            self._drawn = False


def summary(report: IndexReport) -> str:
    lines = [
        f"collection {report.collection}: {report.indexed} files indexed, {report.unchanged} unchanged, "
        f"{report.deleted} removed, {report.skipped} skipped, {report.failed} failed; "
        f"{report.chunks_added} chunks added in {report.seconds:.1f} s"
    ]
    for problem in report.problems:
        lines.append(f"  {problem.kind}: {problem.path}: {problem.reason}")
    return "\n".join(lines)


def run_index(args: argparse.Namespace) -> int:
    folder = Path(args.path).expanduser().resolve()
    if not folder.is_dir():
        print(f"kimas: {folder} is not a folder", file=sys.stderr)
        return 2
    paths = launch.resolve_paths(args.data_dir, args.config)
    name = args.collection or folder.name
    config = _with_folder(launch.read_config(paths), name, folder)
    save_config(config, paths.config_file)
    services = launch.Services(paths, config)
    folders = [Path(f) for f in config.collection(name).folders]
    progress = None if args.quiet or not sys.stderr.isatty() else ProgressBar()
    report: IndexReport = services.indexer.index(name, folders, on_progress=progress)
    print(summary(report))
    return 0


def _info_json(info: CollectionInfo) -> dict[str, Any]:
    data = asdict(info)
    data["folders"] = list(info.folders)
    data["problems"] = [asdict(p) for p in info.problems]
    return data


def _not_indexed(name: str, config: Config) -> CollectionInfo:
    return CollectionInfo(name, tuple(config.collection(name).folders), "", 0, 0, 0, None)


def run_collections(args: argparse.Namespace) -> int:
    paths = launch.resolve_paths(args.data_dir, args.config)
    config = launch.read_config(paths)
    services = launch.Services(paths, config)
    infos: list[CollectionInfo] = services.store.collections()
    known = {i.name for i in infos}
    infos += [_not_indexed(n, config) for n in sorted(config.collections) if n not in known]
    if args.json:
        print(json.dumps([_info_json(i) for i in infos], indent=2, ensure_ascii=False))
        return 0
    if not infos:
        print("no collections yet: add one with `kimas index PATH`")
        return 0
    for info in infos:
        when = (
            time.strftime("%Y-%m-%d %H:%M", time.localtime(info.updated_at))
            if info.updated_at
            else "never indexed"
        )
        model = f"{info.embedding_model} ({info.dim}-d)" if info.embedding_model else "-"
        print(f"{info.name}: {info.files} files, {info.chunks} chunks, model {model}, last update {when}")
        for folder in info.folders:
            print(f"  folder: {folder}")
        for problem in info.problems:
            print(f"  {problem.kind}: {problem.path}: {problem.reason}")
    return 0


def run_remove(args: argparse.Namespace) -> int:
    paths = launch.resolve_paths(args.data_dir, args.config)
    config = launch.read_config(paths)
    services = launch.Services(paths, config)
    in_config = args.name in config.collections
    try:
        services.store.remove_collection(args.name)
    except CollectionNotFoundError:
        if not in_config:
            raise
    if in_config:
        collections = {n: c.model_dump() for n, c in config.collections.items() if n != args.name}
        save_config(config.updated(collections=collections), paths.config_file)
    print(f"removed collection {args.name} (its files are untouched)")
    return 0
