"""Classical colour and finish of a die, for models without colour and finish heads.

Colour comes from the die's body: its pixels with the ink (darkest) and the highlights
(lightest) left out. Finish asks whether the felt shows through: an opaque (frosted) white
die is far lighter than the felt it lies on, a clear one is about as light as the felt; an
opaque red die is a bright saturated red, a clear red one is the felt seen through a red
filter, darker and duller. The limits were read off synthetic scenes (models/synth); each
answer carries a confidence that grows with the distance from its limit.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.felt import FeltModel

RED_A = 14.5  # CIELAB a* of the body above this: red (white dice stay near 0)
RED_HUE = (-25.0, 70.0)  # and its hue angle, degrees from +a* towards +b*, in this range
WHITE_CHROMA = 14.0  # a body this dull: white
FELT_LIKE = 20.0  # a body's chroma this close to the felt's: the felt through a clear die
FELT_HUE = 35.0  # or its hue this close (degrees) and its chroma no stronger: the same
WHITE_OVER_FELT = 26.0  # an opaque white body is at least this much lighter than the felt
RED_CHROMA = 41.0  # an opaque red body is at least this saturated
SEE_THROUGH = 0.3  # dice of other colours: this share of body pixels felt-like: clear
SPREAD = {"colour": 8.0, "white": 10.0, "red": 10.0, "other": 0.2}  # margin to full trust


@dataclass(frozen=True)
class Look:
    """Colour and finish of one die, each with a confidence in 0.5..1."""

    colour: str
    colour_confidence: float
    finish: str
    finish_confidence: float


def trust(margin: float, spread: float) -> float:
    """0.5 on the limit, 1.0 a full ``spread`` away from it."""
    return 0.5 + 0.5 * min(1.0, abs(margin) / spread)


def body_pixels(lab: np.ndarray) -> np.ndarray:
    """The die's Lab pixels without ink and highlights: those between the 20th and 80th
    percentile of lightness."""
    low, high = np.percentile(lab[:, 0], [20, 80])
    return lab[(lab[:, 0] >= low) & (lab[:, 0] <= high)]


def look(die_lab: np.ndarray, felt: FeltModel) -> Look:
    """Colour and finish from a die's Lab pixels (N x 3) and the felt model behind it."""
    body = body_pixels(die_lab)
    lightness, a, b = (float(v) for v in np.median(body, axis=0))
    chroma = float(np.hypot(a, b))
    hue = float(np.degrees(np.arctan2(b, a)))
    felt_l, felt_a, felt_b = felt.mean
    felt_like = float(np.hypot(a - felt_a, b - felt_b))
    felt_chroma = float(np.hypot(felt_a, felt_b))
    turn = abs((hue - float(np.degrees(np.arctan2(felt_b, felt_a))) + 180) % 360 - 180)
    diluted_felt = turn < FELT_HUE and chroma <= felt_chroma * 1.1
    if a > RED_A and RED_HUE[0] <= hue <= RED_HUE[1]:
        colour, colour_margin = "red", a - RED_A
    elif chroma < WHITE_CHROMA or felt_like < FELT_LIKE or diluted_felt:
        colour = "white"  # dull, or the felt's own colour seen through a clear die
        colour_margin = max(WHITE_CHROMA - chroma, FELT_LIKE - felt_like)
    else:
        colour, colour_margin = "other", chroma - WHITE_CHROMA
    if colour == "white":
        margin = lightness - felt_l - WHITE_OVER_FELT
        spread = SPREAD["white"]
    elif colour == "red":
        margin = chroma - RED_CHROMA
        spread = SPREAD["red"]
    else:
        felt_share = float((felt.distance(die_lab[None])[0] < 6.0).mean())
        margin = SEE_THROUGH - felt_share
        spread = SPREAD["other"]
    return Look(
        colour,
        trust(colour_margin, SPREAD["colour"]),
        "frosted" if margin > 0 else "transparent",
        trust(margin, spread),
    )
