"""Where the time of reading one still frame goes, stage by stage, for ``yamscope bench``.

Why stage by stage: the Pi has one core to spare for reading a throw, and a total alone does
not say which part to make cheaper. Each stage is timed on its own, on the same frame and
with the same inputs ``recognise`` gives it, with OpenCV and the model on one thread.
Stages ``recognise`` does not run on this frame (the pip count is for d6; colour and finish
come from the model when it has those heads) are reported as such, not timed.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import cv2
import numpy as np

from vision.calibration import Calibration
from vision.colour import look
from vision.faces import FaceReader
from vision.numerals import doubtful_d10
from vision.pips import count_pips
from vision.reading import Kind
from vision.recognise import (
    default_finder,
    default_leaning,
    default_numerals,
    default_reader,
    default_slanted,
    detector_side,
    find_dice,
    recognise,
)
from vision.settle import settle_benchmark

REPEATS = 30
RECOGNISE_TARGET_MS = 50.0  # ten dice at 1280x960 on one core
FIND_TARGET_MS = 15.0  # finding them on a calibrated tray
SETTLE_TARGET_MS = 3.0  # per 320x240 frame


@dataclass(frozen=True)
class Timing:
    """One stage's milliseconds (None when not run, ``note`` says why)."""

    stage: str
    median: float | None
    p95: float | None
    note: str = ""


def timed(work: Callable[[], object], repeats: int) -> tuple[float, float]:
    """Median and 95th percentile of ``work``'s milliseconds, after one warm-up run."""
    work()
    times = []
    for _ in range(repeats):
        began = time.perf_counter()
        work()
        times.append((time.perf_counter() - began) * 1000)
    return float(np.median(times)), float(np.percentile(times, 95))


def stage_timings(
    frame: np.ndarray,
    calibration: Calibration | None = None,
    *,
    reader: FaceReader | None = None,
    kinds: tuple[Kind, ...] = ("d6", "d10"),
    coloured: bool = False,
    repeats: int = REPEATS,
) -> tuple[list[Timing], int]:
    """Each stage of reading ``frame``, and the number of dice found in it."""
    reader = reader or default_reader()
    finder = default_finder()
    height, width = frame.shape[:2]
    tray = calibration.for_size(width, height) if calibration else None
    side = detector_side(tray) if tray else None
    first = find_dice(frame, calibration, finder)
    found, view = first.segmentation, first.view  # the appliance aligns from the last view
    boxes = [b.box for b in found.blobs]
    mirrored = tray is None  # a photo without calibration is read in its mirror images too
    out = [Timing("detector", *timed(lambda: finder.find(frame, side, mirrored), repeats))]
    if tray is not None and tray.empty is not None:
        empty = tray.empty

        def compare() -> None:
            small = empty.shrink(frame)
            empty.difference(small, empty.align(small, view), tray.felt)

        out.append(Timing("empty tray (align + compare)", *timed(compare, repeats)))
    out.append(
        Timing(
            "finding dice (all)",
            *timed(lambda: find_dice(frame, calibration, finder, view), repeats),
        )
    )
    out.append(
        Timing("face reading (crops + model)", *timed(lambda: reader.read(frame, boxes), repeats))
    )
    if calibration is not None:
        leaning, focal = default_leaning(), calibration.focal
        out.append(
            Timing(
                "cocked die (crops + model)",
                *timed(lambda: leaning.probabilities(frame, boxes, focal), repeats),
            )
        )
    else:
        out.append(Timing("cocked die", None, None, "overhead only: not run uncalibrated"))
    out.append(numeral_timing(frame, boxes, calibration, reader, kinds, repeats))
    out.append(slanted_timing(frame, boxes, calibration, kinds, repeats))
    if {"colour", "finish"} <= reader.attributes:
        out.append(Timing("colour/finish", None, None, "the model's heads, in face reading"))
    else:

        def colours() -> None:
            for i in range(len(boxes)):
                look(found.work_pixels(i), found.felt)

        out.append(Timing("colour/finish (classical)", *timed(colours, repeats)))
    if "d6" in kinds:

        def pips() -> None:
            for i, (x0, y0, x1, y1) in enumerate(boxes):
                grey = cv2.cvtColor(frame[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY)
                count_pips(grey, found.labels[y0:y1, x0:x1] == i + 1)

        out.append(Timing("pip cross-check", *timed(pips, repeats)))
    else:
        out.append(Timing("pip cross-check", None, None, "d6 only: not run on d10"))
    whole = timed(lambda: recognise(frame, calibration, reader, coloured, kinds, finder), repeats)
    out.append(Timing("recognise (whole)", *whole))
    return out, len(boxes)


def numeral_timing(
    frame: np.ndarray,
    boxes: list,
    calibration: Calibration | None,
    reader: FaceReader,
    kinds: tuple[Kind, ...],
    repeats: int,
) -> Timing:
    """The second look at one doubtful d10's numeral, and how many dice of this frame the
    die-face model leaves doubtful (the look is paid once for each of them)."""
    if "d10" not in kinds or not boxes:
        return Timing("numeral look", None, None, "d10 only: not run here")
    numerals = default_numerals()
    values = tuple(int(v) for v in reader.classes("value"))
    guesses = reader.read(frame, boxes, overhead=calibration is not None)
    doubtful = int(doubtful_d10(guesses, np.ones(len(boxes), bool), values).sum())
    return Timing(
        "numeral look (a doubtful d10)",
        *timed(lambda: numerals.digits(frame, boxes[:1]), min(repeats, 10)),
        f"{doubtful} of {len(boxes)} dice doubtful in this frame",
    )


def slanted_timing(
    frame: np.ndarray,
    boxes: list,
    calibration: Calibration | None,
    kinds: tuple[Kind, ...],
    repeats: int,
) -> Timing:
    """The closer look at a slanted photo's d10 (vision/slanted.py): every die of the frame
    read again at 96 px, paid only without a calibration in a game with d10."""
    if calibration is not None or kinds == ("d6",) or not boxes:
        return Timing("slanted d10 look", None, None, "photos without a calibration, with d10")
    closer = default_slanted()
    return Timing(
        "slanted d10 look (crops + model)",
        *timed(lambda: closer.read(frame, boxes, overhead=False), repeats),
    )


def bench_frame(
    title: str,
    frame: np.ndarray,
    calibration: Calibration | None = None,
    *,
    kinds: tuple[Kind, ...] = ("d6", "d10"),
    coloured: bool = False,
    repeats: int = REPEATS,
    target_ms: float | None = None,
) -> Iterator[str]:
    """The stage table of one frame, OpenCV held to one thread meanwhile."""
    threads = cv2.getNumThreads()
    cv2.setNumThreads(1)
    try:
        timings, dice = stage_timings(
            frame, calibration, kinds=kinds, coloured=coloured, repeats=repeats
        )
    finally:
        cv2.setNumThreads(threads)
    height, width = frame.shape[:2]
    how = "calibrated" if calibration is not None else "no calibration"
    yield f"{title}: {width}x{height}, {how}, kinds {','.join(kinds)}, dice found: {dice}"
    yield f"  {'stage':<30} {'median':>8} {'p95':>8}"
    for t in timings:
        if t.median is None or t.p95 is None:
            yield f"  {t.stage:<30} {'-':>8} {'-':>8}  {t.note}"
            continue
        note = f"  {t.note}" if t.note else ""
        if t.stage == "recognise (whole)" and target_ms is not None:
            note = f"  target < {target_ms:g} ms: {'met' if t.median < target_ms else 'NOT met'}"
        if t.stage == "finding dice (all)" and calibration is not None:
            met = "met" if t.median <= FIND_TARGET_MS else "NOT met"
            note = f"  target ≤ {FIND_TARGET_MS:g} ms: {met}"
        yield f"  {t.stage:<30} {t.median:8.1f} {t.p95:8.1f}{note}"


def bench_settle(repeats: int = 5) -> Iterator[str]:
    """Settle detection per 320x240 frame: median and p95 over ``repeats`` runs of
    ``settle_benchmark`` (600 frames each)."""
    runs = [settle_benchmark() for _ in range(repeats)]
    median, p95 = float(np.median(runs)), float(np.percentile(runs, 95))
    met = "met" if median < SETTLE_TARGET_MS else "NOT met"
    yield (
        f"settle detection, 320x240 grey: {median:.3f} ms/frame median, p95 {p95:.3f} "
        f"({repeats} runs of 600 frames; target < {SETTLE_TARGET_MS:g} ms: {met})"
    )
