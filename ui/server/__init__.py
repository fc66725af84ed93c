"""Serving the app on this computer only (``server.serve``): the same-origin guard in front of Gradio
(``web_guard``: a foreign Host or another page's Origin is refused), the security headers on every
response and the sandbox for cited files (``security_headers``), and the upload size limit enforced while
the body streams (``request_limit``)."""
