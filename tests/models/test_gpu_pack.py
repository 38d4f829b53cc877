"""What travels to a GPU machine comes back as the images and scenes it was (JPEG: close, not
exact)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from models.common.datasets import DatasetError, open_dataset
from models.detector.data import Set
from models.gpu.pack import jpegs, pack_scenes, save_photos
from models.gpu.unpack import decode, unpack_photos, unpack_scenes
from models.synth.dataset import write_dataset


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


def test_photo_sets_travel_back_into_the_detector_caches(tmp_path: Path) -> None:
    yy, xx = np.mgrid[0:32, 0:32] * 6
    images = np.stack([np.dstack([xx + 20 * k, yy, 220 - xx]) for k in range(3)]).astype(np.uint8)
    boxes = np.asarray([[1, 2, 10, 12], [3, 3, 9, 9], [0, 0, 5, 5], [4, 4, 8, 8]], np.float32)
    photos = Set({"images": images, "boxes": boxes, "counts": np.asarray([1, 0, 3]),
                  "names": np.asarray(["a", "b", "c"])})  # fmt: skip
    pack = tmp_path / "pack"
    pack.mkdir()
    grey = np.stack([cv2.cvtColor(im, cv2.COLOR_BGR2GRAY) for im in images])
    save_photos(pack / "det-train.npz", photos, jpegs(grey, 88))
    save_photos(pack / "det-colour-train.npz", photos, jpegs(images, 90))
    written = unpack_photos(pack, tmp_path / "cache")
    assert [p.name for p in written] == ["rune55-train-256.npz", "roboflow-train-256.npz"]
    rune, colour = (Set(dict(np.load(p))) for p in written)
    for back in (rune, colour):
        assert back.images.shape == images.shape
        assert [len(b) for b in back.boxes] == [1, 0, 3]
        np.testing.assert_array_equal(np.concatenate(back.boxes), boxes)
        assert list(back.names) == ["a", "b", "c"]
    assert np.array_equal(rune.images[..., 0], rune.images[..., 2])  # grey, three channels
    assert np.abs(colour.images.astype(int) - images).mean() < 4  # colour kept
    assert np.abs(colour.images[..., 0].astype(int) - colour.images[..., 2]).mean() > 40


def test_rendered_scenes_travel_as_a_folder_the_trainers_read(tmp_path: Path) -> None:
    root = tmp_path / "blender-like"
    write_dataset(root, 3, 5, size=(160, 120), kinds=("d6", "d10"), progress=False)
    (tmp_path / "pack").mkdir()
    packed = pack_scenes(tmp_path / "pack", root)
    assert packed.name == "scenes-blender-like.npz"
    folder = unpack_scenes(packed, into=tmp_path / "unpacked")
    before, after = open_dataset(root), open_dataset(folder)
    assert after.format == "synthetic" and len(after) == len(before) == 3
    for index in range(3):
        a, b = before.load(index), after.load(index)
        assert a.dice == b.dice and b.empty is None
        assert b.image.shape == a.image.shape
        # JPEG at q85 drops the sensor noise, not the picture
        smooth_a, smooth_b = (
            cv2.GaussianBlur(x, (5, 5), 0).astype(int) for x in (a.image, b.image)
        )
        assert np.abs(smooth_b - smooth_a).mean() < 3
    first = unpack_scenes(pack_scenes(tmp_path / "pack", root, limit=2), into=tmp_path / "two")
    assert len(open_dataset(first)) == 2


def test_only_rendered_folders_are_packed_as_scenes(tmp_path: Path) -> None:
    yolo = tmp_path / "yolo"
    (yolo / "images").mkdir(parents=True)
    (yolo / "labels").mkdir()
    cv2.imwrite(str(yolo / "images" / "a.png"), np.zeros((8, 8, 3), np.uint8))
    (yolo / "labels" / "a.txt").write_text("0 0.5 0.5 0.2 0.2\n")
    with pytest.raises(DatasetError, match="not a rendered scene folder"):
        pack_scenes(tmp_path, yolo)
