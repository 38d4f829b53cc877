"""On the GPU machine: decode what :mod:`models.gpu.pack` packed; rebuild the detector's
photo caches (Rune55, the colour photos) where ``models.detector.train`` looks for them,
and the rendered scene folders (``data/scenes/<name>/``, listed one a line in
``data/scenes/folders.txt`` for run.sh) that both trainers' ``--scenes`` read."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import cv2
import numpy as np

from models.common.photos import CACHE_DIR
from models.detector.data import CACHE, INPUT_SIZE

SCENES = CACHE_DIR / "scenes"


def decode(jpeg: np.ndarray, lengths: np.ndarray, colour: bool = False) -> np.ndarray:
    """Grey images (N, H, W), or BGR ones (N, H, W, 3) with ``colour``, from concatenated
    JPEG bytes and their lengths."""
    ends = np.cumsum(lengths)
    starts = ends - lengths
    flag = cv2.IMREAD_COLOR if colour else cv2.IMREAD_GRAYSCALE
    return np.stack([cv2.imdecode(jpeg[a:b], flag) for a, b in zip(starts, ends, strict=True)])


def unpack_scenes(packed: Path, into: Path = SCENES) -> Path:
    """A ``scenes-<name>.npz`` back into a rendered scene folder (PNG photos, JSON labels)."""
    folder = into / packed.stem.removeprefix("scenes-")
    shutil.rmtree(folder, ignore_errors=True)  # a folder unpacked before, maybe with more
    with np.load(packed) as data:
        (folder / "labels").mkdir(parents=True, exist_ok=True)
        (folder / "images").mkdir(exist_ok=True)
        (folder / "dataset.json").write_text(str(data["meta"]), encoding="utf-8")
        photos = decode(data["jpeg"], data["lengths"], colour=True)
        labels = json.loads(str(data["labels"]))
        for stem, label, photo in zip(data["stems"], labels, photos, strict=True):
            (folder / "labels" / f"{stem}.json").write_text(json.dumps(label), encoding="utf-8")
            cv2.imwrite(str(folder / "images" / f"{stem}.png"), photo)
    return folder


def unpack_photos(folder: Path, cache: Path = CACHE) -> list[Path]:
    """The packed photo sets back into the detector's caches (``rune55-SPLIT-256.npz`` from
    grey ``det-SPLIT.npz``, ``roboflow-SPLIT-256.npz`` from colour ``det-colour-SPLIT.npz``)."""
    cache.mkdir(parents=True, exist_ok=True)
    written = []
    for split in ("train", "valid"):
        for packed_name, name in ((f"det-{split}", "rune55"), (f"det-colour-{split}", "roboflow")):
            path = folder / f"{packed_name}.npz"
            if not path.exists():  # a pack made before the colour photos travelled
                continue
            with np.load(path) as packed:
                images = decode(packed["jpeg"], packed["lengths"], colour=name == "roboflow")
                if images.ndim == 3:
                    images = np.repeat(images[..., None], 3, axis=3)
                arrays = {k: packed[k] for k in ("boxes", "counts", "names")}
            written.append(cache / f"{name}-{split}-{INPUT_SIZE}.npz")
            np.savez(written[-1], images=images, **arrays)
            print(f"{name} {split}: {images.shape}", flush=True)
    return written


def main(folder: Path = Path(".gpu")) -> None:
    unpack_photos(folder)
    folders = [unpack_scenes(p) for p in sorted(folder.glob("scenes-*.npz"))]
    SCENES.mkdir(parents=True, exist_ok=True)
    (SCENES / "folders.txt").write_text("".join(f"{f}\n" for f in folders), encoding="utf-8")
    for f in folders:
        print(f"rendered scenes: {f} ({len(list((f / 'labels').glob('*.json')))})", flush=True)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(".gpu"))
