"""How wide a Raspberry Pi camera module sees, from what libcamera says about it.

The reading of a die depends on the angle the camera sees it from (vision/perspective.py),
so the calibration needs the field of view of the frames, which a photo does not tell. A
camera module with a fixed lens does: its sensor model names the lens, and the scaler crop
says how much of the sensor a stream uses. A 4:3 stream from the 16:9 sensor of a Camera
Module 3 is cut from the middle, 3456 of its 4608 pixels across: 66° becomes 52°.

The horizontal fields of view are Raspberry Pi's published figures for each module over its
whole pixel array. An HQ or Global Shutter camera takes any lens, so its model says nothing
of the angle (None here: the owner tells it).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

# degrees across the full pixel array; libcamera's model name, "_noir" (no IR filter) aside
SENSOR_FIELD_OF_VIEW: Mapping[str, float] = {
    "ov5647": 53.5,  # Camera Module 1
    "imx219": 62.2,  # Camera Module 2
    "imx708": 66.0,  # Camera Module 3
    "imx708_wide": 102.0,  # Camera Module 3 Wide
}


def sensor_field_of_view(model: str) -> float | None:
    """The module's horizontal field of view over its whole sensor, None for a sensor whose
    lens is the owner's choice or one not listed."""
    return SENSOR_FIELD_OF_VIEW.get(model.lower().replace("_noir", ""))


def cropped_field_of_view(full: float, array_width: float, crop_width: float) -> float:
    """The field of view of ``crop_width`` pixels out of ``array_width``, centred on the lens's
    axis, for a lens that sees ``full`` degrees across the whole width (a pinhole)."""
    half = math.tan(math.radians(full) / 2) * crop_width / array_width
    return math.degrees(2 * math.atan(half))


def stream_field_of_view(
    properties: Mapping[str, Any], scaler_crop: Sequence[int] | None
) -> float | None:
    """The degrees across that a stream sees: picamera2's ``camera_properties`` (``Model``
    and ``PixelArrayActiveAreas`` or ``PixelArraySize``) and the stream's ``ScalerCrop``
    (x, y, width, height in the active area's pixels, from a frame's metadata). None when
    the module's lens is unknown or the numbers are missing."""
    full = sensor_field_of_view(str(properties.get("Model", "")))
    if full is None or not scaler_crop or len(scaler_crop) != 4:
        return None
    areas = properties.get("PixelArrayActiveAreas")
    if areas:
        array_width = _width(areas[0])
    else:
        array_width = float((properties.get("PixelArraySize") or (0, 0))[0])
    crop_width = float(scaler_crop[2])
    if not 0 < crop_width <= array_width:
        return None
    return cropped_field_of_view(full, array_width, crop_width)


def _width(rectangle: Any) -> float:
    """A libcamera.Rectangle's width, or the third of an (x, y, width, height) tuple."""
    width = getattr(rectangle, "width", None)
    return float(width if width is not None else rectangle[2])
