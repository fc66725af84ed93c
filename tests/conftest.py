from __future__ import annotations

import os

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

from tests.web_site import site  # noqa: F401  (a real HTTP server on 127.0.0.1, for the online sources)
