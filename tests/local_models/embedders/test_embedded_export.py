"""A failed export of the embedded model leaves no hidden folder behind (issue 21: each failure left 30-70 MB).

The export fails for real: the model cache is a 2 MB tmpfs (mounting needs root: skipped otherwise).
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from kimas_desktop.errors import ModelError
from local_models.embedders import embedded


def test_an_export_that_fills_the_disk_leaves_nothing_and_says_why(tmp_path: Path) -> None:
    cache = tmp_path / "models"
    cache.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(cache)]).returncode != 0:
        pytest.skip("cannot mount a tmpfs here (needs root)")
    try:
        crashed = cache / f".{embedded.MINILM_DIR_NAME}-crashed"  # what an older crash left
        crashed.mkdir()
        (crashed / "model.onnx").write_bytes(b"x" * 1000)
        old = time.time() - 7200
        os.utime(crashed, (old, old))
        for _ in range(2):
            with pytest.raises(ModelError, match="No space left on device"):
                embedded.materialize_minilm(cache, 128)
            assert sorted(p.name for p in cache.iterdir()) == []
    finally:
        subprocess.run(["umount", "-l", str(cache)], check=False)
