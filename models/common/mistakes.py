"""The mistakes of a ``yamscope evaluate`` run, where a person can look at them: a CSV of every
die read wrong, made up or missed, and a sheet of the silent errors' crops.

Why: the numbers say how many dice were read wrong, not why; a sheet of the silent errors
shows at a glance whether they are unreadable dice, a reader's blind spot, or labels that
are wrong (a public photo set's labels leave dice out and give some a wrong value).
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Sequence
from itertools import groupby
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np

from vision.faces import crop_square

if TYPE_CHECKING:
    from models.common.evaluate_scenes import Mistake

TILE = 128  # a sheet's tile, px square
COLUMNS = 8
SHEET_TILES = 160  # the most tiles a sheet holds; the CSV lists every mistake
MARGIN = 0.6  # the tile shows this much of the box's longer side around it, each way
CAPTION = 30  # px of caption strip over each tile


def write_mistakes(
    mistakes: Sequence[Mistake],
    out: Path,
    names: Sequence[str],
    load: Callable[[int], np.ndarray],
) -> list[Path]:
    """``out/mistakes.csv`` (every mistake: the photo's name, cause, the die labelled and
    read, flagged or not, its size and box) and, when there are silent errors,
    ``out/silent.png`` (their crops, captioned); ``names``: each photo's name by index,
    ``load``: its BGR pixels as they were read. Returns the files written."""
    out.mkdir(parents=True, exist_ok=True)
    table = out / "mistakes.csv"
    with table.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["photo", "cause", "labelled", "read", "flagged", "size_px", "box"])
        for m in mistakes:
            x0, y0, x1, y1 = m.box
            size = round(max(x1 - x0, y1 - y0))
            box = " ".join(f"{v:.0f}" for v in m.box)
            writer.writerow([names[m.photo], m.cause, m.labelled, m.read, m.flagged, size, box])
    written = [table]
    silent = [m for m in mistakes if not m.flagged and m.cause != "missed"][:SHEET_TILES]
    sheet = out / "silent.png"
    sheet.unlink(missing_ok=True)  # an older run's would be taken for this one's
    if silent:
        tiles = [
            tile(image, m)
            for photo, group in groupby(silent, key=lambda m: m.photo)
            for image in [load(photo)]
            for m in group
        ]
        if not cv2.imwrite(str(sheet), montage(tiles)):
            raise OSError(f"cannot write {sheet}")
        written.append(sheet)
    return written


def tile(image: np.ndarray, mistake: Mistake) -> np.ndarray:
    """The die's surroundings, square, with what was labelled and read written above."""
    side = TILE - CAPTION
    crop = crop_square(image, mistake.box, side, 1 + 2 * MARGIN)
    if crop.ndim == 2:
        crop = cv2.cvtColor(crop, cv2.COLOR_GRAY2BGR)
    out = np.zeros((TILE, TILE, 3), np.uint8)
    out[CAPTION:, CAPTION // 2 : CAPTION // 2 + side] = crop
    for row, text in enumerate((mistake.labelled or "no die", "read " + mistake.read)):
        cv2.putText(out, text[:24], (2, 12 + 14 * row), cv2.FONT_HERSHEY_SIMPLEX, 0.36,
                    (255, 255, 255), 1, cv2.LINE_AA)  # fmt: skip
    return out


def montage(tiles: Sequence[np.ndarray], columns: int = COLUMNS) -> np.ndarray:
    """The tiles in rows of ``columns``, the last row filled with black."""
    blank = np.zeros_like(tiles[0])
    padded = [*tiles, *[blank] * (-len(tiles) % columns)]
    rows = [np.hstack(padded[i : i + columns]) for i in range(0, len(padded), columns)]
    return np.vstack(rows)
