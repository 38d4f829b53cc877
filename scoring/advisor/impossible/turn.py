"""One turn of Yams impossible solved exactly on the dice's values, against the box values.

Once a turn's dice are written, the sheet's ``Outlook`` changes by the entry's ``gain``;
so a roll that ends the turn is worth the best gain among the open boxes (its plain points:
harmonies need colours, which the values alone do not have), or, after the fifth throw,
the best announced sixth throw: P(success) × gain(+legal) + P(failure) × gain(−legal),
with the best keep for that box. Going back one throw at a time (expectation over the
free dice, then the best keep inside each roll), ``keep_values[t]`` gives every keep's
expected gain when it is kept before throw t, for t = 2..5: about 30 ms per turn in numpy,
done once at the turn's first decision and reused for the others.

The first throw's ×3 and the harmonies are not in these tables; they are in the real
entries the rulebook gives for the real dice, which the decisions compare the keeps with.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from scoring.advisor.impossible.tables import ScoreTables, SixthTables, multisets
from scoring.advisor.impossible.values import Outlook

LAST_THROW = 5


@dataclass(frozen=True, eq=False)
class TurnPlan:
    """``keep_values[t]``: (184,756,) expected gain of each keep kept before throw t."""

    keep_values: dict[int, np.ndarray]
    open_boxes: tuple[str, ...]


def sixth_gain(outlook: Outlook, box: str, legal: float, chance: float) -> float:
    """Expected gain of announcing the sixth throw for ``box`` with this chance of success."""
    return chance * outlook.gain(box, legal) + (1 - chance) * outlook.gain(box, -legal)


def plan_turn(
    tables: ScoreTables, sixth: SixthTables, outlook: Outlook, open_boxes: Iterable[str]
) -> TurnPlan:
    """Every keep's expected gain before each throw of a turn on this sheet."""
    ms = multisets()
    open_boxes = tuple(open_boxes)
    last = np.full(tables.rolls, -np.inf, dtype=np.float32)
    for group in tables.groups:
        cols = [j for j, b in enumerate(group.boxes) if b in open_boxes]
        if cols:
            gains = [outlook.gains(group.boxes[j], group.points[:, j]) for j in cols]
            np.maximum(last, np.max(gains, axis=0)[group.feature], out=last)
    for j, box in enumerate(sixth.boxes):
        if box in open_boxes:
            win, lose = (outlook.gain(box, p * sixth.legal[j]) for p in (1, -1))
            np.maximum(last, sixth.best_fill[j] * np.float32(win - lose) + lose, out=last)
    keep_values = {}
    rolls = last
    for t in range(LAST_THROW, 1, -1):
        keep_values[t] = ms.expect(rolls)
        if t > 2:
            rolls = ms.best_inside(keep_values[t])
    return TurnPlan(keep_values, open_boxes)
