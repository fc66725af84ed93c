"""The desktop UI (Gradio): ``ui.app.build_app(desk)`` puts the tabs together, one folder per tab
(``chat``, ``knowledge``, ``evaluation``, ``settings``), each with its ``layout`` (widgets and wiring) and
its handlers (plain functions of an ``app.desktop.DesktopApp``, no Gradio); ``ui.server`` serves the app
on this computer only.

This package imports only the application layer (``app``), ``kimas_desktop`` and Gradio; ``cli/serve_cmd.py``
builds the app on the one runtime.
"""
