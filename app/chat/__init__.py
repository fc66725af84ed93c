"""The chat: answering questions in conversations (``session.ChatSession``, the turns of ``conversation``),
keeping them in SQLite (``store.ConversationStore``, its records written by ``record_codec``, what a
damaged file still holds copied by ``salvage``), the list the UI shows (``history.ChatHistory``) and the
files an answer cited, which the app may serve (``served_files.SourceRegistry``). The conversation's
history is what the KIMAs paper's context manager reads."""
