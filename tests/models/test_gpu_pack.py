"""What travels to a GPU machine comes back as the images it was (JPEG: close, not exact)."""

from __future__ import annotations

import cv2
import numpy as np

from models.gpu.pack import jpegs
from models.gpu.unpack import decode


def test_packed_images_decode_to_what_was_packed() -> None:
    rng = np.random.default_rng(0)
    images = np.stack([cv2.GaussianBlur(rng.integers(0, 255, (64, 64), np.uint8), (5, 5), 2)
                       for _ in range(5)])  # fmt: skip
    jpeg, lengths = jpegs(images, 90)
    assert len(lengths) == 5 and lengths.sum() == len(jpeg)
    back = decode(jpeg, lengths)
    assert back.shape == images.shape
    assert np.abs(back.astype(int) - images).mean() < 3
    assert not np.array_equal(back[0], back[1])  # each image is its own, in order
