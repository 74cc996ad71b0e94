"""The adb device driver: observe a device's screen and perform actions on it (used by the crawler and the runtime)."""
