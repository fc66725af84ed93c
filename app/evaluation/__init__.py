"""The Evaluation tab (issue 26): test sets made from your documents (``questions``, ``model_questions``),
runs of a set under a preset (``run``), kept on disk (``store``), put together in ``evaluation.Evaluation``;
one job at a time in the background (``job.EvaluationJob``); and retrieval testing (``retrieval_test``:
why each passage ranks where it does)."""
