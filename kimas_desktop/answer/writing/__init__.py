"""How the answer is written and checked: the summarizer's prompt (``summarizer``) within the time budget
(``budget``), the stream guard against loops and transcripts (``guard``), the per-sentence support check
(``support``, ``markers``) and every citation the user sees (``citations``)."""
