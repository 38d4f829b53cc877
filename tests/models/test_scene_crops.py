"""Crops of rendered scene folders for training: every labelled die cut ``copies`` times with
its labels, one scene in ten held apart, a cocked die's value unlabelled, the dice of a
scene seen at a slant held upright, wrong folders refused."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from models.common.datasets import DatasetError
from models.dieface import spec
from models.dieface.scene_crops import VALID_EVERY, folder_crops, folders_crops
from models.synth.dataset import write_dataset


@pytest.fixture(scope="module")
def scenes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("scenes")
    write_dataset(out, VALID_EVERY + 2, 11, size=(200, 150), kinds=("d6", "d10"), progress=False)
    return out


def labelled(folder: Path) -> list[list[dict]]:
    return [
        json.loads(p.read_text(encoding="utf-8"))["dice"]
        for p in sorted((folder / "labels").glob("*.json"))
    ]


def test_every_die_is_cut_copies_times_with_its_labels(scenes: Path) -> None:
    train, valid = folder_crops(scenes, copies=3, progress=False)
    dice = labelled(scenes)
    held = dice[VALID_EVERY - 1]
    kept = [d for i, ds in enumerate(dice) if i != VALID_EVERY - 1 for d in ds]
    assert len(valid) == 3 * len(held) and len(train) == 3 * len(kept)
    assert train.images.shape[1:] == (spec.INPUT_SIZE, spec.INPUT_SIZE, 3)
    for crops, truth in ((train, kept), (valid, held)):
        want = np.repeat([spec.KINDS.index(d["kind"]) for d in truth], 3)
        assert crops.labels["kind"].tolist() == want.tolist()
        want = np.repeat([spec.COLOURS.index(d["colour"]) for d in truth], 3)
        assert crops.labels["colour"].tolist() == want.tolist()
        want = np.repeat([spec.UNKNOWN if d["cocked"] else d["value"] - 1 for d in truth], 3)
        assert crops.labels["value"].tolist() == want.tolist()


def test_crops_are_jittered_and_differ_by_seed(scenes: Path) -> None:
    first, _ = folder_crops(scenes, copies=2, progress=False)
    again, _ = folder_crops(scenes, copies=2, progress=False)
    other, _ = folder_crops(scenes, copies=2, seed=1, progress=False)
    assert np.array_equal(first.images, again.images)  # deterministic by seed
    assert not np.array_equal(first.images, other.images)
    assert not np.array_equal(first.images[0], first.images[1])  # two views of one die


def test_the_dice_of_a_scene_seen_at_a_slant_are_held_upright(scenes: Path, tmp_path: Path) -> None:
    """A phone's photo (a slant in its labels) shows its top face at the top: its crops are
    turned only a little in training; the overhead scenes' at any angle."""
    overhead, _ = folder_crops(scenes, copies=1, progress=False)
    assert not overhead.upright_mask().any()
    mixed = tmp_path / "mixed"
    shutil.copytree(scenes, mixed)
    first = sorted((mixed / "labels").glob("*.json"))[0]
    data = json.loads(first.read_text(encoding="utf-8"))
    first.write_text(json.dumps(data | {"slant": 35.0}), encoding="utf-8")
    train, _ = folder_crops(mixed, copies=2, progress=False)
    held = train.upright_mask()
    assert held[: 2 * len(data["dice"])].all() and not held[2 * len(data["dice"]) :].any()


def test_several_folders_add_up(scenes: Path) -> None:
    one, _ = folder_crops(scenes, copies=1, progress=False)
    two, _ = folders_crops([scenes, scenes], copies=1, progress=False)
    assert len(two) == 2 * len(one)


def test_a_yolo_folder_or_no_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "images").mkdir()
    (tmp_path / "labels").mkdir()
    (tmp_path / "images" / "a.jpg").write_bytes(b"")
    with pytest.raises(DatasetError, match="not a rendered scene folder"):
        folder_crops(tmp_path, progress=False)
    with pytest.raises(DatasetError, match="no such folder"):
        folder_crops(tmp_path / "missing", progress=False)
