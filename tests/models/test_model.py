"""The shipped model file loads in onnxruntime, matches its card and reads real dice."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from models import evaluate, spec

MODELS = Path(__file__).resolve().parents[2] / "models"
SAMPLE = Path(__file__).parent / "data" / "d6-test-sample.npz"


@pytest.fixture(scope="module")
def card() -> dict:
    return json.loads((MODELS / "dieface.json").read_text(encoding="utf-8"))


def test_model_is_small_and_its_card_describes_its_input(card: dict) -> None:
    onnx = MODELS / "dieface.onnx"
    assert onnx.stat().st_size < 5_000_000
    assert card["size_bytes"] == onnx.stat().st_size
    assert card["input"]["shape"][1:] == [1, spec.INPUT_SIZE, spec.INPUT_SIZE]
    assert card["input"]["normalisation"]["mean"] == spec.MEAN
    assert card["input"]["normalisation"]["std"] == spec.STD
    assert card["classes"] == {"d6": [1, 2, 3, 4, 5, 6]}
    assert card["export"]["opset"] >= 17
    assert "CC BY 4.0" in card["training_data"][0]["credit"]
    assert "rune-zkmvl/rune55" in card["training_data"][0]["credit"]
    assert card["metrics"]["test"]["accuracy"] >= 0.9
    assert any("evaluate-crops" in c for c in card["metrics"]["reproduce"])


def test_session_input_and_output_are_as_named() -> None:
    sess = evaluate.session(MODELS / "dieface.onnx")
    (inp,) = sess.get_inputs()
    (out,) = sess.get_outputs()
    assert inp.name == spec.INPUT_NAME and inp.shape[1:] == [1, 64, 64]
    assert out.name == spec.OUTPUT_NAME and out.shape[1] == 6
    # a free batch size: all dice of a throw in one call
    assert evaluate.logits(sess, np.zeros((7, 64, 64), np.uint8)).shape == (7, 6)


def test_model_reads_the_committed_sample_of_real_crops() -> None:
    with np.load(SAMPLE) as data:
        images, labels = data["images"], data["labels"]
    assert images.shape == (180, 64, 64)
    predicted = evaluate.logits(evaluate.session(MODELS / "dieface.onnx"), images).argmax(1)
    accuracy = float((predicted == labels).mean())
    # The wider net (280 k weights) reads 165 of these 180 (0.917; the first cut read 162, 0.90);
    # the floor guards against a broken or stale export. The target is 0.95: raise this floor
    # when a better model ships.
    assert accuracy >= 0.91, evaluate.format_confusion(evaluate.confusion(labels, predicted))


def test_confusion_counts_rows_as_truth() -> None:
    matrix = evaluate.confusion(np.array([0, 0, 5]), np.array([0, 1, 5]))
    assert matrix[0, 0] == 1 and matrix[0, 1] == 1 and matrix[5, 5] == 1 and matrix.sum() == 3
    text = evaluate.format_confusion(matrix)
    assert text.splitlines()[0].startswith("true\\pred") and len(text.splitlines()) == 7


def test_confusion_png_is_written(tmp_path: Path) -> None:
    import cv2

    path = tmp_path / "c.png"
    evaluate.draw_confusion(np.eye(6, dtype=np.int64) * 5, path, "title")
    image = cv2.imread(str(path))
    assert image is not None and image.shape[0] > 300


def test_cli_evaluate_crops_prints_accuracy_confusion_and_latency(
    synthetic_rune55: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from device.cli import main as cli

    png = tmp_path / "confusion.png"
    args = ["evaluate-crops", "--data", str(synthetic_rune55), "--split", "test"]
    assert cli([*args, "--png", str(png)]) == 0
    out = capsys.readouterr().out
    assert "rune55 test: 3 crops, accuracy" in out
    assert "source is not in train: 2 crops from 1 sources" in out  # s5 leaks, t1 does not
    assert "true\\pred" in out and "latency, 3 crops, one thread" in out
    assert png.exists()
    assert cli([*args, "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["crops"] == 3 and result["unseen_sources_crops"] == 2
    assert sum(map(sum, result["confusion"])) == 3


def test_card_names_each_output_the_runtime_reads(card: dict) -> None:
    value = {"output": spec.OUTPUT_NAME, "attribute": "value", "classes": [1, 2, 3, 4, 5, 6]}
    assert card["heads"] == [value]
