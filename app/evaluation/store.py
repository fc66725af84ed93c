"""Test sets and evaluation runs on disk: ``<data dir>/evaluation/{sets,runs}/<id>.json``.

Each file is written whole to a temporary name and renamed over the old one, so a crash leaves the
previous version, never half a file. A run is saved while it goes (``running``) and at its end; a run
that was interrupted by a crash stays ``running`` on disk and is listed as ``interrupted``, never as
complete.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import uuid
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any

from app.evaluation.questions import EvalQuestion, TestSet
from app.evaluation.run import EvalRun, QuestionResult
from kimas_desktop.errors import KimasError

log = logging.getLogger(__name__)


class EvalStoreError(KimasError):
    """A test set or run could not be read or saved."""


def _known(cls: type, data: dict[str, Any]) -> dict[str, Any]:
    names = {f.name for f in fields(cls)}
    return {k: v for k, v in data.items() if k in names}


def set_from_json(data: dict[str, Any]) -> TestSet:
    questions = tuple(EvalQuestion(**_known(EvalQuestion, q)) for q in data.get("questions", []))
    base = _known(TestSet, {**data, "collections": tuple(data.get("collections", ()))})
    return TestSet(**{**base, "questions": questions})


def run_from_json(data: dict[str, Any]) -> EvalRun:
    results = [QuestionResult(**_known(QuestionResult, r)) for r in data.get("results", [])]
    return EvalRun(**{**_known(EvalRun, data), "results": results})


class EvalStore:
    def __init__(self, root: Path) -> None:
        self.root = root
        self._lock = threading.Lock()
        self._live: set[str] = set()  # runs of this process still going

    def _write(self, path: Path, data: dict[str, Any]) -> None:
        tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}.tmp")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
            os.replace(tmp, path)
        except OSError as err:
            tmp.unlink(missing_ok=True)
            raise EvalStoreError(f"could not save {path}: {err}") from err

    def _read_all(self, folder: str) -> list[dict[str, Any]]:
        out = []
        for path in sorted((self.root / folder).glob("*.json")):
            try:
                out.append(json.loads(path.read_text(encoding="utf-8")))
            except (OSError, ValueError) as err:
                log.warning("ignoring unreadable %s: %s", path, err)
        return out

    # -- test sets
    def save_set(self, test_set: TestSet) -> None:
        self._write(self.root / "sets" / f"{test_set.set_id}.json", asdict(test_set))

    def sets(self) -> list[TestSet]:
        """Newest first."""
        return sorted((set_from_json(d) for d in self._read_all("sets")), key=lambda s: -s.created)

    def get_set(self, set_id: str) -> TestSet:
        path = self.root / "sets" / f"{set_id}.json"
        try:
            return set_from_json(json.loads(path.read_text(encoding="utf-8")))
        except FileNotFoundError:
            raise EvalStoreError(f"there is no test set {set_id!r}") from None
        except (OSError, ValueError, TypeError) as err:
            raise EvalStoreError(f"the test set {set_id!r} cannot be read: {err}") from err

    # -- runs
    def start_run(self, run: EvalRun) -> None:
        with self._lock:
            self._live.add(run.run_id)
        self.save_run(run)

    def save_run(self, run: EvalRun) -> None:
        with self._lock:
            self._write(self.root / "runs" / f"{run.run_id}.json", asdict(run))
            if run.status != "running":
                self._live.discard(run.run_id)

    def runs(self, set_id: str | None = None) -> list[EvalRun]:
        """Oldest first; a run left ``running`` by a process that is gone reads as ``interrupted``."""
        out = []
        for d in self._read_all("runs"):
            try:
                run = run_from_json(d)
            except TypeError as err:
                log.warning("ignoring a malformed evaluation run: %s", err)
                continue
            if run.status == "running" and run.run_id not in self._live:
                run.status = "interrupted"
            if set_id is None or run.set_id == set_id:
                out.append(run)
        return sorted(out, key=lambda r: r.started)
