"""Documents are data (issue 40): two small rules that keep a document's words from steering the answer.

- **addresses_the_assistant**: the sentence speaks to whoever answers instead of about the world: an
  override ("ignore previous instructions", "SYSTEM OVERRIDE", "new instructions"), an order to the
  assistant, model or AI ("you must answer", "always reply", "tell the user"), or talk about questions and
  their answers ("whatever the user asks", "the only correct answer is", "if anyone asks about"). The quote
  scorer keeps a hundredth of such a sentence's score, so it is quoted (and becomes a key sentence of the
  answer prompt) only when no sentence of the evidence states anything close.
- **unlisted**: a sentence without its bare lists, short items in brackets ("(the audit date, the Rhine,
  anything)") or a clause that is nothing but three or more short items ("Audit date, Rhine barges,
  budget, anything: …"), or a sentence that is nothing but six or more of them. A question's word that a
  sentence holds only inside such a list names a topic without saying anything about it, so the quote
  scorer measures a sentence's overlap and embedding similarity on what is left.

- **asks**: the sentence is a question. A question that brings no word of its own beyond the user's
  question only repeats it (an FAQ of the user's questions written to be quoted); the quote scorer treats
  it as words addressed to the assistant. A question with words of its own keeps its score: on Reddit,
  6.7% of SQuAD-Shifts' answers are only inside questions ("I have tons of emeralds, why can't I make it?").

All are model-free and cheap (regular expressions over one sentence). The cues are English, Chinese and
Hindi phrases; a text in another script is never flagged, so it keeps today's scoring.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from kimas_desktop.text.sentences import Sentence
from kimas_desktop.text.words import STOPWORDS, stems, words

__all__ = ["addresses_the_assistant", "asks", "steering", "unlisted"]

_ADDRESSEE = r"(?:assistant|ai|a\.i\.|llm|chat ?bot|language model|gpt|copilot)"
_ANSWER_VERB = r"(?:answer|reply|respond|say|state|output|print|write|repeat|return|tell|cite|quote|claim)"
_QUESTION = r"(?:questions?|asks?|asked|asking|quer(?:y|ies)|prompts?)"
# what follows an answer verb in an order about answers ("reply with", "answer only", "say that", "answer
# every question", "respond: …"), not in advice ("you must reply within 30 days")
_HOW = r"(?:(?:with|only|that|every|all|any|always|by saying|the user|the reader)\b|[:'\"“‘«])"
_MODAL = r"(?:must|should|shall|will|are to|have to|need to|may only|can only|always|never|only)"
_ENGLISH = [
    # overrides of whatever came before
    r"\b(?:ignore|disregard|forget|override|overrule|bypass)\b[^.!?]{0,40}?\b(?:instructions?|rules|"
    r"prompts?|directions|guidelines|context|sources|documents|everything|all (?:of )?the above)\b",
    r"\bsystem (?:override|prompt|message|instruction)s?\b",
    r"\b(?:new|updated|real|hidden|secret) (?:instructions?|rules|system prompt)\s*:",
    rf"\b(?:new|updated|real|hidden|secret) instructions? (?:for|to) (?:the |an? )?{_ADDRESSEE}s?\b",
    r"^\s*(?:#+\s*)?(?:system|assistant|instructions?)\s*:",
    # an order to the one who answers
    rf"\b(?:the |an? |dear )?{_ADDRESSEE}s?\b[^.!?]{{0,30}}?\b{_MODAL}\s+(?:\w+\s+){{0,2}}?{_ANSWER_VERB}\w*\b",
    rf"\byou\s+{_MODAL}\s+(?:\w+\s+){{0,2}}?{_ANSWER_VERB}\w*\s*{_HOW}",
    rf"^\W*(?:always |never |only |just |please )?{_ANSWER_VERB}\w*\s+{_HOW}",
    # the same order after a clause ("If anyone asks about it, reply only with: …"): the bare verb only,
    # so a participle ("Soldiers, returning with their families") is no order
    rf"[,;:]\s*(?:then\s+)?(?:always |never |just |please )?{_ANSWER_VERB}\s+(?:only\s+)?{_HOW}",
    r"\byour (?:reply|answer|response|output)s? (?:\w+ )?(?:has to|have to|must|should|needs? to|is to)\b",
    rf"\b(?:note|message|instructions?|attention) (?:to|for) (?:the |any |all |an? )?{_ADDRESSEE}s?\b",
    r"\btell (?:the|any|every) (?:user|reader)s?\b",
    # talk about questions and their answers
    rf"\b(?:whatever|whichever|no matter what|regardless of what) (?:\w+ ){{0,3}}?{_QUESTION}\b",
    rf"\b(?:if|when|whenever) (?:anyone|anybody|the user|a user|users|you are|you're)"
    rf" (?:\w+ ){{0,2}}?{_QUESTION}\b",
    r"\bthe (?:only|one|single) (?:correct |right |true |real |valid )?(?:answer|response|reply)\b",
    r"\b(?:correct|right|true|real) (?:answer|response|reply) (?:is always|to (?:any|every|all))\b",
    rf"\b(?:answer|reply|respond)\w* (?:to )?(?:every|any|all|each) {_QUESTION}\b",
]
_OTHER_SCRIPTS = [
    # Chinese: ignore (previous) instructions, system override, whatever the user asks, the only correct
    # answer is, you must answer
    r"忽略.{0,8}(?:指令|指示|说明|规则)",
    r"系统(?:覆盖|指令|提示)",
    r"(?:无论|不管)(?:用户|你|谁|别人)?(?:问|提问)",
    r"(?:唯一|正确)(?:的)?(?:正确)?(?:的)?(?:答案|回答)(?:是|为)",
    r"你(?:必须|只能|应该)(?:回答|回复|说)",
    # Hindi: ignore the (previous) instructions, whatever the user asks, the only correct answer is,
    # you must answer
    r"निर्देशों?\s*(?:को)?\s*(?:अनदेखा|नज़रअंदाज़|नजरअंदाज|भूल)",
    r"(?:उपयोगकर्ता|यूज़र|कोई)\s+(?:जो\s+)?(?:भी|कुछ\s+भी)\s+पूछे",
    r"(?:एकमात्र|इकलौता)?\s*सही\s+(?:उत्तर|जवाब)\s+(?:है|यह)",
    r"(?:तुम्हें|आपको)\s+(?:\S+\s+){0,2}(?:जवाब|उत्तर)\s+देना",
]
_INSTRUCTION = re.compile("|".join(f"(?:{p})" for p in _ENGLISH + _OTHER_SCRIPTS), re.IGNORECASE)

_BRACKETED = re.compile(r"[(\[（【]([^()\[\]（）【】]{1,240})[)\]）】]")
# a comma between digits is a thousands separator ("2,400 tonnes"), not a list's
_SEPARATOR = re.compile(r"\s*(?:(?<!\d),|,(?!\d)|[;/、，；]|\s(?:or|and|und|oder|et|ou|y|o)\s)\s*", re.I)
_CATCH_ALL = re.compile(
    r"^(?:and |or )?(?:anything|everything|whatever|etc\.?|all the rest|and so on|任何\S*|कुछ भी)", re.I
)
_ITEM_WORDS = 4  # an item longer than this says something: not a bare list
_ITEM_GLUE = frozenset(
    """the a an any all each every some no its their our my your his her this that these those other
    another else of and or anything everything something more
    का की के और या कोई कुछ भी सभी सब हर 的 和 与 或 及 任何 其他 所有""".split()  # the same in Hindi, Chinese
)
# Scripts written without spaces: a run of them is not one word; about two characters make one.
_UNSPACED = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\u0e00-\u0e7f]")


def addresses_the_assistant(sentence: str) -> bool:
    """Whether ``sentence`` gives orders to the assistant or talks about questions and answers (see the
    module docstring) rather than stating something."""
    return bool(_INSTRUCTION.search(sentence))


_ASKS = re.compile(r"[?？؟]\W*$")


def asks(sentence: str) -> bool:
    """Whether ``sentence`` is a question (ends in a question mark of any script)."""
    return bool(_ASKS.search(sentence))


def _items(span: str) -> list[str]:
    return [p for p in _SEPARATOR.split(span) if p.strip()]


def _size(item: str) -> float:
    """How many content words ``item`` holds, split at spaces (Devanagari's vowel signs are no word
    characters to ``re``), counting about two characters as a word in scripts without spaces."""
    unspaced = len(_UNSPACED.findall(item))
    spaced = [w for w in _UNSPACED.sub(" ", item).split() if words(w) and w.lower() not in STOPWORDS]
    return len(spaced) + unspaced / 2


def _is_item(part: str, most: float) -> bool:
    """A short noun phrase: a few content words and no function word but articles and the like (an
    item with "are", "in" or "was" says something)."""
    found = [w.lower() for w in words(part)]
    glue = [w for w in found if w in STOPWORDS]
    return bool(found) and _size(part) <= most and all(w in _ITEM_GLUE for w in glue)


def _bare(items: list[str], *, least: int) -> bool:
    return len(items) >= least and all(_is_item(item, _ITEM_WORDS) for item in items)


def _listed_spans(sentence: str) -> list[str]:
    """Bracketed lists of two or more short items, and clauses that are nothing but three or more short
    items between commas and either end in a catch-all ("…, anything") or introduce something (":").
    Without that, "The largest barge, the Lorelei, carries grain." or "Last month, the chief executive,
    Jeff Smisek, resigned." read as lists: appositions look like items."""
    spans = [m.group(1) for m in _BRACKETED.finditer(sentence) if _bare(_items(m.group(1)), least=2)]
    outside = _BRACKETED.sub(" ", sentence)
    for clause in re.finditer(r"[^:.!?。！？\n]+(?=(:)?)", outside):
        items = _items(clause.group())
        short = all(_is_item(item, _ITEM_WORDS - 1) for item in items)
        ends = bool(items) and (bool(_CATCH_ALL.match(items[-1].strip())) or clause.group(1) == ":")
        if len(items) >= 3 and short and ends:
            spans.append(clause.group())
    return spans


def _all_items(sentence: str) -> bool:
    """A sentence that is nothing but six or more short items ("Abbey founder, Ishtar Gate location,
    county municipalities, …"): it names topics and says nothing about them. Fewer read as prose too
    often: "Last month, the chief executive of United, Jeff Smisek, resigned." is four such items."""
    return _bare(_items(sentence.strip().rstrip(".!;。！；").strip()), least=6)


def unlisted(sentence: str) -> str:
    """``sentence`` without its bare lists (see the module docstring): what it says, not what it names."""
    if _all_items(sentence):
        return " "
    for span in _listed_spans(sentence):
        sentence = sentence.replace(span, " ", 1)
    return sentence


def steering(sentences: Sequence[Sentence], qstems: set[str]) -> list[bool]:
    """Which sentences speak to the assistant, or write the user's question back with no word of its
    own (an echo says nothing). A sentence cut into pieces for length is judged whole: an order at its
    start marks the pieces that only list topics."""
    out: list[bool] = []
    group: list[Sentence] = []
    for sentence in [*sentences, None]:
        if group and (sentence is None or _ends(group[-1].text)):
            whole = " ".join(s.text for s in group)
            ordered = addresses_the_assistant(whole)
            out += [ordered or (asks(s.text) and not stems(s.text) - qstems) for s in group]
            group = []
        if sentence is not None:
            group.append(sentence)
    return out


_ENDS = re.compile(r"[.!?。！？…।]['\"”’)\]]*\s*$")


def _ends(text: str) -> bool:
    return bool(_ENDS.search(text))
