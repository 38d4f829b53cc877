"""The cocked-die model's crops: synthetic trays with many dice cocked, cut upright as the
runtime cuts them from jittered boxes and cached chunk by chunk, and the dice of rendered
scene folders, the cocked ones repeated to a share of the set."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from models.common.datasets import DatasetError, open_dataset
from models.dieface import spec
from models.dieface.scene_crops import VALID_EVERY
from models.dieface.synth_crops import CropSet, concat, jitter_box, load_synthetic
from models.dieface.train import share_repeats
from models.synth import random_scene
from models.synth.layout import NARROW_CAMERA, WIDE_CAMERA
from vision.calibration import focal_widths
from vision.cocked import CROP_SCALE, upright_crop
from vision.perspective import slant

TRAIN_SEED, VALID_SEED = 31000, 31001  # apart from the die-face sets and evaluation trays
ANCHOR_SEED, ANCHOR_SCENES = 31003, 300  # the anchors shipped beside the model (vision/cocked.py)


RECIPE = "cocked3"  # names the crops' cache folder: change it when scene_crops changes


COCKED_SHARE = 0.2  # of dice drawn cocked (a real throw has fewer; the model needs examples)


CUTS = 2  # crops per die, each from its own jittered box


RENDERED_CUTS = 4  # crops per die of a rendered scene (few scenes: each cut more often)


RENDERED_SEED = 31002  # the jitter of rendered dice's boxes


def scene_crops(seed: int, index: int, size: int, wide_share: float = 0.5) -> CropSet:
    """Upright crops of every die of scene ``index`` of set ``seed``; labels ``cocked``
    (0/1) and ``slant`` (float, vision/perspective.py). Three scenes in four at 1280x960; one in
    five is five d6 (classic Yams), the rest d10, most of them the ten of Yams impossible;
    ``wide_share`` of them seen by a camera as wide as a Pi camera module's, the others by
    a narrow one."""
    setup = np.random.default_rng([seed, index, 1])
    size_px = (1280, 960) if setup.random() < 0.75 else (640, 480)
    pick = setup.random()
    options: dict[str, Any] = (
        {"n": 5, "kinds": ("d6",)} if pick < 0.2 else {"impossible": pick < 0.75}
    )
    camera = WIDE_CAMERA if setup.random() < wide_share else NARROW_CAMERA
    scene = random_scene(
        np.random.default_rng([seed, index]),
        size=size_px,
        cocked=COCKED_SHARE,
        camera=camera,
        **options,
    )
    focal = scene.tray.camera_height / size_px[0]
    images, cocked, slants = [], [], []
    for die in scene.dice:
        for _ in range(CUTS):
            box = jitter_box(setup, die.box)
            images.append(upright_crop(scene.image, box, size, CROP_SCALE))
            cocked.append(int(die.spec.cocked))
            slants.append(slant(scene.image.shape, box, focal))
    return CropSet(
        np.asarray(images, np.uint8).reshape(-1, size, size, 3),
        {"cocked": np.asarray(cocked, np.int64), "slant": np.asarray(slants, np.float32)},
    )


def load_crops(
    seed: int, scenes: int, workers: int = 2, progress: bool = True, wide_share: float = 0.5
) -> CropSet:
    """The crops of scenes 0..``scenes``-1 of set ``seed`` (cached)."""
    return load_synthetic(
        seed,
        scenes,
        spec.INPUT_SIZE,
        workers=workers,
        progress=progress,
        make=partial(scene_crops, wide_share=wide_share),
        recipe=f"{RECIPE}-wide{wide_share:g}",
    )


def rendered_crops(
    folder: Path, copies: int = RENDERED_CUTS, progress: bool = True
) -> tuple[CropSet, CropSet]:
    """(train, valid) upright crops of every die of a rendered scene folder (``yamscope
    render``), ``copies`` jittered cuts each, labelled ``cocked`` and ``slant``; one scene in
    ten is kept for valid, as the die-face trainer keeps it (models/dieface/scene_crops.py). Raises
    DatasetError for a folder that is not one, or whose labels do not say the camera's field
    of view (the slant needs it)."""
    dataset = open_dataset(folder)
    if dataset.format != "synthetic":
        raise DatasetError(f"{folder}: not a rendered scene folder (no dataset.json)")
    size = spec.INPUT_SIZE
    parts: dict[bool, list[CropSet]] = {False: [], True: []}
    for index in tqdm(range(len(dataset)), desc=folder.name, unit="scene", disable=not progress):
        photo = dataset.load(index)
        field_of_view = photo.camera_field_of_view()
        if field_of_view is None:
            raise DatasetError(
                f"{photo.path}: no field_of_view in the labels (render the folder again)"
            )
        focal = focal_widths(field_of_view)
        rng = np.random.default_rng([RENDERED_SEED, index])
        boxes = [(die, jitter_box(rng, die.box)) for die in photo.dice for _ in range(copies)]
        crops = CropSet(
            np.asarray(
                [upright_crop(photo.image, box, size, CROP_SCALE) for _, box in boxes], np.uint8
            ).reshape(-1, size, size, 3),
            {
                "cocked": np.asarray([int(die.cocked) for die, _ in boxes], np.int64),
                "slant": np.asarray(
                    [slant(photo.image.shape, box, focal) for _, box in boxes], np.float32
                ),
            },
        )
        parts[index % VALID_EVERY == VALID_EVERY - 1].append(crops)
    return concat(parts[False]), concat(parts[True])


def with_cocked_share(crops: CropSet, share: float = COCKED_SHARE) -> CropSet:
    """``crops`` with their cocked ones repeated to make about ``share`` of them, as in the
    synthetic trays: a rendered throw has few cocked dice (a die in twenty), and a model that
    sees so few learns that a photoreal die is flat."""
    cocked = np.flatnonzero(crops.labels["cocked"] == 1)
    flat = len(crops) - len(cocked)
    if not len(cocked) or len(cocked) >= share * len(crops):
        return crops
    repeats = round(share * flat / ((1 - share) * len(cocked)))
    return concat([crops, *[crops.subset(cocked)] * (repeats - 1)])


def with_rendered(
    train: CropSet, valid: CropSet, folders: Sequence[Path], progress: bool = True
) -> tuple[CropSet, CropSet]:
    """``train`` with the rendered folders' train crops (their cocked ones repeated to make
    ``COCKED_SHARE`` of them) repeated to make about a quarter of it (rendered dice are few
    and dear, as for the die-face model), and ``valid`` with their valid crops; no folders:
    both as they are."""
    if not folders:
        return train, valid
    parts = [rendered_crops(Path(f), progress=progress) for f in folders]
    extra, extra_valid = concat([t for t, _ in parts]), concat([v for _, v in parts])
    if not len(extra):
        raise DatasetError(f"no dice in the scenes of {', '.join(map(str, folders))}")
    extra = with_cocked_share(extra)
    repeats = share_repeats(train, extra)
    return concat([train, *[extra] * repeats]), concat([valid, extra_valid])
