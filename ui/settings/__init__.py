"""The Settings tab: ``layout`` lays out the model catalog (downloads, switching) and the answering
settings (preset, context manager, routing, agentic round) and wires them; ``handlers`` are plain
functions of the app."""
