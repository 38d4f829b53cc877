"""When to read the tray: once per throw, when the dice have come to rest.

Why this is more than "motion stopped": a hand passing over the tray, a hand resting on it,
and a player taking dice away all stop moving too, and none of them is a throw. So the
still scene is compared with the scene the tray showed before (the *reference*):

- nothing changed (a hand waved over and left): no event;
- one large patch changed while the picture's edge stayed the same (a hand, an arm, a cup
  still in view): no event until it moves away; a patch that stays still for
  ``blocked_frames`` is taken as part of the tray;
- what changed now looks like the empty tray (dice taken away): no event;
- anything else (dice landed, or most of the edge changed too: the camera moved, another
  photo, the light): one ``Settled``.

An arm crosses the edge of the picture in one place; the table around the tray changes all
along the edge only when the picture itself changed. Brightness is matched before scenes are
compared, so the camera's exposure settling or the room's light dimming is no change.

Why so cheap: it sees every frame of the small grey stream (320x240), at 15 fps on a Pi that
also reads dice, so each frame costs one shrink, one difference and one count (well under a
millisecond; ``settle_benchmark`` measures it). The costlier look at patches happens once per
throw. Work is done at half the stream's size, which also smooths the sensor's noise.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Literal

import cv2
import numpy as np

State = Literal["warming", "idle", "moving", "blocked"]
FLAT = 2.0  # grey levels of spread below which a frame is featureless (no scene to match)
HAND_DICE = 20  # a hand covers about this many dice (a 9 x 7 cm palm, 16 mm dice)


@dataclass(frozen=True)
class Settled:
    """A throw came to rest: ``changed`` is the share of the picture that differs from the
    tray before the throw, ``box`` (x0, y0, x1, y1 in the stream's pixels) encloses it."""

    changed: float
    box: tuple[int, int, int, int]


class SettleDetector:
    """Feed it every small grey frame with ``update``; it returns a ``Settled`` once per throw.

    ``state``: ``warming`` until the tray first stands still (a camera's exposure settles at
    start; that first still scene becomes the reference, and the empty tray unless
    ``set_empty`` gave one), then ``idle``, ``moving``, and ``blocked`` while a large object
    sits in view. ``motion`` is the last frame's share of pixels that changed.

    Thresholds: a pixel changed when its grey level moved more than ``diff_threshold``;
    a frame moves when more than ``motion_share`` of its pixels changed; a scene is the same
    when less than ``same_share`` differs; a patch larger than ``hand_share`` of the picture
    is a hand unless more than ``scene_edge`` of the picture's edge changed too (a new scene).
    Dice are small: one d6 is about 0.2-0.4 % of a tray-filling picture. ``die_share``, the
    share of the picture one die covers (set from the calibration), raises the hand's size
    to ``HAND_DICE`` dice where dice look large: a heap of ten dice landing beside the last
    throw's places is a throw, not a hand.
    """

    def __init__(
        self,
        *,
        still_frames: int = 8,
        diff_threshold: int = 14,
        motion_share: float = 0.001,
        same_share: float = 0.0005,
        hand_share: float = 0.08,
        scene_edge: float = 0.5,
        blocked_frames: int = 150,
    ) -> None:
        self.still_frames = still_frames
        self.diff_threshold = diff_threshold
        self.motion_share = motion_share
        self.same_share = same_share
        self.hand_share = hand_share
        self.scene_edge = scene_edge
        self.blocked_frames = blocked_frames
        self.die_share = 0.0
        self.state: State = "warming"
        self.motion = 0.0
        self._previous: np.ndarray | None = None
        self._reference: np.ndarray | None = None
        self._empty: np.ndarray | None = None
        self._still = 0

    def set_empty(self, lores: np.ndarray) -> None:
        """The empty tray (from the calibration): lets taking dice away pass without an event."""
        self._empty = _shrink(lores)

    def update(self, lores: np.ndarray) -> Settled | None:
        """One frame of the small grey stream; a ``Settled`` when a throw just came to rest."""
        small = _shrink(lores)
        previous, self._previous = self._previous, small
        if previous is None or previous.shape != small.shape:  # the start, or a new camera
            self._still, self.state = 0, "warming"
            if self._empty is not None and self._empty.shape != small.shape:
                self._empty = None
            return None
        self.motion = self._share(self._changed(small, previous))
        if self.motion > self.motion_share:
            self._still = 0
            if self.state != "warming":
                self.state = "moving"
            return None
        self._still += 1
        if self.state == "idle":
            self._follow(small)
        elif self.state == "warming" and self._still >= self.still_frames:
            self._reference = small
            if self._empty is None:
                self._empty = small
            self.state = "idle"
        elif self.state == "moving" and self._still >= self.still_frames:
            return self._verdict(small)
        elif self.state == "blocked" and self._still >= self.blocked_frames:
            self._reference, self.state = small, "idle"
        return None

    # -- the parts ------------------------------------------------------------------------------
    def _changed(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """255 where the two frames differ by more than the threshold, else 0."""
        return cv2.threshold(cv2.absdiff(a, b), self.diff_threshold, 255, cv2.THRESH_BINARY)[1]

    def _difference(self, still: np.ndarray, reference: np.ndarray) -> np.ndarray:
        """Changed pixels between two still scenes once their brightness is matched: the
        camera's exposure settling or the room's light dimming is no change of the tray."""
        (still_mean,), (still_spread,) = (v.ravel() for v in cv2.meanStdDev(still))
        (reference_mean,), (reference_spread,) = (v.ravel() for v in cv2.meanStdDev(reference))
        if min(still_spread, reference_spread) >= FLAT:
            reference = cv2.convertScaleAbs(reference, alpha=still_mean / reference_mean)
        return self._changed(still, reference)

    @staticmethod
    def _share(mask: np.ndarray) -> float:
        return cv2.countNonZero(mask) / mask.size

    def _follow(self, still: np.ndarray) -> None:
        """While nothing happens the reference follows slow light changes, but not a change
        that crept in too slowly to count as motion (a hand sliding in)."""
        assert self._reference is not None
        if self._share(self._difference(still, self._reference)) < self.same_share:
            self._reference = still

    def _verdict(self, still: np.ndarray) -> Settled | None:
        """The tray stands still after moving: was it a throw?"""
        assert self._reference is not None
        changed = self._difference(still, self._reference)
        share = self._share(changed)
        if share < self.same_share:
            self.state = "idle"  # a hand passed over, nothing moved
            return None
        hand = max(self.hand_share, HAND_DICE * self.die_share)
        if _edge_share(changed) < self.scene_edge and _largest_patch(changed) > hand:
            self.state = "blocked"  # the reference stays: the hand may hide nothing new
            return None
        self._reference, self.state = still, "idle"
        if self._empty is not None:
            appeared = cv2.bitwise_and(changed, self._difference(still, self._empty))
            if self._share(appeared) < self.same_share:
                return None  # what changed is bare tray again: dice were taken away
        return Settled(share, _box(changed))


def _shrink(lores: np.ndarray) -> np.ndarray:
    """Half size by averaging: 4x fewer pixels and half the sensor noise."""
    height, width = lores.shape[:2]
    return cv2.resize(lores, (width // 2, height // 2), interpolation=cv2.INTER_AREA)


def _edge_share(mask: np.ndarray) -> float:
    """Share of the picture's outermost pixels that changed."""
    edge = np.concatenate((mask[0], mask[-1], mask[1:-1, 0], mask[1:-1, -1]))
    return cv2.countNonZero(edge) / edge.size


def _largest_patch(mask: np.ndarray) -> float:
    """Share of the picture covered by the largest connected changed patch; a hand's outline
    breaks into pieces, so neighbouring pieces are joined first."""
    joined = cv2.dilate(mask, np.ones((3, 3), np.uint8))
    count, _, stats, _ = cv2.connectedComponentsWithStats(joined, connectivity=8)
    if count < 2:
        return 0.0
    return float(stats[1:, cv2.CC_STAT_AREA].max()) / mask.size


def _box(mask: np.ndarray) -> tuple[int, int, int, int]:
    """The changed patches' bounding box in the stream's pixels (the mask is half size)."""
    x, y, w, h = cv2.boundingRect(mask)
    return (2 * x, 2 * y, 2 * (x + w), 2 * (y + h))


def settle_benchmark(frames: int = 600, size: tuple[int, int] = (320, 240), seed: int = 0) -> float:
    """Milliseconds per frame of ``SettleDetector.update`` on throws of noisy synthetic
    320x240 frames (dice squares rolling, then resting): what ``yamscope bench`` reports."""
    rng = np.random.default_rng(seed)
    width, height = size
    felt = np.full((height, width), 90, np.uint8)
    scenes = []
    for i in range(frames):
        phase = i % 60
        image = felt.copy()
        for die in range(5):
            travel = max(0, 30 - phase) * 4  # rolling for 30 frames, then still
            x = (40 + die * 50 + travel + i // 60 * 7) % (width - 20)
            y = (60 + die * 25 + travel // 2) % (height - 20)
            image[y : y + 16, x : x + 16] = 200
        noise = rng.normal(0, 2.0, image.shape)
        scenes.append(np.clip(image + noise, 0, 255).astype(np.uint8))
    detector = SettleDetector()
    start = time.perf_counter()
    for image in scenes:
        detector.update(image)
    return (time.perf_counter() - start) * 1000 / frames
