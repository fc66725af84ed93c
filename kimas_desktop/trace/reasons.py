"""``Reason``: a sentence the pipeline writes into a trace record (why a hop stopped, why an online source
was asked, the context manager's judgement, …) as a ``code`` and its plain ``values``, beside the same
sentence in English.

The English (``english``, also kept in the record's own text field) is for the CLI, the log and stored
traces; the UI says the sentence from its code in the page's language (``ui.chat.trace_words``) and never
by matching the English, which may be reworded (issue 69). A value is plain: a number already written as
text ("0.53"), a title, a query, an error's own words, or another ``Reason`` (the reason inside a
sentence: "{why}; stopped: {stop}").

Codes and their values, by who writes them:

- the context manager (``context/``): ``first_question``; ``refers_back`` (ref); ``refers_by_description``
  (described); ``fragment``; ``own_subject``; ``adds_nothing`` (kept); ``continues`` (best, kept);
  ``too_short``; ``unrelated`` (best); ``context_off``; ``judged_alone``, ``judged_topic``,
  ``judged_previous``; ``judged_kept`` (judged, reason); ``kept_subject`` (kept); ``rewrite_too_long``;
  ``rewrite_failed`` (error)
- the hops (``retrieval/hops.py``, ``second_look.py``): ``nothing_to_start``; ``covers`` (share: 0-1);
  ``covers_part`` (share: a percentage); ``stopped`` (why, stop); ``rounds_used_up``; ``nothing_new``
- a document's question (``retrieval/documents.py``): ``whole_document`` (how); ``points_at`` (title, how);
  ``named``, ``only_document``, ``best_passage_document`` (title)
- the online sources (``retrieval/online.py``): ``always_asked``; ``local_weak``; ``you_asked``;
  ``local_answers``; ``only_when_asked``; ``off_topic`` (match, least); the failures it writes itself:
  ``no_answer_in_time``, ``unreadable`` (error: the exception's name); and a source's ``SourceError``
  by its own code (``web/``): ``source_timeout`` (host, seconds), ``source_http`` (host, status),
  ``source_unreachable`` (host, error), ``source_redirects`` (host, n), ``source_unresolved`` (host),
  ``source_search_failed`` (error: the search library's words), ``source_too_big`` (host, mb),
  ``source_not_json``, ``source_too_deep``, ``source_not_searxng``, ``source_no_results`` (host),
  ``source_no_results_at`` (host, path), ``source_env_unset``, ``source_token_unset`` (name),
  ``source_unreadable`` (where, error)
- the decider and the second round (``answer/``): ``evidence_answers``; ``no_chat_model``;
  ``judgement_failed``, ``second_search_failed``, ``check_failed`` (error)
- the answer check (``answer/signals/verify.py``): ``no_answer_found``; ``not_as_written``;
  ``repeats_question``
- the quote as the answer, no model writing (``answer/writer.py``, ``answer/unwritten.py``):
  ``quote_only``; ``model_not_ready``
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Union

__all__ = ["Reason", "ReasonValue"]

ReasonValue = Union[str, "Reason"]


@dataclass(frozen=True)
class Reason:
    """A sentence of the trace: ``english``, and the same as ``code`` with its plain ``values``."""

    english: str
    code: str
    values: Mapping[str, ReasonValue] = field(default_factory=dict, hash=False)

    def __str__(self) -> str:
        return self.english

    def plain(self) -> dict[str, object]:
        """The code and its values as JSON values (``kimas ask --json``), a value that is a reason too."""
        values = {k: v.plain() if isinstance(v, Reason) else v for k, v in self.values.items()}
        return {"code": self.code, "values": values}
