"""A USB or laptop camera through OpenCV, for tables without a Pi camera and for development."""

from __future__ import annotations

import logging
import time

import cv2
import numpy as np

from device.camera.frames import CameraError, Frame, grey_lores

log = logging.getLogger(__name__)


class OpenCVSource:
    """``cv2.VideoCapture(index)`` asked for ``size``; the lores image is made by resizing.

    The main image keeps the size the camera really gives (it may ignore the request):
    stretching it would distort the dice the reader measures.
    """

    exclusive = True

    def __init__(
        self,
        index: int,
        size: tuple[int, int] = (1280, 960),
        lores_size: tuple[int, int] = (320, 240),
        fps: float = 15.0,
    ) -> None:
        self.name = f"opencv:{index}"
        self.index = index
        self.size = size
        self.lores_size = lores_size
        self.fps = fps
        self._capture: cv2.VideoCapture | None = None
        self._seq = 0

    def open(self) -> None:
        capture = cv2.VideoCapture(self.index)
        if not capture.isOpened():
            capture.release()
            raise CameraError(
                f"cannot open camera {self.index} with OpenCV (is it plugged in, "
                "and is the user in the video group?)"
            )
        capture.set(cv2.CAP_PROP_FRAME_WIDTH, self.size[0])
        capture.set(cv2.CAP_PROP_FRAME_HEIGHT, self.size[1])
        capture.set(cv2.CAP_PROP_FPS, self.fps)
        got = (
            int(capture.get(cv2.CAP_PROP_FRAME_WIDTH)),
            int(capture.get(cv2.CAP_PROP_FRAME_HEIGHT)),
        )
        if got != self.size:
            log.warning("%s gives %dx%d, not the %dx%d asked", self.name, *got, *self.size)
        self._capture = capture

    def read(self, timeout: float) -> Frame | None:
        """One frame; OpenCV has no read timeout, but a V4L2 read fails within a frame time."""
        if self._capture is None:
            raise CameraError(f"{self.name} is not open")
        ok, image = self._capture.read()
        if not ok or image is None:
            return None
        main = _bgr(image)
        frame = Frame(main, grey_lores(main, self.lores_size), time.monotonic(), self._seq)
        self._seq += 1
        return frame

    def close(self) -> None:
        if self._capture is not None:
            self._capture.release()
            self._capture = None


def _bgr(image: np.ndarray) -> np.ndarray:
    """Some cameras deliver grey frames; the rest of the pipeline expects BGR."""
    return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR) if image.ndim == 2 else image
