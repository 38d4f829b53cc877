"""The newest-frame-wins slot between the capture thread and the consumer."""

from __future__ import annotations

import threading
import time

import numpy as np

from device.camera.frames import Frame
from device.camera.latest import LatestFrame


def frame(seq: int) -> Frame:
    return Frame(np.zeros((4, 4, 3), np.uint8), np.zeros((2, 2), np.uint8), time.monotonic(), seq)


def test_the_newest_frame_wins_and_replaced_frames_are_counted() -> None:
    slot = LatestFrame()
    for seq in range(3):
        slot.put(frame(seq))
    got = slot.get(timeout=0)
    assert got is not None and got.seq == 2
    assert (slot.frames, slot.drops) == (3, 2)


def test_a_frame_is_taken_once() -> None:
    slot = LatestFrame()
    slot.put(frame(0))
    assert slot.get(timeout=0) is not None
    started = time.monotonic()
    assert slot.get(timeout=0.05) is None
    assert time.monotonic() - started >= 0.04
    slot.put(frame(1))
    assert slot.drops == 0  # the first frame was taken before the second came


def test_get_wakes_up_when_a_frame_arrives() -> None:
    slot = LatestFrame()
    threading.Timer(0.05, slot.put, args=(frame(7),)).start()
    got = slot.get(timeout=5)
    assert got is not None and got.seq == 7


def test_a_pacer_running_late_gives_the_frame_at_once() -> None:
    from device.camera.frames import Pacer

    pacer = Pacer(fps=20)
    assert pacer.wait(1.0)
    time.sleep(0.07)  # work took longer than one frame (50 ms) but less than two
    began = time.monotonic()
    assert pacer.wait(1.0)  # late by less than an interval: no negative sleep, no wait
    assert time.monotonic() - began < 0.02
