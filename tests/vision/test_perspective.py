"""Where the overhead camera sees a die from: the slant off its axis, and the part of the
die's box that its top face fills (the side it sees cut off on the side facing the centre)."""

from __future__ import annotations

import pytest

from vision.calibration import focal_widths
from vision.perspective import SIDE_SHARE, offset_from_centre, slant, top_face_box

SHAPE = (960, 1280)  # height, width


def test_offset_is_in_frame_widths() -> None:
    assert offset_from_centre((480, 640), (310, 230, 330, 250)) == 0.0
    assert offset_from_centre((480, 640), (0, 0, 0, 0)) == pytest.approx(400 / 640)


def test_the_slant_is_the_tangent_of_the_angle_off_the_axis() -> None:
    """A 90° camera sees the frame's edge 45° off its axis, whatever the frame's size."""
    focal = focal_widths(90.0)
    assert focal == pytest.approx(0.5)
    assert slant((480, 640), (630, 230, 650, 250), focal) == pytest.approx(1.0, abs=1e-2)
    assert slant((960, 1280), (1260, 470, 1300, 490), focal) == pytest.approx(1.0, abs=1e-2)
    assert slant((480, 640), (310, 230, 330, 250), focal) == 0.0


def test_a_die_under_the_camera_is_all_top_face() -> None:
    assert top_face_box(SHAPE, (610, 450, 670, 510), 0.8) == (610, 450, 670, 510)


@pytest.mark.parametrize(
    ("box", "kept"),
    [
        ((1000, 450, 1080, 510), "right"),  # right of the centre: its left side is seen
        ((200, 450, 280, 510), "left"),
        ((610, 800, 670, 880), "bottom"),
        ((610, 40, 670, 120), "top"),
    ],
)
def test_the_side_facing_the_centre_is_cut_off(box: tuple[int, ...], kept: str) -> None:
    x0, y0, x1, y1 = top_face_box(SHAPE, box, 0.8)
    fixed = {
        "right": x1 == box[2],
        "left": x0 == box[0],
        "bottom": y1 == box[3],
        "top": y0 == box[1],
    }
    assert fixed[kept]
    assert (x1 - x0) * (y1 - y0) < (box[2] - box[0]) * (box[3] - box[1])
    assert x0 < x1 and y0 < y1


def test_a_wider_lens_sees_more_side() -> None:
    box = (1000, 700, 1080, 780)
    narrow, wide = top_face_box(SHAPE, box, 2.0), top_face_box(SHAPE, box, 0.77)
    assert wide[0] - box[0] > narrow[0] - box[0] > 0
    # the cut is the slant x SIDE_SHARE x the shorter side, split along the line to the centre
    s = slant(SHAPE, box, 0.77)
    dx, dy = 1040 - 640, 740 - 480
    cut = SIDE_SHARE * s * 80
    assert wide[0] - box[0] == pytest.approx(cut * dx / (dx**2 + dy**2) ** 0.5)
    assert wide[1] - box[1] == pytest.approx(cut * dy / (dx**2 + dy**2) ** 0.5)


def _match(reading, box):  # the read die over the labelled one
    def overlap(b) -> float:
        w = min(b[2], box[2]) - max(b[0], box[0])
        h = min(b[3], box[3]) - max(b[1], box[1])
        return max(w, 0) * max(h, 0)

    return max(reading.dice, key=lambda d: overlap(d.box))


@pytest.mark.parametrize("index", [61, 107])
def test_a_steeply_seen_die_is_read_from_its_top_face(
    index: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two trays of the wide-camera validation set (seed 9910) where the shipped die-face
    model misreads a flat die seen more than 22° off the axis from its whole box, and reads
    it right from its top face: the pipeline must do the latter. Die-face 2.12.0 with
    detector 1.7.0's boxes misreads such a die from the whole box on 8 of the 150 trays
    (28, 48, 61, 105, 107, 108, 130, 138) and from the top face on two (22, 105). When
    a model ships that reads these right anyway, run this body over range(150) and pick two
    it still misreads. The numerals' second look (vision/numerals.py) is left
    out: it reads some of these dice right from either box."""
    import numpy as np

    from device.camera.simulated_source import calibrate_tray
    from models.synth import random_scene
    from models.synth.layout import WIDE_CAMERA
    from vision import perspective
    from vision.recognise import Recogniser

    def recognise(image, calibration, **terms):  # the die-face model's crop alone
        return Recogniser(calibration, numerals_model=None, **terms)(image)

    rng = np.random.default_rng([9910, index])
    scene = random_scene(rng, (1280, 960), impossible=True, camera=WIDE_CAMERA)
    calibration = calibrate_tray(scene.tray, np.random.default_rng(index))
    flat = [d for d in scene.dice if not d.spec.cocked]
    steep = [d for d in flat if slant(scene.image.shape, d.box, calibration.focal) > 0.4]
    read = recognise(scene.image, calibration, coloured=True, kinds=("d10",))
    assert all(_match(read, d.box).value == d.spec.value for d in steep)
    monkeypatch.setattr(perspective, "SIDE_SHARE", 0.0)  # the whole box, as before
    whole = recognise(scene.image, calibration, coloured=True, kinds=("d10",))
    assert any(_match(whole, d.box).value != d.spec.value for d in steep)
