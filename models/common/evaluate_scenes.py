"""Score the whole reading pipeline (segmentation, model, classical checks, flags) on labelled
photos, one photo at a time on one thread, as the Pi reads a throw.

Why whole photos and not crops: ``yamscope evaluate-crops`` says how well the model reads a
die it is handed; players see what ``recognise`` makes of a tray: dice missed or made up,
dice found twice, a wrong value that nothing flagged. A read die matches a labelled one when
its box's centre lies in the labelled box or the labelled centre in its box, one to one,
nearest centres first (IoU 0.5 fails whenever one side boxes the top face and the other the
whole die with its sides; it is reported beside). A labelled die of a kind yamscope does not
play (a d8) takes part in the matching, and a box read on it is neither right nor extra.
Then:

- detection: precision (read dice that are labelled dice) and recall (labelled dice read),
  overall and for the dice of ``LARGE_PX`` and more; dice found twice; the photos where every
  die was found once and nothing else;
- attributes on matched dice: the value always, kind, colour and finish where labelled; a
  die labelled cocked shows no top face (the rules have it thrown again), so its value is
  not scored: the right answer for it is a flag;
- a photo is entirely right when every labelled die is found, nothing else is, every scored
  attribute is right and no die is flagged, except cocked ones, which must be;
- flags: a flag is deserved by a die made up, misread or cocked; the share of flags that
  were deserved, and the silent errors (deserved, not flagged), which cost players points,
  by cause: a second box on a die already found, a box on no die, a wrong value, a wrong
  kind, colour or finish, a cocked die not flagged;
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
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from models.common.datasets import Dataset, LabelledPhoto, TrueDie, open_dataset
from models.common.matching import IOU, iou, long_side, match, match_iou, same_die
from models.common.mistakes import write_mistakes
from models.common.report import draw_confusions, report_lines
from models.dieface.evaluate import confusion
from vision.calibration import (
    DEFAULT_FIELD_OF_VIEW,
    Calibration,
    calibrate,
    check_field_of_view,
)
from vision.enrolment import load as load_enrolment
from vision.errors import VisionError
from vision.images import load_image
from vision.model_check import check_words
from vision.reading import ReadDie, Reading
from vision.recognise import Recogniser

LARGE_PX = 30  # "dice of 30 px and more": the labelled box's longer side
SILENT_CAUSES = ("found twice", "no die", "value", "kind/colour/finish", "cocked die")
OUT_ROOT = Path(__file__).resolve().parents[2] / "data" / "evaluate"
CLASSES: dict[str, tuple[Any, ...]] = {
    "kind": ("d6", "d10"),
    "colour": ("red", "white", "other"),
    "finish": ("frosted", "transparent"),
}
ATTRIBUTES = ("kind", "value", "colour", "finish")


@dataclass(frozen=True)
class Mistake:
    """A die read wrong or made up (a flag was its due), or a labelled die missed: what
    ``mistakes.csv`` lists and ``silent.png`` shows, to see why and to find label errors."""

    photo: int  # the photo's index in the dataset
    box: tuple[float, float, float, float]  # the box read (the labelled one when missed)
    labelled: str  # e.g. "d6 5", "d10 7 red frosted"; "" when no die is there
    read: str  # "" when missed
    cause: str  # one of SILENT_CAUSES, or "missed"
    flagged: bool


def said(die: TrueDie | ReadDie) -> str:
    """A die's kind, value and (where known) look, in one string."""
    looks = [v for v in (die.colour, die.finish) if v is not None]
    cocked = ["cocked"] if isinstance(die, TrueDie) and die.cocked else []
    flags = list(die.flags) if isinstance(die, ReadDie) else []
    return " ".join(str(v) for v in (die.kind, die.value, *looks, *cocked, *flags) if v)


@dataclass
class LookTally:
    """The flat dice of one colour and finish, or of one kind."""

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


def scored(truth: TrueDie) -> tuple[str, ...]:
    """The attributes a labelled die is scored on (its value only when it lies flat)."""
    return tuple(
        a
        for a in ATTRIBUTES
        if (a == "value" and not truth.cocked) or (a != "value" and getattr(truth, a) is not None)
    )


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
    matched_iou: int = 0
    found_twice: int = 0  # labelled dice with more than one box on them
    found_once_photos: int = 0  # every die found once and nothing else
    ignored_labels: int = 0  # labelled dice of a kind not played (d8): not scored
    ignored_reads: int = 0  # boxes read on them
    large: Counter[str] = field(default_factory=Counter)  # dice of LARGE_PX and more
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
    kinds: dict[str, LookTally] = field(default_factory=dict)  # "d10": ...
    silent_causes: Counter[str] = field(default_factory=Counter)
    mistakes: list[Mistake] = field(default_factory=list)

    def add(self, labelled: Sequence[TrueDie], reading: Reading, photo: int = -1) -> None:
        """One photo's labelled dice and what was read in it (``photo``: its index in the
        dataset, for the list of mistakes)."""
        self.photos += 1
        self.ms.append(reading.ms)
        self.sizes[f"{reading.size[0]}x{reading.size[1]}"] += 1
        truth, read = self._scored(labelled, reading.dice)
        self.true_dice += len(truth)
        self.read_dice += len(read)
        pairs = match([t.box for t in truth], [d.box for d in read])
        self.matched += len(pairs)
        self.matched_iou += len(match_iou([t.box for t in truth], [d.box for d in read]))
        causes = self._unmatched_causes(truth, read, pairs)
        self._count_large(truth, read, pairs)
        found_once = len(pairs) == len(truth) == len(read)
        self.found_once_photos += found_once
        right_photo = found_once
        deserved = [True] * len(read)  # a die made up or found twice deserves its flag
        for i, j in pairs:
            ok = self._compare(truth[i], read[j])
            deserved[j] = truth[i].cocked or not ok
            causes[j] = misread(truth[i], read[j])
            flagged = read[j].flagged
            right_photo &= flagged if truth[i].cocked else ok and not flagged
            self._count_look(truth[i], read[j], ok)
        for die, due, cause in zip(read, deserved, causes, strict=True):
            self.flagged += die.flagged
            self.deserved_flags += die.flagged and due
            silent = due and not die.flagged
            self.silent_errors += silent
            self.silent_causes[cause] += silent
            self.by_flag.update(die.flags)
        self.entirely_right += right_photo
        self._count_cocked(truth, read, pairs)
        self._note_mistakes(truth, read, pairs, deserved, causes, photo)

    def _note_mistakes(
        self,
        truth: Sequence[TrueDie],
        read: Sequence[ReadDie],
        pairs: list[tuple[int, int]],
        deserved: Sequence[bool],
        causes: Sequence[str],
        photo: int,
    ) -> None:
        """Keep each read die that deserved a flag, and each labelled die missed."""
        label_of = {j: i for i, j in pairs}
        for j, die in enumerate(read):
            if deserved[j]:
                on = said(truth[label_of[j]]) if j in label_of else ""
                self.mistakes.append(Mistake(photo, die.box, on, said(die), causes[j], die.flagged))
        missed = sorted(set(range(len(truth))) - set(label_of.values()))
        self.mistakes += [
            Mistake(photo, truth[i].box, said(truth[i]), "", "missed", False) for i in missed
        ]

    def _scored(
        self, labelled: Sequence[TrueDie], read: Sequence[ReadDie]
    ) -> tuple[list[TrueDie], list[ReadDie]]:
        """The labelled dice of a kind played and the boxes not read on another kind: the
        centre rule runs over every label, and a box it gives to a d8 is left out."""
        on_other = {
            j for i, j in match([t.box for t in labelled], [d.box for d in read])
            if labelled[i].ignored
        }  # fmt: skip
        self.ignored_labels += sum(t.ignored for t in labelled)
        self.ignored_reads += len(on_other)
        truth = [t for t in labelled if not t.ignored]
        return truth, [d for j, d in enumerate(read) if j not in on_other]

    def _unmatched_causes(
        self, truth: Sequence[TrueDie], read: Sequence[ReadDie], pairs: list[tuple[int, int]]
    ) -> list[str]:
        """For each read box that matches no label: ``found twice`` when the centre rule
        puts it on a die another box was matched to, else ``no die``; counts the dice found
        twice."""
        matched = {j for _, j in pairs}
        twice: set[int] = set()
        causes = []
        for j, die in enumerate(read):
            on = [i for i, t in enumerate(truth) if same_die(t.box, die.box)]
            if j not in matched and on:
                twice.add(max(on, key=lambda i: iou(truth[i].box, die.box)))
            causes.append("found twice" if on else "no die")
        self.found_twice += len(twice)
        return causes

    def _count_large(
        self, truth: Sequence[TrueDie], read: Sequence[ReadDie], pairs: list[tuple[int, int]]
    ) -> None:
        """Precision, recall and values over the dice of ``LARGE_PX`` and more: a matched
        box counts by its label's size, an extra one by its own."""
        size_of = {j: long_side(truth[i].box) for i, j in pairs}
        self.large["labelled"] += sum(long_side(t.box) >= LARGE_PX for t in truth)
        self.large["matched"] += sum(size_of[j] >= LARGE_PX for _, j in pairs)
        self.large["read"] += sum(
            size_of.get(j, long_side(d.box)) >= LARGE_PX for j, d in enumerate(read)
        )
        valued = [(truth[i], read[j]) for i, j in pairs if size_of[j] >= LARGE_PX]
        valued = [(t, d) for t, d in valued if "value" in scored(t)]
        self.large["value_scored"] += len(valued)
        self.large["value_right"] += sum(t.value == d.value for t, d in valued)

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
        if truth.cocked:
            return
        tallies = []
        if truth.colour is not None and truth.finish is not None:
            tallies.append(self.looks.setdefault(f"{truth.colour} {truth.finish}", LookTally()))
        if truth.kind is not None:
            tallies.append(self.kinds.setdefault(truth.kind, LookTally()))
        for tally in tallies:
            tally.dice += 1
            tally.value_right += read.value == truth.value
            tally.flagged += read.flagged
            tally.silent_errors += not ok and not read.flagged

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
                "rule": "centres",
                "labelled": self.true_dice,
                "read": self.read_dice,
                "matched": self.matched,
                "missed": missed,
                "extra": extra,
                "precision": ratio(self.matched, self.read_dice),
                "recall": ratio(self.matched, self.true_dice),
                "found_twice": self.found_twice,
                "found_once_photos": {
                    "photos": self.found_once_photos,
                    "share": ratio(self.found_once_photos, self.photos),
                },
                "iou": {
                    "threshold": IOU,
                    "matched": self.matched_iou,
                    "precision": ratio(self.matched_iou, self.read_dice),
                    "recall": ratio(self.matched_iou, self.true_dice),
                },
                "large": {
                    "min_px": LARGE_PX,
                    "labelled": self.large["labelled"],
                    "read": self.large["read"],
                    "matched": self.large["matched"],
                    "precision": ratio(self.large["matched"], self.large["read"]),
                    "recall": ratio(self.large["matched"], self.large["labelled"]),
                },
                "ignored": {"labelled": self.ignored_labels, "read_on_them": self.ignored_reads},
            },
            "attributes": {
                a: {
                    "accuracy": ratio(self.right[a], self.compared[a]),
                    "right": self.right[a],
                    "scored": self.compared[a],
                }
                | (self._large_values() if a == "value" else {})
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
                "silent_share_of_found": ratio(self.silent_errors, self.matched),
                "silent_by_cause": {c: self.silent_causes[c] for c in SILENT_CAUSES},
                "by_flag": dict(self.by_flag),
            },
            "by_look": {name: self.looks[name].summary() for name in sorted(self.looks)},
            "by_kind": {name: self.kinds[name].summary() for name in sorted(self.kinds)},
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

    def _large_values(self) -> dict[str, Any]:
        """The values read right on the matched dice of ``LARGE_PX`` and more."""
        right, scored_ = self.large["value_right"], self.large["value_scored"]
        return {
            "large": {
                "min_px": LARGE_PX,
                "right": right,
                "scored": scored_,
                "accuracy": ratio(right, scored_),
            }
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


def resized(photo: LabelledPhoto, size: tuple[int, int]) -> LabelledPhoto:
    """The photo scaled to ``size`` (width, height), its labelled boxes with it."""
    height, width = photo.image.shape[:2]
    sx, sy = size[0] / width, size[1] / height
    image = cv2.resize(photo.image, size, interpolation=cv2.INTER_CUBIC)
    dice = tuple(
        replace(d, box=(d.box[0] * sx, d.box[1] * sy, d.box[2] * sx, d.box[3] * sy))
        for d in photo.dice
    )
    return replace(photo, image=image, dice=dice)


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
    calibration: Calibration | None = None,
    resize: tuple[int, int] | None = None,
    enrolment: Path | None = None,
    dice: int | None = None,
    numerals: bool = True,
    slanted: Path | None = None,
    slanted_look: bool = True,
) -> tuple[Tally, dict[str, Any]]:
    """Read every photo of ``dataset`` (the first ``limit``) and tally the result; also
    returns how it was read (model, kinds, calibration). ``kinds``: the kinds of dice in
    play (default: the dataset's); synthetic sets are calibrated unless ``calibrated`` is
    False. ``model``, ``detector``, ``cocked``: ONNX files read instead of the shipped ones,
    when no ``recogniser`` is given. ``field_of_view``: the calibrations are told this
    instead of the camera's in the labels (to measure a wrong setting). ``calibration``:
    every photo is read with this one (real photos of one calibrated tray). ``resize``:
    each photo and its labels are first scaled to this (width, height), as a camera of
    another resolution would see them. ``enrolment``: the table's own value head to read
    with (vision/enrolment.py; BadEnrolmentError when it cannot be). ``dice``: every photo
    holds this many, as a game's rulebook tells the appliance (a calibrated tray then
    accounts for a count that is off). ``numerals``: the reading looks again at a
    doubtful d10's numeral (vision/numerals.py; False: to measure without).
    ``slanted``: the model that reads a slanted photo's d10 again (vision/slanted.py)
    instead of the shipped one; ``slanted_look`` False: no such look, to measure without.
    OpenCV runs on one thread meanwhile, as the model does.

    Long: one loop over the photos, tallying every measure the report prints."""
    from tqdm import tqdm

    if field_of_view is not None:
        check_field_of_view(field_of_view)  # else every calibration fails, and silently
    kinds = tuple(kinds or dataset.kinds)
    synthetic = dataset.format == "synthetic"
    if recogniser is None:
        chosen: dict[str, Any] = {"model": model} if model is not None else {}
        if cocked is not None:
            chosen["cocked_model"] = cocked
        if not numerals:
            chosen["numerals_model"] = None
        if slanted is not None:
            chosen["slanted_model"] = slanted
        if not slanted_look:
            chosen["slanted_model"] = None
        recogniser = Recogniser(
            coloured=synthetic,
            kinds=kinds,  # type: ignore[arg-type]
            finder_model=detector,
            **chosen,
        )
        if enrolment is not None:
            recogniser.enrol(load_enrolment(enrolment, recogniser.reader.path))
    recogniser.expected = dice
    calibrate_each = calibrated and synthetic and calibration is None
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
            if resize is not None:
                photo = resized(photo, resize)
            recogniser.calibration = calibration
            if calibrate_each:
                try:
                    recogniser.calibration = tray_calibration(photo, index, field_of_view)
                except VisionError:
                    failed_calibrations += 1  # read as an uncalibrated appliance would
            tally.add(photo.dice, recogniser(photo.image), index)
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
        "numerals": None
        if recogniser.numerals is None
        else {"path": str(recogniser.numerals.path), "version": recogniser.numerals.card.version},
        "slanted": None
        if recogniser.slanted is None
        else {"path": str(recogniser.slanted.path), "version": recogniser.slanted.card.version},
        "kinds": list(kinds),
        "calibrated": calibrate_each,
        "calibration": None if calibration is None else "given",
        "resized": None if resize is None else f"{resize[0]}x{resize[1]}",
        "enrolment": None if enrolment is None else str(enrolment),
        "dice_thrown": dice,
        "field_of_view": "the labels'" if field_of_view is None else field_of_view,
        "calibration_failed": failed_calibrations,
    }
    return tally, how


def evaluate_dataset(
    root: str | Path,
    *,
    out: Path | None = None,
    as_json: bool = False,
    labels: Path | None = None,
    kind: str | None = None,
    **options: Any,
) -> int:
    """``yamscope evaluate``: read, print the table (or JSON), draw the confusions into
    ``out`` (default ``data/evaluate/<dataset name>/``). DatasetError for a folder that is
    not a dataset; ``labels``: the photos' label folder when it is not ``root/labels``;
    ``kind``: every die is of this kind; the other ``options`` are :func:`evaluate`'s."""
    dataset = open_dataset(root, labels)
    tally, how = evaluate(dataset, kinds=(kind,) if kind else None, progress=not as_json, **options)
    out = out or OUT_ROOT / dataset.name
    result = how | tally.summary()
    result["confusions"] = [str(p) for p in draw_confusions(tally, out, dataset.name)]
    size = options.get("resize")

    def pixels(index: int) -> np.ndarray:
        photo = dataset.load(index)
        return (resized(photo, size) if size is not None else photo).image

    names = [p.name for p in dataset.photos]
    result["mistakes"] = [str(p) for p in write_mistakes(tally.mistakes, out, names, pixels)]
    (out / "result.json").parent.mkdir(parents=True, exist_ok=True)
    (out / "result.json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    if as_json:
        print(json.dumps(result))
        return 0
    for line in report_lines(result):
        print(line)
    print(f"confusion matrices, result.json and the mistakes (mistakes.csv, silent.png) in {out}")
    return 0
