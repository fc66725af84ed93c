"""The desktop UI (Gradio): ``ui.app.build_app(desk)``. Handlers in ``ui.knowledge.handlers`` are plain functions
of an ``app.desktop.DesktopApp``; ``ui.chat.render`` turns its values into markup.

This package imports only the application layer (``app``), ``kimas_desktop`` and Gradio; ``cli/serve_cmd.py``
builds the app on the one runtime.
"""
