"""Numerals of real typefaces for the synthetic d10, read from a small committed file.

Why: real d10 are printed in many typefaces and weights, and a reader that learned four
hand-made stroke styles misread real ones (4 as 6, 8 as 9, 5 as 3). ``numerals.npz`` holds
the digits of the free DejaVu and Liberation families as alpha tiles the size and place of
the stroke numerals, 6 and 9 underlined, so that every machine draws the same tiles with or
without the fonts; ``python -m models.common.numeral_fonts`` renders it again.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np

TILE = 128  # as models/synth/glyphs.py
FILE = Path(__file__).with_name("numerals.npz")


@lru_cache(maxsize=1)
def tiles() -> np.ndarray:
    """The committed tiles, (typefaces, 10, TILE, TILE) uint8, digits 0..9; empty when the
    file is missing (the stroke numerals are then the only ones)."""
    if not FILE.exists():
        return np.zeros((0, 10, TILE, TILE), np.uint8)
    with np.load(FILE) as stored:
        return stored["tiles"]
