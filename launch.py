"""``python launch.py``: start the desktop app (the same as ``kimas serve``).

python launch.py [--port 7860] [--data-dir DIR] [--config FILE] [--preset NAME]

The wiring itself lives in the application layer (``app.runtime.Runtime``, the one composition root).
"""

from __future__ import annotations

import os
import sys

# Gradio must not phone home; set before it is imported anywhere.
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
os.environ.setdefault("DO_NOT_TRACK", "1")


def main(argv: list[str] | None = None) -> int:
    from cli.main import main as cli_main

    return cli_main(["serve", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
