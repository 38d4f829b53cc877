"""Advice at one moment of a game, whatever the rulebook, in one shape.

Each rulebook has its own advisor (an exact solve for the five-dice games, a turn solver
against shared-column values for Cameroun, ...); the command line, the web page and the
coach read their answers alike, as a dict:

``objective``: "score" (values are expected final scores) or "win" (chances to win);
``value``: the value of the best option; ``best``: that option, with its ``action``
("write", "keep" or "announce"); ``entries``: each box the player may write now, with
``entry_points`` (what the box receives), ``value`` and ``loss`` (best value minus this
one); ``keeps``: each distinct set of dice to keep (``keep`` the faces, ``dice`` their
positions) with ``value``, ``loss`` and ``fill`` (chance each open box is written this
turn); ``announces``: announced throws (box and keep) where the rulebook has them.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

from scoring.advisor.five_dice.advice import Advice, advise
from scoring.advisor.five_dice.strategy import solve
from scoring.entries import RulesError
from scoring.game import Game
from scoring.rulebooks import Rulebook

FIVE_DICE = ("yams", "yahtzee")


def advise_game(game: Game, cache_dir: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """Advice for the current player of ``game``, with the dice it has on the table."""
    if game.finished:
        raise RulesError("the game is over: nothing to advise")
    if game.dice is None:
        raise RulesError(f"{game.player} has not thrown yet: nothing to advise")
    rb = game.rulebook
    if rb.id in FIVE_DICE:
        strategy = solve(rb, cache_dir)
        sheet = game.table.sheets[game.current]
        throws_left = rb.max_throws - game.throw_no
        return _five_dice(advise(rb, sheet, game.dice, throws_left, strategy=strategy))
    if rb.id == "cameroun":
        from scoring.advisor.cameroun import advisor as cameroun

        return cameroun.advise(game)
    from scoring.advisor.impossible import advisor as impossible

    return _impossible(game, impossible.advise(game))


def _impossible(game: Game, raw: dict[str, Any]) -> dict[str, Any]:
    """Yams impossible's options are valued as gains over the rest of the game: turned
    into expected final scores, the sheet's expectation before this turn plus the gain
    (why: the sheet's alone is the same for every throw of the turn, whatever the dice)."""
    assert game.dice is not None
    final = round(raw["expected_final"] + raw["best"]["value"], 1)
    why = {e.box: e.why for e in game.choices()}

    def faces(positions: list[int]) -> list[int]:
        return sorted(game.dice[i].value for i in positions)  # type: ignore[index]

    def convert(o: dict[str, Any]) -> dict[str, Any]:
        out = {"action": o["kind"], "value": final - o["loss"], "loss": o["loss"]}
        if o["kind"] == "write":
            out |= {"box": o["box"], "entry_points": o["points"], "why": why.get(o["box"], "")}
        else:
            out |= {"keep": faces(o["keep"]), "dice": o["keep"], "fill": {}}
        if o["kind"] == "announce":
            out |= {"box": o["box"], "success": o.get("chance")}
        return out

    return {
        "objective": "score",
        "value": final,
        "best": convert(raw["best"]),
        "entries": [convert(o) for o in raw["entries"]],
        "keeps": [convert(o) for o in raw["keeps"]],
        "announces": [convert(o) for o in raw["announces"]],
        "bonus_chance": raw["bonus_chance"],
    }


def _five_dice(advice: Advice) -> dict[str, Any]:
    entries = [
        {
            "box": b.box,
            "entry_points": b.points,
            "bonus": b.bonus,
            "why": b.why,
            "value": b.expected,
            "loss": b.loss,
        }
        for b in advice.boxes
    ]
    keeps = [
        {"keep": list(k.keep), "dice": list(k.dice), "value": k.expected, "loss": k.loss,
         "fill": k.fill}
        for k in advice.keeps
    ]  # fmt: skip
    best = advice.best
    if hasattr(best, "box"):
        chosen = {"action": "write", **next(e for e in entries if e["box"] == best.box)}
    else:
        chosen = {"action": "keep", **next(k for k in keeps if k["keep"] == list(best.keep))}
    return {
        "objective": "score",
        "value": advice.expected,
        "best": chosen,
        "entries": entries,
        "keeps": keeps,
        "announces": [],
        "fill": advice.fill,
    }


def expected_score(
    rulebook: Rulebook,
    cache_dir: str | os.PathLike[str] | None = None,
    *,
    games: int = 100,
    progress: Callable[[int], None] | None = None,
) -> tuple[float, str]:
    """The expected score of a new game under the advisor's play, and how it is known.

    The five-dice games are solved exactly; the others are too big, so their value is the
    mean of ``games`` simulated solo games of the advisor (seed 0), with its standard error.
    """
    if rulebook.id in FIVE_DICE:
        value = solve(rulebook, cache_dir).expected_score
        return value, "exact optimum of solitaire play"
    from scoring.simulate import simulate

    options = rulebook.options.to_dict()
    cache = None if cache_dir is None else str(cache_dir)
    row = simulate(rulebook.id, ["difficile"], games, 0, options, progress, cache).summary()[0]
    error = float(row["stdev"]) / games**0.5
    return float(row["mean"]), f"estimate: mean of {games} solo games of difficile ± {error:.1f}"


def keep_option(advice: dict[str, Any], values: Sequence[int]) -> dict[str, Any]:
    """The keep that sets aside these face values (the coach's question)."""
    wanted = sorted(values)
    for option in advice["keeps"]:
        if sorted(option["keep"]) == wanted:
            return option
    raise RulesError(f"keeping {' '.join(map(str, wanted)) or 'nothing'} is not possible now")
