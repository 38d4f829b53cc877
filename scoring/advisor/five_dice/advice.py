"""``advise``: what to keep or where to write, with what each choice costs.

The solved table gives the value of every turn-start state; one turn from a given sheet
is then re-solved on the spot for that single state (a few hundred small array
operations, about a millisecond), which gives every keep's and every box's expected final
score, not only the best one's. Expected final score = the sheet's total now (as the
rulebook counts it) + the points this turn + the expected points of the turns after.

The box options are the rulebook's own ``choices`` for these dice on this sheet, so a
forced joker lists only the boxes the rules allow.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from scoring.advisor.five_dice.states import upper_submask
from scoring.advisor.five_dice.strategy import Strategy, solve
from scoring.advisor.five_dice.widget import THROWS, Widget, counts_of, widget
from scoring.dice import Die
from scoring.entries import RulesError
from scoring.rulebooks.base import Rulebook, Sheet, Table

TIE = 1e-9  # a keep no better than writing by more than rounding: write (the turn ends)


@dataclass(frozen=True)
class KeepOption:
    """Keep these dice and re-roll the others (keeping all five is keeping the roll)."""

    keep: tuple[int, ...]  # face values, smallest first
    dice: tuple[int, ...]  # positions of those dice among the dice given
    expected: float
    loss: float  # best option's expected final score minus this one's
    fill: dict[str, float]  # P(box written this turn), playing optimally after this keep

    def to_json(self) -> dict[str, Any]:
        return {
            "keep": list(self.keep),
            "dice": list(self.dice),
            "expected": round(self.expected, 4),
            "loss": round(self.loss, 4),
            "fill": {b: round(p, 4) for b, p in self.fill.items()},
        }


@dataclass(frozen=True)
class BoxOption:
    """Write the dice in this box now."""

    box: str
    points: int
    bonus: int
    expected: float
    loss: float
    why: str

    def to_json(self) -> dict[str, Any]:
        return {
            "box": self.box,
            "points": self.points,
            "bonus": self.bonus,
            "expected": round(self.expected, 4),
            "loss": round(self.loss, 4),
            "why": self.why,
        }


@dataclass(frozen=True)
class Advice:
    """Every keep (if a throw is left) and every box the rules offer, best first.

    ``fill``: P(each open box is the one written by the end of this turn) under optimal
    play from here. ``best`` is a KeepOption or a BoxOption; on a tie, writing wins.
    """

    throws_left: int
    total_now: int
    expected: float
    best: KeepOption | BoxOption
    keeps: tuple[KeepOption, ...]
    boxes: tuple[BoxOption, ...]
    fill: dict[str, float]

    def to_json(self) -> dict[str, Any]:
        return {
            "throws_left": self.throws_left,
            "total_now": self.total_now,
            "expected": round(self.expected, 4),
            "best": self.best.to_json(),
            "keeps": [k.to_json() for k in self.keeps],
            "boxes": [b.to_json() for b in self.boxes],
            "fill": {b: round(p, 4) for b, p in self.fill.items()},
        }


def _dice(dice: Sequence[Die | int]) -> tuple[Die, ...]:
    return tuple(d if isinstance(d, Die) else Die(int(d)) for d in dice)


def _keeps(values: list[int]) -> dict[tuple[int, ...], tuple[int, ...]]:
    """Each distinct multiset of kept faces -> the positions of one way to keep it."""
    out: dict[tuple[int, ...], tuple[int, ...]] = {}
    for size in range(len(values) + 1):
        for pos in itertools.combinations(range(len(values)), size):
            out.setdefault(tuple(sorted(values[i] for i in pos)), pos)
    return out


def _fill_after(
    w: Widget, final_box: np.ndarray, nbox: int, last_keeps: np.ndarray | None
) -> np.ndarray:
    """(252, B): P(box written) from each roll of the throw about to be made.

    With no re-roll after that throw, the roll goes to its best box (one-hot); with one
    left (``last_keeps``: each keep's value then), the roll is first re-rolled from its
    best keep.
    """
    onehot = np.zeros((len(final_box), nbox))
    onehot[np.arange(len(final_box)), final_box] = 1.0
    if last_keeps is None:
        return onehot
    inside = w.sub  # (252, 32) keep rows inside each roll
    best_keep = inside[np.arange(len(inside)), np.argmax(last_keeps[inside], axis=1)]
    return w.transition[best_keep] @ onehot


def advise(
    rulebook: Rulebook,
    sheet: Sheet | Mapping[str, int],
    dice: Sequence[Die | int],
    throws_left: int,
    *,
    strategy: Strategy | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
) -> Advice:
    """Advice for one player's sheet, the dice on the table, and the re-rolls still allowed
    (0, 1 or 2: ``max_throws`` minus the throws made this turn).

    ``strategy``: a ``solve`` result for this rulebook (else it is solved or loaded here,
    from ``cache_dir`` if given).
    """
    if strategy is None:
        strategy = solve(rulebook, cache_dir)
    if strategy.rulebook_id != rulebook.id:
        raise RulesError(f"strategy for {strategy.rulebook_id}, not {rulebook.id}")
    if not 0 <= throws_left < THROWS:
        raise RulesError(f"throws_left must be 0 to {THROWS - 1}, not {throws_left}")
    dice = _dice(dice)
    rulebook.validate(dice)
    if not isinstance(sheet, Sheet):
        sheet = Sheet("advisor", dict(sheet))
    table = Table([sheet])
    mask, slot, upper = strategy.state_of(sheet.cells)
    solver, t, w = strategy.solver, strategy.tables, widget()
    nbox = len(t.box_ids)
    if mask == solver.full:
        raise RulesError("the sheet is full: nothing left to advise")
    if not solver.reach[upper_submask(t, np.array([mask]))[0], upper]:
        raise RulesError("no game reaches this sheet: its upper boxes cannot total that")
    if mask.bit_count() + 1 < strategy.min_filled:
        raise RulesError(f"strategy solved only from {strategy.min_filled} boxes written")
    now = rulebook.grand_total(table, 0)

    worth = solver.box_worth(mask, slot, upper)  # (252, B)
    final_box = np.argmax(worth, axis=1)
    final = worth[np.arange(len(worth)), final_box]
    if not np.isfinite(final).all():  # NaN: a successor the table does not hold
        raise RulesError("the strategy holds no value for what follows this sheet")

    entries = rulebook.choices(table, 0, dice, first=False, announced=None)
    m, s, u = (np.array([x], dtype=np.intp) for x in (mask, slot, upper))
    col = {b: i for i, b in enumerate(t.box_ids)}
    box_values = []
    for e in entries:
        v = solver.after_write(col[e.box], m, s, u, np.array([e.points]), np.array([e.bonus]))
        box_values.append((e, now + float(v[0])))

    keep_values: list[tuple[tuple[int, ...], tuple[int, ...], float, np.ndarray]] = []
    if throws_left:
        last = w.keep_values(final)  # each keep's value with one re-roll left
        two = throws_left == 2
        kv = w.keep_values(w.best_keep_values(last.copy())) if two else last
        fill_rows = _fill_after(w, final_box, nbox, last if two else None)
        for keep, pos in _keeps([d.value for d in dice]).items():
            row = w.keep_index[counts_of(keep)]
            probs = w.transition[row] @ fill_rows
            keep_values.append((keep, pos, now + float(kv[row]), probs))

    best = max([v for _, v in box_values] + [v for *_, v, _ in keep_values])
    boxes = tuple(
        BoxOption(e.box, e.points, e.bonus, v, best - v, e.why)
        for e, v in sorted(box_values, key=lambda ev: -ev[1])
    )
    keeps = tuple(
        KeepOption(keep, pos, v, best - v, _named(probs, t.box_ids, mask))
        for keep, pos, v, probs in sorted(keep_values, key=lambda kv_: (-kv_[2], -len(kv_[0])))
    )
    if boxes and boxes[0].loss <= (keeps[0].loss + TIE if keeps else np.inf):
        chosen: KeepOption | BoxOption = boxes[0]
        fill = dict.fromkeys(_open(t.box_ids, mask), 0.0) | {boxes[0].box: 1.0}
    else:
        chosen = keeps[0]
        fill = chosen.fill
    return Advice(throws_left, now, best, chosen, keeps, boxes, fill)


def _open(box_ids: tuple[str, ...], mask: int) -> list[str]:
    return [b for i, b in enumerate(box_ids) if not (mask >> i) & 1]


def _named(probs: np.ndarray, box_ids: tuple[str, ...], mask: int) -> dict[str, float]:
    return {b: float(probs[box_ids.index(b)]) for b in _open(box_ids, mask)}
