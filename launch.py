"""``python launch.py``: start the desktop app (the same as ``kimas serve``).

python launch.py [--port 7860] [--data-dir DIR] [--config FILE] [--preset NAME]

The wiring itself lives in the application layer (``app.runtime.Runtime``, the one composition root).
It imports nothing before ``cli.main``, which switches every library's telemetry off before any loads.
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    from cli.main import main as cli_main

    return cli_main(["serve", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
