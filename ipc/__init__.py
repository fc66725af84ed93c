"""How our worker processes (the PDF reader, the llama.cpp chat model) talk back to the app:
length-prefixed JSON frames (``frames``). Imports nothing of the project; the backends use it."""
