"""Strategy advice and a strong computer player for Cameroun (« Le Yams », seed 002).

``advise(game)`` says, for the player on move, what each possible action is worth:
which dice to keep (or whether to stop), whether and for which column to announce the
third throw and with which dice, and where to write. ``Difficile`` plays the best of
them through the ``ComputerPlayer`` protocol.

How (each step in its own module):

* ``cameroun_tables``: every roll's points in every column on this table, read from the
  rulebook (``entries``, ``announced``, and ``choices`` for the cap of the shared
  columns); nothing is scored here.
* ``cameroun_model``: the utility of each outcome of the turn (x points in column c, a
  figure crossed, a pass) given the room left in every column, the turns left to every
  player, the risk that the others take a column first, and the scores: the chance to win
  in a game with opponents, the expected final score alone.
* ``cameroun_turn``: the exact expectimax of the turn over the 252 rolls and 462 keeps,
  including every (column, keep) announcement of the third throw.

Everything is deterministic: the same game gives the same advice.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import numpy as np

from scoring.advisor.cameroun.dice import dice, positions
from scoring.advisor.cameroun.model import ColumnModel, Params
from scoring.advisor.cameroun.tables import TablePoints, raw, table_key, table_points
from scoring.advisor.cameroun.turn import Outcome, TurnSolution, solve_turn
from scoring.entries import RulesError
from scoring.game import Game

CACHE_SIZE = 16


@dataclass(frozen=True)
class Plan:
    """A solved turn for one table state: the utilities and the best play from any roll."""

    boxes: tuple[str, ...]
    points: TablePoints
    util: np.ndarray  # (B, max points + 1) utility of writing x points in column c
    fail: np.ndarray  # (B,) utility of a failed announcement for column c
    turn: TurnSolution
    multiplayer: bool

    def write_value(self, box: str, points: int) -> float:
        return float(self.util[self.boxes.index(box), points])


_PLANS: OrderedDict[tuple, Plan] = OrderedDict()


def plan(game: Game, params: Params | None = None) -> Plan:
    """The solved turn of the player on move (cached per table state and parameters)."""
    if game.rules != "cameroun":
        raise RulesError(f"the Cameroun advisor does not play {game.rules}")
    if game.finished:
        raise RulesError("the game is over")
    params = params or Params()
    rb, table, player = game.rulebook, game.table, game.current
    key = (table_key(rb, table, player), params)
    found = _PLANS.get(key)
    if found is not None:
        _PLANS.move_to_end(key)
        return found
    base = raw(rb)
    tp = table_points(rb, table, player)
    model = ColumnModel(rb, table, player, params)
    util, fail = _outcome_utilities(model, tp, base.crosses, int(base.announced.max()))
    cols = np.arange(len(base.boxes))
    write_util = np.where(tp.open, util[cols, tp.plain], -np.inf)
    ann_util = np.where(tp.success, util[cols, tp.announced], fail[None, :])
    ann_util = np.where(tp.open, ann_util, -np.inf)
    turn = solve_turn(
        write_util, tp.plain, ann_util, tp.announced, tp.success, tp.open, base.crosses
    )
    out = Plan(base.boxes, tp, util, fail, turn, len(table.sheets) > 1)
    _PLANS[key] = out
    if len(_PLANS) > CACHE_SIZE:
        _PLANS.popitem(last=False)
    return out


def _outcome_utilities(
    model: ColumnModel, tp: TablePoints, crosses: np.ndarray, top: int
) -> tuple[np.ndarray, np.ndarray]:
    """(B, top + 1) utility of writing x points in column c, and (B,) of a failed
    announcement for c, for every outcome this table allows: one model call for all.

    A written figure and a crossed one both close the column; a number column loses the
    points from its room. Writing 0 is a pass, whatever the column.
    """
    outcomes: list[tuple[int, int, bool]] = [(0, 0, False)]  # index 0: a pass
    where: dict[tuple[int, int], int] = {}
    for c in np.flatnonzero(tp.open):
        seen = set(np.unique(tp.plain[:, c]).tolist()) | set(np.unique(tp.announced[:, c]).tolist())
        for x in sorted(seen - {0}):
            where[c, x] = len(outcomes)
            outcomes.append((int(c), int(x), bool(crosses[c])))
        if crosses[c]:
            where[c, -1] = len(outcomes)  # crossed by a failed announcement
            outcomes.append((int(c), 0, True))
    values = model.utilities(outcomes)
    util = np.full((len(tp.open), top + 1), np.nan)
    util[tp.open, 0] = values[0]
    fail = np.full(len(tp.open), values[0])  # a failed number column: nothing happens
    for (c, x), i in where.items():
        if x < 0:
            fail[c] = values[i]
        else:
            util[c, x] = values[i]
    return util, fail


# -- the decisions of a turn ---------------------------------------------------------------
def _values(game: Game) -> list[int]:
    if game.dice is None:
        raise RulesError(f"{game.player} has not thrown yet")
    return [d.value for d in game.dice]


def best_keep(game: Game, params: Params | None = None) -> list[int] | None:
    """After throw 1: the positions to keep for throw 2, or None to stop and write."""
    p, values = plan(game, params), _values(game)
    r = dice().roll_of(values)
    if p.turn.stops[r]:
        return None
    return positions(values, dice().keeps[p.turn.keep1_choice[r]])


def best_announce(game: Game, params: Params | None = None) -> tuple[str, list[int]] | None:
    """After throw 2: (column, positions to keep) of the third throw, or None to write."""
    p, values = plan(game, params), _values(game)
    r = dice().roll_of(values)
    if not p.turn.announces[r]:
        return None
    keep, box = p.turn.ann_choice[r]
    return p.boxes[box], positions(values, dice().keeps[keep])


def best_box(game: Game, params: Params | None = None) -> str:
    """The column to write the dice in: the engine's choice with the highest utility."""
    if game.announced is not None:
        return game.announced
    p = plan(game, params)
    entries = game.choices()
    return max(entries, key=lambda e: (p.write_value(e.box, e.points), -p.boxes.index(e.box))).box


class Difficile:
    """The advisor's best play, through the ``ComputerPlayer`` protocol.

    Register it with ``PLAYERS["difficile"] = lambda rules: Difficile()``.
    """

    def __init__(self, params: Params | None = None) -> None:
        self.params = params

    def keep(self, game: Game) -> list[int] | None:
        return best_keep(game, self.params)

    def announce(self, game: Game) -> tuple[str, list[int]] | None:
        return best_announce(game, self.params)

    def choose(self, game: Game) -> str | None:
        return best_box(game, self.params)


# -- advice for a screen ---------------------------------------------------------------------
def _outcome_json(o: Outcome, boxes: tuple[str, ...], is_open: np.ndarray) -> dict[str, Any]:
    return {
        "value": o.value,
        "points": o.points,
        "fill": {b: float(o.fill[c]) for c, b in enumerate(boxes) if is_open[c]},
        "crossed": {b: float(o.crossed[c]) for c, b in enumerate(boxes) if o.crossed[c] > 0},
    }


def advise(game: Game, params: Params | None = None) -> dict[str, Any]:
    """Every option of the player on move, best first, with its value and loss.

    ``objective``: "win" (values are the chance to win, plus a 1e-4 share of the expected
    score) with opponents, "score" (values are expected final points) alone. ``entries``:
    the engine's choices, each with its value and loss against the best option;
    ``keeps`` (after throw 1) and ``announces`` (after throw 2): each distinct keep with
    its value, loss, expected points this turn and ``fill``, the chance that each open
    column receives points by the end of the turn (``crossed``: that it is crossed by a
    failed announcement). ``best``: the option to play; on a tie, writing wins.
    """
    p = plan(game, params)
    t, d = p.turn, dice()
    out: dict[str, Any] = {
        "player": game.player,
        "throw": game.throw_no,
        "announced": game.announced,
        "objective": "win" if p.multiplayer else "score",
        "entries": [],
        "keeps": [],
        "announces": [],
    }
    if game.dice is None:
        before = t.before_throw()
        out["best"] = {"action": "throw", **_outcome_json(before, p.boxes, p.points.open)}
        out["value"] = before.value
        out["fill"] = out["best"]["fill"]
        return out
    values = _values(game)
    r = d.roll_of(values)
    options: list[tuple[float, int, dict[str, Any]]] = []  # (value, preference, option)
    for e in game.choices():
        c = p.boxes.index(e.box)
        failed = game.announced is not None and not e.points
        value = float(p.fail[c]) if failed else p.write_value(e.box, e.points)
        o = t.write_outcome(c, value, e.points, crossed=failed and bool(t.figures[c]))
        item = {"box": e.box, "entry_points": e.points, "why": e.why}
        item |= _outcome_json(o, p.boxes, p.points.open)
        out["entries"].append(item)
        options.append((value, 0, {"action": "write", **item}))
    if game.announced is None and game.throw_no == 1:
        for k in sorted(set(d.inside[r].tolist())):
            o = t.keep_outcome(k)
            keep = d.keeps[k]
            item = {"keep": list(keep), "dice": positions(values, keep)}
            item |= _outcome_json(o, p.boxes, p.points.open)
            out["keeps"].append(item)
            options.append((o.value, 1, {"action": "keep", **item}))
    if game.announced is None and game.throw_no == game.rulebook.max_throws:
        for k in sorted(set(d.inside[r].tolist())):
            for c in np.flatnonzero(p.points.open):
                o = t.announce_outcome(k, c)
                keep = d.keeps[k]
                item = {"box": p.boxes[c], "keep": list(keep), "dice": positions(values, keep)}
                item |= _outcome_json(o, p.boxes, p.points.open)
                item["success"] = float(t.success[k, c])
                out["announces"].append(item)
                options.append((o.value, 2, {"action": "announce", **item}))
    best = max(v for v, _, _ in options)
    for group in ("entries", "keeps", "announces"):
        out[group].sort(key=lambda i: -i["value"])
        for item in out[group]:
            item["loss"] = best - item["value"]
    chosen = min(options, key=lambda o: (best - o[0] > 1e-12, o[1], -o[0]))[2]
    chosen["loss"] = best - chosen["value"]
    out["best"] = chosen
    out["value"] = best
    out["fill"] = chosen["fill"]
    return out
