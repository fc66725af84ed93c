"""The shape of the model's answer (issue 69): an answer that is not one is set aside like an unsupported
one, and the quote takes its place.

Seen from the embedded 135M model: a bare list of citation markers ("[1] [2]"), and an English template in
reply to a Chinese question ("The original document is: [1] … 2. 框架概述 The document is: [1] …"). Both
are rare in a real answer, so the rules are narrow:

- ``markers only``: nothing but citation markers and punctuation once the markers are taken out;
- ``another language``: the question is written in a script other than Latin, and most of the answer's
  letters are Latin in a run of three or more words that holds an English function word ("is", "the", …):
  "RAG（Retrieval-Augmented Generation）是检索增强生成" keeps its place, a template does not.
"""

from __future__ import annotations

import re

from kimas_desktop.text.language import main_script

__all__ = ["misshapen"]

_MARKER = re.compile(r"\[\d+(?:\s*[,;]\s*\d+)*\]|【\d+】")
_RUN = re.compile(r"[A-Za-z']+(?:[ ,:]+[A-Za-z']+){2,}")
_FUNCTION = frozenset(
    "the is are was were a an of to in this that it be document documents answer source sources original "
    "text".split()
)


def misshapen(answer: str, question: str) -> str:
    """Why ``answer`` is no answer to ``question`` ("markers only", "another language"), or ""."""
    text = _MARKER.sub(" ", answer)
    if _MARKER.search(answer) and not any(ch.isalnum() for ch in text):
        return "markers only"
    asked = main_script(question)
    if asked and asked != "LATIN" and main_script(text) == "LATIN":
        for run in _RUN.finditer(text):
            if any(w in _FUNCTION for w in re.split(r"[ ,:]+", run.group().lower())):
                return "another language"
    return ""
