"""Find the dice in a frame: pixels unlike the felt, grouped into die-sized blobs.

With a calibration the felt's colour, the tray's outline and the die size are known; without
one the felt is taken to be the frame's most common colour and the die size the typical size
of the die-shaped blobs found. Work happens on a copy shrunk so that a die is about
``WORK_SIDE`` pixels wide: dice need no more to be found, and the Pi has little time.

Touching dice make one blob: it is split by the distance transform and a watershed, seeded
with as many peaks as die-sized squares fit. A blob whose shape or size is off keeps a hint
(``cocked``: too big or elongated, a die leaning on another; ``occluded``: cut by the frame
or tray border, or too small) so the reader can flag it instead of guessing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from vision.calibration import Calibration, mode_colour
from vision.felt import FeltModel, to_lab
from vision.images import shrink
from vision.reading import Box
from vision.watershed import watershed

WORK_SIDE = 24.0  # a die's side in pixels of the working copy
UNCALIBRATED_LONG_SIDE = 400  # the working copy's longer side when the die size is unknown
FELT_DISTANCE = 6.0  # standard deviations from the felt that make a pixel "not felt"
FAINT_DISTANCE = 3.0  # the same, averaged over a patch (the felt's grain averages ~1.6)
MIN_SHARE, COCKED_SHARE = 0.4, 1.7  # blob area / expected die area outside these: a hint
ELONGATED = 1.5  # longer / shorter side of the blob's rotated rectangle
EDGE_FACTOR = 4.0  # an edge: a gradient this many times the frame's median one
EDGE_TINT = 2.0  # and where the patch-averaged felt distance is above this
BACKDROP = 6.0  # a blob this many dice large at the tray's or frame's edge is background
HOLE_SHARE = 0.02  # holes filled before the die size is known: up to this share of the frame
HOLE_DICE = 2.0  # and after: holes up to this many dice in area
CONVEX = 0.85  # solidity above this: no waist between two dice
LINE = 3.0  # more elongated than this is an edge or a crease, never a die
SEED_GAP = 0.65  # two die centres are at least this many die sides apart
SEED_DEPTH = 0.28  # a die's centre lies this many die sides inside its blob (ideal: 0.5)


@dataclass(frozen=True)
class Blob:
    """One die candidate: its box in frame pixels, its area and what looks off about it."""

    box: Box
    area: float  # in frame pixels
    cocked: bool = False
    occluded: bool = False
    unsure: bool = False  # found by other means than the detector, or split from a pair


@dataclass(frozen=True)
class Segmentation:
    """The dice found in a frame and what was assumed to find them.

    ``labels`` is the frame-sized map of blobs (0 felt, i + 1 blob i); ``felt`` the model
    of the background used (the calibration's, or the one estimated from the frame)."""

    blobs: tuple[Blob, ...]
    labels: np.ndarray
    felt: FeltModel
    die_side: float  # expected die side in frame pixels
    work_lab: np.ndarray  # the shrunk frame in Lab, as segmented
    work_labels: np.ndarray  # its blob map (0 felt, i + 1 blob i)
    scale: float  # work_lab's size over the frame's

    def work_pixels(self, index: int) -> np.ndarray:
        """The Lab pixels (N x 3) of blob ``index`` in the shrunk frame: enough to judge a
        die's colour, and far fewer than the frame holds."""
        x0, y0, x1, y1 = self.blobs[index].box
        s = self.scale
        window = np.s_[
            int(y0 * s) : int(np.ceil(y1 * s)) + 1, int(x0 * s) : int(np.ceil(x1 * s)) + 1
        ]
        return self.work_lab[window][self.work_labels[window] == index + 1]


def work_scale(frame_shape: tuple[int, ...], die_side: float | None) -> float:
    """The shrink factor of the working copy (never an enlargement)."""
    if die_side:
        return min(1.0, WORK_SIDE / die_side)
    return min(1.0, UNCALIBRATED_LONG_SIDE / max(frame_shape[:2]))


def estimate_felt(lab: np.ndarray, area: np.ndarray) -> FeltModel:
    """The background of a frame without calibration: the most common colour (coarse Lab
    histogram) and the pixels near it, refitted once on every pixel the first model calls
    felt so that shaded and lit parts of the felt join in."""
    near = (np.linalg.norm(lab - mode_colour(lab, area), axis=2) < 12) & area
    model = FeltModel.fit(lab, near)
    felt = (model.distance(lab) < FELT_DISTANCE) & area
    return FeltModel.fit(lab, felt) if felt.sum() > near.sum() else model


def tinted(distance: np.ndarray, side: float) -> np.ndarray:
    """The felt distance averaged over a patch a fifth of a die wide: the felt's grain
    averages out over a patch, the faint tint of a transparent die does not."""
    patch = max(3, round(side / 5) | 1)
    return cv2.blur(distance, (patch, patch))


def unlike_felt(distance: np.ndarray, tint: np.ndarray | None, area: np.ndarray) -> np.ndarray:
    """Pixels inside the tray far from the felt's colour, or (given the ``tint``, on a
    calibrated felt) a little off over a patch and somewhat off themselves (so that the
    patch does not spill onto the felt around a die). Specks removed."""
    unlike = distance > FELT_DISTANCE
    if tint is not None:
        unlike |= (tint > FAINT_DISTANCE) & (distance > FAINT_DISTANCE / 2)
    mask = (unlike & area).astype(np.uint8)
    return cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))


def edged(lab: np.ndarray, tint: np.ndarray, area: np.ndarray, side: float) -> np.ndarray:
    """Regions ringed and crossed by sharp edges: a transparent die, or a die the felt's
    own colour, shows little colour of its own but its outline, bevels, ink and highlights.

    An edge is a lightness gradient several times the frame's median one (the felt's grain,
    since felt is most of the tray) where the felt looks at least a little tinted (the rim
    of a shadow is sharp too, but the felt on both sides of it is felt); edges are joined,
    filled, and opened with a third of a die so that lone lines and lint fall away."""
    lightness = np.ascontiguousarray(lab[..., 0])
    magnitude = cv2.magnitude(
        cv2.Sobel(lightness, cv2.CV_32F, 1, 0, ksize=3),
        cv2.Sobel(lightness, cv2.CV_32F, 0, 1, ksize=3),
    )
    inside = cv2.erode(area.astype(np.uint8), np.ones((5, 5), np.uint8)).astype(bool)
    if not inside.any():
        return np.zeros(area.shape, np.uint8)
    level = float(np.median(magnitude[inside])) + 1e-3
    strong = (magnitude > EDGE_FACTOR * level) & (tint > EDGE_TINT) & inside
    joined = cv2.morphologyEx(strong.astype(np.uint8), cv2.MORPH_CLOSE, disc(side * 0.25))
    filled = fill(joined)
    return cv2.morphologyEx(filled, cv2.MORPH_OPEN, disc(side * 0.35))


def disc(diameter: float) -> np.ndarray:
    size = max(3, round(diameter) | 1)
    return cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size))


def fill(mask: np.ndarray) -> np.ndarray:
    """``mask`` with the holes of its blobs filled."""
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    out = np.zeros_like(mask)
    cv2.drawContours(out, contours, -1, 1, -1)
    return out


@dataclass(frozen=True)
class _Shape:
    """A filled blob of the working copy, with what the hints and the splitting need."""

    mask: np.ndarray  # uint8, the blob's bounding box of the working copy
    x: int
    y: int
    area: float
    solidity: float
    elongation: float
    at_border: bool


def inner(area: np.ndarray) -> np.ndarray:
    """The tray's area less its rim pixel (the frame's edge is a rim too): a blob that
    reaches outside it is cut by the border."""
    return cv2.erode(area.astype(np.uint8), np.ones((3, 3), np.uint8), borderValue=0) > 0


def shapes(mask: np.ndarray, inside: np.ndarray, max_hole: float) -> list[_Shape]:
    """Every blob of ``mask``, its holes up to ``max_hole`` pixels filled: a die's dark
    pips are small holes in it, while the felt inside a ring of table is a large one that
    stays open (and the dice on it separate blobs). ``inside``: see :func:`inner`."""
    contours, hierarchy = cv2.findContours(mask, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    out = []
    for index, contour in enumerate(contours):
        if hierarchy[0][index][3] >= 0:
            continue  # a hole, drawn with its blob
        x, y, w, h = cv2.boundingRect(contour)
        filled = np.zeros((h, w), np.uint8)
        cv2.drawContours(filled, [contour], -1, 1, -1, offset=(-x, -y))
        child = hierarchy[0][index][2]
        while child >= 0:
            if cv2.contourArea(contours[child]) > max_hole:
                cv2.drawContours(filled, contours, child, 0, -1, offset=(-x, -y))
            child = hierarchy[0][child][0]
        hull = cv2.contourArea(cv2.convexHull(contour))
        (_, _), (rw, rh), _ = cv2.minAreaRect(contour)
        touching = filled.astype(bool) & ~inside[y : y + h, x : x + w]
        out.append(
            _Shape(
                filled,
                x,
                y,
                float(filled.sum()),
                min(1.0, cv2.contourArea(contour) / hull) if hull > 0 else 0.0,
                max(rw, rh) / max(1.0, min(rw, rh)),
                bool(touching.any()),
            )
        )
    return out


def typical_side(found: list[_Shape], floor: float) -> float | None:
    """The side of a typical die among the blobs that look like one whole die (square,
    solid, inside): the median weighted by area, so that a die's pips found on their own
    do not make dice look pip-sized."""
    sides = np.array(
        [
            np.sqrt(s.area)
            for s in found
            if s.solidity > 0.88 and s.elongation < 1.35 and not s.at_border and s.area >= floor
        ]
    )
    if not len(sides):
        return None
    order = np.sort(sides)
    weights = np.cumsum(order**2)
    return float(order[np.searchsorted(weights, weights[-1] / 2)])


def seeds(dist: np.ndarray, side: float, limit: int) -> list[tuple[int, int]]:
    """Die centres in a blob's distance map: the deepest point, then the deepest point at
    least ``SEED_GAP`` sides from those taken, while deep enough to be a die's centre."""
    work = dist.copy()
    found: list[tuple[int, int]] = []
    radius = max(1, round(SEED_GAP * side))
    while len(found) < limit:
        y, x = np.unravel_index(int(work.argmax()), work.shape)
        if work[y, x] < SEED_DEPTH * side:
            break
        found.append((int(y), int(x)))
        cv2.circle(work, (int(x), int(y)), radius, 0, -1)
    return found


def split(shape: _Shape, side: float, trust_side: bool) -> list[np.ndarray]:
    """The masks of the dice in one blob (the blob itself when it holds one die).

    ``trust_side``: the die size is known (calibrated felt), so a convex blob several dice
    large is several dice side by side; otherwise only a blob with a waist is split, since
    a size guessed from the frame may be a pip's."""
    expected = side * side
    limit = max(1, int(np.ceil(shape.area / expected + 0.25)))
    if shape.solidity > CONVEX and (limit == 1 or not trust_side):
        return [shape.mask]
    padded = cv2.copyMakeBorder(shape.mask, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0)
    dist = cv2.distanceTransform(padded, cv2.DIST_L2, 3)
    found = seeds(dist, side, limit)
    if len(found) < 2:
        return [shape.mask]
    centres = np.asarray(found, np.float32)
    markers = np.zeros(padded.shape, np.int32)
    for k, (cy, cx) in enumerate(centres):
        cv2.circle(markers, (round(cx), round(cy)), max(1, round(side * 0.15)), k + 1, -1)
    markers *= padded.astype(bool)
    regions = watershed(-dist, markers, padded.astype(bool))[1:-1, 1:-1]
    pieces = [(regions == k + 1).astype(np.uint8) for k in range(len(centres))]
    return [piece for piece in pieces if piece.any()]


def segment(frame: np.ndarray, calibration: Calibration | None = None) -> Segmentation:
    """The dice of a BGR frame (checked by :func:`vision.images.check_frame`)."""
    height, width = frame.shape[:2]
    if calibration is not None:
        calibration = calibration.for_size(width, height)
    scale = work_scale(frame.shape, calibration.die_side if calibration else None)
    small = shrink(frame, scale)
    scale = small.shape[1] / width  # as rounded
    lab = to_lab(small)
    if calibration is not None:
        area = calibration.area_mask(small.shape[1], small.shape[0])
        felt = calibration.felt
    else:
        area = np.ones(small.shape[:2], bool)
        felt = estimate_felt(lab, area)
    inside = inner(area)
    side = calibration.die_side * scale if calibration else None
    distance = felt.distance(lab)
    tint = tinted(distance, side) if side else None
    colour = unlike_felt(distance, tint, area)
    if calibration is None or not calibration.die_measured:
        floor = 0.15 * (side or WORK_SIDE / 2) ** 2
        first = shapes(colour, inside, HOLE_SHARE * colour.size)
        side = typical_side(first, floor) or side or WORK_SIDE
    if tint is not None:
        colour |= edged(lab, tint, area, side)
    mask = cv2.morphologyEx(colour, cv2.MORPH_CLOSE, disc(side * 0.2))
    found = shapes(mask, inside, HOLE_DICE * side * side)
    blobs, masks = [], []
    work_labels = np.zeros(lab.shape[:2], np.int32)
    for shape in found:
        if shape.area < MIN_SHARE * 0.5 * side * side:
            continue  # a speck, not a die
        if shape.elongation > LINE or (shape.at_border and shape.area > BACKDROP * side * side):
            continue  # a line, or the background beyond the felt: not a die
        window = inside[
            shape.y : shape.y + shape.mask.shape[0], shape.x : shape.x + shape.mask.shape[1]
        ]
        for piece in split(shape, side, calibration is not None):
            cut = bool((piece.astype(bool) & ~window).any())
            blob, full = describe(piece, (shape.x, shape.y), cut, side, scale, frame.shape)
            blobs.append(blob)
            masks.append(full)
            h, w = piece.shape
            work_labels[shape.y : shape.y + h, shape.x : shape.x + w][piece > 0] = len(blobs)
    labels = np.zeros((height, width), np.int32)
    for i, (blob, piece) in enumerate(zip(blobs, masks, strict=True)):
        x0, y0, x1, y1 = blob.box
        labels[y0:y1, x0:x1][piece] = i + 1
    return Segmentation(tuple(blobs), labels, felt, side / scale, lab, work_labels, scale)


def describe(
    piece: np.ndarray,
    origin: tuple[int, int],
    cut: bool,
    side: float,
    scale: float,
    frame_shape: tuple[int, ...],
) -> tuple[Blob, np.ndarray]:
    """A blob (``piece`` of the working copy at ``origin``, ``cut`` by the border) in frame
    pixels, with its hints and its mask inside its box."""
    ys, xs = np.nonzero(piece)
    y0, y1, x0, x1 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
    sub = piece[y0:y1, x0:x1]
    contour_area = float(sub.sum())
    points = np.stack([xs, ys], 1).astype(np.float32)
    (_, _), (rw, rh), _ = cv2.minAreaRect(points)
    elongation = (max(rw, rh) + 1) / (min(rw, rh) + 1)
    share = contour_area / (side * side)
    height, width = frame_shape[:2]
    ox, oy = origin
    fx0 = max(0, round((ox + x0) / scale))
    fy0 = max(0, round((oy + y0) / scale))
    fx1 = min(width, max(fx0 + 1, round((ox + x1) / scale)))
    fy1 = min(height, max(fy0 + 1, round((oy + y1) / scale)))
    full = cv2.resize(sub, (fx1 - fx0, fy1 - fy0), interpolation=cv2.INTER_NEAREST).astype(bool)
    blob = Blob(
        (fx0, fy0, fx1, fy1),
        contour_area / (scale * scale),
        cocked=share > COCKED_SHARE or elongation > ELONGATED,
        occluded=cut or share < MIN_SHARE,
    )
    return blob, full


BOX_MASK_SHARE = 0.3  # a box whose unlike-felt pixels cover less than this: an ellipse instead
DOUBLE_SHARE = 0.6  # a box this much inside a better one is a second peak on the same die
OUTSIDE_SHARE = 0.2  # the felt is fitted outside the boxes when they leave this much free


def from_boxes(
    frame: np.ndarray,
    boxes: list[tuple[float, float, float, float]],
    felt: FeltModel | None = None,
    marks: Sequence[tuple[bool, bool]] | None = None,
    small: np.ndarray | None = None,
    small_lab: np.ndarray | None = None,
    doubles_checked: bool = False,
) -> Segmentation:
    """A segmentation of a BGR frame from boxes found by a detector (frame pixels): the
    same shrunk Lab copy as :func:`segment` makes uncalibrated; without a calibration's
    ``felt``, the felt fitted on the pixels outside every box (the detector says where
    the dice are, so the rest is background: one fit instead of :func:`estimate_felt`'s
    mode and two fits, ~30 ms less at 640x640 on one core), or estimated from the whole
    frame when the boxes leave less than a fifth of it. Each die's mask is the pixels of its
    box unlike that felt (filled), or the ellipse inscribed in the box where those are too
    few (a background of the die's own colour). A box touching the frame's border is
    ``occluded``, an elongated one ``cocked``. ``felt``: a calibration's, used as it is.
    ``boxes`` best first: a box lying mostly
    (``DOUBLE_SHARE`` of its area) inside an earlier one is a second peak on the same die
    and dropped; where boxes overlap less, the earlier box keeps the pixels. ``marks``: for
    each box whether it is ``unsure`` and ``occluded`` (the calibrated tray's hints);
    ``small``: the frame's working copy when one was made already (the empty tray's), and
    ``small_lab`` its Lab. ``doubles_checked``: the boxes' second peaks were already
    weighed (a calibrated tray's, :func:`vision.on_tray.on_tray`), so none is dropped."""
    height, width = frame.shape[:2]
    if small is None:
        small = shrink(frame, work_scale(frame.shape, None))
    scale = small.shape[1] / width  # as rounded
    work_h, work_w = small.shape[:2]
    if felt is not None:  # the calibration's: no fit, and only the boxes are looked at
        clipped = [clip_box(box, scale, (width, height), (work_w, work_h)) for box in boxes]
        windows = [c[1] for c in clipped if c is not None]
        lab, unlike = boxes_lab(small, windows, felt, small_lab)
    else:
        lab = to_lab(small)
        outside = np.ones((work_h, work_w), bool)
        for bx0, by0, bx1, by1 in boxes:
            outside[
                max(0, int(by0 * scale)) : int(np.ceil(by1 * scale)),
                max(0, int(bx0 * scale)) : int(np.ceil(bx1 * scale)),
            ] = False
        if outside.sum() >= OUTSIDE_SHARE * outside.size:
            felt = FeltModel.fit(lab, outside)
        else:
            felt = estimate_felt(lab, np.ones(small.shape[:2], bool))
        unlike = felt.distance(lab) > FELT_DISTANCE
    labels = np.zeros((height, width), np.int32)
    work_labels = np.zeros((work_h, work_w), np.int32)
    blobs: list[Blob] = []
    sides = []
    for k, box in enumerate(boxes):
        unsure, hidden = marks[k] if marks is not None else (False, False)
        found = clip_box(box, scale, (width, height), (work_w, work_h))
        if found is None or (not doubles_checked and is_double(found[0], [b.box for b in blobs])):
            continue
        (x0, y0, x1, y1), window = found
        piece = box_mask(unlike[window])
        full = cv2.resize(piece, (x1 - x0, y1 - y0), interpolation=cv2.INTER_NEAREST) > 0
        free = labels[y0:y1, x0:x1] == 0
        labels[y0:y1, x0:x1][full & free] = len(blobs) + 1
        work_free = work_labels[window] == 0
        work_labels[window][(piece > 0) & work_free] = len(blobs) + 1
        long, short = max(x1 - x0, y1 - y0), min(x1 - x0, y1 - y0)
        touches = x0 <= 0 or y0 <= 0 or x1 >= width or y1 >= height or hidden
        elongated = long / short > ELONGATED
        blobs.append(Blob((x0, y0, x1, y1), float(full.sum()), elongated, touches, unsure))
        sides.append(np.sqrt((x1 - x0) * (y1 - y0)))
    side = float(np.median(sides)) if sides else WORK_SIDE / scale
    return Segmentation(tuple(blobs), labels, felt, side, lab, work_labels, scale)


def clip_box(
    box: Box, scale: float, size: tuple[int, int], work_size: tuple[int, int]
) -> tuple[tuple[int, int, int, int], tuple[slice, slice]] | None:
    """A detector box as whole frame pixels inside the frame, and its window (rows,
    columns) in the working copy of ``scale``; None for a box under 2 pixels either way."""
    (width, height), (work_w, work_h) = size, work_size
    x0, y0 = max(0, int(np.floor(box[0]))), max(0, int(np.floor(box[1])))
    x1, y1 = min(width, int(np.ceil(box[2]))), min(height, int(np.ceil(box[3])))
    if x1 - x0 < 2 or y1 - y0 < 2:
        return None
    wx0, wy0 = min(work_w - 1, int(x0 * scale)), min(work_h - 1, int(y0 * scale))
    wx1 = max(wx0 + 1, min(work_w, int(np.ceil(x1 * scale))))
    wy1 = max(wy0 + 1, min(work_h, int(np.ceil(y1 * scale))))
    return (x0, y0, x1, y1), np.s_[wy0:wy1, wx0:wx1]


def boxes_lab(
    small: np.ndarray,
    windows: list[tuple[slice, slice]],
    felt: FeltModel,
    lab: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The working copy's Lab (unless given) and its pixels unlike the felt, both worked out
    inside the ``windows`` only (zero and False elsewhere): with a calibration's felt nothing
    outside the dice's boxes is needed, and doing the whole copy cost 2-3 ms more of a
    ten-die 1280x960 frame on one core (docs/speed.md). Pixel by pixel the same as over the
    whole copy."""
    given = lab is not None
    lab = lab if lab is not None else np.zeros(small.shape, np.float32)
    unlike = np.zeros(small.shape[:2], bool)
    light = felt.light_for(small.shape)
    for window in windows:
        if not given:
            lab[window] = to_lab(small[window])
        shade = None if light is None else light[window]
        unlike[window] = felt.distance(lab[window], shade) > FELT_DISTANCE
    return lab, unlike


def is_double(box: Box, better: Sequence[Box]) -> bool:
    """The box lies mostly inside one of the ``better`` boxes: a second peak on its die."""
    return any(inside_share(box, other) > DOUBLE_SHARE for other in better)


def inside_share(box: Box, other: Box) -> float:
    """The share of ``box``'s area that lies inside ``other``."""
    w = min(box[2], other[2]) - max(box[0], other[0])
    h = min(box[3], other[3]) - max(box[1], other[1])
    area = (box[2] - box[0]) * (box[3] - box[1])
    return max(0, w) * max(0, h) / max(area, 1)


def box_mask(unlike: np.ndarray) -> np.ndarray:
    """A die's mask (uint8) in its box of the working copy: the pixels unlike the felt,
    closed and filled, when they cover ``BOX_MASK_SHARE`` of the box; else the inscribed
    ellipse."""
    h, w = unlike.shape
    mask = unlike.astype(np.uint8)
    if mask.sum() >= BOX_MASK_SHARE * h * w:
        mask = fill(cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8)))
        if mask.sum() >= BOX_MASK_SHARE * h * w:
            return mask
    ellipse = np.zeros((h, w), np.uint8)
    cv2.ellipse(ellipse, (w // 2, h // 2), (max(1, w // 2), max(1, h // 2)), 0, 0, 360, 1, -1)
    return ellipse
