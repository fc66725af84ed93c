"""The collections and their indexing: the collections themselves (``collections.Knowledge``: create,
remove, folders, uploads, settings), their files (``documents``), copying uploads (``uploads``), refusing
folders on virtual file systems (``file_systems``), the online sources (``online_sources``, the KIMAs
paper's web retrieval agents) and who indexes when (``scheduler.IndexScheduler``, its states and
reports in ``indexing``)."""
