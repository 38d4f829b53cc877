"""Drawings on frames: the live view's boxes and readings, and the calibration's check.

Why on the frame: the players check the reading against the dice they see; a label next to
each die (value, colour and finish letters) and the flags in orange say at a glance which
dice the page will ask about. The calibration drawing shows the felt and die size found.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from vision.calibration import Calibration
from vision.reading import ReadDie, Reading

SURE = (80, 220, 80)  # BGR: a die read without a flag
FLAGGED = (0, 140, 255)  # orange: a die with a flag, and its flags
SEEN = (40, 40, 230)  # red: on a calibration photo, something the reader takes for a die
FONT = cv2.FONT_HERSHEY_SIMPLEX


def label(die: ReadDie) -> str:
    """The die's value with the notation's letters for colour and finish (``7rt``), and
    ``?`` for a colour that is neither red nor white."""
    colour = {"red": "r", "white": "w"}.get(die.colour, "?")
    return f"{die.value}{colour}{die.finish[0]}"


def draw(frame: np.ndarray, reading: Reading) -> np.ndarray:
    """A copy of the BGR (or grey) frame with the reading drawn on it."""
    image = cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR) if frame.ndim == 2 else frame.copy()
    scale = max(0.4, min(image.shape[:2]) / 800)
    thick = max(1, round(scale * 2))
    for die in reading.dice:
        x0, y0, x1, y1 = die.box
        colour = FLAGGED if die.flags else SURE
        cv2.rectangle(image, (x0, y0), (x1 - 1, y1 - 1), colour, thick)
        text_at(image, label(die), (x0, y0 - 4), scale, SURE)
        if die.flags:
            text_at(image, " ".join(die.flags), (x0, y1 + round(16 * scale)), scale, FLAGGED)
    return image


def text_at(
    image: np.ndarray, text: str, origin: tuple[int, int], scale: float, colour: tuple
) -> None:
    """Text on a dark band so it reads on any felt, kept inside the image."""
    (w, h), base = cv2.getTextSize(text, FONT, scale, 1)
    x = min(max(0, origin[0]), max(0, image.shape[1] - w))
    y = min(max(h + 1, origin[1]), image.shape[0] - base)
    cv2.rectangle(image, (x, y - h - 1), (x + w, y + base), (0, 0, 0), -1)
    cv2.putText(image, text, (x, y), FONT, scale, colour, 1, cv2.LINE_AA)


def draw_calibration(
    image: np.ndarray,
    calibration: Calibration,
    seen: Sequence[tuple[int, int, int, int]] = (),
) -> np.ndarray:
    """The calibration photo with the felt's outline and, at its middle, a square the size
    a die is expected to be: a glance says whether the tray and the die size were found.
    ``seen``: boxes the reader takes for dice in the photo, circled in red so an owner finds
    what on an empty tray would be read as a die."""
    out = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR) if image.ndim == 2 else image.copy()
    calibration = calibration.for_size(out.shape[1], out.shape[0])
    scale = max(0.4, min(out.shape[:2]) / 800)
    polygon = np.round(np.array(calibration.area)).astype(np.int32)
    cv2.polylines(out, [polygon], True, SURE, max(1, round(2 * scale)), cv2.LINE_AA)
    cx, cy = polygon.mean(axis=0)
    half = calibration.die_side / 2
    corners = (round(cx - half), round(cy - half)), (round(cx + half), round(cy + half))
    cv2.rectangle(out, *corners, FLAGGED, max(1, round(2 * scale)))
    how = "measured" if calibration.die_measured else "guessed"
    text_at(out, f"die {calibration.die_side:.0f} px ({how})", corners[1], scale, FLAGGED)
    for i, line in enumerate(calibration.advice):
        text_at(out, line, (5, round((20 + 22 * i) * scale)), scale, FLAGGED)
    for x0, y0, x1, y1 in seen:
        centre, radius = ((x0 + x1) // 2, (y0 + y1) // 2), max(x1 - x0, y1 - y0)
        cv2.circle(out, centre, radius, SEEN, max(1, round(3 * scale)), cv2.LINE_AA)
        text_at(out, "seen as a die", (x0, y0 - radius // 2), scale, SEEN)
    return out
