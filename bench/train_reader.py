"""Train the reader (issue 68): e5-small's layers fine-tuned as a cross-encoder on ``bench.reader_data``'s pairs.

    .venv/bin/pip install -e '.[train]'          # torch (CPU wheel), only for training
    python -m bench.reader_data                  # the pairs, under bench/.reader/data
    nice -n 19 python -m bench.train_reader --bf16 [--layers 12] [--frozen-layers 0] [--steps 3000]
        [--every 200] [--minutes 110] [--eval-groups 40] [--baseline]
    python -m bench.train_reader --export        # the latest checkpoint as ONNX (fp32 and int8), timed

Measured on 2 shared cores (another job's test suite at load 6-9, issue 68's smoke run): 0.075-0.09 steps/s
of 16 pairs for all 12 layers with ``--bf16`` (autocast to bfloat16 is about twice fp32's speed on this CPU,
which has AMX); an epoch of ``bench.reader_data``'s 44,729 pairs is 2,796 steps.

Checkpoints go to ``bench/.reader/checkpoints`` (gitignored) every ``--every`` steps and when ``--minutes``
runs out; a second run with the same shape resumes from the latest one (the batches are a function of the
seed and the step, so a resumed run sees what an uninterrupted one would). Each checkpoint is measured on
the held-out pairs (a fixed sample of ``--eval-groups`` questions per source, kind and language): AUC of
answering above not answering, and accuracy@1, the share of questions whose top-scored text among their
group's (a passage's sentences; a passage, its translations and its near misses) answers. ``--baseline``
first measures e5's own cosine (``query:`` / ``passage:`` vectors) on the same sample. ``--export`` writes
the latest checkpoint as ONNX (word vectors in, one logit out: the word table stays the app's), and an int8
copy (``quantize_int8``, as the app quantizes e5), and times 24 question x sentence pairs with onnxruntime.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import math
import os
import time
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from bench.reader_model import Reader, embed, load_reader, logits
from bench.reader_sources import READER, UNSURE
from local_models.embedders.e5_embedded import e5_tokenizer_json, e5_weights
from local_models.embedders.e5_file import E5File, read_e5_file

# torch.Tensor: torch is imported only where it runs (the train extra), so bench imports without it.
Tensor = Any

Ids = npt.NDArray[np.int64]


@dataclass(frozen=True)
class Row:
    group: str
    cell: str  # source/kind/lang: the figures are read per cell
    question: str
    text: str
    label: int


def read_rows(path: Path) -> list[Row]:
    out = []
    with path.open(encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            cell = f"{r['source']}/{r['kind']}/{r['lang']}"
            out.append(Row(r["group"], cell, r["question"], r["text"], int(r["label"])))
    return out


class Encoder:
    """Pairs as XLM-R reads them: ``<s> query: Q </s></s> passage: T </s>``, the text cut to fit."""

    def __init__(self, model: E5File, max_tokens: int, max_question: int = 64) -> None:
        from tokenizers import Tokenizer

        self.tokenizer = Tokenizer.from_str(e5_tokenizer_json(model, 4096))
        self.tokenizer.no_truncation()
        self.bos, self.eos, self.pad = model.bos, model.eos, model.pad
        self.max_tokens, self.max_question = max_tokens, max_question

    def _ids(self, texts: Sequence[str]) -> list[list[int]]:
        return [e.ids for e in self.tokenizer.encode_batch(list(texts), add_special_tokens=False)]

    def pairs(self, questions: Sequence[str], texts: Sequence[str]) -> tuple[Ids, Ids]:
        qs = self._ids([f"query: {q}" for q in questions])
        ts = self._ids([f"passage: {t}" for t in texts])
        seqs = []
        for q, t in zip(qs, ts, strict=True):
            q = q[: self.max_question]
            room = self.max_tokens - len(q) - 4
            seqs.append([self.bos, *q, self.eos, self.eos, *t[:room], self.eos])
        return self._padded(seqs)

    def singles(self, texts: Sequence[str]) -> tuple[Ids, Ids]:
        return self._padded([[self.bos, *t[: self.max_tokens - 2], self.eos] for t in self._ids(texts)])

    def _padded(self, seqs: list[list[int]]) -> tuple[Ids, Ids]:
        width = max(len(s) for s in seqs)
        ids = np.full((len(seqs), width), self.pad, dtype=np.int64)
        mask = np.zeros((len(seqs), width), dtype=np.int64)
        for i, s in enumerate(seqs):
            ids[i, : len(s)] = s
            mask[i, : len(s)] = 1
        return ids, mask


def tensors(pair: tuple[Ids, Ids]) -> tuple[Tensor, Tensor]:
    import torch

    return torch.from_numpy(pair[0]), torch.from_numpy(pair[1])


def batches(rows: Sequence[Row], size: int, seed: int, epoch: int) -> list[list[int]]:
    """One epoch's batches: a seeded shuffle, pools of 32 batches sorted by length (less padding), the
    batches of each pool in a seeded order. A function of (seed, epoch) only, so a resumed run matches."""
    rng = np.random.default_rng([seed, epoch])
    order = rng.permutation(len(rows)).tolist()
    pool = 32 * size
    out: list[list[int]] = []
    for a in range(0, len(order), pool):
        part = sorted(order[a : a + pool], key=lambda i: len(rows[i].text) + len(rows[i].question))
        chunk = [part[b : b + size] for b in range(0, len(part), size)]
        out += [chunk[i] for i in rng.permutation(len(chunk)).tolist()]
    return out


def stream(rows: Sequence[Row], size: int, seed: int, start: int) -> Iterator[tuple[int, list[int]]]:
    """(step, batch) from ``start`` on, epoch after epoch."""
    per_epoch = math.ceil(len(rows) / size)
    step = start
    while True:
        epoch, at = divmod(step, per_epoch)
        for batch in batches(rows, size, seed, epoch)[at:]:
            yield step, batch
            step += 1


def sample(rows: Sequence[Row], per_cell: int) -> list[Row]:
    """The held-out rows of ``per_cell`` questions per cell, chosen by a hash of their group (fixed)."""
    groups: dict[str, set[str]] = defaultdict(set)
    for r in rows:
        groups[r.cell].add(r.group)
    keep: set[str] = set()
    for names in groups.values():
        keep |= set(sorted(names, key=lambda g: hashlib.sha256(g.encode()).hexdigest())[:per_cell])
    return [r for r in rows if r.group in keep]


def thinned(rows: Sequence[Row], shares: dict[str, str]) -> list[Row]:
    """The rows of ``shares[source]`` of each source's groups (chosen by a hash of the group: fixed)."""

    def kept(r: Row) -> bool:
        share = float(shares.get(r.cell.split("/")[0], 1.0))
        return int(hashlib.sha256(r.group.encode()).hexdigest()[:8], 16) < share * 16**8

    return [r for r in rows if kept(r)]


def auc(scores: Sequence[float], labels: Sequence[int]) -> float | None:
    pos = [s for s, y in zip(scores, labels, strict=True) if y == 1]
    neg = [s for s, y in zip(scores, labels, strict=True) if y == 0]
    if not pos or not neg:
        return None
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return round(wins / (len(pos) * len(neg)), 3)


def figures(rows: Sequence[Row], scores: Sequence[float]) -> dict[str, dict[str, Any]]:
    """Per cell: AUC, accuracy@1 over groups with an answer and a non-answer, and their counts."""
    cells: dict[str, list[tuple[Row, float]]] = defaultdict(list)
    for r, s in zip(rows, scores, strict=True):
        if r.label != UNSURE:
            cells[r.cell].append((r, s))
    out = {}
    for cell, items in sorted(cells.items()):
        by_group: dict[str, list[tuple[Row, float]]] = defaultdict(list)
        for r, s in items:
            by_group[r.group].append((r, s))
        tops = [
            max(g, key=lambda x: x[1])[0].label == 1
            for g in by_group.values()
            if {r.label for r, _ in g} == {0, 1}
        ]
        out[cell] = {
            "auc": auc([s for _, s in items], [r.label for r, _ in items]),
            "acc@1": round(sum(tops) / len(tops), 3) if tops else None,
            "groups": len(tops),
            "pairs": len(items),
        }
    return out


def score(
    reader: Reader, encoder: Encoder, rows: Sequence[Row], cosine: bool = False, bf16: bool = False
) -> list[float]:
    import torch

    out = [0.0] * len(rows)
    order = sorted(range(len(rows)), key=lambda i: len(rows[i].text))
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
        for a in range(0, len(order), 32):
            part = order[a : a + 32]
            if cosine:
                q = tensors(encoder.singles([f"query: {rows[i].question}" for i in part]))
                t = tensors(encoder.singles([f"passage: {rows[i].text}" for i in part]))
                values = (embed(reader, *q) * embed(reader, *t)).sum(-1)
            else:
                pairs = encoder.pairs([rows[i].question for i in part], [rows[i].text for i in part])
                values = logits(reader, *tensors(pairs))
            for i, v in zip(part, values.tolist(), strict=True):
                out[i] = float(v)
    return out


def save(folder: Path, step: int, reader: Reader, optimizer: Any, config: dict[str, Any]) -> Path:
    import torch

    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"step-{step:06d}.pt"
    state = {
        "step": step,
        "trained": {k: v.detach() for k, v in reader.trained_state().items()},
        "optimizer": optimizer.state_dict(),
        "config": config,
    }
    torch.save(state, path.with_suffix(".tmp"))
    os.replace(path.with_suffix(".tmp"), path)
    (folder / "latest").write_text(path.name, "utf-8")
    return path


def latest(folder: Path) -> Path | None:
    pointer = folder / "latest"
    return folder / pointer.read_text("utf-8").strip() if pointer.exists() else None


def export(reader: Reader, encoder: Encoder, rows: Sequence[Row], path: Path, threads: int) -> dict[str, Any]:
    """The reader as ONNX (word vectors, mask → logit; the word table stays outside) and the time
    onnxruntime takes for 24 question x sentence pairs of the held-out sample, word gathering included."""
    import onnxruntime as ort
    import torch

    from bench.reader_model import states

    class Graph(torch.nn.Module):
        """The weights as parameters, so that the graph holds them as initializers (int8 can read them)."""

        def __init__(self) -> None:
            super().__init__()
            self.w = torch.nn.ParameterDict(
                {
                    k.replace(".", "_"): torch.nn.Parameter(v.detach(), False)
                    for k, v in reader.weights.items()
                }
            )

        def forward(self, vectors: Tensor, mask: Tensor) -> Tensor:
            w = {k: self.w[k.replace(".", "_")] for k in reader.weights}
            first = states(dataclasses.replace(reader, weights=w), vectors, mask)[:, 0]
            return torch.nn.functional.linear(first, w["head.w"], w["head.b"]).squeeze(-1)

    ids, mask = tensors(encoder.pairs(["query"], ["text"]))
    with torch.no_grad():
        torch.onnx.export(
            Graph(),
            (reader.word[ids], mask),
            str(path),
            input_names=["vectors", "mask"],
            output_names=["logit"],
            dynamic_axes={
                "vectors": {0: "batch", 1: "seq"},
                "mask": {0: "batch", 1: "seq"},
                "logit": {0: "batch"},
            },
            opset_version=17,
            dynamo=False,
        )
    from local_models.embedders.embedded import quantize_int8

    int8 = path.with_suffix(".int8.onnx")
    quantize_int8(path, int8)
    sentences = [r for r in rows if r.cell.startswith(("quac/sentence", "debian/sentence"))][:24]
    ids_np, mask_np = encoder.pairs([r.question for r in sentences], [r.text for r in sentences])
    table = reader.word.numpy()
    with torch.no_grad():
        want = logits(reader, *tensors((ids_np, mask_np))).numpy()
    out: dict[str, Any] = {"pairs": len(sentences), "tokens": list(ids_np.shape)}
    for graph in (path, int8):
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        session = ort.InferenceSession(str(graph), options, providers=["CPUExecutionProvider"])
        times, cpu = [], []
        for _ in range(12):
            start, start_cpu = time.perf_counter(), time.process_time()
            got = session.run(None, {"vectors": table[ids_np], "mask": mask_np})[0]
            times.append(1000 * (time.perf_counter() - start))
            cpu.append(1000 * (time.process_time() - start_cpu))
        out[graph.name] = {
            "mb": round(graph.stat().st_size / 1e6, 1),
            "ms p50": round(float(np.median(times[2:])), 1),
            # CPU time over all threads: on a busy machine, a bound on the quiet wall time x threads
            "cpu ms p50": round(float(np.median(cpu[2:])), 1),
            "max |onnx - torch|": round(float(np.abs(got - want).max()), 4),
        }
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", default=str(READER / "data"))
    p.add_argument("--checkpoints", default=str(READER / "checkpoints"))
    p.add_argument("--layers", type=int, default=12, help="e5's lowest N layers (of 12)")
    p.add_argument("--frozen-layers", type=int, default=0, help="of those, the lowest N stay as e5 has them")
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--lr", type=float, default=3e-5)
    p.add_argument("--head-lr", type=float, default=1e-3)
    p.add_argument("--warmup", type=int, default=100)
    p.add_argument("--max-tokens", type=int, default=256)
    p.add_argument("--steps", type=int, default=3000, help="stop after this step")
    p.add_argument("--every", type=int, default=200, help="checkpoint and measure every N steps")
    p.add_argument("--minutes", type=float, default=110.0, help="checkpoint and stop after this wall time")
    p.add_argument("--eval-groups", type=int, default=40, help="held-out questions per source/kind/language")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--seed", type=int, default=68)
    p.add_argument(
        "--thin",
        action="append",
        default=[],
        metavar="SOURCE=SHARE",
        help="train on this share of a source's questions (by a hash of the group), e.g. boolq=0.25",
    )
    p.add_argument(
        "--bf16",
        action="store_true",
        help="matrix products in bfloat16 (autocast; fast where the CPU has AMX)",
    )
    p.add_argument("--baseline", action="store_true", help="first measure e5's cosine on the held-out sample")
    p.add_argument(
        "--export", action="store_true", help="export the latest checkpoint to ONNX, time it, stop"
    )
    args = p.parse_args()
    import torch

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    folder = Path(args.checkpoints)
    config = {k: getattr(args, k) for k in ("layers", "frozen_layers", "max_tokens", "seed", "batch")}

    model = read_e5_file(e5_weights())
    encoder = Encoder(model, args.max_tokens)
    reader = load_reader(model, args.layers, args.frozen_layers, args.seed)
    heldout = sample(read_rows(Path(args.data) / "heldout.jsonl"), args.eval_groups)
    trained = [reader.weights[n] for n in reader.trained]
    head = [reader.weights["head.w"], reader.weights["head.b"]]
    body = [reader.weights[n] for n in reader.trained if not n.startswith("head.")]
    optimizer = torch.optim.AdamW(
        [{"params": body, "lr": args.lr}, {"params": head, "lr": args.head_lr}], weight_decay=0.01
    )
    start = 0
    resumed = latest(folder)
    if resumed is not None:
        state = torch.load(resumed, weights_only=False)
        if state["config"] != config:
            raise SystemExit(
                f"{resumed} was trained with {state['config']}, not {config}: use another --checkpoints"
            )
        with torch.no_grad():
            for name, value in state["trained"].items():
                reader.weights[name].copy_(value)
        optimizer.load_state_dict(state["optimizer"])
        start = state["step"]
        print(json.dumps({"resumed": str(resumed), "step": start}), flush=True)
    if args.export:
        print(json.dumps(export(reader, encoder, heldout, folder / "reader.onnx", args.threads)), flush=True)
        return
    log = folder / "eval.jsonl"
    folder.mkdir(parents=True, exist_ok=True)

    def measure(step: int, what: str, cosine: bool = False) -> None:
        began = time.perf_counter()
        result = {
            "step": step,
            "what": what,
            "figures": figures(heldout, score(reader, encoder, heldout, cosine, args.bf16)),
        }
        result["eval seconds"] = round(time.perf_counter() - began, 1)
        with log.open("a", encoding="utf-8") as f:
            f.write(json.dumps(result) + "\n")
        print(json.dumps(result), flush=True)

    if args.baseline:
        measure(start, "e5 cosine (query:/passage:), no training", cosine=True)
    rows = read_rows(Path(args.data) / "train.jsonl")
    rows = thinned([r for r in rows if r.label in (0, 1)], dict(t.split("=") for t in args.thin))
    loss_fn = torch.nn.BCEWithLogitsLoss()
    began, losses = time.perf_counter(), []
    print(
        json.dumps({"train pairs": len(rows), "held-out pairs measured": len(heldout), "config": config}),
        flush=True,
    )
    for seen, (step, batch) in enumerate(stream(rows, args.batch, args.seed, start), start=1):
        if step >= args.steps:
            break
        warm = min(1.0, (step + 1) / args.warmup)
        for group, base in zip(optimizer.param_groups, (args.lr, args.head_lr), strict=True):
            group["lr"] = base * warm
        ids, mask = tensors(encoder.pairs([rows[i].question for i in batch], [rows[i].text for i in batch]))
        labels = torch.tensor([float(rows[i].label) for i in batch])
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=args.bf16):
            predicted = logits(reader, ids, mask)
        loss = loss_fn(predicted.float(), labels)
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(trained, 1.0)
        optimizer.step()
        losses.append(float(loss.detach()))
        elapsed = time.perf_counter() - began
        if seen % 10 == 0:
            rate = seen / elapsed
            print(
                json.dumps(
                    {
                        "step": step + 1,
                        "loss": round(sum(losses[-50:]) / len(losses[-50:]), 4),
                        "steps/s": round(rate, 3),
                        "tokens": list(ids.shape),
                    }
                ),
                flush=True,
            )
        out_of_time = elapsed > 60 * args.minutes
        if (step + 1) % args.every == 0 or out_of_time or step + 1 == args.steps:
            path = save(folder, step + 1, reader, optimizer, config)
            print(json.dumps({"checkpoint": str(path), "steps/s": round(seen / elapsed, 3)}), flush=True)
            measure(step + 1, "reader")
        if out_of_time:
            break


if __name__ == "__main__":
    main()
