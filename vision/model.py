"""An ONNX model file and its card, loaded and checked against each other in one place.

Why one loader: every model the appliance runs (die faces, cocked dice, the detector) is a
file with a JSON card beside it that says how to feed it. A missing file, a corrupt card or a
card that does not fit its model must be refused at start-up in one line that names the
file, the same way for each model; and every session gets the same options: the CPU, one
thread by default, so that the Pi keeps its other cores for the camera and the web page.

The cards are read into frozen dataclasses by :class:`Fields` rather than pydantic models:
vision/ imports only what DESIGN.md's layout allows it (tests/test_layout.py).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, ClassVar, Generic, Self, TypeVar

import onnxruntime as ort

from vision.errors import BadModelError
from vision.files import read_json

MODELS = Path(__file__).resolve().parents[1] / "models"
# The crop of the models that read one die: a square of the longer box side x this, centred
# on the box. A card may say otherwise with ``input.crop_scale``.
CROP_SCALE = 1.20

Dim = int | str | None  # a tensor's dimension: its size, or a name (or None) where it is free
Shape = tuple[Dim, ...]
REQUIRED: Any = object()  # the default of a field the card must give


class Fields:
    """One JSON object of a card, read a field at a time; a field that is missing or of the
    wrong type raises ValueError naming it as the card spells it (``input.shape: missing``)."""

    def __init__(self, data: Any, where: str = "") -> None:
        if not isinstance(data, dict):
            raise ValueError(f"{where or 'the card'}: not a JSON object")
        self.data, self.where = data, where

    def name(self, key: str) -> str:
        return f"{self.where}.{key}" if self.where else key

    def raw(self, key: str, default: Any = REQUIRED) -> Any:
        """The field as the JSON has it, ``default`` when absent."""
        if key in self.data:
            return self.data[key]
        if default is REQUIRED:
            raise ValueError(f"{self.name(key)}: missing")
        return default

    def value(self, key: str, kind: type[int | float | str], default: Any = REQUIRED) -> Any:
        """The field as an int, float or str (a number in a string too), ``default`` when
        absent."""
        value = self.raw(key, default)
        if value is default:
            return value
        return number_or_text(value, kind, self.name(key))

    def object(self, key: str, default: Any = REQUIRED) -> Fields:
        """The JSON object in the field, ``default`` (an object) when absent."""
        return Fields(self.raw(key, default), self.name(key))

    def items(self, key: str) -> list[Any]:
        """The JSON list in the field."""
        items = self.raw(key)
        if not isinstance(items, list):
            raise ValueError(f"{self.name(key)}: not a list")
        return items

    def shape(self, key: str) -> Shape:
        """A tensor's shape: its sizes, and names where a size is free."""
        name = self.name(key)
        return tuple(
            d if isinstance(d, str) or d is None else number_or_text(d, int, f"{name}.{i}")
            for i, d in enumerate(self.items(key))
        )


def number_or_text(value: Any, kind: type[int | float | str], name: str) -> Any:
    """``value`` as a ``kind``; ValueError naming the field when it is not one."""
    if not isinstance(value, bool) and isinstance(value, (int, float, str)):
        try:
            return kind(value)
        except ValueError:
            pass
    raise ValueError(f"{name}: {value!r} is not a{'n' if kind is int else ''} {kind.__name__}")


@dataclass(frozen=True, kw_only=True)
class ModelCard:
    """What every card may say; each model's card adds what its reader needs, and the rest
    of the file (training data, metrics) is there for people, not read."""

    # True where the model runs on the card's defaults when it has no card beside it
    optional: ClassVar[bool] = False

    version: str = "?"

    @classmethod
    def parse(cls, data: Any) -> Self:
        """The card in ``data`` (JSON); ValueError naming the first field that is wrong."""
        return cls(**cls.fields(Fields(data)))

    @classmethod
    def fields(cls, card: Fields) -> dict[str, Any]:
        """The arguments of the card's class, read from the card."""
        return {"version": card.value("version", str, "?")}

    def expected_inputs(self) -> dict[str, Shape | None]:
        """The model's inputs, all of them, with their shapes where known; {}: not checked."""
        return {}

    def expected_outputs(self) -> dict[str, Shape | None]:
        """The outputs the reader fetches (the model may give more), shapes where known."""
        return {}


@dataclass(frozen=True, kw_only=True)
class SquareCrops:
    """The input of a model that reads one die a crop: N x C x S x S, C 1 (grey) or 3
    (BGR), pixels normalised as ``(pixel / 255 - mean) / std``."""

    name: str
    shape: Shape
    mean: float
    std: float
    crop_scale: float = CROP_SCALE

    def __post_init__(self) -> None:
        _, channels, height, width = self.shape if len(self.shape) == 4 else (None,) * 4
        if channels not in (1, 3) or not isinstance(height, int) or not height == width >= 8:
            raise ValueError(f"input.shape: {list(self.shape)} is not N x 1|3 x S x S")
        if self.std <= 0 or self.crop_scale <= 0:
            raise ValueError("input: the normalisation's std and the crop scale must be > 0")

    @classmethod
    def fields(cls, spec: Fields) -> dict[str, Any]:
        """The arguments of the class, read from the card's ``input``."""
        norm = spec.object("normalisation")
        return {
            "name": spec.value("name", str),
            "shape": spec.shape("shape"),
            "mean": norm.value("mean", float),
            "std": norm.value("std", float),
            "crop_scale": spec.value("crop_scale", float, CROP_SCALE),
        }

    @property
    def channels(self) -> int:
        return int(self.shape[1])  # type: ignore[arg-type]  # an int (__post_init__)

    @property
    def size(self) -> int:
        return int(self.shape[2])  # type: ignore[arg-type]


@dataclass(frozen=True, kw_only=True)
class CropCard(ModelCard):
    """The card of a model that reads square crops of dice (die faces, cocked dice)."""

    crops: ClassVar[type[SquareCrops]] = SquareCrops  # the class of its ``input``
    input: SquareCrops

    @classmethod
    def fields(cls, card: Fields) -> dict[str, Any]:
        spec = card.object("input")
        return super().fields(card) | {"input": cls.crops(**cls.crops.fields(spec))}

    @property
    def channels(self) -> int:
        return self.input.channels

    @property
    def size(self) -> int:
        return self.input.size

    @property
    def crop_scale(self) -> float:
        return self.input.crop_scale


Card = TypeVar("Card", bound=ModelCard)


def digest(model: Path) -> str:
    """The SHA-256 of a model file: what an enrolment names the model it was fitted on by."""
    return hashlib.sha256(model.read_bytes()).hexdigest()


def read_card(path: Path, card: type[Card]) -> Card:
    """The card at ``path`` read as a ``card``; BadModelError when it is missing (unless the
    model runs without one), not JSON, or not such a card."""
    if card.optional and not path.exists():
        return card()
    data = read_json(path, BadModelError, "model card missing", "model card unreadable")
    try:
        return card.parse(data)
    except ValueError as exc:
        raise BadModelError(f"{path}: not a usable model card ({exc})") from None


def open_session(model: Path, threads: int) -> ort.InferenceSession:
    """An onnxruntime session on the CPU with ``threads`` threads; BadModelError when the
    file is not a loadable model."""
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    # the arena keeps each batch size's buffers for good: 10 MB of a Pi's memory for no speed
    options.enable_cpu_mem_arena = False
    try:
        return ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime raises its own types for corrupt files
        raise BadModelError(f"{model}: not a loadable ONNX model ({exc})") from None


def fits(card: Shape, model: Shape) -> bool:
    """Whether a shape the card gives fits the model's: the same rank, the same size where
    both give one."""
    if len(card) != len(model):
        return False
    sizes = zip(card, model, strict=True)
    return all(a == b for a, b in sizes if isinstance(a, int) and isinstance(b, int))


class OnnxModel(Generic[Card]):
    """An ONNX model file and its card (beside it: the same name, ``.json``), loaded once:
    the card read as a ``card``, the session opened, and the two checked against each other
    (input names and shapes, the outputs read and their classes). BadModelError naming the
    file for a missing file, a corrupt model or card, and a card that does not fit."""

    def __init__(self, path: str | Path, card: type[Card], threads: int = 1) -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise BadModelError(f"{self.path}: model file missing")
        self.card: Card = read_card(self.path.with_suffix(".json"), card)
        self.session = open_session(self.path, threads)
        self.input_shapes = {i.name: tuple(i.shape) for i in self.session.get_inputs()}
        self.output_shapes = {o.name: tuple(o.shape) for o in self.session.get_outputs()}
        self._check_card()

    @cached_property
    def digest(self) -> str:
        """The SHA-256 of the model file (read when first asked)."""
        return digest(self.path)

    def _check_card(self) -> None:
        """BadModelError when the card names other tensors than the model has, or other
        shapes: the first run would fail, or read the dice wrong."""
        inputs, outputs = self.card.expected_inputs(), self.card.expected_outputs()
        have_inputs, have_outputs = self.input_shapes, self.output_shapes
        if (inputs and inputs.keys() != have_inputs.keys()) or outputs.keys() - have_outputs:
            raise BadModelError(
                f"{self.path}: card and model disagree: expected inputs {sorted(inputs)} and "
                f"outputs {sorted(outputs)}, found {sorted(have_inputs)} and {sorted(have_outputs)}"
            )
        for kind, expected, found in (
            ("input", inputs, have_inputs),
            ("output", outputs, have_outputs),
        ):
            for name, shape in expected.items():
                if shape is not None and not fits(shape, found[name]):
                    raise BadModelError(
                        f"{self.path}: card and model disagree: {kind} {name!r} is "
                        f"{list(shape)} by the card, {list(found[name])} in the model"
                    )
