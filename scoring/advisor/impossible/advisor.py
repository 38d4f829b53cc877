"""The strategy advisor for Yams impossible, and ``Difficile``, the computer player using it.

Three layers, each in its own module:

* ``impossible_values``: what each open box is worth for the rest of the game (calibrated
  by self-play), so that an entry is worth its points minus what the box would have made
  later, plus its effect on the chiffres bonus and on the différence;
* ``impossible_turn``: the turn solved exactly on the dice's values against those values
  (every keep's expected gain, the fifth throw's announced sixth included);
* here: the decisions on the real dice. Stopping and writing is priced with the entries
  the rulebook gives for the real dice (×3 on the first throw, harmonies), keeping with
  the turn's tables; among dice of one value the ones kept are those that make groups of
  one colour, then of one finish (the harmonies); the sixth throw is announced when its
  expected gain, P × gain(+legal) + (1 − P) × gain(−legal), beats writing now.

``advise(game)`` returns the ranked keeps, announces and entries of the current moment as
a dict; ``Difficile`` plays the best of each.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from scoring.advisor.impossible.tables import (
    ScoreTables,
    SixthTables,
    build_tables,
    multisets,
    one_throw_chances,
    sixth_tables,
)
from scoring.advisor.impossible.turn import LAST_THROW, TurnPlan, plan_turn, sixth_gain
from scoring.advisor.impossible.values import Outlook
from scoring.dice import Die
from scoring.entries import RulesError
from scoring.game import Game
from scoring.rulebooks.base import Rulebook

_TABLES: dict[tuple, tuple[ScoreTables, SixthTables]] = {}


def tables_for(rulebook: Rulebook) -> tuple[ScoreTables, SixthTables]:
    """The rulebook's per-roll tables, built once per process and option set (~1 s)."""
    if rulebook.id != "impossible":
        raise RulesError(f"the impossible advisor does not play {rulebook.id}")
    key = tuple(sorted(rulebook.options.to_dict().items()))
    if key not in _TABLES:
        tables = build_tables(rulebook)
        _TABLES[key] = (tables, sixth_tables(rulebook, tables))
    return _TABLES[key]


@dataclass(frozen=True)
class Option:
    """One choice and its value: the expected change of the sheet's expected final score."""

    kind: str  # "keep", "announce" or "write"
    value: float
    dice: tuple[int, ...] = ()  # positions kept (keep, announce) or used (write)
    box: str | None = None
    points: int | None = None
    chance: float | None = None  # announce: P(the box is filled by the sixth throw)

    def to_json(self, best: float) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "value": round(self.value, 2)}
        out["loss"] = round(best - self.value, 2)
        if self.kind in ("keep", "announce"):
            out["keep"] = list(self.dice)
        if self.box is not None:
            out["box"] = self.box
        if self.points is not None:
            out["points"] = self.points
        if self.chance is not None:
            out["chance"] = round(self.chance, 4)
        return out


def _pick(dice: Sequence[Die], counts: np.ndarray) -> tuple[int, ...]:
    """Positions that keep ``counts[f]`` dice of face f + 1, in harmonious groups.

    A group of one colour (then one finish) doubles most combinations, so of three 7s two of
    which are red, the two red ones are kept.
    """
    out: list[int] = []
    for f, k in enumerate(counts):
        if not k:
            continue
        same = [i for i, d in enumerate(dice) if d.value == f + 1]
        colour = {c: sum(dice[i].colour == c for i in same) for c in {dice[i].colour for i in same}}
        both = [(dice[i].colour, dice[i].finish) for i in same]

        def rank(i: int, same=same, colour=colour, both=both) -> tuple:
            d = dice[i]
            return (-colour[d.colour], -both.count((d.colour, d.finish)), str(d.colour), i)

        out += sorted(same, key=rank)[: int(k)]
    return tuple(sorted(out))


class Advisor:
    """Advice for one player's moment in a game; keeps the turn plan of the last sheet seen."""

    def __init__(
        self,
        values: Mapping[str, Sequence[float]] | None = None,
        spread: Mapping[str, Sequence[float]] | None = None,
    ) -> None:
        self.values = values
        self.spread = spread
        self._plan_key: tuple | None = None
        self._plan: TurnPlan | None = None

    def outlook(self, game: Game) -> Outlook:
        cells = game.table.sheets[game.current].cells
        return Outlook(cells, self.values, self.spread)

    def plan(self, game: Game) -> TurnPlan:
        tables, sixth = tables_for(game.rulebook)
        cells = game.table.sheets[game.current].cells
        key = (id(tables), tuple(sorted(cells.items())))
        if key != self._plan_key or self._plan is None:
            open_boxes = [
                b for b in tables.box_ids if game.rulebook.is_open(game.table, game.current, b)
            ]
            self._plan = plan_turn(tables, sixth, self.outlook(game), open_boxes)
            self._plan_key = key
        return self._plan

    # -- the options of a moment ---------------------------------------------------------
    def entries(self, game: Game) -> list[Option]:
        outlook = self.outlook(game)
        out = [
            Option("write", outlook.gain(e.box, e.points), e.dice, e.box, e.points)
            for e in game.choices()
        ]
        return sorted(out, key=lambda o: -o.value)

    def keeps(self, game: Game, limit: int = 10) -> list[Option]:
        """The ``limit`` best keeps inside the dice (re-rolling at least one die), best first."""
        assert game.dice is not None
        ms = multisets()
        counts = np.bincount([d.value - 1 for d in game.dice], minlength=10)
        subs = ms.subsets(counts)
        subs = subs[subs.sum(axis=1) < len(game.dice)]
        values = self.plan(game).keep_values[game.throw_no + 1][ms.index(subs)]
        order = np.argsort(-values, kind="stable")[:limit]
        return [Option("keep", float(values[i]), _pick(game.dice, subs[i])) for i in order]

    def announces(self, game: Game) -> list[Option]:
        """The sixth throw for each open box it may be announced for, with its best keep."""
        assert game.dice is not None
        tables, sixth = tables_for(game.rulebook)
        ms = multisets()
        outlook = self.outlook(game)
        counts = np.bincount([d.value - 1 for d in game.dice], minlength=10)
        subs = ms.subsets(counts)
        open_boxes = [
            (j, box)
            for j, box in enumerate(sixth.boxes)
            if game.rulebook.is_open(game.table, game.current, box)
        ]
        if not open_boxes:
            return []
        boxes = [box for _, box in open_boxes]
        chances_of = one_throw_chances(tables, boxes, ms.index(subs))
        out = []
        for k, (j, box) in enumerate(open_boxes):
            chances = chances_of[:, k]
            # the likeliest keep; among equals, the one re-rolling the most dice
            best = int(np.lexsort((subs.sum(axis=1), -chances))[0])
            chance = float(chances[best])
            value = float(sixth_gain(outlook, box, float(sixth.legal[j]), chance))
            out.append(Option("announce", value, _pick(game.dice, subs[best]), box, None, chance))
        return sorted(out, key=lambda o: -o.value)

    def options(self, game: Game) -> tuple[list[Option], list[Option]]:
        """(ways to go on: keeps or announces, ranked; entries now, ranked)."""
        if game.dice is None or (game.announced and game.throw_no <= LAST_THROW):
            return [], []  # before a throw, or between an announce and its throw
        entries = self.entries(game)
        if game.announced is not None:
            return [], entries
        if game.throw_no < LAST_THROW:
            return self.keeps(game), entries
        if game.throw_no == LAST_THROW and game.rulebook.announced_throw:
            return self.announces(game), entries
        return [], entries

    def best(self, game: Game) -> Option | None:
        """The move to make: the best of going on (keep, announce) and writing now."""
        return _best(*self.options(game))

    def advise(self, game: Game) -> dict[str, Any]:
        """The moment's options as plain data (see the module-level ``advise``)."""
        outlook = self.outlook(game)
        totals = {t.key: t.points for t in game.totals(game.current)}
        written = sum(totals[k] for k in ("chiffres", "total2", "total3", "total4"))
        out: dict[str, Any] = {
            "player": game.player,
            "throw": game.throw_no,
            "announced": game.announced,
            "expected_final": round(outlook.expected_final(written), 1),
            "bonus_chance": round(outlook.bonus_chance, 4),
            "keeps": [],
            "announces": [],
            "entries": [],
            "best": None,
        }
        go_on, entries = self.options(game)
        best = _best(go_on, entries)
        if best is None:
            return out
        key = "keeps" if game.throw_no < LAST_THROW else "announces"
        out[key] = [o.to_json(best.value) for o in go_on[:10]]
        out["entries"] = [o.to_json(best.value) for o in entries]
        out["stop"] = round(entries[0].value, 2)
        out["best"] = best.to_json(best.value)
        return out


def _best(go_on: list[Option], entries: list[Option]) -> Option | None:
    """Going on only when it is worth more than writing now (ties write)."""
    if not entries:
        return None
    if go_on and go_on[0].value > entries[0].value + 1e-6:
        return go_on[0]
    return entries[0]


class Difficile:
    """The computer player of the advisor: plays ``Advisor.best`` at every question."""

    def __init__(self, advisor: Advisor | None = None) -> None:
        self.advisor = advisor or Advisor()

    def keep(self, game: Game) -> list[int] | None:
        move = self.advisor.best(game)
        return list(move.dice) if move and move.kind == "keep" else None

    def announce(self, game: Game) -> tuple[str, list[int]] | None:
        move = self.advisor.best(game)
        if move is None or move.kind != "announce":
            return None
        assert move.box is not None
        return move.box, list(move.dice)

    def choose(self, game: Game) -> str | None:
        return self.advisor.entries(game)[0].box


_DEFAULT = Advisor()


def advise(game: Game) -> dict[str, Any]:
    """What to do now in an impossible game: keeps, announces and entries, ranked.

    Each option has ``value`` (the expected change of the player's expected final score,
    against the box values of ``impossible_values``) and ``loss`` (the best option's value
    minus its own); ``best`` is the one to play.
    """
    return _DEFAULT.advise(game)
