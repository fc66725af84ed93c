"""Telemetry off, for this process and every process it starts (the chat model, the parser worker, OCR).

Some libraries we load report on their use unless told not to, each through a switch in the environment
that it reads once, when it loads; so ``switch_off_telemetry`` runs first in every entry point (``cli.main``,
which ``launch.py`` goes through too, and the workers), and child processes inherit the environment.
What each switch stops (found by reading the installed packages, and by tracing ``kimas`` under strace,
``tests/test_no_network.py``):

    ORT_DISABLE_TELEMETRY=1          onnxruntime (the embedder, the reranker): since 1.29 its Linux and macOS
                                     builds send usage events from native threads to
                                     mobile.events.data.microsoft.com about 10 s after a model loads, and
                                     keep a device id and a queue of events in the user's cache folder.
                                     ``onnxruntime.disable_telemetry_events()`` does not stop that; only
                                     this variable, set before the library starts, does
    HF_HUB_DISABLE_TELEMETRY=1       huggingface_hub's usage pings (Gradio's analytics and gradio_client
                                     send through them) and the details it adds to its User-Agent
    HF_HUB_DISABLE_UPDATE_CHECK=1    huggingface_hub's "new version available" query to PyPI
    GRADIO_ANALYTICS_ENABLED=False   Gradio's version check (api.gradio.app/pkg-version) and usage analytics
    DO_NOT_TRACK=1                   the shared convention (donottrack.sh), for any library that honours it

A value the user set is replaced: telemetry off wins. LanceDB, llama.cpp, fastembed, pydantic, trafilatura,
ddgs and pandas send nothing of the kind (ddgs and trafilatura only fetch what an enabled online source
asks for). ``forget_queued_telemetry`` removes what onnxruntime queued before the switch existed here (its Linux
folder; elsewhere nothing is removed unless the same folder exists).
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping, MutableMapping
from pathlib import Path
from types import MappingProxyType
from typing import Final

__all__ = [
    "TELEMETRY_OFF",
    "forget_queued_telemetry",
    "onnxruntime_queue",
    "switch_off_telemetry",
    "telemetry_status",
]

TELEMETRY_OFF: Final[Mapping[str, str]] = MappingProxyType(
    {
        "ORT_DISABLE_TELEMETRY": "1",
        "HF_HUB_DISABLE_TELEMETRY": "1",
        "HF_HUB_DISABLE_UPDATE_CHECK": "1",
        "GRADIO_ANALYTICS_ENABLED": "False",
        "DO_NOT_TRACK": "1",
    }
)


def switch_off_telemetry(environ: MutableMapping[str, str] | None = None) -> None:
    """Set every switch in ``environ`` (this process's environment, which its children inherit)."""
    (os.environ if environ is None else environ).update(TELEMETRY_OFF)


def onnxruntime_queue(environ: Mapping[str, str] | None = None) -> Path | None:
    """Where onnxruntime keeps its device id and queued events (None on Windows, where it uses ETW)."""
    env = os.environ if environ is None else environ
    if sys.platform == "win32":
        return None
    cache = env.get("XDG_CACHE_HOME") or str(Path(env.get("HOME") or Path.home()) / ".cache")
    return Path(cache) / "Microsoft" / "DeveloperTools" / ".onnxruntime"


def forget_queued_telemetry(environ: Mapping[str, str] | None = None) -> bool:
    """Delete onnxruntime's device id and unsent events; True if there was something to delete."""
    folder = onnxruntime_queue(environ)
    if folder is None or not folder.is_dir():
        return False
    shutil.rmtree(folder, ignore_errors=True)
    return True


def telemetry_status(environ: Mapping[str, str] | None = None) -> str:
    """One line for ``kimas doctor``: the switches as set, or which one is not."""
    env = os.environ if environ is None else environ
    wrong = [name for name, value in TELEMETRY_OFF.items() if env.get(name) != value]
    if wrong:
        return f"NOT switched off: {', '.join(wrong)}"
    switches = ", ".join(f"{name}={value}" for name, value in TELEMETRY_OFF.items())
    return f"off in every library that has a switch ({switches})"
