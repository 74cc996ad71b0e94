"""Agents' side of appmem: shortcut plans over the app memory (planner, CLI)."""
