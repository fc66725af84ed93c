"""What other tools reach: the knowledge tools (search, ask, collections, passages) behind ``kimas mcp``.

``knowledge.KnowledgeTools`` runs them on the same ``Runtime`` and pipeline as the CLI and the app and
returns the typed records of ``results``; ``mcp_server`` publishes them with the official MCP SDK.
"""
