"""Ten d10 as multisets, and what the rulebook scores for each roll, as numpy tables.

Within a turn the advisor only looks at the dice's values: 92,378 distinct rolls of ten
d10 and 184,756 keeps of zero to ten dice (every multiset of size 0..10). Colours and
finishes (the harmonies) are left to the real entries the rulebook gives for the real
dice at the moment of a decision; here a roll is worth its *plain* points.

Rows are sorted by size, then by a base-11 code, so that "this keep plus one die of face
f" and "minus one die" are found with ``searchsorted``, and each size is a contiguous
slice (the rolls are the last 92,378 rows). Re-rolling m dice is adding m dice one at a
time, so a keep's expectation is the mean over its ten one-die-larger keeps, level by
level (Glenn's trick, here on 184,756 rows instead of 462).

The points are never re-derived. What a box scores depends on a small feature of the
roll (the sorted group sizes for the yams and combinaisons, the set of faces present for
the suites, the count of v for the chiffre v, the sum for plus and moins); the rulebook is
asked once for a representative throw of every value of that feature (about 1,300
``entries`` calls instead of 92,378), and a test checks the tables against the rulebook
on random throws.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np

from scoring.dice import Colour, Die
from scoring.rulebooks.base import Rulebook
from scoring.rulebooks.impossible import CHIFFRES, DIFFERENCE

FACES = 10
DICE = 10
_SIZE_UNIT = 11**FACES  # the code's size digit, above the ten count digits
_POW = 11 ** np.arange(FACES, dtype=np.int64)


@dataclass(frozen=True, eq=False)
class Multisets:
    """Every multiset of 0..10 d10 values.

    ``counts``: (N, 10) counts per face (face f + 1 in column f); ``start[s]``: first row of
    size s (``start[11]`` = N); ``add[f, i]``: row of ``counts[i]`` plus one f (rows of size
    < 10 only); ``sub[i, f]``: row minus one f, or N (a sentinel) when there is no f.
    """

    counts: np.ndarray
    codes: np.ndarray
    start: np.ndarray
    add: np.ndarray
    sub: np.ndarray

    @property
    def n(self) -> int:
        return len(self.codes)

    @property
    def rolls(self) -> slice:
        return slice(int(self.start[DICE]), self.n)

    def level(self, size: int) -> slice:
        return slice(int(self.start[size]), int(self.start[size + 1]))

    def index(self, counts: np.ndarray) -> np.ndarray:
        """Rows of count vectors ((..., 10) array)."""
        counts = np.asarray(counts, dtype=np.int64)
        code = counts.sum(-1) * _SIZE_UNIT + counts @ _POW
        return np.searchsorted(self.codes, code)

    def subsets(self, counts) -> np.ndarray:
        """(M, 10) every sub-multiset of one count vector (the keeps inside a roll)."""
        out = np.zeros((1, FACES), dtype=np.int64)
        for f, c in enumerate(counts):
            if c:
                reps = np.repeat(out, c + 1, axis=0)
                reps[:, f] = np.tile(np.arange(c + 1), len(out))
                out = reps
        return out

    def expect(self, roll_values: np.ndarray) -> np.ndarray:
        """Value of every keep when the free dice are thrown once and then worth ``roll_values``.

        ``roll_values``: (92,378, ...) per roll; returns (N, ...) per keep (rolls keep theirs).
        """
        out = np.empty((self.n, *roll_values.shape[1:]), dtype=roll_values.dtype)
        out[self.rolls] = roll_values
        most = int(self.start[DICE] - self.start[DICE - 1])  # the largest level below rolls
        spare = np.empty((most, *roll_values.shape[1:]), out.dtype)
        for s in range(DICE - 1, -1, -1):
            lvl = self.level(s)
            children = self.add[:, lvl]
            acc, tmp = out[lvl], spare[: lvl.stop - lvl.start]  # views, no allocation
            np.take(out, children[0], axis=0, out=acc)
            for f in range(1, FACES):
                np.take(out, children[f], axis=0, out=tmp)
                acc += tmp
            acc *= 1 / FACES
        return out

    def best_inside(self, keep_values: np.ndarray) -> np.ndarray:
        """For every roll, the best value of a keep inside it (the roll itself included)."""
        best = np.empty((self.n + 1, *keep_values.shape[1:]), dtype=keep_values.dtype)
        best[: self.n] = keep_values
        best[self.n] = -np.inf
        for s in range(1, DICE + 1):
            lvl = self.level(s)
            parents = self.sub[:, lvl]
            acc = best[lvl]  # a view: each level only reads smaller levels
            for f in range(FACES):
                np.maximum(acc, best[parents[f]], out=acc)
        return best[self.rolls]


@cache
def multisets() -> Multisets:
    rows = np.zeros((1, 0), dtype=np.int64)
    for _ in range(FACES):
        room = DICE - rows.sum(axis=1)
        grown = np.repeat(rows, room + 1, axis=0)
        extra = np.concatenate([np.arange(r + 1) for r in room])
        rows = np.hstack([grown, extra[:, None]])
    size = rows.sum(axis=1)
    codes = size * _SIZE_UNIT + rows @ _POW
    order = np.argsort(codes)
    rows, codes, size = rows[order], codes[order], size[order]
    n = len(codes)
    start = np.searchsorted(size, np.arange(DICE + 2))
    small = slice(0, int(start[DICE]))
    add = np.searchsorted(codes, codes[None, small] + _SIZE_UNIT + _POW[:, None])
    sub = np.searchsorted(codes, codes[None, :] - _SIZE_UNIT - _POW[:, None])
    sub[rows.T == 0] = n
    return Multisets(
        rows.astype(np.int8),
        codes,
        start,
        np.ascontiguousarray(add, dtype=np.int32),
        np.ascontiguousarray(sub, dtype=np.int32),
    )


# -- what the rulebook scores -------------------------------------------------------------


def _throw(values: list[int]) -> list[Die]:
    """Ten dice with these values, colours alternating in the order given, no finish.

    Alternating colours keep any value shown four times or less off a one-colour group of
    five, so the chiffres read their plain count × value (the harmony of nine or ten of a
    value cannot be avoided, and the rulebook gives it).
    """
    assert len(values) == DICE
    return [Die(v, Colour.RED if i % 2 == 0 else Colour.WHITE) for i, v in enumerate(values)]


def _partitions(n: int, most: int) -> list[tuple[int, ...]]:
    if n == 0:
        return [()]
    return [(p, *rest) for p in range(min(n, most), 0, -1) for rest in _partitions(n - p, p)]


@dataclass(frozen=True, eq=False)
class Group:
    """Boxes whose points depend on one feature of the roll.

    ``points[k, j]``: what box ``boxes[j]`` scores for a roll whose feature is k;
    ``feature[r]``: the feature of roll r (a row of ``Multisets.rolls``).
    """

    boxes: tuple[str, ...]
    points: np.ndarray
    feature: np.ndarray


@dataclass(frozen=True, eq=False)
class ScoreTables:
    """Plain points of every roll (rows of ``Multisets.rolls``) in every box.

    Yams, suites and combinaisons hold the legal points (the multipliers are the real
    dice's business), chiffres count × value, plus and moins the sum. They are kept
    factored by feature in ``groups`` (the turn's solve works on those small tables);
    ``box_points`` spreads one box over every roll when a whole table is wanted.
    """

    box_ids: tuple[str, ...]
    sections: tuple[str, ...]
    groups: tuple[Group, ...]
    rolls: int  # the number of distinct rolls

    def row(self, box: str) -> int:
        return self.box_ids.index(box)

    def box_points(self, box: str) -> np.ndarray:
        """(rolls,) int16: what ``box`` scores for every roll."""
        for g in self.groups:
            if box in g.boxes:
                return g.points[g.feature, g.boxes.index(box)].astype(np.int16)
        raise KeyError(box)


def _plain(entry) -> int:
    """The points of an entry without its harmonies: the legal points, or count × value."""
    if entry.section == CHIFFRES or entry.section == DIFFERENCE:
        return entry.points
    return entry.base if entry.points > 0 else 0


def build_tables(rulebook: Rulebook) -> ScoreTables:
    ms = multisets()
    counts = ms.counts[ms.rolls].astype(np.int64)
    box_ids = tuple(b.id for b in rulebook.boxes)
    sections = dict(zip(box_ids, (b.section for b in rulebook.boxes), strict=True))

    def ask(values: list[int], boxes: Sequence[str]) -> list[int]:
        got = {e.box: _plain(e) for e in rulebook.entries(_throw(values))}
        return [got[b] for b in boxes]

    def group(boxes: Sequence[str], throws: Sequence[list[int]], feature) -> Group:
        points = np.array([ask(values, boxes) for values in throws], dtype=np.int32)
        # its own small array: a column of ``counts`` would keep all of it (7 MB) alive
        assert len(throws) <= np.iinfo(np.int16).max
        feature = np.ascontiguousarray(feature, dtype=np.int16)
        return Group(tuple(boxes), points.reshape(len(throws), len(boxes)), feature)

    groups = []
    # yams and combinaisons: the sorted group sizes
    parts = _partitions(DICE, DICE)
    part_index = {p: i for i, p in enumerate(parts)}
    shapes, inverse = np.unique(-np.sort(-counts, axis=1), axis=0, return_inverse=True)
    which = np.array([part_index[tuple(int(x) for x in row if x)] for row in shapes])
    boxes = [b for b in box_ids if sections[b] in ("yams", "combinaisons")]
    throws = [[v + 1 for v, size in enumerate(p) for _ in range(size)] for p in parts]
    groups.append(group(boxes, throws, which[inverse.ravel()]))

    # suites: the set of faces present
    boxes = [b for b in box_ids if sections[b] == "suites"]
    throws = [[1] * DICE]  # mask 0 cannot happen: any throw will do
    for mask in range(1, 1 << FACES):
        faces = [f + 1 for f in range(FACES) if mask >> f & 1]
        throws.append(faces + [faces[0]] * (DICE - len(faces)))
    groups.append(group(boxes, throws, (counts > 0) @ (1 << np.arange(FACES))))

    # chiffres: the count of the box's value
    for v in range(1, FACES + 1):
        other = v % FACES + 1
        throws = [[v] * c + [other] * (DICE - c) for c in range(DICE + 1)]
        groups.append(group([str(v)], throws, counts[:, v - 1]))

    # plus and moins: the sum
    boxes = [b for b in box_ids if sections[b] == DIFFERENCE]
    throws = []
    for total in range(FACES * DICE + 1):
        high, rest = divmod(max(total - DICE, 0), FACES - 1)
        values = [FACES] * high + ([1 + rest] if high < DICE else [])
        throws.append(values + [1] * (DICE - len(values)))
    groups.append(group(boxes, throws, counts @ np.arange(1, FACES + 1)))

    return ScoreTables(box_ids, tuple(sections.values()), tuple(groups), len(counts))


@dataclass(frozen=True, eq=False)
class SixthTables:
    """One announced throw: ``best_fill[j, r]`` = the best chance, over the keeps inside
    roll r, that one throw of the other dice fills box ``boxes[j]``; ``legal``: (J,) points.
    """

    boxes: tuple[str, ...]
    legal: np.ndarray
    best_fill: np.ndarray


def sixth_tables(rulebook: Rulebook, tables: ScoreTables) -> SixthTables:
    """The boxes the rulebook lets one announce, and their best chances after one throw.

    A successful announced throw scores the box's legal points, the most its plain
    points ever are; a failed one scores minus them.
    """
    boxes = tuple(b for b in tables.box_ids if _announceable(rulebook, b))
    p_fill = one_throw_chances(tables, boxes)
    best_fill = np.ascontiguousarray(multisets().best_inside(p_fill).T)
    legal = np.array([tables.box_points(b).max() for b in boxes], dtype=np.float32)
    return SixthTables(boxes, legal, best_fill)


def one_throw_chances(
    tables: ScoreTables, boxes: Sequence[str], keeps: np.ndarray | None = None
) -> np.ndarray:
    """(keeps, boxes) float32: P(one throw of the dice not kept fills each box), for the
    keep rows ``keeps`` (all of them by default). Computed when asked, a box at a time
    (about 1.5 ms and 1 MB each): the full table would hold 16 MB for the few rows a fifth
    throw looks at."""
    ms = multisets()
    rows = np.arange(ms.n) if keeps is None else keeps
    chances = np.zeros((len(rows), len(boxes)), np.float32)
    for k, box in enumerate(boxes):
        chances[:, k] = ms.expect((tables.box_points(box) > 0).astype(np.float32))[rows]
    return chances


def _announceable(rulebook: Rulebook, box: str) -> bool:
    try:
        rulebook.check_announce(box)
    except ValueError:
        return False
    return True
