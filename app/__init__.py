"""The application layer: between the pipeline logic (``kimas_desktop``) and its faces (``ui``, ``cli``).

    runtime      ``Runtime``: the one composition root; builds models and stores per config section,
                 caches them and closes what a new config evicts
    desktop      ``DesktopApp``: what the UI holds: the chat session, knowledge, indexing, models, settings
    chat/        the chat: ``ChatSession``, the conversations kept in SQLite (``ConversationStore``, its
                 records written by ``record_codec``), ``ChatHistory`` (what the UI asks), the files an
                 answer cited (``SourceRegistry``)
    knowledge/   ``Knowledge``: collections (create, remove, folders, uploads, settings) with one set of
                 rules for the app and the command line; their documents, online sources, and
                 ``IndexScheduler``: the one place that decides who indexes when
    evaluation/  the Evaluation tab: test sets, runs, retrieval testing, the job in the background
    settings/    ``ConfigStore`` (every change of the config file, read-modify-write under one lock), the
                 Settings tab's form and rules, and its actions (``Settings``)
    models/      the model catalog, downloads, and the models' loading state
    paths        where one installation keeps its data (``Paths``), and reading its config
    outcomes     what an action of the UI returns (``ActionResult``) and the models' state (``ModelState``)
    doctor       ``kimas doctor``'s report

Only ``runtime`` (and ``doctor``) import the backends (``indexer``, ``local_models``), lazily.
"""
