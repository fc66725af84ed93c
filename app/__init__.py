"""The application layer: between the pipeline logic (``kimas_desktop``) and its faces (``ui``, ``cli``).

    paths        where one installation keeps its data (``Paths``), and reading its config
    runtime      ``Runtime``: the one composition root; builds models and stores per config section,
                 caches them and closes what a new config evicts
    config_store ``ConfigStore``: every change of the config file, read-modify-write under one lock
    knowledge    ``Knowledge``: collections (create, remove, folders, uploads, settings) with one set of
                 rules for the app and the command line
    scheduler    ``IndexScheduler``: the one place that decides who indexes when (uploads, re-index,
                 start-up catch-up, and the edits the folder watcher feeds it); pause, resume, cancel
    conversations ``ConversationStore``: the chats kept in SQLite in the data dir (``record_codec``
                 turns their typed values into JSON); ``chats.ChatHistory`` is what the UI asks
    desktop      ``DesktopApp``: what the UI holds: the chat session, knowledge, indexing, models, settings
    doctor       ``kimas doctor``'s report

Only ``runtime`` (and ``doctor``) import the backends (``indexer``, ``local_models``), lazily.
"""
