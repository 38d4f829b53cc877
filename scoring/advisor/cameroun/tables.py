"""What every roll scores in every Cameroun column, read from the rulebook, never re-derived.

The advisor must score exactly as the engine does, so every number here is an
``Entry.points`` the rulebook returned:

* ``raw``: for each of the 252 rolls, ``entries`` (the throw's worth on an empty table) and
  ``announced`` (an announced third throw: the points on success, 0 on failure). These do
  not depend on the table, so they are read once per rulebook.
* ``table_points``: what a roll is worth *on this table*. The engine caps a number column
  by the room the table has left (``choices``), so the capped points are read from
  ``choices`` itself, plain and announced, on a few probe rolls that together show every
  (column, raw points) pair; every other roll with the same raw points in that column is
  capped the same way. That is the only assumption: the cap depends on the column, the raw
  points and the table, not on the other dice. The tests check it roll by roll.

Probing costs a few dozen ``choices`` calls (about a millisecond) and is cached per table
state, so the three decisions of one turn pay it once.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from functools import cache

import numpy as np

from scoring.advisor.cameroun.dice import dice
from scoring.dice import Die
from scoring.rulebooks.base import Rulebook, Table

CACHE_SIZE = 64


@dataclass(frozen=True)
class Raw:
    """Points of every roll in every column, table ignored (rows: rolls, columns: boxes)."""

    boxes: tuple[str, ...]
    plain: np.ndarray  # (252, B) Entry.points of rulebook.entries
    announced: np.ndarray  # (252, B) Entry.points of rulebook.announced: 0 = failed
    probes: tuple[int, ...]  # rolls that show every (column, raw points > 0) pair
    crosses: np.ndarray  # (B,) bool: a failed announcement closes the column for everyone


@dataclass(frozen=True)
class TablePoints:
    """What each roll scores in each column on one table, as ``choices`` says.

    ``open``: (B,) bool, the columns ``choices`` offers. ``plain``/``announced``: (252, B)
    capped points (0 in a closed column). ``success``: (252, B) bool, an announced throw
    for that column succeeds (the engine's failure is an announced entry worth 0).
    """

    open: np.ndarray
    plain: np.ndarray
    announced: np.ndarray
    success: np.ndarray


def _dice_of(roll: tuple[int, ...]) -> tuple[Die, ...]:
    return tuple(Die(v) for v in roll)


@cache
def _raw(rulebook_type: type[Rulebook], options: tuple) -> Raw:
    rulebook = rulebook_type(dict(options))
    boxes = tuple(b.id for b in rulebook.boxes)
    rolls = dice().rolls
    plain = np.zeros((len(rolls), len(boxes)), dtype=np.int64)
    announced = np.zeros_like(plain)
    for r, roll in enumerate(rolls):
        ds = _dice_of(roll)
        for e in rulebook.entries(ds):
            plain[r, boxes.index(e.box)] = e.points
        for c, box in enumerate(boxes):
            announced[r, c] = rulebook.announced(ds, box).points
    # greedy cover: few rolls that show every (column, points) pair, plain or announced
    needed = {(c, int(p)) for arr in (plain, announced) for (_, c), p in np.ndenumerate(arr) if p}
    probes = []
    while needed:
        best = max(
            range(len(rolls)),
            key=lambda r: len(needed & _pairs(plain, announced, r)),
        )
        probes.append(best)
        needed -= _pairs(plain, announced, best)
    crosses = np.array(
        [_failure_closes(rulebook, box, announced[:, c]) for c, box in enumerate(boxes)]
    )
    for arr in (plain, announced, crosses):
        arr.flags.writeable = False
    return Raw(boxes, plain, announced, tuple(probes), crosses)


def _failure_closes(rulebook: Rulebook, box: str, announced: np.ndarray) -> bool:
    """Whether the engine closes ``box`` for everyone after a failed announced throw.

    Asked of the engine itself: record a failed announcement on a fresh table and look.
    """
    failing = np.flatnonzero(announced == 0)
    if not len(failing):
        return False
    ds = _dice_of(dice().rolls[failing[0]])
    table = Table([rulebook.new_sheet("a"), rulebook.new_sheet("b")])
    (entry,) = rulebook.choices(table, 0, ds, first=False, announced=box)
    rulebook.record(table, 0, entry, box)
    return box in table.closed


def _pairs(plain: np.ndarray, announced: np.ndarray, r: int) -> set[tuple[int, int]]:
    return {(c, int(p)) for arr in (plain, announced) for c, p in enumerate(arr[r]) if p}


def raw(rulebook: Rulebook) -> Raw:
    """The table-free points of this rulebook (cached per rulebook class and options)."""
    return _raw(type(rulebook), tuple(sorted(rulebook.options.to_dict().items())))


_TABLES: OrderedDict[tuple, TablePoints] = OrderedDict()


def table_key(rulebook: Rulebook, table: Table, player: int) -> tuple:
    """Everything ``choices`` may read: the sheets' cells, the closed columns, the player."""
    sheets = tuple(tuple(sorted(s.cells.items())) for s in table.sheets)
    return (type(rulebook), rulebook.options, player, sheets, tuple(sorted(table.closed)))


def table_points(rulebook: Rulebook, table: Table, player: int) -> TablePoints:
    """Capped points of every roll in every column for ``player`` on ``table`` (cached)."""
    key = table_key(rulebook, table, player)
    found = _TABLES.get(key)
    if found is not None:
        _TABLES.move_to_end(key)
        return found
    base = raw(rulebook)
    index = {b: i for i, b in enumerate(base.boxes)}
    rolls = dice().rolls
    is_open = np.zeros(len(base.boxes), dtype=bool)
    cap_plain: dict[tuple[int, int], int] = {}
    cap_ann: dict[tuple[int, int], int] = {}
    for r in base.probes:
        ds = _dice_of(rolls[r])
        for e in rulebook.choices(table, player, ds, first=False, announced=None):
            c = index[e.box]
            is_open[c] = True
            cap_plain[c, int(base.plain[r, c])] = e.points
        for c in np.flatnonzero(is_open):
            if base.announced[r, c] and (c, int(base.announced[r, c])) not in cap_ann:
                (e,) = rulebook.choices(table, player, ds, first=False, announced=base.boxes[c])
                cap_ann[c, int(base.announced[r, c])] = e.points
    plain = _apply(base.plain, cap_plain, is_open)
    announced = _apply(base.announced, cap_ann, is_open)
    success = (base.announced > 0) & is_open
    out = TablePoints(is_open, plain, announced, success)
    for arr in (is_open, plain, announced, success):
        arr.flags.writeable = False
    _TABLES[key] = out
    if len(_TABLES) > CACHE_SIZE:
        _TABLES.popitem(last=False)
    return out


def _apply(points: np.ndarray, caps: dict[tuple[int, int], int], is_open: np.ndarray) -> np.ndarray:
    """Replace each raw value by its capped value in that column; closed columns score 0."""
    out = np.zeros_like(points)
    lookup = np.zeros(int(points.max()) + 1, dtype=points.dtype)
    for c in np.flatnonzero(is_open):
        lookup[:] = 0
        for (col, p), capped in caps.items():
            if col == c:
                lookup[p] = capped
        out[:, c] = lookup[points[:, c]]
    return out
