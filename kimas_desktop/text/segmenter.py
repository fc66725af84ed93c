"""Chinese word segmentation with jieba's dictionary (https://github.com/fxsjy/jieba, MIT, pure Python,
the dictionary ships inside the package).

``ChineseSegmenter.segment`` cuts a run of Chinese characters into words ("蚂蚁官方对" → "蚂蚁", "官方",
"对"). Its constructor does nothing; the dictionary (about 350,000 words, a couple of seconds) is read the
first time a Chinese run is segmented, once per process, under a lock, so that two threads meeting
Chinese text at the same moment read it once.

jieba's own loader is not used: it logs "Building prefix dict…" to stderr and writes a ``jieba.cache``
file into the shared temporary directory, then trusts whatever file it finds there on the next start
(``marshal``). We build the same prefix dictionary in memory from the packaged ``dict.txt`` and write no
file anywhere.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any

__all__ = ["ChineseSegmenter"]


class ChineseSegmenter:
    """Segments Chinese runs with jieba's dictionary and HMM (new words, names); loaded on first use."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._tokenizer: Any = None

    @property
    def loaded(self) -> bool:
        return self._tokenizer is not None

    def segment(self, run: str) -> list[str]:
        """The words of ``run`` (a run of Chinese characters), in order; nothing is dropped."""
        tokenizer = self._tokenizer if self._tokenizer is not None else self.load()
        return [w for w in tokenizer.lcut(run, HMM=True) if w.strip()]

    def load(self) -> Any:
        """Read the dictionary once (later calls return the loaded tokenizer)."""
        with self._lock:
            if self._tokenizer is None:
                self._tokenizer = _build()
            return self._tokenizer


def _build() -> Any:
    import jieba  # imported here: a process that never meets Chinese text never pays for it

    jieba.setLogLevel(logging.WARNING)  # its logger says DEBUG and writes to stderr
    tokenizer = jieba.Tokenizer()
    dictionary = Path(jieba.__file__).with_name("dict.txt")
    with dictionary.open("rb") as f:
        tokenizer.FREQ, tokenizer.total = tokenizer.gen_pfdict(f)
    tokenizer.initialized = True  # so jieba's own initialize (cache file, logging) never runs
    return tokenizer
