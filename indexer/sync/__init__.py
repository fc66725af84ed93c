"""Sync: keeping a collection in line with its folders. ``Indexer`` (``indexer``) plans one sync from the
manifest (``manifest``) and runs one pass over the folders (``folder_pass``) through the ingest pipeline
(``ingest``: a ``reader`` thread, embedding windows, the ``batch_writer``, the values in
``ingest_items``); ``watch`` runs a sync after changes settle; ``file_actions`` removes or forgets one
file."""
