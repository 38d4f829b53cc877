"""The field of view of a Pi camera module's stream, from the sensor's model and crop."""

from __future__ import annotations

import pytest

from device.camera.lens import cropped_field_of_view, sensor_field_of_view, stream_field_of_view


class Rectangle:
    """libcamera.Rectangle's attributes, as picamera2 hands them over."""

    def __init__(self, x: int, y: int, width: int, height: int) -> None:
        self.x, self.y, self.width, self.height = x, y, width, height


@pytest.mark.parametrize(
    ("model", "degrees"),
    [("imx708", 66.0), ("imx708_noir", 66.0), ("imx708_wide_noir", 102.0), ("IMX219", 62.2)],
)
def test_each_fixed_lens_module_is_known_by_its_sensor(model: str, degrees: float) -> None:
    assert sensor_field_of_view(model) == degrees


@pytest.mark.parametrize("model", ["imx477", "imx296", "", "ov9281"])
def test_a_sensor_that_takes_any_lens_or_is_unknown_gives_no_angle(model: str) -> None:
    assert sensor_field_of_view(model) is None


def test_a_crop_sees_less_than_the_whole_sensor_and_all_of_it_sees_all() -> None:
    assert cropped_field_of_view(66.0, 4608, 4608) == pytest.approx(66.0)
    assert cropped_field_of_view(66.0, 4608, 3456) == pytest.approx(51.94, abs=0.01)
    assert cropped_field_of_view(90.0, 1000, 500) == pytest.approx(53.13, abs=0.01)


def test_a_stream_reads_the_active_area_and_the_scaler_crop() -> None:
    camera_module_2 = {"Model": "imx219", "PixelArrayActiveAreas": (Rectangle(8, 8, 3280, 2464),)}
    assert stream_field_of_view(camera_module_2, (0, 0, 3280, 2464)) == pytest.approx(62.2)
    # a 16:9 stream cut from the 4:3 sensor keeps the width
    assert stream_field_of_view(camera_module_2, (0, 310, 3280, 1845)) == pytest.approx(62.2)
    only_size = {"Model": "imx708", "PixelArraySize": (4608, 2592)}
    assert stream_field_of_view(only_size, (576, 0, 3456, 2592)) == pytest.approx(51.94, abs=0.01)


@pytest.mark.parametrize(
    ("properties", "crop"),
    [
        ({"Model": "imx708", "PixelArraySize": (4608, 2592)}, None),
        ({"Model": "imx708", "PixelArraySize": (4608, 2592)}, (0, 0, 5000, 2592)),
        ({"Model": "imx708", "PixelArraySize": (4608, 2592)}, (0, 0, 0, 0)),
        ({"Model": "imx708"}, (0, 0, 3456, 2592)),
        ({"PixelArraySize": (4608, 2592)}, (0, 0, 3456, 2592)),
    ],
)
def test_missing_or_impossible_numbers_give_no_angle(properties: dict, crop: tuple | None) -> None:
    assert stream_field_of_view(properties, crop) is None
