"""recognise: segment, read, flag; never drop a die; real photos above a measured floor."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from drawn_dice import draw_die, felt, iou

from models.common.matching import match
from vision.calibration import calibrate
from vision.detect import SECOND_LOOK_FROM, DiceFinder
from vision.errors import BadModelError
from vision.faces import Guess
from vision.reading import FLAGS, NO_DIE
from vision.recognise import (
    SLANTED_UNSURE_BELOW,
    UNSURE_BELOW,
    Recogniser,
    Terms,
    classical_kind,
    default_finder,
    kind_of,
    no_die,
    read_die,
    recognise,
)
from vision.segment import Blob, from_boxes

# Measured on every 40th photo of the Rune55 test split (15 photos, 46 dice) without a
# calibration, with dicefind 1.4.0 and dieface 2.3.0: 45 dice found at IoU 0.5 (recall
# 0.98), 44 of them read right (0.98; 2.2.0 read all 45); dicefind 1.0.0 found 31. On the
# whole split: precision 0.89, recall 0.86, value 0.955. The floors catch a regression; the
# whole split is still short of the targets (99 %).
RUNE55_EVERY = 40
RUNE55_RECALL_FLOOR = 0.9
RUNE55_VALUE_FLOOR = 0.93
# a Rune55 test photo of three dice on a plain background, all found by dicefind 1.0.0
RUNE55_PHOTO = "00122_jpg.rf.a959945c381ea75345ee03f1a1d2e2c9"


@pytest.fixture(scope="module")
def recogniser() -> Recogniser:
    return Recogniser(kinds=("d6",))


class Boxes:
    """A finder that returns the boxes it is given (vision.detect.DiceFinder's interface):
    the drawn dice below are flat squares the detector was not trained on, and these tests
    check the reading and its flags, not the detector."""

    threshold, mirrored_threshold = 0.4, 0.35

    def __init__(self, boxes: list[tuple[int, int, int, int]]) -> None:
        self.boxes = boxes

    def find(
        self,
        frame: np.ndarray,
        long_side: int | None = None,
        mirrored: bool = False,
        threshold: float | None = None,
    ) -> list[tuple[tuple[int, int, int, int], float]]:
        return [(b, 0.9) for b in self.boxes]

    def find_small(self, frame: np.ndarray, found: list) -> list:
        return []  # the boxes given are all there is


def test_drawn_dice_are_read_in_reading_order() -> None:
    image = felt(seed=7)
    calibration = calibrate(image.copy())
    boxes = [draw_die(image, v, 30 + 90 * i, 60) for i, v in enumerate((6, 2, 4))]
    reading = recognise(image, calibration, kinds=("d6",))
    assert [iou(d.box, b) > 0.6 for d, b in zip(reading.dice, boxes, strict=True)] == [True] * 3
    assert all(d.kind == "d6" and 1 <= d.value <= 6 for d in reading.dice)
    assert all(0 <= d.confidence <= 1 and set(d.flags) <= set(FLAGS) for d in reading.dice)
    assert reading.size == (320, 240)
    assert reading.ms > 0


def test_a_die_it_cannot_read_is_kept_and_flagged() -> None:
    image = felt(seed=8)
    calibration = calibrate(image.copy())
    whole = draw_die(image, 4, 100, 80)
    cut = draw_die(image, 2, 300, 100)  # cut by the frame's edge
    reading = recognise(image, calibration, kinds=("d6",), finder=Boxes([whole, cut]))
    assert len(reading.dice) == 2
    cut = max(reading.dice, key=lambda d: d.box[0])
    assert "occluded" in cut.flags


def test_the_json_has_the_shape_design_gives() -> None:
    image = felt(seed=9)
    box = draw_die(image, 3, 100, 80)
    out = recognise(image, kinds=("d6",), finder=Boxes([box])).to_json("photo.jpg")
    assert set(out) == {"image", "ms", "dice"}
    (die,) = out["dice"]
    assert set(die) == {"kind", "value", "colour", "finish", "confidence", "box", "flags"}
    assert die["kind"] in ("d6", "d10")
    assert die["colour"] in ("red", "white", "other")
    assert die["finish"] in ("frosted", "transparent")
    assert len(die["box"]) == 4 and all(isinstance(v, int) for v in die["box"])


def test_a_grey_frame_and_an_empty_tray(recogniser: Recogniser) -> None:
    image = felt(seed=10)
    assert recogniser(image).dice == ()
    draw_die(image, 5, 100, 80)
    assert len(recogniser(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)).dice) == 1


def test_a_synthetic_throw_with_a_calibration() -> None:
    from models.synth import empty_tray, place, random_specs, random_tray, render

    rng = np.random.default_rng(21)
    tray = random_tray(rng, (640, 480))
    specs = random_specs(rng, 10, impossible=True)
    scene = render(tray, specs, place(rng, specs, tray, touching=0.0), rng)
    calibration = calibrate(empty_tray(tray, rng))
    reading = recognise(scene.image, calibration, coloured=True, kinds=("d10",))
    assert 8 <= len(reading.dice) <= 12
    matched = [max(scene.dice, key=lambda s, d=d: iou(s.box, d.box)) for d in reading.dice]
    colours = [d.colour == s.spec.colour for d, s in zip(reading.dice, matched, strict=True)]
    assert np.mean(colours) >= 0.8
    assert all(d.kind == "d10" for d in reading.dice)


def test_the_outline_tells_a_d6_from_a_d10() -> None:
    square = np.zeros((40, 40), bool)
    square[5:35, 5:35] = True
    kite = np.zeros((40, 40), np.uint8)
    points = np.array([[20, 2], [36, 14], [30, 36], [10, 36], [4, 14]], np.int32)
    cv2.fillPoly(kite, [points], 1)
    assert classical_kind(square)[0] == "d6"
    assert classical_kind(kite.astype(bool))[0] == "d10"


def rune55_truth(label: Path, width: int, height: int) -> list[tuple[int, tuple[int, ...]]]:
    out = []
    for line in label.read_text(encoding="utf-8").splitlines():
        if line.strip():
            c, cx, cy, w, h = (float(v) for v in line.split())
            box = ((cx - w / 2) * width, (cy - h / 2) * height, (cx + w / 2) * width)
            out.append((int(c) + 1, (*box, (cy + h / 2) * height)))
    return out


def test_rune55_photos_above_the_floor(rune55: Path, recogniser: Recogniser) -> None:
    photos = sorted((rune55 / "test" / "images").glob("*.jpg"))[::RUNE55_EVERY]
    truth_count = found = right = 0
    for photo in photos:
        image = cv2.imread(str(photo))
        truth = rune55_truth(
            rune55 / "test" / "labels" / (photo.stem + ".txt"), image.shape[1], image.shape[0]
        )
        reading = recogniser(image)
        truth_count += len(truth)
        for value, box in truth:
            best = max(reading.dice, key=lambda d, b=box: iou(d.box, b), default=None)
            if best is not None and iou(best.box, box) >= 0.5:
                found += 1
                right += best.value == value
    assert found / truth_count >= RUNE55_RECALL_FLOOR
    assert right / max(found, 1) >= RUNE55_VALUE_FLOOR


def test_without_a_calibration_the_detector_finds_the_dice(rune55: Path) -> None:
    image = cv2.imread(str(rune55 / "test" / "images" / (RUNE55_PHOTO + ".jpg")))
    truth = rune55_truth(
        rune55 / "test" / "labels" / (RUNE55_PHOTO + ".txt"), image.shape[1], image.shape[0]
    )
    reading = recognise(image, kinds=("d6",))
    detected = from_boxes(image, [box for box, _ in default_finder().find(image, mirrored=True)])
    assert sorted(d.box for d in reading.dice) == sorted(b.box for b in detected.blobs)
    found = [b for _, b in truth if max((iou(d.box, b) for d in reading.dice), default=0) >= 0.5]
    assert len(found) == len(truth) == 3


# a Rune55 test photo of two dice of which the photo alone shows the detector one
MIRRORED_PHOTO = "K2EY8aOQJ86H0HKrieoF_jpg.rf.84ebd4411a2d2e9be830eb7fa0f8c717"


def test_without_a_calibration_the_mirror_images_find_a_die_the_photo_alone_misses(
    rune55: Path,
) -> None:
    image = cv2.imread(str(rune55 / "test" / "images" / (MIRRORED_PHOTO + ".jpg")))
    labels = rune55 / "test" / "labels" / (MIRRORED_PHOTO + ".txt")
    truth = [b for _, b in rune55_truth(labels, image.shape[1], image.shape[0])]
    alone = from_boxes(image, [box for box, _ in default_finder().find(image)]).blobs
    assert len(truth) == 2 and len(match(truth, [b.box for b in alone])) == 1
    dice = recognise(image, kinds=("d6",)).dice
    read = [d.box for d in dice]
    assert len(read) == len(match(truth, read)) == 2
    (new,) = [d for d in dice if not match([d.box], [b.box for b in alone])]
    assert "unsure" in new.flags


# a Rune55 test photo of five dice, one of which the mirror images find under 0.4, its
# value read surely: only the detector's doubt flags it
FAINT_PHOTO = "00061_jpg.rf.a4b7cba69b98e2d2eb9f9b34bf2ecf8b"


def test_a_box_the_mirror_images_find_less_surely_than_one_view_asks_is_a_doubt(
    rune55: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    image = cv2.imread(str(rune55 / "test" / "images" / (FAINT_PHOTO + ".jpg")))
    finder = default_finder()
    found = finder.find(image, mirrored=True)
    faint = [box for box, score in found if score < finder.threshold]
    assert len(found) == 5 and len(faint) == 1
    dice = recognise(image, kinds=("d6",)).dice
    (die,) = [d for d in dice if match([d.box], faint)]
    assert "unsure" in die.flags
    # asked for no more than the mirrored threshold, the same box is no doubt (the model's
    # "no die" doubt, which this box draws too, set aside)
    monkeypatch.setattr("vision.recognise.NO_DIE_DOUBT", 1.0)
    asked_less = recognise(image, kinds=("d6",), finder=DiceFinder(threshold=0.35)).dice
    assert sorted(d.box for d in asked_less) == sorted(d.box for d in dice)
    assert "unsure" not in next(d for d in asked_less if d.box == die.box).flags


def test_a_corrupt_or_missing_detector_is_a_bad_model(tmp_path: Path) -> None:
    corrupt = tmp_path / "dicefind.onnx"
    corrupt.write_bytes(b"not an onnx model")
    with pytest.raises(BadModelError, match="not a loadable ONNX model"):
        Recogniser(finder_model=corrupt)
    with pytest.raises(BadModelError, match="model file missing"):
        DiceFinder(tmp_path / "absent.onnx")


def test_the_detector_sees_a_calibrated_tray_with_dice_of_a_size_it_knows() -> None:
    import dataclasses

    from vision.recognise import detector_side

    calibration = calibrate(felt(seed=7))  # 320x240
    sides = {d: detector_side(dataclasses.replace(calibration, die_side=d)) for d in (10, 20, 40)}
    assert sides == {10: 512, 20: 384, 40: 256}  # 24 px a die, within 256..512, by 32


def test_a_photo_taken_at_a_slant_asks_more_confidence_before_a_die_goes_unflagged() -> None:
    sure = (UNSURE_BELOW + SLANTED_UNSURE_BELOW) / 2  # enough from overhead, not at a slant
    rest = (1 - sure) / 9
    guesses = {
        "value": Guess(7, sure, tuple(sure if v == 7 else rest for v in range(1, 11))),
        "colour": Guess("red", 0.99, (0.99, 0.01)),
        "finish": Guess("frosted", 0.99, (0.99, 0.01)),
    }
    blob = Blob((10, 10, 50, 50), 1600.0)
    crop, mask, pixels = np.zeros((40, 40, 3), np.uint8), np.ones((40, 40), bool), np.zeros((9, 3))

    def flags(overhead: bool) -> tuple[str, ...]:
        terms = Terms(("kind", "value"), ("d10",), tuple(range(1, 11)), overhead)
        die = read_die(crop, mask, pixels, blob, None, guesses, terms)  # type: ignore[arg-type]
        assert die.value == 7
        return die.flags

    assert flags(overhead=True) == ()
    assert flags(overhead=False) == ("unsure",)


def test_the_kind_is_the_likelier_die_and_no_die_is_doubt() -> None:
    classes = ("d6", "d10", NO_DIE)
    guess = Guess(NO_DIE, 0.5, (0.2, 0.3, 0.5))
    assert kind_of(guess, classes) == ("d10", 0.3)  # weight on "none" is not given away
    assert no_die(guess, classes) == 0.5
    # a model without the class never calls a box empty
    assert no_die(Guess("d6", 0.9, (0.9, 0.1)), ("d6", "d10")) == 0.0
    assert no_die(None, classes) == 0.0


# a roboflow-dice-d6 train photo of two dice by a Catan board: the detector boxes a harbour
# token at the board's edge too
ROBOFLOW_PHOTO = "dice_314_jpg"


def test_without_a_calibration_a_box_on_no_die_is_dropped(rune55: Path) -> None:
    folder = rune55.parent / "roboflow-dice-d6" / "train"
    image = cv2.imread(str(folder / "images" / (ROBOFLOW_PHOTO + ".jpg")))
    truth = [b for _, b in rune55_truth(folder / "labels" / (ROBOFLOW_PHOTO + ".txt"), 640, 640)]
    detected = [
        b.box
        for b in from_boxes(
            image, [b for b, _ in default_finder().find(image, mirrored=True)]
        ).blobs
    ]
    on_dice = [detected[j] for _, j in match(truth, detected)]
    assert 0 < len(on_dice) < len(detected)  # the detector's phantom is there
    read = sorted(d.box for d in recognise(image, kinds=("d6",)).dice)
    assert read == sorted(on_dice)  # every die it found is read, the phantom is not


# a Rune55 test photo: the detector boxes two spots at its left edge, which the die-face
# model finds on no die less surely than NO_DIE_FROM
DOUBTED_PHOTO = "qzZdWfoZRIMUHBnaFAfx_jpg.rf.06d7e1e70ecd8101591e0eb298193adf"


def test_without_a_calibration_a_box_likely_on_no_die_is_flagged(
    rune55: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = rune55 / "test"
    image = cv2.imread(str(folder / "images" / (DOUBTED_PHOTO + ".jpg")))
    truth = [b for _, b in rune55_truth(folder / "labels" / (DOUBTED_PHOTO + ".txt"), 640, 640)]

    def inside(box: tuple, point: tuple[float, float]) -> bool:
        return box[0] <= point[0] <= box[2] and box[1] <= point[1] <= box[3]

    def centre(box: tuple) -> tuple[float, float]:
        return (box[0] + box[2]) / 2, (box[1] + box[3]) / 2

    def phantoms() -> dict[tuple, bool]:
        """Whether each die read on no labelled die (by the centre rule) is flagged."""
        return {
            d.box: "unsure" in d.flags
            for d in recognise(image, kinds=("d6",)).dice
            if not any(inside(t, centre(d.box)) or inside(d.box, centre(t)) for t in truth)
        }

    flagged = phantoms()
    assert all(flagged.values())
    monkeypatch.setattr("vision.recognise.NO_DIE_DOUBT", 1.0)
    unflagged = [box for box, on in phantoms().items() if not on]
    assert len(unflagged) == 2 and all(box[0] < 5 for box in unflagged)  # the two at the edge


# a roboflow-dice-d6 valid photo taken from afar: 19 dice of 6-12 px at the detector's input
SMALL_DICE_PHOTO = "dice_441_jpg"


def test_a_photo_of_small_dice_is_read_again_larger(rune55: Path) -> None:
    folder = rune55.parent / "roboflow-dice-d6" / "valid"
    image = cv2.imread(str(folder / "images" / (SMALL_DICE_PHOTO + ".jpg")))
    truth = [b for _, b in rune55_truth(folder / "labels" / (SMALL_DICE_PHOTO + ".txt"), 640, 640)]
    finder = default_finder()
    first = finder.find(image, mirrored=True)
    assert len(match(truth, [b for b, _ in first])) == 0  # at its own size the net sees none
    more = finder.find_small(image, first)
    assert all(score >= SECOND_LOOK_FROM for _, score in more)
    on_dice = match(truth, [b for b, _ in more])
    assert len(on_dice) >= 5 and len(on_dice) == len(more)  # dice, and only dice
    read = recognise(image, kinds=("d6",)).dice
    assert len(match(truth, [d.box for d in read])) == len(on_dice)


# a roboflow-dice-d6 valid photo of two dice by a Catan board, about 25 px across
LARGE_DICE_PHOTO = "dice_366_jpg"


def test_dice_large_enough_are_not_read_again(rune55: Path) -> None:
    folder = rune55.parent / "roboflow-dice-d6" / "valid"
    image = cv2.imread(str(folder / "images" / (LARGE_DICE_PHOTO + ".jpg")))
    finder = default_finder()
    found = finder.find(image, mirrored=True)
    assert found and finder.find_small(image, found) == []
