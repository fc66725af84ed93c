"""Parsing: a file becomes ``Block``s for the chunker (``blocks``), one parser per format (``text``,
``markdown``, ``html``, ``office``, ``packaged``, ``pdf``), chosen by ``registry``. The heavy formats are
parsed in a guarded worker process (``worker``), whose memory and time are capped (``file_limits``); OCR of
scans and images (``ocr``); the zip guard refuses zip bombs (``zip_guard``); tables become readable rows
(``tables``). This is the "parse" step of the KIMAs paper's indexing side."""
