"""What an open box is worth for the rest of a game of Yams impossible.

The game has 34 boxes and 34 turns: it is far too big to solve, so each turn is played
against a value of the sheet, ``outlook`` = the points written + what every open box is
expected to bring later + the chiffres bonus's chance × 500 + the expected différence:

* an open yams, suite or combinaison box b brings ``BOX_VALUES[b]`` later, so writing p
  points in it now gains p − BOX_VALUES[b] (what matters is never the points alone but
  the points against what the box would have made when aimed at or used later);
* the chiffres count their points and the bonus: with S written and the open boxes v
  expected to bring ``BOX_VALUES[v]`` ± ``CHIFFRE_SD[v]`` (independent, normal), the
  bonus's chance is P(S + Σ ≥ 330);
* the différence is (plus − moins) × box 1: each of the three is its written value or,
  while open, its expected one (``BOX_VALUES["plus"]``, ``["moins"]``, ``["1"]``), so a
  box 1 entry is weighed by the expected plus − moins and plus/moins by box 1.

Where the numbers come from: self-play. ``impossible_calibrate`` plays whole games with
the advisor itself and sets each value to the mean points the box ended with, then plays
again with the new values, a few rounds: a fixed point, the values this player's own play
earns (a box aimed at, taken by chance, or crossed as a dump late in the game). The values
depend on how far the game is (``PHASES``): a box still open late has had its chances, so
``BOX_VALUES[b][i]`` is the box's mean final points over the turns of phase i after which
it was still open. A failed sixth throw counts its minus. Reproduce with (about 15 min on
two cores; each game's dice come from its own seed)::

    python -m scoring.advisor.impossible.calibrate calibrate --from-scratch \\
        --rounds 6 --games 150 --seed 1 --jobs 2

which printed the tables below (mean score per round: 2519, 2849, 2851, 2895, 2873, 2968;
round 1 plays greedily, nothing expected of any box but the chiffres).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from scoring.rulebooks.impossible import BONUS, BONUS_THRESHOLD

CHIFFRE_BOXES = tuple(str(v) for v in range(1, 11))

# How far into the game: phase i holds while at least PHASES[i] boxes stay open after the
# turn's entry (turns 1-10, 11-18, 19-26, 27-34).
PHASES = (24, 16, 8, 0)
# Calibrated: see the module docstring. Per phase, the mean points a box ends the game with
# in the games where it is still open after that phase's turns.
BOX_VALUES: dict[str, tuple[float, ...]] = {
    "1": (6.11, 6.0, 5.86, 5.47),
    "2": (6.92, 5.66, 5.66, 5.66),
    "3": (13.22, 8.65, 8.65, 8.65),
    "4": (18.06, 14.67, 14.67, 14.67),
    "5": (22.33, 19.35, 13.89, 13.89),
    "6": (28.67, 26.23, 23.8, 23.8),
    "7": (33.78, 31.21, 27.2, 26.52),
    "8": (44.04, 41.57, 36.09, 36.09),
    "9": (48.64, 45.08, 39.04, 28.8),
    "10": (52.18, 48.63, 43.26, 38.31),
    "brelan": (14.34, 11.54, 11.54, 11.54),
    "carre": (14.39, 16.64, 16.64, 16.64),
    "youpi_yams": (23.75, 22.28, 22.14, 22.14),
    "yams_de_rene": (39.24, 34.25, 23.08, 23.08),
    "yams_superieur": (61.63, 43.17, 20.14, 20.14),
    "giga_yams": (50.79, 27.11, 12.06, 34.72),
    "ultra_yams": (23.67, 16.7, 8.29, 6.54),
    "yams_impossible": (0.0, 0.0, 0.0, 0.0),
    "suite_ridicule": (21.86, 19.38, 20.41, 20.41),
    "petite_suite": (57.14, 49.68, 41.03, 34.68),
    "suite_de_marcel": (116.12, 97.42, 78.08, 71.21),
    "suite_royale": (135.8, 113.44, 100.0, 84.19),
    "suite_geante": (211.64, 198.93, 179.95, 133.13),
    "the_suite": (287.86, 271.3, 220.32, 96.28),
    "double_brelan": (50.45, 40.21, 29.77, 22.16),
    "triple_brelan": (88.08, 78.19, 68.13, 49.43),
    "double_carre": (107.64, 94.37, 75.48, 55.9),
    "double_yams": (101.07, 59.57, 33.74, 26.82),
    "full_tordu": (158.83, 144.01, 115.27, 62.58),
    "grand_full": (53.7, 17.11, 10.67, 10.67),
    "full_supreme": (41.68, 14.8, 1.28, 1.28),
    "tout_en_paires": (261.11, 238.62, 202.16, 142.86),
    "plus": (86.0, 85.24, 84.64, 83.66),
    "moins": (24.01, 24.79, 25.72, 27.41),
}
# Per phase, the spread (standard deviation) of the points of each chiffre box.
CHIFFRE_SD: dict[str, tuple[float, ...]] = {
    "1": (1.96, 1.93, 1.89, 1.88),
    "2": (3.95, 3.9, 3.9, 3.9),
    "3": (6.15, 5.41, 5.41, 5.41),
    "4": (7.68, 7.77, 7.77, 7.77),
    "5": (10.95, 11.23, 9.46, 9.46),
    "6": (11.42, 11.25, 12.19, 12.19),
    "7": (16.25, 16.15, 14.82, 12.03),
    "8": (17.95, 19.14, 21.19, 21.19),
    "9": (19.28, 19.83, 20.38, 18.1),
    "10": (23.85, 22.36, 21.91, 21.89),
}


def _at_least(threshold: float, mean: float, var: float) -> float:
    """P(X ≥ threshold) for a sum of integer points with this mean and variance."""
    if var <= 0:
        return float(mean >= threshold)
    z = (threshold - 0.5 - mean) / math.sqrt(2 * var)
    return 0.5 * math.erfc(z)


def phase(open_after: int) -> int:
    """The phase of a turn after whose entry ``open_after`` boxes stay open."""
    return next(i for i, least in enumerate(PHASES) if open_after >= least)


class Outlook:
    """One sheet (a player's cells) seen as what it should end with; ``gain`` prices entries.

    The open boxes are valued as in the phase of the turn being played: what matters for
    an entry is what the other boxes will still make once it is written.
    """

    def __init__(
        self,
        cells: Mapping[str, int],
        values: Mapping[str, Sequence[float]] | None = None,
        spread: Mapping[str, Sequence[float]] | None = None,
    ) -> None:
        self.cells = dict(cells)
        values = BOX_VALUES if values is None else values
        spread = CHIFFRE_SD if spread is None else spread
        self.phase = phase(max(len(values) - len(self.cells) - 1, 0))
        self.values = {b: v[self.phase] for b, v in values.items()}
        self.spread = {b: v[self.phase] for b, v in spread.items()}
        self.chiffres = sum(self.cells.get(b, 0) for b in CHIFFRE_BOXES)
        self.open_chiffres = tuple(b for b in CHIFFRE_BOXES if b not in self.cells)
        self.bonus_chance = self._bonus_chance(self.chiffres, self.open_chiffres)
        self.plus = self._known("plus")
        self.moins = self._known("moins")
        self.one = self._known("1")

    def _known(self, box: str) -> float:
        return float(self.cells[box]) if box in self.cells else self.values[box]

    def _bonus_chance(self, written: float, open_boxes: tuple[str, ...]) -> float:
        mean = written + sum(self.values[b] for b in open_boxes)
        var = sum(self.spread[b] ** 2 for b in open_boxes)
        return _at_least(BONUS_THRESHOLD, mean, var)

    def expected_final(self, written_total: float) -> float:
        """``written_total``: the yams, suites, combinaisons and chiffres written so far."""
        later = sum(v for b, v in self.values.items() if b not in self.cells)
        later -= sum(self.values[b] for b in ("plus", "moins") if b not in self.cells)
        return written_total + later + BONUS * self.bonus_chance + self.difference()

    def difference(self) -> float:
        return (self.plus - self.moins) * self.one

    def gain(self, box: str, points: float) -> float:
        """How much writing ``points`` in the open ``box`` changes the expected final score."""
        if box == "plus":
            return (points - self.plus) * self.one
        if box == "moins":
            return (self.moins - points) * self.one
        out = points - self.values[box]
        if box in CHIFFRE_BOXES:
            rest = tuple(b for b in self.open_chiffres if b != box)
            after = self._bonus_chance(self.chiffres + points, rest)
            out += BONUS * (after - self.bonus_chance)
            if box == "1":
                out += (points - self.one) * (self.plus - self.moins)
        return out

    def gains(self, box: str, points: np.ndarray) -> np.ndarray:
        """``gain`` for an array of points (a box's column of the turn's tables)."""
        if box in CHIFFRE_BOXES:
            return np.array([self.gain(box, float(p)) for p in points], dtype=np.float32)
        return self.gain(box, points.astype(np.float32))
