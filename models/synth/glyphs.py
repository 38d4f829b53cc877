"""Marks as alpha tiles: d6 pip layouts and d10 numerals (6 and 9 underlined).

The numerals are drawn from strokes defined here (four styles), or taken from the real
typefaces rendered once into ``numerals.npz`` (models/synth/numerals.py), rather than with
``cv2.putText``: OpenCV 4 and 5 ship different text fonts (5 draws a slashed zero, never
seen on a d10), and the tiles must be the same wherever the generator runs. Tiles are kept at
a few sizes so that warping them small does not alias.
"""

from __future__ import annotations

import os
from functools import lru_cache

import cv2
import numpy as np

from models.synth import numerals

TILE = 128
PIPS = {
    "1": [(0, 0)],
    "2": [(-1, -1), (1, 1)],
    "3": [(-1, -1), (0, 0), (1, 1)],
    "4": [(-1, -1), (1, -1), (-1, 1), (1, 1)],
    "5": [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
    "6": [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)],
}
#: Numeral styles a set of d10 may be printed in: (width / height, stroke / height, serif on 1).
FONTS = ((0.56, 0.15, False), (0.62, 0.17, True), (0.5, 0.13, False), (0.6, 0.12, True))

Stroke = list[tuple[float, float]]


def _arc(cx: float, cy: float, rx: float, ry: float, a0: float, a1: float) -> Stroke:
    """Points of an elliptic arc, angles in degrees clockwise on screen from +x."""
    t = np.radians(np.linspace(a0, a1, max(4, int(abs(a1 - a0) / 8))))
    return list(zip(cx + rx * np.cos(t), cy + ry * np.sin(t), strict=True))


def _strokes(d: str, w: float, h: float, serif: bool) -> list[Stroke]:
    """The strokes of digit ``d`` in a w x h box (y down)."""
    if d == "0":
        return [_arc(w / 2, h / 2, w / 2, h / 2, 0, 360)]
    if d == "1":
        s = [[(0.58 * w, h), (0.58 * w, 0), (0.18 * w, 0.24 * h)]]
        return [*s, [(0.2 * w, h), (0.96 * w, h)]] if serif else s
    if d == "2":
        return [[*_arc(w / 2, 0.27 * h, w / 2, 0.27 * h, 190, 385), (0.0, h), (w, h)]]
    if d == "3":
        return [
            _arc(w / 2, 0.25 * h, 0.45 * w, 0.25 * h, 205, 450)
            + _arc(w / 2, 0.72 * h, w / 2, 0.28 * h, 270, 515)
        ]
    if d == "4":
        return [[(0.72 * w, h), (0.72 * w, 0), (0.0, 0.7 * h), (w, 0.7 * h)]]
    if d == "5":
        bowl = _arc(0.48 * w, 0.67 * h, 0.52 * w, 0.33 * h, 218, 520)
        return [[(0.92 * w, 0), (0.14 * w, 0), (0.08 * w, 0.47 * h), *bowl]]
    if d == "6":
        return [
            _arc(w / 2, 0.68 * h, w / 2, 0.32 * h, 0, 360),
            _arc(1.05 * w, 0.68 * h, 1.05 * w, 0.68 * h, 180, 248),
        ]
    if d == "9":
        return [[(w - x, h - y) for x, y in s] for s in _strokes("6", w, h, serif)]
    if d == "7":
        return [[(0.0, 0.0), (w, 0.0), (0.32 * w, h)]]
    if d == "8":
        return [
            _arc(w / 2, 0.25 * h, 0.42 * w, 0.25 * h, 0, 360),
            _arc(w / 2, 0.72 * h, w / 2, 0.28 * h, 0, 360),
        ]
    raise ValueError(f"no numeral {d!r}")


TYPEFACES = "YAMSCOPE_SYNTH_TYPEFACES"  # set to 1: sets of d10 drawn in the typefaces too


def font_count() -> int:
    """The numeral styles a set of d10 may be printed in: the stroke ones, then, when the
    environment asks (``TYPEFACES``: training on them; the eval sets and the simulated tray
    keep the four stroke styles the shipped model learned), the typefaces'."""
    wanted = os.environ.get(TYPEFACES, "") not in ("", "0")
    return len(FONTS) + (len(numerals.tiles()) if wanted else 0)


def _numeral(mark: str, font: int) -> np.ndarray:
    if font >= len(FONTS):  # loaded only then: a simulated tray never needs their 5 MB
        typefaces = numerals.tiles()
        if len(typefaces):
            return typefaces[(font - len(FONTS)) % len(typefaces), int(mark)]
    aspect, weight, serif = FONTS[font % len(FONTS)]
    big = TILE * 4
    h = 0.56 * big
    w = aspect * h
    thick = weight * h
    under = mark in "69"
    x0 = (big - w) / 2
    y0 = (big - h - (0.22 * h if under else 0)) / 2
    tile = np.zeros((big, big), np.uint8)
    strokes = _strokes(mark, w, h, serif)
    if under:  # the underline that tells 6 from 9 at any rotation
        strokes.append([(0.05 * w, 1.2 * h), (0.95 * w, 1.2 * h)])
    for s in strokes:
        pts = np.round((np.array(s) + np.array([x0, y0])) * 16).astype(np.int32)
        cv2.polylines(tile, [pts], False, 255, round(thick), cv2.LINE_AA, shift=4)
    return cv2.resize(tile, (TILE, TILE), interpolation=cv2.INTER_AREA)


def _pips(mark: str) -> np.ndarray:
    big = TILE * 4
    tile = np.zeros((big, big), np.uint8)
    step, radius = 0.27 * big, 0.092 * big
    for dx, dy in PIPS[mark]:
        c = (round((0.5 * big + dx * step) * 16), round((0.5 * big + dy * step) * 16))
        cv2.circle(tile, c, round(radius * 16), 255, -1, cv2.LINE_AA, shift=4)
    return cv2.resize(tile, (TILE, TILE), interpolation=cv2.INTER_AREA)


@lru_cache(maxsize=512)
def tile(kind: str, mark: str, font: int = 0, size: int = TILE) -> np.ndarray:
    """A float32 (size, size) alpha tile of the mark, 0..1, centred, upright."""
    if size != TILE:
        full = tile(kind, mark, font, TILE)
        return cv2.resize(full, (size, size), interpolation=cv2.INTER_AREA)
    t = _pips(mark) if kind == "d6" else _numeral(mark, font)
    return t.astype(np.float32) / 255.0


#: A numeral as its typeface draws it (models/synth/core.py Tray.lettering).
PLAIN_LETTERING = (0.0, 1.0, 1.0, 0.0)


def tile_for(
    kind: str,
    mark: str,
    font: int,
    pixels: float,
    lettering: tuple[float, float, float, float] = PLAIN_LETTERING,
) -> np.ndarray:
    """The smallest cached tile still sharper than ``pixels`` (its drawn size on screen), a
    numeral lettered as its set's (``lettering``)."""
    size = TILE
    while size > 16 and size / 2 >= pixels * 1.3:
        size //= 2
    if kind == "d6" or tuple(lettering) == PLAIN_LETTERING:
        return tile(kind, mark, font, size)
    return _lettered(mark, font, size, tuple(lettering))


@lru_cache(maxsize=256)
def _lettered(
    mark: str, font: int, size: int, lettering: tuple[float, float, float, float]
) -> np.ndarray:
    """The numeral's tile with its strokes made thinner or bolder (a signed distance moved by
    half the change each side, thinned by at most a third of the boldest stroke's half, so
    that a light typeface keeps its strokes), then widened, scaled and slanted about the
    centre."""
    stroke, width, scale, slant = lettering
    t = tile("d10", mark, font)
    if stroke:
        inside = (t >= 0.5).astype(np.uint8)
        depth = cv2.distanceTransform(inside, cv2.DIST_L2, 5)
        reach = cv2.distanceTransform(1 - inside, cv2.DIST_L2, 5)
        moved = max(stroke / 2, -float(depth.max()) / 3)
        t = np.clip((depth - reach) / 2 + 0.5 + moved, 0.0, 1.0).astype(np.float32)
    m = np.array([[scale * width, -scale * slant, 0.0], [0.0, scale, 0.0]])
    centre = np.array([TILE / 2, TILE / 2])
    m[:, 2] = centre - m[:, :2] @ centre
    t = cv2.warpAffine(t, m, (TILE, TILE), flags=cv2.INTER_LINEAR, borderValue=0)
    return t if size == TILE else cv2.resize(t, (size, size), interpolation=cv2.INTER_AREA)
