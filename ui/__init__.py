"""The desktop UI (Gradio): ``ui.app.build_app(session)``. Handlers in ``ui.handlers`` are plain functions
of a ``kimas_desktop.session.DesktopSession``; ``ui.render`` turns its values into markup.

This package imports only ``kimas_desktop`` and Gradio; ``cli/serve_cmd.py`` wires the real backends.
"""
