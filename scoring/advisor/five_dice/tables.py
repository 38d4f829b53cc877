"""What every roll scores in every box, read from the rulebook, never re-derived.

The advisor must score exactly as the engine does, so the tables are filled by asking the
rulebook (``choices`` on a sheet set to the state in question) and reading ``Entry.points``
and ``Entry.bonus``. Asking for all 252 rolls in each of the ~16,000 sheet states would
take over an hour at ~0.1 ms a call, so the engine is probed instead:

* ``base``: every roll on an empty sheet (every box open, the Yam's box open).
* probes: every roll again with the Yam's box open, holding 50 and holding 0, each with
  one other box written, or all other boxes but one (75 sheets, ~2 s). A roll whose
  entries on some probe differ from ``base`` restricted to the open boxes (a further
  Yam's: prime, joker) is *state-dependent*, and for it alone the engine is asked in
  every state of the other twelve boxes (4,096 sheets per Yam's value; ~5 s for the six
  Yam's of official Yahtzee).

Everything else assumes what the probes show: a roll's entries in a state are its ``base``
entries for the boxes still open, and written boxes other than the Yam's matter by being
written, not by their points. Rulebooks where that fails outright (``in_order``, where an
empty sheet does not offer every box) are refused. The single-box probes are not
decorative: a joker that needs the face's upper box written (Verhoeff's free-choice
joker) leaves the Yam's-only probe unchanged when the Yam's box holds 0.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from scoring.advisor.five_dice.widget import values_of, widget
from scoring.dice import Die
from scoring.entries import Entry
from scoring.rulebooks.base import Rulebook, Table
from scoring.rulebooks.five_dice import UPPER

YAMS = "yams"
CONTEXTS = (None, 50, 0)  # the Yam's box: open, holding 50 (slot 0), holding 0 (slot 1)


class UnsupportedRulebook(ValueError):
    """A rulebook or option set this solver cannot represent exactly."""


@dataclass(frozen=True)
class ScoreTables:
    """Points per roll and box, as the rulebook gives them.

    ``base_points``/``base_bonus``: (252, B) on an empty sheet.
    ``dep_rolls``: (D,) rolls whose entries depend on the sheet; ``dep_points``,
    ``dep_bonus``: (2, D, 2^B, B) for slot (Yam's box 50 / 0), roll, filled-box mask, box;
    ``dep_allowed`` says which boxes the engine offers there. For masks where the Yam's
    box is open only slot 0 is filled in (with the base entries of the open boxes).
    ``flag_matters``: whether 50 and 0 in the Yam's box lead to different entries.
    """

    box_ids: tuple[str, ...]
    upper: np.ndarray  # (B,) bool
    base_points: np.ndarray
    base_bonus: np.ndarray
    dep_rolls: np.ndarray
    dep_points: np.ndarray
    dep_bonus: np.ndarray
    dep_allowed: np.ndarray
    flag_matters: bool

    @property
    def yams_bit(self) -> int:
        return self.box_ids.index(YAMS)

    def arrays(self) -> dict[str, np.ndarray]:
        return {
            "base_points": self.base_points,
            "base_bonus": self.base_bonus,
            "dep_rolls": self.dep_rolls,
            "dep_points": self.dep_points,
            "dep_bonus": self.dep_bonus,
            "dep_allowed": self.dep_allowed,
            "flag_matters": np.array(self.flag_matters),
        }

    @classmethod
    def from_arrays(cls, rulebook: Rulebook, arrays: dict[str, np.ndarray]) -> ScoreTables:
        """Rebuild from ``arrays()`` (a cache file); ValueError if the shapes do not fit."""
        box_ids, upper = _layout(rulebook)
        nbox, nroll = len(box_ids), len(widget().rolls)
        t = cls(
            box_ids,
            upper,
            arrays["base_points"],
            arrays["base_bonus"],
            arrays["dep_rolls"],
            arrays["dep_points"],
            arrays["dep_bonus"],
            arrays["dep_allowed"],
            bool(arrays["flag_matters"]),
        )
        dep = (2, len(t.dep_rolls), 2**nbox, nbox)
        if (
            t.base_points.shape != (nroll, nbox)
            or t.base_bonus.shape != (nroll, nbox)
            or any(a.shape != dep for a in (t.dep_points, t.dep_bonus, t.dep_allowed))
            or not np.all((t.dep_rolls >= 0) & (t.dep_rolls < nroll))
        ):
            raise ValueError("score tables of unexpected shape")
        return t


def _layout(rulebook: Rulebook) -> tuple[tuple[str, ...], np.ndarray]:
    box_ids = tuple(b.id for b in rulebook.boxes)
    upper = np.array([b.section == UPPER for b in rulebook.boxes])
    return box_ids, upper


def check_supported(rulebook: Rulebook) -> None:
    if (rulebook.kind, rulebook.dice_count, rulebook.max_throws) != ("d6", 5, 3):
        raise UnsupportedRulebook(f"{rulebook.id}: the advisor solves five d6, three throws")
    if rulebook.announced_throw is not None:
        raise UnsupportedRulebook(f"{rulebook.id}: announced throws are not modelled")
    if YAMS not in {b.id for b in rulebook.boxes} or len(rulebook.boxes) > 13:
        raise UnsupportedRulebook(f"{rulebook.id}: expected the 13-box Yam's sheet")


def _entries(rulebook: Rulebook, table: Table, dice: tuple[Die, ...]) -> list[Entry]:
    return rulebook.choices(table, 0, dice, first=False, announced=None)


def build_tables(rulebook: Rulebook) -> ScoreTables:
    """Ask the engine what every roll scores; see the module docstring for the probes."""
    check_supported(rulebook)
    box_ids, upper = _layout(rulebook)
    nbox = len(box_ids)
    probe = _Probe(rulebook, box_ids)
    dependent = _dependent_rolls(probe)
    dep = np.flatnonzero(dependent.any(axis=0))
    dep_points, dep_bonus, dep_allowed = _dependent_tables(probe, dependent, dep)
    ybit = probe.col[YAMS]
    filled_masks = [m for m in range(2**nbox) if m >> ybit & 1]
    flag_matters = any(
        not np.array_equal(a[0][:, filled_masks], a[1][:, filled_masks])
        for a in (dep_points, dep_bonus, dep_allowed)
    )
    return ScoreTables(
        box_ids,
        upper,
        probe.base_points,
        probe.base_bonus,
        dep.astype(np.intp),
        dep_points,
        dep_bonus,
        dep_allowed,
        bool(flag_matters),
    )


class _Probe:
    """One sheet the engine is asked on, filled as each probe wants, and every roll's
    entries on an empty sheet (``base_points``, ``base_bonus``: roll × box)."""

    def __init__(self, rulebook: Rulebook, box_ids: tuple[str, ...]) -> None:
        self.rulebook = rulebook
        self.box_ids = box_ids
        self.col = {b: i for i, b in enumerate(box_ids)}
        self.rolls = [tuple(Die(v) for v in values_of(r)) for r in widget().rolls]
        self.table = Table([rulebook.new_sheet("advisor")])
        self.cells = self.table.sheets[0].cells
        self.base_points, self.base_bonus = self._base()

    def scored(self, dice: tuple[Die, ...], filled: tuple[str, ...], yams: int | None) -> dict:
        """The engine's (points, bonus) per open box, ``filled`` at 0 and the Yam's at ``yams``."""
        cells = self.cells
        cells.clear()
        cells.update(dict.fromkeys(filled, 0))
        if yams is not None:
            cells[YAMS] = yams
        got = {e.box: (e.points, e.bonus) for e in _entries(self.rulebook, self.table, dice)}
        cells.clear()
        return got

    def _base(self) -> tuple[np.ndarray, np.ndarray]:
        nbox = len(self.box_ids)
        base_points = np.zeros((len(self.rolls), nbox), dtype=np.int16)
        base_bonus = np.zeros((len(self.rolls), nbox), dtype=np.int16)
        for r, dice in enumerate(self.rolls):
            got = self.scored(dice, (), None)
            if set(got) != set(self.box_ids):
                raise UnsupportedRulebook(
                    f"{self.rulebook.id} {self.rulebook.options}: an empty sheet does not "
                    "offer every box"
                )
            for box, (points, bonus) in got.items():
                base_points[r, self.col[box]], base_bonus[r, self.col[box]] = points, bonus
        return base_points, base_bonus

    def base_open(self, r: int, filled: tuple[str, ...], yams: int | None) -> dict:
        """Roll ``r``'s base entries in the boxes still open."""
        shut = set(filled) | ({YAMS} if yams is not None else set())
        return {
            b: (int(self.base_points[r, i]), int(self.base_bonus[r, i]))
            for i, b in enumerate(self.box_ids)
            if b not in shut
        }


def _dependent_rolls(probe: _Probe) -> np.ndarray:
    """(context × roll) True where a probe scores the roll otherwise than its base: with
    nothing, one box, or all boxes but one filled, in each of the Yam's contexts."""
    others = tuple(b for b in probe.box_ids if b != YAMS)
    probe_sets = [
        (),
        *((b,) for b in others),
        *(tuple(o for o in others if o != b) for b in others),
    ]
    dependent = np.zeros((len(CONTEXTS), len(probe.rolls)), dtype=bool)
    for c, yams in enumerate(CONTEXTS):
        for filled in probe_sets:
            for r, dice in enumerate(probe.rolls):
                if dependent[c, r]:
                    continue
                if probe.scored(dice, filled, yams) != probe.base_open(r, filled, yams):
                    dependent[c, r] = True
    return dependent


def _dependent_tables(
    probe: _Probe, dependent: np.ndarray, dep: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The dependent rolls' entries on every sheet: (Yam's slot, roll, filled mask, box)."""
    box_ids, col = probe.box_ids, probe.col
    nbox = len(box_ids)
    others = tuple(b for b in box_ids if b != YAMS)
    shape = (2, len(dep), 2**nbox, nbox)
    dep_points = np.zeros(shape, dtype=np.int16)
    dep_bonus = np.zeros(shape, dtype=np.int16)
    dep_allowed = np.zeros(shape, dtype=bool)
    ybit = col[YAMS]
    for d, r in enumerate(dep.tolist()):
        for c, yams in enumerate(CONTEXTS):
            slot = 1 if yams == 0 else 0
            for rest in range(2 ** len(others)):
                filled = tuple(b for j, b in enumerate(others) if rest >> j & 1)
                mask = sum(1 << col[b] for b in filled) | (0 if yams is None else 1 << ybit)
                if mask == 2**nbox - 1:
                    continue
                if dependent[c, r]:
                    got = probe.scored(probe.rolls[r], filled, yams)
                else:
                    got = probe.base_open(r, filled, yams)
                for box, (points, bonus) in got.items():
                    i = col[box]
                    dep_points[slot, d, mask, i] = points
                    dep_bonus[slot, d, mask, i] = bonus
                    dep_allowed[slot, d, mask, i] = True
    return dep_points, dep_bonus, dep_allowed
