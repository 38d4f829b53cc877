"""Bad image files and frames are refused with one clear message naming them."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from drawn_dice import felt

from vision.errors import BadImageError, VisionError
from vision.images import check_frame, decode_image, load_image


def write_jpeg(path: Path) -> bytes:
    ok, data = cv2.imencode(".jpg", felt())
    assert ok
    path.write_bytes(data.tobytes())
    return data.tobytes()


def test_a_good_jpeg_and_png_load_as_bgr(tmp_path: Path) -> None:
    write_jpeg(tmp_path / "a.jpg")
    cv2.imwrite(str(tmp_path / "b.png"), felt()[..., 0])  # grey PNG
    assert load_image(tmp_path / "a.jpg").shape == (240, 320, 3)
    assert load_image(tmp_path / "b.png").shape == (240, 320, 3)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "empty file"),
        (b"this is not a picture\n", "not an image"),
    ],
)
def test_empty_and_text_files_are_refused(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "photo.png"
    path.write_bytes(content)
    with pytest.raises(BadImageError, match=message) as caught:
        load_image(path)
    assert str(path) in str(caught.value)


def test_a_truncated_jpeg_is_refused(tmp_path: Path) -> None:
    data = write_jpeg(tmp_path / "whole.jpg")
    cut = tmp_path / "cut.jpg"
    cut.write_bytes(data[: len(data) * 2 // 3])
    with pytest.raises(BadImageError, match="truncated JPEG"):
        load_image(cut)


def test_a_truncated_png_is_refused() -> None:
    _, data = cv2.imencode(".png", felt())
    with pytest.raises(BadImageError, match="truncated PNG"):
        decode_image(data.tobytes()[:-30], "cut.png")


def test_a_missing_file_and_a_folder_are_refused(tmp_path: Path) -> None:
    with pytest.raises(VisionError, match="no such file"):
        load_image(tmp_path / "nothing.jpg")
    with pytest.raises(VisionError, match="folder"):
        load_image(tmp_path)


@pytest.mark.parametrize(
    ("frame", "message"),
    [
        (np.zeros((240, 320, 3), np.float32), "uint8"),
        (np.zeros((240, 320, 4), np.uint8), "shape"),
        (np.zeros((240,), np.uint8), "shape"),
        (np.zeros((8, 8, 3), np.uint8), "too small"),
        ([[0, 1], [2, 3]], "numpy array"),
    ],
)
def test_wrong_frames_are_refused(frame: object, message: str) -> None:
    with pytest.raises(BadImageError, match=message):
        check_frame(frame)


def test_a_grey_frame_becomes_bgr() -> None:
    grey = np.full((32, 48), 77, np.uint8)
    out = check_frame(grey)
    assert out.shape == (32, 48, 3)
    assert (out == 77).all()


@pytest.mark.parametrize("suffix", [".jpg", ".png", ".bmp"])
def test_the_header_says_the_size_before_anything_is_decoded(suffix: str) -> None:
    from vision.images import declared_size

    _, data = cv2.imencode(suffix, np.zeros((123, 321, 3), np.uint8))
    assert declared_size(data.tobytes()) == (321, 123)


def test_a_jpeg_declaring_a_huge_picture_is_refused_before_decoding() -> None:
    _, data = cv2.imencode(".jpg", felt())
    raw = bytearray(data.tobytes())
    sof = raw.index(b"\xff\xc0")  # baseline frame header: length, precision, height, width
    raw[sof + 5 : sof + 9] = (12000).to_bytes(2, "big") + (12000).to_bytes(2, "big")
    with pytest.raises(BadImageError, match="12000x12000 pixels, more than 50 megapixels"):
        decode_image(bytes(raw), "big.jpg")


def test_an_image_format_whose_size_cannot_be_read_first_is_refused() -> None:
    _, data = cv2.imencode(".tiff", felt())  # a small TIFF may still decode into gigabytes
    with pytest.raises(BadImageError, match="not an image in JPEG, PNG or BMP"):
        decode_image(data.tobytes(), "photo.tiff")
