"""App twins: recorded apps replayed behind the real adb server protocol.

A device simulator for tests, benchmarks and demos, not part of the worker
(the production image need not ship it).

`app` (a recorded app as a state machine), `replay` (which recorded outcome an
input replays: the replay modes; `modes` their names), `device` (a twin device:
launcher, current screen, input actions, `build_fleet`), `gestures` (which
views a touch acts on, what a swipe is), `profiles` (screen sizes, densities,
derived updates), `render` (uiautomator XML and PNG screenshots), `vfs` (the
per-device files), `shell` (the device shell's command line; its commands in
`shell_ui`, `shell_system`, `shell_files`, their answer in `shell_result`),
`adb_server` (the adb server protocol on loopback; `adb_wire` its wire format,
`adb_sync` the sync service), `commands` (`appmem twins serve`).
"""
