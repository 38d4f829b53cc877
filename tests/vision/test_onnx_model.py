"""Every model is loaded with its card the same way, and refused in one line naming the file
when the card is missing, corrupt or does not fit the model."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from vision.cocked import CockedCard
from vision.detect import FinderCard
from vision.errors import BadModelError
from vision.faces import FaceCard
from vision.model import MODELS, ModelCard, OnnxModel


def copy_model(folder: Path, name: str = "dieface") -> Path:
    model = folder / f"{name}.onnx"
    shutil.copy(MODELS / f"{name}.onnx", model)
    shutil.copy(MODELS / f"{name}.json", model.with_suffix(".json"))
    return model


def edit_card(model: Path, change: Any) -> Path:
    card = model.with_suffix(".json")
    data = json.loads(card.read_text(encoding="utf-8"))
    change(data)
    card.write_text(json.dumps(data), encoding="utf-8")
    return card


@pytest.mark.parametrize(
    ("name", "card"), [("dieface", FaceCard), ("cocked", CockedCard), ("dicefind", FinderCard)]
)
def test_each_shipped_model_loads_with_its_card(name: str, card: type[ModelCard]) -> None:
    model = OnnxModel(MODELS / f"{name}.onnx", card)
    assert isinstance(model.card, card)
    assert model.card.version == json.loads((MODELS / f"{name}.json").read_text())["version"]
    assert model.input_shapes and model.output_shapes
    assert re.fullmatch("[0-9a-f]{64}", model.digest)


def test_a_missing_card_is_refused(tmp_path: Path) -> None:
    model = copy_model(tmp_path)
    model.with_suffix(".json").unlink()
    with pytest.raises(BadModelError) as caught:
        OnnxModel(model, FaceCard)
    assert str(caught.value) == f"{model.with_suffix('.json')}: model card missing"


def test_a_detector_without_a_card_runs_on_the_defaults(tmp_path: Path) -> None:
    model = copy_model(tmp_path, "dicefind")
    model.with_suffix(".json").unlink()
    assert OnnxModel(model, FinderCard).card == FinderCard()


def test_a_corrupt_card_is_refused(tmp_path: Path) -> None:
    model = copy_model(tmp_path)
    card = model.with_suffix(".json")
    card.write_text('{"version": "2.3.1", "input": ', encoding="utf-8")
    with pytest.raises(BadModelError, match=r"dieface\.json: model card unreadable \("):
        OnnxModel(model, FaceCard)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda d: d["input"].pop("normalisation"),
            "{card}: not a usable model card (input.normalisation: missing)",
        ),
        (
            lambda d: d["input"].update(shape=["batch", 3, 48, 48]),
            "{model}: card and model disagree: input 'crops' is ['batch', 3, 48, 48] by the "
            "card, ['batch', 3, 64, 64] in the model",
        ),
        (
            lambda d: d["heads"][1]["classes"].pop(),
            "{model}: card and model disagree: output 'value' is ['batch', 9] by the card, "
            "['batch', 10] in the model",
        ),
    ],
    ids=["fields missing", "input size not the model's", "classes not the model's"],
)
def test_a_card_that_does_not_fit_is_refused_in_one_line(
    tmp_path: Path, change: Any, message: str
) -> None:
    model = copy_model(tmp_path)
    card = edit_card(model, change)
    with pytest.raises(BadModelError) as caught:
        OnnxModel(model, FaceCard)
    assert str(caught.value) == message.format(model=model, card=card)


def test_a_card_of_another_model_is_refused(tmp_path: Path) -> None:
    model = copy_model(tmp_path, "cocked")
    shutil.copy(MODELS / "dieface.json", model.with_suffix(".json"))
    with pytest.raises(BadModelError, match="card and model disagree: expected inputs"):
        OnnxModel(model, FaceCard)
