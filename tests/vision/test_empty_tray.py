"""The empty tray's picture (vision.empty_tray) and the dice of a calibrated tray
(vision.on_tray): what a frame shows that the empty tray did not, a nudged tray followed,
another tray or a dark room told, and a dice count that is off accounted for."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from drawn_dice import draw_die, felt, iou

from models.synth import empty_tray, random_scene
from vision.calibration import RIDGE_FLOOR, Calibration, calibrate
from vision.errors import BadCalibrationError
from vision.on_tray import NEW, on_tray
from vision.recognise import Recogniser, find_dice, recognise


class Boxes:
    """A finder that returns the boxes it is given, with their scores (vision.detect's
    interface): these tests check what the empty tray makes of a box, not the detector."""

    threshold, mirrored_threshold = 0.4, 0.35  # as the shipped card's

    def __init__(self, found: list[tuple[tuple[float, ...], float]]) -> None:
        self.found = found

    def find(
        self,
        frame: np.ndarray,
        long_side: int | None = None,
        mirrored: bool = False,
        threshold: float | None = None,
    ) -> list:
        if threshold is None:
            threshold = self.mirrored_threshold if mirrored else self.threshold
        return [(box, score) for box, score in self.found if score >= threshold]


def tray_with_rim(seed: int = 0) -> np.ndarray:
    """A 480x360 photo of an empty tray: green felt inside a wooden rim."""
    image = np.empty((360, 480, 3), np.uint8)
    image[:] = (40, 80, 130)  # the wood
    image[40:320, 50:430] = felt(380, 280, seed)
    noise = np.random.default_rng(seed + 100).normal(0, 2, image.shape)
    return np.clip(image + noise, 0, 255).astype(np.uint8)


@pytest.fixture(scope="module")
def tray() -> tuple[np.ndarray, Calibration]:
    empty = tray_with_rim()
    return empty, calibrate(empty)


def with_dice(
    empty: np.ndarray, *where: tuple[int, int], side: int = 40
) -> tuple[np.ndarray, list]:
    frame = tray_with_rim(seed=5)  # the same tray, fresh noise
    boxes = [draw_die(frame, 3, x, y, side) for x, y in where]
    return frame, boxes


# -- the calibration keeps it -------------------------------------------------------------


def test_a_calibration_keeps_its_empty_tray_and_reads_it_back(
    tray: tuple[np.ndarray, Calibration],
) -> None:
    _, calibration = tray
    assert calibration.empty is not None
    again = Calibration.from_json(json.loads(json.dumps(calibration.to_json())))
    assert again.empty is not None
    assert np.array_equal(again.empty.image, calibration.empty.image)
    assert max(again.empty.image.shape[:2]) <= 640


def test_a_version_1_calibration_is_read_without_its_empty_tray(
    tray: tuple[np.ndarray, Calibration],
) -> None:
    _, calibration = tray
    older = calibration.to_json() | {"version": 1}
    older.pop("empty")
    assert Calibration.from_json(older).empty is None


def test_a_damaged_empty_picture_is_one_clear_error(tray: tuple[np.ndarray, Calibration]) -> None:
    _, calibration = tray
    for damage in ("not base64!", "aGVsbG8="):
        with pytest.raises(BadCalibrationError, match="empty tray"):
            Calibration.from_json(calibration.to_json() | {"empty": damage})


def test_frames_of_another_shape_are_refused_and_of_another_size_scaled(
    tray: tuple[np.ndarray, Calibration],
) -> None:
    _, calibration = tray
    with pytest.raises(BadCalibrationError, match="another shape: calibrate again"):
        calibration.for_size(640, 360)
    bigger = calibration.for_size(960, 720)
    assert bigger.die_side == pytest.approx(2 * calibration.die_side)
    assert bigger.empty is not None and bigger.empty.scale == pytest.approx(
        calibration.empty.scale / 2
    )


# -- what is new ----------------------------------------------------------------------------


def test_the_empty_tray_again_shows_nothing_new_and_a_die_does(
    tray: tuple[np.ndarray, Calibration],
) -> None:
    empty, calibration = tray
    assert calibration.empty is not None
    frame, (box,) = with_dice(empty, (200, 150))
    for image, expected in ((tray_with_rim(seed=9), False), (frame, True)):
        small = calibration.empty.shrink(image)
        view = calibration.empty.align(small)
        difference = calibration.empty.difference(small, view, calibration.felt)
        assert view.same_tray and difference.changed < 0.05
        assert (difference.extent(box, calibration.die_side) >= NEW) is expected


def test_a_dimmer_light_and_a_soft_shadow_are_not_new(tray: tuple[np.ndarray, Calibration]) -> None:
    _, calibration = tray
    assert calibration.empty is not None
    frame = tray_with_rim(seed=6).astype(np.float32) * 0.8  # the whole room dimmer
    shade = np.ones(frame.shape[:2], np.float32)
    cv2.circle(shade, (240, 180), 40, 0.65, -1)
    shade = cv2.GaussianBlur(shade, (0, 0), 8)  # a soft shadow, a die wide
    frame = np.clip(frame * shade[..., None], 0, 255).astype(np.uint8)
    small = calibration.empty.shrink(frame)
    difference = calibration.empty.difference(small, calibration.empty.align(small))
    assert difference.light == pytest.approx(0.8 ** (1 / 3), abs=0.08)  # L+16 goes as a cube root
    assert difference.extent((200, 140, 280, 220), calibration.die_side) < NEW


def test_a_speck_is_left_out_and_a_die_the_detector_missed_is_added(
    tray: tuple[np.ndarray, Calibration],
) -> None:
    empty, calibration = tray
    frame, (die,) = with_dice(empty, (120, 100))
    cv2.circle(frame, (330, 230), 2, (230, 230, 230), -1)  # a speck of dust
    speck = (310, 210, 350, 250)
    small = calibration.empty.shrink(frame)
    assert calibration.empty is not None
    difference = calibration.empty.difference(
        small, calibration.empty.align(small), calibration.felt
    )
    found = on_tray([(speck, 0.5)], calibration, difference)
    assert found.left_out == [speck]
    assert len(found.boxes) == 1 and iou(tuple(int(v) for v in found.boxes[0]), die) > 0.5
    assert found.unsure == {0}  # the detector did not find it: to check


def test_a_hard_shadow_darker_than_any_soft_one_is_not_taken_for_a_missed_die(
    tray: tuple[np.ndarray, Calibration],
) -> None:
    empty, calibration = tray
    frame, (die,) = with_dice(empty, (120, 100))
    shade = np.ones(frame.shape[:2], np.float32)
    cv2.rectangle(shade, (300, 200), (345, 245), 0.3, -1)  # a lamp's sharp shadow, a die large
    frame = np.clip(frame * shade[..., None], 0, 255).astype(np.uint8)
    small = calibration.empty.shrink(frame)
    assert calibration.empty is not None
    difference = calibration.empty.difference(
        small, calibration.empty.align(small), calibration.felt
    )
    found = on_tray([], calibration, difference)  # the detector found neither
    assert len(found.boxes) == 1 and iou(tuple(int(v) for v in found.boxes[0]), die) > 0.5


def test_a_die_the_detector_finds_faintly_is_a_die_where_the_tray_is_plainly_new(
    tray: tuple[np.ndarray, Calibration],
) -> None:
    """Under the detector's threshold (a real die in colours or numerals it never learned),
    a box is a die, not one added to check, where the frame is new over most of a die; a
    speck scored as faintly is still left out."""
    empty, calibration = tray
    frame, (die,) = with_dice(empty, (120, 100))
    cv2.circle(frame, (330, 230), 2, (230, 230, 230), -1)
    speck = (310, 210, 350, 250)
    small = calibration.empty.shrink(frame)
    assert calibration.empty is not None
    difference = calibration.empty.difference(
        small, calibration.empty.align(small), calibration.felt
    )
    faint = [(tuple(float(v) for v in die), 0.25), (speck, 0.25)]
    found = on_tray(faint, calibration, difference, found_from=0.4)
    assert found.boxes == [faint[0][0]] and found.unsure == set()
    assert found.left_out == [speck]


def test_a_box_drawn_tighter_than_its_die_leaves_no_second_die(
    tray: tuple[np.ndarray, Calibration],
) -> None:
    """The die's rim outside a box a few pixels too narrow is new on the felt and shows
    the die's edges, but it is that die, not another one: whether the rim surrounds the box
    or runs into a neighbour's die, which is still found."""
    empty, calibration = tray
    assert calibration.empty is not None
    side = round(calibration.die_side)

    def dice_of(frame: np.ndarray, tight: tuple[int, ...]) -> list:
        small = calibration.empty.shrink(frame)
        view = calibration.empty.align(small)
        difference = calibration.empty.difference(small, view, calibration.felt)
        return on_tray([(tight, 0.8)], calibration, difference).boxes

    for where, inset in (((200, 150), (side // 3, 2)), ((200, 150), (side // 6, side // 6))):
        frame, (die,) = with_dice(empty, where, side=side)
        x0, y0, x1, y1 = die
        tight = (x0 + inset[0], y0 + inset[1], x1 - inset[0], y1 - inset[1])
        assert dice_of(frame, tight) == [tight]
        frame, (die, other) = with_dice(empty, where, (where[0] + side + 2, where[1]), side=side)
        boxes = dice_of(frame, tight)
        assert len(boxes) == 2 and iou(tuple(int(v) for v in boxes[1]), other) > 0.5


def test_what_the_empty_tray_showed_is_never_a_die() -> None:
    """A screw lay on the felt when the tray was calibrated, a die-like spot for the
    detector: in play it stays where it is, and is no die; taken away, its place is bare
    felt, no die either."""
    empty = tray_with_rim()
    cv2.circle(empty, (380, 260), 9, (170, 175, 180), -1)  # a screw head
    calibration = calibrate(empty)
    screw = (366, 246, 395, 275)
    for frame in (empty.copy(), tray_with_rim(seed=3)):
        reading = recognise(frame, calibration, kinds=("d6",), finder=Boxes([(screw, 0.55)]))
        assert reading.dice == ()


# -- the view ---------------------------------------------------------------------------------


def test_a_nudged_tray_is_followed_and_the_players_told(
    tray: tuple[np.ndarray, Calibration],
) -> None:
    empty, calibration = tray
    frame, (box,) = with_dice(empty, (200, 150))
    turn = cv2.getRotationMatrix2D((240, 180), 2.0, 1.0)
    turn[:, 2] += (9, -6)  # 2° and 11 px: about a third of a die
    moved = cv2.warpAffine(frame, turn, (480, 360), borderMode=cv2.BORDER_REPLICATE)
    corners = np.array([[box[0], box[1], 1], [box[2], box[3], 1]], np.float32) @ turn.T
    truth = (*corners[0], *corners[1])
    reading = recognise(moved, calibration, kinds=("d6",), finder=Boxes([(truth, 0.8)]))
    assert len(reading.dice) == 1
    assert any("moved" in note and "calibrate again" in note for note in reading.notes)
    assert "unsure" not in reading.dice[0].flags


def test_another_tray_is_told_and_every_die_marked_to_check(
    tray: tuple[np.ndarray, Calibration],
) -> None:
    _, calibration = tray
    other = np.full((360, 480, 3), (30, 30, 140), np.uint8)  # a red felt, no rim
    box = draw_die(other, 4, 200, 150)
    reading = recognise(other, calibration, kinds=("d6",), finder=Boxes([(box, 0.8)]))
    assert any("does not see the calibrated tray" in note for note in reading.notes)
    assert all("unsure" in d.flags for d in reading.dice)


def test_a_much_darker_room_is_told_and_every_die_marked_to_check(
    tray: tuple[np.ndarray, Calibration],
) -> None:
    empty, calibration = tray
    frame, (box,) = with_dice(empty, (200, 150))
    dark = (frame.astype(np.float32) * 0.08).astype(np.uint8)
    reading = recognise(dark, calibration, kinds=("d6",), finder=Boxes([(box, 0.8)]))
    assert any("times darker" in note for note in reading.notes)
    assert all("unsure" in d.flags for d in reading.dice)


# -- the count -------------------------------------------------------------------------------


def test_one_die_too_many_leaves_the_weakest_out_with_a_note(
    tray: tuple[np.ndarray, Calibration],
) -> None:
    empty, calibration = tray
    frame, boxes = with_dice(empty, (80, 80), (200, 80), (320, 200))
    cv2.rectangle(frame, (200, 240), (209, 249), (200, 200, 200), -1)  # a glint, a quarter die
    glint = (196, 236, 214, 254)
    found = [(b, 0.85) for b in boxes] + [(glint, 0.45)]
    finder = Boxes(found)
    assert len(recognise(frame, calibration, kinds=("d6",), finder=finder).dice) == 4
    reading = recognise(frame, calibration, kinds=("d6",), finder=finder, expected=3)
    assert sorted(d.box for d in reading.dice) == sorted(boxes)
    assert any("4 dice seen, 3 thrown" in note for note in reading.notes)


def test_three_dice_for_three_thrown_are_never_argued_away(
    tray: tuple[np.ndarray, Calibration],
) -> None:
    empty, calibration = tray
    frame, boxes = with_dice(empty, (80, 80), (200, 80), (320, 200), (120, 200))
    finder = Boxes([(b, 0.85) for b in boxes])
    reading = recognise(frame, calibration, kinds=("d6",), finder=finder, expected=3)
    assert len(reading.dice) == 4 and reading.notes == ()  # four real dice: the table says


def test_two_touching_dice_under_one_box_are_told_apart_when_one_is_missing(
    tray: tuple[np.ndarray, Calibration],
) -> None:
    empty, calibration = tray
    side = round(calibration.die_side)  # the size the calibration expects (no die measured)
    frame, (left, right) = with_dice(empty, (150, 140), (150 + side, 140), side=side)
    pair = (left[0], left[1], right[2], right[3])
    finder = Boxes([(pair, 0.7)])
    reading = recognise(frame, calibration, kinds=("d6",), finder=finder, expected=2)
    assert len(reading.dice) == 2 and all("unsure" in d.flags for d in reading.dice)
    assert sorted(iou(d.box, b) > 0.5 for d in reading.dice for b in (left, right)).count(True) == 2
    assert any("two touching dice" in note for note in reading.notes)


def test_one_die_showing_its_sides_is_not_told_apart_when_one_is_missing() -> None:
    """Near the tray's edge a die shows its sides and its shadow: a region about twice the
    calibrated die's area under one box, whose split leaves a corner piece a fifth of a die.
    Four dice laid where five are expected: four dice, not a fifth made of one die's corner."""
    from device.camera.simulated_source import SimulatedSource, calibrate_tray
    from models.synth import DieSpec

    source = SimulatedSource(seed=71, realtime=False)  # a tray and throw that showed it
    calibration = calibrate_tray(source.tray, np.random.default_rng(0))
    source.open()
    source.throw([DieSpec("d6", 1, "white", "frosted")] * 4)
    while not source.settled:
        source.read(1.0)
    frame = source.read(1.0)
    assert frame is not None
    found = find_dice(frame.main, calibration, expected=5)
    assert len(found.segmentation.blobs) == 4
    assert not any("two touching dice" in note for note in found.notes)


def test_a_die_short_is_looked_for_again_in_the_frames_mirror_images() -> None:
    """A synthetic ten-d10 throw (`render --seed 9500 --impossible`, scene 79) where a
    transparent die lies half on another: one view of the frame gives the pair one peak.
    Told ten were thrown, the frame is read in its mirror images too, which find the
    tenth die, flagged; not told, nothing is looked for again."""
    from device.camera.simulated_source import calibrate_tray
    from models.synth import random_scene

    scene = random_scene(np.random.default_rng([9500, 79]), (1280, 960), impossible=True)
    calibration = calibrate_tray(scene.tray, np.random.default_rng(79))
    truth = [d.box for d in scene.dice]
    alone = find_dice(scene.image, calibration).segmentation.blobs
    assert len(truth) == 10 and len(alone) == 9
    told = find_dice(scene.image, calibration, expected=10).segmentation.blobs
    assert len(told) == 10
    new = [b for b in told if max(iou(b.box, a.box) for a in alone) < 0.5]
    assert len(new) == 1 and new[0].unsure
    assert max(iou(new[0].box, t) for t in truth) >= 0.5


def test_a_die_half_hidden_by_its_neighbour_is_kept_only_when_one_is_missing(
    tray: tuple[np.ndarray, Calibration],
) -> None:
    """The detector boxes a die lying on another inside its neighbour's box: without the
    count a second look at the same die, with it the missing die, flagged."""
    empty, calibration = tray
    side = round(calibration.die_side)  # the size the calibration expects (no die measured)
    frame, (die,) = with_dice(empty, (150, 140), side=side)
    x0, y0, x1, y1 = die
    hidden = (x0 + 0.3 * side, y0 + 0.3 * side, x1 + 0.1 * side, y1 + 0.1 * side)  # 77 % inside
    finder = Boxes([(die, 0.85), (hidden, 0.6)])
    assert len(recognise(frame, calibration, kinds=("d6",), finder=finder).dice) == 1
    once = recognise(frame, calibration, kinds=("d6",), finder=finder, expected=1)
    assert len(once.dice) == 1 and once.notes == ()
    reading = recognise(frame, calibration, kinds=("d6",), finder=finder, expected=2)
    assert len(reading.dice) == 2
    assert all(any(iou(d.box, b) > 0.9 for d in reading.dice) for b in (die, hidden))
    assert "unsure" in next(d for d in reading.dice if iou(d.box, hidden) > 0.9).flags
    assert any("two dice lying close together" in note for note in reading.notes)
    second_look = (x0 + 0.05 * side, y0, x1, y1 - 0.05 * side)  # the same die again
    finder = Boxes([(die, 0.85), (second_look, 0.6)])
    reading = recognise(frame, calibration, kinds=("d6",), finder=finder, expected=2)
    assert [d.box for d in reading.dice] == [die]  # one die short, said by the table


# -- the appliance follows the tray ---------------------------------------------------------


def test_an_empty_tray_between_throws_refreshes_the_picture_and_a_throw_does_not() -> None:
    rng = np.random.default_rng(11)
    scene = random_scene(rng, size=(640, 480), n=4, kinds=("d6",), cocked=0)
    calibration = calibrate(empty_tray(scene.tray, rng))
    recogniser = Recogniser(calibration, kinds=("d6",))
    before = calibration.empty.image.copy()
    lighter = np.clip(empty_tray(scene.tray, rng).astype(np.int16) + 12, 0, 255).astype(np.uint8)
    assert recogniser(lighter).dice == ()
    after = recogniser.calibration.empty.image
    assert after.mean() > before.mean() + 1  # a quarter of the lighter frame blended in
    assert len(recogniser(scene.image).dice) == 4
    assert np.array_equal(recogniser.calibration.empty.image, after)
    recogniser.calibration = calibration  # a new calibration is aligned afresh
    assert recogniser.view is None


def test_synthetic_throws_are_found_once_on_their_calibrated_trays() -> None:
    """Drawn trays of every felt and light the generator makes, shadows and clear dice
    included: what the detector finds and the empty tray confirms."""
    rng = np.random.default_rng(20261201)
    exact = 0
    for _ in range(6):
        scene = random_scene(rng, size=(640, 480), n=int(rng.integers(3, 9)), kinds=("d6",))
        calibration = calibrate(empty_tray(scene.tray, rng))
        found = find_dice(scene.image, calibration).segmentation
        boxes = [b.box for b in found.blobs]
        truth = [d.box for d in scene.dice]
        exact += len(boxes) == len(truth) and all(
            max(iou(b, t) for b in boxes) > 0.3 for t in truth
        )
    assert exact >= 5


def test_recognise_says_the_notes_on_stderr_and_in_the_json(
    tmp_path: Path, tray: tuple[np.ndarray, Calibration], capsys: pytest.CaptureFixture[str]
) -> None:
    from device.cli import main
    from vision.calibration import save

    _, calibration = tray
    save(calibration, tmp_path / "cal.json")
    dark = (tray_with_rim(seed=2).astype(np.float32) * 0.08).astype(np.uint8)
    cv2.imwrite(str(tmp_path / "dark.png"), dark)
    args = ["recognise", "--calibration", str(tmp_path / "cal.json"), str(tmp_path / "dark.png")]
    assert main(args) == 0
    err = capsys.readouterr().err
    assert "dark.png: the tray is" in err and "times darker" in err
    assert main([*args, "--json"]) == 0
    notes = json.loads(capsys.readouterr().out)["notes"]
    assert len(notes) == 1 and "times darker" in notes[0]


@pytest.mark.parametrize("count", ["0", "21"])
def test_a_dice_count_no_throw_has_exits_2(
    count: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from device.cli import main

    cv2.imwrite(str(tmp_path / "t.png"), tray_with_rim())
    assert main(["recognise", "--count", count, str(tmp_path / "t.png")]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_the_tray_at_rest_is_refreshed_when_empty_and_a_moved_one_is_said() -> None:
    calibration = calibrate(tray_with_rim())
    recogniser = Recogniser(calibration, kinds=("d6",))
    assert calibration.empty is not None
    before = calibration.empty.image.astype(np.float32).mean()
    lighter = np.clip(tray_with_rim(seed=4).astype(np.int16) + 10, 0, 255).astype(np.uint8)
    assert recogniser.look_at_empty(lighter) == ()
    refreshed = recogniser.calibration.empty.image
    assert refreshed.astype(np.float32).mean() > before + 1
    with_die, _ = with_dice(tray_with_rim(), (200, 150))
    assert recogniser.look_at_empty(with_die) == ()
    assert np.array_equal(recogniser.calibration.empty.image, refreshed)  # not while a die lies
    shifted = np.roll(tray_with_rim(seed=7), (12, 14), axis=(0, 1))  # half a die down-right
    notes = recogniser.look_at_empty(shifted)
    assert notes and "moved" in notes[0] and "calibrate again" in notes[0]
    assert Recogniser(kinds=("d6",)).look_at_empty(lighter) is None  # not calibrated


def test_a_second_look_at_one_die_is_left_out_when_the_throw_has_too_many(
    tray: tuple[np.ndarray, Calibration],
) -> None:
    """Two boxes half a die apart are one die seen twice (a clear die's glints): two dice at
    rest are never so close. Left out when the game says there are too many; two touching
    dice, a die apart, both stay."""
    empty, calibration = tray
    assert calibration.empty is not None
    side = round(calibration.die_side)
    frame, (first, second) = with_dice(empty, (120, 100), (300, 200), side=side)
    small = calibration.empty.shrink(frame)
    difference = calibration.empty.difference(
        small, calibration.empty.align(small), calibration.felt
    )
    boxes = [tuple(float(v) for v in b) for b in (first, second)]
    x0, y0, x1, y1 = boxes[0]
    glint = (x0 + side / 2, y0 + side / 8, x1 + side / 2, y1 + side / 8)  # half a die off
    detected = [(boxes[0], 0.9), (boxes[1], 0.6), (glint, 0.7)]  # not the weakest
    found = on_tray(detected, calibration, difference, expected=2)
    assert found.boxes == boxes and found.left_out == [glint]
    assert any("second look" in note for note in found.notes)
    assert len(on_tray(detected, calibration, difference).boxes) == 3  # no count: as found

    frame, (left, right) = with_dice(empty, (200, 150), (200 + side, 150), side=side)
    small = calibration.empty.shrink(frame)
    difference = calibration.empty.difference(
        small, calibration.empty.align(small), calibration.felt
    )
    touching = [(tuple(float(v) for v in b), s) for b, s in ((left, 0.9), (right, 0.8))]
    found = on_tray(touching, calibration, difference, expected=1)
    assert len(found.boxes) == 2 and not any("second look" in n for n in found.notes)


def tray_shaded_beyond_the_picture(seed: int = 0) -> np.ndarray:
    """A 480x360 photo of green felt under a wooden rim on three sides, the felt running out
    of the picture on the right, where the wall beyond the picture shades it gently (a
    smooth felt, as a render's: its grain no larger than the shading's gradient)."""
    rng = np.random.default_rng(seed)
    image = np.empty((360, 480, 3), np.float32)
    image[:] = (40, 80, 130)
    image[40:320, 50:] = (60, 140, 70)
    shade = np.ones(480, np.float32)
    shade[455:] = np.linspace(1.0, 0.6, 25)
    image *= shade[None, :, None]
    image += rng.normal(0, 0.7, image.shape)
    return np.clip(image, 0, 255).astype(np.uint8)


@pytest.mark.parametrize("floor", [RIDGE_FLOOR, 0.0])
def test_a_die_on_the_felt_shaded_by_a_wall_beyond_the_picture_is_found(
    floor: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The felt reaches the picture's edge across the wall's soft shade (a wall's foot in
    view stops it), so a die lying there half out of the picture, which the detector does
    not find, is new on the felt: added and flagged. Without the reach (floor 0), it is not."""
    monkeypatch.setattr("vision.calibration.RIDGE_FLOOR", floor)
    calibration = calibrate(tray_shaded_beyond_the_picture())
    mask = calibration.area_mask(480, 360)
    assert not mask[20, 240] and not mask[180, 20]  # the rim stays out
    frame = tray_shaded_beyond_the_picture(seed=5)
    side = round(calibration.die_side)  # the die of the tray's size
    inner = draw_die(frame, 3, 150, 150, side)
    draw_die(frame, 5, 480 - side * 2 // 3, 160, side)  # two thirds of it in the picture
    found = find_dice(frame, calibration, Boxes([(inner, 0.9)]), expected=2).segmentation
    at_edge = [b for b in found.blobs if b.box[0] > 400]
    if floor:
        assert mask[180, 475]  # the felt reaches the picture's edge
        assert len(found.blobs) == 2 and len(at_edge) == 1 and at_edge[0].unsure
        truth = (480 - side * 2 // 3, 160, 480, 160 + side)
        assert iou(tuple(int(v) for v in at_edge[0].box), truth) > 0.5
    else:
        assert not mask[180, 475] and at_edge == []
