"""The felt's colour and how far each pixel of a frame is from it, shadows forgiven.

Why a model of its own: calibration fits it on the empty tray, segmentation asks "is this
pixel felt?", the finish estimate asks "does the felt show through this die?". Without a
calibration the segmenter fits the same model on the most common colour of the frame.

A shadow is the felt under less light: in CIELAB, dimming a colour by k scales L+16, a and
b alike (all follow the cube root of the light), so a pixel is compared with the felt dimmed
to its own lightness and only its chroma counts when it is darker. Light that is uneven
across the tray is a coarse lightness map (the felt's L+16 relative to its mean).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

# The least noise assumed per Lab channel: a synthetic or very clean felt would otherwise
# give a near-singular covariance and call every JPEG ripple a die.
NOISE_FLOOR = (2.0, 1.5, 1.5)
# Darker than this share of the felt's L+16 (about a quarter of its luminance) is no
# shadow: black dice, pips, holes.
SHADOW_FLOOR = 0.65
MAP_SIZE = (16, 12)  # the lightness map's cells across and down
FIT_PIXELS = 20000  # mean and spread are measured on about this many felt pixels


# OpenCV's 8-bit Lab to L 0..100 and a, b around 0, as one affine map per pixel
_LAB = np.array([[100 / 255, 0, 0, 0], [0, 1, 0, -128], [0, 0, 1, -128]], np.float32)


def to_lab(image: np.ndarray) -> np.ndarray:
    """BGR uint8 → float32 CIELAB (L 0..100, a and b around 0)."""
    return cv2.transform(cv2.cvtColor(image, cv2.COLOR_BGR2Lab).astype(np.float32), _LAB)


@dataclass(frozen=True)
class FeltModel:
    """The felt's mean Lab colour, its spread (covariance, floored) and its light map."""

    mean: tuple[float, float, float]
    covariance: tuple[tuple[float, float, float], ...]
    light: np.ndarray | None = None  # (rows, cols) float32, 1.0 = the mean lightness

    @classmethod
    def fit(
        cls, lab: np.ndarray, mask: np.ndarray | None = None, light: np.ndarray | None = None
    ) -> FeltModel:
        """Fit on the pixels of ``lab`` where ``mask`` is true (all when None): the light map
        first (unless given), then mean and covariance with the uneven light taken out."""
        weights = np.ones(lab.shape[:2], np.float32) if mask is None else mask.astype(np.float32)
        if weights.sum() < 16:
            raise ValueError("too few felt pixels to model the felt")
        if light is None:
            light = light_map(lab[..., 0], weights)
        flat = flatten_light(lab, light)
        pixels = flat[weights > 0]
        pixels = pixels[:: max(1, len(pixels) // FIT_PIXELS)].astype(np.float64)
        mean = np.median(pixels, axis=0)
        covariance = np.cov(pixels, rowvar=False) + np.diag(np.square(NOISE_FLOOR))
        return cls(
            tuple(float(v) for v in mean),
            tuple(tuple(float(v) for v in row) for row in covariance),
            light,
        )

    @property
    def spread(self) -> tuple[float, float, float]:
        """Standard deviation of L, a and b."""
        return tuple(float(np.sqrt(v)) for v in np.diag(self.covariance))

    def light_for(self, shape: tuple[int, ...]) -> np.ndarray | None:
        """The light map stretched over a frame of ``shape`` (None: even light)."""
        if self.light is None:
            return None
        return cv2.resize(self.light, shape[1::-1], interpolation=cv2.INTER_LINEAR)

    def distance(self, lab: np.ndarray, light: np.ndarray | None = None) -> np.ndarray:
        """How many standard deviations each pixel is from the felt (float32, frame shape),
        a shadow counting only by its change of chroma, a near-black pixel always far.
        ``light``: the light map as :meth:`light_for` stretched it over the whole frame, cut
        to where ``lab`` is a window of it (default: stretched over ``lab``)."""
        mean = np.asarray(self.mean, np.float32)
        if light is None:
            light = self.light_for(lab.shape)
        light = np.float32(1) if light is None else light
        ref_l = (mean[0] + 16) * light
        shade = np.minimum((lab[..., 0] + 16) / ref_l, 1.0)
        d_l = lab[..., 0] + 16 - ref_l * shade  # zero for darker pixels
        chroma = light * shade
        d_a = lab[..., 1] - mean[1] * chroma
        d_b = lab[..., 2] - mean[2] * chroma
        inv = np.linalg.inv(np.asarray(self.covariance, np.float64)).astype(np.float32)
        square = (
            inv[0, 0] * d_l * d_l
            + inv[1, 1] * d_a * d_a
            + inv[2, 2] * d_b * d_b
            + 2 * (inv[0, 1] * d_l * d_a + inv[0, 2] * d_l * d_b + inv[1, 2] * d_a * d_b)
        )
        dark = np.maximum(SHADOW_FLOOR - shade, 0) * np.float32(60)
        return np.sqrt(np.maximum(square, 0)) + dark


def light_map(lightness: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """The felt's L+16 in coarse cells relative to its mean, cells without felt filled from
    their neighbours (a weighted average that spreads outwards)."""
    value = (lightness + 16) * weights
    cells = MAP_SIZE
    total = cv2.resize(value, cells, interpolation=cv2.INTER_AREA).astype(np.float64)
    count = cv2.resize(weights, cells, interpolation=cv2.INTER_AREA).astype(np.float64)
    for _ in range(max(cells)):
        if (count > 0.05).all():
            break
        total = np.where(count > 0.05, total, cv2.blur(total, (3, 3)))
        count = np.where(count > 0.05, count, cv2.blur(count, (3, 3)))
    level = np.divide(total, count, out=np.zeros_like(total), where=count > 1e-9)
    mean = float(np.average(level, weights=count + 1e-9))
    return (level / mean).astype(np.float32)


def flatten_light(lab: np.ndarray, light: np.ndarray) -> np.ndarray:
    """``lab`` as if the light were even: each pixel undimmed by its cell of the map."""
    scale = cv2.resize(light, lab.shape[1::-1], interpolation=cv2.INTER_LINEAR)
    out = lab.copy()
    out[..., 0] = (lab[..., 0] + 16) / scale - 16
    out[..., 1] = lab[..., 1] / scale
    out[..., 2] = lab[..., 2] / scale
    return out
