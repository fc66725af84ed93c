"""How good is it on my documents? (issue 26) The application side of evaluation: build a test set from the
collections, run it under a preset, keep both in the data dir. ``kimas eval`` and the Evaluation tab both
use this class; the generator and the run are in ``eval_questions`` and ``eval_run``.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from app.evaluation.model_questions import generate_with_model
from app.evaluation.questions import EvalQuestion, TestSet, generate
from app.evaluation.retrieval_test import RetrievalTest, inspect_retrieval
from app.evaluation.run import EvalRun, Progress, run_evaluation
from app.evaluation.store import EvalStore, EvalStoreError
from app.runtime import Runtime
from kimas_desktop.config import PRESETS, Config, load_config
from kimas_desktop.control import CancelToken

__all__ = ["DEFAULT_ANSWERS", "DEFAULT_QUESTIONS", "EvalStoreError", "Evaluation", "describe_config"]

EVAL_DIR = "evaluation"
# The default run's size, for about two minutes on a 2-core laptop with the embedded models (bench/eval_time.py
# measured the seconds a question takes: retrieval only, and answered by the chat model; 2026-11-27 on a quiet
# 2-core AMD EPYC, 0.15 s and 2.5 s: 200 + 20 answered ≈ 80 s, room for a slower laptop).
DEFAULT_QUESTIONS = 200
DEFAULT_ANSWERS = 20


def describe_config(config: Config, chat_id: str, embedder_id: str) -> dict[str, Any]:
    """What a run is compared by: saved with it."""
    return {
        "preset": config.preset,
        "chat_model": chat_id,
        "embedding_model": embedder_id,
        "chunk_tokens": config.indexer.chunk_tokens,
        "retrieval_mode": config.retrieval.mode,
        "routing": config.routing.enabled,
        "rerank_model": config.rerank.model or "fallback scorer",
    }


class Evaluation:
    def __init__(
        self, runtime: Runtime, config: Callable[[], Config], config_file: Path | None = None
    ) -> None:
        self._runtime = runtime
        self._config = config
        self._config_file = config_file
        self.store = EvalStore(runtime.paths.data_dir / EVAL_DIR)
        self._running = threading.Lock()

    def config_for(self, preset: str | None) -> Config:
        """The user's config, under another preset when one is named."""
        if not preset or preset == "configured":
            return self._config()
        if preset not in PRESETS:
            raise EvalStoreError(f"unknown preset {preset!r}; choose one of {', '.join(PRESETS)}")
        return load_config(self._config_file, preset=preset)

    def build_set(
        self,
        size: int = DEFAULT_QUESTIONS,
        collections: Sequence[str] = (),
        *,
        with_model: bool = False,
        cancel: CancelToken | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> TestSet:
        """A test set from the collections (all with chunks unless named), saved: LLM-free known-item
        questions, or (``with_model``) questions the configured chat model writes."""
        if size < 5:
            raise EvalStoreError("a test set needs at least 5 questions")
        store = self._runtime.store(self._config())
        infos = [
            c for c in store.collections() if c.chunks > 0 and (not collections or c.name in collections)
        ]
        missing = set(collections) - {c.name for c in infos}
        if missing:
            raise EvalStoreError(f"no indexed collection named {', '.join(sorted(missing))}")
        if not infos:
            raise EvalStoreError("there is nothing to test yet: add documents to a collection first")
        chunks = {c.name: store.chunks(c.name) for c in infos}
        if with_model:
            chat = self._runtime.chat(self._config())
            test_set = generate_with_model(chat, chunks, size, cancel=cancel, progress=progress)
        else:
            test_set = generate(chunks, size, progress=progress)
        if not test_set.answerable:
            raise EvalStoreError("the documents have no passage long enough to ask about")
        self.store.save_set(test_set)
        return test_set

    def add_question(self, set_id: str, question: str, source: str, answer: str = "") -> TestSet:
        """A question of the user's own, with the file that answers it (and, optionally, words the
        answer must contain), added to the test set; runs judge it by that file."""
        if not question.strip():
            raise EvalStoreError("type the question to add")
        test_set = self.store.get_set(set_id)
        store = self._runtime.store(self._config())
        path = str(Path(source).expanduser().resolve())
        owner = next((c.name for c in store.collections() if path in store.manifest(c.name)), None)
        if owner is None:
            raise EvalStoreError(f"{source} is not an indexed file of any collection")
        added = EvalQuestion(
            f"user{sum(q.origin == 'user' for q in test_set.questions) + 1}",
            question.strip(),
            True,
            owner,
            path,
            answer=answer.strip(),
            origin="user",
        )
        updated = replace(test_set, questions=(*test_set.questions, added))
        self.store.save_set(updated)
        return updated

    def inspect(self, question: str, preset: str | None = None) -> RetrievalTest:
        """Retrieval testing: each passage's score in every stage for ``question`` (reads only)."""
        if not question.strip():
            raise EvalStoreError("type a question to test retrieval with")
        config = self.config_for(preset)
        pipeline = self._runtime.own_pipeline(config)
        try:
            return inspect_retrieval(
                pipeline, self._runtime.store(config), self._runtime.embedder(config), question
            )
        finally:
            pipeline.close()

    def latest_set(self) -> TestSet | None:
        sets = self.store.sets()
        return sets[0] if sets else None

    def run(
        self,
        set_id: str,
        preset: str | None = None,
        *,
        answers: int = DEFAULT_ANSWERS,
        k: int = 5,
        cancel: CancelToken | None = None,
        progress: Progress | None = None,
    ) -> EvalRun:
        """Run the test set under ``preset`` (the configured settings when None); one run at a time."""
        test_set = self.store.get_set(set_id)
        config = self.config_for(preset)
        if not self._running.acquire(blocking=False):
            raise EvalStoreError("an evaluation is already running; wait for it or stop it")
        pipeline = None
        try:
            # Its own pipeline, so a question asked in the chat meanwhile neither ends the run nor is
            # ended by it (the runtime holds one pipeline: the chat's).
            pipeline = self._runtime.own_pipeline(config)
            chat_id = self._runtime.chat(config).model_id
            embedder_id = self._runtime.embedder(config).model_id
            label = f"{config.preset} · {Path(chat_id).name}"
            run = EvalRun(
                uuid.uuid4().hex[:12],
                set_id,
                label,
                describe_config(config, chat_id, embedder_id),
                time.time(),
                k=k,
            )
            self.store.start_run(run)
            return run_evaluation(
                pipeline,
                test_set,
                run,
                answers=answers,
                cancel=cancel,
                progress=progress,
                save=self.store.save_run,
            )
        finally:
            if pipeline is not None:
                pipeline.close()
            self._running.release()
