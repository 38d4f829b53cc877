"""Drawn trays for the vision tests: a plain felt with white d6 whose pips and places are
known, so each test can say exactly what should be found."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

FELT = (60, 110, 40)  # BGR, a green felt
SIDE = 40
PIPS = {
    1: [(0.5, 0.5)],
    2: [(0.27, 0.27), (0.73, 0.73)],
    3: [(0.27, 0.27), (0.5, 0.5), (0.73, 0.73)],
    4: [(0.27, 0.27), (0.73, 0.27), (0.27, 0.73), (0.73, 0.73)],
    5: [(0.27, 0.27), (0.73, 0.27), (0.5, 0.5), (0.27, 0.73), (0.73, 0.73)],
    6: [(0.27, 0.25), (0.73, 0.25), (0.27, 0.5), (0.73, 0.5), (0.27, 0.75), (0.73, 0.75)],
}
RUNE55 = Path(__file__).resolve().parents[3] / "shared" / "data" / "rune55-d6"


def felt(width: int = 320, height: int = 240, seed: int = 0) -> np.ndarray:
    """An empty green felt with a little grain."""
    rng = np.random.default_rng(seed)
    image = np.empty((height, width, 3), np.float32)
    image[:] = FELT
    image += rng.normal(0, 3, image.shape)
    return np.clip(image, 0, 255).astype(np.uint8)


def draw_die(
    image: np.ndarray,
    value: int,
    x0: int,
    y0: int,
    side: int = SIDE,
    body: tuple[int, int, int] = (230, 232, 235),
    ink: tuple[int, int, int] = (25, 25, 30),
) -> tuple[int, int, int, int]:
    """A flat d6 seen from above, top-left at (x0, y0); returns its box (x1, y1 exclusive)."""
    cv2.rectangle(image, (x0, y0), (x0 + side - 1, y0 + side - 1), body, -1)
    for px, py in PIPS[value]:
        centre = (round(x0 + px * side), round(y0 + py * side))
        cv2.circle(image, centre, max(2, side // 11), ink, -1, cv2.LINE_AA)
    return x0, y0, x0 + side, y0 + side


def iou(a: tuple[int, ...], b: tuple[int, ...]) -> float:
    ix = max(0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union else 0.0


def matches(found: list, truth: list, threshold: float = 0.5) -> int:
    """Boxes of ``found`` matched one to one with ``truth`` at IoU >= threshold (greedy)."""
    pairs = sorted(
        ((iou(f, t), i, j) for i, f in enumerate(found) for j, t in enumerate(truth)),
        reverse=True,
    )
    used_f, used_t = set(), set()
    for value, i, j in pairs:
        if value < threshold:
            break
        if i not in used_f and j not in used_t:
            used_f.add(i)
            used_t.add(j)
    return len(used_f)
