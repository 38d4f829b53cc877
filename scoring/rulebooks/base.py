"""What every rulebook provides, and the sheet state the rules read.

A rulebook is data (its boxes, limits and options) plus small functions: what a throw
scores in each box, which entries a player may choose at a moment of the game, what
writing one does to the sheets, and the totals. The game (turns, throws, undo) lives in
``scoring.game`` and knows no rule of its own.
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Self

from scoring.dice import Die
from scoring.entries import Box, Entry, RulesError, best_first


@dataclass(frozen=True)
class Options:
    """Pre-game choices. Subclasses declare fields with ``option`` (default, help, legal values)."""

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> Self:
        data = dict(data or {})
        known = {f.name: f for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - set(known))
        if unknown:
            raise RulesError(
                f"unknown option {', '.join(unknown)} (known: {', '.join(known) or 'none'})"
            )
        for name, value in data.items():
            f = known[name]
            allowed = f.metadata.get("choices")
            # same type as a listed choice: False == 0 and 100.0 == 100, but neither is one
            if allowed is not None and not any(
                type(value) is type(a) and value == a for a in allowed
            ):
                listed = ", ".join(repr(a) for a in allowed)
                raise RulesError(f"option {name} must be one of {listed}, not {value!r}")
            if allowed is None and type(value) is not type(f.default):
                raise RulesError(f"option {name} must be {type(f.default).__name__}, not {value!r}")
            bounds = f.metadata.get("bounds")
            if bounds is not None and not bounds[0] <= value <= bounds[1]:
                raise RulesError(f"option {name} must be {bounds[0]} to {bounds[1]}, not {value}")
        return cls(**data)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def describe(cls) -> list[tuple[str, Any, str]]:
        """(name, default, help) for each option, for docs and ``--help``."""
        return [(f.name, f.default, f.metadata.get("help", "")) for f in dataclasses.fields(cls)]


def face_counts(values: Sequence[int], section: str, name: Callable[[int], str]) -> list[Entry]:
    """Box v holds the dice showing v, times v, for v = 1-6 (the five-dice upper section,
    Cameroun's number columns); ``name(v)`` is the box's French name."""
    out = []
    for v in range(1, 7):
        idx = tuple(i for i, x in enumerate(values) if x == v)
        pts = len(idx) * v
        why = f"{name(v)} : {len(idx)} × {v} = {pts}" if idx else f"{name(v)} : aucun {v}"
        out.append(Entry(str(v), section, pts, pts, (), idx, why))
    return out


def option(
    default: Any,
    help: str,
    choices: Sequence[Any] | None = None,
    bounds: tuple[int, int] | None = None,
) -> Any:
    """A pre-game option: its default, what it means, and its legal values or range."""
    return field(default=default, metadata={"help": help, "choices": choices, "bounds": bounds})


@dataclass
class Sheet:
    """One player's column: the boxes written so far and the points beside them."""

    player: str
    cells: dict[str, int] = field(default_factory=dict)
    extras: dict[str, int] = field(default_factory=dict)
    turns: int = 0  # turns played: Cameroun ends after a number of them

    def to_json(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "cells": dict(self.cells),
            "extras": dict(self.extras),
            "turns": self.turns,
        }


@dataclass
class Table:
    """All sheets of a game, and the boxes closed for everyone (Cameroun)."""

    sheets: list[Sheet]
    closed: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Total:
    key: str
    label: str
    points: int


class Rulebook(ABC):
    """One game's rules. Subclasses set the class attributes and implement the scoring."""

    id: ClassVar[str]
    name: ClassVar[str]
    kind: ClassVar[str]  # "d6" or "d10"
    dice_count: ClassVar[int]
    max_throws: ClassVar[int]
    announced_throw: ClassVar[str | None]  # French name of the extra announced throw, if any
    boxes: ClassVar[tuple[Box, ...]]
    options_type: ClassVar[type[Options]]

    def __init__(self, options: dict[str, Any] | Options | None = None) -> None:
        if isinstance(options, Options):
            if not isinstance(options, self.options_type):
                raise RulesError(f"options for {self.id} must be {self.options_type.__name__}")
            self.options = options
        else:
            self.options = self.options_type.from_dict(options)
        self.order = {b.id: i for i, b in enumerate(self.boxes)}
        self.box_by_id = {b.id: b for b in self.boxes}

    # -- dice -------------------------------------------------------------------------
    def validate(self, dice: Sequence[Die]) -> None:
        """Raise RulesError unless these dice are a legal throw for this rulebook."""
        if len(dice) != self.dice_count:
            raise RulesError(f"{self.id} is played with {self.dice_count} dice, not {len(dice)}")
        top = 6 if self.kind == "d6" else 10
        for d in dice:
            if d.value > top:
                raise RulesError(f"{d} is not a face of a {self.kind}")
        if self.kind == "d6" and any(d.colour or d.finish for d in dice):
            raise RulesError(f"{self.id} dice have no colour or finish: give plain values 1-6")

    def box(self, box_id: str) -> Box:
        try:
            return self.box_by_id[box_id]
        except KeyError:
            known = ", ".join(b.id for b in self.boxes)
            raise RulesError(f"{self.id} has no box {box_id!r} (boxes: {known})") from None

    # -- what a throw is worth --------------------------------------------------------
    @abstractmethod
    def entries(self, dice: Sequence[Die], *, first: bool = False) -> list[Entry]:
        """What the dice score in every box, in sheet order, ignoring the sheet's state."""

    @abstractmethod
    def announced(self, dice: Sequence[Die], box: str) -> Entry:
        """The entry after a throw announced for ``box`` (success or failure)."""

    def check_announce(self, box: str) -> None:
        """Raise RulesError unless an announced throw may be made for this box."""
        if self.announced_throw is None:
            raise RulesError(f"{self.id} has no announced extra throw")
        self.box(box)

    def score(
        self, dice: Sequence[Die], *, first: bool = False, sixth: str | None = None
    ) -> list[Entry]:
        """Every box with the points these dice would score there, best first."""
        self.validate(dice)
        if sixth is None:
            return best_first(self.entries(dice, first=first), self.order)
        self.check_announce(sixth)
        if first:
            raise RulesError(f"the {self.announced_throw} is never the turn's first throw")
        chosen = self.announced(dice, sixth)
        name = self.box(sixth).label
        others = [
            Entry(
                b.id, b.section, 0, 0, why=f"{b.label} : {self.announced_throw} annoncé pour {name}"
            )
            for b in self.boxes
            if b.id != sixth
        ]
        return [chosen, *others]

    # -- what a game allows -----------------------------------------------------------
    def new_sheet(self, player: str) -> Sheet:
        return Sheet(player)

    def is_open(self, table: Table, player: int, box: str) -> bool:
        return box not in table.sheets[player].cells and box not in table.closed

    def choices(
        self,
        table: Table,
        player: int,
        dice: Sequence[Die],
        *,
        first: bool,
        announced: str | None,
    ) -> list[Entry]:
        """The entries this player may write now, best first."""
        if announced is not None:
            return [self.announced(dice, announced)]
        entries = [e for e in self.entries(dice, first=first) if self.is_open(table, player, e.box)]
        return best_first(entries, self.order)

    def record(self, table: Table, player: int, entry: Entry, announced: str | None = None) -> None:
        """Write a chosen entry on the sheets (``announced``: the box of an announced throw)."""
        sheet = table.sheets[player]
        sheet.cells[entry.box] = entry.points
        if entry.bonus:
            sheet.extras["bonus"] = sheet.extras.get("bonus", 0) + entry.bonus

    def finished(self, table: Table) -> bool:
        return all(
            all(b.id in s.cells or b.id in table.closed for b in self.boxes) for s in table.sheets
        )

    @abstractmethod
    def totals(self, table: Table, player: int) -> list[Total]:
        """The totals the paper sheet shows for this player, the grand total last."""

    def grand_total(self, table: Table, player: int) -> int:
        return self.totals(table, player)[-1].points
