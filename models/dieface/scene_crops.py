"""Die crops cut from folders of rendered scenes (``yamscope render``, either engine), for
training beside the crops ``synth_crops`` draws on the fly.

Why: the fast generator paints its dice; Blender renders them (refraction through clear
dice, light inside frosted ones, glare, a lens), and the model trained on painted dice alone
read 47 % of the values of rendered d10. Rendering is slow (seconds a scene), so the scenes
are rendered once into a folder and every die is cut from it several times, each from a box
jittered as ``synth_crops`` jitters them (the runtime's box comes from the detector, not from
the renderer's exact pixels).

One scene in ten (file names in name order, every tenth from the tenth) is kept apart to
pick the epoch on; a cocked die's value is left unlabelled: its top face is not on top. The
dice of a scene seen at a slant (a phone's view) are held upright: training turns them only
a little, as the slanted generator's.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from models.common.datasets import DatasetError, TrueDie, open_dataset
from models.dieface import spec
from models.dieface.synth_crops import CROP_SCALE, CropSet, concat, jitter_box
from vision.faces import crop_square

VALID_EVERY = 10  # scene i is kept for validation when i % VALID_EVERY == VALID_EVERY - 1


def die_row(die: TrueDie) -> tuple[int, ...]:
    """The head classes of one labelled die (``spec.HEADS`` order)."""
    if die.kind is None or die.colour is None or die.finish is None:
        raise DatasetError("scene labels need kind, colour and finish for every die")
    return (
        spec.KINDS.index(die.kind),
        spec.UNKNOWN if die.cocked else die.value - 1,
        spec.COLOURS.index(die.colour),
        spec.FINISHES.index(die.finish),
        int(die.cocked),
    )


def photo_crops(
    image: np.ndarray,
    dice: Sequence[TrueDie],
    copies: int,
    rng: np.random.Generator,
    size: int = spec.INPUT_SIZE,
) -> CropSet:
    """``copies`` jittered ``size`` px crops of each die of one rendered photo (BGR)."""
    images, rows = [], []
    for die in dice:
        for _ in range(copies):
            images.append(crop_square(image, jitter_box(rng, die.box), size, CROP_SCALE))
            rows.append(die_row(die))
    table = np.asarray(rows, np.int64).reshape(-1, len(spec.HEADS))
    return CropSet(
        np.asarray(images, np.uint8).reshape(-1, size, size, 3),
        {name: table[:, i] for i, name in enumerate(spec.HEADS)},
    )


def folder_crops(
    root: Path,
    copies: int = 4,
    seed: int = 0,
    progress: bool = True,
    size: int = spec.INPUT_SIZE,
) -> tuple[CropSet, CropSet]:
    """(train, valid) crops of every die of a rendered scene folder; raises DatasetError when
    ``root`` is not one (a YOLO folder has no colour or finish labels)."""
    dataset = open_dataset(root)
    if dataset.format != "synthetic":
        raise DatasetError(f"{root}: not a rendered scene folder (no dataset.json)")
    train: list[CropSet] = []
    valid: list[CropSet] = []
    for index in tqdm(range(len(dataset)), desc=root.name, unit="scene", disable=not progress):
        photo = dataset.load(index)
        rng = np.random.default_rng([seed, index])
        crops = photo_crops(photo.image, photo.dice, copies, rng, size)
        if photo.slant:  # a phone's photo: its top face is the one at the top
            crops = crops.held_upright()
        (valid if index % VALID_EVERY == VALID_EVERY - 1 else train).append(crops)
    return concat(train, size), concat(valid, size)


def folders_crops(
    roots: Sequence[Path],
    copies: int = 4,
    seed: int = 0,
    progress: bool = True,
    size: int = spec.INPUT_SIZE,
) -> tuple[CropSet, CropSet]:
    """The train and valid crops of several rendered scene folders, together."""
    parts = [folder_crops(Path(r), copies, seed, progress, size) for r in roots]
    return concat([t for t, _ in parts], size), concat([v for _, v in parts], size)


def describe_folders(folders: Sequence[str]) -> list[dict[str, Any]]:
    """What each rendered scene folder trained on was: renderer, version, seed, scenes."""
    out = []
    for folder in folders:
        meta_path = Path(folder) / "dataset.json"
        meta = json.loads(meta_path.read_text(encoding="utf-8")) if meta_path.exists() else {}
        scenes = len(list((Path(folder) / "labels").glob("*.json")))
        out.append(
            {"folder": folder, "scenes": scenes}
            | {k: meta[k] for k in ("generator", "version", "seed", "size", "kinds") if k in meta}
        )
    return out
