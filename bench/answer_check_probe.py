"""Probe (issue 12): the chat model's boolean answerability check against an extract-and-verify one, on
the evidence of a cached `bench/answers.py` batch (no retrieval is run again).

    .venv/bin/python -m bench.answer_check_probe ask-squad-full-bigger-new-c0709f0-20.json \
        --answerable 12 --unanswerable 8

Boolean: the check the product asked first ("Do the sources above state the answer?"). Extract-and-verify:
the product's ``AnswerCheck`` since: the model copies the words that answer (JSON ``{"answer": "..."}``,
empty when none), and the answer counts only when those words are in a source and add a content word the
question does not have.
The chat model is the bigger benchmark GGUF (bench/bigger_model.py), or with ``--model embedded`` the
embedded SmolLM2-135M.
"""

from __future__ import annotations

import argparse
import json
import sys
from functools import partial
from pathlib import Path
from typing import Any

from bench.bigger_model import bigger_model
from bench.grounding import hits_of
from bench.workspace import prepare_squad
from kimas_desktop.answer.signals.verify import AnswerCheck
from kimas_desktop.answer.writing.summarizer import SYSTEM, sources_block
from kimas_desktop.config import ChatModelConfig
from kimas_desktop.optional import optional
from kimas_desktop.protocols import ChatModel
from kimas_desktop.structured import ask_json
from kimas_desktop.types import Hit, Message
from local_models import build_chat_model

ROOT = Path(__file__).resolve().parents[1]

BOOLEAN_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"answerable": {"type": "boolean"}},
    "required": ["answerable"],
}


def boolean_check(chat: ChatModel, question: str, hits: list[Hit]) -> bool:
    """The check the product asked before extract-and-verify replaced it."""
    body = (
        f"{sources_block(hits)}\n\nQuestion: {question}\n\n"
        "Do the sources above state the answer to this question? Answer true only if a source states it; "
        'a source on the same topic that does not state it means false. Reply as JSON: {"answerable": '
        "true|false}"
    )
    messages = [Message("system", SYSTEM), Message("user", body)]
    return bool(ask_json(chat, messages, BOOLEAN_SCHEMA, lambda d: d["answerable"], max_tokens=12))


def failed(reason: str) -> None:
    print("judgement failed:", reason[:120], file=sys.stderr)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("batch", help="a file name in bench/.cache/answers/")
    p.add_argument("--answerable", type=int, default=12)
    p.add_argument("--unanswerable", type=int, default=8)
    p.add_argument("--model", choices=["bigger", "embedded"], default="bigger")
    args = p.parse_args()
    cache = ROOT / "bench" / ".cache" / "answers"
    _, answerable, unanswerable = prepare_squad(cache, 300, 100)
    results = json.loads((cache / args.batch).read_text())[0]
    path = str(bigger_model()) if args.model == "bigger" else ""  # "": the embedded default
    chat = build_chat_model(ChatModelConfig(path=path, prompt_cache_mb=256))
    report: dict[str, dict[str, int]] = {}
    for label, questions in (
        ("answerable", answerable[: args.answerable]),
        ("unanswerable", unanswerable[: args.unanswerable]),
    ):
        counts = {"questions": 0, "boolean_says_answerable": 0, "extract_verified": 0, "failed": 0}
        for q in questions:
            evidence = results[q.qid]["trace"]["evidence"]
            if not evidence:
                continue
            hits = hits_of({"hits": evidence})  # evidence entries carry the fields of `retrieve`'s hits
            said = optional("boolean check", partial(boolean_check, chat, q.text, hits), failed)
            verdict = optional("extract", partial(AnswerCheck(chat).judge, q.text, hits), failed)
            # A failed judgement lets the answer go ahead in the product: it counts as "answerable".
            ok, words = (True, "(failed)") if verdict is None else (verdict.answerable, verdict.words)
            counts["failed"] += (said is None) + (verdict is None)
            said = True if said is None else said
            counts["questions"] += 1
            counts["boolean_says_answerable"] += said
            counts["extract_verified"] += ok
            print(label, "boolean", said, "extract", ok, "|", words[:80], file=sys.stderr, flush=True)
        report[label] = counts
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
