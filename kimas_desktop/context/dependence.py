"""Does this turn need the conversation, and which part of it? (the context manager's first decision)

People change topic in a long chat all the time. Carrying the conversation into a question that does not
need it sends retrieval after the old topic (issue 23: after two turns about Kenya, a question about
Warsaw's metro found Kenya.pdf). So every turn is first labelled as TREC CAsT 2019 labels its utterances:

- ``self-contained`` (CAsT "SE"): searched as asked, no earlier turn reaches the summarizer;
- ``topic`` ("FT"): needs the topic of the conversation, i.e. the exchange that started it;
- ``previous`` ("PT"): refers to the previous exchange (and through it to the topic).

Without an LLM the decision reads four signals: a reference or ellipsis the question cannot resolve on its
own ("it", "they", "what about …", "which other …"; "the book" when the conversation spoke of a book; a
fragment with no verb, "Mother's occupation?"), the embedding
similarity between the question and each earlier message, whether the question has enough of its own to
stand alone, and, for a question close to the conversation, whether the conversation changes what it means
(``kept_meaning``): "What causes throat cancer?" means the same with the conversation's opening added to it,
"Is smoking the main cause?" does not. A self-contained question that is still on the conversation's subject
(close to it, and naming nothing the conversation has not named) keeps the subject in view:
``TurnDecision.subject`` names the exchanges whose few main terms its search keeps (the summarizer still
sees none of them). The thresholds were chosen on the tuning half of the dev kit's sets and are reported on
the held-out half (bench/topic_shift.py, bench/RESULTS.md "Conversations that change topic (issue 23)").

Chinese (issue 69): a pronoun or demonstrative (它, 其中, 该, 这个, 那 … 呢) refers back unless a name comes
before it; a word in Latin letters is a name ("RAGentA 的检索是怎么做的？" names a new subject, stands alone,
and restarts the topic, so "它的第二个阶段是什么？" after it binds to RAGentA, not to the KAG before it);
bench/chinese_followups.py measures it on conversations over the seed papers.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from kimas_desktop.context.decision import (
    FIRST_QUESTION,
    DecisionMethod,
    Dependence,
    TurnDecision,
    exchanges,
    ruled,
)
from kimas_desktop.protocols import Embedder, Vector
from kimas_desktop.text.scripts import has_unspaced
from kimas_desktop.text.words import STOPWORDS, content_words, is_name, named, stem, truncate, words
from kimas_desktop.trace import Reason
from kimas_desktop.types import Message

__all__ = [
    "FIRST_QUESTION",
    "KEEPS_MEANING",
    "LONG_WORD",
    "OPENING_ANSWER",
    "RELATED_SIMILARITY",
    "RESOLVING_WORDS",
    "SAME_SUBJECT",
    "SUBJECT_WORDS",
    "SUBJECT_WORDS_UNSPACED",
    "DecisionMethod",
    "Dependence",
    "TurnDecision",
    "TurnDependence",
    "exchanges",
    "fragment",
    "names_its_subject",
    "names_something_new",
    "opening",
    "refers_by_description",
    "too_vague",
    "unresolved_reference",
]

# Words that point outside the question; a name before them resolves them inside it ("When did Tsar
# Nicholas II give up his throne?"), and so do two of the question's own content words ("What is
# frictional unemployment and why is it important?"). "that"/"those" right after a content word are
# relative pronouns ("crystals that fall"); "former"/"latter" before a content word are adjectives
# ("former Governor Mitt Romney"); "one" and "same" are left out ("one of the …", "same-sex marriage").
# "other", "another" and "else" set what they ask against something already said ("Which other
# personality is in the article?"), unless beside "each", "one" or "than" ("each other", "other than").
_REFERENCES = frozenset(
    "it its it's they them their theirs he him his she her hers this these that those there ones former"
    " latter other another else".split()
)
_CONTRASTS = frozenset(["other", "another", "else"])
_SAYS_ITS_OWN = frozenset(["each", "one", "than"])
_ADJECTIVES = frozenset(["former", "latter"])
RESOLVING_WORDS = 2  # content words before a reference that say what it refers to
# The same in Chinese: pronouns and demonstratives ("它的第二个阶段是什么？", "该框架", "这个方法", "其中",
# "前者"), and "那 … 呢" ("那它的忠实度呢？", what about). Only a name before one resolves it inside the
# question ("RAGentA 和它的基线"): Chinese content words before a pronoun rarely say what it is.
_REFERENCES_ZH = frozenset(
    "它 它的 它们 其 其中 该 此 这 这个 这种 这些 这里 那 那个 那些 那种 上述 前者 后者 他 她 他们 她们".split()
)
_ELLIPSIS_ZH = ("那", "呢")  # a question that starts with the one or ends with the other
_DEMONSTRATIVES = frozenset(["that", "those"])
_DETERMINERS = frozenset(["this", "these", "that", "those"])
_THERE_IS = frozenset("is are was were be".split())
_ELLIPSIS = ("and ", "but ", "so ", "also ", "what about", "how about", "what else", "anything else", "then ")
_QUESTION_WORDS = frozenset("what who whom whose which when where why how".split())
_AUXILIARIES = frozenset(
    "am is are was were be been do does did can could will would should shall may might must has have had".split()
)
_INSTRUCTIONS = frozenset("tell explain describe give show find list name compare define".split())
_RESOLVES = frozenset("of that who which whose".split())  # what follows a noun to say which one it is

RELATED_SIMILARITY = 0.2  # a question this close to an earlier message is about the conversation
SAME_SUBJECT = 0.2  # a self-contained question this close to an earlier message is on its subject
SUBJECT_WORDS = 3  # content words a named question needs to stand alone
# In Chinese, a name and one word of its own ("RAGentA 的检索是怎么做的？"): a Chinese word carries more
# than an English one, and the name is written in another script (tuning half of
# bench/chinese_followups.json; issue 69).
SUBJECT_WORDS_UNSPACED = 2
LONG_WORD = 10  # a word this long is rare enough to carry a question alone ("disenclavement")
# A question about the conversation stands alone when the conversation's opening, added to it, leaves its
# meaning where it was: the similarity of its embedding with and without the opening is at least this.
KEEPS_MEANING = 0.84
# Characters of the opening's answer that go with an opening question that does not name its subject
# ("What happened in 1983?"); with them, QuAC follow-ups kept their recall (tuning half).
OPENING_ANSWER = 200


def unresolved_reference(question: str) -> str | None:
    """The word that makes ``question`` point back at the conversation, if any."""
    low = question.strip().lower()
    for lead in _ELLIPSIS:
        if low.startswith(lead):
            return lead.strip()
    tokens = words(question)
    if has_unspaced(question):
        return _chinese_reference(tokens, set(named(question)))
    own = 0  # the question's content words so far
    for i, w in enumerate(tokens):
        lw = w.lower()
        if lw not in _REFERENCES:
            own += lw not in STOPWORDS and lw not in _QUESTION_WORDS and len(lw) > 1
            continue
        near = {tokens[j].lower() for j in (i - 1, i + 1) if 0 <= j < len(tokens)}
        if lw == "there" and near & _THERE_IS:
            continue  # "are there", "there is": existential, not a place
        if lw in _CONTRASTS and near & _SAYS_ITS_OWN:
            continue  # "each other", "one another", "other than …"
        # "… start it?", "… that year?": at the very end, nothing in the question resolves it
        at_end = i == len(tokens) - 1 or (lw in _DETERMINERS and i == len(tokens) - 2)
        if at_end:
            return w
        if lw in _ADJECTIVES and tokens[i + 1].lower() not in STOPWORDS:
            continue  # "former Governor Mitt Romney"
        if lw in _DEMONSTRATIVES and i > 0 and tokens[i - 1].lower() not in STOPWORDS:
            continue  # "crystals that fall": a relative pronoun after its noun
        if own >= RESOLVING_WORDS or any(is_name(x, j) or _acronym(x) for j, x in enumerate(tokens[:i])):
            continue  # resolved inside the question ("When did Nicholas II give up his throne?")
        return w
    return None


def _chinese_reference(tokens: Sequence[str], names: set[str]) -> str | None:
    """The pronoun, demonstrative or "那 … 呢" of a Chinese question that no name before it resolves."""
    if tokens and (tokens[0] in _ELLIPSIS_ZH[:1] or tokens[-1] in _ELLIPSIS_ZH[1:]) and not names:
        return tokens[0] if tokens[0] in _ELLIPSIS_ZH[:1] else tokens[-1]
    for i, w in enumerate(tokens):
        if w in _REFERENCES_ZH and not any(t in names for t in tokens[:i]):
            return w
    return None


def fragment(question: str) -> bool:
    """A question with no verb to carry it, which leans on what was said before ("Mother's occupation?",
    "Date of publication?"): it asks ("?") with no question word, no auxiliary and no instruction."""
    tokens = [w.lower().replace("\u2019", "'") for w in words(question)]
    if not tokens or not question.rstrip().endswith("?") or tokens[0] in _INSTRUCTIONS:
        return False
    verbs = _QUESTION_WORDS | _AUXILIARIES  # "what's" counts as "what"; "wasn't" as an auxiliary
    return not any(t.split("'")[0] in verbs or t.endswith("n't") for t in tokens)


def refers_by_description(question: str, history: Sequence[Message]) -> str | None:
    """A one-word definite description the conversation has used ("the book" in "Is Tom Sawyer in the
    book?" after a question about a novel), unless what follows it says which one ("the book of …",
    "the movie Jaws", "the actor that plays …")."""
    tokens = words(question)
    said: set[str] | None = None
    for i, w in enumerate(tokens[:-1]):
        noun = tokens[i + 1]
        after = tokens[i + 2] if i + 2 < len(tokens) else ""
        if w.lower() != "the" or noun.lower() in STOPWORDS or not noun[0].islower():
            continue
        if after and (after.lower() not in STOPWORDS or after.lower() in _RESOLVES or after[0].isupper()):
            continue  # a longer description, or one the question resolves
        if said is None:
            said = {stem(x) for m in history for x in content_words(m.content)}
        if stem(noun) in said:
            return f"the {noun}"
    return None


def _acronym(word: str) -> bool:
    return len(word) > 1 and word.isupper() and word.isalpha()


def too_vague(question: str) -> bool:
    """Too little of its own to stand alone: no name, at most two content words, none of them rare."""
    if named(question):
        return False
    own = [w for w in content_words(question) if w not in _QUESTION_WORDS]
    return len(own) <= 2 and not any(len(w) >= LONG_WORD for w in own)


def names_its_subject(question: str) -> bool:
    """A name (or acronym) and enough words around it to stand alone ("What is the PA average salary vs
    an RN?", "Where did Jennifer Aniston and David Schwimmer both work?")."""
    own = [w for w in content_words(question) if w not in _QUESTION_WORDS]
    enough = SUBJECT_WORDS_UNSPACED if has_unspaced(question) else SUBJECT_WORDS
    return bool(named(question)) and len(own) >= enough


def names_something_new(question: str, history: Sequence[Message]) -> bool:
    """Whether the question names something (a name or an acronym) the conversation never named."""
    names = {w.lower() for w in named(question)}
    return bool(names - {w.lower() for m in history for w in words(m.content)})


def opening(history: Sequence[Message], turns: Sequence[tuple[int, ...]]) -> str:
    """What the conversation is about: its first question, and the start of that question's answer when
    the question does not say it ("What were their later releases?")."""
    first = turns[0]
    question = history[first[0]].content
    if len(first) == 1 or (unresolved_reference(question) is None and not too_vague(question)):
        return question
    return f"{question} {truncate(history[first[1]].content, OPENING_ANSWER)}"


class TurnDependence:
    """The LLM-free decision. Each earlier message is embedded once per conversation, not once per turn,
    through the app's embedder, which remembers its recent queries (``local_models.embedders.query_memo``)."""

    def __init__(self, embedder: Embedder) -> None:
        self._embedder = embedder

    def _vectors(self, texts: Sequence[str]) -> list[Vector]:
        return list(self._embedder.embed_query([truncate(t, 600) for t in texts]))

    def decide(
        self, question: str, history: Sequence[Message], question_vec: Vector | None = None
    ) -> TurnDecision:
        history = list(history)
        turns = exchanges(history)
        if not turns:
            return FIRST_QUESTION
        q = question_vec if question_vec is not None else self._vectors([question])[0]
        vectors = self._vectors([m.content for m in history])
        sims = np.asarray([float(np.dot(q, v)) for v in vectors])
        topic = self._topic_start(history, turns, vectors)
        return self._label(question, history, turns, topic, sims)

    def kept_meaning(self, question: str, context: str) -> float:
        """How much of ``question``'s meaning survives ``context`` added to it (1: none of it moves).
        A question that says what it asks barely moves ("What causes throat cancer?" with "Tell me about
        the different types of cancer."); one that leans on the conversation moves toward it ("Is smoking
        the main cause?")."""
        alone, joined = self._vectors([question, f"{question} {context}"])
        return float(np.dot(alone, joined))

    def _label(
        self,
        question: str,
        history: Sequence[Message],
        turns: Sequence[tuple[int, ...]],
        topic: tuple[int, ...],
        sims: np.ndarray,
    ) -> TurnDecision:
        closest = max(turns, key=lambda ex: max(sims[i] for i in ex))
        best = round(float(max(sims[i] for i in closest)), 3)
        # A follow-up uses the exchanges of the current topic, from the one that started it on: on the
        # tuning half of bench/topic_shift.py, QuAC follow-ups found more with them than with the topic's
        # first exchange and the closest (or the previous) one alone, and topic changes lost nothing.
        since = tuple(i for ex in turns if ex[0] >= topic[0] for i in ex)
        depends, why, own_reading = self._rule(question, history, turns, best)
        if depends == "self-contained":
            return self._alone(question, history, why, best, topic, since)
        return ruled(depends, since, why, best, topic, own_reading=own_reading)

    def _rule(
        self, question: str, history: Sequence[Message], turns: Sequence[tuple[int, ...]], best: float
    ) -> tuple[Dependence, Reason, bool]:
        """The rule that labels the turn, why (in English and as a code), and whether a follow-up has a
        reading of its own (``TurnDecision.own_reading``)."""
        ref = unresolved_reference(question)
        if ref is not None:
            return "previous", Reason(f"it refers back ('{ref}')", "refers_back", {"ref": ref}), False
        described = refers_by_description(question, history)
        if described is not None:
            english = f"it refers back ('{described}', which the conversation spoke of)"
            return "topic", Reason(english, "refers_by_description", {"described": described}), False
        if fragment(question):
            return "topic", Reason("it is a fragment with no verb of its own", "fragment"), False
        # A name the conversation has named is its subject, not a new one: such a question goes on to the
        # meaning test ("Did Fergie leave the band in 2014?" after a question about Fergie).
        if names_its_subject(question) and names_something_new(question, history):
            return "self-contained", Reason("it names its own subject", "own_subject"), False
        if best >= RELATED_SIMILARITY:
            kept = self.kept_meaning(question, opening(history, turns))
            values = {"best": f"{best:.2f}", "kept": f"{kept:.2f}"}
            if kept >= KEEPS_MEANING:
                english = f"the conversation adds nothing to it (meaning kept {kept:.2f})"
                return "self-contained", Reason(english, "adds_nothing", values), False
            english = f"it continues that topic (similarity {best:.2f}, meaning kept {kept:.2f})"
            return "topic", Reason(english, "continues", values), True
        if too_vague(question):
            return "topic", Reason("it is too short to stand alone", "too_short"), False
        english = f"it is unrelated to the conversation (closest similarity {best:.2f})"
        return "self-contained", Reason(english, "unrelated", {"best": f"{best:.2f}"}), False

    @staticmethod
    def _alone(
        question: str,
        history: Sequence[Message],
        reason: Reason,
        best: float,
        topic: tuple[int, ...],
        since: tuple[int, ...],
    ) -> TurnDecision:
        """Self-contained; on the conversation's subject when close to it and naming nothing new."""
        on_subject = best >= SAME_SUBJECT and not names_something_new(question, history)
        subject = since if on_subject else ()
        return ruled("self-contained", (), reason, best, topic, subject=subject)

    def _topic_start(
        self, history: Sequence[Message], turns: Sequence[tuple[int, ...]], vectors: Sequence[Vector]
    ) -> tuple[int, ...]:
        """The exchange that started the current topic: the latest earlier question that stood alone and
        left the conversation's subject (one that stands alone on the subject goes on with the topic)."""
        start = turns[0]
        for k in range(1, len(turns)):
            u = turns[k][0]
            earlier = [i for ex in turns[:k] for i in ex]
            sims = np.asarray([float(np.dot(vectors[u], vectors[i])) for i in range(len(vectors))])
            # judged as it was asked: on the history before it, not on itself and its own answer
            label = self._label(history[u].content, history[:u], turns[:k], start, sims)
            if label.depends == "self-contained" and not label.subject and earlier:
                start = turns[k]
        return start
