"""The llama.cpp chat model: ``LlamaChatModel`` (``chat``), the worker process that runs llama.cpp
(``worker``, started as a script so a native crash ends only it) and the pipes to it (``process``).
This is the KIMAs paper's LLM behind the summarizer and the other LLM steps, run locally.
"""
