"""Backward induction over turn-start states, one tier (boxes filled) at a time.

``V[mask, slot, upper]`` is the expected number of points still to come from a turn-start
state under optimal play; the full sheet is worth 0. A state's value only needs the states
with one more box filled, so tiers are solved from 12 filled boxes down to 0, and all the
states of a tier go through the widget together as columns of one array (chunked to stay
in cache): that turns ~500,000 small turn solves into a few hundred dense products.

The upper bonus is paid when a write takes the upper total across the threshold, so the
future value never needs the total past it. The Yam's prime is whatever ``Entry.bonus``
the engine gives, added beside the points as the sheet does.

Values are float64: float32 was tried and drifts by 1e-4 to 5e-4 over the thirteen turns
(biased roundings of the 1/6 averages and long sums), which breaks the fourth decimal of
the published optima; float64 costs about 1.5x the time.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from scoring.advisor.five_dice.states import CAP, tier_states, upper_reach
from scoring.advisor.five_dice.tables import ScoreTables
from scoring.advisor.five_dice.widget import widget
from scoring.rulebooks.five_dice import UPPER_BONUS

CHUNK = 1024  # states per widget pass: (462, CHUNK) float64 is ~4 MB, stays in cache


class Solver:
    """Holds the value table while it is filled; usable on a partly solved table."""

    def __init__(self, tables: ScoreTables, values: np.ndarray | None = None) -> None:
        self.tables = tables
        self.nbox = len(tables.box_ids)
        self.full = 2**self.nbox - 1
        if values is None:
            values = np.full((2**self.nbox, 2, CAP + 1), np.nan)
            values[self.full] = 0.0
        self.V = values
        self.dtype = values.dtype
        self.widget = widget()
        self.base = []  # per box: distinct (points, bonus) over rolls, and each roll's index
        for b in range(self.nbox):
            pairs = np.stack([tables.base_points[:, b], tables.base_bonus[:, b]], axis=1)
            vals, inv = np.unique(pairs.astype(np.intp), axis=0, return_inverse=True)
            self.base.append((vals, inv.reshape(-1)))

    @cached_property
    def reach(self) -> np.ndarray:
        return upper_reach(self.tables)

    def after_write(
        self,
        box: int,
        masks: np.ndarray,
        slots: np.ndarray,
        uppers: np.ndarray,
        points: np.ndarray,
        bonus: np.ndarray,
    ) -> np.ndarray:
        """Points written now plus the value of the state they lead to (broadcasting)."""
        gain = points + bonus
        if self.tables.upper[box]:
            total = uppers + points
            gain = gain + np.where((uppers < CAP) & (total >= CAP), UPPER_BONUS, 0)
            uppers = np.minimum(total, CAP)
        if box == self.tables.yams_bit:
            slots = (points == 0).astype(np.intp) if self.tables.flag_matters else 0 * points
        nxt = self.V[masks | (1 << box), slots, uppers]
        return gain.astype(self.dtype) + nxt

    def final_values(self, masks: np.ndarray, slots: np.ndarray, uppers: np.ndarray) -> np.ndarray:
        """(252, N): what each roll is worth after the last throw (the best open box)."""
        n = len(masks)
        best = np.full((len(self.base[0][1]), n), -np.inf, dtype=self.dtype)
        for b, (vals, inv) in enumerate(self.base):
            is_open = (masks >> b) & 1 == 0
            if not is_open.any():
                continue
            worth = self.after_write(b, masks, slots, uppers, vals[:, :1], vals[:, 1:])
            worth[:, ~is_open] = -np.inf
            np.maximum(best, worth[inv], out=best)
        t = self.tables
        if len(t.dep_rolls):
            eff = np.where((masks >> t.yams_bit) & 1 == 1, slots, 0)
            for d, r in enumerate(t.dep_rolls):
                points = t.dep_points[eff, d, masks].astype(np.intp)
                bonus = t.dep_bonus[eff, d, masks].astype(np.intp)
                allowed = t.dep_allowed[eff, d, masks]
                row = np.full(n, -np.inf, dtype=self.dtype)
                for b in range(self.nbox):
                    ok = allowed[:, b]
                    if ok.any():
                        worth = self.after_write(b, masks, slots, uppers, points[:, b], bonus[:, b])
                        np.maximum(row, np.where(ok, worth, -np.inf), out=row)
                best[r] = row
        return best

    def box_worth(self, mask: int, slot: int, upper: int) -> np.ndarray:
        """(252, B) for one state: each final roll written in each box, -inf if not offered.

        The advice's view of ``final_values`` (its row maxima), with the argmax kept.
        """
        m, s, u = (np.array([x], dtype=np.intp) for x in (mask, slot, upper))
        out = np.full((len(self.base[0][1]), self.nbox), -np.inf, dtype=self.dtype)
        for b, (vals, inv) in enumerate(self.base):
            if not (mask >> b) & 1:
                out[:, b] = self.after_write(b, m, s, u, vals[:, :1], vals[:, 1:])[inv, 0]
        t = self.tables
        if len(t.dep_rolls):
            eff = slot if (mask >> t.yams_bit) & 1 else 0
            allowed = t.dep_allowed[eff, :, mask]  # (D, B)
            points = t.dep_points[eff, :, mask].astype(np.intp)
            bonus = t.dep_bonus[eff, :, mask].astype(np.intp)
            out[t.dep_rolls] = -np.inf
            for b in np.flatnonzero(allowed.any(axis=0)):
                worth = self.after_write(b, m, s, u, points[:, b : b + 1], bonus[:, b : b + 1])
                out[t.dep_rolls, b] = np.where(allowed[:, b], worth[:, 0], -np.inf)
        return out

    def state_values(self, masks: np.ndarray, slots: np.ndarray, uppers: np.ndarray) -> np.ndarray:
        """(N,) values of turn-start states whose successors are already solved."""
        out = np.empty(len(masks), dtype=self.dtype)
        for lo in range(0, len(masks), CHUNK):
            part = slice(lo, lo + CHUNK)
            final = self.final_values(masks[part], slots[part], uppers[part])
            out[part] = self.widget.turn_values(final)
        return out

    def solve_tier(self, filled: int) -> int:
        """Solve every reachable state with ``filled`` boxes written; returns their number."""
        masks, slots, uppers = tier_states(self.tables, filled, self.reach)
        if len(masks):
            self.V[masks, slots, uppers] = self.state_values(masks, slots, uppers)
        return len(masks)

    def solve(self, min_filled: int = 0) -> np.ndarray:
        for filled in range(self.nbox - 1, min_filled - 1, -1):
            self.solve_tier(filled)
        return self.V
