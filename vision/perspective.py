"""Where the overhead camera sees a die from: how far off its axis, and which part of the
die's box is its top face.

A camera looking straight down sees the top face of a flat die square on wherever it lies
(a plane parallel to the sensor keeps its shape), but also the side that faces the frame's
centre, more of it the further off the axis the die lies. The detector boxes the whole die it
sees, side included, so a crop centred on that box has the top face off-centre and small.
The die-face model learned dice from a narrow camera, which never shows much side: on trays
seen as wide as a Raspberry Pi camera module sees them, it misread 21 of the 217 flat dice
seen more than 22° off the axis, and none of the 1,669 nearer. Reading it the top face's box
instead (:func:`top_face_box`) took that to 1 (numbers in docs/cocked-dice.md).

The optical axis is taken to meet the frame at its centre (a camera pointed straight down at
the tray, the appliance's set-up) and the lens for a pinhole.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

# The side seen at a slant takes this share of the slant x the box's shorter side: cut it and
# the top face is read alone (chosen on wide-camera trays: docs/lab-notes.md#side_share).
SIDE_SHARE = 0.7


def offset_from_centre(shape: Sequence[int], box: Sequence[float]) -> float:
    """How far the box's centre lies from the frame's centre, in frame widths."""
    height, width = shape[:2]
    x0, y0, x1, y1 = box
    return math.hypot((x0 + x1) / 2 - width / 2, (y0 + y1) / 2 - height / 2) / width


def slant(shape: Sequence[int], box: Sequence[float], focal: float) -> float:
    """The tangent of the angle between the optical axis and the camera's line of sight to
    the box's centre; ``focal``: the focal length in frame widths (``Calibration.focal``)."""
    return offset_from_centre(shape, box) / focal


def top_face_box(
    shape: Sequence[int], box: Sequence[float], focal: float
) -> tuple[float, float, float, float]:
    """The part of a flat die's ``box`` (x0, y0, x1, y1) that its top face fills: the band of
    side the camera sees, on the side that faces the frame's centre, cut off."""
    height, width = shape[:2]
    x0, y0, x1, y1 = box
    dx, dy = (x0 + x1) / 2 - width / 2, (y0 + y1) / 2 - height / 2
    distance = math.hypot(dx, dy)
    if distance == 0:
        return (x0, y0, x1, y1)
    band = SIDE_SHARE * distance / (focal * width) * min(x1 - x0, y1 - y0)
    cut_x, cut_y = band * abs(dx) / distance, band * abs(dy) / distance
    x0, x1 = (x0 + cut_x, x1) if dx > 0 else (x0, x1 - cut_x)
    y0, y1 = (y0 + cut_y, y1) if dy > 0 else (y0, y1 - cut_y)
    return (x0, y0, x1, y1)
