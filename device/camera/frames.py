"""What every camera source hands over: a frame in two sizes, and the few rules a source keeps.

Why two images per frame: the settle detection looks at every frame and must stay cheap, so
it works on a small grey image (picamera2's ``lores`` stream, for free on the Pi); the dice
are read from the full-size colour image of the one frame where the tray came to rest.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Protocol

import cv2
import numpy as np


class CameraError(RuntimeError):
    """The camera cannot be used; the message is one line a player can act on."""


@dataclass(frozen=True, eq=False)
class Frame:
    """One moment of the tray: ``main`` BGR uint8 (H, W, 3), ``lores`` grey uint8 (h, w).

    ``time`` is ``time.monotonic()`` when the source got it, ``seq`` counts the source's
    frames from 0 (a gap in ``seq`` on the consumer's side means frames were dropped).
    """

    main: np.ndarray
    lores: np.ndarray
    time: float
    seq: int


class FrameSource(Protocol):
    """A camera, a recording or the simulated tray, driven by one thread (the runner).

    ``read`` must come back within about ``timeout`` seconds, with None when no frame came:
    the runner's watchdog relies on it to notice a stalled camera. ``open`` after ``close``
    starts again (the watchdog's reopen). Sources that can fix exposure and white balance
    also have ``lock_exposure() -> None``; sources that know how many degrees across their
    frames see (a Pi camera module, the simulated tray) have ``field_of_view: float | None``,
    which the calibration needs; ``exclusive = False`` marks sources that several processes
    may use at once (no camera behind them).
    """

    name: str

    def open(self) -> None: ...

    def read(self, timeout: float) -> Frame | None: ...

    def close(self) -> None: ...


def grey_lores(main: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """The small grey image of a BGR frame, for sources without a hardware lores stream."""
    grey = cv2.cvtColor(main, cv2.COLOR_BGR2GRAY) if main.ndim == 3 else main
    return cv2.resize(grey, size, interpolation=cv2.INTER_AREA)


class Pacer:
    """Frames at ``fps`` in real time, or as fast as asked when ``realtime`` is False (tests).

    Why a schedule and not a sleep per frame: time spent rendering or decoding a frame is
    taken out of the wait, so a recording plays at its pace, not slower.
    """

    def __init__(self, fps: float, realtime: bool = True) -> None:
        self.interval = 1.0 / fps
        self.realtime = realtime
        self._due: float | None = None

    def wait(self, timeout: float) -> bool:
        """Sleep until the next frame is due; False when that is more than ``timeout`` away."""
        if not self.realtime:
            return True
        now = time.monotonic()
        due = now if self._due is None or self._due < now - self.interval else self._due
        if due - now > timeout:
            time.sleep(max(timeout, 0.0))
            return False
        time.sleep(max(due - now, 0.0))  # a frame late by less than one interval: now
        self._due = due + self.interval
        return True
