"""The die-face model is loaded from its card, refused with a clear message when broken,
and reads every die of a frame in one run."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from drawn_dice import draw_die, felt

from vision.errors import BadModelError
from vision.faces import DEFAULT_MODEL, FaceReader, crop_square


@pytest.fixture(scope="module")
def reader() -> FaceReader:
    return FaceReader()


def copy_model(folder: Path) -> Path:
    model = folder / "dieface.onnx"
    shutil.copy(DEFAULT_MODEL, model)
    shutil.copy(DEFAULT_MODEL.with_suffix(".json"), model.with_suffix(".json"))
    return model


def test_a_missing_model_is_refused(tmp_path: Path) -> None:
    with pytest.raises(BadModelError, match="model file missing"):
        FaceReader(tmp_path / "dieface.onnx")


def test_a_corrupt_model_is_refused(tmp_path: Path) -> None:
    model = copy_model(tmp_path)
    model.write_bytes(b"\x08\x01garbage" * 100)
    with pytest.raises(BadModelError, match="not a loadable ONNX model"):
        FaceReader(model)


def test_a_missing_or_broken_card_is_refused(tmp_path: Path) -> None:
    model = copy_model(tmp_path)
    card = model.with_suffix(".json")
    card.write_text("{not json", encoding="utf-8")
    with pytest.raises(BadModelError, match="model card unreadable"):
        FaceReader(model)
    card.write_text(json.dumps({"input": {"name": "crops"}}), encoding="utf-8")
    with pytest.raises(BadModelError, match="not a usable model card"):
        FaceReader(model)
    card.unlink()
    with pytest.raises(BadModelError, match="model card missing"):
        FaceReader(model)


def test_a_card_naming_outputs_the_model_lacks_is_refused(tmp_path: Path) -> None:
    model = copy_model(tmp_path)
    card = model.with_suffix(".json")
    data = json.loads(card.read_text(encoding="utf-8"))
    data["heads"].append({"output": "colour_logits", "attribute": "colour", "classes": ["r"]})
    card.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(BadModelError, match="card and model disagree"):
        FaceReader(model)


def test_the_crop_repeats_the_edge_past_the_frame() -> None:
    frame = np.zeros((50, 50), np.uint8)
    frame[:, :10] = 200
    crop = crop_square(frame, (0, 10, 20, 30), 16, 1.2)
    assert crop.shape == (16, 16)
    assert crop[:, 0].min() == 200  # the edge column repeated, not black


def test_all_dice_of_a_frame_are_read_in_one_run(reader: FaceReader) -> None:
    image = felt(400, 120)
    boxes = [draw_die(image, v, 10 + 60 * (v - 1), 40) for v in range(1, 7)]
    runs = []
    session_run = reader.session.run

    def counting(*args, **kwargs):
        runs.append(args)
        return session_run(*args, **kwargs)

    reader.session.run = counting  # type: ignore[method-assign]
    try:
        guesses = reader.read(image, boxes)
    finally:
        del reader.session.run
    # one run for every die; a second one, for all the doubtful dice at once, is the second
    # look (each turned three ways): never one run per die
    assert len(runs[0][1]["crops"]) == 6 and len(runs) <= 2
    assert all(len(run[1]["crops"]) % 3 == 0 and len(run[1]["crops"]) < 18 for run in runs[1:])
    assert len(guesses) == 6
    assert all(set(g) == reader.attributes for g in guesses)  # one guess per head of the card
    assert all(0 < g["value"].probability <= 1 for g in guesses)
    assert all(abs(sum(g["value"].probabilities) - 1) < 1e-6 for g in guesses)
    # drawn dice are far from the photos the model learnt on: most, not all, are right
    assert sum(g["value"].label == v for g, v in zip(guesses, range(1, 7), strict=True)) >= 4
    assert reader.attributes == frozenset({"kind", "value", "colour", "finish", "cocked"})
    assert reader.read(image, []) == []


def write_multi_head_model(folder: Path) -> Path:
    """A tiny ONNX model shaped like die-face 2.x: BGR input, one output per head, each
    head's logits the mean of a colour channel times fixed weights (enough to check that
    the reader follows the card, not to read dice)."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper

    heads = {"kind": ["d6", "d10"], "value": list(range(1, 11)), "colour": ["red", "white"]}
    nodes = [helper.make_node("ReduceMean", ["crops"], ["mean"], axes=[2, 3], keepdims=0)]
    outputs, weights = [], []
    for name, classes in heads.items():
        w = np.linspace(-1, 1, 3 * len(classes), dtype=np.float32).reshape(3, len(classes))
        weights.append(helper.make_tensor(f"w_{name}", TensorProto.FLOAT, w.shape, w.ravel()))
        nodes.append(helper.make_node("MatMul", ["mean", f"w_{name}"], [f"{name}_logits"]))
        outputs.append(
            helper.make_tensor_value_info(f"{name}_logits", TensorProto.FLOAT, ["n", len(classes)])
        )
    graph = helper.make_graph(
        nodes,
        "heads",
        [helper.make_tensor_value_info("crops", TensorProto.FLOAT, ["n", 3, 32, 32])],
        outputs,
        weights,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    path = folder / "dieface.onnx"
    onnx.save(model, str(path))
    card = {
        "version": "2.0.0-test",
        "input": {
            "name": "crops",
            "shape": ["batch", 3, 32, 32],
            "normalisation": {"mean": 0.5, "std": 0.25},
        },
        "heads": [
            {"output": f"{name}_logits", "attribute": name, "classes": classes}
            for name, classes in heads.items()
        ],
    }
    path.with_suffix(".json").write_text(json.dumps(card), encoding="utf-8")
    return path


def test_a_bgr_model_with_several_heads_is_read_from_its_card(tmp_path: Path) -> None:
    reader = FaceReader(write_multi_head_model(tmp_path))
    assert reader.card.channels == 3 and reader.card.size == 32
    assert reader.attributes == frozenset({"kind", "value", "colour"})
    image = felt(200, 100)
    boxes = [draw_die(image, 2, 20, 30), draw_die(image, 5, 120, 30)]
    assert reader.crops(image, boxes).shape == (2, 32, 32, 3)
    guesses = reader.read(image, boxes)
    assert all(set(g) == {"kind", "value", "colour"} for g in guesses)
    assert all(
        g["kind"].label in ("d6", "d10") and g["value"].label in range(1, 11) for g in guesses
    )
    assert all(len(g["value"].probabilities) == 10 for g in guesses)


def test_a_doubtful_die_is_read_four_ways_and_a_sure_one_once(reader: FaceReader) -> None:
    from vision.faces import SECOND_LOOK_BELOW

    image = felt(seed=3)
    box = draw_die(image, 5, 60, 60)
    sure = reader.crops(image, [box])[0]
    noise = np.random.default_rng(0).integers(0, 255, sure.shape, np.uint8)  # no die at all
    crops = np.stack([sure, noise])
    once = reader.probabilities(crops)
    values = [h.attribute for h in reader.card.heads].index("value")
    assert once[values][0].max() >= SECOND_LOOK_BELOW > once[values][1].max()
    turned = [reader.probabilities(np.rot90(noise[None], k, axes=(1, 2)).copy()) for k in range(4)]
    guesses = reader.read_crops(crops)
    assert guesses[0]["value"].probabilities == pytest.approx(tuple(once[values][0]))
    four_ways = np.mean([t[values][0] for t in turned], axis=0)
    assert guesses[1]["value"].probabilities == pytest.approx(tuple(four_ways))


def test_a_doubtful_die_of_a_slanted_photo_is_tilted_and_a_d6_mirrored_too(
    reader: FaceReader,
) -> None:
    from vision.faces import SLANTED_TILT, tilted

    noise = np.random.default_rng(1).integers(0, 255, (2, 64, 64, 3), np.uint8)
    values = [h.attribute for h in reader.card.heads].index("value")
    once = reader.probabilities(noise)[values]
    mirror, *tilts = (
        reader.probabilities(np.ascontiguousarray(v))[values]
        for v in (noise[:, :, ::-1], tilted(noise, SLANTED_TILT), tilted(noise, -SLANTED_TILT))
    )
    guesses = reader.read_crops(noise, overhead=False, d6=np.array([True, False]))
    assert guesses[0]["value"].probabilities == pytest.approx(
        tuple(np.mean([once[0], mirror[0], *(t[0] for t in tilts)], axis=0))
    )
    assert guesses[1]["value"].probabilities == pytest.approx(
        tuple(np.mean([once[1], *(t[1] for t in tilts)], axis=0))
    )
    assert not np.allclose(once[0], mirror[0])  # the mirror is another look, not the same
    by_kind = reader.read_as_d6(reader.probabilities(noise))  # untold: the kind head decides
    untold = reader.read_crops(noise, overhead=False)
    told = reader.read_crops(noise, overhead=False, d6=by_kind)
    assert [g["value"].probabilities for g in untold] == [g["value"].probabilities for g in told]


def test_a_tilt_turns_a_crop_about_its_centre() -> None:
    from vision.faces import tilted

    crop = np.zeros((1, 33, 33), np.uint8)
    crop[0, 16, 16:] = 255  # a ray from the centre to the right edge
    up = tilted(crop, 90.0)[0]  # OpenCV turns anticlockwise: the ray points up
    assert up[:16, 16].mean() > 200 and up[17:, 16].max() == 0 and up[16, 17:].max() < 100
