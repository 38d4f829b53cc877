"""A frame in, a :class:`~vision.reading.Reading` out: find the dice, read each one, and
flag what should not be trusted.

The learned detector (``models/dicefind.onnx``, :class:`vision.detect.DiceFinder`) gives the
boxes, with or without a calibration: it tells touching dice apart, which the classical
segmentation (:func:`vision.segment.segment`, still used to measure the die when
calibrating) could not. On a calibrated tray its boxes are then checked against the empty
tray's picture (:mod:`vision.on_tray`): a box on nothing new is no die, what differs and no
box covers is a die it missed (docs/real-photos.md has the numbers on a real tray).

Why flags: a die that is cocked, cut off, or read with low confidence (or whose pips the
classical count sees differently from the model) is kept in the reading with a flag, so the
page can ask the player, instead of being dropped or silently guessed.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from vision.calibration import Calibration
from vision.cocked import DEFAULT_COCKED_MODEL, CockedReader
from vision.colour import look
from vision.detect import Box, DiceFinder
from vision.empty_tray import LIGHT_RANGE, View
from vision.enrolment import BadEnrolmentError, Enrolment
from vision.errors import BadModelError
from vision.faces import DEFAULT_MODEL, FaceReader, Guess
from vision.felt import FeltModel
from vision.images import check_frame, halved
from vision.model_check import check_reader
from vision.numerals import DEFAULT_NUMERALS_MODEL, NumeralReader, numeral_looks
from vision.on_tray import (
    FAINT_FIND,
    TrayDice,
    centre_distance,
    nothing_new,
    on_tray,
    view_notes,
)
from vision.perspective import top_face_box
from vision.pips import count_pips
from vision.reading import NO_DIE, Flag, Kind, ReadDie, Reading, reading_order
from vision.segment import Blob, Segmentation, from_boxes
from vision.slanted import DEFAULT_SLANTED_MODEL, slanted_looks

log = logging.getLogger(__name__)

# Flag `unsure` below this confidence: a wrong reading costs more than a flag (the numbers:
# docs/lab-notes.md#unsure_below); in a photo taken at a slant, where the model reads less
# well, below the second.
UNSURE_BELOW = 0.6
SLANTED_UNSURE_BELOW = 0.7
D10_FILL = 0.88  # a d10 fills less of its rotated rectangle than this (a d6: ~0.97)
FACES = {"d6": 6, "d10": 10}
DIE_INPUT_PX = 24  # inside what the detector trained on (10-36 px; docs/lab-notes.md)
KINDS: tuple[Kind, ...] = ("d6", "d10")
# Flag `cocked` from this probability of the cocked-die model: an unflagged cocked die is
# scored from a face not on top, a flag costs a glance (docs/lab-notes.md#cocked_from).
COCKED_FROM = 0.5
# Without a calibration, a box the model finds on no die at least this surely is dropped:
# the detector's phantoms (docs/finding-dice.md). A calibrated tray has the empty tray's
# picture for that, and the players the count.
NO_DIE_FROM = 0.6
# ... and a box it finds on no die at least this surely is flagged `unsure`: most of the
# phantoms kept below NO_DIE_FROM, few dice (docs/lab-notes.md#no_die_doubt).
NO_DIE_DOUBT = 0.2
# Count a d6's pips only when the model is less sure than this: the count misses pips under
# glare, so asking it always adds needless flags (docs/lab-notes.md#pips_check_below).
PIPS_CHECK_BELOW = 0.95


@lru_cache(maxsize=2)
def default_reader(model: Path = DEFAULT_MODEL) -> FaceReader:
    """The shipped model, loaded once per process."""
    return FaceReader(model)


@lru_cache(maxsize=1)
def default_leaning() -> CockedReader:
    """The shipped cocked-die model, loaded once per process."""
    return CockedReader()


@lru_cache(maxsize=1)
def default_numerals() -> NumeralReader:
    """The shipped numeral model, loaded once per process."""
    return NumeralReader()


@lru_cache(maxsize=1)
def default_slanted() -> FaceReader:
    """The shipped reader of a slanted photo's d10, loaded once per process."""
    return FaceReader(DEFAULT_SLANTED_MODEL)


@lru_cache(maxsize=2)
def default_finder() -> DiceFinder:
    """The shipped detector, loaded once per process."""
    return DiceFinder()


def detector_side(tray: Calibration) -> int:
    """The detector's input size for a calibrated tray: a die about ``DIE_INPUT_PX`` across,
    so that touching dice give two peaks (docs/lab-notes.md#die_input_px)."""
    side = max(tray.size) * DIE_INPUT_PX / max(tray.die_side, 1.0)
    return int(np.clip(round(side / 32) * 32, 256, 512))


@dataclass(frozen=True)
class Found:
    """The dice of a frame and what finding them learned of the view: the tray's ``view``
    and the frame's ``small`` copy (calibrated trays with an empty picture), notes for the
    players, and ``distrust`` when every die should be checked (another tray, the light)."""

    segmentation: Segmentation
    notes: tuple[str, ...] = ()
    view: View | None = None
    small: np.ndarray | None = None
    distrust: bool = False


def find_dice(
    frame: np.ndarray,
    calibration: Calibration | None,
    finder: DiceFinder | None = None,
    view: View | None = None,
    expected: int | None = None,
) -> Found:
    """The dice of a checked BGR frame from the detector's boxes; on a calibrated tray only
    those whose centre lies on the felt or within half a die of it (a die cocked against
    the wall leans over the felt's edge), their masks cut by the calibration's felt, and,
    where the calibration keeps the empty tray's picture, checked against it
    (:mod:`vision.on_tray`). ``view``: where the tray was last seen (aligning starts there);
    ``expected``: how many dice were thrown, when the game knows."""
    finder = finder or default_finder()
    if calibration is None:
        # no empty tray to tell a die from a shadow: the mirror images help, and a box they
        # find less surely than one view's threshold asks is a doubt
        found = finder.find(frame, mirrored=True)
        found += finder.find_small(frame, found)
        marks = [(score < finder.threshold, False) for _, score in found]
        return Found(from_boxes(frame, [box for box, _ in found], marks=marks))
    height, width = frame.shape[:2]
    tray = calibration.for_size(width, height)
    side = detector_side(tray)
    if tray.empty is None:
        detected = finder.find(frame, side)
        boxes = [box for box, _ in detected if on_felt(box, tray.area, tray.die_side)]
        return Found(from_boxes(frame, boxes, tray.felt))
    # the detector's input and the empty tray's copy both start from the frame halved
    scale = side / max(width, height)
    small_w, small_h = tray.empty.image.shape[1::-1]
    needed = (max(round(width * scale), small_w), max(round(height * scale), small_h))
    coarse = halved(frame, needed)
    faint = min(FAINT_FIND, finder.threshold)  # what the empty tray may still show new
    detected = in_frame(finder.find(coarse, side, threshold=faint), coarse, (width, height))
    small = tray.empty.shrink(coarse)
    view = tray.empty.align(small, view)
    if not view.same_tray:  # no empty tray to vouch for a faint find
        boxes = [
            box
            for box, score in detected
            if score >= finder.threshold and on_felt(box, tray.area, tray.die_side)
        ]
        notes = tuple(view_notes(tray, view, None))
        return Found(from_boxes(frame, boxes, tray.felt), notes, view, small, distrust=True)
    outline = view.frame_points(tray.area, tray.empty.scale)
    detected = [(b, score) for b, score in detected if on_felt(b, outline, tray.die_side)]
    difference = tray.empty.difference(small, view, tray.felt)
    dice = on_tray(detected, tray, difference, expected, finder.threshold)
    if expected is not None and len(dice.boxes) < expected:
        # dice short: the frame read in its mirror images too, four times the detector's
        # work, paid only now (a die half on another may show the net a peak there)
        faint = min(FAINT_FIND, finder.mirrored_threshold)
        again = finder.find(coarse, side, mirrored=True, threshold=faint)
        again = in_frame(again, coarse, (width, height))
        again = [(b, score) for b, score in again if on_felt(b, outline, tray.die_side)]
        more = on_tray(again, tray, difference, expected, finder.mirrored_threshold)
        dice = more_of(dice, more, expected, tray.die_side)
    notes = view_notes(tray, view, difference)
    marks = [(i in dice.unsure, i in dice.occluded) for i in range(len(dice.boxes))]
    segmentation = from_boxes(
        frame, dice.boxes, tray.felt, marks, small, difference.lab, doubles_checked=True
    )
    lit = LIGHT_RANGE[0] <= difference.light <= LIGHT_RANGE[1]
    return Found(segmentation, (*notes, *dice.notes), view, small, distrust=not lit)


def more_of(first: TrayDice, second: TrayDice, expected: int, die_side: float) -> TrayDice:
    """The second reading when it accounts for more dice than the first, up to the number
    thrown, its dice that the first did not see flagged; else the first."""
    if not len(first.boxes) < len(second.boxes) <= expected:
        return first
    for j, box in enumerate(second.boxes):
        if all(centre_distance(box, seen) > die_side / 2 for seen in first.boxes):
            second.unsure.add(j)
    return second


def in_frame(
    detected: list[tuple[Box, float]], copy: np.ndarray, size: tuple[int, int]
) -> list[tuple[Box, float]]:
    """Boxes found in a shrunk ``copy`` of a frame, in the frame's pixels (``size``)."""
    fx, fy = size[0] / copy.shape[1], size[1] / copy.shape[0]
    return [((x0 * fx, y0 * fy, x1 * fx, y1 * fy), score) for (x0, y0, x1, y1), score in detected]


def on_felt(box: Box, outline: Sequence[tuple[float, float]], die_side: float) -> bool:
    """The box's centre lies on the felt or within half a die of it."""
    polygon = np.asarray(outline, np.float32).reshape(-1, 1, 2)
    centre = ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
    return cv2.pointPolygonTest(polygon, centre, True) >= -die_side / 2


def dice_seen(
    frame: np.ndarray, calibration: Calibration, finder: DiceFinder | None = None
) -> list[tuple[int, int, int, int]]:
    """The boxes the detector takes for dice in a photo of the tray, as (x0, y0, x1, y1)
    frame pixels, without the empty tray's picture to check them against. On the photo a
    calibration was made from, each is a die left in the tray (take it out and calibrate
    again) or a spot that looks like one (a screw, a glint), which is now part of the empty
    tray and never read as a die: the owner is told which."""
    found = find_dice(frame, replace(calibration, empty=None), finder).segmentation
    return [tuple(int(v) for v in blob.box) for blob in found.blobs]  # type: ignore[misc]


def classical_kind(mask: np.ndarray) -> tuple[Kind, float]:
    """d6 or d10 from the outline: a d6 seen from above is a square that fills its rotated
    rectangle; a d10's kite-shaped face and slanted sides make a pentagon or hexagon that
    leaves the rectangle's corners empty. Both signs are needed to say d10."""
    points = cv2.findNonZero(mask.astype(np.uint8))
    if points is None:
        return "d6", 0.5
    (_, _), (w, h), _ = cv2.minAreaRect(points)
    fill = float(mask.sum()) / max(w * h, 1.0)
    hull = cv2.convexHull(points)
    corners = len(cv2.approxPolyDP(hull, 0.04 * cv2.arcLength(hull, True), True))
    trust = 0.5 + 0.5 * min(1.0, abs(fill - D10_FILL) / 0.06)
    if fill >= D10_FILL:
        return "d6", trust
    if corners >= 5:
        return "d10", trust
    return "d6", 0.5  # empty corners but four of them: the signs disagree


@dataclass(frozen=True)
class Terms:
    """What a reading is held to: the attributes the game needs (``needed``), the kinds of
    dice in play, the classes of the model's value head, and whether the camera looks
    straight down on a calibrated tray (``overhead``).

    Only from overhead does a die seen slanted mean a cocked die: in a photo taken at an
    angle (no calibration) every die shows its sides, and the model's "cocked" head and the
    elongated-box rule called a quarter to a half of Rune55's flat dice cocked."""

    needed: tuple[str, ...]
    kinds: tuple[Kind, ...]
    values: tuple[int, ...]
    overhead: bool = True
    kind_classes: tuple[str, ...] = KINDS  # the model's kind head's classes in output order


def value_of(guess: Guess, kind: Kind, values: tuple[int, ...]) -> tuple[int, float]:
    """The best value a die of this kind can show and the model's probability for it (not
    raised by leaving the other values out: weight on an impossible value is doubt): a d6
    never reads 8. ``values``: the value head's classes in output order."""
    allowed = [i for i, v in enumerate(values) if v <= FACES[kind]]
    if not allowed:
        return int(guess.label), guess.probability
    best = max(allowed, key=lambda i: guess.probabilities[i])
    return int(values[best]), guess.probabilities[best]


def kind_of(guess: Guess, classes: tuple[str, ...]) -> tuple[Kind, float]:
    """The likelier kind of die and its probability (the kind head's "no die" class, where
    it has one, left out but not given away: weight on it is doubt)."""
    kinds = [i for i, c in enumerate(classes) if c in KINDS]
    best = max(kinds, key=lambda i: guess.probabilities[i])
    return classes[best], guess.probabilities[best]  # type: ignore[return-value]


def read_as_d10(
    guesses: dict[str, Guess], kinds: tuple[Kind, ...], classes: tuple[str, ...]
) -> bool:
    """Whether a die is a d10: the game's one kind, else the kind head's (no head: not)."""
    if len(kinds) == 1:
        return kinds[0] == "d10"
    return "kind" in guesses and kind_of(guesses["kind"], classes)[0] == "d10"


def no_die(guess: Guess | None, classes: tuple[str, ...]) -> float:
    """How sure the kind head is that the box holds no die (0 for a model without the class)."""
    if guess is None or NO_DIE not in classes:
        return 0.0
    return guess.probabilities[classes.index(NO_DIE)]


def read_die(
    crop: np.ndarray,
    mask: np.ndarray,
    pixels: np.ndarray,
    blob: Blob,
    felt: FeltModel,
    guesses: dict[str, Guess],
    terms: Terms,
    lean: float = 0.0,
) -> ReadDie:
    """One die from its box's pixels (BGR), its mask there, and its Lab ``pixels`` (for
    colour and finish, from the shrunk frame): the model's heads where it has them,
    classical estimates elsewhere; ``lean``: how likely the cocked-die model finds it
    cocked (read from overhead only). Flagged ``unsure`` when the least sure of the needed
    attributes is below ``UNSURE_BELOW`` (``SLANTED_UNSURE_BELOW`` in a photo taken at a
    slant), the value is one the kind cannot show or the kind
    has values the model cannot say (a d10 before the model reads d10), or the pip count
    disagrees with the model."""
    scores: dict[str, float] = {}
    if len(terms.kinds) == 1:
        kind: Kind = terms.kinds[0]
        scores["kind"] = 1.0
    elif "kind" in guesses:
        kind, scores["kind"] = kind_of(guesses["kind"], terms.kind_classes)
    else:
        kind, scores["kind"] = classical_kind(mask)
    value, scores["value"] = value_of(guesses["value"], kind, terms.values)
    seen = None
    if not ("colour" in guesses and "finish" in guesses):
        seen = look(pixels, felt)
    colour, scores["colour"] = (
        (guesses["colour"].label, guesses["colour"].probability)
        if "colour" in guesses
        else (seen.colour, seen.colour_confidence)
    )
    finish, scores["finish"] = (
        (guesses["finish"].label, guesses["finish"].probability)
        if "finish" in guesses
        else (seen.finish, seen.finish_confidence)
    )
    cocked = terms.overhead and (blob.cocked or lean >= COCKED_FROM)
    flags: list[Flag] = [f for f, on in (("cocked", cocked), ("occluded", blob.occluded)) if on]
    unreadable = value > FACES[kind] or max(terms.values) < FACES[kind]
    disagree = False
    if kind == "d6" and scores["value"] < PIPS_CHECK_BELOW:
        pips = count_pips(cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY), mask)
        disagree = pips is not None and pips != value
    confidence = min(scores[k] for k in terms.needed)
    below = UNSURE_BELOW if terms.overhead else SLANTED_UNSURE_BELOW
    if unreadable or disagree or confidence < below:
        flags.append("unsure")
    return ReadDie(kind, value, colour, finish, confidence, blob.box, tuple(flags), scores)


def recognise(
    frame: np.ndarray,
    calibration: Calibration | None = None,
    reader: FaceReader | None = None,
    coloured: bool = False,
    kinds: tuple[Kind, ...] = KINDS,
    finder: DiceFinder | None = None,
    leaning: CockedReader | None = None,
    expected: int | None = None,
    numerals: NumeralReader | None = None,
    slanted: FaceReader | None = None,
) -> Reading:
    """Every die in a BGR (or grey) frame, in reading order, each with its flags.

    ``coloured``: the game scores colour and finish (Yams impossible), so a die is only as
    sure as its least sure of kind, value, colour and finish; otherwise kind and value.
    ``kinds``: the kinds of dice in play; a game of one kind (ten d10, five d6) tells the
    kind of every die, which no model or outline then needs to guess. ``finder``: the
    detector used without a calibration (default: the shipped one, loaded once).
    ``leaning``: the cocked-die model, asked only with a calibration, when the camera looks
    straight down (default: the shipped one, loaded once). The calibration's field of view
    tells it, and the face reading, how slanted the camera sees each die: the face model
    reads the top face's part of the box (vision/perspective.py). ``expected``: how many
    dice were thrown, when the game knows (a calibrated tray then accounts for a count
    that is off). ``numerals``: the numeral model that reads a doubtful d10 again;
    ``slanted``: the model that reads the d10 of a photo without a calibration again
    (vision/slanted.py); each by default the shipped one, loaded once."""
    began = time.perf_counter()
    frame = check_frame(frame)
    found = find_dice(frame, calibration, finder, expected=expected)
    if numerals is None:
        numerals = default_numerals()
    if slanted is None:
        slanted = default_slanted()
    return read_found(
        frame, found, calibration, reader, coloured, kinds, leaning, began, numerals, slanted
    )


def read_found(
    frame: np.ndarray,
    found: Found,
    calibration: Calibration | None,
    reader: FaceReader | None,
    coloured: bool,
    kinds: tuple[Kind, ...],
    leaning: CockedReader | None,
    began: float,
    numerals: NumeralReader | None = None,
    slanted: FaceReader | None = None,
) -> Reading:
    """The reading of the dice ``found`` in a frame (see :func:`recognise`); ``numerals``:
    the numeral model that reads a doubtful d10 again, ``slanted`` the one that reads a
    slanted photo's d10 again (None: not asked)."""
    reader = reader or default_reader()
    segmentation = found.segmentation
    boxes = [b.box for b in segmentation.blobs]
    faces = (
        [top_face_box(frame.shape, b, calibration.focal) for b in boxes]
        if calibration is not None
        else boxes  # a photo at an angle: no axis to reckon from
    )
    # a game of one kind tells which dice the second look may mirror; else the kind head does
    d6 = np.full(len(faces), kinds[0] == "d6") if len(kinds) == 1 else None
    guesses = reader.read(frame, faces, overhead=calibration is not None, d6=d6)
    # not on the overhead tray, in a game of d6 or for a table's own dice: vision/slanted.py
    closer = slanted if reader.enrolment is None and kinds != ("d6",) else None
    if calibration is None and closer is not None:
        guesses = slanted_looks(closer, frame, faces, guesses, kinds == ("d10",))
    needed = ("kind", "value", "colour", "finish") if coloured else ("kind", "value")
    values = tuple(int(v) for v in reader.classes("value"))
    kind_classes = (
        tuple(str(c) for c in reader.classes("kind")) if "kind" in reader.attributes else KINDS
    )
    disputed: set[int] = set()  # dice whose numeral and die-face model were at odds
    if numerals is not None:
        d10 = np.array([read_as_d10(g, kinds, kind_classes) for g in guesses], bool)
        guesses, disputed = numeral_looks(numerals, frame, faces, guesses, d10, values)
    terms = Terms(needed, kinds, values, calibration is not None, kind_classes)
    leans = (
        (leaning or default_leaning()).probabilities(frame, boxes, calibration.focal)
        if calibration is not None
        else np.zeros(len(boxes))
    )
    # a calibrated tray's empty picture and count say what is a die (docs/finding-dice.md)
    phantom = [
        0.0 if calibration is not None else no_die(g.get("kind"), kind_classes) for g in guesses
    ]
    kept = [i for i in range(len(guesses)) if phantom[i] < NO_DIE_FROM]
    dice = []
    for i in kept:
        blob, heads = segmentation.blobs[i], guesses[i]
        x0, y0, x1, y1 = blob.box
        mask = segmentation.labels[y0:y1, x0:x1] == i + 1
        crop = frame[y0:y1, x0:x1]
        pixels = segmentation.work_pixels(i)
        die = read_die(crop, mask, pixels, blob, segmentation.felt, heads, terms, float(leans[i]))
        doubted = found.distrust or blob.unsure or i in disputed or phantom[i] >= NO_DIE_DOUBT
        dice.append(flagged(die) if doubted else die)
    ordered = tuple(dice[i] for i in reading_order([boxes[i] for i in kept]))
    height, width = frame.shape[:2]
    ms = (time.perf_counter() - began) * 1000
    return Reading(ordered, ms, (width, height), found.notes)


def flagged(die: ReadDie) -> ReadDie:
    """The die marked ``unsure`` (once)."""
    return die if "unsure" in die.flags else replace(die, flags=(*die.flags, "unsure"))


class Recogniser:
    """The appliance's reader: the face model and the detector loaded once (a missing or
    corrupt one raises BadModelError at start-up), the table's calibration, whether the
    game scores colours, which kinds of dice it uses and how many were thrown, and the
    table's own dice (an enrolment, vision/enrolment.py); call it with each still frame.

    It follows the tray: where it was last seen (aligning on the next frame starts there),
    and, on a calibrated tray seen empty, the empty picture is refreshed from that frame
    (the light drifts through an evening)."""

    def __init__(
        self,
        calibration: Calibration | None = None,
        model: str | Path = DEFAULT_MODEL,
        coloured: bool = False,
        kinds: tuple[Kind, ...] = KINDS,
        threads: int = 1,
        finder_model: str | Path | None = None,
        cocked_model: str | Path = DEFAULT_COCKED_MODEL,
        enrolment: Enrolment | None = None,
        numerals_model: str | Path | None = DEFAULT_NUMERALS_MODEL,
        slanted_model: str | Path | None = DEFAULT_SLANTED_MODEL,
    ) -> None:
        self.reader = FaceReader(model, threads=threads)
        self.finder = DiceFinder(finder_model, threads=threads)
        self.leaning = CockedReader(cocked_model, threads=threads)
        self.enrol(enrolment)
        # None: no second look at a doubtful d10's numeral (to measure what it brings)
        self.numerals = (
            NumeralReader(numerals_model, threads=threads) if numerals_model is not None else None
        )
        # None: no closer look at a slanted photo's d10 (to measure what it brings)
        self.slanted = (
            FaceReader(slanted_model, threads=threads) if slanted_model is not None else None
        )
        self.calibration = calibration
        self.coloured = coloured
        self.kinds = kinds
        self.expected: int | None = None  # dice thrown, when the game knows
        # why every die is flagged unsure (see check_model); None: read as usual
        self.distrust: str | None = None

    def enrol(self, enrolment: Enrolment | None) -> None:
        """Read with the table's own dice (None: the models' own heads): its value head, and
        its cocked-die head where it has one fitted on this cocked-die model (one fitted on
        another is left aside, said in the log). BadEnrolmentError as FaceReader.enrol and
        CockedReader.enrol, and then neither head is changed."""
        lean = enrolment.lean if enrolment is not None else None
        if lean is not None and lean.model_digest != self.leaning.digest:
            log.warning(
                "the enrolment's cocked-die head was fitted on model %s of another file: "
                "the model's own reads which dice are cocked (enrol again to fit it)",
                lean.model_version,
            )
            lean = None
        kept = self.leaning.table
        self.leaning.enrol(lean.head if lean is not None else None)
        try:
            self.reader.enrol(enrolment)
        except BadEnrolmentError:
            self.leaning.enrol(kept)
            raise

    @property
    def calibration(self) -> Calibration | None:
        return self._calibration

    @calibration.setter
    def calibration(self, calibration: Calibration | None) -> None:
        self._calibration = calibration
        self.view: View | None = None  # a new calibration is aligned afresh

    def check_model(self) -> str | None:
        """Read the die-face models' check crops (vision/model_check.py), as the appliance
        does once at start-up. Where a model computes otherwise, or its check crops are
        missing, every die from then on is flagged ``unsure`` and the reason kept in
        ``distrust``: a wrong reading costs a player points, a flagged one a tap."""
        self.distrust = None
        for reader in [r for r in (self.reader, self.slanted) if r is not None]:
            try:
                result = check_reader(reader)
            except BadModelError as exc:
                self.distrust = str(exc)
            else:
                self.distrust = None if result.ok else result.line()
            if self.distrust is not None:
                break
        return self.distrust

    def __call__(self, frame: np.ndarray) -> Reading:
        began = time.perf_counter()
        frame = check_frame(frame)
        found = find_dice(frame, self.calibration, self.finder, self.view, self.expected)
        if found.view is not None and found.view.same_tray:
            self.view = found.view
        if not found.segmentation.blobs:
            self._refresh(found)
        reading = read_found(
            frame,
            found,
            self.calibration,
            self.reader,
            self.coloured,
            self.kinds,
            self.leaning,
            began,
            self.numerals,
            self.slanted,
        )
        if self.distrust is None:
            return reading
        return replace(reading, dice=tuple(flagged(d) for d in reading.dice))

    def look_at_empty(self, frame: np.ndarray) -> tuple[str, ...] | None:
        """A frame of the tray at rest between throws: where it is seen as calibrated, in
        the calibration's light and with nothing new on it, it is blended into the empty
        picture. Returns what the players should know of the view (a moved camera, another
        tray, the light), or None on a tray calibrated without an empty picture."""
        calibration = self.calibration
        if calibration is None or calibration.empty is None:
            return None
        frame = check_frame(frame)
        tray = calibration.for_size(frame.shape[1], frame.shape[0])
        assert tray.empty is not None
        small = tray.empty.shrink(frame)
        view = tray.empty.align(small, self.view)
        if not view.same_tray:
            return tuple(view_notes(tray, view, None))
        self.view = view
        difference = tray.empty.difference(small, view, tray.felt)
        notes = tuple(view_notes(tray, view, difference))
        lit = LIGHT_RANGE[0] <= difference.light <= LIGHT_RANGE[1]
        if lit and nothing_new(difference, tray.die_side):
            image = calibration.empty.refreshed(small, view).image
            self._calibration = calibration.with_empty(image)
        return notes

    def _refresh(self, found: Found) -> None:
        """An empty tray, seen as calibrated and in the calibration's light: blended into
        the empty picture."""
        calibration = self.calibration
        if calibration is None or calibration.empty is None or found.small is None:
            return
        if found.distrust or found.view is None or not found.view.same_tray:
            return
        image = calibration.empty.refreshed(found.small, found.view).image
        self._calibration = calibration.with_empty(image)
