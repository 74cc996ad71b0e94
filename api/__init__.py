"""The appmem service: an HTTP API (FastAPI) and an MCP server over the one memory, with keys and limits."""
