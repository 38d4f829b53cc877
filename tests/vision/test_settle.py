"""The settle detector: one event per throw, none for hands, waves, or dice taken away."""

from __future__ import annotations

import cv2
import numpy as np

from vision.settle import Settled, SettleDetector, settle_benchmark

W, H = 320, 240
Spot = tuple[int, int]


class Tray:
    """Small grey frames of a felt tray with ``side`` px dice and, sometimes, a hand."""

    def __init__(self, seed: int = 0, side: int = 16) -> None:
        self.side = side
        rng = np.random.default_rng(seed)
        self.noise = [rng.normal(0, 2.0, (H, W)).astype(np.int16) for _ in range(7)]
        self.shown = 0
        self.dice: list[Spot] = []
        self.detector = SettleDetector()
        self.events: list[Settled] = []

    def frame(self, dice: list[Spot], hand: Spot | None = None) -> np.ndarray:
        image = np.full((H, W), 90, np.uint8)
        side, pip = self.side, self.side * 3 // 8
        for x, y in dice:
            image[y : y + side, x : x + side] = 210
            image[y + pip : y + side - pip, x + pip : x + side - pip] = 30  # a pip
        if hand is not None:
            cv2.ellipse(image, hand, (70, 45), 20, 0, 360, 160, -1)  # ~13 % of the picture
        self.shown += 1  # sensor noise, from a few fixed patterns to keep the tests fast
        return np.clip(image + self.noise[self.shown % 7], 0, 255).astype(np.uint8)

    def show(self, count: int, dice: list[Spot], hand: Spot | None = None) -> None:
        for _ in range(count):
            event = self.detector.update(self.frame(dice, hand))
            if event is not None:
                self.events.append(event)

    def start(self, dice: list[Spot] | None = None) -> None:
        self.dice = dice or []
        self.show(20, self.dice)
        assert self.detector.state == "idle"

    def throw(self, landing: list[Spot]) -> None:
        """Dice rolling in from the left for 10 frames, then resting for 20."""
        for step in range(10, 0, -1):
            self.show(1, [(x - 9 * step, y + (step % 3) * 4) for x, y in landing])
        self.dice = landing
        self.show(20, landing)

    def hand_pass(self, count: int = 8, rest: int = 0, dice: list[Spot] | None = None) -> None:
        """A hand sweeping over the tray, resting ``rest`` frames in the middle, then gone;
        ``dice`` is what it leaves on the tray (default: what was there)."""
        for step in range(count):
            self.show(1, self.dice, (20 + step * 35, 120))
        self.show(rest, self.dice, (20 + count * 35, 120))
        self.dice = self.dice if dice is None else dice
        self.show(20, self.dice)


FIVE = [(40, 50), (100, 80), (170, 60), (220, 150), (120, 170)]
OTHER_FIVE = [(60, 140), (150, 110), (200, 40), (260, 90), (90, 30)]


def test_a_still_tray_never_fires() -> None:
    tray = Tray()
    tray.start(FIVE)
    tray.show(300, FIVE)
    assert tray.events == []


def test_one_event_per_throw() -> None:
    tray = Tray()
    tray.start()
    tray.throw(FIVE)
    tray.throw(OTHER_FIVE)
    tray.throw(FIVE[:3])
    assert len(tray.events) == 3
    first = tray.events[0]
    assert 0.01 < first.changed < 0.1
    x0, y0, x1, y1 = first.box
    assert (x0, y0) <= (40, 50) and (x1, y1) >= (236, 186)


def test_dice_landing_in_a_heap_beside_the_last_throw_are_a_throw() -> None:
    """Ten dice as large as the simulated tray's (0.75 % of the picture) in a heap, thrown
    again to land a third of a die from where they lay: what changed (the old places and
    the new) is one patch larger than a hand, but what is new on the tray is ten dice, not
    a hand, so the throw is read."""
    tray = Tray(side=24)
    tray.detector.die_share = 24 * 24 / (W * H)  # what the calibration tells the watcher
    tray.start()  # the empty tray
    heap = [(80 + 25 * (i % 5), 60 + 25 * (i // 5)) for i in range(10)]
    tray.throw(heap)
    tray.throw([(x + 8, y + 9) for x, y in heap])
    assert len(tray.events) == 2


def test_exposure_settling_at_start_and_later_light_changes_are_no_throw() -> None:
    tray = Tray()
    tray.dice = FIVE
    for gain in np.linspace(0.5, 1.0, 12):  # the camera's exposure settling at start
        tray.detector.update(cv2.convertScaleAbs(tray.frame(FIVE), alpha=gain))
    tray.show(30, FIVE)
    for gain in np.linspace(1.0, 0.7, 40):  # the room slowly getting darker
        tray.detector.update(cv2.convertScaleAbs(tray.frame(FIVE), alpha=gain))
    for _ in range(20):  # the lamp switched back on at once
        tray.detector.update(tray.frame(FIVE))
    tray.hand_pass()
    assert tray.events == [] and tray.detector.state == "idle"


def test_a_hand_waved_over_the_tray_is_no_throw() -> None:
    tray = Tray()
    tray.start(FIVE)
    tray.hand_pass()
    tray.hand_pass(rest=4)
    assert tray.events == []


def test_no_event_while_a_hand_rests_in_view_then_one_when_it_leaves() -> None:
    tray = Tray()
    tray.start()
    for step in range(10, 0, -1):  # dice thrown from the hand, which stays over the tray
        tray.show(1, [(x - 9 * step, y) for x, y in FIVE], (40 + step * 5, 200))
    tray.show(40, FIVE, (40, 200))
    assert tray.events == [] and tray.detector.state == "blocked"
    tray.dice = FIVE
    tray.hand_pass(count=4)
    assert len(tray.events) == 1


def test_a_hand_that_only_passes_after_resting_leaves_no_event() -> None:
    tray = Tray()
    tray.start(FIVE)
    tray.hand_pass(rest=40)
    assert tray.events == []


def test_taking_dice_away_is_no_throw_once_the_empty_tray_is_known() -> None:
    tray = Tray()
    tray.start()  # the first still scene is taken as the empty tray
    tray.throw(FIVE)
    tray.hand_pass(dice=FIVE[:2])  # three dice taken to be thrown again
    tray.hand_pass(dice=[])
    tray.throw(OTHER_FIVE[:3])
    assert len(tray.events) == 2


def test_set_empty_replaces_the_first_scene_as_the_empty_tray() -> None:
    tray = Tray()
    tray.start(FIVE)  # dice already there at start
    tray.detector.set_empty(tray.frame([]))
    tray.hand_pass(dice=[])
    assert tray.events == []


def test_an_object_left_on_the_tray_becomes_part_of_it() -> None:
    tray = Tray()
    tray.detector = SettleDetector(blocked_frames=30)
    tray.start(FIVE)
    for step in range(5):
        tray.show(1, FIVE, (60 + step * 20, 120))
    tray.show(40, FIVE, (140, 120))
    assert tray.detector.state == "idle" and tray.events == []


def test_a_whole_new_picture_fires() -> None:
    tray = Tray()
    tray.start(FIVE)
    other = np.tile(np.linspace(0, 255, W, dtype=np.uint8), (H, 1))  # not this tray at all
    events = [tray.detector.update(other) for _ in range(20)]
    fired = [event for event in events if event is not None]
    assert len(fired) == 1 and fired[0].changed > 0.5


def test_benchmark_reports_a_small_cost_per_frame() -> None:
    assert 0 < settle_benchmark(frames=120) < 3


def test_a_camera_of_another_size_starts_over() -> None:
    tray = Tray()
    tray.start(FIVE)
    small = np.full((120, 160), 90, np.uint8)
    assert all(tray.detector.update(small) is None for _ in range(20))
    assert tray.detector.state == "idle"
