"""The store: every collection in one LanceDB database (``lance_store.LanceStore``), its tables and their
schema (``schema``, ``collection_tables``, ``entity_tables``), the per-collection records (``records``),
search and score fusion (``search``), the embedder's identity (``identity``), the writer lease
(``lease``) and the detection of damaged tables (``database``, ``table_faults``). The read side is the
``ChunkSearcher`` protocol: what the KIMAs paper's retrieval agents search."""
