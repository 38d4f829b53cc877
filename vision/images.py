"""Images in: files from disk and frames from cameras, checked before the pipeline sees them.

Why check here: OpenCV answers a bad file with ``None`` and a truncated JPEG with a picture
whose lower part is grey; both would reach the segmenter as "no dice" or as phantom dice.
Every problem becomes a :class:`~vision.errors.BadImageError` naming the file.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from vision.errors import BadImageError

MIN_SIDE = 16  # smaller than this holds no readable die

_JPEG_START = b"\xff\xd8"
_JPEG_SCAN = b"\xff\xda"
_JPEG_END = b"\xff\xd9"
_PNG_START = b"\x89PNG\r\n\x1a\n"


def truncation(data: bytes) -> str | None:
    """Why ``data`` is a cut-off JPEG or PNG, or None when it looks whole (or is another
    format, which the decoder judges alone).

    A JPEG's last image scan must be followed by its end marker; scanning from the end
    skips an EXIF thumbnail, whose own end marker comes before the main image's scan."""
    if data.startswith(_JPEG_START):
        if data.rfind(_JPEG_END) < data.rfind(_JPEG_SCAN):
            return "truncated JPEG (no end-of-image marker after the last scan)"
    elif data.startswith(_PNG_START) and b"IEND" not in data[-64:]:
        return "truncated PNG (no IEND chunk at the end)"
    return None


def decode_image(data: bytes, name: str = "image") -> np.ndarray:
    """The BGR uint8 picture held in ``data`` (any format OpenCV reads; grey becomes BGR)."""
    if not data:
        raise BadImageError(f"{name}: empty file")
    cut = truncation(data)
    if cut:
        raise BadImageError(f"{name}: {cut}")
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        raise BadImageError(f"{name}: not an image OpenCV can decode")
    return check_frame(image, name)


def load_image(path: str | Path) -> np.ndarray:
    """Read an image file as BGR uint8; any problem raises BadImageError naming the file."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise BadImageError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise BadImageError(f"{path}: is a folder, not an image") from None
    except OSError as exc:
        raise BadImageError(f"{path}: cannot read ({exc.strerror or exc})") from None
    return decode_image(data, str(path))


def check_frame(frame: object, name: str = "frame") -> np.ndarray:
    """A camera frame as the pipeline wants it: HxWx3 BGR uint8, C-contiguous.

    Accepts HxWx3 or HxW (grey) uint8 arrays; anything else raises BadImageError saying what
    was handed in, since a float or RGBA frame would otherwise be misread silently."""
    if not isinstance(frame, np.ndarray):
        raise BadImageError(f"{name}: expected a numpy array, got {type(frame).__name__}")
    if frame.dtype != np.uint8:
        raise BadImageError(f"{name}: expected uint8 pixels, got {frame.dtype}")
    if not (frame.ndim == 2 or (frame.ndim == 3 and frame.shape[2] == 3)):
        raise BadImageError(f"{name}: expected HxWx3 or HxW, got shape {frame.shape}")
    if min(frame.shape[:2]) < MIN_SIDE:
        raise BadImageError(f"{name}: {frame.shape[1]}x{frame.shape[0]} is too small to read")
    if frame.ndim == 2:
        return cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    return np.ascontiguousarray(frame)


def shrink(
    image: np.ndarray, scale: float = 1.0, size: tuple[int, int] | None = None
) -> np.ndarray:
    """``image`` resized by ``scale`` (at most 1), or to ``size`` (width, height): halved by
    pixel averaging while it can be, the rest by linear interpolation. OpenCV averages fast
    only when halving, and a straight average to a third of 1280x960 takes as long as
    reading a die."""
    height, width = image.shape[:2]
    size = size or (max(1, round(width * scale)), max(1, round(height * scale)))
    while image.shape[1] >= 2 * size[0] and image.shape[0] >= 2 * size[1]:
        image = cv2.resize(
            image, (image.shape[1] // 2, image.shape[0] // 2), interpolation=cv2.INTER_AREA
        )
    if (image.shape[1], image.shape[0]) == tuple(size):
        return image
    return cv2.resize(image, size, interpolation=cv2.INTER_LINEAR)
