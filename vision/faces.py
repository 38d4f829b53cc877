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

from vision.enrolment import HEAD_SHARE, BadEnrolmentError, Enrolment
from vision.model import MODELS, CropCard, Fields, OnnxModel, Shape

DEFAULT_MODEL = MODELS / "dieface.onnx"
ATTRIBUTES = ("kind", "value", "colour", "finish", "cocked")
# A die whose value the model reads less surely than this is read again in other views of
# its crop (second_views) and the readings averaged: more right values for a few ms; the
# measurements: docs/lab-notes.md#second_look_below
SECOND_LOOK_BELOW = 0.9
OVERHEAD_VIEWS = (1, 2, 3)  # quarter turns of a crop seen from straight down (a die lies any way)
SLANTED_TILT = 15.0  # degrees each way a crop of a photo taken at a slant is tilted


def second_views(crops: np.ndarray, overhead: bool, mirror: bool = True) -> list[np.ndarray]:
    """The other views of doubtful crops the second look reads. From overhead a die lies
    at any angle, so a turned crop is another honest look. In a photo taken at a slant the
    top face lies at the top of the box: a turn would put a side face there, while a tilt
    of a few degrees keeps it up, and so does a left-right mirror, which ``mirror`` asks
    for: a mirrored d6 face is a d6 face, a mirrored numeral is none."""
    if overhead:
        return [np.rot90(crops, k, axes=(1, 2)) for k in OVERHEAD_VIEWS]
    tilts = [tilted(crops, SLANTED_TILT), tilted(crops, -SLANTED_TILT)]
    return [crops[:, :, ::-1], *tilts] if mirror else tilts


def tilted(crops: np.ndarray, degrees: float) -> np.ndarray:
    """The crops (N, S, S[, 3]) turned ``degrees`` about their centre, edges repeated."""
    size = crops.shape[1]
    turn = cv2.getRotationMatrix2D(((size - 1) / 2, (size - 1) / 2), degrees, 1.0)
    return np.stack(
        [cv2.warpAffine(c, turn, (size, size), borderMode=cv2.BORDER_REPLICATE) for c in crops]
    )


@dataclass(frozen=True)
class Head:
    """One output of the model: which attribute it reads and the class of each logit."""

    output: str
    attribute: str
    classes: tuple[Any, ...]

    @classmethod
    def parse(cls, head: Fields) -> Head:
        """One entry of the card's ``heads``; ValueError naming the field that is wrong."""
        attribute, classes = head.value("attribute", str), head.items("classes")
        if attribute not in ATTRIBUTES:
            raise ValueError(f"{head.name('attribute')}: {attribute!r} is not one of {ATTRIBUTES}")
        if not classes:
            raise ValueError(f"{head.name('classes')}: empty")
        return cls(head.value("output", str), attribute, tuple(classes))


@dataclass(frozen=True)
class Guess:
    """One head's answer for one die: the best class, its probability, all probabilities."""

    label: Any
    probability: float
    probabilities: tuple[float, ...]


@dataclass(frozen=True, kw_only=True)
class FaceCard(CropCard):
    """What the runtime needs from ``dieface.json``: the crops it takes and its heads."""

    heads: tuple[Head, ...]

    def __post_init__(self) -> None:
        if not any(h.attribute == "value" for h in self.heads):
            raise ValueError("heads: none reads the value")

    @classmethod
    def fields(cls, card: Fields) -> dict[str, Any]:
        crops = super().fields(card)
        heads = [Fields(h, f"heads.{i}") for i, h in enumerate(card.items("heads"))]
        return crops | {"heads": tuple(Head.parse(h) for h in heads)}

    def expected_inputs(self) -> dict[str, Shape | None]:
        return {self.input.name: self.input.shape}

    def expected_outputs(self) -> dict[str, Shape | None]:
        return {h.output: ("batch", len(h.classes)) for h in self.heads}


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


FEATURES = "features"  # the output of the pooled features the heads read (models/dieface/export.py)


class FaceReader(OnnxModel[FaceCard]):
    """The ONNX die-face model and its card, loaded once (vision/model.py); with a table's
    ``enrolment`` (vision/enrolment.py) its value head is the table's own."""

    def __init__(self, model: str | Path = DEFAULT_MODEL, threads: int = 1) -> None:
        super().__init__(model, FaceCard, threads)
        self.has_features = FEATURES in self.output_shapes
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
            [FEATURES, value], {self.card.input.name: self.to_input(crops)}
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
        return np.ascontiguousarray((x - self.card.input.mean) / self.card.input.std)

    def probabilities(
        self, crops: np.ndarray, own: bool = False, d6: np.ndarray | None = None
    ) -> list[np.ndarray]:
        """Each head's class probabilities (N, classes) for the crops, in one model run;
        the value's, when enrolled (unless ``own``: the model's alone), the table's head's
        and the model's averaged, the table's head reading the values each die's kind shows
        in the enrolment (``d6``: which crops are d6; default: those the kind head finds
        likelier a d6)."""
        names = [h.output for h in self.card.heads]
        enrolment = None if own else self.enrolment
        fetched = [*names, FEATURES] if enrolment is not None else names
        results = self.session.run(fetched, {self.card.input.name: self.to_input(crops)})
        probabilities = [
            softmax(np.asarray(logits, np.float64)) for logits in results[: len(names)]
        ]
        if enrolment is not None:
            value = next(i for i, h in enumerate(self.card.heads) if h.attribute == "value")
            d6 = self.read_as_d6(probabilities) if d6 is None else d6
            table = softmax(enrolment.value_logits(results[-1], results[value], d6))
            probabilities[value] = HEAD_SHARE * table + (1 - HEAD_SHARE) * probabilities[value]
        return probabilities

    def read_crops(
        self, crops: np.ndarray, overhead: bool = True, d6: np.ndarray | None = None
    ) -> list[dict[str, Guess]]:
        """Every head's guess for each crop, in one run of the model; the crops whose value
        is read less surely than ``SECOND_LOOK_BELOW`` are read again in other views
        (:func:`second_views`) and the readings averaged. ``overhead``: the camera looks
        straight down; else the crops ``d6`` marks (default: those the kind head reads as a
        d6) are mirrored too. ``d6`` also says which crops an enrolment of one kind reads."""
        if len(crops) == 0:
            return []
        heads = self.probabilities(crops, d6=d6)
        value = next(i for i, h in enumerate(self.card.heads) if h.attribute == "value")
        doubtful = heads[value].max(axis=1) < SECOND_LOOK_BELOW
        d6 = self.read_as_d6(heads) if d6 is None else np.asarray(d6, bool)
        if overhead:
            groups = [(np.flatnonzero(doubtful), True)]
        else:
            groups = [
                (np.flatnonzero(doubtful & d6), True),
                (np.flatnonzero(doubtful & ~d6), False),
            ]
        for rows, mirror in groups:
            if not len(rows):
                continue
            views = second_views(crops[rows], overhead, mirror)
            again = self.probabilities(
                np.ascontiguousarray(np.concatenate(views)), d6=np.tile(d6[rows], len(views))
            )
            for probs, more in zip(heads, again, strict=True):
                looks = more.reshape(len(views), len(rows), -1)
                probs[rows] = (probs[rows] + looks.sum(axis=0)) / (len(views) + 1)
        per_die: list[dict[str, Guess]] = [{} for _ in crops]
        for head, probs in zip(self.card.heads, heads, strict=True):
            for guesses, p in zip(per_die, probs, strict=True):
                best = int(p.argmax())
                guesses[head.attribute] = Guess(
                    head.classes[best], float(p[best]), tuple(float(v) for v in p)
                )
        return per_die

    def read_as_d6(self, heads: list[np.ndarray]) -> np.ndarray:
        """Which crops the kind head finds likelier a d6 than a d10 (all, without one)."""
        names = [h.attribute for h in self.card.heads]
        if "kind" not in names:
            return np.ones(len(heads[0]), bool)
        kind = self.card.heads[names.index("kind")]
        probs = heads[names.index("kind")]
        return probs[:, kind.classes.index("d6")] >= probs[:, kind.classes.index("d10")]

    def read(
        self,
        frame: np.ndarray,
        boxes: Sequence[Sequence[float]],
        overhead: bool = True,
        d6: np.ndarray | None = None,
    ) -> list[dict[str, Guess]]:
        """Every head's guess for each die box of a BGR frame (all dice in one batch);
        ``overhead`` and ``d6`` as in :meth:`read_crops`."""
        return self.read_crops(self.crops(frame, boxes), overhead, d6)
