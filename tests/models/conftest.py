"""Shared fixtures: a tiny synthetic Rune55-like folder (drawn dice, YOLO labels), and a
temporary cache for synthetic crops."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from models.common import photos
from models.dieface import synth_crops

# pip positions on a unit face, per value
PIPS = {
    1: [(0.5, 0.5)],
    2: [(0.25, 0.25), (0.75, 0.75)],
    3: [(0.25, 0.25), (0.5, 0.5), (0.75, 0.75)],
    4: [(0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)],
    5: [(0.25, 0.25), (0.75, 0.25), (0.5, 0.5), (0.25, 0.75), (0.75, 0.75)],
    6: [(0.25, 0.2), (0.75, 0.2), (0.25, 0.5), (0.75, 0.5), (0.25, 0.8), (0.75, 0.8)],
}


def draw_die(image: np.ndarray, value: int, x0: int, y0: int, side: int) -> None:
    """A white square with black pips, axis-aligned, top-left at (x0, y0)."""
    cv2.rectangle(image, (x0, y0), (x0 + side - 1, y0 + side - 1), 235, -1)
    for px, py in PIPS[value]:
        centre = (round(x0 + px * side), round(y0 + py * side))
        cv2.circle(image, centre, max(2, side // 10), 20, -1, cv2.LINE_AA)


def write_photo(folder: Path, split: str, name: str, dice: list[tuple[int, int, int, int]]) -> None:
    """A 160x160 grey photo with the given dice (value, x0, y0, side) and its YOLO labels."""
    size = 160
    image = np.full((size, size), 90, np.uint8)
    lines = []
    for value, x0, y0, side in dice:
        draw_die(image, value, x0, y0, side)
        cx, cy = (x0 + side / 2) / size, (y0 + side / 2) / size
        lines.append(f"{value - 1} {cx} {cy} {side / size} {side / size}")
    (folder / split / "images").mkdir(parents=True, exist_ok=True)
    (folder / split / "labels").mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(folder / split / "images" / f"{name}.jpg"), image)
    (folder / split / "labels" / f"{name}.txt").write_text("\n".join(lines), encoding="utf-8")


@pytest.fixture
def synthetic_rune55(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Train/valid/test folders of drawn dice; sources s0..s5 in train, s5 leaks into test."""
    root = tmp_path / "rune55"
    monkeypatch.setattr(photos, "CACHE_DIR", tmp_path / "cache")
    for i in range(6):
        for copy in range(2):
            write_photo(
                root, "train", f"s{i}_jpg.rf.{copy}", [(i + 1, 20, 30, 50), (6 - i, 90, 80, 40)]
            )
    write_photo(root, "valid", "v0_jpg.rf.a", [(3, 40, 40, 60)])
    write_photo(root, "test", "s5_jpg.rf.x", [(6, 10, 10, 50)])
    write_photo(root, "test", "t1_jpg.rf.y", [(2, 60, 60, 70), (5, 5, 100, 50)])
    return root


@pytest.fixture
def synth_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Synthetic crop chunks go to a temporary folder, one scene per chunk."""
    monkeypatch.setattr(synth_crops, "CACHE_DIR", tmp_path / "synth-cache")
    monkeypatch.setattr(synth_crops, "CHUNK", 1)
    return tmp_path / "synth-cache"
