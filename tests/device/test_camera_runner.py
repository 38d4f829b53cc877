"""The capture thread: the watchdog reopens a stalled or broken source, errors never escape,
and a second process cannot take the camera."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from device.camera.frames import CameraError, Frame
from device.camera.runner import CameraLock, CameraRunner

ROOT = Path(__file__).resolve().parents[2]
FAST = {"watchdog_seconds": 0.1, "backoff": (0.01, 0.04), "read_timeout": 0.02}


class FakeSource:
    """Delivers ``frames_per_open`` frames after each open, then nothing (a stall), or
    raises once ``raise_after`` frames came; ``open_error`` makes every open fail."""

    exclusive = False

    def __init__(
        self,
        frames_per_open: int = 1_000_000,
        raise_after: int | None = None,
        open_error: Exception | None = None,
    ) -> None:
        self.name = "fake"
        self.frames_per_open = frames_per_open
        self.raise_after = raise_after
        self.open_error = open_error
        self.opens = self.closes = 0
        self.open_times: list[float] = []
        self.close_times: list[float] = []
        self._left = 0
        self._seq = 0
        self.is_open = False

    def open(self) -> None:
        self.opens += 1
        self.open_times.append(time.monotonic())
        if self.open_error is not None:
            raise self.open_error
        self._left = self.frames_per_open
        self.is_open = True

    def read(self, timeout: float) -> Frame | None:
        assert self.is_open
        if self.raise_after is not None and self._seq >= self.raise_after:
            self.raise_after += 3
            raise OSError("cable pulled")
        if self._left <= 0:
            time.sleep(timeout)
            return None
        time.sleep(0.002)
        self._left -= 1
        self._seq += 1
        lores = np.zeros((2, 2), np.uint8)
        return Frame(np.zeros((4, 4, 3), np.uint8), lores, time.monotonic(), self._seq)

    def close(self) -> None:
        self.closes += 1
        self.close_times.append(time.monotonic())
        self.is_open = False


def wait_for(check: Callable[[], bool], timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)


def test_frames_reach_the_slot_and_the_state_says_live() -> None:
    source = FakeSource()
    with CameraRunner(source, **FAST) as runner:
        wait_for(lambda: runner.latest.frames >= 20)
        state = runner.state()
        assert state["state"] == "live" and state["source"] == "fake"
        assert state["fps"] > 0 and state["error"] is None and state["reopens"] == 0
        assert runner.latest.get(timeout=1) is not None
    assert runner.state()["state"] == "stopped"
    assert source.closes == source.opens == 1


def test_a_stalled_source_is_reopened_with_growing_waits() -> None:
    source = FakeSource(frames_per_open=0)  # opens, then never delivers
    runner = CameraRunner(source, **{**FAST, "backoff": (0.05, 0.2)})
    at_close: list[str] = []
    close = source.close
    source.close = lambda: (at_close.append(runner.state()["state"]), close())  # type: ignore
    runner.start()
    try:
        wait_for(lambda: source.opens >= 5)
        wait_for(lambda: runner.state()["state"] == "reopening")
    finally:
        runner.stop()
    state = runner.state()
    assert at_close[:3] == ["stalled"] * 3
    assert state["reopens"] >= 3 and "no frame for 0.1 s" in state["error"]
    waits = np.subtract(source.open_times[1:5], source.close_times[:4])
    assert waits == pytest.approx([0.05, 0.1, 0.2, 0.2], abs=0.03)  # doubling, then capped


def test_a_source_that_raises_is_reopened_and_frames_flow_again() -> None:
    source = FakeSource(raise_after=5)
    with CameraRunner(source, **FAST) as runner:
        wait_for(lambda: source.opens >= 3 and runner.state()["state"] == "live")
        state = runner.state()
    assert state["error"] == "OSError: cable pulled" and state["reopens"] >= 2
    assert source.closes == source.opens


def test_a_source_that_never_opens_fails_without_an_exception_escaping() -> None:
    source = FakeSource(open_error=CameraError("no camera attached"))
    errors: list[BaseException] = []
    hook, threading.excepthook = threading.excepthook, lambda args: errors.append(args.exc_value)
    try:
        with CameraRunner(source, **FAST) as runner:
            wait_for(lambda: source.opens >= 3)
            state = runner.state()
    finally:
        threading.excepthook = hook
    assert not errors
    assert state["state"] == "failed" and state["error"] == "no camera attached"
    assert state["frames"] == 0 and state["fps"] == 0.0


def test_stop_joins_promptly_during_a_long_backoff() -> None:
    source = FakeSource(open_error=CameraError("no camera attached"))
    runner = CameraRunner(source, watchdog_seconds=1, backoff=(30, 30))
    runner.start()
    wait_for(lambda: source.opens == 1)
    started = time.monotonic()
    runner.stop()
    assert time.monotonic() - started < 1


def test_lock_exposure_goes_to_sources_that_can() -> None:
    source = FakeSource()
    assert CameraRunner(source, **FAST).lock_exposure() is False
    calls: list[bool] = []
    source.lock_exposure = lambda: calls.append(True)  # type: ignore[attr-defined]
    assert CameraRunner(source, **FAST).lock_exposure() is True and calls == [True]


def test_a_second_process_is_told_who_holds_the_camera(tmp_path: Path) -> None:
    lock = tmp_path / "camera.lock"
    runner = CameraRunner(FakeSource(), lock_path=lock, **FAST)
    runner.start()
    try:
        second = textwrap.dedent(
            f"""
            import sys
            from pathlib import Path
            from device.camera.frames import CameraError
            from device.camera.runner import CameraRunner

            class Source:
                name = "second"
                def open(self): pass
                def read(self, timeout): return None
                def close(self): pass

            try:
                CameraRunner(Source(), lock_path=Path({str(lock)!r})).start()
            except CameraError as exc:
                print(exc)
                sys.exit(3)
            """
        )
        done = subprocess.run(
            [sys.executable, "-c", second], cwd=ROOT, capture_output=True, text=True, timeout=60
        )
    finally:
        runner.stop()
    assert done.returncode == 3, done.stderr
    assert done.stdout.startswith(f"camera in use by process {os.getpid()}")


def test_the_lock_is_free_again_after_stop(tmp_path: Path) -> None:
    path = tmp_path / "run" / "camera.lock"
    first = CameraLock(path)
    first.acquire()
    with pytest.raises(CameraError, match="in use"):
        CameraLock(path).acquire()
    first.release()
    again = CameraLock(path)
    again.acquire()
    again.release()


def test_exclusive_sources_take_the_runtime_lock(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("YAMSCOPE_RUNTIME_DIR", str(tmp_path))
    source = FakeSource()
    source.exclusive = True  # type: ignore[misc]
    with CameraRunner(source, **FAST), pytest.raises(CameraError, match="in use"):
        CameraLock(tmp_path / "camera.lock").acquire()
