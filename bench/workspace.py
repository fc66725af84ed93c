"""Where a benchmark's documents and data dirs come from: a data dir whose config names the collections
(``configure``), its folders indexed by the product's own indexer (``index_folders``), the development kit's
SQuAD-Shifts hold-out and QuAC stories indexed that way (``prepare_squad``, ``prepare_quac``), folders of
files made for a measurement (``link_subset``, ``write_collection``), and the product at another git ref
for a side-by-side (``old_tree``). Shared by the benchmarks; a library, not a benchmark.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from app.paths import resolve_paths
from app.runtime import Runtime
from app.settings.config_store import save_config
from bench.devkit import SQUAD, Question, Turn, quac_turns, write_quac, write_squad_holdout
from kimas_desktop.config import CollectionConfig, load_config

ROOT = Path(__file__).resolve().parents[1]


def overrides(pairs: Sequence[str]) -> dict[str, dict[str, Any]]:
    """``section.key=value`` pairs (values parsed as JSON when they parse) as config sections."""
    sections: dict[str, dict[str, Any]] = {}
    for pair in pairs:
        key, _, raw = pair.partition("=")
        section, _, name = key.partition(".")
        try:
            value = json.loads(raw)
        except ValueError:
            value = raw
        sections.setdefault(section, {})[name] = value
    return sections


def configure(data_dir: Path, folders: dict[str, Path], **sections: Any) -> Runtime:
    """The product's runtime over ``data_dir``, its config saved with one collection per folder (and
    ``sections``: config sections to override)."""
    paths = resolve_paths(str(data_dir), None)
    config = load_config(paths.config_file).updated(
        collections={n: CollectionConfig(folders=[str(f)]).model_dump() for n, f in folders.items()},
        **sections,
    )
    save_config(config, paths.config_file)
    return Runtime(paths, config)


def index_folders(runtime: Runtime, folders: dict[str, Path]) -> float:
    """Index each folder into its collection; the seconds it took."""
    start = time.perf_counter()
    for name, folder in folders.items():
        report = runtime.indexer().index(name, [folder])
        print(
            f"  indexed {name}: {report.indexed} new/changed files, {report.chunks_added} chunks",
            file=sys.stderr,
        )
    return time.perf_counter() - start


def prepare_squad(
    cache: Path,
    n_answerable: int,
    n_unanswerable: int,
    precision: str = "",
    sections: dict[str, dict[str, Any]] | None = None,
) -> tuple[Path, list[Question], list[Question]]:
    """The four SQuAD-Shifts domains with the passages of ``n_unanswerable`` questions left out, indexed
    in ``cache / "squad"``. ``precision``: the embedded embedder's, saved in the data dir's config (the
    kept index was built with fp32, before int8 became the default); both sides of a comparison read it
    from there. ``sections``: more config overrides (``overrides``)."""
    folders = {name: cache / "docs" / name for name in SQUAD}
    answerable: list[Question] = []
    unanswerable: list[Question] = []
    for name in SQUAD:
        h = write_squad_holdout(
            name, folders[name], math.ceil(n_unanswerable / 4), math.ceil(n_answerable / 4)
        )
        answerable += h.answerable
        unanswerable += h.unanswerable
    data = cache / "squad"
    pinned = {"embedding": {"precision": precision}} if precision else {}
    runtime = configure(data, folders, **{"routing": {"top_k": 2}, **pinned, **(sections or {})})
    index_folders(runtime, folders)
    return data, answerable[:n_answerable], unanswerable[:n_unanswerable]


def prepare_quac(cache: Path, n: int, precision: str = "") -> tuple[Path, list[Turn]]:
    """The QuAC stories indexed in ``cache / "quac"``, and ``n`` follow-up turns, half of them
    CANNOTANSWER."""
    folder = cache / "docs" / "quac"
    write_quac(folder)
    data = cache / "quac"
    pinned = {"embedding": {"precision": precision}} if precision else {}
    runtime = configure(data, {"quac": folder}, **pinned)
    index_folders(runtime, {"quac": folder})
    turns = [t for t in quac_turns(600, seed=12) if t.history]
    unans = [t for t in turns if t.unanswerable][: n // 2]
    answ = [t for t in turns if not t.unanswerable][: n - len(unans)]
    return data, [*unans, *answ]


def link_subset(docs: Path, patterns: list[str], into: Path) -> int:
    """Symlinks to the subset's files in one folder (the indexer reads through them)."""
    into.mkdir(parents=True)
    count = 0
    for pattern in patterns:
        for source in sorted(docs.glob(pattern)):
            (into / f"{source.parent.name}-{source.name}").symlink_to(source)
            count += 1
    if not count:
        raise SystemExit(f"no files for {patterns} under {docs}: run ../shared/eval/fetch_documents.sh")
    return count


def write_collection(folder: Path, n: int, texts: list[str]) -> None:
    """``n`` Markdown files of three passages each, spread over 20 subfolders."""
    folder.mkdir(parents=True)
    for i in range(n):
        body = "\n\n".join(texts[(3 * i + j) % len(texts)] for j in range(3))
        (folder / f"sub{i % 20:02d}" / f"doc{i:05d}.md").parent.mkdir(exist_ok=True)
        (folder / f"sub{i % 20:02d}" / f"doc{i:05d}.md").write_text(f"# Document {i}\n\n{body}\n", "utf-8")


def old_tree(cache: Path, ref: str, prefix: str = "old") -> Path:
    """The product as it was at git ``ref`` (default HEAD), unpacked read-only with ``git archive``
    into ``cache / f"{prefix}-{ref}"`` (no change to the working tree or the repository): today's
    pipeline for the side-by-side."""
    dest = cache / f"{prefix}-{ref}"
    if not (dest / "cli" / "main.py").exists():
        dest.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref], capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", str(dest)], input=archive.stdout, check=True)
    return dest


def chat_config(cache: Path, data: Path, model: str) -> Path:
    """The data dir's config with the chat model of this run: the embedded default, or the bigger instruct
    GGUF that ../shared/MODELS.md names for benchmarks (bench/bigger_model.py)."""
    text = (data / "config.toml").read_text()
    if model == "bigger":
        from bench.bigger_model import bigger_model

        text += f'\n[chat]\npath = "{bigger_model()}"\nprompt_cache_mb = 256\n'
    dest = cache / f"config-{data.name}-{model}.toml"
    dest.write_text(text)
    return dest
