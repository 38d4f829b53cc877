"""Frames from the tray: the Pi camera, an OpenCV camera, a recording or the simulated tray.

``open_source`` makes the source a ``camera.source`` spec names; a ``CameraRunner`` then opens
it and reads it in its own thread into a newest-frame-wins slot.
"""

from __future__ import annotations

import logging

from device.camera.frames import CameraError, Frame, FrameSource
from device.camera.latest import LatestFrame
from device.camera.opencv_source import OpenCVSource
from device.camera.picamera2_source import Picamera2Source, import_picamera2
from device.camera.replay_source import ReplaySource
from device.camera.runner import CameraRunner
from device.config_sections import Camera, CameraSource

__all__ = [
    "CameraError",
    "CameraRunner",
    "Frame",
    "FrameSource",
    "LatestFrame",
    "open_source",
    "pi_camera_attached",
]

log = logging.getLogger(__name__)


def open_source(spec: CameraSource, camera: Camera) -> FrameSource:
    """The source ``spec`` names, set up from the ``[camera]`` section (not opened yet: the
    runner opens it, and opens it again after a stall).

    ``auto`` is the Pi camera when one is attached, else the simulated tray.
    """
    size = (camera.width, camera.height)
    lores = (camera.lores_width, camera.lores_height)
    kind = spec.kind
    if kind == "auto":
        kind = "picamera2" if pi_camera_attached() else "simulated"
        log.info("camera auto: using %s", "the Pi camera" if kind == "picamera2" else kind)
    if kind == "picamera2":
        return Picamera2Source(size, lores, camera.fps)
    if kind == "opencv":
        assert spec.index is not None
        return OpenCVSource(spec.index, size, lores, camera.fps)
    if kind == "replay":
        assert spec.path is not None
        # a recording plays in a loop: a demo table keeps throwing, as a real one would
        return ReplaySource(spec.path, lores_size=lores, fps=camera.fps, loop=True)
    from device.camera.simulated_source import SimulatedSource  # draws with models.synth

    return SimulatedSource(size=size, lores_size=lores, fps=camera.fps)


def pi_camera_attached() -> bool:
    """True when picamera2 loads and lists a camera; asking does not open it."""
    try:
        cameras = import_picamera2().Picamera2.global_camera_info()
    except CameraError as exc:
        log.debug("no Pi camera: %s", exc)
        return False
    except Exception as exc:  # libcamera failing to start counts as no camera
        log.warning("no Pi camera: libcamera: %s", exc)
        return False
    return bool(cameras)
