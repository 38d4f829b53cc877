"""The dice of one Cameroun turn as multisets: 252 rolls of five d6, 462 keeps.

A turn only ever sees multisets: which positions hold which values does not change what a
throw scores or what a re-roll can give. Everything the turn solver needs is therefore a
few small dense arrays, built once per process:

* ``transition[k, r]``: P(roll r | keep k, the other dice thrown again), 462 x 252;
* ``inside[r]``: the keeps that can be set aside from roll r (at most 32 distinct ones,
  padded by repetition so that a max over a row ignores the padding).

This module is self-contained on purpose (the solitaire advisor's ``widget`` is built for
three free throws and is still moving); both could share one table later.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np

FACES = 6
DICE = 5
SUBSETS = 2**DICE  # at most 32 distinct keeps inside one roll


@dataclass(frozen=True)
class Dice:
    """Rolls and keeps as sorted value tuples, with the arrays that link them."""

    rolls: tuple[tuple[int, ...], ...]  # 252 sorted 5-tuples
    keeps: tuple[tuple[int, ...], ...]  # 462 sorted tuples of 0..5 values
    roll_index: dict[tuple[int, ...], int]
    keep_index: dict[tuple[int, ...], int]
    transition: np.ndarray  # (462, 252)
    inside: np.ndarray  # (252, 32) keep indices inside each roll
    counts: np.ndarray  # (252, 6) how many dice of each face each roll shows
    sparse: tuple[np.ndarray, np.ndarray, np.ndarray]  # transition's non-zeros, by row

    def expect(self, values: np.ndarray) -> np.ndarray:
        """(252, ...) value of each roll -> (462, ...) its mean over each keep's re-roll.

        ``transition @ values`` with only the 4,368 non-zero terms: a dense product is
        25 times the work, and BLAS threads fight for the cores when a machine is busy.
        """
        starts, cols, probs = self.sparse
        terms = values[cols] * probs.reshape(-1, *([1] * (values.ndim - 1)))
        return np.add.reduceat(terms, starts, axis=0)

    @property
    def empty(self) -> int:
        """The keep of no die: a fresh throw of five."""
        return self.keep_index[()]

    def roll_of(self, values: Sequence[int]) -> int:
        return self.roll_index[tuple(sorted(values))]


def positions(dice: Sequence[int], keep: Sequence[int]) -> list[int]:
    """Positions of ``keep``'s values among ``dice``: the first matching dice, in order.

    Deterministic, so that the same advice always names the same dice.
    """
    wanted = list(keep)
    out = []
    for i, v in enumerate(dice):
        if v in wanted:
            wanted.remove(v)
            out.append(i)
    if wanted:
        raise ValueError(f"cannot keep {tuple(keep)} from {tuple(dice)}")
    return out


def _probability(keep: tuple[int, ...], roll: tuple[int, ...]) -> float:
    """P(the dice not kept show what ``roll`` adds to ``keep``): a multinomial."""
    rest = list(roll)
    for v in keep:
        if v not in rest:
            return 0.0
        rest.remove(v)
    free = len(rest)
    ways = math.factorial(free)
    for face in range(1, FACES + 1):
        ways //= math.factorial(rest.count(face))
    return ways / FACES**free


@cache
def dice() -> Dice:
    """Build the tables once per process (a few tens of milliseconds)."""
    faces = range(1, FACES + 1)
    rolls = tuple(itertools.combinations_with_replacement(faces, DICE))
    keeps = tuple(
        k for size in range(DICE + 1) for k in itertools.combinations_with_replacement(faces, size)
    )
    roll_index = {r: i for i, r in enumerate(rolls)}
    keep_index = {k: i for i, k in enumerate(keeps)}
    transition = np.array([[_probability(k, r) for r in rolls] for k in keeps])
    inside = np.zeros((len(rolls), SUBSETS), dtype=np.intp)
    for r, roll in enumerate(rolls):
        subs = sorted(
            {
                keep_index[tuple(sorted(c))]
                for n in range(DICE + 1)
                for c in itertools.combinations(roll, n)
            }
        )
        inside[r] = (subs * SUBSETS)[:SUBSETS]
    counts = np.array([[roll.count(f) for f in faces] for roll in rolls], dtype=np.int8)
    rows, cols = np.nonzero(transition)  # row-major: each keep's terms are contiguous
    starts = np.searchsorted(rows, np.arange(len(keeps)))
    sparse = (starts, cols, transition[rows, cols])
    for arr in (transition, inside, counts, *sparse):
        arr.flags.writeable = False
    return Dice(rolls, keeps, roll_index, keep_index, transition, inside, counts, sparse)
