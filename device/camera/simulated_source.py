"""The simulated tray: a camera that films drawn dice, for tables without a camera and tests.

Why it films throws instead of handing over dice: the appliance then runs the same pipeline
on it as on the Pi camera (settle detection, reading), and a test can compare what the
pipeline read with ``last_throw``, what was really thrown. The tray is empty until
``throw``; then a few frames show the dice rolling (drawn smeared, in passing places) and
the settled scene is held until the next throw. Kept dice stay where they lay.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING

import numpy as np

from device import memory
from device.camera.frames import CameraError, Frame, Pacer, grey_lores
from models.synth import (
    DieSpec,
    Pose,
    Tray,
    empty_tray,
    place,
    random_specs,
    random_tray,
    render,
)

if TYPE_CHECKING:
    from vision.calibration import Calibration

# how smeared the rolling frames are, in die sides: fast at first, slowing down
ROLL_MOTION = (1.6, 1.1, 0.7, 0.4)
Shot = tuple[list[DieSpec], list[Pose], float]  # what to draw, and its motion


def calibrate_tray(tray: Tray, rng: np.random.Generator) -> Calibration:
    """The calibration an owner makes at this simulated table: on the photo of its empty
    tray, told its camera's field of view."""
    from vision.calibration import calibrate

    return calibrate(empty_tray(tray, rng), field_of_view=tray.field_of_view)


class SimulatedSource:
    """A random table (from ``seed``) seen at ``size``; ``throw`` puts dice on it.

    ``kinds`` are the kinds of dice ``throw(n)`` draws at random. ``realtime=False`` gives
    frames as fast as they are read (tests).
    """

    name = "simulated"
    exclusive = False

    def __init__(
        self,
        *,
        size: tuple[int, int] = (1280, 960),
        lores_size: tuple[int, int] = (320, 240),
        fps: float = 15.0,
        seed: int | None = None,
        kinds: Sequence[str] = ("d6",),
        realtime: bool = True,
    ) -> None:
        self.lores_size = lores_size
        self.fps = fps
        self.kinds = tuple(kinds)
        self.realtime = realtime
        # one generator per thread: throws come from the page, drawing runs in the runner
        throws, drawing = np.random.SeedSequence(seed).spawn(2)
        self._rng = np.random.default_rng(throws)
        self._draw_rng = np.random.default_rng(drawing)
        self.tray: Tray = random_tray(self._rng, size)
        self._guard = threading.Lock()
        self._shots: list[Shot] = []
        self._specs: list[DieSpec] = []
        self._poses: list[Pose] = []
        self._shown: np.ndarray | None = None
        self._lores: tuple[np.ndarray, np.ndarray] | None = None
        self._pacer = Pacer(fps, realtime)
        self._seq = 0
        self._open = False

    @property
    def field_of_view(self) -> float:
        """The degrees across the simulated camera sees (the calibration needs it)."""
        return self.tray.field_of_view

    @property
    def last_throw(self) -> list[DieSpec]:
        """The dice on the tray after the last throw, in the order thrown."""
        with self._guard:
            return list(self._specs)

    @property
    def settled(self) -> bool:
        """True once the last throw's resting scene is what the camera shows."""
        with self._guard:
            return not self._shots

    def throw(self, dice: int | Sequence[DieSpec] = 5, keep: Collection[int] = ()) -> list[DieSpec]:
        """Throw ``dice`` (a number of random dice, or these dice in this order); the dice at
        the positions in ``keep`` stay as they lay in the last throw. Returns the dice thrown.
        """
        with self._guard:
            bad = sorted(i for i in keep if not 0 <= i < len(self._specs))
            if bad:
                raise ValueError(f"cannot keep dice {bad}: the last throw had {len(self._specs)}")
            count = dice if isinstance(dice, int) else len(dice)
            if any(i >= count for i in keep):
                raise ValueError(f"cannot keep dice {sorted(keep)} in a throw of {count}")
            fresh = (
                random_specs(self._rng, dice, kinds=self.kinds)
                if isinstance(dice, int)
                else list(dice)
            )
            specs = [self._specs[i] if i in keep else spec for i, spec in enumerate(fresh)]
            kept = {i: self._poses[i] for i in keep}
            poses = place(self._rng, specs, self.tray, fixed=kept)
            rolling = [
                (specs, place(self._rng, specs, self.tray, fixed=kept), motion)
                for motion in ROLL_MOTION
            ]
            self._shots = [*rolling, (specs, poses, 0.0)]
            self._specs, self._poses = specs, poses
            return list(specs)

    def open(self) -> None:
        if self._shown is None:
            self._shown = empty_tray(self.tray, self._draw_rng)
        self._pacer = Pacer(self.fps, self.realtime)
        self._open = True

    def read(self, timeout: float) -> Frame | None:
        """The next frame of a throw in progress (drawn now), else the scene at rest."""
        if not self._open:
            raise CameraError("the simulated tray is not open")
        if not self._pacer.wait(timeout):
            return None
        with self._guard:
            shot = self._shots[0] if self._shots else None
        if shot is not None:
            specs, poses, motion = shot
            self._shown = render(self.tray, specs, poses, self._draw_rng, motion=motion).image
            memory.trim()  # a drawing frees some 15 MB: give it back before the next frame
            with self._guard:
                if self._shots and self._shots[0] is shot:  # a new throw may have come
                    self._shots.pop(0)
        assert self._shown is not None
        main = self._shown
        if self._lores is None or self._lores[0] is not main:  # a still tray: the same small
            self._lores = (main, grey_lores(main, self.lores_size))  # picture, made once
        frame = Frame(main, self._lores[1], time.monotonic(), self._seq)
        self._seq += 1
        return frame

    def close(self) -> None:
        self._open = False
