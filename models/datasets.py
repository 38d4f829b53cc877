"""Labelled photo folders the whole pipeline is scored on: a YOLO folder of real d6 photos
(Rune55) or a folder of synthetic scenes (``yamscope render``), read as one kind of thing.

Why one reader for both: the evaluation then has a single path from photo to score, and a
photo's labels carry only what its source knows (a YOLO label knows the face and the box of
the top face; a synthetic label knows every attribute, whether the die is cocked, and the
tray, from which the empty-tray photo an appliance calibrates on can be drawn again).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

from models.photos import SPLITS, parse_labels
from vision.images import load_image

Format = Literal["yolo", "synthetic"]
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp")


class DatasetError(ValueError):
    """The folder is not a dataset this module reads; the message says what was expected."""


@dataclass(frozen=True)
class TrueDie:
    """One labelled die; attributes the source does not label are None (a YOLO label
    gives the face only: the kind is the dataset's)."""

    box: tuple[float, float, float, float]  # x0, y0, x1, y1 in pixels, x1/y1 exclusive
    value: int
    kind: str | None = None
    colour: str | None = None
    finish: str | None = None
    cocked: bool = False


@dataclass(frozen=True, eq=False)
class LabelledPhoto:
    """A photo (BGR pixels) and its dice; ``tray`` is the synthetic table, from which its
    empty photo can be drawn, or ``empty`` the photo of it (a Blender scene's) and
    ``field_of_view`` its camera's (degrees across; Blender labels written since 2026-11-30)."""

    path: Path
    image: np.ndarray
    dice: tuple[TrueDie, ...]
    tray: dict[str, Any] | None = None
    empty: Path | None = None
    field_of_view: float | None = None

    def camera_field_of_view(self) -> float | None:
        """The camera's field of view across (degrees): the labels', else the synthetic
        table's; None for a photo that does not say (a YOLO photo, an old Blender label)."""
        if self.field_of_view is not None:
            return self.field_of_view
        if self.tray is not None:
            from models.synth import Tray  # the generator is needed for its trays only

            return Tray(**self.tray).field_of_view
        return None


@dataclass(frozen=True)
class Dataset:
    """A folder of labelled photos: its format, a short name and the kinds of dice in it."""

    root: Path
    format: Format
    name: str
    kinds: tuple[str, ...]
    photos: tuple[Path, ...]  # the image (YOLO) or label (synthetic) file of each photo

    def __len__(self) -> int:
        return len(self.photos)

    def load(self, index: int) -> LabelledPhoto:
        """Photo ``index`` (name order) with its labels; BadImageError for a photo that
        cannot be read, DatasetError for labels that cannot."""
        path = self.photos[index]
        if self.format == "yolo":
            return _yolo_photo(self.root, path)
        return _synthetic_photo(self.root, path)


def open_dataset(root: str | Path) -> Dataset:
    """The dataset in ``root``: ``images/`` + ``labels/*.txt`` (YOLO; a split folder such as
    ``rune55-d6/test``) or ``dataset.json`` + ``labels/*.json`` (synthetic). Raises
    DatasetError naming what is missing."""
    root = Path(root)
    if not root.is_dir():
        raise DatasetError(f"{root}: no such folder")
    name = f"{root.resolve().parent.name}-{root.name}" if root.name in SPLITS else root.name
    if (root / "dataset.json").is_file():
        try:
            meta = json.loads((root / "dataset.json").read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise DatasetError(f"{root / 'dataset.json'}: unreadable ({exc})") from None
        labels = tuple(sorted((root / "labels").glob("*.json")))
        if not labels:
            raise DatasetError(f"{root}: a synthetic dataset with no labels/*.json")
        kinds = tuple(meta.get("kinds") or ("d6", "d10"))
        return Dataset(root, "synthetic", name, kinds, labels)
    if (root / "images").is_dir() and (root / "labels").is_dir():
        images = tuple(
            sorted(p for p in (root / "images").iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        )
        if not images:
            raise DatasetError(f"{root}: images/ holds no photos")
        return Dataset(root, "yolo", name, ("d6",), images)
    raise DatasetError(
        f"{root}: not a dataset (want images/ + labels/*.txt, or dataset.json + labels/*.json)"
    )


def _yolo_photo(root: Path, path: Path) -> LabelledPhoto:
    """A photo without a label file holds no dice (the YOLO convention)."""
    label = root / "labels" / f"{path.stem}.txt"
    try:
        boxes = parse_labels(label.read_text(encoding="utf-8")) if label.exists() else []
    except ValueError as exc:
        raise DatasetError(f"{label}: {exc}") from None
    image = load_image(path)
    height, width = image.shape[:2]
    dice = tuple(
        TrueDie(
            (
                (b.cx - b.w / 2) * width,
                (b.cy - b.h / 2) * height,
                (b.cx + b.w / 2) * width,
                (b.cy + b.h / 2) * height,
            ),
            b.cls + 1,
        )
        for b in boxes
    )
    return LabelledPhoto(path, image, dice)


def _synthetic_photo(root: Path, label: Path) -> LabelledPhoto:
    try:
        data = json.loads(label.read_text(encoding="utf-8"))
        dice = tuple(
            TrueDie(
                tuple(float(v) for v in d["box"]),  # type: ignore[arg-type]
                int(d["value"]),
                kind=d["kind"],
                colour=d["colour"],
                finish=d["finish"],
                cocked=bool(d.get("cocked", False)),
            )
            for d in data["dice"]
        )
        field_of_view = float(data["field_of_view"]) if "field_of_view" in data else None
    except (
        OSError, UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError, ValueError
    ) as exc:  # fmt: skip
        raise DatasetError(f"{label}: not a scene label ({exc!r})") from None
    path = root / "images" / f"{label.stem}.png"
    empty = root / data["empty"] if data.get("empty") else None
    return LabelledPhoto(path, load_image(path), dice, data.get("tray"), empty, field_of_view)
