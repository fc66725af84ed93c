"""The answer policy: answer, or decline. Every rule is named here, and each signal is computed once.

The signals:
    lexical   the answerability score of the evidence (``answerability.py``): no model, every chat model
    verdict   a capable chat model's extract-and-verify check (``verify.py``), when one is loaded

The embedded path decides by the lexical score alone (rule ``lexical``). A chat model whose description
says it judges refines that decision only near the threshold, where the lexical evidence is unsure, and
only in the direction its check gives evidence for:
    rescued       the score is a little below the threshold and the model's copy verifies: answer
    doubted       the score is a little above it and the model found nothing in the sources: decline
Outside those bands the model is not even asked, so it can neither turn a clear answer into a decline
(its copies fail often, for reasons of its own) nor let a clearly unanswered question through. A copy
that does not verify for other reasons ("near", "echo", "invented") is weak evidence either way and
leaves the lexical decision as it was.

By default both bands are empty (``grounding.model_rescues_from = model_doubts_below = threshold``), so no
chat model changes a decision and none pays for a check: with the 0.5B benchmark model, the check
"verified" a copied span for 5 of 14 unanswerable questions near the threshold (rescuing would let them
through) and found nothing ("none") for 0 of 18, so neither rule would help (bench/RESULTS.md, "Answer
policy (issue 22)"). The rules stay, tested, for a model whose check measures better.
    try anyway    the user asked the model to try (Regenerate after a decline): answer
    computed      the question compares two things by a date or a number, and the evidence gives both
                  values (``compare.py``): answer, in code, with the two values and their sources. Such a
                  question names its answer (one of the two things), so the lexical score, which looks for
                  words beyond the question's, says little about it.
    table         the evidence's top passages come from a spreadsheet or CSV, and the question plans over
                  one of its tables (``answer/tables``): answer with the value computed over its rows, or,
                  when the plan selects no row (a date outside the table, a name it does not hold),
                  decline. The rows decide, not the words.
    document      the question asks what a whole document is about, and the evidence holds that
                  document's card (``retrieval/documents.py``): answer from the card. Such a question names
                  no fact, so the lexical score has nothing to look for.

Not a rule: answering from the quote a little below the threshold when it names the question's subject and
holds an answer-shaped span. On the dev kit's tune half it let through 0.08 of the unanswerable questions
for 0.013 fewer false declines (bench/support_marks.py, bench/RESULTS.md "Wrong answers (issue 45)"); such
a decline is worded so it does not call the quote silent instead (``decline_wording``).

How an answer is written (``AnswerPolicy.form``), in this order:
    declined      the decision was not to answer: "Your documents don't say …" and the closest passages;
                  when the quote is answer-shaped, "The closest passage may answer this: …" instead, so a
                  decline never calls silent the passage shown above it (``decline_wording``)
    computed      the comparison's two values, in code (``compare.py``)
    table         the value computed over a table, the query in plain words and the rows it used
    own words     a question about a document or a chapter, with a chat model that cannot judge: the
                  document's own sentences (``documents.py``), when it has some
    disagree      two files state the asked value differently (``disagree.py``: "7 days" in a note, "90
                  days" in an audit): both sentences with their files, whatever chat model is loaded,
                  so neither a model nor the quote's ranking picks one of them silently
    quote         a chat model whose description says its sentences add nothing to the quote (the
                  embedded SmolLM2-135M: the gold beyond the quote for 0 of 250 held-out questions, and
                  loops and unsupported sentences shown; bench/RESULTS.md "answer loops", issue 69): the
                  answer is the quote with its sources, and the model is not asked to write. Regenerate
                  ("try anyway") lets it write, as the user asked
    model         the summarizer writes, and the support check verifies

After the model wrote (``AnswerPolicy.sets_aside``):
    quote instead a model that cannot judge (the embedded ones) wrote nothing the support check backs,
                  there is a quote, and the user did not ask it to try anyway: the answer is the quote,
                  in the documents' own words, and says the model's text was set aside, rather than
                  showing marked sentences first
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from kimas_desktop.answer.signals.verify import Verdict
from kimas_desktop.config import GroundingConfig
from kimas_desktop.types import Answerability, Quote, SentenceSupport

__all__ = ["AnswerForm", "AnswerPolicy", "Decision", "DeclineWording"]

AnswerForm = Literal["declined", "computed", "table", "own words", "disagree", "quote", "model"]
DeclineWording = Literal["silent", "may answer"]


@dataclass(frozen=True)
class Decision:
    answer: bool
    rule: str  # "lexical", "rescued", "doubted", "try anyway", "computed", "table", "document"
    lexical: Answerability
    verdict: Verdict | None = None

    def explain(self) -> str:
        score = f"lexical answerability {self.lexical.score:.2f} (threshold {self.lexical.threshold:.2f})"
        if self.rule == "rescued":
            return f"{score}; the chat model copied the answer from a source"
        if self.rule == "doubted":
            return f"{score}; the chat model found no source that states the answer"
        if self.rule == "try anyway":
            return "you asked the model to try"
        if self.rule == "computed":
            return "the sources give both values the question compares"
        if self.rule == "table":
            if self.answer:
                return "the value was computed over the rows of a table in the sources"
            return "the table in the sources holds no row the question asks for"
        if self.rule == "document":
            return "the question is about a whole document, and its card is in the sources"
        return score


class AnswerPolicy:
    def __init__(self, config: GroundingConfig, *, judges: bool, writes: bool = True) -> None:
        self._capable = judges
        self._writes = writes
        self._judges = (judges and config.llm_check != "off") or config.llm_check == "on"
        self._decline = config.decline
        self._rescue_from = config.model_rescues_from
        self._doubt_below = config.model_doubts_below

    def asks_model(self, lexical: Answerability, *, try_anyway: bool = False) -> bool:
        """Whether the chat model's check could change the decision for this evidence."""
        if not self._judges or not self._decline or try_anyway:
            return False
        return self._rescue_from <= lexical.score < self._doubt_below

    def decide(
        self,
        lexical: Answerability,
        verdict: Verdict | None = None,
        *,
        try_anyway: bool = False,
        computed: bool = False,
        document: bool = False,
        table: bool | None = None,
    ) -> Decision:
        """``table``: True when a value was computed over a table of the evidence, False when the plan
        selected no row, None when no table was planned over."""
        if table is not None:
            return Decision(table, "table", lexical, verdict)
        if computed:
            return Decision(True, "computed", lexical, verdict)
        if document:
            return Decision(True, "document", lexical, verdict)
        if try_anyway or not self._decline:
            return Decision(True, "try anyway" if try_anyway else "lexical", lexical, verdict)
        if verdict is not None and self.asks_model(lexical):
            if not lexical.answerable and verdict.kind == "verified":
                return Decision(True, "rescued", lexical, verdict)
            if lexical.answerable and verdict.kind == "none":
                return Decision(False, "doubted", lexical, verdict)
        return Decision(lexical.answerable, "lexical", lexical, verdict)

    def model_writes(self, *, try_anyway: bool = False) -> bool:
        """Whether the chat model may write this answer: not when the quote is its answer (form ``quote``)."""
        return self._writes or try_anyway

    def form(
        self, decision: Decision, *, computed: bool, focus: bool, disagree: bool = False, quoted: bool = True
    ) -> AnswerForm:
        """How the answer is written (the module's second list). ``focus``: the question is about a whole
        document or one of its chapters; ``disagree``: the sources state the asked value differently;
        ``quoted``: there is a quote (with none, the model writes whatever its description says)."""
        if not decision.answer:
            return "declined"
        if decision.rule == "table":
            return "table"
        if computed:
            return "computed"
        if focus and not self._capable:
            return "own words"
        if disagree:
            return "disagree"
        try_anyway = decision.rule == "try anyway"
        return "model" if self.model_writes(try_anyway=try_anyway) or not quoted else "quote"

    @staticmethod
    def decline_wording(*, shaped: bool) -> DeclineWording:
        """A decline whose quote is answer-shaped must not call the documents silent."""
        return "may answer" if shaped else "silent"

    def sets_aside(
        self, decision: Decision, support: Sequence[SentenceSupport], quotes: Sequence[Quote]
    ) -> bool:
        """The rule ``quote instead``: a model that cannot judge wrote no sentence the sources back (unless
        the user asked it to try anyway: then its answer is what they asked for)."""
        if self._capable or decision.rule == "try anyway" or not quotes or not support:
            return False
        return not any(s.supported for s in support)
