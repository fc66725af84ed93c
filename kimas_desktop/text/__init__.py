"""The text toolkit every stage shares: one sentence splitter with offsets (``sentences``), one word
toolkit (``words``: tokens, content words, names, numbers, stems) and the IDF weights of a
collection's words (``terms``). Not a pipeline stage; the paper has no name for it.
"""
