"""App twins: recorded apps replayed behind the real adb server protocol.

A device simulator for tests, benchmarks and demos, not part of the worker
(the production image need not ship it).

`app` (a recorded app as a state machine), `device` (a twin device: launcher,
current screen, input actions, `build_fleet`), `render` (uiautomator XML and
PNG screenshots), `vfs` (the per-device files), `shell` (the device shell
commands), `adb_server` (the adb server protocol on loopback), `commands`
(`appmem twins serve`).
"""
