"""The owner's health page: is the appliance well, and if not, what to look at first.

Why these: a Pi at a table fails in few ways, each with a sign here. A camera that stopped
(its state and frame rate), a Pi too hot or underpowered (the CPU's temperature in
/sys/class/thermal, and the firmware's throttling flags from ``vcgencmd get_throttled``: a
weak power supply slows the Pi and corrupts SD cards), a full disk (the records stop being
written), memory running out, and a die-face model that computes otherwise on this CPU than
where it was exported (vision/model_check.py). Each is read when asked, never cached, and a
machine that is not a Pi says so instead of showing zeros.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

from device.version import version

# the bits of ``vcgencmd get_throttled`` (Raspberry Pi firmware documentation)
THROTTLE_BITS = {
    0: "under_voltage",
    1: "frequency_capped",
    2: "throttled",
    3: "soft_temperature_limit",
}
SINCE_BOOT = 16  # the same flags, "has occurred since boot", 16 bits up
STARTED = time.monotonic()


def pi_model(root: Path = Path("/")) -> str | None:
    """The board's name from the device tree ("Raspberry Pi 4 Model B Rev 1.5"), None
    when this is not a Raspberry Pi."""
    try:
        text = (root / "proc/device-tree/model").read_bytes().decode(errors="replace")
    except OSError:
        return None
    model = text.rstrip("\x00").strip()
    return model if model.startswith("Raspberry Pi") else None


def cpu_temperature(root: Path = Path("/")) -> float | None:
    """The CPU's temperature in °C from /sys/class/thermal: the zone a Pi names
    ``cpu-thermal`` (x86: ``x86_pkg_temp``), else the first zone; None when there is none."""
    zones = sorted((root / "sys/class/thermal").glob("thermal_zone*"))
    readings = []
    for zone in zones:
        try:
            kind = (zone / "type").read_text().strip()
            millis = int((zone / "temp").read_text().strip())
        except (OSError, ValueError):
            continue
        readings.append((kind not in ("cpu-thermal", "x86_pkg_temp"), millis / 1000))
    return min(readings)[1] if readings else None


def parse_throttled(text: str) -> dict[str, Any]:
    """``throttled=0x50005`` as flags now and since boot (ValueError for anything else)."""
    match = re.fullmatch(r"\s*throttled=(0x[0-9a-fA-F]+)\s*", text)
    if match is None:
        raise ValueError(f"not what vcgencmd get_throttled prints: {text.strip()[:60]!r}")
    bits = int(match.group(1), 16)
    now = {name: bool(bits >> bit & 1) for bit, name in THROTTLE_BITS.items()}
    ever = {name: bool(bits >> (bit + SINCE_BOOT) & 1) for bit, name in THROTTLE_BITS.items()}
    return {"raw": match.group(1), "now": now, "since_boot": ever, "ok": bits == 0}


def throttled(command: str = "vcgencmd") -> dict[str, Any] | None:
    """The firmware's throttling flags, None when there is no vcgencmd (not a Pi's OS)."""
    found = shutil.which(command)
    if found is None:
        return None
    try:
        done = subprocess.run(
            [found, "get_throttled"], capture_output=True, text=True, timeout=5, check=False
        )
        return parse_throttled(done.stdout)
    except (OSError, subprocess.TimeoutExpired, ValueError) as exc:
        return {"error": f"vcgencmd get_throttled: {exc}"}


def board(root: Path = Path("/"), command: str = "vcgencmd") -> dict[str, Any]:
    """The Pi's own signs; on another machine, the temperature where it is told and
    ``pi: false``, so the page says "not a Pi" rather than a healthy-looking blank."""
    model = pi_model(root)
    return {
        "pi": model is not None,
        "model": model,
        "temperature_c": cpu_temperature(root),
        "throttled": throttled(command) if model is not None else None,
    }


def memory(root: Path = Path("/")) -> dict[str, Any]:
    """The machine's memory (total, available) and this process's resident set, in MB."""
    info: dict[str, int] = {}
    try:
        for line in (root / "proc/meminfo").read_text().splitlines():
            name, _, rest = line.partition(":")
            info[name] = int(rest.split()[0]) // 1024
    except (OSError, ValueError, IndexError):
        pass
    resident = None
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                resident = int(line.split()[1]) // 1024
    except (OSError, ValueError, IndexError):
        pass
    return {
        "total_mb": info.get("MemTotal"),
        "available_mb": info.get("MemAvailable"),
        "process_mb": resident,
    }


def disk(folder: Path) -> dict[str, Any]:
    """The free space where the records are (their folder, or the nearest that exists)."""
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    usage = shutil.disk_usage(folder)
    return {
        "folder": str(folder),
        "total_mb": usage.total // 2**20,
        "free_mb": usage.free // 2**20,
        "used_share": round(usage.used / usage.total, 3) if usage.total else None,
    }


def model_check(reader: Any | None) -> dict[str, Any]:
    """The die-face model's check crops read again now (``yamscope check-model``)."""
    from vision.errors import BadModelError
    from vision.faces import DEFAULT_MODEL, FaceReader
    from vision.model_check import check_reader

    try:
        result = check_reader(reader if reader is not None else FaceReader(DEFAULT_MODEL))
    except BadModelError as exc:
        return {"ok": False, "line": str(exc)}
    return {"ok": result.ok, "line": result.line()}


def report(watcher: Any | None, records: Path, reader: Any | None = None) -> dict[str, Any]:
    """Everything the health page shows, read now."""
    camera = watcher.status() if watcher is not None else None
    enrolment = None
    if watcher is not None and watcher.recogniser.reader.enrolment is not None:
        enrolment = watcher.recogniser.reader.enrolment.examples()
    return {
        "version": version(),
        "uptime_s": round(time.monotonic() - STARTED),
        "pid": os.getpid(),
        "camera": camera,
        "board": board(),
        "disk": disk(records),
        "memory": memory(),
        "model": model_check(reader if reader is not None else _reader_of(watcher)),
        "enrolment": {str(k): v for k, v in enrolment.items()} if enrolment else None,
    }


def _reader_of(watcher: Any | None) -> Any | None:
    return watcher.recogniser.reader if watcher is not None else None
