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
from vision.segment import LINE, _Shape, fill, is_double, split

Box = tuple[float, float, float, float]

# A box whose new pixels span less of a die than NEW shows nothing new, unless they span
# FAINT and the detector is SURE of it: a clear die differs from the felt only faintly.
NEW, FAINT, SURE = 0.1, 0.05, 0.6
# A box the detector finds less surely than its threshold, down to FAINT_FIND, is a die where
# the frame is new over CLEAR of one: a real die the net finds faintly (a colour, numerals it
# never learned) is still plainly new on the felt, and need not be flagged as a die added
FAINT_FIND, CLEAR = 0.2, 0.5
WEAK = 0.4  # a die seen too many, this much less sure than the typical one, is left out
REGION = 0.4  # a region of difference this many dice large (in area) may be a die
WALL = 5.0  # a region this many dice large touching the felt's edge: the wall, not dice
PAIR = 1.6  # a region this many dice large under one box holds two touching dice
DETAILED = 0.3  # a region a box misses is a die when its new detail spans this much of one
SHADOW = 0.7  # and not when this share of it is a shadow's: darker, the felt's colour dimmed
# a region told apart into two dice: its smaller piece is at least this share of the larger
# (one die's sides and shadow leave a corner piece a fifth of the die, never a die)
EVEN = 0.35
# a box inside a better one whose centre is this many die sides off the better one's may be
# a second die half hidden by the first; nearer, it is a second look at the same die
ASIDE = 0.2
# when a throw shows too many dice, a box whose centre is this many die sides or less from a
# surer box's is a second look at that die: two dice at rest are never so close
NEAR = 0.75


@dataclass
class TrayDice:
    """The dice found on the tray (frame boxes, best first) and what the page should know."""

    boxes: list[Box]
    scores: list[float]
    unsure: set[int] = field(default_factory=set)  # indices of boxes to check
    occluded: set[int] = field(default_factory=set)
    notes: list[str] = field(default_factory=list)
    left_out: list[Box] = field(default_factory=list)  # phantoms: nothing new there

    def remove(self, index: int) -> None:
        """Drop box ``index``, the later boxes' marks following it."""
        del self.boxes[index], self.scores[index]
        self.unsure = {j - (j > index) for j in self.unsure if j != index}
        self.occluded = {j - (j > index) for j in self.occluded if j != index}


def centre_distance(box: Box, other: Box) -> float:
    """How far apart the two boxes' centres are, in pixels."""
    return float(
        np.hypot(box[0] + box[2] - other[0] - other[2], box[1] + box[3] - other[1] - other[3]) / 2
    )


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
    found_from: float = 0.0,
) -> TrayDice:
    """The dice among the detector's ``(box, score)`` (best first) on a tray whose frame
    differs from its empty picture by ``difference``; ``expected``: how many dice were
    thrown, when the game knows; ``found_from``: the detector's threshold, under which a
    box is a die only where the frame is clearly new (``CLEAR``)."""
    kept, left_out = [], []
    for box, score in detected:
        extent = difference.extent(box, tray.die_side)
        if score >= found_from:
            new = extent >= NEW or (extent >= FAINT and score >= SURE)
        else:
            new = extent >= CLEAR
        (kept if new else left_out).append((box, score))
    found = TrayDice([b for b, _ in kept], [s for _, s in kept], left_out=[b for b, _ in left_out])
    side = tray.die_side * difference.scale
    add_missed(found, difference, side)
    if expected is not None:
        fit_count(found, difference, side, expected)
    doubles = take_doubles(found)
    if expected is not None:
        restore_doubles(found, doubles, expected, tray.die_side)
    return found


def double_indices(boxes: list[Box]) -> list[int]:
    """The boxes lying mostly inside an earlier one that is not itself such a box."""
    kept: list[Box] = []
    doubles: list[int] = []
    for i, box in enumerate(boxes):
        if is_double(box, kept):
            doubles.append(i)
        else:
            kept.append(box)
    return doubles


def take_doubles(found: TrayDice) -> list[tuple[Box, float]]:
    """Take out, and return, each box lying mostly inside an earlier one: a second peak on
    the same die, or a die half hidden by its neighbour."""
    doubles = double_indices(found.boxes)
    taken = [(found.boxes[i], found.scores[i]) for i in doubles]
    for i in reversed(doubles):
        found.remove(i)
    return taken


def restore_doubles(
    found: TrayDice, doubles: list[tuple[Box, float]], want: int, die_side: float
) -> None:
    """Too few dice: a box lying mostly inside another, its centre ``ASIDE`` of a die off
    that one's, is then likelier a die half hidden by its neighbour than a second look at
    the same die; the surest such boxes are taken back, as many as are missing, flagged to
    check."""
    aside = [
        (box, score)
        for box, score in doubles
        if min((centre_distance(box, b) for b in found.boxes), default=np.inf) >= ASIDE * die_side
    ]
    for box, score in sorted(aside, key=lambda d: -d[1])[: max(0, want - len(found.boxes))]:
        found.boxes.append(box)
        found.scores.append(score)
        found.unsure.add(len(found.boxes) - 1)
        found.notes.append(f"two dice lying close together at {where(box)}: check them")


@dataclass(frozen=True)
class Region:
    """A connected region of difference in the frame's small copy, its holes filled."""

    shape: _Shape
    dice: float  # its area in dice
    detail: float  # how much of a die its new fine detail spans (a soft shadow has none)
    at_wall: bool
    shadow: float  # the share of it a shadow alone explains (a hard shadow's sharp edge is detail)

    def holds(self, box: Box, scale: float) -> bool:
        """The box's centre lies in the region."""
        cx, cy = (box[0] + box[2]) / 2 * scale, (box[1] + box[3]) / 2 * scale
        x, y = int(cx) - self.shape.x, int(cy) - self.shape.y
        h, w = self.shape.mask.shape
        return 0 <= x < w and 0 <= y < h and bool(self.shape.mask[y, x])


def new_mask(difference: Difference) -> np.ndarray:
    """What differs (colour or detail), joined across a pixel's gap, holes filled, specks
    of a pixel or two opened away (uint8)."""
    joined = cv2.morphologyEx(
        (difference.mask | difference.texture).astype(np.uint8),
        cv2.MORPH_CLOSE,
        np.ones((3, 3), np.uint8),
    )
    return cv2.morphologyEx(fill(joined), cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))


def regions_of(mask: np.ndarray, difference: Difference, side: float) -> list[Region]:
    """The regions of ``mask`` large enough to be a die, less lines and the wall."""
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
        shaded = float(difference.shaded[y : y + h, x : x + w][piece.astype(bool)].mean())
        detail = detail_span(piece, difference, (x, y), side)
        regions.append(Region(shape, dice, detail, at_wall, shaded))
    return regions


def detail_span(
    piece: np.ndarray, difference: Difference, at: tuple[int, int], side: float
) -> float:
    """How much of a die the new fine detail inside a region spans (its hull, in dice)."""
    x, y = at
    h, w = piece.shape
    detail = difference.texture[y : y + h, x : x + w] & piece.astype(bool)
    points = cv2.findNonZero(detail.astype(np.uint8))
    if points is None or len(points) < 3:
        return 0.0
    return float(cv2.contourArea(cv2.convexHull(points))) / (side * side)


def region_boxes(region: Region, side: float, scale: float, count: int | None = None) -> list[Box]:
    """Frame boxes of the dice in a region: as many as its area holds (or the ``count``
    largest pieces, when it holds that many, none much smaller than the largest)."""
    pieces = split(region.shape, side, trust_side=True)
    if count is not None:
        pieces = sorted(pieces, key=lambda p: -int(p.sum()))[:count]
        if len(pieces) < count or pieces[-1].sum() < EVEN * pieces[0].sum():
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


def nothing_new(difference: Difference, die_side: float) -> bool:
    """The frame shows the tray as empty: no region of difference a die could be."""
    side = die_side * difference.scale
    return not regions_of(new_mask(difference), difference, side)


def add_missed(found: TrayDice, difference: Difference, side: float) -> None:
    """What differs outside every kept box, in regions a die large that show a die's fine
    detail (a soft shadow shows none): dice the detector missed, as many as each region's
    area holds, flagged to check."""
    remainder = new_mask(difference)
    scale = difference.scale
    for box in found.boxes:
        # at least a die wide: a box drawn tighter than its die leaves the die's rim, no die
        x0, y0, x1, y1 = (v * scale for v in box)
        half_w, half_h = max(x1 - x0, side) / 2, max(y1 - y0, side) / 2
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        cv2.rectangle(
            remainder,
            (int(cx - half_w), int(cy - half_h)),
            (int(np.ceil(cx + half_w)), int(np.ceil(cy + half_h))),
            0,
            -1,
        )
    # what is left of a kept die around its box is a rim a pixel or two thin
    remainder = cv2.morphologyEx(remainder, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    for region in regions_of(remainder, difference, side):
        if (
            region.detail < DETAILED
            or region.shadow >= SHADOW
            or around_a_kept_die(region, found.boxes, scale)
        ):
            continue
        for box in region_boxes(region, side, scale):
            found.boxes.append(box)
            found.scores.append(0.0)
            found.unsure.add(len(found.boxes) - 1)
            if region.at_wall:
                found.occluded.add(len(found.boxes) - 1)


def around_a_kept_die(region: Region, boxes: list[Box], scale: float) -> bool:
    """The region's centre lies in a kept box: it is the rim of that box's die, left
    around a box drawn tighter than the die, not another die."""
    shape = region.shape
    h, w = shape.mask.shape
    cx, cy = (shape.x + w / 2) / scale, (shape.y + h / 2) / scale
    return any(x0 <= cx <= x1 and y0 <= cy <= y1 for x0, y0, x1, y1 in boxes)


def strength(found: TrayDice, index: int, difference: Difference, die_side: float) -> float:
    """How surely box ``index`` is a die: the detector's score and how much is new in it."""
    new = min(1.0, difference.extent(found.boxes[index], die_side))
    return found.scores[index] * new


def drop_second_looks(found: TrayDice, die_side: float, want: int) -> None:
    """Leave out, with a note, as many boxes as there are dice too many, each within ``NEAR``
    die sides of a surer box that stays: the detector's second look at one die (a clear
    die's glints). A box mostly inside a surer one is left to ``take_doubles``."""
    doubles = set(double_indices(found.boxes))  # as take_doubles will see them
    extra = len(found.boxes) - len(doubles) - want
    dropped: set[int] = set()
    for i in sorted(set(range(len(found.boxes))) - doubles, key=lambda k: found.scores[k]):
        if len(dropped) >= extra:
            break
        surer = [
            j
            for j in range(len(found.boxes))
            if j != i
            and j not in dropped | doubles
            and found.scores[j] >= found.scores[i]
            and centre_distance(found.boxes[i], found.boxes[j]) <= NEAR * die_side
        ]
        if surer:
            dropped.add(i)
            found.notes.append(
                f"{len(found.boxes)} dice seen: the box at {where(found.boxes[i])} is a second "
                f"look at the die at {where(found.boxes[surer[0]])} and was left out"
            )
            found.left_out.append(found.boxes[i])
    for i in sorted(dropped, reverse=True):
        found.remove(i)


def fit_count(found: TrayDice, difference: Difference, side: float, want: int) -> None:
    """Too many dice: second looks at one die are left out (``drop_second_looks``), then the
    weakest when they are weak (a speck, a glint: much less sure than the typical die of the
    throw), with a note; too few (also once second looks are out): a region under one box
    that holds two dice is split, its dice flagged. Otherwise the count stays as found, for
    the table to say."""
    if len(found.boxes) > want:
        drop_second_looks(found, side / difference.scale, want)
    have = len(found.boxes)
    if have > want:
        sureness = [strength(found, i, difference, side / difference.scale) for i in range(have)]
        ranked = sorted(range(have), key=lambda i: sureness[i])
        typical = float(np.median(sureness))
        weak = [i for i in ranked[: have - want] if sureness[i] < WEAK * typical]
        if len(weak) == have - want:
            for i in sorted(weak, reverse=True):
                found.notes.append(
                    f"{have} dice seen, {want} thrown: the spot at {where(found.boxes[i])} "
                    "looks least like a die and was left out"
                )
                found.left_out.append(found.boxes[i])
                found.remove(i)
    elif have < want:
        scale = difference.scale
        regions = regions_of(new_mask(difference), difference, side)
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
