"""The tray watcher on the simulated tray: dice thrown on it come to rest, are read once,
and land in the table session with their photo; a reading that cannot be the throw is
reported, not recorded. The reader here is our own stand-in that reads the simulated
tray's truth (the recognition itself is measured by ``yamscope evaluate``)."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from device.camera import CameraRunner
from device.camera.simulated_source import SimulatedSource
from device.store import Store
from device.table import TableSession
from device.tray import TrayWatcher
from vision.faces import FaceReader
from vision.reading import ReadDie, Reading


class TruthReader:
    """Reads what the simulated tray last threw (``drop``: miss that many dice)."""

    def __init__(self, source: SimulatedSource) -> None:
        self.source = source
        self.kinds: tuple[str, ...] = ("d6", "d10")
        self.coloured = False
        self.drop = 0
        self.frames: list[np.ndarray] = []
        self.reader = FaceReader()  # the crops for corrections are cut by the model's rule

    def __call__(self, frame: np.ndarray) -> Reading:
        self.frames.append(frame)
        specs = self.source.last_throw[self.drop :]
        dice = tuple(
            ReadDie(s.kind, s.value, s.colour, s.finish, 0.99, (10 * i, 0, 10 * i + 8, 8))
            for i, s in enumerate(specs)
        )
        return Reading(dice, 1.0, (frame.shape[1], frame.shape[0]))


@pytest.fixture
def table(tmp_path: Path) -> Iterator[tuple[TableSession, TrayWatcher, TruthReader]]:
    session = TableSession(
        Store(tmp_path / "t.db"), rng=random.Random(3), cache_dir=tmp_path, advice=False
    )
    source = SimulatedSource(size=(320, 240), lores_size=(160, 120), seed=5, realtime=False)
    reader = TruthReader(source)
    watcher = TrayWatcher(session, CameraRunner(source, watchdog_seconds=5), reader)  # type: ignore[arg-type]
    session.watcher = watcher
    watcher.start()
    yield session, watcher, reader
    watcher.stop()
    session.close()


def wait_for(condition, what: str, timeout: float = 30.0) -> None:  # type: ignore[no-untyped-def]
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if condition():
            return
        time.sleep(0.02)
    pytest.fail(f"timed out waiting for {what}")


def test_a_throw_on_the_tray_is_read_once_and_recorded(table) -> None:  # type: ignore[no-untyped-def]
    session, watcher, reader = table
    wait_for(lambda: watcher.detector.state == "idle", "the camera to show the still tray")
    session.new_game("yams", None, ["Ana"])
    session.simulated_throw()
    wait_for(lambda: session.game.throw_no == 1, "the first throw")
    thrown = [s.value for s in reader.source.last_throw]
    assert [d.value for d in session.game.dice] == thrown
    assert reader.kinds == ("d6",) and reader.coloured is False  # told by the game
    (stored,) = session.store.throws(session.game_id)
    assert stored["has_snapshot"]
    time.sleep(0.5)  # the dice rest: no second reading of the same throw
    assert len(reader.frames) == 1

    session.simulated_throw(keep=[0, 1])  # three dice roll again, two were set aside
    wait_for(lambda: session.game.throw_no == 2, "the second throw")
    values = [d.value for d in session.game.dice]
    assert values[:2] == thrown[:2]
    assert values[2:] == [s.value for s in reader.source.last_throw]
    assert len(reader.source.last_throw) == 3


def test_a_reading_with_a_die_missing_is_reported_not_recorded(table) -> None:  # type: ignore[no-untyped-def]
    session, watcher, reader = table
    wait_for(lambda: watcher.detector.state == "idle", "the camera to show the still tray")
    session.new_game("yams", None, ["Ana"])
    reader.drop = 1
    session.simulated_throw()
    wait_for(lambda: watcher.status()["message"], "the message")
    assert "4 dice read on the tray, 5 expected" in watcher.status()["message"]
    assert session.state()["camera"]["message"] == watcher.status()["message"]
    assert session.game.throw_no == 0
    assert session.store.throws(session.game_id) == []


def test_the_live_picture_is_made_only_while_someone_watches(table) -> None:  # type: ignore[no-untyped-def]
    _session, watcher, _reader = table
    wait_for(lambda: watcher.detector.state == "idle", "the camera to show the still tray")
    time.sleep(0.3)
    assert watcher.live_jpeg() is None  # nobody asked before: nothing was encoded
    wait_for(lambda: watcher.live_jpeg() is not None, "a live picture")
    assert watcher.live_jpeg().startswith(b"\xff\xd8")  # JPEG


class Lockable(SimulatedSource):
    """The simulated tray with the exposure lock a Pi camera has (counted)."""

    locks = 0

    def lock_exposure(self) -> None:
        self.locks += 1


def test_exposure_is_locked_once_the_calibrated_tray_stands_still(tmp_path: Path) -> None:
    session = TableSession(Store(tmp_path / "t.db"), cache_dir=tmp_path, advice=False)
    source = Lockable(size=(320, 240), lores_size=(160, 120), seed=5, realtime=False)
    reader = TruthReader(source)
    runner = CameraRunner(source, watchdog_seconds=5)
    watcher = TrayWatcher(session, runner, reader, lock_exposure=True)  # type: ignore[arg-type]
    watcher.start()
    try:
        wait_for(lambda: source.locks == 1, "the exposure lock")
        time.sleep(0.3)
        assert source.locks == 1  # once, not on every still frame
    finally:
        watcher.stop()
        session.close()
