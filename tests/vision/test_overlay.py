"""The overlays draw on a copy, around each die and for the calibration."""

from __future__ import annotations

import numpy as np
from drawn_dice import felt

from vision.calibration import calibrate
from vision.overlay import draw, draw_calibration, label
from vision.reading import ReadDie, Reading


def reading() -> Reading:
    sure = ReadDie("d6", 4, "white", "frosted", 0.97, (40, 40, 80, 80))
    unsure = ReadDie("d10", 10, "red", "transparent", 0.4, (160, 100, 200, 140), ("unsure",))
    return Reading((sure, unsure), 12.0, (320, 240))


def test_boxes_and_labels_are_drawn_on_a_copy() -> None:
    frame = felt()
    before = frame.copy()
    out = draw(frame, reading())
    assert (frame == before).all()
    for x0, y0, x1 in ((40, 40, 80), (160, 100, 200)):
        ring = out[y0 : y0 + 2, x0:x1]
        assert (ring != before[y0 : y0 + 2, x0:x1]).any()
    sure_edge, flagged_edge = out[40, 60], out[100, 180]
    assert not np.array_equal(sure_edge, flagged_edge)  # flagged dice in another colour


def test_labels_use_the_notation_letters() -> None:
    sure, unsure = reading().dice
    assert label(sure) == "4wf"
    assert label(unsure) == "10rt"


def test_a_grey_frame_gets_a_colour_overlay() -> None:
    assert draw(felt()[..., 1], reading()).shape == (240, 320, 3)


def test_the_calibration_drawing_shows_the_felt_outline() -> None:
    image = np.full((240, 320, 3), (60, 150, 70), np.uint8)
    image[:20] = (20, 20, 20)  # a dark table above the felt
    out = draw_calibration(image, calibrate(image))
    assert out.shape == image.shape
    assert (out != image).any(axis=2).sum() > 200


def test_what_the_reader_takes_for_a_die_is_circled_on_the_calibration_drawing() -> None:
    image = np.full((240, 320, 3), (60, 150, 70), np.uint8)
    calibration = calibrate(image)
    plain = draw_calibration(image, calibration)
    circled = draw_calibration(image, calibration, [(200, 150, 220, 170)])
    changed = (circled != plain).any(axis=2)
    assert changed[140:180, 190:230].sum() > 50  # around the box
    assert not changed[:, :150].any()  # and nowhere near the left
