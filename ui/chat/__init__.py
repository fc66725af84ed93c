"""The Chat tab: its layout (``layout``: the conversation list, the chat and the question box), its
handlers (``handlers``: send, stop, regenerate, open, rename and delete chats), and the markup it shows
(``render``: answers with their citations and quotes; ``trace_view``: "How this answer was made", the
KIMAs pipeline's stage records from the context manager to the summarizer)."""
