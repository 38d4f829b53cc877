"""The Pi camera path without a Pi: the missing module, the lores conversion, and the calls
made to picamera2 (a stand-in module records them).

These tests never run the real picamera2: ``FakePicamera2`` below is the project's own
stand-in, so what they check is only as right as it is. The parts of the real API it pins
(as picamera2's source and manual have them, 0.3.x with ``capture_request(wait=...)`` taking
seconds; checked by reading, not by running) are:

- ``Picamera2.global_camera_info()`` lists the cameras (empty: none attached), and
  ``Picamera2(camera_num)`` opens one (a busy camera raises "Failed to acquire camera");
- ``create_video_configuration(main=, lores=, controls=)`` with ``{"size", "format"}`` per
  stream ("RGB888", "YUV420") and ``FrameDurationLimits`` in microseconds, then
  ``configure(config)``, ``camera_configuration()["lores"]["stride"]``, ``start()``;
- ``capture_request(wait=seconds)`` gives a request, or raises TimeoutError; a request's
  ``make_array("main")``, ``make_buffer("lores")``, ``get_metadata()`` (``ExposureTime``,
  ``AnalogueGain``, ``ColourGains``, ``ScalerCrop``) and ``release()``;
- ``set_controls({"AeEnable": False, "AwbEnable": False, ...})``;
- ``camera_properties`` with ``Model``, ``PixelArraySize`` and ``PixelArrayActiveAreas``;
- ``stop()`` then ``close()``.

A picamera2 release that changes any of these passes here and fails on the Pi:
``deploy/smoke-test.sh`` on the device is what runs the real one.
"""

from __future__ import annotations

import os
import sys
import types
from typing import Any, ClassVar

import numpy as np
import pytest

from device.camera import open_source, pi_camera_attached
from device.camera.frames import CameraError
from device.camera.picamera2_source import Picamera2Source, lores_grey
from device.config import Camera, CameraSource

W, H, STRIDE = 320, 240, 384


def yuv420(y: np.ndarray, stride: int) -> np.ndarray:
    """A lores buffer as libcamera lays it out: padded Y rows, then the U and V planes."""
    height, width = y.shape
    planes = np.full(stride * height * 3 // 2, 128, np.uint8)
    padded = np.full((height, stride), 255, np.uint8)  # the padding is garbage
    padded[:, :width] = y
    planes[: stride * height] = padded.reshape(-1)
    return planes


def test_lores_grey_keeps_the_y_plane_without_padding() -> None:
    y = np.random.default_rng(0).integers(0, 255, (H, W), dtype=np.uint8)
    grey = lores_grey(yuv420(y, STRIDE), W, H, STRIDE)
    assert grey.shape == (H, W) and grey.dtype == np.uint8
    assert np.array_equal(grey, y)
    assert grey.flags.c_contiguous  # a copy: the camera's buffer goes back at once


def test_lores_grey_without_padding_and_as_a_2d_array() -> None:
    y = np.arange(H * W, dtype=np.uint32).astype(np.uint8).reshape(H, W)
    as_array = yuv420(y, W).reshape(H * 3 // 2, W)  # what make_array("lores") gives
    assert np.array_equal(lores_grey(as_array, W, H, W), y)


def test_lores_grey_refuses_a_buffer_of_the_wrong_size() -> None:
    with pytest.raises(CameraError, match="not 320x240 YUV420"):
        lores_grey(np.zeros(1000, np.uint8), W, H, STRIDE)


def test_picamera2_missing_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "picamera2", None)  # import fails as if not installed
    with pytest.raises(CameraError) as error:
        Picamera2Source().open()
    message = str(error.value)
    assert "sudo apt install python3-picamera2 --no-install-recommends" in message
    assert "--system-site-packages" in message
    assert not pi_camera_attached()


def test_auto_falls_back_to_the_simulated_tray_without_picamera2(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "picamera2", None)
    monkeypatch.delenv("LIBCAMERA_LOG_LEVELS", raising=False)
    source = open_source(CameraSource("auto"), Camera())
    assert source.name == "simulated"
    assert sys.modules.get("picamera2") is None


# -- a stand-in picamera2 ---------------------------------------------------------------------
class FakeRequest:
    def __init__(self, camera: FakePicamera2) -> None:
        self.camera = camera

    def make_array(self, name: str) -> np.ndarray:
        assert name == "main"
        return np.full((960, 1280, 3), 7, np.uint8)

    def make_buffer(self, name: str) -> np.ndarray:
        assert name == "lores"
        return yuv420(np.full((H, W), 99, np.uint8), STRIDE)

    def get_metadata(self) -> dict[str, Any]:
        return {
            "ExposureTime": 8000,
            "AnalogueGain": 2.0,
            "ColourGains": (1.8, 1.5),
            "Lux": 300,
            "ScalerCrop": (576, 0, 3456, 2592),  # a 4:3 stream from the middle of a 16:9 sensor
        }

    def release(self) -> None:
        self.camera.held -= 1


class FakePicamera2:
    cameras: ClassVar[list[dict[str, Any]]] = [{"Model": "imx708"}]
    open_error: ClassVar[Exception | None] = None
    instances: ClassVar[list[FakePicamera2]] = []
    # as a Camera Module 3 reports them (PixelArrayActiveAreas holds libcamera Rectangles)
    camera_properties: ClassVar[dict[str, Any]] = {
        "Model": "imx708",
        "PixelArrayActiveAreas": [(16, 24, 4608, 2592)],
        "PixelArraySize": (4608, 2592),
    }

    def __init__(self, camera_num: int = 0) -> None:
        if self.open_error is not None:
            raise self.open_error
        self.held = 0
        self.controls: dict[str, Any] = {}
        self.calls: list[str] = []
        self.config: dict[str, Any] = {}
        FakePicamera2.instances.append(self)

    @classmethod
    def global_camera_info(cls) -> list[dict[str, Any]]:
        return cls.cameras

    def create_video_configuration(self, **config: Any) -> dict[str, Any]:
        return config

    def configure(self, config: dict[str, Any]) -> None:
        self.config = config

    def camera_configuration(self) -> dict[str, Any]:
        return {"lores": {**self.config["lores"], "stride": STRIDE}}

    def start(self) -> None:
        self.calls.append("start")

    def capture_request(self, wait: float | None = None) -> FakeRequest:
        self.held += 1
        return FakeRequest(self)

    def set_controls(self, controls: dict[str, Any]) -> None:
        self.controls.update(controls)

    def stop(self) -> None:
        self.calls.append("stop")

    def close(self) -> None:
        self.calls.append("close")


@pytest.fixture
def fake_picamera2(monkeypatch: pytest.MonkeyPatch) -> type[FakePicamera2]:
    module = types.ModuleType("picamera2")
    module.Picamera2 = FakePicamera2  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "picamera2", module)
    monkeypatch.setattr(FakePicamera2, "instances", [])
    return FakePicamera2


def test_frames_come_from_main_and_lores_and_requests_go_back(fake_picamera2) -> None:
    source = Picamera2Source(fps=20)
    source.open()
    camera = fake_picamera2.instances[0]
    assert camera.config["main"] == {"size": (1280, 960), "format": "RGB888"}
    assert camera.config["lores"] == {"size": (320, 240), "format": "YUV420"}
    assert camera.config["controls"] == {"FrameDurationLimits": (50_000, 50_000)}
    frames = [source.read(timeout=1) for _ in range(3)]
    assert camera.held == 0
    assert [f.seq for f in frames if f] == [0, 1, 2]
    assert frames[0] is not None and frames[0].lores.shape == (240, 320)
    assert int(frames[0].lores.max()) == 99 and frames[0].main.shape == (960, 1280, 3)
    source.lock_exposure()
    assert camera.controls == {
        "AeEnable": False,
        "AwbEnable": False,
        "ExposureTime": 8000,
        "AnalogueGain": 2.0,
        "ColourGains": (1.8, 1.5),
    }
    source.close()
    assert camera.calls == ["start", "stop", "close"]


def test_auto_takes_the_pi_camera_when_one_is_listed(fake_picamera2, monkeypatch) -> None:
    monkeypatch.delenv("LIBCAMERA_LOG_LEVELS", raising=False)
    assert open_source(CameraSource("auto"), Camera()).name == "picamera2"
    assert os.environ["LIBCAMERA_LOG_LEVELS"] == "*:3"
    monkeypatch.setattr(fake_picamera2, "cameras", [])
    assert open_source(CameraSource("auto"), Camera()).name == "simulated"


def test_no_camera_attached(fake_picamera2, monkeypatch) -> None:
    monkeypatch.setattr(fake_picamera2, "cameras", [])
    with pytest.raises(CameraError, match="no camera attached"):
        Picamera2Source().open()


def test_a_camera_held_by_another_process_is_named_so(fake_picamera2, monkeypatch) -> None:
    busy = RuntimeError("Failed to acquire camera: Device or resource busy")
    monkeypatch.setattr(fake_picamera2, "open_error", busy)
    with pytest.raises(CameraError, match="another process owns the camera"):
        Picamera2Source().open()


def test_lock_exposure_before_any_frame_is_refused(fake_picamera2) -> None:
    source = Picamera2Source()
    source.open()
    with pytest.raises(CameraError, match="cannot lock exposure yet"):
        source.lock_exposure()


def test_the_stream_says_how_wide_it_sees_once_a_frame_came(fake_picamera2, monkeypatch) -> None:
    source = Picamera2Source()
    source.open()
    assert source.field_of_view is None  # no scaler crop read yet
    source.read(timeout=1)
    # 66° over 4608 pixels, 3456 of them used: 2 atan(tan 33° x 0.75)
    assert source.field_of_view == pytest.approx(51.94, abs=0.01)
    source.close()
    hq = {"Model": "imx477", "PixelArraySize": (4056, 3040)}  # any lens fits an HQ camera
    monkeypatch.setattr(fake_picamera2, "camera_properties", hq)
    source.open()
    source.read(timeout=1)
    assert source.field_of_view is None
