"""Dice on a calibrated tray: the detector's boxes that the empty tray does not explain, the
dice it missed that the empty tray shows, and, when the game says how many dice were thrown,
the likeliest account of a count that is off.

Why both: the detector tells touching dice apart and gives each a tight box; the empty tray
tells a die from a speck, a shadow or a screw that was already there. A region of
difference that no box accounts for is a die the detector missed, as many dice as its area
holds; a box on nothing new is a phantom and is left out, said in a note.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.calibration import Calibration
from vision.empty_tray import LIGHT_RANGE, MOVED_DICE, Difference, View
from vision.segment import LINE, _Shape, split

Box = tuple[float, float, float, float]

NEW = 0.2  # a box with fewer dice's worth of difference than this shows nothing new
SURE = 0.45  # a box this new and a detector this sure: a die the count cannot argue away
REGION = 0.4  # a region of difference this many dice large (in area) may be a die
WALL = 5.0  # a region this many dice large touching the felt's edge: the wall, not dice
PAIR = 1.6  # a region this many dice large under one box holds two touching dice


@dataclass
class TrayDice:
    """The dice found on the tray (frame boxes, best first) and what the page should know."""

    boxes: list[Box]
    scores: list[float]
    unsure: set[int] = field(default_factory=set)  # indices of boxes to check
    occluded: set[int] = field(default_factory=set)
    notes: list[str] = field(default_factory=list)
    left_out: list[Box] = field(default_factory=list)  # phantoms: nothing new there


def where(box: Box) -> str:
    return f"({round((box[0] + box[2]) / 2)}, {round((box[1] + box[3]) / 2)})"


def view_notes(tray: Calibration, view: View, difference: Difference | None) -> list[str]:
    """What the players should hear about the view: another tray, a moved camera, a light
    far from the calibration's."""
    assert tray.empty is not None
    if not view.same_tray:
        return [
            "the camera does not see the calibrated tray (another tray, or the camera or the "
            "tray moved): calibrate again on the empty tray"
        ]
    notes = []
    moved = tray.empty.moved(view)
    if moved > MOVED_DICE:
        notes.append(
            f"the tray or the camera moved by {moved:.1f} die sides since calibration: the "
            "reading follows it, but calibrate again on the empty tray when you can"
        )
    if difference is not None and not LIGHT_RANGE[0] <= difference.light <= LIGHT_RANGE[1]:
        how = "darker" if difference.light < 1 else "brighter"
        factor = max(difference.light, 1 / max(difference.light, 1e-3))
        notes.append(
            f"the tray is {factor:.1f} times {how} than when it was calibrated: every die is "
            "marked to check; fix the light or calibrate again"
        )
    return notes


def on_tray(
    detected: list[tuple[Box, float]],
    tray: Calibration,
    difference: Difference,
    expected: int | None = None,
) -> TrayDice:
    """The dice among the detector's ``(box, score)`` (best first) on a tray whose frame
    differs from its empty picture by ``difference``; ``expected``: how many dice were
    thrown, when the game knows."""
    kept, left_out = [], []
    for box, score in detected:
        new = difference.dice_in(box, tray.die_side) >= NEW
        (kept if new else left_out).append((box, score))
    found = TrayDice([b for b, _ in kept], [s for _, s in kept], left_out=[b for b, _ in left_out])
    regions = difference_regions(difference, tray.die_side)
    add_missed(found, regions, difference.scale, tray.die_side)
    if expected is not None:
        fit_count(found, regions, difference, tray.die_side, expected)
    return found


@dataclass(frozen=True)
class Region:
    """A connected region of difference in the frame's small copy."""

    shape: _Shape
    dice: float  # its area in dice
    at_wall: bool

    def holds(self, box: Box, scale: float) -> bool:
        cx, cy = (box[0] + box[2]) / 2 * scale, (box[1] + box[3]) / 2 * scale
        x, y = int(cx) - self.shape.x, int(cy) - self.shape.y
        h, w = self.shape.mask.shape
        return 0 <= x < w and 0 <= y < h and bool(self.shape.mask[y, x])


def difference_regions(difference: Difference, die_side: float) -> list[Region]:
    """The regions of difference large enough to be a die, less lines and the wall."""
    side = die_side * difference.scale
    mask = cv2.morphologyEx(
        difference.mask.astype(np.uint8), cv2.MORPH_OPEN, np.ones((2, 2), np.uint8)
    )
    inside = cv2.erode(difference.felt.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
    count, labels, stats, _ = cv2.connectedComponentsWithStats(mask)
    regions = []
    for k in range(1, count):
        x, y, w, h, area = (int(v) for v in stats[k])
        dice = area / (side * side)
        if dice < REGION:
            continue
        piece = (labels[y : y + h, x : x + w] == k).astype(np.uint8)
        (_, _), (rw, rh), _ = cv2.minAreaRect(cv2.findNonZero(piece))
        elongation = max(rw, rh) / max(1.0, min(rw, rh))
        at_wall = bool((piece.astype(bool) & ~inside[y : y + h, x : x + w]).any())
        if elongation > LINE or (at_wall and dice > WALL):
            continue
        shape = _Shape(piece, x, y, float(area), 1.0, elongation, at_wall)
        regions.append(Region(shape, dice, at_wall))
    return regions


def region_boxes(region: Region, side: float, scale: float, count: int | None = None) -> list[Box]:
    """Frame boxes of the dice in a region: as many as its area holds (or ``count``)."""
    pieces = split(region.shape, side, trust_side=True) if count != 1 else [region.shape.mask]
    if count is not None and len(pieces) < count:
        pieces = [region.shape.mask]
    boxes = []
    for piece in pieces:
        ys, xs = np.nonzero(piece)
        if not len(xs):
            continue
        x0, y0 = region.shape.x + xs.min(), region.shape.y + ys.min()
        x1, y1 = region.shape.x + xs.max() + 1, region.shape.y + ys.max() + 1
        boxes.append((x0 / scale, y0 / scale, x1 / scale, y1 / scale))
    return boxes


def add_missed(found: TrayDice, regions: list[Region], scale: float, die_side: float) -> None:
    """The regions of difference no kept box lies in: dice the detector missed, as many as
    their area holds, flagged to check (the detector did not find them die-like)."""
    side = die_side * scale
    for region in regions:
        if any(region.holds(box, scale) for box in found.boxes):
            continue
        for box in region_boxes(region, side, scale):
            found.boxes.append(box)
            found.scores.append(0.0)
            found.unsure.add(len(found.boxes) - 1)
            if region.at_wall:
                found.occluded.add(len(found.boxes) - 1)


def strength(found: TrayDice, index: int, difference: Difference, die_side: float) -> float:
    """How surely box ``index`` is a die: the detector's score and how much is new in it."""
    new = min(1.0, difference.dice_in(found.boxes[index], die_side))
    return found.scores[index] * new


def fit_count(
    found: TrayDice, regions: list[Region], difference: Difference, die_side: float, want: int
) -> None:
    """Too many dice: the weakest are left out when they are weak (a speck, a glint), with a
    note; too few: a region under one box that holds two dice is split, its dice flagged.
    Otherwise the count stays as found, for the table to say."""
    have = len(found.boxes)
    if have > want:
        sureness = [strength(found, i, difference, die_side) for i in range(have)]
        ranked = sorted(range(have), key=lambda i: sureness[i])
        weak = [i for i in ranked[: have - want] if sureness[i] < SURE * SURE]
        if len(weak) == have - want:
            for i in sorted(weak, reverse=True):
                found.notes.append(
                    f"{have} dice seen, {want} thrown: the spot at {where(found.boxes[i])} "
                    "looks least like a die and was left out"
                )
                found.left_out.append(found.boxes[i])
                for name in ("boxes", "scores"):
                    del getattr(found, name)[i]
                found.unsure = {j - (j > i) for j in found.unsure if j != i}
                found.occluded = {j - (j > i) for j in found.occluded if j != i}
    elif have < want:
        scale = difference.scale
        side = die_side * scale
        for region in sorted(regions, key=lambda r: -r.dice):
            if len(found.boxes) >= want:
                break
            inside = [i for i, b in enumerate(found.boxes) if region.holds(b, scale)]
            if len(inside) != 1 or region.dice < PAIR:
                continue
            pieces = region_boxes(region, side, scale, count=2)
            if len(pieces) < 2:
                continue
            (i,) = inside
            found.boxes[i : i + 1] = pieces[:1]
            found.boxes.extend(pieces[1:])
            found.scores.extend([0.0] * (len(pieces) - 1))
            found.unsure |= {i, *range(len(found.boxes) - len(pieces) + 1, len(found.boxes))}
            found.notes.append(
                f"two touching dice at {where(pieces[0])} were read as one and told apart: "
                "check them"
            )
