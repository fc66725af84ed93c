"""``kimas models``: the model catalog (installed or not, fits this machine or not) and ``pull NAME``;
``kimas models --local``: the models already on this computer (local servers and model folders), and
``use NAME`` to use one.

Listing the catalog never touches the network; ``--local`` and ``use`` ask the local model servers on
127.0.0.1 (``app.models.local_servers``). ``pull`` downloads only the model named, into the data dir's model
cache (``local_models.catalog.install``), with a progress line; Ctrl-C stops it and the next pull resumes.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import TextIO

from app.models.catalog import CatalogEntry, DownloadProgress, catalog, machine_ram_mb, pull, status
from app.models.local_files import FileScan, SkippedFile, SkipReason
from app.models.local_model import LocalModel
from app.models.local_search import find_local_models, pick, use_local_model
from app.models.local_servers import WELL_KNOWN_SERVERS, ServerAddress, ServerProbe, servers_of_this_computer
from app.paths import read_config, resolve_paths
from app.settings.config_store import ConfigStore
from cli.render import dumps
from cli.terminal import json_text, redraw, say
from kimas_desktop.control import CancelToken
from kimas_desktop.errors import Cancelled
from kimas_desktop.text.visible import visible_name


def add_parsers(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    p = sub.add_parser(
        "models", parents=[common], help="list the model catalog; 'models pull NAME' downloads"
    )
    p.add_argument("--catalog", help="another catalog file (default: the built-in one)")
    p.add_argument("--json", action="store_true")
    p.add_argument(
        "--local",
        action="store_true",
        help="list the models already on this computer: local servers (Ollama, LM Studio, llama.cpp, Jan, "
        "vLLM on 127.0.0.1) and model files (LM Studio, GPT4All, Jan, Ollama)",
    )
    _port_option(p)
    p.set_defaults(run=run_list)
    actions = p.add_subparsers(dest="action")
    use = actions.add_parser(
        "use", parents=[common], help="use a model found by 'kimas models --local' (writes the config)"
    )
    use.add_argument("name", help="its name (or its key, when two share a name)")
    _port_option(use)
    use.set_defaults(run=run_use)
    pull = actions.add_parser("pull", parents=[common], help="download a catalog model into the model cache")
    pull.add_argument("name")
    pull.add_argument("--catalog", help="another catalog file (default: the built-in one)")
    pull.add_argument(
        "--base-url",
        default="",
        help="serve the hub layout from here (default: HF_ENDPOINT or huggingface.co)",
    )
    pull.add_argument("--quiet", action="store_true", help="no progress line")
    pull.set_defaults(run=run_pull)


def _port_option(p: argparse.ArgumentParser) -> None:
    ports = ", ".join(f"{a.port} ({a.source})" for a in WELL_KNOWN_SERVERS)
    p.add_argument(
        "--port",
        type=int,
        action="append",
        help=f"ask a model server on this port of 127.0.0.1 instead of the well-known ones ({ports}); repeatable",
    )


SKIP_REASONS: dict[SkipReason, str] = {
    "not-a-regular-file": "not a regular file (a FIFO, device or socket): not opened",
    "unreadable": "could not be read",
    "not-gguf": "not a GGUF model file, or one cut short",
    "beyond-limits": "a GGUF header beyond sane limits (arrays nested too deep, a count or string too large)",
    "bad-manifest": "an Ollama manifest that is too big, not JSON, or not shaped like one",
    "bad-digest": "an Ollama manifest whose digest is not sha256:<hex> (it could point outside blobs/)",
    "missing-blob": "an Ollama manifest whose model blob is not in blobs/",
    "out-of-time": "not read: the scan's time budget ran out here (later files were not read either)",
}


def _probe(args: argparse.Namespace) -> ServerProbe:
    known = {a.port: a for a in servers_of_this_computer()}
    ports = args.port or []
    addresses = [known.get(p, ServerAddress("openai-compatible", p)) for p in ports] or tuple(known.values())
    return ServerProbe(addresses)


def _local_models(args: argparse.Namespace) -> list[LocalModel]:
    return find_local_models(_probe(args), FileScan())


def _shown_path(path: Path) -> str:
    """``path`` quoted, with every control character (newlines too) and undecodable byte escaped."""
    return json_text(os.fsencode(path).decode("utf-8", "backslashreplace"))


def _say_skipped(skipped: tuple[SkippedFile, ...], file: TextIO) -> None:
    if skipped:
        say(f"\nSkipped {len(skipped)} file{'s' * (len(skipped) != 1)}:", file=file)
    for s in skipped:
        say(f"  {_shown_path(s.path)}: {SKIP_REASONS[s.reason]}", file=file)


def _local_json(m: LocalModel) -> dict[str, object]:
    return {
        "name": m.name,
        "key": m.key,
        "kind": m.kind,
        "where": m.where,
        "source": m.source,
        "base_url": m.base_url or None,
        "model_id": m.model_id or None,
        "path": str(m.path) if m.path else None,
        "size_bytes": m.size_bytes or None,
        "quantization": m.quantization or None,
        "context": m.context or None,
        "fits": m.fits,
    }


def run_local(args: argparse.Namespace) -> int:
    files = FileScan().scan()
    models = _probe(args).find() + list(files.models)  # served first, as find_local_models lists them
    if args.json:
        say(dumps([_local_json(m) for m in models], indent=2))
        _say_skipped(files.skipped, sys.stderr)  # stdout stays one JSON document
        return 0
    if not models:
        say("No model found on this computer (no local model server answered, no model file was found).")
        _say_skipped(files.skipped, sys.stdout)
        return 0
    say(f"This machine: {machine_ram_mb() / 1024:.1f} GB RAM.")
    say(f"{'NAME':<40} {'KIND':<9} {'FROM':<24} {'SIZE':>9} {'QUANT':<8} {'CONTEXT':>8}  FITS")
    for m in models:
        size = f"{m.size_bytes / 1e9:.1f} GB" if m.size_bytes else "?"
        fits = {True: "yes", False: "too big", None: "?"}[m.fits]
        context = f"{m.context:,}" if m.context else "?"
        say(
            f"{visible_name(m.name):<40} {m.kind:<9} {m.holder:<24} {size:>9} {m.quantization or '?':<8} {context:>8}  {fits}"
        )
        say(f"    {visible_name(m.location)}")
    _say_skipped(files.skipped, sys.stdout)
    say("\nUse one with: kimas models use NAME")
    return 0


def run_use(args: argparse.Namespace) -> int:
    paths = resolve_paths(args.data_dir, args.config)
    model = pick(_local_models(args), args.name)
    use_local_model(ConfigStore(paths.config_file, read_config(paths)), model)
    how = f"its file, loaded in place: {model.path}" if model.path else f"{model.holder} at {model.base_url}"
    say(f"{visible_name(model.name)} ({model.kind}) is now the {model.kind} model, through {how}.")
    say(f"Saved in {paths.config_file}; it is used from the next start (a running app: reopen it).")
    if model.kind == "embedding":
        say("Then re-embed each collection: kimas reindex NAME")
    return 0


def _catalog(args: argparse.Namespace) -> list[CatalogEntry]:
    return catalog(Path(args.catalog).expanduser() if args.catalog else None)


def run_list(args: argparse.Namespace) -> int:
    if args.local:
        return run_local(args)
    paths = resolve_paths(args.data_dir, args.config)
    models_dir = paths.models_cache
    ram = machine_ram_mb()
    rows = status(paths, _catalog(args))
    if args.json:
        say(
            dumps(
                [
                    {
                        "role": r.entry.role,
                        "name": r.entry.name,
                        "title": r.entry.title,
                        "size_mb": r.entry.size_mb,
                        "ram_mb": r.entry.ram_mb,
                        "licence": r.entry.licence,
                        "source": r.entry.source,
                        "installed": str(r.installed) if r.installed else None,
                        "fits": r.fits,
                        "sha256_published": r.entry.verified or bool(r.entry.embedded),
                    }
                    for r in rows
                ],
                indent=2,
            )
        )
        return 0
    say(f"This machine: {ram / 1024:.1f} GB RAM. Model cache: {models_dir}")
    role = ""
    for r in rows:
        if r.entry.role != role:
            role = r.entry.role
            say(f"\n{role}:")
        state = "installed" if r.installed else "-"
        fits = "fits" if r.fits else "too big for this RAM"
        facts = [" ".join(x for x in (r.entry.params, r.entry.quantization) if x)]
        facts += [f"context {r.entry.context:,}"] * bool(r.entry.context)
        facts += [f"{r.entry.dim}-d"] * bool(r.entry.dim) + [r.entry.languages, r.entry.licence]
        say(
            f"  {r.entry.name:<44} {state:<9} {r.entry.size_mb:>6,} MB  needs {r.entry.ram_mb / 1024:.1f} GB "
            f"({fits})  " + ", ".join(f for f in facts if f)
        )
    say("\nDownload one with: kimas models pull NAME")
    return 0


def _mb(n: float) -> str:
    return f"{n / 1e6:,.0f} MB"


def _progress_line(p: DownloadProgress) -> None:
    total = f" of {_mb(p.total)}" if p.total else ""
    pct = f" {100 * p.fraction:5.1f}%" if p.fraction is not None else ""
    eta = f", {p.eta_s:,.0f} s left" if p.eta_s is not None and p.phase == "downloading" else ""
    speed = f", {p.bytes_per_s / 1e6:.1f} MB/s" if p.phase == "downloading" else ""
    redraw(f"{p.file}: {p.phase}{pct} {_mb(p.done)}{total}{speed}{eta}   ", sys.stderr)
    if p.phase == "done":
        say(file=sys.stderr)


def run_pull(args: argparse.Namespace) -> int:
    paths = resolve_paths(args.data_dir, args.config)
    catalog_file = Path(args.catalog).expanduser() if args.catalog else None
    token = CancelToken()
    show = None if args.quiet or not sys.stderr.isatty() else _progress_line
    try:
        result = pull(
            paths,
            args.name,
            on_progress=show,
            cancel=token,
            base_url=args.base_url,
            catalog_file=catalog_file,
        )
    except KeyboardInterrupt:
        token.cancel()
        say(f"\nkimas: download of {args.name} stopped; pull it again to resume.", file=sys.stderr)
        return 130
    except Cancelled:
        return 130
    check = "SHA-256 verified" if result.verified else "no published SHA-256: hash recorded (unverified)"
    entry = result.entry
    say(f"{entry.name}: installed at {result.path} ({check})")
    values = result.choice.as_dict()
    settings = ", ".join(f"{k} = {json.dumps(v)}" for k, v in values.items())
    say(f"To use it, set in [{result.choice.section}] of your config: {settings}")
    if entry.role == "embedding":
        say("Then re-embed each collection: kimas reindex NAME")
    return 0
