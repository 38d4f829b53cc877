"""The turn-start states of a solitaire game and which of them can occur.

A state is (filled boxes as a bit mask in sheet order, upper total capped at the bonus
threshold, Yam's slot). Past the threshold the exact upper total no longer matters, so 64
totals are enough. The slot says what the Yam's box holds once written (0: open or 50,
1: 0); it is only kept apart when the rulebook scores those two differently.

Many (upper boxes, upper total) pairs cannot happen (three boxes written cannot total 1),
and the solver skips them: with the classic sheet 1,302 of the 4,096 pairs are unreachable,
which removes about a third of the work.
"""

from __future__ import annotations

import numpy as np

from scoring.advisor.five_dice.tables import ScoreTables
from scoring.rulebooks.five_dice import UPPER_THRESHOLD

CAP = UPPER_THRESHOLD  # upper totals are stored as min(total, CAP): 0..CAP


def upper_points(tables: ScoreTables) -> list[np.ndarray]:
    """For each upper box (in sheet order), every number of points the engine can write."""
    out = []
    for b in np.flatnonzero(tables.upper):
        seen = set(tables.base_points[:, b].tolist())
        seen |= set(tables.dep_points[..., b][tables.dep_allowed[..., b]].tolist())
        out.append(np.array(sorted(seen), dtype=np.intp))
    return out


def upper_reach(tables: ScoreTables) -> np.ndarray:
    """(2^U, CAP + 1) bool: can these upper boxes, once written, total this (capped)?

    Indexed by the mask of the upper boxes among themselves (bit j = j-th upper box).
    """
    options = upper_points(tables)
    reach = np.zeros((2 ** len(options), CAP + 1), dtype=bool)
    reach[0, 0] = True
    for sub in range(1, 2 ** len(options)):
        j = (sub & -sub).bit_length() - 1  # lowest upper box in this set
        rest = reach[sub ^ (1 << j)]
        for points in options[j]:
            totals = np.minimum(np.flatnonzero(rest) + points, CAP)
            reach[sub, totals] = True
    return reach


def upper_submask(tables: ScoreTables, masks: np.ndarray) -> np.ndarray:
    """The mask of the upper boxes among themselves, for full box masks."""
    out = np.zeros_like(masks)
    for j, b in enumerate(np.flatnonzero(tables.upper)):
        out |= ((masks >> b) & 1) << j
    return out


def tier_states(
    tables: ScoreTables, filled: int, reach: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(masks, slots, uppers) of every reachable state with ``filled`` boxes written."""
    nbox = len(tables.box_ids)
    masks = np.array([m for m in range(2**nbox) if m.bit_count() == filled], dtype=np.intp)
    sub = upper_submask(tables, masks)
    ybit = tables.yams_bit
    out_m, out_s, out_u = [], [], []
    for m, s in zip(masks.tolist(), sub.tolist(), strict=True):
        uppers = np.flatnonzero(reach[s])
        slots = (0, 1) if tables.flag_matters and m >> ybit & 1 else (0,)
        for slot in slots:
            out_m.append(np.full(len(uppers), m))
            out_s.append(np.full(len(uppers), slot))
            out_u.append(uppers)
    if not out_m:
        empty = np.zeros(0, dtype=np.intp)
        return empty, empty, empty
    return tuple(np.concatenate(a).astype(np.intp) for a in (out_m, out_s, out_u))
