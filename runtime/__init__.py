"""The device-side runtime: runs a task on a device with plans from the memory (local or over HTTP), grounds
steps on the live screen, asks an LLM step by step where the memory has no route, reports the run back."""
