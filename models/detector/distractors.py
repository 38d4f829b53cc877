"""Things on a table that are not dice, drawn into a detector's training picture away from
its dice: the hard negatives real photos put in its way.

Why: real photos that no split holds showed the detector taking for dice a board game's
number tokens and tiles, tray screws, dust specks, tray edges and the hard shadow beside a
white die. Each kind below is drawn the way it looks to a camera above the table, with no
box, so the detector learns that it is background.
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

Box = np.ndarray  # (n, 4) x0, y0, x1, y1 in pixels of the picture
Rng = np.random.Generator
Point = tuple[int, int]


def random_colour(rng: np.random.Generator) -> tuple[int, int, int]:
    return tuple(int(v) for v in rng.integers(0, 256, 3))  # type: ignore[return-value]


def token(
    image: np.ndarray, rng: np.random.Generator, centre: tuple[int, int], side: float
) -> None:
    """A round game token with a numeral (Catan's number discs), or a plain coin, wider
    than a die (a small one would teach that a small die is no die)."""
    radius = max(3, int(side * rng.uniform(0.6, 1.1)))
    face = (int(rng.integers(170, 250)),) * 3 if rng.random() < 0.6 else random_colour(rng)
    cv2.circle(image, centre, radius, face, -1, cv2.LINE_AA)
    cv2.circle(image, centre, radius, tuple(int(c * 0.7) for c in face), 1, cv2.LINE_AA)
    if rng.random() < 0.7:
        text = str(int(rng.integers(2, 13)))
        scale = radius / 22
        (w, h), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, 1)
        ink = (20, 20, 160) if rng.random() < 0.3 else (20, 20, 20)
        origin = (centre[0] - w // 2, centre[1] + h // 2)
        cv2.putText(image, text, origin, cv2.FONT_HERSHEY_SIMPLEX, scale, ink, max(1, radius // 8))


def screw(
    image: np.ndarray, rng: np.random.Generator, centre: tuple[int, int], side: float
) -> None:
    """A screw head: a small metal disc with a slot or a cross."""
    radius = max(2, int(side * rng.uniform(0.12, 0.3)))
    metal = (int(rng.integers(120, 220)),) * 3
    cv2.circle(image, centre, radius, metal, -1, cv2.LINE_AA)
    cv2.circle(image, (centre[0] - radius // 3, centre[1] - radius // 3), max(1, radius // 3),
               tuple(min(255, c + 50) for c in metal), -1, cv2.LINE_AA)  # fmt: skip
    angle = rng.uniform(0, np.pi)
    dx, dy = int(radius * np.cos(angle)), int(radius * np.sin(angle))
    slot = tuple(c // 3 for c in metal)
    cv2.line(image, (centre[0] - dx, centre[1] - dy), (centre[0] + dx, centre[1] + dy), slot, 1)
    if rng.random() < 0.5:
        cv2.line(image, (centre[0] + dy, centre[1] - dx), (centre[0] - dy, centre[1] + dx), slot, 1)


def specks(
    image: np.ndarray, rng: np.random.Generator, centre: tuple[int, int], side: float
) -> None:
    """Dust and crumbs: a few bright or dark dots a pixel or two wide."""
    for _ in range(int(rng.integers(1, 8))):
        x = centre[0] + int(rng.normal(0, side * 0.5))
        y = centre[1] + int(rng.normal(0, side * 0.5))
        tone = int(rng.integers(200, 256)) if rng.random() < 0.7 else int(rng.integers(0, 40))
        cv2.circle(image, (x, y), int(rng.integers(1, 3)), (tone,) * 3, -1, cv2.LINE_AA)


def tile(image: np.ndarray, rng: Rng, centre: Point, side: float) -> None:
    """A board game's tile or card: a coloured polygon with a darker rim (a hexagon, a
    triangle, or a square far larger than a die, since a die-sized square with dots on it
    is a die), hexagons and triangles patterned with dots."""
    corners = int(rng.choice([3, 4, 6]))
    radius = side * (rng.uniform(1.8, 3.5) if corners == 4 else rng.uniform(0.8, 2.5))
    angle0 = rng.uniform(0, 2 * np.pi)
    angles = angle0 + np.arange(corners) * 2 * np.pi / corners
    points = np.stack([centre[0] + radius * np.cos(angles), centre[1] + radius * np.sin(angles)], 1)
    colour = random_colour(rng)
    cv2.fillPoly(image, [points.astype(np.int32)], colour, cv2.LINE_AA)
    cv2.polylines(image, [points.astype(np.int32)], True, tuple(c // 2 for c in colour), 2)
    for _ in range(0 if corners == 4 else int(rng.integers(0, 6))):
        x = int(centre[0] + rng.uniform(-0.5, 0.5) * radius)
        y = int(centre[1] + rng.uniform(-0.5, 0.5) * radius)
        cv2.circle(image, (x, y), int(rng.integers(1, max(2, side // 6))), random_colour(rng), -1)


def hard_shadow(image: np.ndarray, rng: Rng, centre: Point, side: float) -> None:
    """A sharp, dark shadow the shape of a die's (a slanted hexagon a die wide), with no die:
    what a lamp low beside a white die casts on the table."""
    w, h = side * rng.uniform(0.8, 1.3), side * rng.uniform(0.6, 1.6)
    angle = rng.uniform(0, 180)
    box = cv2.boxPoints(((float(centre[0]), float(centre[1])), (w, h), angle))
    mask = np.zeros(image.shape[:2], np.float32)
    cv2.fillConvexPoly(mask, box.astype(np.int32), 1.0, cv2.LINE_AA)
    mask = cv2.GaussianBlur(mask, (0, 0), rng.uniform(0.5, 2.0))
    depth = rng.uniform(0.35, 0.7)
    image[:] = (image * (1 - depth * mask[..., None])).astype(np.uint8)


def edge(image: np.ndarray, rng: Rng, centre: Point, side: float) -> None:
    """A tray's or table's edge: a straight band of another tone with a bright or dark lip."""
    angle = rng.uniform(0, np.pi)
    length = side * rng.uniform(3, 8)
    dx, dy = length * np.cos(angle) / 2, length * np.sin(angle) / 2
    a = (int(centre[0] - dx), int(centre[1] - dy))
    b = (int(centre[0] + dx), int(centre[1] + dy))
    cv2.line(image, a, b, random_colour(rng), max(2, int(side * rng.uniform(0.1, 0.4))))
    cv2.line(image, a, b, (int(rng.integers(0, 256)),) * 3, 1, cv2.LINE_AA)


def cast_shadows(image: np.ndarray, boxes: Box, rng: np.random.Generator) -> None:
    """Beside some dice, the sharp shadow a low lamp casts: a die-shaped dark patch offset
    by most of a die, under the die itself (drawn back on top by the caller)."""
    direction = rng.uniform(0, 2 * np.pi)  # one lamp: every shadow falls the same way
    for x0, y0, x1, y1 in boxes:
        if rng.random() < 0.5:
            continue
        side = float(np.sqrt((x1 - x0) * (y1 - y0)))
        reach = side * rng.uniform(0.3, 0.9)
        centre = (
            int((x0 + x1) / 2 + reach * np.cos(direction)),
            int((y0 + y1) / 2 + reach * np.sin(direction)),
        )
        hard_shadow(image, rng, centre, side)


DRAWERS: tuple[Callable[..., None], ...] = (token, screw, specks, tile, hard_shadow, edge)


def add_distractors(
    image: np.ndarray,
    boxes: Box,
    rng: np.random.Generator,
    count: int,
    side: float | None = None,
) -> np.ndarray:
    """``image`` (uint8 BGR, changed in place and returned) with ``count`` distractors
    drawn away from the dice's boxes, and sometimes the dice's own hard shadows; the dice
    stay on top. ``side``: the distractors' scale (default: the dice's median size, else a
    tenth of the picture)."""
    height, width = image.shape[:2]
    if side is None:
        sizes = np.sqrt(np.prod(boxes[:, 2:] - boxes[:, :2], axis=1)) if len(boxes) else []
        side = float(np.median(sizes)) if len(sizes) else min(height, width) / 10
    original = image.copy()
    dice = np.zeros((height, width), bool)
    near = np.zeros((height, width), bool)
    pad = int(0.6 * side)
    for x0, y0, x1, y1 in np.round(boxes).astype(int):
        dice[max(0, y0) : max(0, y1), max(0, x0) : max(0, x1)] = True
        near[max(0, y0 - pad) : max(0, y1 + pad), max(0, x0 - pad) : max(0, x1 + pad)] = True
    if len(boxes) and rng.random() < 0.4:
        cast_shadows(image, boxes, rng)
    for _ in range(count):
        spots = [(int(rng.integers(0, width)), int(rng.integers(0, height))) for _ in range(10)]
        free = [(x, y) for x, y in spots if not near[y, x]]
        if free:
            DRAWERS[int(rng.integers(len(DRAWERS)))](image, rng, free[0], side)
    image[dice] = original[dice]
    return image
