"""The classical pip count: right on clean dice, silent (None) when it cannot tell."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from drawn_dice import SIDE, draw_die, felt

from vision.pips import count_pips


@pytest.mark.parametrize("value", range(1, 7))
@pytest.mark.parametrize("angle", [0, 30])
def test_pips_of_a_white_die_are_counted(value: int, angle: int) -> None:
    image = felt(120, 120)
    draw_die(image, value, 40, 40)
    turn = cv2.getRotationMatrix2D((60, 60), angle, 1.0)
    image = cv2.warpAffine(image, turn, (120, 120), borderMode=cv2.BORDER_REPLICATE)
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    half = SIDE * 0.75
    crop = grey[round(60 - half) : round(60 + half), round(60 - half) : round(60 + half)]
    mask = crop > 150  # the die's body, as segmentation would give it
    mask = cv2.morphologyEx(mask.astype(np.uint8), cv2.MORPH_CLOSE, np.ones((9, 9), np.uint8))
    assert count_pips(crop, mask) == value


def test_light_pips_on_a_red_die_are_counted() -> None:
    image = felt(60, 60)
    draw_die(image, 5, 10, 10, body=(40, 35, 200), ink=(240, 240, 240))
    grey = cv2.cvtColor(image[10:50, 10:50], cv2.COLOR_BGR2GRAY)
    assert count_pips(grey) == 5


def test_no_ink_no_count() -> None:
    blank = np.full((40, 40), 200, np.uint8)
    assert count_pips(blank) is None
    noisy = np.random.default_rng(0).integers(0, 255, (40, 40), dtype=np.uint8)
    assert count_pips(noisy) is None
