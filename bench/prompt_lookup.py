"""Prompt-lookup (n-gram) speculative decoding on grounded answers: generation speed with and without it.

    nice -n 5 .venv/bin/python -m bench.prompt_lookup [--questions 20] [--articles 60] [--models embedded bigger]

1. The answer prompts of a dev-kit run: ``--questions`` SQuAD-Shifts (new_wiki) questions asked through
   ``Pipeline.ask`` with the default config and the embedded models, over the first ``--articles``
   articles of that domain (the questions come from them); a chat model wrapper records the messages of
   every answer (``stream``) call. ``--no-llm-steps`` (quicker on a busy machine): the answer stage's own
   ``answer_messages`` over the top 4 hits of ``Pipeline.retrieve``, without the LLM steps before it.
2. Each prompt replayed to two workers of one model, ``chat.prompt_lookup`` "off" and "on", turn about
   (the order alternates), each with its prompt cache cleared first so both pay for the whole prompt, at
   temperature 0 with the answer's token limit: time to first token, generation tokens/s (tokens after
   the first over the time after the first), and whether both wrote the same text (greedy decoding with
   a draft must not change it).

``embedded`` is SmolLM2-135M-Instruct; ``bigger`` the Qwen2.5-Coder-0.5B-Instruct GGUF of
bench/bigger_model.py. Prints a JSON report: medians, p90 and the median of paired ratios (on / off).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import time
from collections.abc import Generator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from app.paths import resolve_paths
from app.runtime import Runtime, real_builders
from bench.devkit import squad_questions, write_squad
from bench.machine import cpu_model
from bench.workspace import link_subset
from kimas_desktop.answer.writing.summarizer import answer_messages
from kimas_desktop.config import ChatModelConfig, CollectionConfig, load_config
from kimas_desktop.protocols import ChatModel
from kimas_desktop.types import Message
from local_models.llama.chat import LlamaChatModel

ROOT = Path(__file__).resolve().parents[1]

DOMAIN = "squadshifts_new_wiki"
SOURCES = 4  # sources in a prompt built with --no-llm-steps


class RecordingChat:
    """A ``ChatModel`` that passes every call through and keeps the messages of each answer stream."""

    def __init__(self, inner: ChatModel) -> None:
        self.inner = inner
        self.answers: list[list[Message]] = []

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    @property
    def context_size(self) -> int:
        return self.inner.context_size

    def warm_up(self) -> None:
        self.inner.warm_up()

    def close(self) -> None:
        self.inner.close()

    def complete(self, messages: Sequence[Message], **kwargs: Any) -> str:
        return self.inner.complete(messages, **kwargs)

    def stream(self, messages: Sequence[Message], **kwargs: Any) -> Generator[str, None, None]:
        self.answers.append(list(messages))
        yield from self.inner.stream(messages, **kwargs)

    def count_tokens(self, text: str) -> int:
        return self.inner.count_tokens(text)


def record_prompts(
    cache: Path, n_questions: int, n_articles: int, llm_steps: bool = True
) -> tuple[list[list[Message]], int]:
    docs = cache / "docs"
    where = write_squad(DOMAIN, docs)
    kept = sorted(set(where.values()))[:n_articles]
    folder = cache / "subset"
    shutil.rmtree(folder, ignore_errors=True)
    link_subset(docs, kept, folder)
    where = {pid: f"{docs.name}-{file}" for pid, file in where.items() if file in kept}
    questions = squad_questions(DOMAIN, where, 10**6)[:n_questions]
    data = cache / "data"
    paths = resolve_paths(str(data), None)
    config = load_config(paths.config_file).updated(
        collections={"wiki": CollectionConfig(folders=[str(folder)]).model_dump()}
    )
    recorders: list[RecordingChat] = []

    def chat(cfg: ChatModelConfig) -> ChatModel:
        recorder = RecordingChat(real_builders().chat(cfg))
        recorders.append(recorder)
        return recorder

    runtime = Runtime(paths, config, replace(real_builders(), chat=chat))
    runtime.indexer().index("wiki", [folder])
    built: list[list[Message]] = []
    for q in questions:
        if llm_steps:
            for _event in runtime.pipeline().ask(q.text):
                pass
        else:  # the answer stage's own prompt over the retrieved evidence, without the LLM steps before it
            hits = runtime.pipeline().retrieve(q.text).hits[:SOURCES]
            built.append(answer_messages(q.text, hits, []))
    runtime.close()
    prompts = [m for r in recorders for m in r.answers] + built
    return prompts, config.summarizer.max_answer_tokens


def _run(model: LlamaChatModel, messages: list[Message], max_tokens: int) -> dict[str, Any]:
    model.clear_cache()
    start = time.perf_counter()
    first = last = 0.0
    parts: list[str] = []
    for delta in model.stream(messages, max_tokens=max_tokens, temperature=0.0):
        last = time.perf_counter() - start
        if not parts:
            first = last
        parts.append(delta)
    text = "".join(parts)
    tokens = model.count_tokens(text) if text else 0
    gen_tps = (tokens - 1) / (last - first) if tokens > 1 and last > first else None
    return {"first_s": first, "total_s": last, "tokens": tokens, "gen_tps": gen_tps, "text": text}


def _p90(values: Sequence[float]) -> float:
    return sorted(values)[max(0, round(0.9 * len(values)) - 1)]


def compare(path: str, prompts: list[list[Message]], max_tokens: int, threads: int) -> dict[str, Any]:
    models = {
        mode: LlamaChatModel(ChatModelConfig(path=path, n_threads=threads, prompt_lookup=mode))
        for mode in ("off", "on")
    }
    for model in models.values():
        model.warm_up()
    runs: dict[str, list[dict[str, Any]]] = {"off": [], "on": []}
    for turn, messages in enumerate(prompts):
        for mode in ("off", "on") if turn % 2 == 0 else ("on", "off"):
            runs[mode].append(_run(models[mode], messages, max_tokens))
    drafted = models["on"].stats().get("prompt_lookup_tokens", 0)
    rss = {mode: models[mode].stats()["rss_bytes"] // 2**20 for mode in models}
    for model in models.values():
        model.close()
    pairs = [(a, b) for a, b in zip(runs["off"], runs["on"], strict=True) if a["gen_tps"] and b["gen_tps"]]
    out: dict[str, Any] = {"model": Path(path).name, "answers": len(prompts), "drafted_tokens": drafted}
    for mode in ("off", "on"):
        tps = [r["gen_tps"] for r in runs[mode] if r["gen_tps"]]
        out[mode] = {
            "gen_tps_median": round(statistics.median(tps), 1),
            "gen_tps_p90": round(_p90(tps), 1),
            "first_token_s_median": round(statistics.median(r["first_s"] for r in runs[mode]), 2),
            "total_s_median": round(statistics.median(r["total_s"] for r in runs[mode]), 2),
            "tokens_median": statistics.median(r["tokens"] for r in runs[mode]),
            "worker_rss_mb": rss[mode],
        }
    out["gen_ratio_median"] = round(statistics.median(b["gen_tps"] / a["gen_tps"] for a, b in pairs), 3)
    out["first_token_ratio_median"] = round(
        statistics.median(b["first_s"] / a["first_s"] for a, b in zip(runs["off"], runs["on"], strict=True)),
        3,
    )
    out["total_ratio_median"] = round(
        statistics.median(b["total_s"] / a["total_s"] for a, b in zip(runs["off"], runs["on"], strict=True)),
        3,
    )
    out["same_text"] = sum(a["text"] == b["text"] for a, b in zip(runs["off"], runs["on"], strict=True))
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--questions", type=int, default=20)
    p.add_argument("--articles", type=int, default=60)
    p.add_argument("--models", nargs="+", choices=["embedded", "bigger"], default=["embedded", "bigger"])
    p.add_argument("--threads", type=int, default=2)
    p.add_argument(
        "--no-llm-steps",
        dest="llm_steps",
        action="store_false",
        help="build each answer prompt from Pipeline.retrieve's top hits (no LLM call before the answer)",
    )
    p.add_argument("--prompts", type=Path, help="reuse recorded prompts (JSON) instead of recording them")
    p.add_argument("--cache", type=Path, default=ROOT / "bench" / ".cache" / "prompt_lookup")
    args = p.parse_args()
    if args.prompts:
        saved = json.loads(args.prompts.read_text("utf-8"))
        prompts = [[Message(m["role"], m["content"]) for m in msgs] for msgs in saved["prompts"]]
        max_tokens = int(saved["max_tokens"])
    else:
        prompts, max_tokens = record_prompts(args.cache, args.questions, args.articles, args.llm_steps)
        saved_prompts: Mapping[str, Any] = {
            "max_tokens": max_tokens,
            "prompts": [[{"role": m.role, "content": m.content} for m in msgs] for msgs in prompts],
        }
        (args.cache / "prompts.json").write_text(json.dumps(saved_prompts), "utf-8")
    print(f"{len(prompts)} answer prompts, max_tokens {max_tokens}", file=sys.stderr)
    report: dict[str, Any] = {"cpu": cpu_model(), "threads": args.threads}
    for which in args.models:
        if which == "embedded":
            from local_models.embedders.embedded import smollm2_path

            path = str(smollm2_path())
        else:
            from bench.bigger_model import bigger_model

            path = str(bigger_model())
        report[which] = compare(path, prompts, max_tokens, args.threads)
        print(json.dumps(report[which]), file=sys.stderr)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
