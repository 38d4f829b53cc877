"""Synthetic crops: cut by the runtime's rule from jittered boxes, labelled per head, cached in
resumable chunks; the corrections folder format is read strictly."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from models.dieface import spec, synth_crops
from models.dieface.corrections import load_corrections
from models.dieface.synth_crops import (
    jitter_box,
    load_synthetic,
    overhead_crops,
    scene_crops,
    slanted_crops,
)
from models.synth.layout import NARROW_CAMERA, WIDE_CAMERA
from vision.perspective import top_face_box


def test_jittered_boxes_stay_within_the_stated_scale_and_shift() -> None:
    rng = np.random.default_rng(1)
    box = (100, 100, 140, 160)  # 40 x 60, centre (120, 130)
    for _ in range(200):
        x0, y0, x1, y1 = jitter_box(rng, box)
        assert 40 * 0.85 <= x1 - x0 <= 40 * 1.15 and 60 * 0.85 <= y1 - y0 <= 60 * 1.15
        assert abs((x0 + x1) / 2 - 120) <= 6 and abs((y0 + y1) / 2 - 130) <= 6


def test_scene_crops_carry_a_label_per_head_within_its_classes() -> None:
    crops = scene_crops(7, 0)
    assert crops.images.shape[1:] == (64, 64, 3) and crops.images.dtype == np.uint8
    assert set(crops.labels) == set(spec.HEADS)
    for name, classes in spec.HEADS.items():
        assert crops.labels[name].shape == (len(crops),)
        assert ((crops.labels[name] >= 0) & (crops.labels[name] < len(classes))).all()
    d6 = crops.labels["kind"] == 0
    assert (crops.labels["value"][d6] < 6).all()
    again = scene_crops(7, 0)  # a scene is fixed by (seed, index)
    assert np.array_equal(again.images, crops.images)


def test_slanted_crops_are_labelled_but_for_cocked_and_upright_once_concatenated() -> None:
    crops = slanted_crops(7, 0)
    assert len(crops) > 0 and crops.images.shape[1:] == (64, 64, 3)
    assert (crops.labels["cocked"] == spec.UNKNOWN).all()
    for name in ("kind", "value", "colour", "finish"):
        assert ((crops.labels[name] >= 0) & (crops.labels[name] < len(spec.HEADS[name]))).all()
    assert np.array_equal(slanted_crops(7, 0).images, crops.images)
    both = synth_crops.concat([scene_crops(7, 0), crops.held_upright()])
    assert both.upright is not None and both.upright.sum() == len(crops)
    assert not both.upright[: len(both) - len(crops)].any()
    assert both.subset(np.arange(len(both) - 1, len(both))).upright.tolist() == [True]
    assert synth_crops.concat([scene_crops(7, 0)]).upright is None


@pytest.mark.parametrize(("share", "camera"), [(0.0, NARROW_CAMERA), (1.0, WIDE_CAMERA)])
def test_overhead_crops_cut_each_top_face_with_its_scenes_own_focal_length(
    share: float, camera: tuple[float, float], monkeypatch: pytest.MonkeyPatch
) -> None:
    focals: list[float] = []

    def top_face(shape: tuple[int, ...], box: tuple, focal: float) -> tuple:
        focals.append(focal)
        return top_face_box(shape, box, focal)

    monkeypatch.setattr(synth_crops, "top_face_box", top_face)
    crops = overhead_crops(7, 0, wide_share=share)
    assert len(focals) == len(crops) and len(set(focals)) == 1  # one camera per scene
    assert camera[0] <= focals[0] <= camera[1]
    # the same dice as the whole-box recipe draws with the same camera, in the same order
    if share == 0:
        plain = scene_crops(7, 0)
        assert all(np.array_equal(crops.labels[k], plain.labels[k]) for k in spec.HEADS)
        assert not np.array_equal(crops.images, plain.images)


def test_load_synthetic_caches_chunks_and_resumes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(synth_crops, "CHUNK", 2)
    first = load_synthetic(3, 3, workers=1, cache_dir=tmp_path, progress=False)
    (folder,) = tmp_path.iterdir()
    chunks = sorted(p.name for p in folder.glob("*.npz"))
    assert chunks == ["scenes-000000-000002.npz", "scenes-000002-000003.npz"]
    (folder / chunks[1]).unlink()  # as if stopped before the last chunk
    again = load_synthetic(3, 3, workers=1, cache_dir=tmp_path, progress=False)
    assert np.array_equal(again.images, first.images)
    assert all(np.array_equal(again.labels[k], first.labels[k]) for k in spec.HEADS)
    direct = synth_crops.concat([scene_crops(3, i) for i in range(3)])
    assert np.array_equal(direct.images, first.images)


def write_corrections(folder: Path, rows: list[dict]) -> None:
    """PNG crops (plain colours) and labels.jsonl, one row per crop."""
    folder.mkdir(parents=True, exist_ok=True)
    for i, row in enumerate(rows):
        cv2.imwrite(str(folder / row["file"]), np.full((80, 80, 3), 40 * i, np.uint8))
    text = "\n".join(json.dumps(r) for r in rows)
    (folder / "labels.jsonl").write_text(text + "\n", encoding="utf-8")


def test_corrections_are_read_with_unknown_heads_left_out(tmp_path: Path) -> None:
    rows = [
        {"file": "a.png", "kind": "d10", "value": 10, "colour": "red", "finish": "frosted"},
        {"file": "b.png", "kind": "d6", "value": 3, "colour": None, "cocked": True},
    ]
    write_corrections(tmp_path, rows)
    crops = load_corrections(tmp_path)
    assert crops.images.shape == (2, 64, 64, 3)  # resized to the model's size
    assert crops.labels["kind"].tolist() == [1, 0]
    assert crops.labels["value"].tolist() == [9, 2]
    assert crops.labels["colour"].tolist() == [0, -1]
    assert crops.labels["finish"].tolist() == [0, -1]
    assert crops.labels["cocked"].tolist() == [-1, 1]


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ({"file": "a.png", "kind": "d8"}, "kind is one of"),
        ({"file": "a.png", "kind": "d6", "value": 8}, "a d6 shows 1..6"),
        ({"file": "a.png", "value": 11}, "value is one of"),
        ({"file": "a.png", "cocked": "yes"}, "cocked is true or false"),
        ({"kind": "d6"}, "file"),
        ({"file": "missing.png"}, "cannot read"),
    ],
)
def test_bad_corrections_name_their_line(tmp_path: Path, row: dict, message: str) -> None:
    write_corrections(tmp_path, [{"file": "a.png", "value": 1}])
    with (tmp_path / "labels.jsonl").open("a", encoding="utf-8") as f:
        f.write(json.dumps(row) + "\n")
    with pytest.raises(ValueError, match=message) as error:
        load_corrections(tmp_path)
    assert "labels.jsonl:2" in str(error.value)
