"""Classical colour and finish, judged against the felt behind the die."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.colour import look
from vision.felt import FeltModel, to_lab


def felt_model(bgr: tuple[int, int, int]) -> FeltModel:
    patch = np.empty((20, 20, 3), np.uint8)
    patch[:] = bgr
    patch = cv2.add(patch, np.random.default_rng(0).integers(0, 3, patch.shape, dtype=np.uint8))
    return FeltModel.fit(to_lab(patch))


def die_pixels(body: tuple[int, int, int], ink: tuple[int, int, int]) -> np.ndarray:
    """A die's pixels: mostly body, some ink, a glint of highlight."""
    die = np.empty((20, 20, 3), np.uint8)
    die[:] = body
    die[8:12, 8:12] = ink
    die[0, :5] = (255, 255, 255)
    return to_lab(die).reshape(-1, 3)


GREEN = (60, 110, 40)


@pytest.mark.parametrize(
    ("body", "ink", "colour", "finish"),
    [
        ((40, 35, 200), (240, 240, 240), "red", "frosted"),  # bright opaque red
        ((30, 40, 95), (200, 200, 200), "red", "transparent"),  # the felt through red glass
        ((228, 230, 232), (25, 25, 30), "white", "frosted"),
        ((80, 125, 62), (25, 25, 30), "white", "transparent"),  # the felt, a little lighter
        ((200, 90, 30), (240, 240, 240), "other", "frosted"),  # a blue die
    ],
)
def test_colour_and_finish(body, ink, colour: str, finish: str) -> None:
    seen = look(die_pixels(body, ink), felt_model(GREEN))
    assert (seen.colour, seen.finish) == (colour, finish)
    assert 0.5 <= seen.colour_confidence <= 1
    assert 0.5 <= seen.finish_confidence <= 1


def test_a_clear_die_on_blue_felt_is_white_not_blue() -> None:
    blue_felt = (150, 60, 30)
    seen = look(die_pixels((160, 100, 80), (25, 25, 30)), felt_model(blue_felt))
    assert seen.colour == "white"
    assert seen.finish == "transparent"
