from __future__ import annotations

from ipc.privacy import switch_off_telemetry

# The test session loads onnxruntime, Gradio and the hub in-process too: their telemetry is off before any loads.
switch_off_telemetry()

from tests.web_site import site  # noqa: E402, F401  (a real HTTP server on 127.0.0.1, for the online sources)
