"""What the answer policy decides on: the grounded quote (``quote``, ``grounding``) and the lexical
answerability (``answerability``), no LLM; a capable model's extract-and-verify check (``verify``) and
sufficiency judgement (``agentic``); values compared in code (``compare``); a document's own words
(``documents``)."""
