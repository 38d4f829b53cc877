"""Images in: files from disk and frames from cameras, checked before the pipeline sees them.

Why check here: OpenCV answers a bad file with ``None`` and a truncated JPEG with a picture
whose lower part is grey; both would reach the segmenter as "no dice" or as phantom dice.
Every problem becomes a :class:`~vision.errors.BadImageError` naming the file.
"""

from __future__ import annotations

import os
import stat
import struct
from pathlib import Path

import cv2
import numpy as np

from vision.errors import BadImageError

MIN_SIDE = 16  # smaller than this holds no readable die
# Larger than any camera photo a table needs (a Pi HQ camera gives 12 MP): a 20000x20000
# PNG of a few KB would decode into 1.2 GB. Checked on the file and its header, before.
MAX_FILE_BYTES = 100 * 1024 * 1024
MAX_PIXELS = 50_000_000

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


def declared_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) as a PNG, JPEG or BMP header declares it, read without decoding;
    None for another format or a header that cannot be read."""
    if data.startswith(_PNG_START) and data[12:16] == b"IHDR" and len(data) >= 24:
        return struct.unpack(">II", data[16:24])
    if data.startswith(b"BM") and len(data) >= 26:
        width, height = struct.unpack("<ii", data[18:26])
        return abs(width), abs(height)
    if data.startswith(_JPEG_START):
        return _jpeg_size(data)
    return None


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    """The frame size of a JPEG's first start-of-frame marker (SOF0-SOF15 but DHT, JPG,
    DAC), walking the marker segments."""
    at = 2
    while at + 9 <= len(data):
        if data[at] != 0xFF:
            return None
        marker = data[at + 1]
        if marker == 0xFF:  # fill byte
            at += 1
            continue
        if marker in (0x01, *range(0xD0, 0xD8)):  # no length
            at += 2
            continue
        (length,) = struct.unpack(">H", data[at + 2 : at + 4])
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            height, width = struct.unpack(">HH", data[at + 5 : at + 9])
            return width, height
        at += 2 + length
    return None


def check_size(data: bytes, name: str = "image") -> None:
    """BadImageError for a file too big to read, one whose header declares more than
    ``MAX_PIXELS``, or one whose size cannot be read before decoding: only JPEG, PNG and
    BMP are taken (what cameras, this project and its photo folders write), since in
    another format a small file may still decode into gigabytes."""
    if len(data) > MAX_FILE_BYTES:
        raise BadImageError(f"{name}: {len(data) // 2**20} MB, more than {_cap_mb()} MB")
    size = declared_size(data)
    if size is None:
        raise BadImageError(f"{name}: not an image in JPEG, PNG or BMP")
    if size[0] * size[1] > MAX_PIXELS:
        raise BadImageError(
            f"{name}: {size[0]}x{size[1]} pixels, more than {MAX_PIXELS // 1_000_000} "
            "megapixels: make it smaller"
        )


def _cap_mb() -> int:
    return MAX_FILE_BYTES // 2**20


def decode_image(data: bytes, name: str = "image") -> np.ndarray:
    """The BGR uint8 picture held in ``data`` (any format OpenCV reads; grey becomes BGR).
    The size is checked on the header first: a small file may declare a huge picture."""
    if not data:
        raise BadImageError(f"{name}: empty file")
    cut = truncation(data)
    if cut:
        raise BadImageError(f"{name}: {cut}")
    check_size(data, name)
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        raise BadImageError(f"{name}: not an image OpenCV can decode")
    return check_frame(image, name)


def read_file(path: str | Path) -> bytes:
    """The bytes of an image file: a regular file of at most ``MAX_FILE_BYTES``, else
    BadImageError (a FIFO would hang the reader, /dev/zero never end)."""
    path = Path(path)
    try:
        # non-blocking, so that opening a FIFO returns at once; then judged by what it is
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        raise BadImageError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise BadImageError(f"{path}: is a folder, not an image") from None
    except OSError as exc:
        raise BadImageError(f"{path}: cannot read ({exc.strerror or exc})") from None
    try:
        _regular(os.fstat(fd), path)
        with os.fdopen(fd, "rb", closefd=False) as file:
            return file.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise BadImageError(f"{path}: cannot read ({exc.strerror or exc})") from None
    finally:
        os.close(fd)


def _regular(info: os.stat_result, path: Path) -> None:
    if stat.S_ISDIR(info.st_mode):
        raise BadImageError(f"{path}: is a folder, not an image")
    if not stat.S_ISREG(info.st_mode):
        raise BadImageError(f"{path}: not a regular file (a device, a pipe or a socket)")
    if info.st_size > MAX_FILE_BYTES:
        raise BadImageError(f"{path}: {info.st_size // 2**20} MB, more than {_cap_mb()} MB")


def load_image(path: str | Path) -> np.ndarray:
    """Read an image file as BGR uint8; any problem raises BadImageError naming the file."""
    return decode_image(read_file(path), str(path))


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
    image = halved(image, size)
    if (image.shape[1], image.shape[0]) == tuple(size):
        return image
    return cv2.resize(image, size, interpolation=cv2.INTER_LINEAR)


def halved(image: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """``image`` halved by pixel averaging while it stays at least twice ``size`` (width,
    height) both ways: the fast first steps of any shrink to ``size`` or smaller, which
    copies made from one frame can share."""
    while image.shape[1] >= 2 * size[0] and image.shape[0] >= 2 * size[1]:
        image = cv2.resize(
            image, (image.shape[1] // 2, image.shape[0] // 2), interpolation=cv2.INTER_AREA
        )
    return image
