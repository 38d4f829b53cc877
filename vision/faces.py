"""The die-face model at run time: crops every die of a frame as the model card says, runs
them through onnxruntime in one batch, and returns each head's best class and probability.

Why read everything from the card: the model grows (1.x reads the value of a grey d6, 2.x
adds kind, colour and finish heads on BGR crops) and the runtime must follow without a code
change. Attributes the model has no head for are left to the classical estimates.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import onnxruntime as ort

from vision.enrolment import BadEnrolmentError, Enrolment
from vision.errors import BadModelError
from vision.files import load_card as read_card

MODELS = Path(__file__).resolve().parents[1] / "models"
DEFAULT_MODEL = MODELS / "dieface.onnx"
# The card's crop: a square of the longer box side x 1.20 centred on the box. A card may say
# otherwise with a numeric ``input.crop_scale``.
CROP_SCALE = 1.20
ATTRIBUTES = ("kind", "value", "colour", "finish", "cocked")
# A die whose value the model reads less surely than this is read three more ways (turned):
# more right values for a few ms; the measurements: docs/lab-notes.md#second_look_below
SECOND_LOOK_BELOW = 0.9


@dataclass(frozen=True)
class Head:
    """One output of the model: which attribute it reads and the class of each logit."""

    output: str
    attribute: str
    classes: tuple[Any, ...]


@dataclass(frozen=True)
class Guess:
    """One head's answer for one die: the best class, its probability, all probabilities."""

    label: Any
    probability: float
    probabilities: tuple[float, ...]


@dataclass(frozen=True)
class Card:
    """What the runtime needs from ``dieface.json``."""

    version: str
    input_name: str
    channels: int
    size: int
    mean: float
    std: float
    crop_scale: float
    heads: tuple[Head, ...]

    @classmethod
    def parse(cls, data: Any, name: str) -> Card:
        """The card from its JSON; a missing or malformed field raises BadModelError."""
        try:
            spec = data["input"]
            _, channels, height, width = spec["shape"]
            norm = spec["normalisation"]
            heads = tuple(
                Head(str(h["output"]), str(h["attribute"]), tuple(h["classes"]))
                for h in data["heads"]
            )
            card = cls(
                version=str(data.get("version", "?")),
                input_name=str(spec["name"]),
                channels=int(channels),
                size=int(height),
                mean=float(norm["mean"]),
                std=float(norm["std"]),
                crop_scale=float(spec.get("crop_scale", CROP_SCALE)),
                heads=heads,
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise BadModelError(f"{name}: not a usable model card ({exc!r})") from None
        if card.channels not in (1, 3) or card.size != int(width) or card.size < 8:
            raise BadModelError(f"{name}: input shape {spec['shape']} is not N x 1|3 x S x S")
        attributes = {h.attribute for h in heads}
        if "value" not in attributes or attributes - set(ATTRIBUTES) or card.std <= 0:
            raise BadModelError(
                f"{name}: heads must read the value and only {', '.join(ATTRIBUTES)}; std > 0"
            )
        return card


def load_card(path: Path) -> Card:
    """The card beside a model file; BadModelError when missing, not JSON or unusable."""
    return Card.parse(read_card(path), str(path))


def crop_square(frame: np.ndarray, box: Sequence[float], size: int, scale: float) -> np.ndarray:
    """A ``size`` x ``size`` crop centred on ``box``, its side the longer box side x
    ``scale``; pixels past the frame repeat the edge (as the training crops did)."""
    x0, y0, x1, y1 = box
    side = max(2, round(max(x1 - x0, y1 - y0) * scale))
    left = round((x0 + x1) / 2 - side / 2)
    top = round((y0 + y1) / 2 - side / 2)
    height, width = frame.shape[:2]
    cx0, cy0 = max(0, left), max(0, top)
    cx1, cy1 = min(width, left + side), min(height, top + side)
    window = frame[cy0:cy1, cx0:cx1]
    pads = (cy0 - top, top + side - cy1, cx0 - left, left + side - cx1)
    if any(pads):
        window = cv2.copyMakeBorder(window, *pads, cv2.BORDER_REPLICATE)
    interpolation = cv2.INTER_AREA if side > size else cv2.INTER_LINEAR
    return cv2.resize(window, (size, size), interpolation=interpolation)


def softmax(logits: np.ndarray) -> np.ndarray:
    shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
    return shifted / shifted.sum(axis=1, keepdims=True)


def onnx_session(model: Path, threads: int) -> ort.InferenceSession:
    """An onnxruntime session on the CPU with ``threads`` threads; BadModelError when the
    file is not a loadable model."""
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    try:
        return ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime raises its own types for corrupt files
        raise BadModelError(f"{model}: not a loadable ONNX model ({exc})") from None


FEATURES = "features"  # the output of the pooled features the heads read (models/dieface/export.py)


class FaceReader:
    """The ONNX die-face model and its card, loaded once (one thread by default: the Pi
    keeps its other cores for the camera and the web page); with a table's ``enrolment``
    (vision/enrolment.py) its value head is the table's own."""

    def __init__(self, model: str | Path = DEFAULT_MODEL, threads: int = 1) -> None:
        model = Path(model)
        if not model.is_file():
            raise BadModelError(f"{model}: model file missing")
        self.card = load_card(model.with_suffix(".json"))
        self.session = onnx_session(model, threads)
        outputs = {o.name for o in self.session.get_outputs()}
        inputs = {i.name for i in self.session.get_inputs()}
        missing = {h.output for h in self.card.heads} - outputs
        if missing or self.card.input_name not in inputs:
            raise BadModelError(
                f"{model}: card and model disagree (input {self.card.input_name!r}, "
                f"outputs {sorted(missing)} not in the model)"
            )
        self.path = model
        self.has_features = FEATURES in outputs
        self.enrolment: Enrolment | None = None

    def enrol(self, enrolment: Enrolment | None) -> None:
        """Read values with this table's head (None: the model's own). BadEnrolmentError
        when the model gives no features or the head's values are not the model's."""
        if enrolment is not None:
            if not self.has_features:
                raise BadEnrolmentError(f"{self.path}: this model gives no features to enrol on")
            if enrolment.value.classes != tuple(int(c) for c in self.classes("value")):
                raise BadEnrolmentError("the enrolment's values are not this model's: enrol again")
        self.enrolment = enrolment

    def features(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The pooled features (N, F) of the crops and the model's own value logits (N, V),
        what an enrolment is fitted on."""
        if not self.has_features:
            raise BadEnrolmentError(f"{self.path}: this model gives no features to enrol on")
        value = next(h.output for h in self.card.heads if h.attribute == "value")
        features, logits = self.session.run(
            [FEATURES, value], {self.card.input_name: self.to_input(crops)}
        )
        return np.asarray(features, np.float64), np.asarray(logits, np.float64)

    @property
    def attributes(self) -> frozenset[str]:
        """The attributes this model reads; the others come from classical estimates."""
        return frozenset(h.attribute for h in self.card.heads)

    def classes(self, attribute: str) -> tuple[Any, ...]:
        """The classes of the head that reads ``attribute`` (KeyError when none does)."""
        for head in self.card.heads:
            if head.attribute == attribute:
                return head.classes
        raise KeyError(attribute)

    def crops(self, frame: np.ndarray, boxes: Sequence[Sequence[float]]) -> np.ndarray:
        """The uint8 crops (N, S, S) grey or (N, S, S, 3) BGR the model takes."""
        card = self.card
        image = frame if card.channels == 3 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        shape = (card.size, card.size) + ((3,) if card.channels == 3 else ())
        out = np.empty((len(boxes), *shape), np.uint8)
        for i, box in enumerate(boxes):
            out[i] = crop_square(image, box, card.size, card.crop_scale)
        return out

    def to_input(self, crops: np.ndarray) -> np.ndarray:
        """uint8 crops → the normalised float32 N x C x S x S tensor."""
        x = crops.astype(np.float32) * np.float32(1 / 255)
        x = x[:, None] if x.ndim == 3 else x.transpose(0, 3, 1, 2)
        return np.ascontiguousarray((x - self.card.mean) / self.card.std)

    def probabilities(self, crops: np.ndarray, own: bool = False) -> list[np.ndarray]:
        """Each head's class probabilities (N, classes) for the crops, in one model run;
        the value's from the table's head when enrolled (unless ``own``: the model's)."""
        names = [h.output for h in self.card.heads]
        enrolment = None if own else self.enrolment
        fetched = [*names, FEATURES] if enrolment is not None else names
        results = self.session.run(fetched, {self.card.input_name: self.to_input(crops)})
        probabilities = [
            softmax(np.asarray(logits, np.float64)) for logits in results[: len(names)]
        ]
        if enrolment is not None:
            value = next(i for i, h in enumerate(self.card.heads) if h.attribute == "value")
            probabilities[value] = enrolment.value.probabilities(results[-1])
        return probabilities

    def read_crops(self, crops: np.ndarray) -> list[dict[str, Guess]]:
        """Every head's guess for each crop, in one run of the model; the crops whose value
        is read less surely than ``SECOND_LOOK_BELOW`` are read again turned by a quarter, a
        half and three quarters, and the four readings averaged (the model learned dice at
        every angle, so each turn is another honest look)."""
        if len(crops) == 0:
            return []
        heads = self.probabilities(crops)
        value = next(i for i, h in enumerate(self.card.heads) if h.attribute == "value")
        doubtful = np.flatnonzero(heads[value].max(axis=1) < SECOND_LOOK_BELOW)
        if len(doubtful):
            turned = np.concatenate([np.rot90(crops[doubtful], k, axes=(1, 2)) for k in (1, 2, 3)])
            again = self.probabilities(np.ascontiguousarray(turned))
            for probs, more in zip(heads, again, strict=True):
                looks = more.reshape(3, len(doubtful), -1)
                probs[doubtful] = (probs[doubtful] + looks.sum(axis=0)) / 4
        per_die: list[dict[str, Guess]] = [{} for _ in crops]
        for head, probs in zip(self.card.heads, heads, strict=True):
            for guesses, p in zip(per_die, probs, strict=True):
                best = int(p.argmax())
                guesses[head.attribute] = Guess(
                    head.classes[best], float(p[best]), tuple(float(v) for v in p)
                )
        return per_die

    def read(self, frame: np.ndarray, boxes: Sequence[Sequence[float]]) -> list[dict[str, Guess]]:
        """Every head's guess for each die box of a BGR frame (all dice in one batch)."""
        return self.read_crops(self.crops(frame, boxes))
