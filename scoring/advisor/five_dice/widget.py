"""One turn of five d6 and three throws, solved exactly (Glenn's "widget").

A turn only ever sees multisets of dice: 252 distinct rolls of five dice and 462 keeps of
zero to five dice. Everything here is indexed by those multisets, never by ordered dice.

Keeps are sorted by size, so the rolls are exactly the last 252 keeps (a roll is the keep
of all five dice). Both steps of a re-roll are then computed level by level on whole rows
of a ``(keeps, states)`` array, the layout the solver vectorises over:

* expectation: re-rolling the free dice is rolling them one at a time, so a keep of size
  s is worth the mean of its six children of size s + 1 (1,260 row additions instead of
  the 116,424 multiply-adds of the dense 462 x 252 transition matrix, and fewer roundings);
* choice: the best keep inside a roll is the better of the roll itself and the best keeps
  inside its keeps one die smaller; rows with fewer distinct faces need fewer comparisons,
  so each level is sorted by distinct faces and each comparison runs on a prefix.

The dense ``transition`` matrix (4,368 non-zeros) is kept for the advice, which needs the
probability of each roll after a given keep.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import cache

import numpy as np

FACES = 6
DICE = 5
THROWS = 3


def _multisets(size: int) -> list[tuple[int, ...]]:
    """Count vectors of ``size`` dice, most distinct faces first (see the module doc)."""
    out = []
    for combo in itertools.combinations_with_replacement(range(FACES), size):
        counts = [0] * FACES
        for face in combo:
            counts[face] += 1
        out.append(tuple(counts))
    return sorted(out, key=lambda c: (-sum(map(bool, c)), [-x for x in c]))


@dataclass(frozen=True)
class Widget:
    """The dice combinatorics of one turn, shared by the solver and the advice.

    ``keeps``: (462, 6) counts, sorted by size; ``rolls`` = the last 252 rows.
    ``transition``: (462, 252) P(roll | keep, re-roll the other dice).
    ``level``: (start, stop) row range of the keeps of each size 0..5.
    ``children``: (210, 6) for each keep smaller than five dice, the keep plus one die.
    ``preds``: (462, 5) the distinct keeps one die smaller; ``pred_rows[s][j]``: how many
    rows of level s (a prefix) have a j-th one.
    ``sub``: (252, 32) for each roll, the rows of its distinct keeps (padded by repetition).
    """

    keeps: np.ndarray
    transition: np.ndarray
    level: tuple[tuple[int, int], ...]
    children: np.ndarray
    preds: np.ndarray
    pred_rows: tuple[tuple[int, ...], ...]
    sub: np.ndarray
    keep_index: dict[tuple[int, ...], int]

    @property
    def roll_start(self) -> int:
        return self.level[DICE][0]

    @property
    def rolls(self) -> np.ndarray:
        return self.keeps[self.roll_start :]

    @property
    def first_throw(self) -> np.ndarray:
        """P(roll) for five fresh dice: the row of the empty keep."""
        return self.transition[0]

    def roll_of(self, values: list[int] | tuple[int, ...]) -> int:
        """Index (0..251) of the roll showing these five face values."""
        return self.keep_index[counts_of(values)] - self.roll_start

    def keep_values(self, roll_values: np.ndarray) -> np.ndarray:
        """(252, N) value of each roll -> (462, N) expected value of each keep, re-rolled."""
        out = np.empty((len(self.keeps), *roll_values.shape[1:]), dtype=roll_values.dtype)
        out[self.roll_start :] = roll_values
        for size in range(DICE - 1, -1, -1):
            start, stop = self.level[size]
            rows = out[start:stop]
            np.take(out, self.children[start:stop, 0], axis=0, out=rows)
            for f in range(1, FACES):
                rows += out[self.children[start:stop, f]]
            rows *= 1.0 / FACES
        return out

    def best_keep_values(self, keep_values: np.ndarray) -> np.ndarray:
        """(462, N) value of each keep -> (252, N) value of each roll's best keep (in place)."""
        best = keep_values
        for size in range(1, DICE + 1):
            start = self.level[size][0]
            for j, count in enumerate(self.pred_rows[size]):
                rows = best[start : start + count]
                np.maximum(rows, best[self.preds[start : start + count, j]], out=rows)
        return best[self.roll_start :]

    def turn_values(self, final: np.ndarray) -> np.ndarray:
        """(252, N) value of each final roll -> (N,) value before the first throw.

        ``final`` is what the roll is worth once the last throw is made (the best box).
        """
        after = final
        for _ in range(THROWS - 1):
            after = self.best_keep_values(self.keep_values(after))
        return self.first_throw @ after  # one row: a dot product beats the level sums


def counts_of(values: list[int] | tuple[int, ...]) -> tuple[int, ...]:
    counts = [0] * FACES
    for v in values:
        counts[v - 1] += 1
    return tuple(counts)


def values_of(counts: np.ndarray | tuple[int, ...]) -> tuple[int, ...]:
    """The face values of a keep, smallest first."""
    return tuple(face + 1 for face in range(FACES) for _ in range(int(counts[face])))


def _transition(keeps: list[tuple[int, ...]], rolls: list[tuple[int, ...]]) -> np.ndarray:
    """P(roll | keep): multinomial over the faces the re-rolled dice must show."""
    keep_arr, roll_arr = np.array(keeps), np.array(rolls)
    diff = roll_arr[None, :, :] - keep_arr[:, None, :]
    fact = np.array([math.factorial(n) for n in range(DICE + 1)], dtype=float)
    free = DICE - keep_arr.sum(axis=1)
    ways = fact[free][:, None] / fact[np.clip(diff, 0, DICE)].prod(axis=2)
    return np.where((diff >= 0).all(axis=2), ways / float(FACES) ** free[:, None], 0.0)


@cache
def widget() -> Widget:
    """Build the combinatorics once per process (tens of milliseconds)."""
    keeps = [k for size in range(DICE + 1) for k in _multisets(size)]
    keep_index = {k: i for i, k in enumerate(keeps)}
    level, start = [], 0
    for size in range(DICE + 1):
        n = math.comb(size + FACES - 1, FACES - 1)
        level.append((start, start + n))
        start += n
    rolls = keeps[level[DICE][0] :]

    def plus(keep: tuple[int, ...], face: int, step: int) -> tuple[int, ...]:
        return (*keep[:face], keep[face] + step, *keep[face + 1 :])

    children = np.array(
        [[keep_index[plus(k, f, 1)] for f in range(FACES)] for k in keeps[: level[DICE][0]]]
    )
    preds = np.zeros((len(keeps), DICE), dtype=np.intp)
    pred_rows = [()]
    for size in range(1, DICE + 1):
        lo, hi = level[size]
        counts = [0] * DICE
        for k in range(lo, hi):
            smaller = [keep_index[plus(keeps[k], f, -1)] for f in range(FACES) if keeps[k][f]]
            preds[k, : len(smaller)] = smaller
            for j in range(len(smaller)):
                counts[j] += 1
        pred_rows.append(tuple(c for c in counts if c))
    sub = np.zeros((len(rolls), 2**DICE), dtype=np.intp)
    for r, roll in enumerate(rolls):
        inside = sorted({keep_index[c] for c in itertools.product(*(range(n + 1) for n in roll))})
        sub[r] = (inside * 2**DICE)[: 2**DICE]
    keeps_arr = np.array(keeps, dtype=np.int8)
    transition = _transition(keeps, rolls)
    for arr in (keeps_arr, transition, children, preds, sub):
        arr.flags.writeable = False
    return Widget(
        keeps_arr,
        transition,
        tuple(level),
        children,
        preds,
        tuple(pred_rows),
        sub,
        keep_index,
    )
