"""A folder of synthetic scenes with their labels, written so that it can be resumed.

Scene ``i`` is drawn from ``np.random.default_rng([seed, i])``: the folder's content depends
only on (generator version, seed, size, kinds, impossible), never on how often it was resumed.
Layout::

    out/dataset.json          generator, version, seed, size, kinds, impossible, n
    out/images/000000.png     the photo (BGR)
    out/masks/000000.png      0 background, i + 1 = visible pixels of die i
    out/labels/000000.json    written last: its presence means the scene is complete
    out/empty/000000.png      (Blender scenes) the same tray without its dice

The ``engine`` draws the scenes: by default this package's fast generator; ``models.blender``
gives one that renders photoreal scenes with Cycles (the optional extra ``render``).
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from models.synth.core import KINDS, VERSION, DieSpec, Scene
from models.synth.layout import SLANTED_CAMERA, WIDE_CAMERA, asked_looks, random_scene

GENERATOR = "yamscope models.synth"
#: the settings that must match for a run to add to an existing folder
SETTINGS = ("generator", "version", "seed", "size", "kinds", "impossible", "samples")

#: (rng, size, kinds, impossible) -> (pictures by subfolder, labels)
Draw = Callable[
    [np.random.Generator, tuple[int, int], tuple[str, ...], bool],
    tuple[dict[str, np.ndarray], dict],
]


@dataclass(frozen=True)
class Engine:
    """What draws a folder's scenes, and the name and version its dataset.json records."""

    generator: str
    version: str
    draw: Draw
    samples: int | None = None  # a renderer's samples a pixel (recorded: they change pixels)


def draw_numpy(
    rng: np.random.Generator,
    size: tuple[int, int],
    kinds: tuple[str, ...],
    impossible: bool,
    **camera: Any,
) -> tuple[dict[str, np.ndarray], dict]:
    """One scene; ``camera``: random_scene's camera or slant range, when not the usual."""
    scene = random_scene(rng, size, kinds=kinds, impossible=impossible, **camera)
    return {"images": scene.image, "masks": scene.masks}, scene_labels(scene)


NUMPY = Engine(GENERATOR, VERSION, draw_numpy)
NUMPY_WIDE = Engine(f"{GENERATOR} (wide camera)", VERSION, partial(draw_numpy, camera=WIDE_CAMERA))
NUMPY_SLANTED = Engine(
    f"{GENERATOR} (slanted camera)", VERSION, partial(draw_numpy, slant=SLANTED_CAMERA)
)


class DatasetError(ValueError):
    """The folder cannot take this dataset (another dataset is there, or it is not a folder)."""


def _write_json(path: Path, data: dict, indent: int | None = None) -> None:
    """Write to a temporary name, then rename: a reader never sees half a file."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=indent) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def die_label(spec: DieSpec, box: Sequence[int]) -> dict:
    """One die's labels: what it is and shows, and its box (x0, y0, x1, y1)."""
    return {
        "kind": spec.kind,
        "value": spec.value,
        "colour": spec.colour,
        "finish": spec.finish,
        "cocked": spec.cocked,
        "box": list(box),
    }


def scene_labels(scene: Scene) -> dict:
    """The JSON labels of a scene."""
    return {
        "size": list(scene.tray.size),
        "tray": dataclasses.asdict(scene.tray),
        "dice": [
            die_label(d.spec, d.box) | {"pose": dataclasses.asdict(d.pose)} for d in scene.dice
        ],
    }


def _check(n: int, size: Sequence[int], kinds: Sequence[str]) -> None:
    if n < 1:
        raise ValueError(f"n must be at least 1, not {n}")
    if len(size) != 2 or min(size) < 64:
        raise ValueError(f"size must be two numbers of at least 64, not {size}")
    bad = [k for k in kinds if k not in KINDS]
    if not kinds or bad:
        raise ValueError(f"kinds are {' or '.join(KINDS)}, not {','.join(kinds) or 'none'}")


def write_dataset(
    out: Path,
    n: int,
    seed: int,
    *,
    size: tuple[int, int] = (640, 480),
    kinds: Sequence[str] = ("d10",),
    impossible: bool = False,
    progress: bool = True,
    engine: Engine | None = None,
) -> dict:
    """Draw scenes 0..n-1 into ``out``, skipping those already complete. Returns
    ``{"out", "written", "skipped", "n"}``. Raises DatasetError when ``out`` holds a dataset
    with other settings (or is a file), ValueError on bad arguments."""
    out = Path(out)
    kinds = list(dict.fromkeys(kinds))
    _check(n, size, kinds)
    engine = engine or NUMPY
    if out.exists() and not out.is_dir():
        raise DatasetError(f"{out} is a file, not a folder")
    meta = {
        "generator": engine.generator,
        "version": engine.version,
        "seed": int(seed),
        "size": [int(size[0]), int(size[1])],
        "kinds": kinds,
        "impossible": bool(impossible),
        "samples": engine.samples,
        "n": int(n),
    }
    if asked_looks():  # written only then: folders of the plain generator read as before
        meta["looks"] = asked_looks()
    meta_path = out / "dataset.json"
    if meta_path.exists():
        try:
            old = json.loads(meta_path.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise DatasetError(f"{meta_path} is not a dataset description: {exc}") from None
        differ = [k for k in (*SETTINGS, "looks") if old.get(k) != meta.get(k)]
        if differ:
            was = ", ".join(f"{k} {old.get(k)!r}" for k in differ)
            now = ", ".join(f"{k} {meta.get(k)!r}" for k in differ)
            raise DatasetError(f"{out} holds a dataset with {was}, not {now}: use another folder")
        meta["n"] = max(int(old.get("n", 0)), meta["n"])
    elif out.exists() and any(out.iterdir()):
        raise DatasetError(f"{out} is not empty and holds no dataset.json: use another folder")
    for sub in ("images", "masks", "labels"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    _write_json(meta_path, meta, indent=1)

    from tqdm import tqdm

    written = skipped = 0
    with tqdm(total=n, unit="scene", disable=not progress, file=sys.stderr) as bar:
        for i in range(n):
            label_path = out / "labels" / f"{i:06d}.json"
            if label_path.exists():
                skipped += 1
                bar.update(1)
                continue
            rng = np.random.default_rng([int(seed), i])
            shape = (int(size[0]), int(size[1]))
            pictures, labels = engine.draw(rng, shape, tuple(kinds), impossible)
            labels = {"index": i, **labels}
            for sub in pictures.keys() - {"images", "masks"}:  # e.g. Blender's empty tray
                labels[sub] = f"{sub}/{i:06d}.png"
            for sub, pixels in pictures.items():
                path = out / sub / f"{i:06d}.png"
                path.parent.mkdir(exist_ok=True)
                if not cv2.imwrite(str(path), pixels):
                    raise OSError(f"could not write {path}")
            _write_json(label_path, labels)
            written += 1
            bar.update(1)
    return {"out": str(out), "written": written, "skipped": skipped, "n": n}


def read_labels(out: Path) -> Iterator[tuple[Path, dict]]:
    """(image path, labels) of every complete scene of the folder, in index order."""
    out = Path(out)
    for path in sorted((out / "labels").glob("*.json")):
        labels = json.loads(path.read_text(encoding="utf-8"))
        yield out / "images" / f"{path.stem}.png", labels
