"""Entities in a text without a model: what the KAG paper's builder extracts with an LLM ("mutual
indexing" of entities and chunks, ``../shared/papers/kag.zh.txt``), here by rules, in a fraction of a
millisecond per chunk.

Kinds (``EntityKind``):

- ``name``: a run of capitalised words ("Nikola Tesla", "University of Warsaw", "Bank of the West"),
  joined over "of", "the", "de", "von", ... between capitals. A sentence's first word is dropped when it
  is a function word or a common sentence opener ("The", "However"); a lone capitalised first word is
  kept only when the text also writes it capitalised mid-sentence. ``organisation`` and ``place`` are
  names with a telling word ("Institute", "Company"; "River", "County") or, for places, after "in",
  "at", "from", "near".
- ``acronym``: an all-capitals word of 2–6 letters ("NASA", "UCLA").
- ``date``: "14 March 1879", "March 14, 1879", "March 1879", "1879-03-14", years 1000–2099 and decades
  ("1990s"); the key is ISO ("1879-03-14", "1879-03", "1879", "1990s") so a date matches itself however
  it is written.
- ``number``: a number with a unit or a scale ("45 km", "3.2 million", "$5", "12%"); the key has no
  thousands separators ("1,200 km" → "1200 km").
- ``term``: a defined term ("X is defined as", "called X", "known as X", "X (ABC)" — which also makes
  the acronym ABC a term with the same meaning).

The key of an entity is what links mentions: lower case, whitespace collapsed, no leading "the", no
possessive "'s". ``entity_key`` gives it for any text (a question's words, say).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

from kimas_desktop.text.words import STOPWORDS

__all__ = ["Entity", "EntityKind", "entity_key", "extract_entities"]

EntityKind = Literal["name", "organisation", "place", "acronym", "date", "number", "term"]


@dataclass(frozen=True)
class Entity:
    """One entity: ``key`` links its mentions (``entity_key``), ``name`` is its first form as written."""

    key: str
    name: str
    kind: EntityKind


_MONTHS = {
    m: i + 1
    for i, ms in enumerate(
        ["january jan", "february feb", "march mar", "april apr", "may", "june jun", "july jul",
         "august aug", "september sep sept", "october oct", "november nov", "december dec"]
    )
    for m in ms.split()
}  # fmt: skip
_DAYS = frozenset("monday tuesday wednesday thursday friday saturday sunday".split())
_MONTH = r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sept?(?:ember)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?"
_YEAR = r"(?:1\d{3}|20\d{2})"
_DATES = re.compile(
    rf"\b(?:(?P<d1>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<m1>{_MONTH})(?:,?\s+(?P<y1>{_YEAR}))?"
    rf"|(?P<m2>{_MONTH})\s+(?:(?P<d2>\d{{1,2}})(?:st|nd|rd|th)?(?:,\s*|\s+)(?P<y2>{_YEAR})|(?P<d3>\d{{1,2}})(?:st|nd|rd|th)?\b|(?P<y3>{_YEAR}))"
    rf"|(?P<iso>{_YEAR}-[01]\d-[0-3]\d)"
    r"|(?P<decade>(?:1\d\d|20\d)0s)"
    rf"|(?P<y4>{_YEAR}))\b"
)  # fmt: skip
_SCALE = r"(?:thousand|million|billion|trillion|bn|m)"
_UNIT = (
    r"(?:%|percent|per\s+cent|km/h|kph|mph|km2|sq\s+km|km|kilometres?|kilometers?|miles?|mi|metres?|meters?|m|cm|mm|ft|feet|foot|"
    r"inch(?:es)?|in|kg|kilograms?|g|grams?|tonnes?|tons?|lbs?|pounds?|ounces?|oz|litres?|liters?|l|ml|"
    r"gallons?|hectares?|ha|acres?|°C|°F|degrees?|years?|months?|weeks?|days?|"
    r"hours?|minutes?|seconds?|people|inhabitants|residents|employees|students|members|votes|seats|"
    r"dollars?|euros?|pounds|yen|GW|MW|kW|W|kWh|MWh|V|Hz|MHz|GHz|KB|MB|GB|TB|bytes?)"
)
_NUMBERS = re.compile(
    rf"(?P<cur>[$€£¥])\s?(?P<n1>\d[\d,]*(?:\.\d+)?)(?:\s?(?P<s1>{_SCALE}))?\b"
    rf"|\b(?P<n2>\d[\d,]*(?:\.\d+)?)(?:\s?(?P<s2>{_SCALE})\b)?(?:\s?(?P<u2>{_UNIT})(?![\w]))?"
)
_TOKEN = re.compile(r"[^\W\d_][\w'’&.-]*[\w]|[^\W\d_]", re.UNICODE)
_CONNECTORS = frozenset("of for the de da del della der den van von la le du di al bin ibn y &".split())
_OPENERS = frozenset(
    """however although though meanwhile today yesterday tomorrow later earlier since despite following
    according unlike several every either neither another although thus therefore hence moreover
    furthermore nevertheless instead also finally first second third then now still yet once soon many
    most some each both when while after before during in on at by for from with without as if it its
    his her their our this that these those there here we they he she you i a an the""".split()
)
_ORG_WORDS = frozenset(
    """university college school institute academy company corporation corp inc ltd llc plc group bank
    association society foundation council committee commission ministry department agency party church
    club league union federation museum library hospital army navy court congress parliament senate
    government office bureau board trust fund laboratory laboratories records studios airlines
    railway press times news""".split()
)
_PLACE_WORDS = frozenset(
    """city town village county province state states river lake mountain mountains mount mt island islands
    ocean sea bay valley kingdom republic district region street avenue road park desert peninsula coast
    gulf strait canyon forest square bridge""".split()
)
_PLACE_CUES = frozenset("in at from near to into across".split())
_DEFINED = re.compile(
    r"\b(?:called|named|termed|dubbed|known\s+as|referred\s+to\s+as|defined\s+as)\s+"
    r"[\"“‘']?(?P<t1>[\w][\w'’-]*(?:\s+[\w][\w'’-]*){0,3}?)[\"”’']?(?=[\s]*[,.;:)(]|\s+(?:and|or|which|that|is|was|in|by|for)\b|$)"
    r"|[\"“](?P<t2>[^\"“”]{2,40})[\"”]\s+(?:is|are|was|means|refers\s+to)\b"
)  # fmt: skip
_ABBREVIATION = re.compile(r"\s\((?P<abbr>[A-Z][A-Za-z]{1,7})\)")
_SENTENCE_END = frozenset(".!?:;\n")
_TITLES = frozenset("St Mr Mrs Ms Dr Mt Jr Sr Prof Gen Col Capt Lt Sgt Rev Fr".split())
_ACRONYM = re.compile(r"[A-Z][A-Z0-9&]{1,5}s?")


def entity_key(text: str) -> str:
    """The key that links mentions of one entity: lower case, whitespace collapsed, no leading "the",
    no possessive."""
    key = " ".join(text.lower().replace("’", "'").split()).strip(" .,;:'\"")
    if key.endswith("'s"):
        key = key[:-2]
    if key.startswith("the "):
        key = key[4:]
    return key


def _number_key(number: str) -> str:
    value = number.replace(",", "")
    if "." in value:
        value = value.rstrip("0").rstrip(".")
    return value


def _dates(text: str, out: dict[str, Entity], taken: list[tuple[int, int]]) -> None:
    for m in _DATES.finditer(text):
        g = m.group
        if g("iso"):
            key = g("iso")
        elif g("decade"):
            key = g("decade")
        elif g("y4"):
            key = g("y4")
        else:
            month = _MONTHS.get((g("m1") or g("m2")).lower().rstrip("."), 0)
            day, year = g("d1") or g("d2") or g("d3"), g("y1") or g("y2") or g("y3")
            if g("m2") == "May" and not (day or year):
                continue
            if day and not 1 <= int(day) <= 31:
                continue
            if year and day:
                key = f"{year}-{month:02d}-{int(day):02d}"
            elif year:
                key = f"{year}-{month:02d}"
            else:
                key = f"--{month:02d}-{int(day or 0):02d}"
        out.setdefault(key, Entity(key, m.group().strip(), "date"))
        taken.append(m.span())


def _numbers(text: str, out: dict[str, Entity], taken: list[tuple[int, int]]) -> None:
    for m in _NUMBERS.finditer(text):
        start, end = m.span()
        if any(s <= start < e for s, e in taken):
            continue
        g = m.group
        if g("cur"):
            scale = g("s1") or ""
            key = f"{g('cur')}{_number_key(g('n1'))}{' ' + scale.lower() if scale else ''}"
        else:
            scale, unit = g("s2") or "", g("u2") or ""
            if not (scale or unit) or (scale == "m" and not unit and not text[end : end + 1].isspace()):
                continue
            unit = " ".join(unit.split())
            key = " ".join(p for p in (_number_key(g("n2")), scale.lower(), unit.lower()) if p)
            key = key.replace(" %", "%")
        out.setdefault(key, Entity(key, m.group().strip(), "number"))


def _sentence_start(text: str, start: int) -> bool:
    i = start - 1
    while i >= 0 and text[i] in " \t\"'“‘([":
        i -= 1
    if i < 0:
        return True
    if text[i] == ".":
        return text[max(0, i - 4) : i].split(" ")[-1] not in _TITLES
    return text[i] in _SENTENCE_END


def _leading_filler(word: str) -> bool:
    """A word that does not start a name: "of", "the", a month or a weekday ("In May the Eiffel Tower")."""
    low = word.lower().rstrip(".")
    return low in _CONNECTORS or low in _MONTHS or low in _DAYS


_Token = tuple[str, int, int]  # a word, where it starts and ends


def _runs(text: str, tokens: list[_Token]) -> Iterator[list[int]]:
    """Runs of capitalised tokens (their positions in ``tokens``), joined over single spaces, "&", a
    title's period ("St. James") and a lower-case connector between two capitals ("Bank of America")."""
    i, n = 0, len(tokens)
    while i < n:
        if not tokens[i][0][0].isupper():
            i += 1
            continue
        run, j = [i], i + 1
        while j < n:
            w, s, _ = tokens[j]
            gap = text[tokens[j - 1][2] : s]
            if gap not in (" ", " & ") and not (gap == ". " and tokens[j - 1][0] in _TITLES):
                break
            if w[0].isupper():
                run.append(j)
                j += 1
            elif (
                w.lower() in _CONNECTORS
                and j + 1 < n
                and tokens[j + 1][0][0].isupper()
                and (text[tokens[j][2] : tokens[j + 1][1]] == " ")
            ):
                run.extend((j, j + 1))
                j += 2
            else:
                break
        i = j
        yield run


def _kind(text: str, start: int, parts: list[str], lowered: list[str]) -> EntityKind:
    if len(parts) == 1 and _ACRONYM.fullmatch(parts[0]):
        return "acronym"
    if any(p in _ORG_WORDS for p in lowered):
        return "organisation"
    before = text[max(0, start - 6) : start].split()
    if any(p in _PLACE_WORDS for p in lowered) or (before and before[-1].lower() in _PLACE_CUES):
        return "place"
    return "name"


def _names(text: str, out: dict[str, Entity]) -> None:
    tokens = [(m.group(), m.start(), m.end()) for m in _TOKEN.finditer(text)]
    mid_caps = {w for w, s, _ in tokens if w[0].isupper() and not _sentence_start(text, s)}
    for run in _runs(text, tokens):
        first = tokens[run[0]]
        if _sentence_start(text, first[1]) and (
            first[0].lower() in _OPENERS
            or first[0].lower() in STOPWORDS
            or (len(run) == 1 and first[0] not in mid_caps and not _ACRONYM.fullmatch(first[0]))
        ):
            run = run[1:]
        while run and len(run) > 1 and _leading_filler(tokens[run[0]][0]):
            run = run[1:]
        while run and tokens[run[-1]][0].lower() in _CONNECTORS:
            run = run[:-1]
        if not run:
            continue
        parts = [tokens[k][0] for k in run]
        lowered = [p.lower().strip(".") for p in parts]
        if len(parts) == 1 and (lowered[0] in STOPWORDS or lowered[0] in _MONTHS or lowered[0] in _DAYS):
            continue
        if all(p in STOPWORDS or p in _OPENERS for p in lowered):
            continue
        name = text[tokens[run[0]][1] : tokens[run[-1]][2]]
        key = entity_key(name)
        if len(key) >= 2 and key not in out:
            out[key] = Entity(key, name, _kind(text, tokens[run[0]][1], parts, lowered))


def _terms(text: str, out: dict[str, Entity]) -> None:
    for m in _ABBREVIATION.finditer(text):
        abbr = m.group("abbr")
        initials = sum(1 for c in abbr if c.isupper())
        # the words the abbreviation stands for: as many as it has capitals, just before it
        words = text[max(0, m.start() - 24 * initials) : m.start()].split()[-initials:]
        phrase = " ".join(words)
        if len(words) < initials or not words[0][:1].isalpha() or entity_key(phrase)[:1] != abbr[0].lower():
            continue
        for term in (phrase, abbr):
            key = entity_key(term)
            if key not in out or out[key].kind in ("name", "acronym"):
                out[key] = Entity(key, term, "term")
    for m in _DEFINED.finditer(text):
        term = (m.group("t1") or m.group("t2") or "").strip()
        key = entity_key(term)
        if len(key) < 3 or key in STOPWORDS or key.split()[0] in STOPWORDS:
            continue
        if key not in out or out[key].kind == "name":
            out[key] = Entity(key, term, "term")


def extract_entities(text: str) -> list[Entity]:
    """The entities of ``text``, each once (by key), in no particular order."""
    out: dict[str, Entity] = {}
    taken: list[tuple[int, int]] = []
    _dates(text, out, taken)
    _numbers(text, out, taken)
    _names(text, out)
    _terms(text, out)
    return list(out.values())
