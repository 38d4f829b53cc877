"""Render ``models/synth/numerals.npz``: the digits of real typefaces as the synthetic d10's
numerals (models/synth/numerals.py says why).

    python -m models.common.numeral_fonts

The DejaVu and Liberation families (upright, bold, condensed, serif, oblique; the mono faces
left out: their zero is slashed or dotted, never seen on a d10; Debian's fonts-dejavu-core
and fonts-liberation) are drawn with Pillow at the size and place of the stroke numerals.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from models.synth.numerals import FILE, TILE

HEIGHT = 0.56  # a numeral's height over the tile's, as the stroke numerals
UNDERLINE_GAP = 0.2  # of the numeral's height, between it and its underline
FAMILIES = ("dejavu", "liberation")


def font_files(root: Path = Path("/usr/share/fonts/truetype")) -> list[Path]:
    """The typefaces rendered: the families' files here, less mono and mathematical ones."""
    files = [p for family in FAMILIES for p in sorted((root / family).glob("*.ttf"))]
    return [p for p in files if "Mono" not in p.name and "Math" not in p.name]


def render(font: Path, digit: str) -> np.ndarray:
    """One digit of one typeface as a uint8 (TILE, TILE) alpha tile, centred, upright."""
    from PIL import Image, ImageDraw, ImageFont

    big = TILE * 4
    canvas = Image.new("L", (big, big), 0)
    ImageDraw.Draw(canvas).text(
        (big // 2, big // 2), digit, fill=255, font=ImageFont.truetype(str(font), big // 2),
        anchor="mm",
    )  # fmt: skip
    glyph = np.asarray(canvas)
    ys, xs = np.nonzero(glyph > 20)
    glyph = glyph[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
    height = HEIGHT * big
    width = glyph.shape[1] * height / glyph.shape[0]
    glyph = cv2.resize(glyph, (max(1, round(width)), round(height)), interpolation=cv2.INTER_AREA)
    under = digit in "69"
    stroke = max(2, round(0.12 * height))
    total = height + (UNDERLINE_GAP * height + stroke if under else 0)
    tile = np.zeros((big, big), np.uint8)
    x0, y0 = round((big - glyph.shape[1]) / 2), round((big - total) / 2)
    tile[y0 : y0 + glyph.shape[0], x0 : x0 + glyph.shape[1]] = glyph
    if under:  # the underline that tells 6 from 9 at any rotation
        top = round(y0 + height + UNDERLINE_GAP * height)
        tile[top : top + stroke, x0 + round(0.05 * width) : x0 + round(0.95 * width)] = 255
    return cv2.resize(tile, (TILE, TILE), interpolation=cv2.INTER_AREA)


def main() -> None:
    files = font_files()
    if not files:
        raise SystemExit("no DejaVu or Liberation fonts here (Debian: fonts-dejavu-core)")
    stack = np.stack([[render(f, d) for d in "0123456789"] for f in files])
    np.savez_compressed(FILE, tiles=stack, fonts=np.array([f.name for f in files]))
    print(f"wrote {FILE} ({FILE.stat().st_size} bytes): {len(files)} typefaces")


if __name__ == "__main__":
    main()
