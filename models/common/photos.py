"""Die crops from the Rune55 d6 photos (YOLO labels), with an honest view of its splits.

Rune55 ("Rune55" v3 by a Roboflow user, CC BY 4.0) ships Roboflow augmentations of one photo
under several names (``<source>.rf.<hash>.jpg``), and the same source photo turns up in more
than one split. A test accuracy measured on photos the model saw in training says little, so
every split here carries the source name of each crop, and :func:`leakage` and
:func:`unseen_mask` let callers report the test metric on sources absent from train.

The photos stay in ``../shared/data``; only a cache of the crops (~70 MB) is written, to the
git-ignored ``data/`` folder of the repository.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

SPLITS = ("train", "valid", "test")
CROP_SIZE = 64
# Extra room around the labelled box, as a fraction of its longer side on each side: the
# boxes hug the top face, and the runtime's boxes will not be as tight or as well centred.
MARGIN = 0.10
CACHE_DIR = Path(__file__).resolve().parents[2] / "data"


def default_root() -> Path:
    """Where the shared data lives beside the repository: ``../shared/data/rune55-d6``."""
    # models/common/photos.py → parents[3] is the folder that holds both the repository and shared/.
    return Path(__file__).resolve().parents[3] / "shared/data/rune55-d6"


def source_name(filename: str) -> str:
    """The source photo a Roboflow file derives from: the part of the name before ``.rf.``."""
    name = Path(filename).name
    return name.split(".rf.", 1)[0] if ".rf." in name else Path(name).stem


@dataclass(frozen=True)
class Box:
    """One YOLO label: class 0..5 (face 1..6) and a normalised centre and size."""

    cls: int
    cx: float
    cy: float
    w: float
    h: float


def parse_labels(text: str) -> list[Box]:
    """Read YOLO label lines (``class cx cy w h``); blank lines are skipped, bad ones raise."""
    return [
        yolo_box(line.split(), n) for n, line in enumerate(text.splitlines(), 1) if line.split()
    ]


def yolo_box(fields: list[str], number: int) -> Box:
    """One YOLO label line's fields; ValueError naming line ``number`` when they are not."""
    if len(fields) != 5:
        raise ValueError(f"line {number}: expected 'class cx cy w h', got {' '.join(fields)!r}")
    cls = int(fields[0])
    if not 0 <= cls <= 5:
        raise ValueError(f"line {number}: class {cls} is not a d6 face (0..5)")
    cx, cy, w, h = (float(f) for f in fields[1:])
    return Box(cls, cx, cy, w, h)


def square_window(box: Box, width: int, height: int, margin: float = MARGIN) -> tuple[int, ...]:
    """The square (x0, y0, x1, y1) in pixels around a box, its side the longer box side plus
    ``margin`` of it on each side; it may reach past the image (the caller pads)."""
    side = max(box.w * width, box.h * height) * (1 + 2 * margin)
    side = max(2, round(side))
    x0 = round(box.cx * width - side / 2)
    y0 = round(box.cy * height - side / 2)
    return x0, y0, x0 + side, y0 + side


def crop_die(
    image: np.ndarray, box: Box, size: int = CROP_SIZE, margin: float = MARGIN
) -> np.ndarray:
    """A ``size`` x ``size`` greyscale crop centred on the box; parts past the edge repeat the
    edge pixels (a die at the border keeps its shape instead of gaining a black band)."""
    if image.ndim == 3:
        image = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    height, width = image.shape
    x0, y0, x1, y1 = square_window(box, width, height, margin)
    pad = max(0, -x0, -y0, x1 - width, y1 - height)
    if pad:
        image = cv2.copyMakeBorder(image, pad, pad, pad, pad, cv2.BORDER_REPLICATE)
    window = image[y0 + pad : y1 + pad, x0 + pad : x1 + pad]
    interpolation = cv2.INTER_AREA if window.shape[0] > size else cv2.INTER_LINEAR
    return cv2.resize(window, (size, size), interpolation=interpolation)


@dataclass(frozen=True)
class Crops:
    """Die crops of one split: ``images`` (N, S, S) uint8, ``labels`` 0..5 (face - 1), and for
    each crop the photo's file name and its source photo (for leakage checks)."""

    images: np.ndarray
    labels: np.ndarray
    files: np.ndarray
    sources: np.ndarray

    def __len__(self) -> int:
        return len(self.labels)

    def subset(self, mask: np.ndarray) -> Crops:
        """The crops where ``mask`` is true (or at the given indices)."""
        return Crops(self.images[mask], self.labels[mask], self.files[mask], self.sources[mask])


def crops_of_photos(photos: Iterable[tuple[Path, Path]], size: int, margin: float) -> Crops:
    """Crops of every labelled die in (image, label file) pairs."""
    images, labels, files = [], [], []
    for image_path, label_path in photos:
        boxes = parse_labels(label_path.read_text(encoding="utf-8"))
        if not boxes:
            continue
        image = cv2.imread(str(image_path), cv2.IMREAD_GRAYSCALE)
        if image is None:
            raise OSError(f"cannot read image {image_path}")
        for box in boxes:
            images.append(crop_die(image, box, size, margin))
            labels.append(box.cls)
            files.append(image_path.name)
    return Crops(
        np.asarray(images, dtype=np.uint8).reshape(-1, size, size),
        np.asarray(labels, dtype=np.int64),
        np.asarray(files, dtype=str),
        np.asarray([source_name(f) for f in files], dtype=str),
    )


def split_photos(root: Path, split: str) -> list[tuple[Path, Path]]:
    """(image, label) pairs of one split folder, sorted by name for a stable order."""
    images = sorted((root / split / "images").glob("*.jpg"))
    if not images:
        raise FileNotFoundError(f"no images in {root / split / 'images'}")
    return [(p, root / split / "labels" / (p.stem + ".txt")) for p in images]


def _cache_path(root: Path, size: int, margin: float, cache_dir: Path) -> Path:
    key = hashlib.sha1(f"{root.resolve()}|{size}|{margin}|v1".encode()).hexdigest()[:10]
    return cache_dir / f"rune55-crops-{size}-{key}.npz"


def load_splits(
    root: Path | None = None,
    size: int = CROP_SIZE,
    margin: float = MARGIN,
    splits: Sequence[str] = SPLITS,
    cache: bool = True,
) -> dict[str, Crops]:
    """The crops of each split as the dataset splits them, cached in ``CACHE_DIR`` (read when
    called, so tests can point it elsewhere) unless ``cache`` is false."""
    root = Path(root) if root is not None else default_root()
    cache_file = _cache_path(root, size, margin, CACHE_DIR) if cache else None
    if cache_file is not None and cache_file.exists():
        with np.load(cache_file) as stored:
            loaded = {
                s: Crops(*(stored[f"{s}_{k}"] for k in ("images", "labels", "files", "sources")))
                for s in SPLITS
            }
        return {s: loaded[s] for s in splits}
    result = {s: crops_of_photos(split_photos(root, s), size, margin) for s in SPLITS}
    if cache_file is not None:
        cache_file.parent.mkdir(parents=True, exist_ok=True)
        arrays = {
            f"{s}_{k}": getattr(c, k)
            for s, c in result.items()
            for k in ("images", "labels", "files", "sources")
        }
        np.savez_compressed(cache_file, **arrays)
    return {s: result[s] for s in splits}


def leakage(splits: dict[str, Crops]) -> dict[str, object]:
    """How many source photos appear in more than one split, overall and for each pair."""
    sources = {name: set(crops.sources.tolist()) for name, crops in splits.items()}
    names = list(sources)
    shared: set[str] = set()
    pairs = {}
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            both = sources[a] & sources[b]
            pairs[f"{a}&{b}"] = len(both)
            shared |= both
    return {
        "sources": {name: len(s) for name, s in sources.items()},
        "in_more_than_one_split": len(shared),
        "pairs": pairs,
    }


def unseen_mask(crops: Crops, seen: Crops) -> np.ndarray:
    """True for crops whose source photo is absent from ``seen`` (usually the train split)."""
    return ~np.isin(crops.sources, np.unique(seen.sources))


def main() -> None:
    """Print the crop counts and the leakage between the splits
    (``python -m models.common.photos``)."""
    splits = load_splits()
    for name, crops in splits.items():
        counts = np.bincount(crops.labels, minlength=6).tolist()
        print(f"{name}: {len(crops)} crops from {len(set(crops.files))} photos; per face {counts}")
    report = leakage(splits)
    print(f"sources per split: {report['sources']}")
    print(f"sources in more than one split: {report['in_more_than_one_split']} {report['pairs']}")
    for name in ("valid", "test"):
        mask = unseen_mask(splits[name], splits["train"])
        print(f"{name} crops whose source is not in train: {int(mask.sum())} of {len(mask)}")


if __name__ == "__main__":
    main()
