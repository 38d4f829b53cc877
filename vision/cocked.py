"""Whether a die on an overhead tray is cocked, read by its own small model
(``models/cocked.onnx`` and its card ``models/cocked.json``).

Why a model of its own: from above, a flat die away from the photo's centre shows the side
that faces the centre, because the camera sees it slant; a die leaning 18-25° shows about as
much of a side. A crop cut square from the frame no longer says where the die lay, so a head
on the die-face model cannot tell the two apart. This model sees each die turned so that the
photo's centre lies straight below it, and is told the slant at which the camera sees it: the
tangent of the angle between the optical axis and the line of sight to the die (its distance
from the centre over the focal length, which the calibration knows from the camera's field
of view; a wide lens sees the dice near the walls far more slanted than a narrow one). The
camera's slant then always shows the same way, and what is left is the lean. What each step
won, model by model: docs/cocked-dice.md.

The optical axis is taken to meet the frame at its centre, which holds for a camera pointed
straight down at the tray (the appliance's set-up).

A table's enrolment may carry its own last layer (vision/enrolment.py ``Lean``), fitted on
the model's hidden layer: the rendered dice it learned from are not the table's plastic.
The model's ``Anchors`` (rendered dice's hidden layers, beside the model) keep that fit
honest about cocked dice.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.enrolment import BadEnrolmentError, LeanHead, head_of
from vision.faces import softmax
from vision.model import CROP_SCALE as CROP_SCALE  # the crop of the training (models/cocked)
from vision.model import MODELS, CropCard, Fields, OnnxModel, Shape, SquareCrops, digest
from vision.perspective import slant
from vision.reading import Box

DEFAULT_COCKED_MODEL = MODELS / "cocked.onnx"
HIDDEN = "hidden"  # the head's hidden layer, given out since model 2.2.0
ANCHORS_SUFFIX = ".anchors.npz"  # beside the model: its rendered dice's hidden layers


@dataclass(frozen=True)
class Anchors:
    """Rendered dice the model learned from, as its hidden layer saw them, with whether each
    was cocked, and the model's own last layer (recovered from their logits)."""

    hidden: np.ndarray  # (n, H)
    cocked: np.ndarray  # (n,) bool
    own: LeanHead

    @classmethod
    def of(cls, hidden: np.ndarray, cocked: np.ndarray, logit: np.ndarray) -> Anchors:
        """From the hidden layers, labels and the model's cocked-minus-flat logits, whose
        last layer least squares gives back (vision/enrolment.py ``head_of``)."""
        head = head_of(hidden, np.asarray(logit).reshape(-1, 1), (1,))
        own = LeanHead(head.weight[0], float(head.bias[0]))
        return cls(np.asarray(hidden, np.float32), np.asarray(cocked, bool), own)


def anchors_path(model: Path) -> Path:
    """Where the anchors of a model file lie: beside it, ``NAME.anchors.npz``."""
    return model.with_name(model.stem + ANCHORS_SUFFIX)


def save_anchors(model: Path, hidden: np.ndarray, cocked: np.ndarray, logit: np.ndarray) -> Path:
    """Write the anchors of ``model`` beside it, naming the model file they belong to."""
    path = anchors_path(model)
    np.savez_compressed(
        path,
        hidden=np.asarray(hidden, np.float16),
        cocked=np.asarray(cocked, np.uint8),
        logit=np.asarray(logit, np.float32),
        sha256=np.array(digest(model)),
    )
    return path


def upright_crop(frame: np.ndarray, box: Sequence[float], size: int, scale: float) -> np.ndarray:
    """A ``size`` x ``size`` crop centred on ``box`` (side: the longer box side x ``scale``),
    turned so that the frame's centre lies straight below the die: the side of a flat die
    that the camera sees slant is then always at the bottom. Pixels past the frame repeat
    the edge."""
    height, width = frame.shape[:2]
    x0, y0, x1, y1 = box
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    turn = math.atan2(cy - height / 2, cx - width / 2) + math.pi / 2
    step = max(x1 - x0, y1 - y0, 2) * scale / size  # frame pixels per crop pixel
    c, s = math.cos(turn) * step, math.sin(turn) * step
    half = size / 2
    # crop pixel (u, v) samples the frame at centre + R(turn) * step * (u - half, v - half)
    to_frame = np.array(
        [[c, -s, cx - (c - s) * half], [s, c, cy - (s + c) * half]], dtype=np.float64
    )
    return cv2.warpAffine(
        frame,
        to_frame,
        (size, size),
        flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_REPLICATE,
    )


@dataclass(frozen=True, kw_only=True)
class CockedCrops(SquareCrops):
    """The crops of ``cocked.json``, which may be cut larger than the model reads them."""

    cut_size: int | None = None  # the side a crop is cut at, then averaged down to the input's

    @classmethod
    def fields(cls, spec: Fields) -> dict[str, Any]:
        return super().fields(spec) | {"cut_size": spec.value("cut_size", int, None)}


@dataclass(frozen=True, kw_only=True)
class CockedCard(CropCard):
    """What the runtime needs from ``cocked.json``: BGR crops and the slant of each."""

    crops = CockedCrops
    input: CockedCrops

    def __post_init__(self) -> None:
        if self.channels != 3:
            raise ValueError(f"input.shape: {list(self.input.shape)} is not N x 3 x S x S")
        if self.cut < self.size:
            raise ValueError(f"input.cut_size: crops cut at {self.cut} px cannot give {self.size}")

    @property
    def cut(self) -> int:
        """The side a crop is cut at (--input-size of the training: at least the input's)."""
        return self.size if self.input.cut_size is None else self.input.cut_size

    def expected_inputs(self) -> dict[str, Shape | None]:
        crops, slants = CockedReader.INPUTS
        return {crops: self.input.shape, slants: ("batch", 1)}

    def expected_outputs(self) -> dict[str, Shape | None]:
        return {CockedReader.OUTPUT: ("batch", 2)}


class CockedReader(OnnxModel[CockedCard]):
    """The ONNX cocked-die model and its card, loaded once (vision/model.py)."""

    INPUTS = ("crops", "slant")
    OUTPUT = "cocked"

    def __init__(self, model: str | Path = DEFAULT_COCKED_MODEL, threads: int = 1) -> None:
        super().__init__(model, CockedCard, threads)
        self.has_hidden = HIDDEN in self.output_shapes
        self.table: LeanHead | None = None  # a table's own last layer (vision/enrolment.py)
        self._anchors: Anchors | None = None

    def enrol(self, head: LeanHead | None) -> None:
        """Read with this table's last layer (None: the model's own); BadEnrolmentError for a
        model without a hidden layer, or a head of another width than it."""
        if head is not None and not self.has_hidden:
            raise BadEnrolmentError(f"{self.path}: this model gives no hidden layer to enrol on")
        width = self.output_shapes[HIDDEN][1] if self.has_hidden else None
        if head is not None and head.weight.shape != (width,):
            raise BadEnrolmentError(
                f"the enrolment's cocked-die head reads {head.weight.shape[0]} hidden units, "
                f"the model gives {width}: enrol again"
            )
        self.table = head

    def anchors(self) -> Anchors | None:
        """The model's anchors, None when the file beside it is missing, unreadable or
        belongs to another model file (a table's cocked-die head is then not fitted)."""
        path = anchors_path(self.path)
        if self._anchors is not None or not (self.has_hidden and path.is_file()):
            return self._anchors  # read once: the lesson fits and reports with them
        try:
            with np.load(path, allow_pickle=False) as data:
                if str(data["sha256"]) != self.digest:
                    return None
                self._anchors = Anchors.of(data["hidden"], data["cocked"] > 0, data["logit"])
        except (OSError, ValueError, KeyError):
            return None
        return self._anchors

    def hidden_of(self, crops: np.ndarray, slants: np.ndarray) -> np.ndarray:
        """The hidden layer (N, H) of upright crops and their slants."""
        if not self.has_hidden:
            raise BadEnrolmentError(f"{self.path}: this model gives no hidden layer to enrol on")
        return self.outputs_of(crops, slants, [HIDDEN])[0]

    def flat_hidden(self, frame: np.ndarray, boxes: Sequence[Box], focal: float) -> np.ndarray:
        """The hidden layer (N, 2, H) of dice known to lie flat, as cut and mirrored about
        the upright axis (the camera's slant looks the same that way): what a table's head
        learns."""
        crops, slants = self.inputs(frame, boxes, focal)
        both = np.concatenate([crops, crops[:, :, ::-1]])
        hidden = self.hidden_of(both, np.concatenate([slants, slants]))
        return hidden.reshape(2, len(boxes), -1).transpose(1, 0, 2)

    def outputs_of(
        self, crops: np.ndarray, slants: np.ndarray, outputs: list[str]
    ) -> list[np.ndarray]:
        """The model's ``outputs`` on upright crops (averaged down to its input when cut
        larger, as in training) and their slants."""
        size = self.card.size
        if crops.shape[1] != size:
            crops = np.stack(
                [cv2.resize(c, (size, size), interpolation=cv2.INTER_AREA) for c in crops]
            )
        x = crops.astype(np.float32).transpose(0, 3, 1, 2) * np.float32(1 / 255)
        x = np.ascontiguousarray((x - self.card.input.mean) / self.card.input.std, dtype=np.float32)
        feed = {"crops": x, "slant": slants.astype(np.float32).reshape(-1, 1)}
        return [np.asarray(o, np.float64) for o in self.session.run(outputs, feed)]

    def inputs(
        self, frame: np.ndarray, boxes: Sequence[Box], focal: float
    ) -> tuple[np.ndarray, np.ndarray]:
        """The upright uint8 BGR crops (N, C, C, 3), C the card's cut size, and slants (N,)
        float32 of the boxes, for a camera of focal length ``focal`` (frame widths)."""
        size = self.card.cut
        crops = np.empty((len(boxes), size, size, 3), np.uint8)
        for i, box in enumerate(boxes):
            crops[i] = upright_crop(frame, box, size, self.card.crop_scale)
        slants = np.array([slant(frame.shape, b, focal) for b in boxes], np.float32)
        return crops, slants

    def probabilities_of(
        self, crops: np.ndarray, slants: np.ndarray, own: bool = False
    ) -> np.ndarray:
        """How likely each die is cocked (N,), from its upright crop and its slant, by the
        table's last layer when there is one (``own``: the model's); crops larger than the
        model's input are averaged down to it, as in training."""
        if len(crops) == 0:
            return np.zeros(0)
        if self.table is not None and not own:
            return self.table.probabilities(self.outputs_of(crops, slants, [HIDDEN])[0])
        (logits,) = self.outputs_of(crops, slants, [self.OUTPUT])
        return softmax(logits)[:, 1]

    def probabilities(self, frame: np.ndarray, boxes: Sequence[Box], focal: float) -> np.ndarray:
        """How likely each die box of a BGR frame, seen by a camera of focal length
        ``focal`` (frame widths), is cocked (N,), all dice in one batch."""
        return self.probabilities_of(*self.inputs(frame, boxes, focal))
