"""Stage 4 — the **summarizer** (KIMAs §3.4, "summarization": reranking for filtering, then answer and
reference generation).

A question travels: context → routing → retrieval → **answer**.

In the order an answer is made:
    filter         one reranker over every agent's hits, packed into the model's window (the paper's
                   "reranking for filtering")
    grounding      the grounded quote (``quote``) and the lexical answerability signal
                   (``answerability``): milliseconds, no LLM
    verify         a capable chat model's extract-and-verify judgement (RAGentA's evidence judging)
    policy         the one decision: answer, or decline (``AnswerPolicy``, its rules named in one screen)
    summarizer     the streamed answer (``guard`` stops loops and transcripts)
    support        the per-sentence support check (RAGentA's faithfulness); ``citations`` builds every
                   citation the user sees (the paper's "reference generation")
    outcome        the typed end of an answer: answered, declined, nothing found, stopped
"""
