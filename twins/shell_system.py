"""The twin shell's system information: `dumpsys` (window, activity, display, package, power, battery),
`wm size|density`, `getprop` and `pm` (list packages, path, clear), answered as Android prints them."""
from __future__ import annotations

from appmem.formats.ui import stable_id
from appmem.twins.app import LAUNCHER_PACKAGE
from appmem.twins.device import TwinDevice
from appmem.twins.shell_result import ShellResult


def dumpsys(device: TwinDevice, args: list[str], stdin: bytes) -> ShellResult:
    fg = device.foreground
    service = args[0] if args else ""
    token = stable_id(device.serial, fg.state_id)[:8]
    component = f"{fg.package}/{fg.activity}"
    if service == "window":
        return ShellResult.ok(
            "WINDOW MANAGER WINDOWS (dumpsys window windows)\n"
            f"  Window #0 Window{{{token} u0 {component}}}:\n"
            f"    mDisplayId=0 rootTaskId=1 mSession=Session{{{token} 1234:u0a10100}}\n"
            f"    mFrame=[0,0][{device.width},{device.height}]\n\n"
            f"  mCurrentFocus=Window{{{token} u0 {component}}}\n"
            f"  mFocusedApp=AppWindowToken{{{token} token=Token{{{token} "
            f"ActivityRecord{{{token} u0 {component} t1}}}}}}\n")
    if service == "activity":
        return ShellResult.ok(
            "ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)\n"
            f"  mResumedActivity: ActivityRecord{{{token} u0 {component} t1}}\n"
            f"  ResumedActivity: ActivityRecord{{{token} u0 {component} t1}}\n"
            f"TASK 1\n  ACTIVITY {component} {token} pid=1234\n")
    if service == "display":
        w, h = device.width, device.height
        viewport = (f"DisplayViewport{{type=INTERNAL, valid=true, isActive=true, displayId=0, uniqueId='local:0', "
                    f"physicalPort=0, orientation=0, logicalFrame=Rect(0, 0 - {w}, {h}), "
                    f"physicalFrame=Rect(0, 0 - {w}, {h}), deviceWidth={w}, deviceHeight={h}}}")
        return ShellResult.ok(f"DISPLAY MANAGER (dumpsys display)\n  mViewports=[{viewport}]\n"
                              f"  mDefaultViewport={viewport}\n")
    if service == "package" and len(args) > 1:
        app = device.apps.get(args[1])
        if app is None:
            return ShellResult.ok(f"Unable to find package: {args[1]}\n")
        return ShellResult.ok(
            f"Packages:\n  Package [{app.package}] ({token}):\n    userId=10100\n"
            f"    pkg=Package{{{token} {app.package}}}\n    codePath=/data/app/{app.package}-1\n"
            f"    versionCode={app.version_code} minSdk=21 targetSdk={device.sdk}\n    versionName={app.version}\n"
            f"    pkgFlags=[ HAS_CODE ALLOW_CLEAR_USER_DATA ]\n"
            f"    firstInstallTime=2024-01-01 00:00:00\n    lastUpdateTime=2024-01-01 00:00:00\n")
    if service == "power":
        return ShellResult.ok("POWER MANAGER (dumpsys power)\n  mWakefulness=Awake\n"
                              "  mHoldingDisplaySuspendBlocker=true\n")
    if service == "battery":
        return ShellResult.ok("Current Battery Service state:\n  AC powered: true\n  USB powered: false\n"
                              "  status: 2\n  health: 2\n  present: true\n  level: 100\n  scale: 100\n"
                              "  voltage: 4200\n  temperature: 250\n  technology: Li-ion\n")
    return ShellResult.ok(f"Can't find service: {service}\n")


def wm(device: TwinDevice, args: list[str], stdin: bytes) -> ShellResult:
    if args[:1] == ["size"]:
        return ShellResult.ok(f"Physical size: {device.width}x{device.height}\n")
    if args[:1] == ["density"]:
        return ShellResult.ok(f"Physical density: {device.density}\n")
    return ShellResult.error("usage: wm [size|density]")


def _props(device: TwinDevice) -> dict[str, str]:
    return {
        "ro.build.version.sdk": str(device.sdk),
        "ro.sf.lcd_density": str(device.density),
        "ro.build.version.release": {29: "10", 30: "11", 31: "12", 33: "13", 34: "14"}.get(device.sdk, "10"),
        "ro.product.model": "appmem twin",
        "ro.product.name": "appmem_twin",
        "ro.product.device": "twin",
        "ro.product.manufacturer": "appmem",
        "ro.product.brand": "appmem",
        "ro.product.cpu.abi": "arm64-v8a",
        "ro.serialno": device.serial,
        "ro.build.type": "user",
        "ro.debuggable": "0",
        "sys.boot_completed": "1",
    }


def getprop(device: TwinDevice, args: list[str], stdin: bytes) -> ShellResult:
    props = _props(device)
    if args:
        return ShellResult.ok(props.get(args[0], args[1] if len(args) > 1 else "") + "\n")
    return ShellResult.ok("".join(f"[{k}]: [{v}]\n" for k, v in sorted(props.items())))


def pm(device: TwinDevice, args: list[str], stdin: bytes) -> ShellResult:
    sub = args[:2] if args[:1] == ["list"] else args[:1]
    if sub == ["list", "packages"]:
        flags = [a for a in args[2:] if a.startswith("-")]
        words = [a for a in args[2:] if not a.startswith("-")]
        packages = sorted(device.apps) + ([] if "-3" in flags else [LAUNCHER_PACKAGE])
        return ShellResult.ok("".join(f"package:{p}\n" for p in sorted(packages)
                                      if not words or words[0] in p))
    if sub == ["path"] and len(args) > 1:
        if args[1] not in device.apps:
            return ShellResult(exit_code=1)
        return ShellResult.ok(f"package:/data/app/{args[1]}-1/base.apk\n")
    if sub == ["clear"] and len(args) > 1:
        device.stop_app(args[1])
        return ShellResult.ok("Success\n")
    return ShellResult.error("usage: pm [list packages|path|clear] ...")
