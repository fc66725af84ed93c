"""What other tools reach: the knowledge tools (search, ask, collections, passages) behind ``kimas mcp``.

``knowledge.KnowledgeTools`` runs them on the same ``Runtime`` and pipeline as the CLI and the app and
returns the typed records of ``results``; ``mcp_server`` publishes them with the official MCP SDK
(on stdio: ``mcp_stdio``; over HTTP: ``mcp_http``).
``openai_api`` is the OpenAI-compatible API (``/v1``: ``api_models``, ``openai_wire``, ``api_access``,
``api_token``), which ``ui.server.api_server`` serves beside the app.
"""
