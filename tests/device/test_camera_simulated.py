"""The simulated tray filmed like a camera: throws roll, come to rest, and are seen once."""

from __future__ import annotations

import time

import numpy as np
import pytest

from device.camera import CameraRunner, open_source
from device.camera.simulated_source import ROLL_MOTION, SimulatedSource
from device.config import Camera, CameraSource
from models.synth import DieSpec
from vision.settle import SettleDetector

SIZE, LORES = (640, 480), (320, 240)


def watch(source: SimulatedSource, detector: SettleDetector, frames: int) -> int:
    """Frames read through the detector; how many settle events it fired."""
    events = 0
    for _ in range(frames):
        frame = source.read(timeout=1)
        assert frame is not None
        events += detector.update(frame.lores) is not None
    return events


@pytest.fixture(scope="module")
def source() -> SimulatedSource:
    tray = SimulatedSource(size=SIZE, lores_size=LORES, seed=3, realtime=False)
    tray.open()
    return tray


def test_an_empty_tray_until_the_first_throw(source: SimulatedSource) -> None:
    frame = source.read(timeout=1)
    assert frame is not None
    assert frame.main.shape == (480, 640, 3) and frame.main.dtype == np.uint8
    assert frame.lores.shape == (240, 320) and frame.lores.dtype == np.uint8
    assert source.last_throw == [] and source.settled


def test_each_throw_is_one_settle_event_and_kept_dice_stay(source: SimulatedSource) -> None:
    detector = SettleDetector(still_frames=4)
    assert watch(source, detector, 10) == 0 and detector.state == "idle"

    first = source.throw(5)
    assert len(first) == 5 and source.last_throw == first and not source.settled
    assert watch(source, detector, len(ROLL_MOTION) + 8) == 1 and source.settled
    still = source.read(timeout=1)

    second = source.throw(5, keep=[0, 3])
    assert second[0] == first[0] and second[3] == first[3]
    assert watch(source, detector, len(ROLL_MOTION) + 8) == 1
    moved = source.read(timeout=1)
    assert still is not None and moved is not None
    # the kept dice's places look the same in both resting scenes
    for i in (0, 3):
        pose = source._poses[i]
        x, y, r = int(pose.cx), int(pose.cy), int(pose.side / 3)
        a, b = (f.main[y - r : y + r, x - r : x + r].astype(int) for f in (still, moved))
        assert np.abs(a - b).mean() < 12

    assert watch(source, detector, 30) == 0  # resting: nothing more


def test_given_dice_are_thrown_as_given(source: SimulatedSource) -> None:
    dice = [DieSpec("d10", 10, "red", "frosted"), DieSpec("d10", 3, "white", "transparent")]
    assert source.throw(dice) == dice == source.last_throw
    with pytest.raises(ValueError, match="cannot keep dice \\[5\\]"):
        source.throw(2, keep=[5])


def test_the_factory_makes_it_at_the_configured_size() -> None:
    camera = Camera(width=640, height=480, lores_width=160, lores_height=120, fps=5.0)
    source = open_source(CameraSource("simulated"), camera)
    assert isinstance(source, SimulatedSource)
    assert source.tray.size == (640, 480) and source.lores_size == (160, 120)


def test_throws_reach_a_consumer_through_the_runner() -> None:
    """The whole way: simulated tray → capture thread → newest-frame slot → settle detector."""
    source = SimulatedSource(size=(320, 240), lores_size=(320, 240), fps=30, seed=1)
    detector = SettleDetector(still_frames=5)
    with CameraRunner(source, watchdog_seconds=5) as runner:

        def events_until_at_rest(frames_at_rest: int = 12) -> int:
            """Settle events until the tray has been at rest for ``frames_at_rest`` frames."""
            count, deadline = 0, time.monotonic() + 20
            while frames_at_rest:
                assert time.monotonic() < deadline, runner.state()
                frame = runner.latest.get(timeout=0.5)
                if frame is not None:
                    count += detector.update(frame.lores) is not None
                    frames_at_rest -= source.settled
            return count

        assert events_until_at_rest() == 0
        source.throw(5)
        assert events_until_at_rest() == 1
        assert runner.state()["state"] == "live" and runner.state()["fps"] > 0
