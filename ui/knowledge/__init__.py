"""The Knowledge tab: the collections (the KIMAs paper's knowledge sources) with their indexing, the
files in one of them (``documents_*``), and the online sources (``sources_*``). ``layout`` lays the tab
out and wires it; the ``*_handlers`` modules are plain functions of the app; the ``*_view`` modules make
markup."""
