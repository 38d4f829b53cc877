"""``solve``: the optimal-strategy table of a rulebook, solved once and then reused.

The table (``Strategy.values``) is what the advice reads: the expected points still to
come from every turn-start state. It is kept in memory per process (the advice is asked
many times a game) and, when the caller gives a directory, on disk (see ``cache``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from scoring.advisor import cache
from scoring.advisor.five_dice.solver import Solver
from scoring.advisor.five_dice.states import CAP
from scoring.advisor.five_dice.tables import YAMS, ScoreTables, build_tables
from scoring.entries import RulesError
from scoring.rulebooks.base import Rulebook, Sheet

_MEMORY: dict[str, Strategy] = {}


@dataclass(eq=False)
class Strategy:
    """A solved rulebook: ``values[mask, slot, upper]`` = expected points still to come.

    ``min_filled``: states with fewer boxes written were not solved (NaN); 0 for a full
    solve. ``from_cache`` says whether the table was read from disk.
    """

    rulebook_id: str
    key: str
    tables: ScoreTables
    values: np.ndarray
    min_filled: int = 0
    from_cache: bool = False

    def __post_init__(self) -> None:
        nbox = len(self.tables.box_ids)
        if self.values.shape != (2**nbox, 2, CAP + 1) or self.values.dtype != np.float64:
            raise ValueError(f"value table of shape {self.values.shape} {self.values.dtype}")

    @property
    def expected_score(self) -> float:
        """The optimum of a whole game: the value of the empty sheet."""
        return float(self.values[0, 0, 0])

    @cached_property
    def solver(self) -> Solver:
        return Solver(self.tables, self.values)

    def state_of(self, cells: Mapping[str, int]) -> tuple[int, int, int]:
        """(mask, slot, capped upper total) of a sheet's written boxes."""
        col = {b: i for i, b in enumerate(self.tables.box_ids)}
        unknown = sorted(set(cells) - set(col))
        if unknown:
            raise RulesError(f"{self.rulebook_id} has no box {', '.join(unknown)}")
        mask = sum(1 << col[b] for b in cells)
        upper = sum(v for b, v in cells.items() if self.tables.upper[col[b]])
        slot = 1 if self.tables.flag_matters and cells.get(YAMS) == 0 else 0
        return mask, slot, min(max(upper, 0), CAP)

    def value(self, sheet: Sheet | Mapping[str, int]) -> float:
        """Expected points still to come from the start of a turn on this sheet."""
        cells = sheet.cells if isinstance(sheet, Sheet) else sheet
        mask, slot, upper = self.state_of(cells)
        v = float(self.values[mask, slot, upper])
        if np.isnan(v):
            raise RulesError("this state was not solved (unreachable or below min_filled)")
        return v

    def arrays(self) -> dict[str, np.ndarray]:
        return {"values": self.values, **self.tables.arrays()}


def solve(
    rulebook: Rulebook,
    cache_dir: str | os.PathLike[str] | None = None,
    *,
    min_filled: int = 0,
) -> Strategy:
    """The optimal solitaire strategy of a five-dice rulebook.

    ``cache_dir``: where solved tables are read from and written to (None: memory only).
    ``min_filled``: solve only the states with at least this many boxes written (the last
    turns, for tests and quick checks); 0 solves the whole game.
    """
    key = cache.cache_key(rulebook, min_filled)
    if key in _MEMORY:
        return _MEMORY[key]
    path = cache.cache_path(cache_dir, rulebook, key) if cache_dir is not None else None
    arrays = cache.load(path, key) if path is not None else None
    strategy = None
    if arrays is not None:
        try:
            tables = ScoreTables.from_arrays(rulebook, arrays)
            strategy = Strategy(rulebook.id, key, tables, arrays["values"], min_filled, True)
        except (KeyError, TypeError, ValueError) as exc:
            cache.log.warning("advisor cache %s has unexpected arrays (%s): rebuilding", path, exc)
    if strategy is None:
        tables = build_tables(rulebook)
        solver = Solver(tables)
        solver.solve(min_filled)
        strategy = Strategy(rulebook.id, key, tables, solver.V, min_filled)
        if path is not None:
            cache.save(path, key, strategy.arrays())
    strategy.solver.reach  # noqa: B018 -- build the advice's lookups now, not on its first call
    _MEMORY[key] = strategy
    return strategy


def forget() -> None:
    """Drop the in-memory strategies (tests; a long-lived process after a rules change)."""
    _MEMORY.clear()
