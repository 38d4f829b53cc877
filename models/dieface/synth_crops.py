"""Labelled die crops cut from synthetic tray photos (``models.synth``), cached in ``data/``.

Rune55 only has grey d6 with pips; the appliance also sees d10 with numerals, red and white,
frosted and transparent, sometimes cocked. The synthetic scenes cover all of that with exact
labels. Each die is cut by the runtime's crop rule (a square of the longer box side x 1.20
centred on the box, edge pixels repeated past the frame, resized to the model size) from a
box that is jittered first, because at run time the box comes from a segmentation, not from
the renderer's exact pixels.

Scene ``i`` of a set is drawn from ``np.random.default_rng([seed, i])``: a set is fixed by
its seed, so held-out crops are scenes of a seed training never uses. Scenes are rendered in
chunks written one by one, so a stopped build resumes where it stopped.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from tqdm import tqdm

from models.common import photos
from models.dieface import spec
from models.synth import VERSION, Scene, random_scene
from models.synth.glyphs import FONTS, font_count
from models.synth.layout import (
    LETTERED_SHARE,
    LETTERING,
    MARBLED_SHARE,
    NARROW_CAMERA,
    NUMBERED_SHARE,
    SLANTED_CAMERA,
    WIDE_CAMERA,
    lettered,
    marbled,
    numbered,
)
from vision.faces import crop_square
from vision.perspective import top_face_box

#: the seeds of the three synthetic sets: never mix them
TRAIN_SEED, VALID_SEED, TEST_SEED = 0, 1, 2
#: the runtime's crop: a square of the longer box side x this
CROP_SCALE = 1 + 2 * photos.MARGIN
BOX_SCALE = 0.15  # each box side is scaled by 1 ± this before cutting
BOX_SHIFT = 0.10  # and the box moved by up to ± this fraction of its longer side
CHUNK = 50  # scenes per cache file
CACHE_DIR = photos.CACHE_DIR / "synth-crops"
DIE_FACE_RECIPE = "v1"  # the cache key of scene_crops' crops


@dataclass(frozen=True)
class CropSet:
    """BGR crops (N, S, S, 3) uint8 and their labels, one array each: for the die-face
    model, the index of its class in each head's ``spec.HEADS`` classes (kind 0 = d6,
    value v - 1, colour, finish, cocked). ``upright`` (N,) marks crops of photos held
    upright, where the top face is the one at the top: training turns them only a little
    (None: none is)."""

    images: np.ndarray
    labels: dict[str, np.ndarray]
    upright: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.images)

    def subset(self, index: np.ndarray) -> CropSet:
        """The crops at ``index`` (indices or a boolean mask)."""
        upright = None if self.upright is None else self.upright[index]
        return CropSet(self.images[index], {k: v[index] for k, v in self.labels.items()}, upright)

    def held_upright(self) -> CropSet:
        """The same crops, every one marked upright."""
        return CropSet(self.images, self.labels, np.ones(len(self), bool))

    def upright_mask(self) -> np.ndarray:
        """``upright``, all False when None."""
        return np.zeros(len(self), bool) if self.upright is None else self.upright


#: cuts the crops of scene ``index`` of set ``seed`` at ``size`` pixels
Recipe = Callable[[int, int, int], CropSet]


def jitter_box(
    rng: np.random.Generator, box: tuple[float, float, float, float]
) -> tuple[float, float, float, float]:
    """The box as a segmentation might find it: each side scaled by 1 ± ``BOX_SCALE``, the
    centre moved by up to ± ``BOX_SHIFT`` of the longer side."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    cx = (x0 + x1) / 2 + rng.uniform(-BOX_SHIFT, BOX_SHIFT) * max(w, h)
    cy = (y0 + y1) / 2 + rng.uniform(-BOX_SHIFT, BOX_SHIFT) * max(w, h)
    w *= rng.uniform(1 - BOX_SCALE, 1 + BOX_SCALE)
    h *= rng.uniform(1 - BOX_SCALE, 1 + BOX_SCALE)
    return cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2


def scene_options(rng: np.random.Generator) -> dict:
    """How scene ``i`` is set up: one in three at 1280x960 (dice ~50-90 px, else ~30-45 px),
    one in five the ten d10 of Yams impossible, one in five five d6, the rest mixed."""
    size = (1280, 960) if rng.random() < 1 / 3 else (640, 480)
    pick = rng.random()
    if pick < 0.2:
        return {"size": size, "impossible": True}
    if pick < 0.4:
        return {"size": size, "n": 5, "kinds": ("d6",)}
    return {"size": size, "n": int(rng.integers(3, 11)), "kinds": ("d6", "d10")}


def scene_crops(seed: int, index: int, size: int = spec.INPUT_SIZE) -> CropSet:
    """The jittered crops of every die of scene ``index`` of set ``seed``."""
    setup = np.random.default_rng([seed, index, 1])  # apart from the scene's own stream
    scene = random_scene(np.random.default_rng([seed, index]), cocked=0.08, **scene_options(setup))
    boxes = [jitter_box(setup, die.box) for die in scene.dice]
    return _cut(scene, boxes, size)


def overhead_crops(
    seed: int, index: int, size: int = spec.INPUT_SIZE, wide_share: float = 0.5
) -> CropSet:
    """The crops of scene ``index`` of set ``seed`` as a calibrated appliance cuts them: from
    the top face's part of each jittered box (``vision.perspective.top_face_box``), the
    camera as wide as a Raspberry Pi camera module's in ``wide_share`` of the scenes and the
    generator's narrow one in the others. The die-face model learned from ``scene_crops``,
    whose camera is narrow, and is less sure of dice a wide camera sees steeply."""
    setup = np.random.default_rng([seed, index, 1])
    options = scene_options(setup)
    camera = WIDE_CAMERA if setup.random() < wide_share else NARROW_CAMERA
    scene = random_scene(
        np.random.default_rng([seed, index]), cocked=0.08, camera=camera, **options
    )
    focal = scene.tray.camera_height / scene.image.shape[1]
    boxes = [
        top_face_box(scene.image.shape, jitter_box(setup, die.box), focal) for die in scene.dice
    ]
    return _cut(scene, boxes, size)


def slanted_crops(seed: int, index: int, size: int = spec.INPUT_SIZE) -> CropSet:
    """The jittered whole-die crops of scene ``index`` of set ``seed`` seen by a camera held
    ``SLANTED_CAMERA`` degrees from straight down, as phone photos are: the top face is the
    narrow one at the top of each die, its front face in full view below. Their cocked label
    is unknown: at a slant every die looks leant."""
    setup = np.random.default_rng([seed, index, 2])
    options = scene_options(setup)
    scene = random_scene(
        np.random.default_rng([seed, index, 3]), cocked=0.0, slant=SLANTED_CAMERA, **options
    )
    crops = _cut(scene, [jitter_box(setup, die.box) for die in scene.dice], size)
    crops.labels["cocked"][:] = spec.UNKNOWN
    return crops


def _cut(scene: Scene, boxes: list[tuple[float, float, float, float]], size: int) -> CropSet:
    """The runtime's crop of each box (one per die of ``scene``) with the die's labels."""
    images = [crop_square(scene.image, box, size, CROP_SCALE) for box in boxes]
    rows = [
        (
            spec.KINDS.index(die.spec.kind),
            die.spec.value - 1,
            spec.COLOURS.index(die.spec.colour),
            spec.FINISHES.index(die.spec.finish),
            int(die.spec.cocked),
        )
        for die in scene.dice
    ]
    table = np.asarray(rows, np.int64).reshape(-1, len(spec.HEADS))
    return CropSet(
        np.asarray(images, np.uint8).reshape(-1, size, size, 3),
        {name: table[:, i] for i, name in enumerate(spec.HEADS)},
    )


def concat(sets: list[CropSet], size: int = spec.INPUT_SIZE) -> CropSet:
    """One CropSet of several, with the labels of the first (an empty list gives an empty
    set with the die-face heads' labels)."""
    if not sets:
        empty = np.zeros(0, np.int64)
        return CropSet(np.zeros((0, size, size, 3), np.uint8), {k: empty for k in spec.HEADS})
    upright = None
    if any(s.upright is not None for s in sets):
        upright = np.concatenate([s.upright_mask() for s in sets])
    return CropSet(
        np.concatenate([s.images for s in sets]),
        {k: np.concatenate([s.labels[k] for s in sets]) for k in sets[0].labels},
        upright,
    )


def _chunk(make: Recipe, seed: int, first: int, last: int, size: int) -> CropSet:
    return concat([make(seed, i, size) for i in range(first, last)], size)


def _folder(seed: int, size: int, cache_dir: Path, recipe: str) -> Path:
    """One folder per set: anything that changes the crops of a seed changes its name."""
    key = f"{VERSION}|{size}|{CROP_SCALE}|{BOX_SCALE}|{BOX_SHIFT}|{CHUNK}|{recipe}"
    if font_count() != len(FONTS):  # the typefaces' numerals: crops of their own
        key += f"|fonts{font_count()}"
    if marbled():  # so are marbled dice's
        key += f"|marbled{MARBLED_SHARE}"
    if numbered():  # and numbered d6's
        key += f"|numbered{NUMBERED_SHARE}"
    if lettered():  # and numerals lettered anew
        key += f"|lettered{LETTERED_SHARE}{LETTERING}"
    name = f"seed{seed}-{size}-{hashlib.sha1(key.encode()).hexdigest()[:10]}"
    return cache_dir / (name if recipe == DIE_FACE_RECIPE else f"{recipe}-{name}")


def _save(crops: CropSet, path: Path) -> None:
    """Write then rename, so a build killed mid-write leaves no torn chunk."""
    tmp = path.with_name(path.stem + ".tmp.npz")
    np.savez_compressed(tmp, images=crops.images, **crops.labels)
    tmp.replace(path)


def _load(path: Path) -> CropSet:
    with np.load(path) as stored:
        return CropSet(stored["images"], {k: stored[k] for k in stored.files if k != "images"})


def _spans(scenes: int) -> Iterator[tuple[int, int]]:
    for first in range(0, scenes, CHUNK):
        yield first, min(scenes, first + CHUNK)


def load_synthetic(
    seed: int,
    scenes: int,
    size: int = spec.INPUT_SIZE,
    workers: int = 2,
    cache_dir: Path | None = None,
    progress: bool = True,
    make: Recipe = scene_crops,
    recipe: str = DIE_FACE_RECIPE,
) -> CropSet:
    """The crops of scenes 0..``scenes``-1 of set ``seed``, rendering the chunks not cached
    yet (``workers`` processes) and caching them in ``cache_dir`` (default ``data/``).
    ``make`` cuts one scene's crops (default: the die-face model's); ``recipe`` names it in
    the cache folder, and changes whenever ``make`` does."""
    folder = _folder(seed, size, cache_dir or CACHE_DIR, recipe)
    folder.mkdir(parents=True, exist_ok=True)
    spans = list(_spans(scenes))
    paths = [folder / f"scenes-{first:06d}-{last:06d}.npz" for first, last in spans]
    todo = [(span, path) for span, path in zip(spans, paths, strict=True) if not path.exists()]
    bar = tqdm(
        total=len(spans),
        initial=len(spans) - len(todo),
        desc=f"synthetic crops, seed {seed}",
        unit="chunk",
        disable=not progress or not todo,
    )
    if workers > 1 and len(todo) > 1:
        with ProcessPoolExecutor(min(workers, len(todo))) as pool:
            futures = [(pool.submit(_chunk, make, seed, *span, size), path) for span, path in todo]
            for future, path in futures:
                _save(future.result(), path)
                bar.update()
    else:
        for span, path in todo:
            _save(_chunk(make, seed, *span, size), path)
            bar.update()
    bar.close()
    return concat([_load(p) for p in paths], size)
