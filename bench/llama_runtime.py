"""The chat model runtime: the llama.cpp build, the worker process boundary and the prompt cache.

    .venv/bin/python -m bench.llama_runtime build --python /tmp/venv-native/bin/python --python .venv/bin/python
    .venv/bin/python -m bench.llama_runtime boundary
    .venv/bin/python -m bench.llama_runtime cache [--sizes 64 0]

``build``: the embedded SmolLM2-135M loaded in-process by each interpreter's llama-cpp-python (say, a
default ``-march=native`` build next to ours), runs alternating, medians of ``--runs``: prompt tokens/s
on a ~1,000-token prompt, time to first token of a ~300-token chat prompt, generation tokens/s.
``boundary``: the same calls in-process and through ``LlamaChatModel``'s worker process: per call
(a token count; a one-token completion of a cached prompt) and per streamed token.
``cache``: the look-back citation step after an answer, with the default prompt cache and without one,
and the worker's RSS after 20 different answer prompts with each cache size.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import time
from typing import Any

from bench.machine import cpu_model
from kimas_desktop.config import ChatModelConfig
from kimas_desktop.types import Message
from local_models.embedders.embedded import smollm2_path
from local_models.llama.chat import LlamaChatModel

SOURCE = (
    "The lighthouse at Cape Verran was built in 1872 from granite quarried nearby. Its keeper, "
    "Ada Lint, kept a log of every ship that passed, and the log is now in the town museum. "
)
LONG_PROMPT = SOURCE * 30  # about 1,000 tokens
CHAT_PROMPT = [
    Message("system", "You answer briefly using only the sources."),
    Message("user", "Sources:\n" + SOURCE * 8 + "\nQuestion: Who kept the log?\nAnswer:"),
]

# Runs in each interpreter under test: in-process llama.cpp, no cache, the settings the product uses.
_CHILD = r"""
import json, sys, time, inspect, llama_cpp
path, runs = sys.argv[1], int(sys.argv[2])
long_prompt, chat = json.loads(sys.stdin.read())
kw = {"n_ctx": 4096, "n_threads": 2, "seed": 0, "verbose": False}
if "flash_attn" in inspect.signature(llama_cpp.Llama.__init__).parameters:
    kw["flash_attn"] = True
llm = llama_cpp.Llama(model_path=path, **kw)
tokens = llm.tokenize(long_prompt.encode(), add_bos=True)
out = {"system_info": llama_cpp.llama_print_system_info().decode(), "prompt_tokens": len(tokens),
       "prompt_tps": [], "ttft_s": [], "gen_tps": []}
for _ in range(runs):
    llm.reset(); t = time.perf_counter(); llm.eval(tokens); out["prompt_tps"].append(len(tokens) / (time.perf_counter() - t))
    llm.reset(); t = time.perf_counter(); first = None; n = 0
    for chunk in llm.create_chat_completion(messages=chat, max_tokens=64, temperature=0, stream=True):
        if chunk["choices"][0]["delta"].get("content"):
            n += 1
            first = first or time.perf_counter()
    end = time.perf_counter()
    out["ttft_s"].append(first - t)
    out["gen_tps"].append((n - 1) / (end - first) if n > 1 else 0.0)
print(json.dumps(out))
"""


def med(values: list[float]) -> float:
    return statistics.median(values)


def build(args: argparse.Namespace) -> None:
    chat = [{"role": m.role, "content": m.content} for m in CHAT_PROMPT]
    payload = json.dumps([LONG_PROMPT, chat])
    results: dict[str, dict[str, Any]] = {
        p: {"prompt_tps": [], "ttft_s": [], "gen_tps": []} for p in args.python
    }
    for _ in range(args.rounds):  # alternate the builds so machine noise hits both alike
        for python in args.python:
            out = subprocess.run(
                [python, "-c", _CHILD, str(smollm2_path()), str(args.runs)],
                input=payload,
                capture_output=True,
                text=True,
                check=True,
            )
            data = json.loads(out.stdout.strip().splitlines()[-1])
            r = results[python]
            r["system_info"], r["prompt_tokens"] = data["system_info"], data["prompt_tokens"]
            for key in ("prompt_tps", "ttft_s", "gen_tps"):
                r[key] += data[key]
    print(f"CPU: {cpu_model()}")
    print(
        "| build (interpreter) | llama.cpp system info | prompt tok/s | TTFT (≈350-token chat prompt) | generation tok/s |"
    )
    print("|---|---|---|---|---|")
    for python, r in results.items():
        info = " ".join(
            p.split(":")[-1].strip()[:-4] for p in r["system_info"].split("|") if p.strip().endswith("= 1")
        )
        print(
            f"| `{python}` | {info} | {med(r['prompt_tps']):.0f} | {med(r['ttft_s']):.2f} s "
            f"| {med(r['gen_tps']):.0f} |"
        )


def boundary(args: argparse.Namespace) -> None:
    import llama_cpp

    llm = llama_cpp.Llama(
        model_path=str(smollm2_path()), n_ctx=4096, n_threads=2, seed=0, verbose=False, flash_attn=True
    )
    llm.set_cache(llama_cpp.LlamaRAMCache(capacity_bytes=256 << 20))
    worker = LlamaChatModel(ChatModelConfig(n_ctx=4096, n_threads=2))
    worker.warm_up()
    chat = [{"role": m.role, "content": m.content} for m in CHAT_PROMPT]
    text = SOURCE * 4

    def timed(fn: Any, n: int) -> float:
        times = []
        for _ in range(n):
            t = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t)
        return med(times)

    count_in = timed(lambda: len(llm.tokenize(text.encode(), add_bos=False)), 200)
    count_out = timed(lambda: worker.count_tokens(text), 200)
    llm.create_chat_completion(messages=chat, max_tokens=1, temperature=0)
    worker.complete(CHAT_PROMPT, max_tokens=1)
    one_in = timed(lambda: llm.create_chat_completion(messages=chat, max_tokens=1, temperature=0), 20)
    one_out = timed(lambda: worker.complete(CHAT_PROMPT, max_tokens=1), 20)

    def per_token_in() -> float:
        n, t = 0, time.perf_counter()
        for c in llm.create_chat_completion(messages=chat, max_tokens=128, temperature=0, stream=True):
            n += bool(c["choices"][0]["delta"].get("content"))
        return (time.perf_counter() - t) / max(n, 1)

    def per_token_out() -> float:
        n, t = 0, time.perf_counter()
        for _ in worker.stream(CHAT_PROMPT, max_tokens=128):
            n += 1
        return (time.perf_counter() - t) / max(n, 1)

    tok_in = med([per_token_in() for _ in range(args.runs)])
    tok_out = med([per_token_out() for _ in range(args.runs)])
    worker.close()
    print(f"CPU: {cpu_model()}")
    print("| call | in-process | worker process | boundary cost |")
    print("|---|---|---|---|")
    print(
        f"| count tokens (~120 tokens) | {count_in * 1e3:.3f} ms | {count_out * 1e3:.3f} ms | {(count_out - count_in) * 1e3:.3f} ms |"
    )
    print(
        f"| one-token completion, cached prompt | {one_in * 1e3:.1f} ms | {one_out * 1e3:.1f} ms | {(one_out - one_in) * 1e3:.1f} ms |"
    )
    print(
        f"| per streamed token (128 tokens, cached prompt) | {tok_in * 1e3:.2f} ms | {tok_out * 1e3:.2f} ms | {(tok_out - tok_in) * 1e3:.2f} ms |"
    )


def cache(args: argparse.Namespace) -> None:
    from kimas_desktop.answer.writing.summarizer import CITE_REQUEST, CITE_SCHEMA

    answer_prompt = CHAT_PROMPT
    rows = []
    for mb in args.sizes:
        model = LlamaChatModel(ChatModelConfig(n_ctx=4096, n_threads=2, prompt_cache_mb=mb))
        model.warm_up()
        lookback = []
        for i in range(args.runs):
            model.clear_cache()
            prompt = [answer_prompt[0], Message("user", f"({i}) " + answer_prompt[1].content)]
            answer = model.complete(prompt, max_tokens=32)
            model.complete([Message("user", "An unrelated step in between.")], max_tokens=4)
            t = time.perf_counter()
            model.complete(
                [*prompt, Message("assistant", answer), Message("user", CITE_REQUEST)],
                max_tokens=24,
                json_schema=CITE_SCHEMA,
            )
            lookback.append(time.perf_counter() - t)
        for i in range(20):
            model.complete([answer_prompt[0], Message("user", f"Source {i}: " + SOURCE * 10)], max_tokens=8)
        stats = model.stats()
        model.close()
        rows.append((mb, med(lookback), stats))
    print(f"CPU: {cpu_model()}")
    print("| prompt cache | look-back step after the answer | cache after 20 prompts | worker RSS |")
    print("|---|---|---|---|")
    for mb, t, stats in rows:
        print(
            f"| {mb} MB | {t:.2f} s | {stats['cache_states']} states, {stats['cache_bytes'] / 2**20:.0f} MB "
            f"| {stats['rss_bytes'] / 2**20:.0f} MB |"
        )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="part", required=True)
    b = sub.add_parser("build")
    b.add_argument("--python", action="append", required=True, help="an interpreter with llama_cpp")
    b.add_argument("--rounds", type=int, default=3)
    b.add_argument("--runs", type=int, default=3)
    b.set_defaults(run=build)
    for name, fn in (("boundary", boundary), ("cache", cache)):
        s = sub.add_parser(name)
        s.add_argument("--runs", type=int, default=5)
        s.set_defaults(run=fn)
        if name == "cache":
            s.add_argument("--sizes", type=int, nargs="+", default=[64, 0], help="prompt_cache_mb values")
    args = p.parse_args()
    args.run(args)


if __name__ == "__main__":
    main()
