"""Find dice in a frame with the learned detector ``models/dicefind.onnx`` (CenterNet-style).

The network sees the frame letterboxed (see :func:`letterbox`) and answers three maps at a
quarter of its input resolution: a centre heatmap (one peak per die, already through a
sigmoid), the box size (width, height in input pixels) and the sub-cell offset of the centre.
:func:`decode` turns them into boxes: peaks that are the maximum of their 3x3 neighbourhood
and above a threshold, then a light box NMS for the rare double peak on one die.

numpy, opencv and onnxruntime only: this runs on the Pi.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import cv2
import numpy as np

from vision.model import MODELS, Fields, ModelCard, OnnxModel, Shape

INPUT_SIZE = 256  # longer side of the letterboxed input
MULTIPLE = 32  # the input's sides are padded up to a multiple of this (the net's total stride)
STRIDE = 4  # output cells per input pixel
PAD_VALUE = 127  # grey, 0 after normalisation
MEAN = 127.5
SCALE = 1 / 64.0
THRESHOLD = 0.3
NMS_IOU = 0.6
MIRRORS = ((3,), (2,), (2, 3))  # the axes of an NCHW input flipped: left-right, up-down, both
# A photo whose dice are under SMALL_DIE input pixels across (their median), or where none
# are found, is read again larger: its dice LARGER_DIE across, the input at most
# LARGEST_INPUT (NONE_FOUND_INPUT when none were found). At that scale a board game's tokens
# look like dice too, so only its boxes scored from SECOND_LOOK_FROM are kept
# (docs/finding-dice.md, "Small dice read again larger").
SMALL_DIE = 12
LARGER_DIE = 24
LARGEST_INPUT = 768
NONE_FOUND_INPUT = 512
SECOND_LOOK_FROM = 0.6
SAME_DIE_IOU = 0.3  # a box of the second look overlapping one found this much is that die

Box = tuple[float, float, float, float]


def letterbox(
    frame: np.ndarray, size: int = INPUT_SIZE, multiple: int = MULTIPLE
) -> tuple[np.ndarray, float]:
    """The frame (BGR or grey) scaled so its longer side is ``size``, anchored top-left and
    padded right and bottom with grey up to a multiple of ``multiple``; returns (image, scale)
    where a point (x, y) of the input is (x / scale, y / scale) in the frame."""
    if frame.ndim == 2:
        frame = cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    height, width = frame.shape[:2]
    scale = size / max(height, width)
    new_w, new_h = max(1, round(width * scale)), max(1, round(height * scale))
    if scale < 0.5:
        # a cheap anti-aliased shrink: bilinear to twice the size, then an exact 2:1 area
        # (INTER_AREA straight from a large frame costs several milliseconds on one core)
        frame = cv2.resize(frame, (2 * new_w, 2 * new_h), interpolation=cv2.INTER_LINEAR)
    interpolation = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    resized = cv2.resize(frame, (new_w, new_h), interpolation=interpolation)
    pad_w = -new_w % multiple
    pad_h = -new_h % multiple
    if pad_w or pad_h:
        resized = cv2.copyMakeBorder(
            resized, 0, pad_h, 0, pad_w, cv2.BORDER_CONSTANT, value=(PAD_VALUE,) * 3
        )
    return resized, scale


def to_tensor(image: np.ndarray) -> np.ndarray:
    """A letterboxed BGR uint8 image as the network's (1, 3, H, W) float32 input."""
    x = np.ascontiguousarray(image.transpose(2, 0, 1)[None]).astype(np.float32)
    x -= MEAN
    x *= SCALE
    return x


def box_nms(boxes: np.ndarray, scores: np.ndarray, iou: float = NMS_IOU) -> np.ndarray:
    """Indices of the boxes kept by greedy non-maximum suppression, best score first."""
    order = np.argsort(-scores)
    keep: list[int] = []
    areas = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    while order.size:
        i = int(order[0])
        keep.append(i)
        rest = order[1:]
        xx0 = np.maximum(boxes[i, 0], boxes[rest, 0])
        yy0 = np.maximum(boxes[i, 1], boxes[rest, 1])
        xx1 = np.minimum(boxes[i, 2], boxes[rest, 2])
        yy1 = np.minimum(boxes[i, 3], boxes[rest, 3])
        inter = np.clip(xx1 - xx0, 0, None) * np.clip(yy1 - yy0, 0, None)
        union = areas[i] + areas[rest] - inter
        order = rest[inter / np.maximum(union, 1e-9) <= iou]
    return np.asarray(keep, dtype=np.int64)


def decode(
    heatmap: np.ndarray,
    size: np.ndarray,
    offset: np.ndarray,
    scale: float = 1.0,
    threshold: float = THRESHOLD,
    stride: int = STRIDE,
    nms_iou: float = NMS_IOU,
    limit: tuple[int, int] | None = None,
) -> list[tuple[Box, float]]:
    """Boxes from one image's maps: ``heatmap`` (h, w) in 0..1, ``size`` (2, h, w) as width,
    height in input pixels, ``offset`` (2, h, w) in cells. Peaks are cells that equal the
    maximum of their 3x3 neighbourhood and reach ``threshold``; boxes are divided by ``scale``
    (the letterbox scale) to land in frame pixels and clipped to ``limit`` (frame width,
    height) when given. Best score first."""
    heatmap = np.asarray(heatmap, dtype=np.float32)
    pooled = cv2.dilate(heatmap, np.ones((3, 3), np.uint8))
    ys, xs = np.nonzero((heatmap >= pooled) & (heatmap >= threshold))
    if ys.size == 0:
        return []
    scores = heatmap[ys, xs]
    cx = (xs + offset[0, ys, xs]) * stride
    cy = (ys + offset[1, ys, xs]) * stride
    w = size[0, ys, xs]
    h = size[1, ys, xs]
    boxes = np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], axis=1) / scale
    if limit is not None:
        boxes[:, [0, 2]] = np.clip(boxes[:, [0, 2]], 0, limit[0])
        boxes[:, [1, 3]] = np.clip(boxes[:, [1, 3]], 0, limit[1])
    keep = box_nms(boxes, scores, nms_iou) if nms_iou < 1 else np.argsort(-scores)
    return [(tuple(float(v) for v in boxes[i]), float(scores[i])) for i in keep]  # type: ignore[misc]


def default_model() -> Path:
    return MODELS / "dicefind.onnx"


@dataclass(frozen=True, kw_only=True)
class FinderCard(ModelCard):
    """What the runtime needs from ``dicefind.json``: the letterbox of its input (see
    :func:`letterbox`) and how its maps are read into boxes (see :func:`decode`). A detector
    without a card (a fresh export) runs on the defaults of this module."""

    optional: ClassVar[bool] = True

    input_name: str | None = None
    input_shape: Shape | None = None
    long_side: int = INPUT_SIZE
    multiple: int = MULTIPLE
    stride: int = STRIDE
    threshold: float = THRESHOLD
    mirrored_threshold: float | None = None  # read in its mirror images too (default: threshold)
    box_nms_iou: float = NMS_IOU

    def __post_init__(self) -> None:
        if min(self.long_side, self.multiple, self.stride) <= 0:
            raise ValueError("input.long_side, input.multiple and decoding.stride must be > 0")

    @classmethod
    def fields(cls, card: Fields) -> dict[str, Any]:
        spec, decoding = card.object("input", {}), card.object("decoding", {})
        return super().fields(card) | {
            "input_name": spec.value("name", str, None),
            "input_shape": spec.shape("shape") if "shape" in spec.data else None,
            "long_side": spec.value("long_side", int, INPUT_SIZE),
            "multiple": spec.value("multiple", int, MULTIPLE),
            "stride": decoding.value("stride", int, STRIDE),
            "threshold": decoding.value("threshold", float, THRESHOLD),
            "mirrored_threshold": decoding.value("mirrored_threshold", float, None),
            "box_nms_iou": decoding.value("box_nms_iou", float, NMS_IOU),
        }

    def expected_inputs(self) -> dict[str, Shape | None]:
        return {} if self.input_name is None else {self.input_name: self.input_shape}


class DiceFinder(OnnxModel[FinderCard]):
    """The detector: ``find(frame)`` → ``[(box, score)]``, boxes (x0, y0, x1, y1) in frame
    pixels, best score first. Settings come from the model card beside the ONNX file
    (``dicefind.json``) when it is there (vision/model.py loads both)."""

    def __init__(
        self,
        model_path: str | Path | None = None,
        threshold: float | None = None,
        threads: int = 1,
    ) -> None:
        path = model_path if model_path is not None else default_model()
        super().__init__(path, FinderCard, threads)
        self.input_size = self.card.long_side
        self.multiple = self.card.multiple
        self.stride = self.card.stride
        self.nms_iou = self.card.box_nms_iou
        self.threshold = float(threshold) if threshold is not None else self.card.threshold
        mirrored = self.card.mirrored_threshold if threshold is None else None
        self.mirrored_threshold = self.threshold if mirrored is None else float(mirrored)
        self.input_name = next(iter(self.input_shapes))

    def maps(
        self, frame: np.ndarray, long_side: int | None = None, mirrored: bool = False
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
        """The raw maps (heatmap, size, offset) of one frame and its letterbox scale;
        ``long_side`` overrides the card's input size (the net is fully convolutional).
        ``mirrored``: the heatmap is the mean of the frame's and its three mirror images'
        (left-right, up-down, both), each turned back: a die looks like a die in a mirror,
        a shadow or a game piece often less so."""
        image, scale = letterbox(frame, long_side or self.input_size, self.multiple)
        tensor = to_tensor(image)
        if mirrored:
            tensor = np.concatenate([tensor, *(np.flip(tensor, axes) for axes in MIRRORS)])
        heatmap, size, offset = self.session.run(None, {self.input_name: tensor})
        heat = heatmap[0, 0]
        if mirrored:
            back = [np.flip(heatmap[k : k + 1], axes)[0, 0] for k, axes in enumerate(MIRRORS, 1)]
            heat = (heat + sum(back)) / (len(MIRRORS) + 1)
        return heat, size[0], offset[0], scale

    def find(
        self,
        frame: np.ndarray,
        long_side: int | None = None,
        mirrored: bool = False,
        threshold: float | None = None,
    ) -> list[tuple[Box, float]]:
        """The dice in a frame; ``mirrored``: read in its mirror images too, four times the
        work, for photos where the empty tray cannot tell a die from what looks like one.
        ``threshold``: the least score kept (default: the card's for one view or the mirrors)."""
        heatmap, size, offset, scale = self.maps(frame, long_side, mirrored)
        height, width = frame.shape[:2]
        if threshold is None:
            threshold = self.mirrored_threshold if mirrored else self.threshold
        return decode(
            heatmap,
            size,
            offset,
            scale,
            threshold,
            self.stride,
            self.nms_iou,
            limit=(width, height),
        )

    def find_small(
        self, frame: np.ndarray, found: list[tuple[Box, float]]
    ) -> list[tuple[Box, float]]:
        """The dice a first look at a photo (``find(frame, mirrored=True)``: ``found``) may
        have missed for being too small at the net's input: none when the dice it found are
        large enough, else the sure boxes of the photo read again larger, in its mirror
        images, that overlap none found."""
        scale = self.input_size / max(frame.shape[:2])
        sizes = [max(b[2] - b[0], b[3] - b[1]) * scale for b, _ in found]
        median = float(np.median(sizes)) if sizes else 0.0
        if median >= SMALL_DIE:
            return []
        side = NONE_FOUND_INPUT
        if sizes:
            wanted = self.input_size * LARGER_DIE / median
            side = min(LARGEST_INPUT, int(wanted // self.multiple) * self.multiple)
        more = self.find(frame, side, mirrored=True, threshold=SECOND_LOOK_FROM)
        if not found or not more:
            return more
        boxes = np.array([b for b, _ in found] + [b for b, _ in more], np.float64)
        first = np.r_[np.full(len(found), 2.0), [score for _, score in more]]  # found ones win
        kept = box_nms(boxes, first, SAME_DIE_IOU)
        return [more[i - len(found)] for i in sorted(kept) if i >= len(found)]
