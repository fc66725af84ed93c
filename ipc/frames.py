"""Length-prefixed JSON frames: how a worker process (the PDF reader, the chat model) talks back.

A frame is a 4-byte big-endian length, then that many bytes of UTF-8 JSON. ``pump_frames`` reads a
worker's stdout into a queue as fast as the worker writes, ending with ``None`` when the stream ends
(the worker exited or crashed), so the worker never waits for its reader.
"""

from __future__ import annotations

import json
import queue
import struct
from typing import IO, Any

__all__ = ["pump_frames"]


def pump_frames(stream: IO[bytes], frames: queue.Queue[dict[str, Any] | None]) -> None:
    try:
        while True:
            header = stream.read(4)
            if len(header) < 4:
                break
            (size,) = struct.unpack(">I", header)
            payload = stream.read(size)
            if len(payload) < size:
                break
            frames.put(json.loads(payload))
    except (OSError, ValueError):
        pass
    frames.put(None)
