"""The empty tray as the camera saw it, and what a frame shows that it did not.

Why: the camera above a tray is fixed, so a die is where a frame differs from the empty tray
in a way that neither a shadow nor a change of light explains. A speck, a screw or a glint
the empty tray already showed is then never a die, however die-like the detector finds it.

The empty tray is kept small (a die about ``DIE_PX`` across): enough to see a die, cheap to
compare. Before comparing, the reference is aligned on the frame by the tray's rim (a tray
nudged on the table, a camera knocked), and a frame it cannot be aligned on, or that differs
from it almost everywhere, is said to show another view, for the page to offer a new
calibration.
"""

from __future__ import annotations

import base64
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import cv2
import numpy as np

from vision.errors import BadCalibrationError
from vision.felt import SHADOW_FLOOR, FeltModel, to_lab
from vision.images import shrink

DIE_PX = 24.0  # a die's side in the stored copy
MAX_SIDE = 640  # and the copy's longer side at most
RIM_DICE = 0.6  # the band aligned on reaches this many die sides each side of the outline
RIM_LEAST = 4.0  # a band of fewer die sides' worth of pixels than this is no rim to align on
COARSE_PX = 6.0  # aligning starts on a copy where a die is about this wide
SAME_VIEW = 0.5  # the rim's correlation after aligning, under which the view is another one
STILL = 0.8  # the rim agrees this well where the tray was: it has not moved
BETTER = 0.02  # a new alignment must agree this much better than the old one
MOVED_DICE = 0.3  # the tray's middle moved this many die sides since calibration: say so
LIGHT_RANGE = (0.45, 2.2)  # the felt's light over the reference's outside this: say so
DIFFERENT = 6.0  # noise units (Lab, after the light change): a pixel that differs
NOISE_FLOOR = (1.0, 1.0, 1.0)  # the least noise assumed per Lab channel (a rendered tray)
NEAR = 5  # a pixel is compared with the reference's in this square: a tray nudged a pixel
REACH = 0.5  # dice are looked for this many die sides beyond the felt's outline
DETAIL_PX = 5  # the patch (copy pixels, about a fifth of a die) fine detail is measured over
DETAIL_FLOOR = 0.8  # the least noise assumed in the detail (lightness units)
BARE_FELT = 3.0  # standard deviations from the felt's colour: this close is bare felt
FELT_DISTANCE = 6.0  # and this far is something else (vision.segment's threshold)
INSET = 0.15  # of a box's side: its margin, left out when counting what differs in it
REFRESH_WEIGHT = 0.25  # how much of an empty frame goes into the reference
SAMPLE = 4  # noise is measured on every SAMPLE-th row and column
# a pixel darker than the reference by this share of its L+16, its colour within SHADE_CHROMA
# (a, b units) of the reference dimmed as much: what a shadow alone would make of it
SHADE_DARKER, SHADE_CHROMA = 0.05, 5.0


@dataclass(frozen=True)
class View:
    """How the camera sees the tray now: ``warp`` takes reference pixels to the frame's
    copy (2x3, Euclidean), ``correlation`` is how well the rims then agree (1: exactly;
    None: the view shows no rim to align on, so the tray is taken not to have moved)."""

    warp: np.ndarray
    correlation: float | None

    @classmethod
    def still(cls, correlation: float | None = 1.0) -> View:
        return cls(np.eye(2, 3, dtype=np.float32), correlation)

    @property
    def same_tray(self) -> bool:
        return self.correlation is None or self.correlation >= SAME_VIEW

    def frame_points(
        self, points: Sequence[tuple[float, float]], scale: float
    ) -> list[tuple[float, float]]:
        """Frame points of the calibration (the felt's outline) where the tray now shows
        them, for a copy ``scale`` times the frame's size."""
        linear, shift = self.warp[:, :2], self.warp[:, 2] / scale
        return [(float(x), float(y)) for x, y in (linear @ np.asarray(p) + shift for p in points)]


@dataclass(frozen=True)
class Difference:
    """What a frame shows that the empty tray does not, in the frame's small copy:
    ``mask`` the pixels whose colour no shadow or light change explains, ``texture`` those
    whose fine detail is new (the lines and numerals of a clear die, which a shadow's
    forgiveness would pass over), ``felt`` where dice may lie, ``lab`` the copy in Lab,
    ``light`` the felt's lightness over the reference's, ``changed`` the share of the felt
    that differs, ``even`` the copy in the reference's light and ``reference`` the reference
    as the copy sees it (what :attr:`shaded` compares)."""

    mask: np.ndarray
    texture: np.ndarray
    felt: np.ndarray
    lab: np.ndarray
    light: float
    changed: float
    scale: float  # the copy's pixels per frame pixel
    even: np.ndarray
    reference: np.ndarray

    @cached_property
    def shaded(self) -> np.ndarray:
        """The pixels a shadow alone explains, however dark (:func:`shaded`): asked only of a
        frame with a region no box accounts for, so most frames never pay for it."""
        return shaded(self.even, self.reference)

    def extent(self, box: tuple[float, float, float, float], die_side: float) -> float:
        """How much of a die the new pixels in a frame box span (less a margin of ``INSET``
        of each side, where a neighbour may reach in): the area of their convex hull, in
        dice. A die's outline and lines span most of one even where they differ faintly,
        as a clear die's do; a speck of dust spans a few hundredths."""
        x0, y0, x1, y1 = (v * self.scale for v in box)
        dx, dy = (x1 - x0) * INSET, (y1 - y0) * INSET
        h, w = self.mask.shape
        c0, c1 = min(max(int(x0 + dx), 0), w - 1), min(max(math.ceil(x1 - dx), 1), w)
        r0, r1 = min(max(int(y0 + dy), 0), h - 1), min(max(math.ceil(y1 - dy), 1), h)
        window = np.s_[r0 : max(r1, r0 + 1), c0 : max(c1, c0 + 1)]
        points = cv2.findNonZero((self.mask[window] | self.texture[window]).astype(np.uint8))
        if points is None or len(points) < 3:
            return 0.0
        hull = cv2.contourArea(cv2.convexHull(points))
        return float(hull) / max((die_side * self.scale) ** 2, 1.0)


@dataclass(frozen=True)
class _Aligned:
    """The reference as one view sees it, worked out once for the frames of that view:
    its Lab (and the lightest and darkest of each pixel's ``NEAR`` square), the range of
    its fine detail, the felt, where dice may lie, and where it shows bare felt all round."""

    lab: np.ndarray
    low: np.ndarray
    high: np.ndarray
    detail_low: np.ndarray
    detail_high: np.ndarray
    felt: np.ndarray
    reach: np.ndarray
    bare: np.ndarray | None


class EmptyTray:
    """The empty tray's small copy (BGR uint8) for a calibration of ``size`` (width,
    height) whose felt has the outline ``area`` and whose dice are ``die_side`` wide."""

    def __init__(
        self,
        image: np.ndarray,
        size: tuple[int, int],
        area: tuple[tuple[float, float], ...],
        die_side: float,
    ) -> None:
        self.image = image
        self.size = size
        self.area = area
        self.die_side = die_side
        self.scale = image.shape[1] / size[0]
        self.die_px = die_side * self.scale
        polygon = np.round(np.asarray(area, np.float32) * self.scale).astype(np.int32)
        self.felt = np.zeros(image.shape[:2], np.uint8)
        cv2.fillPoly(self.felt, [polygon], 1)
        band = np.ones((odd(RIM_DICE * self.die_px),) * 2, np.uint8)
        # the outline's edges inside the picture (the felt's edge at the frame's is no rim)
        self.rim = cv2.dilate(self.felt, band) - cv2.erode(self.felt, band)
        # where a die may lie: a die against the wall leans a little over the felt's edge
        self.reach = cv2.dilate(self.felt, np.ones((odd(REACH * self.die_px),) * 2, np.uint8))
        moments = cv2.moments(self.felt, binaryImage=True)
        area = max(moments["m00"], 1.0)
        self.middle = np.array([moments["m10"] / area, moments["m01"] / area, 1.0], np.float32)
        self.lab = to_lab(image)
        edges = rim_edges(image)
        has_rim = self.rim.sum() >= RIM_LEAST * self.die_px * odd(RIM_DICE * self.die_px)
        # the rim's own edges, not a die's sharper ones by the wall, decide the alignment
        self.ceiling = float(np.percentile(edges[self.rim > 0], 98)) if has_rim else 0.0
        self.edges = np.minimum(edges, self.ceiling) if has_rim else None
        self._aligned: tuple[bytes, object, _Aligned] | None = None

    @classmethod
    def of_photo(
        cls, photo: np.ndarray, area: tuple[tuple[float, float], ...], die_side: float
    ) -> EmptyTray:
        """The copy of a BGR photo of the empty tray, for a calibration made on it."""
        height, width = photo.shape[:2]
        scale = min(1.0, DIE_PX / max(die_side, 1.0), MAX_SIDE / max(width, height))
        return cls(shrink(photo, scale), (width, height), area, die_side)

    def for_size(
        self, size: tuple[int, int], area: tuple[tuple[float, float], ...], die_side: float
    ) -> EmptyTray:
        """The same copy for frames of another resolution of the same view."""
        return EmptyTray(self.image, size, area, die_side)

    # -- storage ------------------------------------------------------------------------
    def to_json(self) -> str:
        ok, data = cv2.imencode(".png", self.image)
        if not ok:
            raise BadCalibrationError("the empty tray could not be encoded")
        return base64.b64encode(data.tobytes()).decode("ascii")

    @staticmethod
    def decode(text: str, name: str) -> np.ndarray:
        """The copy's pixels from :meth:`to_json`; BadCalibrationError when unreadable."""
        try:
            raw = np.frombuffer(base64.b64decode(text, validate=True), np.uint8)
        except (ValueError, TypeError):
            raise BadCalibrationError(f"{name}: the empty tray is not base64") from None
        image = cv2.imdecode(raw, cv2.IMREAD_COLOR) if raw.size else None
        if image is None or min(image.shape[:2]) < 8:
            raise BadCalibrationError(f"{name}: the empty tray's picture is unreadable")
        return image

    # -- a frame against it ---------------------------------------------------------------
    def shrink(self, frame: np.ndarray) -> np.ndarray:
        """A frame's copy at this reference's size."""
        return shrink(frame, size=self.image.shape[1::-1])

    def align(self, small: np.ndarray, start: View | None = None) -> View:
        """Where the tray lies in a frame's copy: where it was (``start``, the last view,
        else as calibrated) while the rim's edges still agree there, else where ECC
        (Euclidean, coarse to fine) matches them best, when that agrees better."""
        start = start or View.still()
        if self.edges is None:
            return View(start.warp, None)
        edges = np.minimum(rim_edges(small), self.ceiling)
        before = self.correlation(edges, start.warp)
        if before >= STILL:
            return View(start.warp, before)
        warp = self.match(small, start.warp)
        if warp is None:
            return View(start.warp, before)
        after = self.correlation(edges, warp)
        if after <= before + BETTER:
            return View(start.warp, before)
        return View(warp, after)

    def match(self, small: np.ndarray, start: np.ndarray) -> np.ndarray | None:
        """ECC of the rims from ``start``, on copies halved while a die stays ``COARSE_PX``
        wide and then finer (a shift of half a die is out of reach at full size, where the
        rim's edges are two pixels thick); None when it does not converge."""
        levels = max(0, math.ceil(math.log2(max(self.die_px / COARSE_PX, 1.0)) - 0.01))
        warp = start.copy()
        warp[:, 2] /= 2**levels
        criteria = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 50, 1e-4)
        for level in range(levels, -1, -1):
            factor = 2**level
            size = (max(8, self.image.shape[1] // factor), max(8, self.image.shape[0] // factor))
            ours = cv2.resize(self.image, size, interpolation=cv2.INTER_AREA)
            theirs = cv2.resize(small, size, interpolation=cv2.INTER_AREA)
            rim = cv2.resize(self.rim, size, interpolation=cv2.INTER_NEAREST)
            template = np.minimum(rim_edges(ours), self.ceiling)
            try:
                _, warp = cv2.findTransformECC(
                    template,
                    np.minimum(rim_edges(theirs), self.ceiling),
                    warp,
                    cv2.MOTION_EUCLIDEAN,
                    criteria,
                    rim,
                    1,
                )
            except cv2.error:  # no convergence: nothing there looks like this tray's rim
                return None
            if level:
                warp[:, 2] *= 2
        return warp.astype(np.float32) if np.isfinite(warp).all() else None

    def correlation(self, edges: np.ndarray, warp: np.ndarray) -> float:
        """How well the rim's edges agree under ``warp`` (zero-mean normalised)."""
        assert self.edges is not None
        shape = edges.shape[::-1]
        moved = cv2.warpAffine(self.edges, warp, shape, flags=cv2.INTER_LINEAR)
        band = cv2.warpAffine(self.rim, warp, shape, flags=cv2.INTER_NEAREST) > 0
        a, b = moved[band], edges[band]
        if a.size < 16:
            return 0.0
        a, b = a - a.mean(), b - b.mean()
        return float((a * b).sum() / (np.sqrt((a * a).sum() * (b * b).sum()) + 1e-9))

    def moved(self, view: View) -> float:
        """How far the felt's middle lies from where the calibration saw it, in die sides."""
        middle = self.middle
        return float(np.hypot(*(view.warp @ middle - middle[:2])) / max(self.die_px, 1.0))

    def difference(
        self, small: np.ndarray, view: View, felt_model: FeltModel | None = None
    ) -> Difference:
        """The pixels of a frame's copy that the aligned empty tray does not explain.

        A pixel is compared with the reference's pixels of its ``NEAR`` square (what a small
        misalignment moves), after the felt's light change; a darker pixel counts only by
        its change of colour (a shadow dims lightness and colour together), unless it is
        darker than any shadow. Noise is measured on the frame itself. Given the
        ``felt_model``: where the frame shows bare felt something was taken away (a screw
        that lay there), and near what the empty tray showed that is not felt (a bracket, a
        speck) a nudged tray moves its edges: neither is new."""
        seen = self.aligned(view, small.shape[1::-1], felt_model)
        lab = to_lab(small)
        felt = seen.felt > 0
        sample = felt[::SAMPLE, ::SAMPLE]
        level = (lab[::SAMPLE, ::SAMPLE, 0] + 16) / (seen.lab[::SAMPLE, ::SAMPLE, 0] + 16)
        light = float(np.median(level[sample])) if sample.any() else 1.0
        # the frame as if in the reference's light: L+16, a and b all scale with it
        undo = np.array(
            [[1 / light, 0, 0, 16 / light - 16], [0, 1 / light, 0, 0], [0, 0, 1 / light, 0]],
            np.float32,
        )
        even = cv2.transform(lab, undo)
        near = cv2.min(cv2.max(even, seen.low), seen.high)
        mask = cv2.blur(shadow_distance(even, near, felt), (3, 3)) > DIFFERENT
        lightness = np.ascontiguousarray(even[..., 0])
        texture = detail_difference(detail(lightness), seen.detail_low, seen.detail_high, felt)
        reach = seen.reach > 0
        if felt_model is not None and seen.bare is not None:
            bare = seen.bare > 0
            mask &= bare
            texture &= bare
            pixels = even[mask][:, None, :]
            far = felt_model.distance(pixels, light_at(felt_model, lab, mask))[:, 0]
            mask[mask] = far > BARE_FELT
        mask &= reach
        texture &= reach
        changed = float(mask[felt].mean()) if felt.any() else 0.0
        return Difference(mask, texture, reach, lab, light, changed, self.scale, even, near)

    def aligned(self, view: View, shape: tuple[int, int], felt_model: FeltModel | None) -> _Aligned:
        """The reference as ``view`` sees it (kept for the last view asked of)."""
        felt_key = None if felt_model is None else (felt_model.mean, felt_model.covariance)
        key = (view.warp.tobytes() + bytes(str(shape), "ascii"), felt_key)
        if self._aligned is not None and self._aligned[:2] == key:
            return self._aligned[2]
        still = np.array_equal(view.warp, View.still().warp) and shape == self.image.shape[1::-1]

        def warped(image: np.ndarray, nearest: bool = False) -> np.ndarray:
            if still:
                return image
            how = cv2.INTER_NEAREST if nearest else cv2.INTER_LINEAR
            return cv2.warpAffine(
                image, view.warp, shape, flags=how, borderMode=cv2.BORDER_REPLICATE
            )

        lab = warped(self.lab)
        square = np.ones((NEAR, NEAR), np.uint8)
        ours = detail(lab[..., 0])
        bare = None
        if felt_model is not None:
            felt_like = (felt_model.distance(self.lab) < FELT_DISTANCE).astype(np.uint8)
            bare = warped(cv2.erode(felt_like, square), nearest=True)
        seen = _Aligned(
            lab,
            cv2.erode(lab, square),
            cv2.dilate(lab, square),
            cv2.erode(ours, square),
            cv2.dilate(ours, square),
            warped(self.felt, nearest=True),
            warped(self.reach, nearest=True),
            bare,
        )
        self._aligned = (key[0], key[1], seen)
        return seen

    def refreshed(self, small: np.ndarray, view: View) -> EmptyTray:
        """The reference with an empty frame's copy blended in (the light drifts through
        an evening), the frame first warped back to the reference's view."""
        inverse = cv2.invertAffineTransform(view.warp)
        back = cv2.warpAffine(
            small, inverse, self.image.shape[1::-1], borderMode=cv2.BORDER_REPLICATE
        )
        mixed = cv2.addWeighted(self.image, 1 - REFRESH_WEIGHT, back, REFRESH_WEIGHT, 0)
        return EmptyTray(mixed, self.size, self.area, self.die_side)


def odd(length: float) -> int:
    """A structuring element's side: odd, at least 3."""
    return max(3, round(length) | 1)


def light_at(felt_model: FeltModel, lab: np.ndarray, where: np.ndarray) -> np.ndarray | None:
    """The felt's light map at the pixels ``where`` of a copy (N x 1), for
    :meth:`FeltModel.distance` on those pixels alone."""
    light = felt_model.light_for(lab.shape)
    return None if light is None else light[where][:, None]


def rim_edges(image: np.ndarray) -> np.ndarray:
    """Edge strength of a small BGR copy, on the square root of its brightness so that a
    bright table and a dark felt both show their edges; what the alignment matches."""
    grey = np.sqrt(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float32))
    gx = cv2.Sobel(grey, cv2.CV_32F, 1, 0)
    gy = cv2.Sobel(grey, cv2.CV_32F, 0, 1)
    return cv2.GaussianBlur(cv2.magnitude(gx, gy), (0, 0), 1.0)


def detail(lightness: np.ndarray) -> np.ndarray:
    """A lightness channel less its local mean: the fine detail a shadow leaves alone."""
    channel = np.ascontiguousarray(lightness)
    return channel - cv2.blur(channel, (DETAIL_PX, DETAIL_PX))


def spread(values: np.ndarray) -> float:
    """A robust standard deviation (scaled median absolute value) of a sample."""
    return 1.4826 * float(np.median(np.abs(values))) if values.size else 0.0


def detail_difference(
    ours: np.ndarray, low: np.ndarray, high: np.ndarray, felt: np.ndarray
) -> np.ndarray:
    """Pixels whose fine detail lies outside the reference's range for them by more than
    ``DIFFERENT`` times the frame's own noise in it."""
    delta = ours - np.minimum(np.maximum(ours, low), high)
    noise = spread(delta[::SAMPLE, ::SAMPLE][felt[::SAMPLE, ::SAMPLE]])
    return np.abs(delta) > DIFFERENT * max(noise, DETAIL_FLOOR)


def shaded(lab: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """The pixels darker than the reference's whose colour is the reference's dimmed as much
    (``SHADE_DARKER``, ``SHADE_CHROMA``): a shadow, even one darker than ``SHADOW_FLOOR``."""
    l_, a_, b_ = cv2.split(lab)
    ref_l, ref_a, ref_b = cv2.split(reference)
    shade = (l_ + 16) / np.maximum(ref_l + 16, 1e-3)
    chroma = cv2.magnitude(a_ - ref_a * shade, b_ - ref_b * shade)
    return (shade < 1 - SHADE_DARKER) & (chroma < SHADE_CHROMA)


def shadow_distance(lab: np.ndarray, reference: np.ndarray, felt: np.ndarray) -> np.ndarray:
    """How far each pixel is from the reference's, in units of their difference's spread
    over the felt: lighter pixels by every channel, darker ones by their colour against the
    reference dimmed as much, plus a penalty below ``SHADOW_FLOOR`` (no shadow is that
    dark: a black die, a hole)."""
    l_, a_, b_ = cv2.split(lab)
    ref_l, ref_a, ref_b = cv2.split(reference)
    ref_l += 16
    shade = np.minimum((l_ + 16) / np.maximum(ref_l, 1e-3), 1.0)
    deltas = (l_ + 16 - ref_l * shade, a_ - ref_a * shade, b_ - ref_b * shade)
    sample = felt[::SAMPLE, ::SAMPLE]
    total = np.zeros(lab.shape[:2], np.float32)
    for delta, floor in zip(deltas, NOISE_FLOOR, strict=True):
        noise = max(spread(delta[::SAMPLE, ::SAMPLE][sample]), floor)
        total += np.square(delta * np.float32(1 / noise))
    return np.sqrt(total) + np.maximum(SHADOW_FLOOR - shade, 0) * np.float32(60)
