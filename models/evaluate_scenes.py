"""Score the whole reading pipeline (segmentation, model, classical checks, flags) on labelled
photos, one photo at a time on one thread, as the Pi reads a throw.

Why whole photos and not crops: ``yamscope evaluate-crops`` says how well the model reads a
die it is handed; players see what ``recognise`` makes of a tray: dice missed or made up,
dice cut in two, a wrong value that nothing flagged. Read dice are matched to labelled ones
by box overlap (IoU ≥ 0.5, greedy by IoU, one to one), then:

- detection: precision (read dice that are labelled dice) and recall (labelled dice read);
- attributes on matched dice: the value always, kind, colour and finish where labelled; a
  die labelled cocked shows no top face (the rules have it thrown again), so its value is
  not scored: the right answer for it is a flag;
- a photo is entirely right when every labelled die is found, nothing else is, every scored
  attribute is right and no die is flagged, except cocked ones, which must be;
- flags: a flag is deserved by a die made up, misread or cocked; the share of flags that
  were deserved, and the silent errors (deserved, not flagged), which cost players points,
  by cause: a box on part of a die (IoU 0.1–0.5 with its label: often its top face alone,
  which may well be read right) or on no die, a wrong value, a wrong kind, colour or
  finish, a cocked die not flagged;
- by look (colour and finish, where labelled): the flat dice's value accuracy, flags and
  silent errors, since a clear die on felt is read far worse than a frosted one and a mean
  over all dice hides it;
- latency of ``recognise`` per photo (median, p95), and the photo sizes.

Synthetic photos are read as an appliance reads them: calibrated on the photo of their empty
tray (drawn again from the labels), with the kinds of dice the dataset holds.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from models.datasets import Dataset, LabelledPhoto, TrueDie, open_dataset
from models.evaluate import confusion, draw_confusion
from vision.calibration import (
    DEFAULT_FIELD_OF_VIEW,
    Calibration,
    calibrate,
    check_field_of_view,
)
from vision.errors import VisionError
from vision.images import load_image
from vision.model_check import check_words
from vision.reading import ReadDie, Reading
from vision.recognise import Recogniser

IOU = 0.5
PART_IOU = 0.1  # a made-up box overlapping a labelled die this much is on part of it
SILENT_CAUSES = ("part of a die", "no die", "value", "kind/colour/finish", "cocked die")
OUT_ROOT = Path(__file__).resolve().parents[1] / "data" / "evaluate"
CLASSES: dict[str, tuple[Any, ...]] = {
    "kind": ("d6", "d10"),
    "colour": ("red", "white", "other"),
    "finish": ("frosted", "transparent"),
}
ATTRIBUTES = ("kind", "value", "colour", "finish")

Box = Sequence[float]


@dataclass
class LookTally:
    """The flat dice of one colour and finish."""

    dice: int = 0
    value_right: int = 0
    flagged: int = 0
    silent_errors: int = 0

    def summary(self) -> dict[str, Any]:
        return {
            "dice": self.dice,
            "value": ratio(self.value_right, self.dice),
            "flagged": self.flagged,
            "silent_errors": self.silent_errors,
        }


def iou(a: Box, b: Box) -> float:
    """Intersection over union of two (x0, y0, x1, y1) boxes."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    if w <= 0 or h <= 0:
        return 0.0
    inter = w * h
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def match(
    truth: Sequence[Box], read: Sequence[Box], threshold: float = IOU
) -> list[tuple[int, int]]:
    """(truth index, read index) pairs: the best-overlapping pair first, each box used once,
    no pair below ``threshold``."""
    pairs = sorted(
        ((iou(t, r), i, j) for i, t in enumerate(truth) for j, r in enumerate(read)),
        reverse=True,
    )
    used_truth: set[int] = set()
    used_read: set[int] = set()
    out = []
    for overlap, i, j in pairs:
        if overlap < threshold:
            break
        if i in used_truth or j in used_read:
            continue
        used_truth.add(i)
        used_read.add(j)
        out.append((i, j))
    return sorted(out)


def scored(truth: TrueDie) -> tuple[str, ...]:
    """The attributes a labelled die is scored on (its value only when it lies flat)."""
    return tuple(
        a
        for a in ATTRIBUTES
        if (a == "value" and not truth.cocked) or (a != "value" and getattr(truth, a) is not None)
    )


def overlapped(box: Box, truth: Sequence[TrueDie]) -> TrueDie | None:
    """Why a read die that matches no label is wrong: the labelled die it covers part of
    (often its top face, where the label spans the sides too; the one it overlaps most, at
    IoU ``PART_IOU`` or more), else None: it covers no die at all."""
    best = max(truth, key=lambda t: iou(box, t.box), default=None)
    return best if best is not None and iou(box, best.box) >= PART_IOU else None


def misread(truth: TrueDie, read: ReadDie) -> str:
    """What a matched die would have been wrong in, had it not been flagged (the first
    that applies)."""
    if truth.cocked:
        return "cocked die"
    if read.value != truth.value:
        return "value"
    return "kind/colour/finish"


def ratio(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


@dataclass
class Tally:
    """What the photos read so far add up to."""

    photos: int = 0
    unreadable: list[str] = field(default_factory=list)
    true_dice: int = 0
    read_dice: int = 0
    matched: int = 0
    right: Counter[str] = field(default_factory=Counter)
    compared: Counter[str] = field(default_factory=Counter)
    answers: dict[str, list[tuple[Any, Any]]] = field(default_factory=dict)  # (labelled, read)
    entirely_right: int = 0
    flagged: int = 0
    deserved_flags: int = 0
    silent_errors: int = 0
    by_flag: Counter[str] = field(default_factory=Counter)
    cocked: int = 0
    cocked_found: int = 0
    cocked_flagged: int = 0
    cocked_flagged_cocked: int = 0
    ms: list[float] = field(default_factory=list)
    sizes: Counter[str] = field(default_factory=Counter)
    looks: dict[str, LookTally] = field(default_factory=dict)  # "red transparent": ...
    silent_causes: Counter[str] = field(default_factory=Counter)
    # silent boxes on part of a die that read that die's value: wrong for the IoU rule, but
    # the throw a player sees is right (Rune55 test: 42 of 63)
    part_value_right: int = 0

    def add(self, truth: Sequence[TrueDie], reading: Reading) -> None:
        """One photo's labelled dice and what was read in it."""
        self.photos += 1
        self.ms.append(reading.ms)
        self.sizes[f"{reading.size[0]}x{reading.size[1]}"] += 1
        self.true_dice += len(truth)
        self.read_dice += len(reading.dice)
        pairs = match([t.box for t in truth], [d.box for d in reading.dice])
        self.matched += len(pairs)
        right_photo = len(pairs) == len(truth) == len(reading.dice)
        deserved = [True] * len(reading.dice)  # a die made up deserves its flag
        under = [overlapped(die.box, truth) for die in reading.dice]
        causes = ["no die" if part is None else "part of a die" for part in under]
        for i, j in pairs:
            ok = self._compare(truth[i], reading.dice[j])
            deserved[j] = truth[i].cocked or not ok
            causes[j] = misread(truth[i], reading.dice[j])
            flagged = reading.dice[j].flagged
            right_photo &= flagged if truth[i].cocked else ok and not flagged
            self._count_look(truth[i], reading.dice[j], ok)
        for die, due, cause, part in zip(reading.dice, deserved, causes, under, strict=True):
            self.flagged += die.flagged
            self.deserved_flags += die.flagged and due
            silent = due and not die.flagged
            self.silent_errors += silent
            self.silent_causes[cause] += silent
            if silent and cause == "part of a die" and part is not None:
                self.part_value_right += part.value == die.value
            self.by_flag.update(die.flags)
        self.entirely_right += right_photo
        self._count_cocked(truth, reading.dice, pairs)

    def _compare(self, truth: TrueDie, read: ReadDie) -> bool:
        """Score a matched die's attributes; True when every scored one is right."""
        ok = True
        for attribute in scored(truth):
            want, got = getattr(truth, attribute), getattr(read, attribute)
            self.compared[attribute] += 1
            self.right[attribute] += want == got
            self.answers.setdefault(attribute, []).append((want, got))
            ok &= want == got
        return ok

    def _count_look(self, truth: TrueDie, read: ReadDie, ok: bool) -> None:
        if truth.cocked or truth.colour is None or truth.finish is None:
            return
        look = self.looks.setdefault(f"{truth.colour} {truth.finish}", LookTally())
        look.dice += 1
        look.value_right += read.value == truth.value
        look.flagged += read.flagged
        look.silent_errors += not ok and not read.flagged

    def _count_cocked(
        self, truth: Sequence[TrueDie], read: Sequence[ReadDie], pairs: list[tuple[int, int]]
    ) -> None:
        found = dict(pairs)
        for i, die in enumerate(truth):
            if not die.cocked:
                continue
            self.cocked += 1
            if i in found:
                flags = read[found[i]].flags
                self.cocked_found += 1
                self.cocked_flagged += bool(flags)
                self.cocked_flagged_cocked += "cocked" in flags

    def summary(self) -> dict[str, Any]:
        """The numbers, as ``--json`` prints them."""
        ms = np.asarray(self.ms or [0.0])
        missed, extra = self.true_dice - self.matched, self.read_dice - self.matched
        return {
            "photos": self.photos,
            "unreadable": self.unreadable,
            "sizes": dict(self.sizes),
            "detection": {
                "labelled": self.true_dice,
                "read": self.read_dice,
                "matched": self.matched,
                "missed": missed,
                "extra": extra,
                "precision": ratio(self.matched, self.read_dice),
                "recall": ratio(self.matched, self.true_dice),
            },
            "attributes": {
                a: {
                    "accuracy": ratio(self.right[a], self.compared[a]),
                    "right": self.right[a],
                    "scored": self.compared[a],
                }
                for a in ATTRIBUTES
                if self.compared[a]
            },
            "entirely_right": {
                "photos": self.entirely_right,
                "share": ratio(self.entirely_right, self.photos),
            },
            "flags": {
                "flagged": self.flagged,
                "share_of_read": ratio(self.flagged, self.read_dice),
                "deserved": self.deserved_flags,
                "precision": ratio(self.deserved_flags, self.flagged),
                "silent_errors": self.silent_errors,
                "silent_by_cause": {c: self.silent_causes[c] for c in SILENT_CAUSES},
                "silent_part_of_a_die_value_right": self.part_value_right,
                "by_flag": dict(self.by_flag),
            },
            "by_look": {name: self.looks[name].summary() for name in sorted(self.looks)},
            "cocked": {
                "labelled": self.cocked,
                "found": self.cocked_found,
                "flagged": self.cocked_flagged,
                "flagged_cocked": self.cocked_flagged_cocked,
            },
            "latency_ms": {
                "median": round(float(np.median(ms)), 2),
                "p95": round(float(np.percentile(ms, 95)), 2),
                "max": round(float(ms.max()), 2),
            },
        }

    def confusions(self) -> dict[str, tuple[np.ndarray, tuple[Any, ...]]]:
        """Each scored attribute's confusion matrix (rows: labelled, columns: read) and its
        class names."""
        out = {}
        for attribute, pairs in self.answers.items():
            if attribute == "value":  # a d6's faces, or a d10's once any die shows more
                top = 10 if any(max(w, g) > 6 for w, g in pairs) else 6
                names: tuple[Any, ...] = tuple(range(1, top + 1))
            else:
                names = CLASSES[attribute]
            index = {name: k for k, name in enumerate(names)}
            truth = np.array([index[w] for w, _ in pairs])
            read = np.array([index[g] for _, g in pairs])
            out[attribute] = (confusion(truth, read, len(names)), names)
        return out


def tray_calibration(
    photo: LabelledPhoto, seed: int, field_of_view: float | None = None
) -> Calibration:
    """The calibration an appliance at this synthetic table would make: on the photo of its
    empty tray (its own noise, from ``seed``), told the camera's field of view (the labels',
    unless ``field_of_view`` is given; the default when neither says). Raises VisionError
    when none can be made."""
    from models.synth import Tray, empty_tray

    if photo.empty is not None:
        image = load_image(photo.empty)
    else:
        assert photo.tray is not None
        image = empty_tray(Tray(**photo.tray), np.random.default_rng(seed))
    labelled = photo.camera_field_of_view()
    told = next((v for v in (field_of_view, labelled) if v is not None), DEFAULT_FIELD_OF_VIEW)
    return calibrate(image, field_of_view=told)


def evaluate(
    dataset: Dataset,
    *,
    kinds: tuple[str, ...] | None = None,
    calibrated: bool = True,
    limit: int | None = None,
    progress: bool = True,
    recogniser: Recogniser | None = None,
    model: Path | None = None,
    detector: Path | None = None,
    cocked: Path | None = None,
    field_of_view: float | None = None,
) -> tuple[Tally, dict[str, Any]]:
    """Read every photo of ``dataset`` (the first ``limit``) and tally the result; also
    returns how it was read (model, kinds, calibration). ``kinds``: the kinds of dice in
    play (default: the dataset's); synthetic sets are calibrated unless ``calibrated`` is
    False. ``model``, ``detector``, ``cocked``: ONNX files read instead of the shipped ones,
    when no ``recogniser`` is given. ``field_of_view``: the calibrations are told this
    instead of the camera's in the labels (to measure a wrong setting). OpenCV runs on one
    thread meanwhile, as the model does."""
    from tqdm import tqdm

    if field_of_view is not None:
        check_field_of_view(field_of_view)  # else every calibration fails, and silently
    kinds = tuple(kinds or dataset.kinds)
    synthetic = dataset.format == "synthetic"
    if recogniser is None:
        chosen: dict[str, Any] = {"model": model} if model is not None else {}
        if cocked is not None:
            chosen["cocked_model"] = cocked
        recogniser = Recogniser(
            coloured=synthetic,
            kinds=kinds,  # type: ignore[arg-type]
            finder_model=detector,
            **chosen,
        )
    calibrate_each = calibrated and synthetic
    tally = Tally()
    failed_calibrations = 0
    count = len(dataset) if limit is None else min(limit, len(dataset))
    threads = cv2.getNumThreads()
    cv2.setNumThreads(1)
    try:
        for index in tqdm(range(count), unit="photo", disable=not progress, file=sys.stderr):
            try:
                photo = dataset.load(index)
            except VisionError as exc:
                tally.unreadable.append(str(exc))
                continue
            recogniser.calibration = None
            if calibrate_each:
                try:
                    recogniser.calibration = tray_calibration(photo, index, field_of_view)
                except VisionError:
                    failed_calibrations += 1  # read as an uncalibrated appliance would
            tally.add(photo.dice, recogniser(photo.image))
    finally:
        cv2.setNumThreads(threads)
    how = {
        "dataset": str(dataset.root),
        "format": dataset.format,
        "name": dataset.name,
        "model": {
            "path": str(recogniser.reader.path),
            "version": recogniser.reader.card.version,
            "check": check_words(recogniser.reader),
        },
        "detector": str(detector) if detector is not None else "shipped",
        "cocked_model": {
            "path": str(recogniser.leaning.path),
            "version": recogniser.leaning.card.version,
        },
        "kinds": list(kinds),
        "calibrated": calibrate_each,
        "field_of_view": "the labels'" if field_of_view is None else field_of_view,
        "calibration_failed": failed_calibrations,
    }
    return tally, how


def draw_confusions(tally: Tally, out: Path, name: str) -> list[Path]:
    """One PNG per scored attribute, ``out/<attribute>.png``."""
    paths = []
    for attribute, (matrix, names) in tally.confusions().items():
        right, scored_ = tally.right[attribute], tally.compared[attribute]
        title = f"{name} {attribute}: {right / scored_:.4f} of {scored_} matched dice"
        path = out / f"{attribute}.png"
        draw_confusion(matrix, path, title, names)
        paths.append(path)
    return paths


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2%}"


def silent_line(flags: dict[str, Any]) -> str:
    """The silent errors by cause; a box on part of a die also says how many read that
    die's value right (a player's throw is right there, the IoU rule's is not)."""
    right = flags["silent_part_of_a_die_value_right"]
    return "silent       " + "; ".join(
        f"{cause} {n}"
        + (f" ({right} of them with its value right)" if cause == "part of a die" and n else "")
        for cause, n in flags["silent_by_cause"].items()
    )


def report_lines(result: dict[str, Any]) -> list[str]:
    """The table ``yamscope evaluate`` prints."""
    det, flags, cocked = result["detection"], result["flags"], result["cocked"]
    lat, whole = result["latency_ms"], result["entirely_right"]
    sizes = ", ".join(f"{size} ({n})" for size, n in result["sizes"].items()) or "none"
    calibration = "calibrated on each empty tray" if result["calibrated"] else "no calibration"
    if result["calibration_failed"]:
        calibration += f" ({result['calibration_failed']} could not be: read without)"
    lines = [
        f"dataset      {result['dataset']} ({result['format']}, {result['photos']} photos)",
        f"reading      model dieface {result['model']['version']} ({result['model']['path']}; "
        f"{result['model']['check']}), "
        f"detector {result['detector']}, cocked-die model {result['cocked_model']['version']}"
        + ("" if result["calibrated"] else " (not asked)")
        + f", kinds {','.join(result['kinds'])}, {calibration}",
        f"photo size   {sizes}",
        f"detection    precision {_pct(det['precision'])}  recall {_pct(det['recall'])}  "
        f"({det['matched']} of {det['labelled']} labelled dice found, {det['missed']} missed, "
        f"{det['extra']} extra; IoU ≥ {IOU})",
    ]
    for attribute, score in result["attributes"].items():
        dice = "flat dice" if attribute == "value" and cocked["labelled"] else "dice"
        lines.append(
            f"{attribute:<12} {_pct(score['accuracy'])}  "
            f"({score['right']} of {score['scored']} matched {dice})"
        )
    for name, look in result["by_look"].items():
        lines.append(
            f"{name:<21}value {_pct(look['value'])} of {look['dice']} flat dice, "
            f"{look['flagged']} flagged, {look['silent_errors']} silent errors"
        )
    by_flag = ", ".join(f"{k} {v}" for k, v in sorted(flags["by_flag"].items())) or "none"
    lines += [
        f"whole photos {_pct(whole['share'])} entirely right ({whole['photos']} of "
        f"{result['photos']})",
        f"flags        {flags['flagged']} of {det['read']} read dice flagged "
        f"({_pct(flags['share_of_read'])}; {by_flag}); {flags['deserved']} deserved "
        f"(precision {_pct(flags['precision'])}); {flags['silent_errors']} silent errors",
        silent_line(flags),
        f"cocked       {cocked['labelled']} labelled, {cocked['found']} found, "
        f"{cocked['flagged']} flagged ({cocked['flagged_cocked']} as cocked)",
        f"latency      median {lat['median']:.1f} ms, p95 {lat['p95']:.1f} ms, max "
        f"{lat['max']:.1f} ms per photo (one thread; pin a core with taskset -c 0)",
    ]
    if result["unreadable"]:
        lines.append(f"unreadable   {len(result['unreadable'])}: {result['unreadable'][0]} ...")
    return lines


def evaluate_dataset(
    root: str | Path,
    *,
    out: Path | None = None,
    as_json: bool = False,
    limit: int | None = None,
    calibrated: bool = True,
    kind: str | None = None,
    model: Path | None = None,
    detector: Path | None = None,
    cocked: Path | None = None,
    field_of_view: float | None = None,
) -> int:
    """``yamscope evaluate``: read, print the table (or JSON), draw the confusions into
    ``out`` (default ``data/evaluate/<dataset name>/``). DatasetError for a folder that is
    not a dataset; ``model``, ``detector`` and ``cocked``: ONNX files to score instead of the
    shipped ones (a candidate before it ships); ``field_of_view``: see :func:`evaluate`."""
    dataset = open_dataset(root)
    tally, how = evaluate(
        dataset,
        kinds=(kind,) if kind else None,
        calibrated=calibrated,
        limit=limit,
        progress=not as_json,
        model=model,
        detector=detector,
        cocked=cocked,
        field_of_view=field_of_view,
    )
    out = out or OUT_ROOT / dataset.name
    result = how | tally.summary()
    result["confusions"] = [str(p) for p in draw_confusions(tally, out, dataset.name)]
    (out / "result.json").parent.mkdir(parents=True, exist_ok=True)
    (out / "result.json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    if as_json:
        print(json.dumps(result))
        return 0
    for line in report_lines(result):
        print(line)
    print(f"confusion matrices and result.json in {out}")
    return 0
