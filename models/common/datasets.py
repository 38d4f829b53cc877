"""Labelled photo folders the whole pipeline is scored on: a folder of real photos (YOLO
labels, or pixel labels that name each die's kind) or a folder of synthetic scenes
(``yamscope render``), read as one kind of thing.

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

from models.common.photos import SPLITS, yolo_box
from vision.images import load_image

Format = Literal["photos", "synthetic"]
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp")
SCORED_KINDS = ("d6", "d10")  # a pixel label of any other kind (d8, d100) is ignored
FACES = {"d6": 6, "d10": 10}


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

    @property
    def ignored(self) -> bool:
        """A die of a kind yamscope does not play (a d8): a box read on it is neither right
        nor extra."""
        return self.kind is not None and self.kind not in SCORED_KINDS


@dataclass(frozen=True, eq=False)
class LabelledPhoto:
    """A photo (BGR pixels) and its dice; ``tray`` is the synthetic table, from which its
    empty photo can be drawn, or ``empty`` the photo of it (a Blender scene's) and
    ``field_of_view`` its camera's (degrees across; Blender labels written since 2026-11-30),
    ``labelled_slant`` a phone's from straight down (Blender's phone view)."""

    path: Path
    image: np.ndarray
    dice: tuple[TrueDie, ...]
    tray: dict[str, Any] | None = None
    empty: Path | None = None
    field_of_view: float | None = None
    labelled_slant: float = 0.0  # a Blender phone view's, from its labels

    @property
    def slant(self) -> float:
        """The camera's from straight down (degrees) when the labels say it was held at a
        slant, as a phone is (the slanted generator's tray, a Blender phone view); else 0."""
        return self.labelled_slant or float((self.tray or {}).get("slant", 0.0))

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
    photos: tuple[Path, ...]  # the image (real photos) or label (synthetic) file of each photo
    labels: Path | None = None  # the real photos' label folder (default: root/labels)

    def __len__(self) -> int:
        return len(self.photos)

    def load(self, index: int) -> LabelledPhoto:
        """Photo ``index`` (name order) with its labels; BadImageError for a photo that
        cannot be read, DatasetError for labels that cannot."""
        path = self.photos[index]
        if self.format == "photos":
            return _photo(self.labels or self.root / "labels", path)
        return _synthetic_photo(self.root, path)


def open_dataset(root: str | Path, labels: str | Path | None = None) -> Dataset:
    """The dataset in ``root``: ``images/`` + ``labels/*.txt`` (real photos, YOLO or pixel
    labels; a split folder such as ``rune55-d6/test``) or ``dataset.json`` +
    ``labels/*.json`` (synthetic). ``labels``: a folder of label files for the photos in
    ``root`` (or ``root/images``), which are then the photos that have one (a folder of
    photos labelled elsewhere). Raises DatasetError naming what is missing."""
    root = Path(root)
    if not root.is_dir():
        raise DatasetError(f"{root}: no such folder")
    name = f"{root.resolve().parent.name}-{root.name}" if root.name in SPLITS else root.name
    if labels is not None:
        return _labelled_elsewhere(root, Path(labels), name)
    if (root / "dataset.json").is_file():
        try:
            meta = json.loads((root / "dataset.json").read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise DatasetError(f"{root / 'dataset.json'}: unreadable ({exc})") from None
        found = tuple(sorted((root / "labels").glob("*.json")))
        if not found:
            raise DatasetError(f"{root}: a synthetic dataset with no labels/*.json")
        kinds = tuple(meta.get("kinds") or ("d6", "d10"))
        return Dataset(root, "synthetic", name, kinds, found)
    if (root / "images").is_dir() and (root / "labels").is_dir():
        images = photos_in(root / "images")
        if not images:
            raise DatasetError(f"{root}: images/ holds no photos")
        return Dataset(root, "photos", name, photo_kinds(root / "labels", images), images)
    raise DatasetError(
        f"{root}: not a dataset (want images/ + labels/*.txt, or dataset.json + labels/*.json)"
    )


def photos_in(folder: Path) -> tuple[Path, ...]:
    return tuple(sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES))


def _labelled_elsewhere(root: Path, labels: Path, name: str) -> Dataset:
    if not labels.is_dir():
        raise DatasetError(f"{labels}: no such label folder")
    folder = root / "images" if (root / "images").is_dir() else root
    images = tuple(p for p in photos_in(folder) if (labels / f"{p.stem}.txt").is_file())
    if not images:
        raise DatasetError(f"{labels}: labels none of the photos in {folder}")
    return Dataset(root, "photos", name, photo_kinds(labels, images), images, labels)


def parse_photo_labels(text: str, width: int, height: int) -> list[TrueDie]:
    """A photo's label lines, each either YOLO (``CLASS cx cy w h``, normalised, class 0..5
    a d6 showing 1..6, its kind left to the dataset) or pixels (``KIND VALUE x0 y0 x1 y1``);
    blank lines are skipped, a bad line raises ValueError naming it."""
    dice = []
    for number, line in enumerate(text.splitlines(), 1):
        fields = line.split()
        if not fields:
            continue
        if len(fields) == 5 and fields[0].isdigit():
            box = yolo_box(fields, number)
            half_w, half_h = box.w * width / 2, box.h * height / 2
            cx, cy = box.cx * width, box.cy * height
            dice.append(TrueDie((cx - half_w, cy - half_h, cx + half_w, cy + half_h), box.cls + 1))
            continue
        if len(fields) != 6:
            raise ValueError(
                f"line {number}: expected 'CLASS cx cy w h' or 'KIND VALUE x0 y0 x1 y1', "
                f"got {line!r}"
            )
        dice.append(_pixel_label(fields, number))
    return dice


def _pixel_label(fields: list[str], number: int) -> TrueDie:
    kind = fields[0].lower()
    try:
        value = int(fields[1])
        value = 10 if kind == "d10" and value == 0 else value  # a d10's "0" is its ten
        x0, y0, x1, y1 = (float(f) for f in fields[2:])
    except ValueError:
        raise ValueError(f"line {number}: VALUE and the box must be numbers") from None
    if not (x0 < x1 and y0 < y1):
        raise ValueError(f"line {number}: the box ({x0:g}, {y0:g}, {x1:g}, {y1:g}) is empty")
    if kind in FACES and not 1 <= value <= FACES[kind]:
        raise ValueError(f"line {number}: a {kind} shows 1 to {FACES[kind]}, not {value}")
    return TrueDie((x0, y0, x1, y1), value, kind=kind)


def photo_kinds(labels: Path, images: tuple[Path, ...]) -> tuple[str, ...]:
    """The kinds of dice the photos' labels name (a YOLO line: a d6)."""
    kinds: set[str] = set()
    for path in images:
        label = labels / f"{path.stem}.txt"
        if not label.exists():
            continue
        for line in label.read_text(encoding="utf-8", errors="replace").splitlines():
            fields = line.split()
            if len(fields) == 5 and fields[0].isdigit():
                kinds.add("d6")
            elif len(fields) == 6 and fields[0].lower() in SCORED_KINDS:
                kinds.add(fields[0].lower())
    return tuple(k for k in SCORED_KINDS if k in kinds) or ("d6",)


def _photo(labels: Path, path: Path) -> LabelledPhoto:
    """A photo without a label file holds no dice (the YOLO convention)."""
    label = labels / f"{path.stem}.txt"
    image = load_image(path)
    height, width = image.shape[:2]
    try:
        text = label.read_text(encoding="utf-8") if label.exists() else ""
        dice = tuple(parse_photo_labels(text, width, height))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise DatasetError(f"{label}: {exc}") from None
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
    slant = float(data.get("slant", 0.0))
    return LabelledPhoto(
        path, load_image(path), dice, data.get("tray"), empty, field_of_view, slant
    )
