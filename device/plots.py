"""Score histograms, as text for the terminal and as a PNG drawn with OpenCV.

OpenCV is already a runtime dependency, so a plot costs no plotting library on the Pi.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

# BGR colours, one per seat
PALETTE = ((200, 90, 30), (40, 40, 220), (40, 160, 40), (0, 150, 220), (150, 60, 150))


def bins_for(scores: Sequence[Sequence[int]], n: int = 12) -> np.ndarray:
    low = min(min(s) for s in scores)
    high = max(max(s) for s in scores)
    if high == low:
        high = low + 1
    return np.linspace(low, high, n + 1)


def text_histogram(name: str, scores: Sequence[int], edges: np.ndarray, width: int = 40) -> str:
    counts, _ = np.histogram(scores, bins=edges)
    top = max(int(counts.max()), 1)
    lines = [f"{name}:"]
    for count, lo, hi in zip(counts, edges[:-1], edges[1:], strict=True):
        bar = "#" * round(width * count / top)
        lines.append(f"  {lo:8.0f} – {hi:<8.0f} {count:6d} {bar}")
    return "\n".join(lines)


def histogram_png(
    path: str | Path, title: str, names: Sequence[str], scores: Sequence[Sequence[int]]
) -> Path:
    """Overlaid score histograms of each seat, with the axes labelled."""
    import cv2

    width, height, margin = 900, 520, 70
    image = np.full((height, width, 3), 255, np.uint8)
    edges = bins_for(scores, 24)
    counts = [np.histogram(s, bins=edges)[0] for s in scores]
    top = max(int(c.max()) for c in counts) or 1
    plot_w, plot_h = width - 2 * margin, height - 2 * margin
    bar_w = plot_w / len(edges[:-1])
    for seat, c in enumerate(counts):
        colour = PALETTE[seat % len(PALETTE)]
        overlay = image.copy()
        for i, count in enumerate(c):
            x0 = int(margin + i * bar_w)
            x1 = int(margin + (i + 1) * bar_w) - 1
            y0 = int(height - margin - plot_h * count / top)
            cv2.rectangle(overlay, (x0, y0), (x1, height - margin), colour, -1)
        image = cv2.addWeighted(overlay, 0.55, image, 0.45, 0)
        label = f"{names[seat]}: moyenne {np.mean(scores[seat]):.1f}"
        cv2.putText(image, label, (margin + 10, margin + 22 * seat), 0, 0.55, colour, 2)
    black = (0, 0, 0)
    cv2.line(image, (margin, height - margin), (width - margin, height - margin), black, 1)
    cv2.line(image, (margin, margin - 30), (margin, height - margin), black, 1)
    for i in range(0, len(edges), 4):
        x = int(margin + i * bar_w)
        cv2.putText(image, f"{edges[i]:.0f}", (x - 15, height - margin + 20), 0, 0.45, black, 1)
    cv2.putText(image, f"{top}", (10, margin - 25), 0, 0.45, black, 1)
    cv2.putText(image, title, (margin, 30), 0, 0.7, black, 2)
    cv2.putText(image, "score", (width // 2, height - 20), 0, 0.5, black, 1)
    path = Path(path)
    if not cv2.imwrite(str(path), image):
        raise OSError(f"could not write {path}")
    return path
