"""The PDF text extractor's worker process: ``python pdf_worker.py``, run by ``PdfExtractor``.

It runs as a plain script (not ``-m indexer...``) so it imports pypdf and nothing else. Requests arrive on
stdin as one JSON line each (``{"path": ...}``); replies go to stdout as frames of a 4-byte
big-endian length followed by JSON: ``{"t": "pages", "n": N}``, then per page ``{"t": "page", "i": 1,
"text": ...}`` or ``{"t": "page_error", "i": 1, "error": ...}``, then ``{"t": "done"}``; or at any point
``{"t": "skip", "reason": ...}`` / ``{"t": "error", "error": ...}``. Anything a library prints goes to
stderr, never into the frame stream. The address space is capped, so a PDF that would eat all memory fails
with MemoryError instead of taking the machine down.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import struct
import sys
import warnings
from typing import Any, BinaryIO

MEMORY_LIMIT_BYTES = 3 * 1024**3


def _send(out: BinaryIO, message: dict[str, Any]) -> None:
    payload = json.dumps(message, ensure_ascii=False).encode("utf-8", "surrogatepass")
    out.write(struct.pack(">I", len(payload)) + payload)
    out.flush()


def _limit_memory() -> None:
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT_BYTES, MEMORY_LIMIT_BYTES))
    except (ImportError, ValueError, OSError):
        pass


def _clean(text: str) -> str:
    # Lone surrogates from broken font maps cannot be encoded; NULs confuse everything downstream.
    return text.encode("utf-8", "replace").decode("utf-8").replace("\x00", "")


def _extract(path: str, out: BinaryIO) -> None:
    from pypdf import PasswordType, PdfReader
    from pypdf.errors import DependencyError, FileNotDecryptedError

    reader = PdfReader(path, strict=False)
    if reader.is_encrypted:
        try:
            result = reader.decrypt("")
        except DependencyError as err:
            _send(
                out, {"t": "skip", "reason": f"encrypted, and decrypting it needs a missing library: {err}"}
            )
            return
        except (FileNotDecryptedError, NotImplementedError) as err:
            _send(out, {"t": "skip", "reason": f"encrypted with an unsupported method: {err}"})
            return
        if result == PasswordType.NOT_DECRYPTED:
            _send(out, {"t": "skip", "reason": "encrypted: it needs a password to open"})
            return
    count = len(reader.pages)
    _send(out, {"t": "pages", "n": count})
    for i in range(count):
        try:
            text = reader.pages[i].extract_text() or ""
        except MemoryError:
            raise
        except Exception as err:  # one bad page must not lose the others
            _send(out, {"t": "page_error", "i": i + 1, "error": f"{type(err).__name__}: {err}"[:300]})
            continue
        _send(out, {"t": "page", "i": i + 1, "text": _clean(text)})
    _send(out, {"t": "done"})


def main() -> None:
    out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # stray prints must not corrupt the frames
    _limit_memory()
    with contextlib.suppress(OSError):  # parse in the gaps the embedding model leaves
        os.nice(10)
    warnings.simplefilter("ignore")
    logging.basicConfig(level=logging.CRITICAL)
    logging.getLogger("pypdf").setLevel(logging.CRITICAL)
    for line in sys.stdin:
        request = json.loads(line)
        try:
            _extract(request["path"], out)
        except MemoryError:
            _send(out, {"t": "error", "error": "ran out of memory while reading the PDF"})
        except RecursionError:
            _send(out, {"t": "error", "error": "the PDF structure is nested too deeply (RecursionError)"})
        except Exception as err:
            _send(out, {"t": "error", "error": f"{type(err).__name__}: {err}"[:500]})


if __name__ == "__main__":
    main()
