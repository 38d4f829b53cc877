"""Whether a read die is a labelled one (DESIGN.md): a read box's centre in the labelled box or
the labelled centre in the read box, one to one, nearest first; and IoU beside it."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

IOU = 0.5  # the overlap reported beside the centre rule
Box = Sequence[float]


def iou(a: Box, b: Box) -> float:
    """Intersection over union of two (x0, y0, x1, y1) boxes."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    if w <= 0 or h <= 0:
        return 0.0
    inter = w * h
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def centre(box: Box) -> tuple[float, float]:
    return (box[0] + box[2]) / 2, (box[1] + box[3]) / 2


def holds(box: Box, point: tuple[float, float]) -> bool:
    return box[0] <= point[0] <= box[2] and box[1] <= point[1] <= box[3]


def same_die(labelled: Box, read: Box) -> bool:
    """The centre rule: the read box's centre in the labelled box, or the labelled centre in
    the read box."""
    return holds(labelled, centre(read)) or holds(read, centre(labelled))


def match(truth: Sequence[Box], read: Sequence[Box]) -> list[tuple[int, int]]:
    """(truth index, read index) pairs by the centre rule (:func:`same_die`), the nearest
    centres first, each box used once."""
    pairs = sorted(
        (float(np.hypot(*np.subtract(centre(t), centre(r)))), i, j)
        for i, t in enumerate(truth)
        for j, r in enumerate(read)
        if same_die(t, r)
    )
    return _one_to_one((i, j) for _, i, j in pairs)


def match_iou(
    truth: Sequence[Box], read: Sequence[Box], threshold: float = IOU
) -> list[tuple[int, int]]:
    """(truth index, read index) pairs: the best-overlapping pair first, each box used once,
    no pair below ``threshold``."""
    pairs = sorted(
        ((iou(t, r), i, j) for i, t in enumerate(truth) for j, r in enumerate(read)),
        reverse=True,
    )
    return _one_to_one((i, j) for overlap, i, j in pairs if overlap >= threshold)


def _one_to_one(ranked: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    used_truth: set[int] = set()
    used_read: set[int] = set()
    out = []
    for i, j in ranked:
        if i in used_truth or j in used_read:
            continue
        used_truth.add(i)
        used_read.add(j)
        out.append((i, j))
    return sorted(out)


def long_side(box: Box) -> float:
    return max(box[2] - box[0], box[3] - box[1])
