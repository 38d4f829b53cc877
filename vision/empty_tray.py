"""The empty tray as the camera saw it, and what a frame shows that it did not.

Why: the camera above a tray is fixed, so a die is where a frame differs from the empty tray
in a way that neither a shadow nor a change of light explains. A speck, a screw or a glint
the empty tray already showed is then never a die, however die-like the detector finds it.

The empty tray is kept small (a die about ``DIE_PX`` across): enough to see a die, cheap to
compare. Before comparing, the reference is aligned on the frame by the tray's rim (a tray
nudged on the table, a camera knocked), and a frame it cannot be aligned on is said to show
another view, for the page to offer a new calibration.
"""

from __future__ import annotations

import base64
import math
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from vision.errors import BadCalibrationError
from vision.felt import SHADOW_FLOOR, to_lab

DIE_PX = 16.0  # a die's side in the stored copy
MAX_SIDE = 640  # and the copy's longer side at most
RIM_DICE = 0.6  # the band aligned on reaches this many die sides each side of the outline
DIFFERENT = 6.0  # standard deviations of the frame-to-reference noise: a pixel that differs
NOISE_FLOOR = (1.0, 1.0, 1.0)  # the least noise assumed per Lab channel (a rendered tray)
SAME_VIEW = 0.55  # the rim's correlation after aligning, under which the view is another one
MOVED_DICE = 0.3  # the tray's middle moved this many die sides since calibration: say so
LIGHT_RANGE = (0.45, 2.2)  # the felt's light over the reference's outside this: say so
REFRESH_WEIGHT = 0.25  # how much of an empty frame goes into the reference
INSET = 0.15  # of a box's side: its margin, left out when counting what differs in it


@dataclass(frozen=True)
class View:
    """How the camera sees the tray now: ``warp`` takes reference pixels to the frame's
    copy (2x3, Euclidean), ``correlation`` is how well the rims then agree (1: exactly)."""

    warp: np.ndarray
    correlation: float

    @classmethod
    def still(cls) -> View:
        return cls(np.eye(2, 3, dtype=np.float32), 1.0)

    @property
    def same_tray(self) -> bool:
        return self.correlation >= SAME_VIEW

    def frame_points(
        self, points: Sequence[tuple[float, float]], scale: float
    ) -> list[tuple[float, float]]:
        """Frame points of the calibration (the felt's outline) where the tray now shows
        them, for a copy ``scale`` times the frame's size."""
        linear, shift = self.warp[:, :2], self.warp[:, 2] / scale
        return [tuple(float(v) for v in linear @ np.asarray(p) + shift) for p in points]  # type: ignore[misc]


@dataclass(frozen=True)
class Difference:
    """What a frame shows that the empty tray does not, in the frame's small copy:
    ``mask`` the pixels no shadow or light change explains, ``felt`` the tray's area as the
    frame sees it, ``light`` the felt's lightness over the reference's."""

    mask: np.ndarray
    felt: np.ndarray
    light: float
    scale: float  # the copy's pixels per frame pixel

    def dice_in(self, box: tuple[float, float, float, float], die_side: float) -> float:
        """How many dice's worth of differing pixels lie in a frame box (less a margin of
        ``INSET`` of each side, where a neighbour may reach in): a die shows most of one, a
        speck of dust a few hundredths."""
        x0, y0, x1, y1 = (v * self.scale for v in box)
        dx, dy = (x1 - x0) * INSET, (y1 - y0) * INSET
        h, w = self.mask.shape
        c0, c1 = int(np.clip(x0 + dx, 0, w - 1)), int(np.clip(math.ceil(x1 - dx), 1, w))
        r0, r1 = int(np.clip(y0 + dy, 0, h - 1)), int(np.clip(math.ceil(y1 - dy), 1, h))
        window = self.mask[r0 : max(r1, r0 + 1), c0 : max(c1, c0 + 1)]
        return float(window.sum()) / max((die_side * self.scale) ** 2, 1.0)


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
        reach = max(3, round(RIM_DICE * self.die_px) | 1)
        kernel = np.ones((reach, reach), np.uint8)
        self.rim = cv2.dilate(self.felt, kernel) - cv2.erode(self.felt, kernel)
        self.lab = to_lab(image)
        self.edges = rim_edges(image)

    @classmethod
    def of_photo(
        cls,
        photo: np.ndarray,
        area: tuple[tuple[float, float], ...],
        die_side: float,
        without: list[tuple[int, int, int, int]] | None = None,
    ) -> EmptyTray:
        """The copy of a BGR photo of the empty tray, for a calibration made on it;
        ``without``: boxes (photo pixels) of dice lying in it, painted over from the felt
        around them."""
        height, width = photo.shape[:2]
        scale = min(1.0, DIE_PX / max(die_side, 1.0), MAX_SIDE / max(width, height))
        image = small_copy(photo, scale)
        if without:
            holes = np.zeros(image.shape[:2], np.uint8)
            for x0, y0, x1, y1 in without:
                pad = 0.15 * (x1 - x0)
                corners = np.array([x0 - pad, y0 - pad, x1 + pad, y1 + pad]) * scale
                a0, b0, a1, b1 = np.round(corners).astype(int)
                cv2.rectangle(holes, (a0, b0), (a1, b1), 1, -1)
            image = cv2.inpaint(image, holes, 3, cv2.INPAINT_TELEA)
        return cls(image, (width, height), area, die_side)

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
        if image is None or image.ndim != 3 or min(image.shape[:2]) < 8:
            raise BadCalibrationError(f"{name}: the empty tray's picture is unreadable")
        return image

    # -- a frame against it ---------------------------------------------------------------
    def shrink(self, frame: np.ndarray) -> np.ndarray:
        """A frame's copy at this reference's size."""
        return small_copy(frame, self.image.shape[1] / frame.shape[1], self.image.shape[1::-1])

    def align(self, small: np.ndarray, start: View | None = None) -> View:
        """Where the tray lies in a frame's copy: its rim's edges matched to the
        reference's (ECC, Euclidean), from ``start`` (the last view) when given."""
        warp = (start or View.still()).warp.copy()
        edges = rim_edges(small)
        criteria = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 40, 1e-4)
        try:
            correlation, warp = cv2.findTransformECC(
                self.edges, edges, warp, cv2.MOTION_EUCLIDEAN, criteria, self.rim, 1
            )
        except cv2.error:  # no convergence: nothing there looks like this tray's rim
            warp = (start or View.still()).warp.copy()
            correlation = self.correlation(edges, warp)
        if not np.isfinite(warp).all() or abs(warp[0, 2]) + abs(warp[1, 2]) > small.shape[1]:
            warp = View.still().warp
            correlation = self.correlation(edges, warp)
        return View(warp.astype(np.float32), float(correlation))

    def correlation(self, edges: np.ndarray, warp: np.ndarray) -> float:
        """How well the rim's edges agree under ``warp`` (zero-mean normalised)."""
        moved = cv2.warpAffine(self.edges, warp, edges.shape[::-1], flags=cv2.INTER_LINEAR)
        band = cv2.warpAffine(self.rim, warp, edges.shape[::-1], flags=cv2.INTER_NEAREST) > 0
        a, b = moved[band], edges[band]
        if a.size < 16:
            return 0.0
        a, b = a - a.mean(), b - b.mean()
        return float((a * b).sum() / (np.sqrt((a * a).sum() * (b * b).sum()) + 1e-9))

    def moved(self, view: View) -> float:
        """How far the felt's middle lies from where the calibration saw it, in die sides."""
        ys, xs = np.nonzero(self.felt)
        middle = np.array([xs.mean(), ys.mean(), 1.0], np.float32)
        return float(np.hypot(*(view.warp @ middle - middle[:2])) / max(self.die_px, 1.0))

    def difference(self, small: np.ndarray, view: View) -> Difference:
        """The pixels of a frame's copy that the aligned empty tray does not explain.

        A pixel is compared with the reference's pixel, and its two neighbours either way
        (what a sub-pixel misalignment moves), after the felt's light change; a darker pixel
        counts only by its change of colour (a shadow dims lightness and colour together),
        unless it is darker than any shadow. Noise is measured on the frame itself."""
        shape = small.shape[1::-1]
        reference = cv2.warpAffine(self.lab, view.warp, shape, borderMode=cv2.BORDER_REPLICATE)
        felt = cv2.warpAffine(self.felt, view.warp, shape, flags=cv2.INTER_NEAREST) > 0
        lab = to_lab(small)
        level = (lab[..., 0] + 16) / (reference[..., 0] + 16)
        light = float(np.median(level[felt])) if felt.any() else 1.0
        reference[..., 0] = (reference[..., 0] + 16) * light - 16
        reference[..., 1:] *= light
        distance = nearest_distance(lab, reference, felt)
        mask = cv2.blur(distance, (3, 3)) > DIFFERENT
        return Difference(mask & felt, felt, light, self.scale)

    def refreshed(self, small: np.ndarray, view: View) -> EmptyTray:
        """The reference with an empty frame's copy blended in (the light drifts through
        an evening), the frame first warped back to the reference's view."""
        inverse = cv2.invertAffineTransform(view.warp)
        back = cv2.warpAffine(
            small, inverse, self.image.shape[1::-1], borderMode=cv2.BORDER_REPLICATE
        )
        mixed = cv2.addWeighted(self.image, 1 - REFRESH_WEIGHT, back, REFRESH_WEIGHT, 0)
        return EmptyTray(mixed, self.size, self.area, self.die_side)


def small_copy(image: np.ndarray, scale: float, size: tuple[int, int] | None = None) -> np.ndarray:
    """``image`` shrunk by ``scale`` (or to ``size``) by averaging: halved while it can be
    (fast in OpenCV), the rest by area."""
    height, width = image.shape[:2]
    size = size or (max(8, round(width * scale)), max(8, round(height * scale)))
    while image.shape[1] >= 2 * size[0] and image.shape[0] >= 2 * size[1]:
        image = cv2.resize(
            image, (image.shape[1] // 2, image.shape[0] // 2), interpolation=cv2.INTER_AREA
        )
    if image.shape[1::-1] == tuple(size):
        return image
    return cv2.resize(image, size, interpolation=cv2.INTER_AREA)


def rim_edges(image: np.ndarray) -> np.ndarray:
    """Edge strength of a small BGR copy, on the square root of its brightness so that a
    bright table and a dark felt both show their edges; what the alignment matches."""
    grey = np.sqrt(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float32))
    gx = cv2.Sobel(grey, cv2.CV_32F, 1, 0)
    gy = cv2.Sobel(grey, cv2.CV_32F, 0, 1)
    return cv2.GaussianBlur(cv2.magnitude(gx, gy), (0, 0), 1.0)


def nearest_distance(lab: np.ndarray, reference: np.ndarray, felt: np.ndarray) -> np.ndarray:
    """Per pixel, the least shadow-forgiving distance (in noise units) to the reference's
    pixel or its 3x3 neighbours: the lightest and darkest of them bracket what a sub-pixel
    shift can make of it."""
    kernel = np.ones((3, 3), np.uint8)
    high, low = cv2.dilate(reference, kernel), cv2.erode(reference, kernel)
    near = np.clip(lab, low, high)
    return shadow_distance(lab, near, felt)


def shadow_distance(lab: np.ndarray, reference: np.ndarray, felt: np.ndarray) -> np.ndarray:
    """How far each pixel is from the reference's, in units of their difference's spread
    over the felt: lighter pixels by every channel, darker ones by their colour against the
    reference dimmed as much, plus a penalty below ``SHADOW_FLOOR`` (no shadow is that
    dark: a black die, a hole)."""
    ref_l = reference[..., 0] + 16
    shade = np.minimum((lab[..., 0] + 16) / np.maximum(ref_l, 1e-3), 1.0)
    deltas = (
        lab[..., 0] + 16 - ref_l * shade,
        lab[..., 1] - reference[..., 1] * shade,
        lab[..., 2] - reference[..., 2] * shade,
    )
    total = np.zeros(lab.shape[:2], np.float32)
    for delta, floor in zip(deltas, NOISE_FLOOR, strict=True):
        spread = 1.4826 * float(np.median(np.abs(delta[felt]))) if felt.any() else 0.0
        total += np.square(delta / max(spread, floor))
    return np.sqrt(total) + np.maximum(SHADOW_FLOOR - shade, 0) * np.float32(60)
