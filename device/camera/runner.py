"""The capture thread: one owner for the camera, kept alive all evening.

Why a watchdog: cameras stall (a loose ribbon cable, a USB reset, a libcamera hiccup) and a
table left for an hour must come back without anyone restarting it. Like Frigate's camera
watchdog, the runner closes and reopens a source that gave no frame for ``watchdog_seconds``
or raised, waiting 1, 2, 4 ... up to 30 s between tries, and never lets an error out of the
thread. Why a lock file: only one process may hold the camera (libcamera says "pipeline
handler in use"); a second yamscope, or the Flask reloader's second process, gets a clear
CameraError at start instead of a camera that fails half the time.
"""

from __future__ import annotations

import fcntl
import logging
import os
import tempfile
import threading
import time
from collections import deque
from pathlib import Path
from typing import Any

from device.camera.frames import CameraError, FrameSource
from device.camera.latest import LatestFrame

log = logging.getLogger(__name__)

FPS_WINDOW = 30  # frames the measured rate is averaged over
PROBE_S = 0.25  # how often a source that can tell is asked whether it is back


def runtime_dir() -> Path:
    """Where the lock lives (``YAMSCOPE_RUNTIME_DIR``): per user, cleared at boot."""
    override = os.environ.get("YAMSCOPE_RUNTIME_DIR")
    if override:
        return Path(override)
    xdg = os.environ.get("XDG_RUNTIME_DIR")
    if xdg:
        return Path(xdg) / "yamscope"
    return Path(tempfile.gettempdir()) / f"yamscope-{os.getuid()}"


class CameraLock:
    """An exclusive ``flock`` on a file holding the owner's PID; the kernel frees it when the
    owner dies, so a crashed process never leaves the camera locked."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    def acquire(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            owner = os.read(fd, 32).decode(errors="replace").strip() or "unknown"
            os.close(fd)
            raise CameraError(f"camera in use by process {owner} (lock {self.path})") from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


class CameraRunner:
    """Reads ``source`` in a thread into ``latest``; ``state()`` says how it goes.

    States: ``starting`` (first open), ``live`` (frames arrive), ``stalled`` (no frame for
    the watchdog's time, or the source raised), ``reopening`` (waiting to open it again),
    ``failed`` (the last open failed; it is tried again after the backoff), ``stopped``.
    ``backoff`` is (first wait, longest wait) in seconds. ``lock_path`` defaults to
    ``runtime_dir() / "camera.lock"`` for sources that hold a device; sources marked
    ``exclusive = False`` (the simulated tray, replays) take no lock unless given one.
    """

    def __init__(
        self,
        source: FrameSource,
        *,
        watchdog_seconds: float = 5.0,
        backoff: tuple[float, float] = (1.0, 30.0),
        lock_path: Path | None = None,
        read_timeout: float = 0.5,
    ) -> None:
        self.source = source
        self.latest = LatestFrame()
        self.watchdog_seconds = watchdog_seconds
        self.backoff = backoff
        self.read_timeout = min(read_timeout, watchdog_seconds)
        exclusive = getattr(source, "exclusive", True)
        if lock_path is None and exclusive:
            lock_path = runtime_dir() / "camera.lock"
        self._lock = CameraLock(lock_path) if lock_path is not None else None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._guard = threading.Lock()
        self._state = "stopped"
        self._error: str | None = None
        self._reopens = 0
        self._times: deque[float] = deque(maxlen=FPS_WINDOW)

    def start(self) -> None:
        """Take the camera lock (CameraError if another process holds it), start reading."""
        if self._thread is not None:
            return
        if self._lock is not None:
            self._lock.acquire()
        self._stop.clear()
        self._set("starting")
        self._thread = threading.Thread(target=self._run, name="camera", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Stop reading, close the source and give the lock back."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
            if self._thread.is_alive():
                log.warning(
                    "camera thread still in %s.read after %.0f s", self.source.name, timeout
                )
            self._thread = None
        if self._lock is not None:
            self._lock.release()
        self._set("stopped")

    def __enter__(self) -> CameraRunner:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def state(self) -> dict[str, Any]:
        """For the page and ``/api/``: what the camera does, how fast, and the last error."""
        with self._guard:
            times = list(self._times)
            state, error, reopens = self._state, self._error, self._reopens
        fps = (len(times) - 1) / (times[-1] - times[0]) if len(times) > 1 else 0.0
        if times and time.monotonic() - times[-1] > self.watchdog_seconds:
            fps = 0.0
        return {
            "state": state,
            "source": self.source.name,
            "fps": round(fps, 1),
            "frames": self.latest.frames,
            "drops": self.latest.drops,
            "reopens": reopens,
            "error": error,
        }

    def lock_exposure(self) -> bool:
        """Fix exposure and white balance if the source can; False when it cannot."""
        lock = getattr(self.source, "lock_exposure", None)
        if lock is None:
            return False
        lock()
        return True

    # -- the thread ---------------------------------------------------------------------------
    def _set(self, state: str, error: str | None = None) -> None:
        with self._guard:
            self._state = state
            if error is not None:
                self._error = error

    def _run(self) -> None:
        delay = self.backoff[0]
        while not self._stop.is_set():
            try:
                self.source.open()
            except Exception as exc:
                self._set("failed", _describe(exc))
                log.warning("camera %s: %s (next try in %.0f s)", self.source.name, exc, delay)
            else:
                if self._capture():
                    delay = self.backoff[0]
                self._close()
                if self._stop.is_set():
                    break
                with self._guard:
                    self._reopens += 1
                    self._state = "reopening"
            if self._wait(delay):
                break
            delay = min(delay * 2, self.backoff[1])

    def _wait(self, delay: float) -> bool:
        """Wait ``delay`` seconds before the next open, or less when a source that can say
        so (``available()``, as a replay does) comes back meanwhile; True when stopped."""
        probe = getattr(self.source, "available", None)
        if probe is None:
            return self._stop.wait(delay)
        was = _asks(probe)
        end = time.monotonic() + delay
        while (left := end - time.monotonic()) > 0:
            if self._stop.wait(min(PROBE_S, left)):
                return True
            now = _asks(probe)
            if now and not was:
                log.info("camera %s is back", self.source.name)
                return False
            was = now
        return self._stop.is_set()

    def _capture(self) -> bool:
        """Read until stopped, stalled or broken; True if any frame came."""
        last = time.monotonic()
        got_any = False
        while not self._stop.is_set():
            try:
                frame = self.source.read(self.read_timeout)
            except Exception as exc:
                self._set("stalled", _describe(exc))
                log.warning("camera %s: %s", self.source.name, exc)
                return got_any
            now = time.monotonic()
            if frame is None:
                if now - last > self.watchdog_seconds:
                    why = f"no frame for {self.watchdog_seconds:g} s"
                    self._set("stalled", why)
                    log.warning("camera %s: %s, reopening", self.source.name, why)
                    return got_any
                continue
            if not got_any:
                self._set("live")
                got_any = True
            last = now
            with self._guard:
                self._times.append(now)
            self.latest.put(frame)
        return got_any

    def _close(self) -> None:
        try:
            self.source.close()
        except Exception as exc:
            log.warning("camera %s: closing: %s", self.source.name, exc)


def _asks(probe: Any) -> bool:
    try:
        return bool(probe())
    except Exception:
        return False


def _describe(exc: Exception) -> str:
    """CameraErrors are written for players; anything else gets its type for the log reader."""
    return str(exc) if isinstance(exc, CameraError) else f"{type(exc).__name__}: {exc}"
