"""App twins: recorded apps replayed behind the real adb server protocol.

`app` (a recorded app as a state machine), `device` (a twin device: launcher,
current screen, input actions, `build_fleet`), `render` (uiautomator XML and
PNG screenshots), `vfs` (the per-device files), `shell` (the device shell
commands), `adb_server` (the adb server protocol on loopback), `cli`
(`appmem twins serve`).
"""
