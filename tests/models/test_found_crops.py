"""What the detector finds on labelled photos, cut for the die-face model: boxes on a
labelled die carry its kind and value, boxes on no die the kind "none"."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from models.common import photos
from models.dieface import spec
from models.dieface.found_crops import load_found, mine_photo
from models.synth import random_scene
from vision.detect import DiceFinder

NONE = spec.HEADS["kind"].index(spec.NO_DIE)


@pytest.fixture(scope="module")
def scene():
    """Five drawn d6 on a drawn tray, each found by the shipped detector."""
    return random_scene(np.random.default_rng(4), (640, 480), n=5, kinds=("d6",), cocked=0.0)


def _truth(scene, skip: int | None = None) -> list:
    return [
        (tuple(float(v) for v in d.box), d.spec.value, d.spec.kind)
        for i, d in enumerate(scene.dice)
        if i != skip
    ]


def test_boxes_on_labelled_dice_carry_their_kind_and_value(scene) -> None:
    boxes, labels = mine_photo(scene.image, _truth(scene), DiceFinder())
    assert len(boxes) == 5
    assert sorted(v + 1 for _, v in labels) == sorted(d.spec.value for d in scene.dice)
    assert {k for k, _ in labels} == {spec.KINDS.index("d6")}


def test_a_box_on_no_labelled_die_is_a_phantom(scene) -> None:
    """The die left out of the labels stands for a shadow or a token: its box says "none",
    and nothing else."""
    boxes, labels = mine_photo(scene.image, _truth(scene, skip=2), DiceFinder())
    assert len(boxes) == 5
    phantoms = [b for b, (k, v) in zip(boxes, labels, strict=True) if k == NONE]
    assert len(phantoms) == 1 and [v for k, v in labels if k == NONE] == [spec.UNKNOWN]
    x0, y0, x1, y1 = scene.dice[2].box
    cx, cy = (phantoms[0][0] + phantoms[0][2]) / 2, (phantoms[0][1] + phantoms[0][3]) / 2
    assert x0 <= cx <= x1 and y0 <= cy <= y1


def test_a_die_of_another_kind_is_neither_die_nor_phantom(scene) -> None:
    truth = [
        (box, value, "d8" if i == 0 else kind) for i, (box, value, kind) in enumerate(_truth(scene))
    ]
    boxes, labels = mine_photo(scene.image, truth, DiceFinder())
    assert len(boxes) == 4 and NONE not in [k for k, _ in labels]


def test_a_split_is_mined_once_and_read_back(
    scene,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A folder in the YOLO layout of the real photo sets, with one die left unlabelled."""
    split = tmp_path / "set" / "train"
    (split / "images").mkdir(parents=True)
    (split / "labels").mkdir()
    cv2.imwrite(str(split / "images" / "a.jpg"), scene.image)
    height, width = scene.image.shape[:2]
    lines = []
    for die in scene.dice[1:]:
        x0, y0, x1, y1 = die.box
        cx, cy = (x0 + x1) / 2 / width, (y0 + y1) / 2 / height
        lines.append(f"{die.spec.value - 1} {cx} {cy} {(x1 - x0) / width} {(y1 - y0) / height}")
    (split / "labels" / "a.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    monkeypatch.setattr(photos, "CACHE_DIR", tmp_path / "cache")
    mined = load_found(split, progress=False)
    assert mined.images.shape == (5, spec.INPUT_SIZE, spec.INPUT_SIZE, 3)
    assert (mined.labels["kind"] == NONE).sum() == 1
    assert all((mined.labels[h] == spec.UNKNOWN).all() for h in ("colour", "finish", "cocked"))
    assert len(list((tmp_path / "cache").glob("found-crops-*.npz"))) == 1
    again = load_found(split, progress=False)  # from the cache: the same crops
    assert np.array_equal(again.images, mined.images)
    assert np.array_equal(again.labels["value"], mined.labels["value"])
    larger = load_found(split, progress=False, size=96)  # cut again, at another side
    assert larger.images.shape == (5, 96, 96, 3)
    assert np.array_equal(larger.labels["kind"], mined.labels["kind"])
    assert len(list((tmp_path / "cache").glob("found-crops-*.npz"))) == 2
