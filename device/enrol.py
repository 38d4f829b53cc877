"""``yamscope enrol``: the table's own dice learned from a folder of labelled photos of them.

Each photo is read as the appliance reads it (the detector, the calibration's tray when
there is one), the dice found are matched to the labels by the evaluation's centre rule,
and the crops of the matched dice, with their labelled values, fit the table's value head
(vision/enrolment.py). With a calibration, the same dice (labelled flat) also fit the
table's cocked-die head. What it changed is said on those photos: dice read right, and
dice called cocked, before and after.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from models.common.datasets import Dataset
from models.common.matching import match
from vision.calibration import Calibration
from vision.cocked import CockedReader
from vision.enrolment import TURNS, Enrolment, Lean, enrol, fit_lean, turned
from vision.faces import FaceReader
from vision.perspective import top_face_box
from vision.recognise import COCKED_FROM, FACES, DiceFinder, find_dice, value_of

BATCH = 256  # crops per model run while enrolling


@dataclass(frozen=True)
class Labelled:
    """The crops of the labelled dice found in a dataset's photos, and how many photos."""

    crops: np.ndarray  # (n, S, S, 3) uint8, as the model takes them
    values: np.ndarray  # (n,)
    kinds: tuple[str, ...]  # (n,) d6 or d10
    photos: int
    labelled: int  # labelled dice of a kind played, found or not
    # the cocked-die model's hidden layer of the same dice, as cut and mirrored (n, 2, H);
    # none without a calibration (the cocked-die model reads from overhead only)
    leans: np.ndarray = field(default_factory=lambda: np.zeros((0, 2, 0)))


def labelled_crops(
    dataset: Dataset,
    reader: FaceReader,
    finder: DiceFinder,
    calibration: Calibration | None = None,
    leaning: CockedReader | None = None,
) -> Labelled:
    """Every labelled flat die that the pipeline finds, cropped as it reads it; with a
    calibration and a ``leaning`` model that gives its hidden layer, that too."""
    crops, values, kinds, photos, labelled = [], [], [], 0, 0
    leans: list[np.ndarray] = []
    hears = leaning if leaning is not None and leaning.has_hidden else None
    default_kind = dataset.kinds[0] if len(dataset.kinds) == 1 else "d6"
    for index in range(len(dataset)):
        photo = dataset.load(index)
        truth = [t for t in photo.dice if not (t.ignored or t.cocked)]
        labelled += len(truth)
        if not truth:
            continue
        found = find_dice(photo.image, calibration, finder).segmentation
        boxes = [b.box for b in found.blobs]
        pairs = match([t.box for t in truth], boxes)
        if hears is not None and calibration is not None and pairs:
            flat = [boxes[j] for _, j in pairs]
            leans.append(hears.flat_hidden(photo.image, flat, calibration.focal))
        if calibration is not None:
            boxes = [top_face_box(photo.image.shape, b, calibration.focal) for b in boxes]
        if pairs:
            crops.append(reader.crops(photo.image, [boxes[j] for _, j in pairs]))
            values.extend(truth[i].value for i, _ in pairs)
            kinds.extend(truth[i].kind or default_kind for i, _ in pairs)
            photos += 1
    shape = (0, reader.card.size, reader.card.size, reader.card.channels)
    return Labelled(
        np.concatenate(crops) if crops else np.zeros(shape, np.uint8),
        np.asarray(values, np.int64),
        tuple(kinds),
        photos,
        labelled,
        np.concatenate(leans) if leans else np.zeros((0, 2, 0)),
    )


def features_of(reader: FaceReader, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The model's features and value logits of many crops, a batch at a time."""
    parts = [reader.features(crops[i : i + BATCH]) for i in range(0, len(crops), BATCH)]
    if not parts:
        return np.zeros((0, 0)), np.zeros((0, 0))
    return np.vstack([f for f, _ in parts]), np.vstack([logit for _, logit in parts])


def table_lean(leaning: CockedReader | None, flat: np.ndarray) -> Lean | None:
    """The table's cocked-die head fitted on the hidden layers (N, 2, H) of its ``flat``
    dice, as cut and mirrored, beside the model's anchors; None without flat dice, or for a
    model without anchors."""
    if leaning is None or not len(flat):
        return None
    anchors = leaning.anchors()
    if anchors is None:
        return None
    views = flat.reshape(-1, flat.shape[-1])
    head = fit_lean(views, anchors.hidden, anchors.cocked, anchors.own)
    return Lean(leaning.card.version, leaning.digest, head, len(flat))


def enrol_crops(
    reader: FaceReader,
    labelled: Labelled,
    previous: Enrolment | None = None,
    leaning: CockedReader | None = None,
) -> Enrolment:
    """The table's head fitted on the labelled crops and each of their turns (and its
    cocked-die head on their hidden layers, with a ``leaning`` model that has anchors)."""
    features, logits = features_of(reader, turned(labelled.crops))
    classes = [int(c) for c in reader.classes("value")]
    return enrol(
        features,
        logits,
        np.tile(labelled.values, TURNS),
        classes,
        reader.card.version,
        reader.digest,
        labelled.photos,
        previous=previous,
        lean=table_lean(leaning, labelled.leans),
        kinds=np.tile(np.asarray(labelled.kinds, str), TURNS),
    )


def cocked_change(
    leaning: CockedReader, labelled: Labelled, enrolment: Enrolment
) -> tuple[int, int] | None:
    """How many of the labelled dice (all flat) the cocked-die model calls cocked with its
    own last layer (as its anchors give it back) and with the enrolment's; None when the
    enrolment has no cocked-die head."""
    anchors = leaning.anchors()
    if enrolment.lean is None or anchors is None or not len(labelled.leans):
        return None
    cut = labelled.leans[:, 0]  # the dice as cut, not their mirror images
    before, after = (
        (h.probabilities(cut) >= COCKED_FROM).sum() for h in (anchors.own, enrolment.lean.head)
    )
    return int(before), int(after)


def right_share(reader: FaceReader, labelled: Labelled, enrolment: Enrolment | None) -> float:
    """The share of the labelled crops whose value the reader reads right, with the
    enrolment given (None: the model's own head)."""
    if not len(labelled.crops):
        return 0.0
    kept = reader.enrolment
    reader.enrol(enrolment)
    try:
        guesses = reader.read_crops(labelled.crops, d6=np.array(labelled.kinds) == "d6")
    finally:
        reader.enrol(kept)
    classes = [int(c) for c in reader.classes("value")]
    read = np.array(
        [
            value_of(g["value"], kind, tuple(classes))[0]  # type: ignore[arg-type]
            for g, kind in zip(guesses, labelled.kinds, strict=True)
        ]
    )
    return float((read == labelled.values).mean())


def values_not_shown(labelled: Labelled) -> dict[str, list[int]]:
    """For each kind of the labelled dice, the values it can show that none of its dice
    shows: the table's head reads a die's value only where a die of its kind showed it."""
    kinds = np.asarray(labelled.kinds)
    missing = {
        kind: sorted(set(range(1, FACES[kind] + 1)) - set(labelled.values[kinds == kind].tolist()))
        for kind in FACES
        if kind in labelled.kinds
    }
    return {kind: values for kind, values in missing.items() if values}


def report_lines(
    labelled: Labelled,
    before: float,
    after: float,
    out: Path,
    cocked: tuple[int, int] | str,
) -> list[str]:
    """What ``yamscope enrol`` prints; ``cocked``: the flat dice called cocked before and
    after, or why no cocked-die head was fitted."""
    counts = np.unique(labelled.values, return_counts=True)
    per_value = ", ".join(f"{v}: {c}" for v, c in zip(*counts, strict=True))
    lines = [
        f"{len(labelled.crops)} dice of {labelled.labelled} labelled found in "
        f"{labelled.photos} photos ({per_value})",
        f"on these photos: value read right {before:.1%} before, {after:.1%} after",
    ]
    if isinstance(cocked, str):
        lines.append(f"no cocked-die head fitted: {cocked}")
    else:
        lines.append(
            f"flat dice called cocked: {cocked[0]} before, {cocked[1]} after (the table's "
            "cocked-die head)"
        )
    unshown = values_not_shown(labelled)
    if unshown:
        lines.append(
            "; ".join(
                f"no {kind} here shows " + ", ".join(map(str, v)) for kind, v in unshown.items()
            )
            + ": those stay read as the model reads them (lay them in photos and enrol again "
            "to teach them)"
        )
    return [*lines, f"enrolment written to {out}"]
