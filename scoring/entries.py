"""What a throw is worth in one box, and why: the unit every rulebook and screen shares."""

from __future__ import annotations

import math
from dataclasses import dataclass, field


class RulesError(ValueError):
    """A request the rules do not allow (wrong dice, a closed box, a throw too many)."""


@dataclass(frozen=True, slots=True)
class Box:
    """One box of a score sheet: its id (as in DESIGN.md), its section and its French label."""

    id: str
    section: str
    label: str


@dataclass(frozen=True, slots=True)
class Multiplier:
    x: int
    why: str

    def to_json(self) -> dict[str, object]:
        return {"x": self.x, "why": self.why}


@dataclass(frozen=True, slots=True)
class Entry:
    """The points a throw scores in one box, with the reason for every point.

    ``points`` is ``base`` times every multiplier, except for a failed announced throw,
    where it is minus the base. ``bonus`` holds points that go beside the box (the Yahtzee
    bonus), never inside it. ``rank`` orders suggestions: usually the points, but in a box
    where less is better (``moins``) it says how good the entry is.
    """

    box: str
    section: str
    points: int
    base: int
    multipliers: tuple[Multiplier, ...] = ()
    dice: tuple[int, ...] = ()
    why: str = ""
    bonus: int = 0
    rank: float = field(default=math.nan, compare=False)

    @property
    def sort_key(self) -> float:
        return self.points + self.bonus if math.isnan(self.rank) else self.rank

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {
            "box": self.box,
            "section": self.section,
            "points": self.points,
            "base": self.base,
            "multipliers": [m.to_json() for m in self.multipliers],
            "dice": list(self.dice),
            "why": self.why,
        }
        if self.bonus:
            out["bonus"] = self.bonus
        return out


def best_first(entries: list[Entry], order: dict[str, int]) -> list[Entry]:
    """Sort entries best first; ties keep the order of the paper sheet."""
    return sorted(entries, key=lambda e: (-e.sort_key, order[e.box]))
