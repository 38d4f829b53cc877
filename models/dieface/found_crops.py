"""Crops of what the detector finds on labelled photos, cut as the runtime cuts them.

The boxes on no labelled die (phantoms: shadows, game tokens, a remote's buttons, a tray's
rim) are labelled kind ``spec.NO_DIE`` and nothing else; the boxes on a labelled die carry
its kind and value. Both come from the same detector and the same cut, so the net learns
to tell them apart by what they show, not by how they are framed: the runtime then drops a
box its kind head finds on no die (vision/recognise.py).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
from tqdm import tqdm

from models.common import photos
from models.common.datasets import open_dataset
from models.common.matching import iou, match, same_die
from models.dieface import spec
from models.dieface.synth_crops import CropSet
from vision.detect import DiceFinder
from vision.faces import crop_square
from vision.images import check_frame
from vision.model import CROP_SCALE
from vision.segment import from_boxes

# Mining reaches below the detector's own threshold: the near misses are the hard phantoms.
MIN_SCORE = 0.25
# A box on no labelled die overlaps none by more than this (a loose box on a die is no phantom).
APART_IOU = 0.1


def mine_photo(
    frame: np.ndarray, truth: list[tuple[tuple[float, ...], int, str]], finder: DiceFinder
) -> tuple[list[tuple[float, ...]], list[tuple[int, int]]]:
    """The boxes the runtime reads in ``frame`` without a calibration, and the labels of
    those on a labelled die: (kind index, value index), or ``(NO_DIE index, UNKNOWN)`` for a
    phantom. ``truth``: (box, value, kind) of each labelled die. Boxes on a die of another
    kind, and loose boxes near a die, are left out."""
    found = from_boxes(frame, [box for box, _ in finder.find(frame, mirrored=True)])
    read = [tuple(float(v) for v in blob.box) for blob in found.blobs]
    boxes = [t[0] for t in truth]
    on_die = dict((j, i) for i, j in match(boxes, read))
    none = spec.HEADS["kind"].index(spec.NO_DIE)
    kept, labels = [], []
    for j, box in enumerate(read):
        if j in on_die:
            _, value, kind = truth[on_die[j]]
            if kind in spec.KINDS:
                kept.append(box)
                labels.append((spec.KINDS.index(kind), value - 1))
        elif not any(same_die(t, box) or iou(t, box) > APART_IOU for t in boxes):
            kept.append(box)
            labels.append((none, spec.UNKNOWN))
    return kept, labels


def mine(
    split: Path, finder: DiceFinder, size: int, scale: float, progress: bool = True
) -> CropSet:
    """Every box the detector finds on the photos of a labelled split folder (images/ and
    labels/, DESIGN.md), cut as the runtime cuts it (``size`` px, the box's side x ``scale``):
    see :func:`mine_photo`. A die without a kind in its label is the dataset's kind: d6 (the
    real photo sets are of d6)."""
    dataset = open_dataset(split)
    images, kinds, values = [], [], []
    for index in tqdm(range(len(dataset)), desc=f"mining {dataset.name}", disable=not progress):
        photo = dataset.load(index)
        frame = check_frame(photo.image)
        truth = [(d.box, d.value, d.kind or "d6") for d in photo.dice]
        boxes, labels = mine_photo(frame, truth, finder)
        if boxes:
            images.append(np.stack([crop_square(frame, box, size, scale) for box in boxes]))
            kinds += [k for k, _ in labels]
            values += [v for _, v in labels]
    crops = np.concatenate(images) if images else np.zeros((0, size, size, 3), np.uint8)
    unknown = np.full(len(kinds), spec.UNKNOWN, np.int64)
    heads = {name: unknown for name in spec.HEADS}
    heads |= {"kind": np.asarray(kinds, np.int64), "value": np.asarray(values, np.int64)}
    return CropSet(crops, heads)


def _cache_file(split: Path, finder: DiceFinder, size: int, scale: float) -> Path:
    """Where a split's mined crops are kept: named by the split, the detector's bytes and
    threshold, and the cut (another detector finds other boxes)."""
    detector = hashlib.sha1(finder.path.read_bytes()).hexdigest()[:10]
    key = f"{split.resolve()}|{detector}|{finder.threshold}|{size}|{scale}|{APART_IOU}|v1"
    return photos.CACHE_DIR / f"found-crops-{hashlib.sha1(key.encode()).hexdigest()[:10]}.npz"


def load_found(split: Path, progress: bool = True, size: int = spec.INPUT_SIZE) -> CropSet:
    """:func:`mine` on a split with the shipped detector (at ``MIN_SCORE``), cut at ``size``
    px with the runtime's margin, cached in ``photos.CACHE_DIR``."""
    finder = DiceFinder(threshold=MIN_SCORE)
    cache = _cache_file(split, finder, size, CROP_SCALE)
    if cache.exists():
        with np.load(cache) as stored:
            return CropSet(stored["images"], {k: stored[k] for k in spec.HEADS})
    crops = mine(split, finder, size, CROP_SCALE, progress)
    cache.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(cache, images=crops.images, **crops.labels)
    return crops
