"""Labelled crops of dice a player corrected on the appliance, for fine-tuning the model.

The format (the appliance's exporter writes it, ``yamscope train --from-corrections`` reads
it): a folder of PNG crops and ``labels.jsonl`` beside them, one JSON object per crop::

    {"file": "0001.png", "kind": "d10", "value": 7, "colour": "red", "finish": "frosted"}

``file`` is relative to the folder. ``kind``, ``value``, ``colour``, ``finish`` and
``cocked`` (true/false) may each be missing or null when the player did not say: that head
is not trained on the crop. Crops are BGR and should be cut by the runtime's rule
(vision/faces.py, the card's ``input.crop``); one of another size is resized to the model's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from models.dieface import spec
from models.dieface.synth_crops import CropSet

LABELS = "labels.jsonl"


def _index(row: dict[str, Any], head: str) -> int:
    """The class index of one head's label, spec.UNKNOWN when absent; ValueError when invalid."""
    label = row.get(head)
    if label is None:
        return spec.UNKNOWN
    if head == "cocked":
        if not isinstance(label, bool):
            raise ValueError(f"cocked is true or false, not {label!r}")
        return int(label)
    classes = spec.HEADS[head]
    if label not in classes or isinstance(label, bool):
        raise ValueError(f"{head} is one of {list(classes)}, not {label!r}")
    return classes.index(label)


def load_corrections(folder: Path, size: int = spec.INPUT_SIZE) -> CropSet:
    """The crops and labels of a corrections folder; ValueError names the bad line."""
    path = Path(folder) / LABELS
    images, rows = [], []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            labels = [_index(row, head) for head in spec.HEADS]
            if row.get("kind") == "d6" and row.get("value") not in (None, *range(1, 7)):
                raise ValueError(f"a d6 shows 1..6, not {row['value']!r}")
            file = Path(folder) / row["file"]
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"{path}:{number}: {exc}") from None
        image = cv2.imread(str(file), cv2.IMREAD_COLOR)
        if image is None:
            raise ValueError(f"{path}:{number}: cannot read {file}")
        if image.shape[:2] != (size, size):
            shrink = image.shape[0] > size
            image = cv2.resize(
                image, (size, size), interpolation=cv2.INTER_AREA if shrink else cv2.INTER_LINEAR
            )
        images.append(image)
        rows.append(labels)
    table = np.asarray(rows, np.int64).reshape(-1, len(spec.HEADS))
    return CropSet(
        np.asarray(images, np.uint8).reshape(-1, size, size, 3),
        {head: table[:, i] for i, head in enumerate(spec.HEADS)},
    )
