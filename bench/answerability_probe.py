"""Probe (issue 12): can anything the embedded models offer decide answerability better than the product's
lexical decision? On the questions of `bench/answers.py --parts quote` (its cached `retrieved.json`).

    nice -n 19 .venv/bin/python -m bench.answerability_probe [--llm]

Per question: the product's four features (``answerability.evidence_features``), plus candidates:
- **specific overlap**: the best sentence's coverage of the question's words, each word's IDF scaled by
  the share of the retrieved hits that lack it (a topic word every hit holds counts for nothing);
- **chunk coverage**: the best single chunk's coverage of the question's words;
- **rerank gap**: the top hit's score minus the second's;
- with ``--llm``, the embedded SmolLM2-135M's question likelihood (zero-shot question generation, as in
  UPR): mean log-probability of the question's tokens after "Passage: <the best two sentences | the top
  chunk>", minus the same without a passage.
It reports each feature's AUC, and 5-fold cross-validated logistic models: AUC, and the share of the
unanswerable questions declined when the threshold lets 10 % (and 15 %) of the answerable ones be
declined, the issue's bound. Also on the answerable questions whose top 3 hits hold the answer only.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
from pathlib import Path
from typing import Any

import numpy as np

from bench.devkit import contains_answer
from bench.grounding import Grounding1, fit_logistic
from bench.workspace import prepare_squad
from kimas_desktop.config import GroundingConfig
from kimas_desktop.text.terms import coverage
from kimas_desktop.text.words import stems

ROOT = Path(__file__).resolve().parents[1]

BASE = ["sentence_overlap", "evidence_overlap", "cosine", "rerank"]


def lexical_candidates(run: dict[str, Any], weights: dict[str, float]) -> list[float]:
    hit_stems = [stems(h.chunk.text) for h in run["hits"]]
    share = {s: sum(s in h for h in hit_stems) / max(len(hit_stems), 1) for s in weights}
    specific = {s: w * (1 - share[s]) for s, w in weights.items()}
    sentences = [stems(s.sentence.text) for s in run["scored"]]
    scores = [h.score for h in run["hits"]]
    return [
        max((coverage(specific, s) for s in sentences), default=0.0),
        max((coverage(weights, h) for h in hit_stems[:3]), default=0.0),
        scores[0] - scores[1] if len(scores) > 1 else 0.0,
    ]


class QuestionLikelihood:
    """log P(question | passage) − log P(question), per token, under the embedded chat model."""

    def __init__(self) -> None:
        from llama_cpp import Llama

        from local_models.embedders.embedded import smollm2_path

        self._llm = Llama(str(smollm2_path()), n_ctx=1024, n_threads=2, logits_all=True, verbose=False)

    def _mean_logp(self, prefix: str, question: str) -> float:
        llm = self._llm
        head = llm.tokenize(prefix.encode(), add_bos=True)
        tail = llm.tokenize((" " + question).encode(), add_bos=False)
        tokens = head + tail
        llm.reset()
        llm.eval(tokens)
        logits = np.asarray(llm.scores[: len(tokens)], dtype=np.float64)
        out = []
        for i in range(len(head), len(tokens)):
            row = logits[i - 1]
            top = row.max()
            out.append(row[tokens[i]] - top - np.log(np.exp(row - top).sum()))
        return float(np.mean(out))

    def features(self, question: str, run: dict[str, Any]) -> list[float]:
        best: list[str] = []
        for s in run["scored"]:
            if s.sentence.text not in best:
                best.append(s.sentence.text)
            if len(best) == 2:
                break
        chunk = " ".join(run["hits"][0].chunk.text.split()[:160])
        ask = "\nWrite a question about this passage.\nQuestion:"
        alone = self._mean_logp("Write a question.\nQuestion:", question)
        return [
            self._mean_logp("Passage: " + " ".join(best) + ask, question) - alone,
            self._mean_logp("Passage: " + chunk + ask, question) - alone,
        ]


def auc(score: np.ndarray, y: np.ndarray) -> float:
    pos, neg = score[y == 1], score[y == 0]
    return float(np.mean(pos[:, None] > neg[None, :]) + 0.5 * np.mean(pos[:, None] == neg[None, :]))


def cross_validated(x: np.ndarray, y: np.ndarray, folds: int = 5) -> dict[str, float]:
    mu, sd = x.mean(0), x.std(0) + 1e-9
    z = (x - mu) / sd
    order = np.random.RandomState(0).permutation(len(y))
    score = np.zeros(len(y))
    for part in np.array_split(order, folds):
        train = np.setdiff1d(order, part)
        w, b = fit_logistic(z[train], y[train], steps=3000)
        score[part] = z[part] @ w + b
    out = {"auc": round(auc(score, y), 3)}
    for allowed in (0.10, 0.15):
        threshold = np.quantile(score[y == 1], allowed)
        out[f"declined_at_{int(allowed * 100)}pct_false_declines"] = round(
            float(np.mean(score[y == 0] < threshold)), 3
        )
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--llm", action="store_true", help="add the embedded chat model's question likelihood")
    p.add_argument("--cache", default=str(ROOT / "bench" / ".cache" / "answers"))
    args = p.parse_args()
    cache = Path(args.cache)
    with contextlib.redirect_stdout(io.StringIO()):
        data, answerable, unanswerable = prepare_squad(cache, 300, 100)
    retrieved = json.loads((cache / "retrieved.json").read_text())["squad"]
    grounding = Grounding1(data, GroundingConfig())
    likelihood = QuestionLikelihood() if args.llm else None
    names = [*BASE, "specific_overlap", "chunk_coverage", "rerank_gap"]
    if likelihood is not None:
        names += ["question_likelihood_sentences", "question_likelihood_chunk"]
    rows, labels, evidence_holds = [], [], []
    for label, questions in ((1, answerable), (0, unanswerable)):
        for q in questions:
            result = retrieved[q.qid]
            run = grounding.run(q.text, result)
            row = [*run["features"], *lexical_candidates(run, run["weights"])]
            if likelihood is not None:
                row += likelihood.features(q.text, run)
            rows.append(row)
            labels.append(label)
            evidence_holds.append(
                label == 0 or any(contains_answer(h.chunk.text, q.answers) for h in run["hits"][:3])
            )
    x, y, holds = np.array(rows), np.array(labels, dtype=float), np.array(evidence_holds)
    report: dict[str, Any] = {
        "questions": {"answerable": int(y.sum()), "unanswerable": int((y == 0).sum())},
        "feature_auc": {n: round(auc(x[:, i], y), 3) for i, n in enumerate(names)},
    }
    sets = {"product (4 features)": list(range(4)), "product + lexical candidates": list(range(7))}
    if likelihood is not None:
        sets["product + question likelihood"] = [0, 1, 2, 3, 7, 8]
        sets["all"] = list(range(len(names)))
    for name, cols in sets.items():
        report[name] = cross_validated(x[:, cols], y)
        report[name + ", evidence holds the answer"] = cross_validated(x[holds][:, cols], y[holds])
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
