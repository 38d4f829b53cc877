"""The shipped model file loads in onnxruntime, matches its card and reads real dice."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from models.dieface import evaluate, spec, synth_crops
from vision.recognise import NO_DIE_FROM

MODELS = Path(__file__).resolve().parents[2] / "models"
SAMPLE = Path(__file__).parent / "data" / "d6-test-sample.npz"
# What 2.3.0 reads, less a margin: these guard against a broken or stale export. Raise them
# when a better model ships (the targets: 0.99 on Rune55, 0.995 per synthetic head).
# 2.8.0 to 2.10.0 take 3 of the 180 for no die (its kind head's "none" at NO_DIE_FROM or more)
NO_DIE_CEILING = 0.03
SAMPLE_FLOOR = 0.9  # 2.3.0 reads 167 of the 180 sample crops (0.93; 2.1.0 166, 2.0.0 162)
# 2.3.0 (and 2.1.0) on the 56 crops below: kind, colour, finish 1.0; value and cocked 0.96
SYNTHETIC_FLOORS = {"kind": 0.97, "value": 0.92, "colour": 0.97, "finish": 0.97, "cocked": 0.92}


@pytest.fixture(scope="module")
def card() -> dict:
    return json.loads((MODELS / "dieface.json").read_text(encoding="utf-8"))


def test_model_is_small_and_its_card_describes_its_input(card: dict) -> None:
    onnx = MODELS / "dieface.onnx"
    assert onnx.stat().st_size < 5_000_000
    assert card["size_bytes"] == onnx.stat().st_size
    assert card["version"] == spec.VERSION
    assert card["input"]["shape"][1:] == [spec.CHANNELS, spec.INPUT_SIZE, spec.INPUT_SIZE]
    assert "BGR" in card["input"]["colour"]
    assert card["input"]["normalisation"]["mean"] == spec.MEAN
    assert card["input"]["normalisation"]["std"] == spec.STD
    assert card["input"]["crop_scale"] == pytest.approx(1.2)
    assert card["export"]["opset"] >= 17
    assert "CC BY 4.0" in card["training_data"][0]["credit"]
    assert "rune-zkmvl/rune55" in card["training_data"][0]["credit"]
    metrics = card["metrics"]
    assert metrics["rune55_test"]["accuracy"] >= 0.85
    for name, floor in SYNTHETIC_FLOORS.items():
        assert metrics["synthetic_test"][name]["accuracy"] >= floor, name
    assert metrics["latency_10_crops_one_thread"]["crops"] == 10
    assert "evaluate-crops --synthetic" in metrics["reproduce"]["synthetic_test"]
    assert "evaluate-crops --split test" in metrics["reproduce"]["rune55_test"]


def test_session_input_and_outputs_are_as_named() -> None:
    sess = evaluate.session(MODELS / "dieface.onnx")
    (inp,) = sess.get_inputs()
    assert inp.name == spec.INPUT_NAME and inp.shape[1:] == [3, 64, 64]
    outputs = {o.name: o.shape[1] for o in sess.get_outputs()}
    features = outputs.pop("features")  # what a table's enrolment is fitted on
    assert outputs == {name: len(classes) for name, classes in spec.HEADS.items()}
    (pooled,) = sess.run(["features"], {spec.INPUT_NAME: np.zeros((2, 3, 64, 64), np.float32)})
    size = json.loads((MODELS / "dieface.json").read_text(encoding="utf-8"))["features"]["size"]
    assert pooled.shape == (2, size) and features in ("features", size)
    # a free batch size: all dice of a throw in one call
    logits = evaluate.outputs(sess, np.zeros((7, 64, 64, 3), np.uint8))
    assert logits["value"].shape == (7, 10)


def test_model_reads_the_committed_sample_of_real_crops() -> None:
    with np.load(SAMPLE) as data:
        images, labels = data["images"], data["labels"]
    assert images.shape == (180, 64, 64)  # grey: repeated into B, G, R as the card says
    outputs = evaluate.outputs(evaluate.session(MODELS / "dieface.onnx"), images)
    predicted = evaluate.predictions(outputs)
    kind = outputs["kind"]
    assert (kind[:, 0] > kind[:, 1]).mean() >= 0.97  # of the two kinds of die, a d6
    # each is a die: a photo read without a calibration would drop one seen as none
    none = np.exp(kind - kind.max(axis=1, keepdims=True))
    none = none[:, spec.HEADS["kind"].index(spec.NO_DIE)] / none.sum(axis=1)
    assert (none >= NO_DIE_FROM).mean() <= NO_DIE_CEILING
    accuracy = float((predicted["value"] == labels).mean())
    assert accuracy >= SAMPLE_FLOOR, evaluate.format_confusion(
        evaluate.confusion(labels, predicted["value"], 10), spec.VALUES
    )


def test_model_reads_fresh_synthetic_crops_with_every_head() -> None:
    # scenes of a seed no set uses, drawn afresh (about 50 dice)
    seed = synth_crops.TEST_SEED + 100
    crops = synth_crops.concat([synth_crops.scene_crops(seed, i) for i in range(8)])
    predicted = evaluate.predictions(
        evaluate.outputs(evaluate.session(MODELS / "dieface.onnx"), crops.images)
    )
    for name, floor in SYNTHETIC_FLOORS.items():
        accuracy = float((predicted[name] == crops.labels[name]).mean())
        assert accuracy >= floor, (name, accuracy)


def test_synthetic_value_accuracy_of_flat_dice_leaves_the_cocked_ones_out() -> None:
    crops = synth_crops.concat(
        [synth_crops.scene_crops(synth_crops.TEST_SEED + 101, i) for i in range(3)]
    )
    read = evaluate.predictions(
        evaluate.outputs(evaluate.session(MODELS / "dieface.onnx"), crops.images)
    )["value"]
    labels = {k: v.copy() for k, v in crops.labels.items()}
    labels["cocked"][:] = 0
    labels["cocked"][:2] = 1
    labels["value"][:2] = (read[:2] + 1) % 10  # two cocked dice, both misread
    result = evaluate.synthetic_metrics(
        MODELS / "dieface.onnx", synth_crops.CropSet(crops.images, labels)
    )
    flat_right = float((read[2:] == labels["value"][2:]).mean())
    assert result["value"]["flat_dice"] == len(crops) - 2
    assert result["value"]["accuracy_flat"] == round(flat_right, 4)
    assert result["value"]["accuracy"] < result["value"]["accuracy_flat"]


def test_confusion_counts_rows_as_truth() -> None:
    matrix = evaluate.confusion(np.array([0, 0, 5]), np.array([0, 1, 5]), 6)
    assert matrix[0, 0] == 1 and matrix[0, 1] == 1 and matrix[5, 5] == 1 and matrix.sum() == 3
    text = evaluate.format_confusion(matrix, spec.VALUES[:6])
    assert text.splitlines()[0].startswith("true\\pred") and len(text.splitlines()) == 7


def test_confusion_png_is_written(tmp_path: Path) -> None:
    import cv2

    path = tmp_path / "c.png"
    evaluate.draw_confusion(np.eye(6, dtype=np.int64) * 5, path, "title", spec.VALUES[:6])
    image = cv2.imread(str(path))
    assert image is not None and image.shape[0] > 300


def test_mistakes_sheet_draws_only_the_misread_crops(tmp_path: Path) -> None:
    import cv2

    grey = np.zeros((7, 64, 64), np.uint8)
    truth, read = np.array([0, 1, 2, 3, 4, 5, 0]), np.array([0, 2, 2, 5, 4, 0, 1])
    path = tmp_path / "m.png"
    names = np.array(list("abcdefg"))
    assert evaluate.draw_mistakes(grey, truth, read, path, names, tile=64, columns=3) == 4
    sheet = cv2.imread(str(path))
    assert sheet.shape == (2 * 64, 3 * 64, 3)  # four tiles in rows of three, padded
    assert sheet[20:50, :64].mean() < 5 and sheet[:12, :64].max() > 200  # crop, then "2>3"
    assert evaluate.draw_mistakes(grey, truth, truth, path) == 0
    assert cv2.imread(str(path)).mean() > 200  # "none wrong" on white


def test_cli_evaluate_crops_prints_accuracy_confusion_and_latency(
    synthetic_rune55: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from device.cli import main as cli

    png = tmp_path / "confusion.png"
    args = ["evaluate-crops", "--data", str(synthetic_rune55), "--split", "test"]
    assert cli([*args, "--png", str(png)]) == 0
    out = capsys.readouterr().out
    assert "rune55 test: 3 crops, value accuracy" in out
    assert "source is not in train: 2 crops from 1 sources" in out  # s5 leaks, t1 does not
    assert "true\\pred" in out and "latency, 3 crops, one thread" in out
    assert png.exists()
    assert cli([*args, "--json", "--mistakes", str(tmp_path / "m.png")]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["crops"] == 3 and result["unseen_sources_crops"] == 2
    right = sum(result["confusion"][i][i] for i in range(6))
    assert result["mistakes_drawn"] == 3 - right and (tmp_path / "m.png").exists()
    assert sum(map(sum, result["confusion"])) == 3


def test_cli_evaluate_crops_scores_every_head_on_held_out_synthetic_crops(
    synth_cache: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from device.cli import main as cli

    png = tmp_path / "synthetic.png"
    assert cli(["evaluate-crops", "--synthetic", "2", "--png", str(png)]) == 0
    out = capsys.readouterr().out
    assert "synthetic held-out (seed 2): 2 scenes" in out
    for name in spec.HEADS:
        assert f"{name}: accuracy" in out
        assert (tmp_path / f"synthetic-{name}.png").exists()
    assert cli(["evaluate-crops", "--synthetic", "2", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert set(result) >= set(spec.HEADS) and result["scenes"] == 2
    assert len(result["value"]["confusion"]) == 10


def test_card_names_each_output_the_runtime_reads(card: dict) -> None:
    assert card["heads"] == [
        {"output": name, "attribute": name, "classes": list(classes)}
        for name, classes in spec.HEADS.items()
    ]
    assert card["heads"][1]["classes"] == list(range(1, 11))
