"""appmem core: settings, errors, the embedded stack, shared clients and the CLI."""
