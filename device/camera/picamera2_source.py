"""The Raspberry Pi camera through picamera2: a full ``main`` stream and a small ``lores`` one.

picamera2 and libcamera come from apt, not PyPI (NOTES.md), so they are imported only when
the camera is opened: the package installs and its tests run on any Linux, and a missing
install becomes a CameraError that says how to fix it.
"""

from __future__ import annotations

import logging
import os
import time
from types import ModuleType
from typing import Any

import numpy as np

from device.camera.frames import CameraError, Frame
from device.camera.lens import stream_field_of_view

log = logging.getLogger(__name__)

INSTALL_HINT = (
    "install it with `sudo apt install python3-picamera2 --no-install-recommends` and make "
    "the virtual environment with `python3 -m venv --system-site-packages`"
)
EXPOSURE_CONTROLS = ("ExposureTime", "AnalogueGain", "ColourGains")


def import_picamera2() -> ModuleType:
    """The picamera2 module, or a CameraError saying what to install."""
    # libcamera logs every frame's tuning at INFO; set before libcamera is loaded
    os.environ.setdefault("LIBCAMERA_LOG_LEVELS", "*:3")
    try:
        import picamera2
    except ImportError as exc:
        raise CameraError(f"picamera2 is not available ({exc}): {INSTALL_HINT}") from exc
    except ValueError as exc:  # "numpy.dtype size changed": a pip numpy 2 under apt's picamera2
        raise CameraError(
            f"picamera2 does not load ({exc}): install with numpy<2 and "
            "opencv-python-headless<4.12 (NOTES.md)"
        ) from exc
    return picamera2


def camera_error(exc: Exception) -> CameraError:
    """libcamera's failures said in the player's words."""
    text = str(exc)
    if isinstance(exc, IndexError):
        return CameraError("no camera attached (check the ribbon cable)")
    if any(word in text.lower() for word in ("in use", "busy", "failed to acquire")):
        return CameraError(
            "another process owns the camera (libcamera: pipeline handler in use); "
            "stop the other yamscope, a leftover process or rpicam app"
        )
    return CameraError(f"picamera2: {text or type(exc).__name__}")


def lores_grey(buffer: np.ndarray, width: int, height: int, stride: int) -> np.ndarray:
    """The Y plane of a YUV420 buffer, without the padding at the end of each row.

    The rows of the lores stream are ``stride`` bytes long, often more than ``width``
    (alignment); the U and V planes follow the Y plane and are not needed for motion.
    """
    flat = buffer.reshape(-1)
    if flat.size < stride * height or stride < width:
        raise CameraError(
            f"lores buffer of {flat.size} bytes is not {width}x{height} YUV420 "
            f"with rows of {stride} bytes"
        )
    return flat[: stride * height].reshape(height, stride)[:, :width].copy()


class Picamera2Source:
    """Camera ``camera_num`` with main RGB888 (BGR in memory, as OpenCV wants) and lores Y."""

    name = "picamera2"
    exclusive = True

    def __init__(
        self,
        size: tuple[int, int] = (1280, 960),
        lores_size: tuple[int, int] = (320, 240),
        fps: float = 15.0,
        camera_num: int = 0,
    ) -> None:
        self.size = size
        self.lores_size = lores_size
        self.fps = fps
        self.camera_num = camera_num
        self._camera: Any = None
        self._stride = lores_size[0]
        self._metadata: dict[str, Any] = {}
        self._properties: dict[str, Any] = {}
        self._seq = 0

    def open(self) -> None:
        module = import_picamera2()
        if not module.Picamera2.global_camera_info():
            raise CameraError("no camera attached (check the ribbon cable)")
        try:
            camera = module.Picamera2(self.camera_num)
        except Exception as exc:
            raise camera_error(exc) from exc
        try:
            frame_us = round(1_000_000 / self.fps)
            config = camera.create_video_configuration(
                main={"size": self.size, "format": "RGB888"},
                lores={"size": self.lores_size, "format": "YUV420"},
                controls={"FrameDurationLimits": (frame_us, frame_us)},
            )
            camera.configure(config)
            self._stride = camera.camera_configuration()["lores"]["stride"]
            camera.start()
        except Exception as exc:
            camera.close()
            raise camera_error(exc) from exc
        self._camera = camera
        self._properties = dict(camera.camera_properties)
        log.info(
            "picamera2: %s, main %dx%d, lores %dx%d",
            self._properties.get("Model", "unknown sensor"),
            *self.size,
            *self.lores_size,
        )

    @property
    def field_of_view(self) -> float | None:
        """The degrees across the main stream sees, from the sensor's model and the scaler
        crop of the last frame read; None before a frame or for a lens libcamera cannot
        name (an HQ camera's)."""
        return stream_field_of_view(self._properties, self._metadata.get("ScalerCrop"))

    def read(self, timeout: float) -> Frame | None:
        """One request, copied out and released at once: held requests starve the camera."""
        if self._camera is None:
            raise CameraError("picamera2 is not open")
        try:
            request = self._camera.capture_request(wait=timeout)
        except TimeoutError:
            return None
        try:
            main = request.make_array("main")
            lores = lores_grey(request.make_buffer("lores"), *self.lores_size, self._stride)
            self._metadata = request.get_metadata()
        finally:
            request.release()
        frame = Frame(main, lores, time.monotonic(), self._seq)
        self._seq += 1
        return frame

    def lock_exposure(self) -> None:
        """Fix exposure and white balance where auto control left them (after calibration)."""
        if self._camera is None:
            raise CameraError("picamera2 is not open")
        missing = [name for name in EXPOSURE_CONTROLS if name not in self._metadata]
        if missing:
            raise CameraError(f"cannot lock exposure yet: no {', '.join(missing)} read")
        controls = {name: self._metadata[name] for name in EXPOSURE_CONTROLS}
        self._camera.set_controls({"AeEnable": False, "AwbEnable": False, **controls})
        log.info("picamera2: exposure locked at %s", controls)

    def close(self) -> None:
        camera, self._camera = self._camera, None
        if camera is None:
            return
        try:
            camera.stop()
        finally:
            camera.close()
