"""What the camera sees of the empty tray: where the felt is, its colour, how big a die
looks, and whether the light is good enough, saved as a small versioned JSON file.

Why calibrate: a frame alone must guess which colour is the felt and how big a die is; one
photo of the empty tray answers both for every throw after it, makes shadows and uneven
light part of the felt, and lets the appliance tell the players to fix the lighting (with
the measured numbers) before a bad reading does.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.empty_tray import EmptyTray
from vision.errors import BadCalibrationError
from vision.felt import FeltModel, to_lab
from vision.files import read_json, write_json

FORMAT = "yamscope-calibration"
VERSION = 2  # 2: the empty tray's picture; version 1 files are read without it
READS = (1, 2)
SAME_SHAPE = 0.02  # frames whose width/height differs from the calibration's by more: refused
WORK_LONG_SIDE = 320  # calibration looks at a copy this wide: the felt is large
MODE_BIN = 8.0  # Lab units per bin of the histogram that finds the felt's colour
# The felt reaches across shading whose gradient (Sobel, Lab) stays under this, however smooth
# the felt: a wall's foot is a sharp step, but a wall just outside the picture shades the
# felt beside it gently, and dice lie there (docs/finding-dice.md).
RIDGE_FLOOR = 30.0
# the felt running along a side of the picture for this many die sides: the camera may not
# see the tray's wall there, and a die can lie half out of the picture
CUT_OFF = 2.0
SIDES = ("left", "top", "right", "bottom")
# a felt within this share of its convex hull's area is a whole tray less a shadowed corner
# or a die at its edge: its outline is the hull
NOTCH = 0.03
# A die's side as a share of the felt's shorter side when no die lies in the calibration
# photo to measure (a 16 mm die, seen with a little of its sides, on 18 cm of felt);
# frames then measure their own dice when they can.
DIE_SHARE = 1 / 9.5
# The light advice: the limits each measured number is held to.
DARK = 0.25  # the felt's brightest channel averages under a quarter of full scale: too dark
GLARE_SHARE = 0.005  # share of the tray's pixels clipped at white above this: glare
UNEVEN = 0.35  # lightness (L*+16) of the brightest part of the felt over its darkest, - 1
# The frames' horizontal field of view (degrees) when the calibration is not told: a Pi Camera
# Module 3's 4:3 stream; the cocked-die model and the face reading need it (docs/camera.md).
DEFAULT_FIELD_OF_VIEW = 52.0
FIELD_OF_VIEW_RANGE = (10.0, 150.0)  # degrees: beyond these no pinhole model of a lens holds
# The widest camera the models learned from (models/synth/layout.py WIDE_CAMERA): past it the
# page says that dice near the wall may be read less well.
WIDEST_TRAINED = 75.0


@dataclass(frozen=True)
class Light:
    """The light on the felt as measured: mean CIELAB lightness (0..100); exposure, the
    mean of each pixel's brightest channel (0..1: a blue or red felt is dark in lightness
    under good light, not in its own channel); the share of pixels clipped white; and how
    much lighter the brightest part of the felt is than the darkest."""

    mean_lightness: float
    exposure: float
    saturated_share: float
    unevenness: float

    def problems(self) -> tuple[tuple[str, float, float], ...]:
        """Each problem as (name, measured, limit): ``dark``, ``glare``, ``uneven``; for a
        page that says them in its own language."""
        found = (
            ("dark", self.exposure, DARK, self.exposure < DARK),
            ("glare", self.saturated_share, GLARE_SHARE, self.saturated_share > GLARE_SHARE),
            ("uneven", self.unevenness, UNEVEN, self.unevenness > UNEVEN),
        )
        return tuple((name, round(value, 4), limit) for name, value, limit, bad in found if bad)

    def advice(self) -> tuple[str, ...]:
        """One line per problem, with the number measured and the limit it broke."""
        lightness = self.mean_lightness
        words = {
            "dark": "too dark: the felt's brightest channel averages {:.0%} of full scale "
            f"(want ≥ {{:.0%}}; lightness L* {lightness:.0f})",
            "glare": "glare: {:.1%} of the tray is clipped white (want ≤ {:.1%})",
            "uneven": "uneven light: the brightest part of the felt is {:.0%} lighter than the "
            "darkest (want ≤ {:.0%})",
        }
        return tuple(words[name].format(value, limit) for name, value, limit in self.problems())


@dataclass(frozen=True)
class Calibration:
    """One tray as one camera sees it, in pixels of an image of ``size`` (width, height)."""

    size: tuple[int, int]
    area: tuple[tuple[float, float], ...]  # the felt's outline, a polygon
    felt: FeltModel
    die_side: float
    die_measured: bool  # a die lay in the calibration photo (else guessed from the tray)
    light: Light
    field_of_view: float = DEFAULT_FIELD_OF_VIEW  # the camera's, across the frame, degrees
    empty: EmptyTray | None = None  # the empty tray's picture (None: a version 1 file)

    @property
    def advice(self) -> tuple[str, ...]:
        """The light's problems, then the sides of the picture the felt runs out of."""
        cut = self.cut_off
        if not cut:
            return self.light.advice()
        return (
            *self.light.advice(),
            f"the felt seems to run out of the picture at the {' and '.join(cut)}: if the "
            "camera does not see the tray's wall there, a die can lie half out of view; move "
            "or raise the camera until it sees the walls all round (a wall of the felt's "
            "colour looks like felt)",
        )

    @property
    def cut_off(self) -> tuple[str, ...]:
        """The sides of the picture (``SIDES``) the felt runs along for ``CUT_OFF`` die
        sides or more: there the camera may not see the tray's wall (or the wall is of the
        felt's colour, which the calibration cannot tell)."""
        width, height = self.size
        mask = self.area_mask(width, height)
        runs = (mask[:, :2], mask[:2].T, mask[:, -2:], mask[-2:].T)
        return tuple(
            side
            for side, run in zip(SIDES, runs, strict=True)
            if run.any(axis=1).sum() >= CUT_OFF * self.die_side
        )

    @property
    def focal(self) -> float:
        """The camera's focal length in frame widths."""
        return focal_widths(self.field_of_view)

    @property
    def tray_share(self) -> float:
        """How much of the frame the felt's outline covers (0..1)."""
        outline = np.asarray(self.area, np.float32)
        return float(cv2.contourArea(outline)) / (self.size[0] * self.size[1])

    def summary(self) -> dict[str, Any]:
        """What the table page shows of it: enough to see that the felt and the dice were
        found, and what to fix in the light."""
        return {
            "size": list(self.size),
            "tray_share": round(self.tray_share, 3),
            "die_side": round(self.die_side, 1),
            "die_measured": self.die_measured,
            "field_of_view": round(self.field_of_view, 1),
            "wider_than_trained": self.field_of_view > WIDEST_TRAINED,
            "cut_off": list(self.cut_off),
            "advice": list(self.advice),
            "light": [
                {"problem": name, "measured": value, "limit": limit}
                for name, value, limit in self.light.problems()
            ],
        }

    def for_size(self, width: int, height: int) -> Calibration:
        """The same calibration for frames of another resolution of the same view; a frame
        of another shape (16:9 against 4:3) shows another part of the sensor, so
        BadCalibrationError says to calibrate again."""
        if (width, height) == self.size:
            return self
        sx, sy = width / self.size[0], height / self.size[1]
        if abs(sx / sy - 1) > SAME_SHAPE:
            raise BadCalibrationError(
                f"the calibration was made on {self.size[0]}x{self.size[1]} pictures and the "
                f"camera now sends {width}x{height}, another shape: calibrate again"
            )
        area = tuple((x * sx, y * sy) for x, y in self.area)
        die_side = self.die_side * math.sqrt(sx * sy)
        empty = None if self.empty is None else self.empty.for_size((width, height), area, die_side)
        return replace(self, size=(width, height), area=area, die_side=die_side, empty=empty)

    def with_empty(self, image: np.ndarray) -> Calibration:
        """The calibration with another picture of its empty tray (same view and size)."""
        return replace(self, empty=EmptyTray(image, self.size, self.area, self.die_side))

    def area_mask(self, width: int, height: int) -> np.ndarray:
        """The tray's felt as a boolean mask of a width x height image."""
        sx, sy = width / self.size[0], height / self.size[1]
        polygon = np.array([[x * sx, y * sy] for x, y in self.area], np.float32)
        mask = np.zeros((height, width), np.uint8)
        cv2.fillPoly(mask, [np.round(polygon).astype(np.int32)], 1)
        return mask.astype(bool)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "version": VERSION,
            "size": list(self.size),
            "area": [[round(x, 2), round(y, 2)] for x, y in self.area],
            "felt": {
                "mean": [round(v, 4) for v in self.felt.mean],
                "covariance": [[round(v, 5) for v in row] for row in self.felt.covariance],
                "light": None if self.felt.light is None else np.round(self.felt.light, 4).tolist(),
            },
            "die_side": round(self.die_side, 2),
            "die_measured": self.die_measured,
            "light": {
                "mean_lightness": round(self.light.mean_lightness, 2),
                "exposure": round(self.light.exposure, 4),
                "saturated_share": round(self.light.saturated_share, 5),
                "unevenness": round(self.light.unevenness, 4),
            },
            "field_of_view": round(self.field_of_view, 3),
            "advice": list(self.advice),
            "empty": None if self.empty is None else self.empty.to_json(),
        }

    @classmethod
    def from_json(cls, data: Any, name: str = "calibration") -> Calibration:
        """The calibration in ``data``; anything missing, malformed or of another version
        raises BadCalibrationError."""
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise BadCalibrationError(f"{name}: not a yamscope calibration file")
        if data.get("version") not in READS:
            raise BadCalibrationError(
                f"{name}: calibration version {data.get('version')!r}, this yamscope reads "
                f"version {VERSION}: calibrate again"
            )
        try:
            felt = data["felt"]
            light = None if felt["light"] is None else np.asarray(felt["light"], np.float32)
            model = FeltModel(
                tuple(float(v) for v in felt["mean"]),
                tuple(tuple(float(v) for v in row) for row in felt["covariance"]),
                light,
            )
            width, height = (int(v) for v in data["size"])
            area = tuple((float(x), float(y)) for x, y in data["area"])
            result = cls(
                (width, height),
                area,
                model,
                float(data["die_side"]),
                bool(data["die_measured"]),
                Light(**{k: float(v) for k, v in data["light"].items()}),
                float(data.get("field_of_view", DEFAULT_FIELD_OF_VIEW)),
            )
            if data.get("empty") is not None:
                image = EmptyTray.decode(data["empty"], name)
                empty = EmptyTray(image, result.size, result.area, result.die_side)
                result = replace(result, empty=empty)
        except (KeyError, TypeError, ValueError) as exc:
            raise BadCalibrationError(f"{name}: incomplete calibration ({exc!r})") from None
        checks = (
            len(model.mean) == 3,
            np.shape(model.covariance) == (3, 3),
            light is None or (light.ndim == 2 and (light > 0).all()),
            width > 0 and height > 0 and len(area) >= 3 and result.die_side > 0,
            FIELD_OF_VIEW_RANGE[0] <= result.field_of_view <= FIELD_OF_VIEW_RANGE[1],
        )
        if not all(checks):
            raise BadCalibrationError(f"{name}: calibration values out of range")
        return result


def check_field_of_view(field_of_view: float) -> None:
    """BadCalibrationError unless ``field_of_view`` (degrees) is in ``FIELD_OF_VIEW_RANGE``."""
    low, high = FIELD_OF_VIEW_RANGE
    if not low <= field_of_view <= high:
        raise BadCalibrationError(
            f"field of view {field_of_view:g}° is not a camera's: give {low:g} to {high:g}°"
        )


def focal_widths(field_of_view: float) -> float:
    """A pinhole camera's focal length in frame widths, from its horizontal field of view
    in degrees."""
    return 0.5 / math.tan(math.radians(field_of_view) / 2)


def field_of_view_of(focal: float) -> float:
    """The horizontal field of view in degrees of a camera of focal length ``focal`` (frame
    widths): the inverse of :func:`focal_widths`."""
    return math.degrees(2 * math.atan(0.5 / focal))


def save(calibration: Calibration, path: str | Path) -> None:
    """Write the calibration as JSON, whole or not at all (``vision.files.write_json``): a
    power cut while writing leaves the old calibration, not half a file the appliance would
    refuse at its next start."""
    write_json(Path(path), calibration.to_json(), indent=1)


def load(path: str | Path) -> Calibration:
    """Read a calibration file; any problem raises BadCalibrationError naming the file."""
    path = Path(path)
    data = read_json(
        path, BadCalibrationError, "no such calibration file", "unreadable calibration"
    )
    return Calibration.from_json(data, str(path))


def mode_colour(lab: np.ndarray, where: np.ndarray) -> np.ndarray:
    """The centre of the most populated coarse Lab bin among the pixels ``where`` is true
    (every other row and column of them: a mode needs no more)."""
    pixels = lab[::2, ::2][where[::2, ::2]]
    if not len(pixels):
        pixels = lab[where]
    keys = np.clip(np.floor(pixels / MODE_BIN).astype(np.int32) + np.array([0, 32, 32]), 0, 63)
    flat = (keys[:, 0] * 64 + keys[:, 1]) * 64 + keys[:, 2]
    best = int(np.bincount(flat, minlength=64**3).argmax())
    index = np.array([best // 4096, (best // 64) % 64 - 32, best % 64 - 32], np.float32)
    return (index + 0.5) * MODE_BIN


def felt_region(lab: np.ndarray, threshold: float) -> tuple[np.ndarray, np.ndarray, FeltModel]:
    """The felt: the pixels like the most common colour of the middle of the view (judged
    over small patches, so that grain does not break it up and a wall a shade off its
    colour does not join it), the connected region of them that covers the middle, holes
    (dust, dice) filled; and its reach: the same across gentle shading too (``RIDGE_FLOOR``),
    where dice may lie though the felt's colour and light are fitted without it."""
    height, width = lab.shape[:2]
    middle = np.zeros((height, width), bool)
    middle[height // 4 : 3 * height // 4, width // 4 : 3 * width // 4] = True
    near = np.linalg.norm(lab - mode_colour(lab, middle), axis=2) < 12
    model = FeltModel.fit(lab, near & middle)
    ridges, steps = edge_lines(lab), edge_lines(lab, RIDGE_FLOOR)
    for _ in range(2):  # the second fit sees the felt's whole light map
        distance = cv2.blur(model.distance(lab), (5, 5))
        region = connected_over(distance < threshold, ~ridges, middle)
        model = FeltModel.fit(lab, region & (distance < threshold))
    reach = connected_over(distance < threshold, ~steps, region) | region
    return region, reach, model


def connected_over(like: np.ndarray, open_: np.ndarray, seed: np.ndarray) -> np.ndarray:
    """The region of ``like & open_`` (4-connected) that covers most of ``seed``, holes
    filled; BadCalibrationError when there is none."""
    count, labels = cv2.connectedComponents((like & open_).astype(np.uint8), connectivity=4)
    if count < 2:
        raise BadCalibrationError("no felt found in the middle of the view")
    inside = np.bincount(labels[seed], minlength=count)
    inside[0] = 0
    return fill_holes(labels == int(inside.argmax()))


def edge_lines(lab: np.ndarray, floor: float = 0.0) -> np.ndarray:
    """Sharp edges (gradient over four times the median, the felt's grain, and over
    ``floor``), thickened by a pixel: the foot of the tray wall, which may be the felt's
    colour in a dark tray."""
    gx = cv2.Sobel(lab, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(lab, cv2.CV_32F, 0, 1, ksize=3)
    magnitude = np.sqrt((gx * gx + gy * gy).sum(axis=2))
    strong = (magnitude > max(4 * float(np.median(magnitude)), floor)).astype(np.uint8)
    return cv2.dilate(strong, np.ones((3, 3), np.uint8)).astype(bool)


def fill_holes(mask: np.ndarray) -> np.ndarray:
    """The largest blob of ``mask``, its holes filled."""
    contours, _ = cv2.findContours(
        mask.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE
    )
    filled = np.zeros(mask.shape, np.uint8)
    cv2.drawContours(filled, [max(contours, key=cv2.contourArea)], -1, 1, -1)
    return filled.astype(bool)


def outline(region: np.ndarray) -> np.ndarray:
    """The felt's outline as a polygon of its corners: its convex hull when that is only
    ``NOTCH`` larger (a corner too dark to pass for felt is still felt), else the region's
    own (where the felt leaks into a wall of its colour, a hull would take in the wall)."""
    contours, _ = cv2.findContours(
        region.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE
    )
    contour = max(contours, key=cv2.contourArea)
    hull = cv2.convexHull(contour)
    if cv2.contourArea(hull) <= (1 + NOTCH) * cv2.contourArea(contour):
        contour = hull
    return cv2.approxPolyDP(contour, 0.005 * cv2.arcLength(contour, True), True).reshape(-1, 2)


def measure_light(
    image: np.ndarray, small: np.ndarray, lab: np.ndarray, region: np.ndarray, felt: np.ndarray
) -> Light:
    """The numbers the light advice rests on: clipped pixels counted over the tray's
    ``region`` on the full ``image`` (a small glint vanishes when shrunk), the rest on the
    ``felt`` pixels of the shrunk copy."""
    full_region = cv2.resize(
        region.astype(np.uint8), image.shape[1::-1], interpolation=cv2.INTER_NEAREST
    ).astype(bool)
    clipped = (image >= 250).all(axis=2)
    smooth = cv2.GaussianBlur(lab[..., 0], (0, 0), max(2.0, lab.shape[1] / 40))
    inner = cv2.erode(felt.astype(np.uint8), np.ones((9, 9), np.uint8)).astype(bool)
    levels = smooth[inner if inner.any() else felt] + 16
    low, high = np.percentile(levels, [5, 95])
    return Light(
        mean_lightness=float(lab[..., 0][felt].mean()),
        exposure=float(small.max(axis=2)[felt].mean() / 255),
        saturated_share=float(clipped[full_region].mean()),
        unevenness=float(high / max(low, 1.0) - 1),
    )


def calibrate(
    image: np.ndarray, threshold: float = 3.0, field_of_view: float = DEFAULT_FIELD_OF_VIEW
) -> Calibration:
    """Calibrate on a BGR photo of the empty tray, keeping a small copy of it: what every
    frame is compared with. A die lying flat in it gives the die size, but is then part of
    the empty tray: the owner is told to take it out and calibrate again.

    ``threshold``: standard deviations from the felt colour, averaged over a small patch,
    that still count as felt. ``field_of_view``: the camera's across the frame, in degrees
    (a photo does not tell it); BadCalibrationError outside ``FIELD_OF_VIEW_RANGE``."""
    from vision.segment import segment  # segment reads calibrations: imported late

    check_field_of_view(field_of_view)
    height, width = image.shape[:2]
    scale = min(1.0, WORK_LONG_SIDE / max(height, width))
    small = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    lab = to_lab(small)
    region, reach, felt = felt_region(lab, threshold)
    felt_pixels = region & (felt.distance(lab) < 2 * threshold)
    polygon = outline(reach) / scale
    # the die's size guessed from the felt itself, not from the shaded strip it reaches to
    short = min(cv2.minAreaRect((outline(region) / scale).astype(np.float32))[1])
    guess = Calibration(
        (width, height),
        tuple((float(x), float(y)) for x, y in polygon),
        felt,
        short * DIE_SHARE,
        False,
        measure_light(image, small, lab, region, region & felt_pixels),
        field_of_view,
    )
    found = segment(image, guess)
    if [b for b in found.blobs if not (b.cocked or b.occluded)]:
        guess = replace(guess, die_side=found.die_side, die_measured=True)
    return replace(guess, empty=EmptyTray.of_photo(image, guess.area, guess.die_side))
