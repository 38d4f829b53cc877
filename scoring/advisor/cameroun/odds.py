"""How often a turn spent chasing one figure (P, G, F, Q) gets it, and for how much.

The column model's projection needs, for each figure, the chance that a turn dedicated
to it succeeds and the points it then brings (the full's points vary with the dice).
Both come from the exact turn solver run on the rulebook's own points with only that
column open, the announced third throw included: nothing about sequences, fulls or
quintes is restated here.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from scoring.advisor.cameroun.tables import raw
from scoring.advisor.cameroun.turn import solve_turn
from scoring.rulebooks.base import Rulebook


def chase(rulebook: Rulebook, box: str) -> tuple[float, float]:
    """(P(success), mean points when it succeeds) of one turn chasing ``box`` for points."""
    base = raw(rulebook)
    c = base.boxes.index(box)
    is_open = np.zeros(len(base.boxes), dtype=bool)
    is_open[c] = True
    plain = np.where(is_open, base.plain, 0)
    ann = np.where(is_open, base.announced, 0)
    success = ann > 0
    turn = solve_turn(
        plain.astype(float), plain, ann.astype(float), ann, success, is_open, base.crosses
    )
    expected = turn.before_throw()
    rate = float(expected.fill[c])
    return rate, expected.points / rate if rate else 0.0


@cache
def _odds(rulebook_type: type[Rulebook], options: object) -> dict[str, tuple[float, float]]:
    rulebook = rulebook_type(options)
    base = raw(rulebook)
    return {box: chase(rulebook, box) for box, x in zip(base.boxes, base.crosses, strict=True) if x}


def figure_odds(rulebook: Rulebook) -> dict[str, tuple[float, float]]:
    """{figure: (P(success) of a dedicated turn, mean points on success)}, cached."""
    return _odds(type(rulebook), rulebook.options)
