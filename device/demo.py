"""A table without a camera: random throws through the real engine, printed turn by turn.

Until the web page exists this is what ``make run`` shows a newcomer: the engine's ranked
entries with their reasons for each throw of a simple computer player, and the totals.
"""

from __future__ import annotations

import random

from scoring.computer import Facile, roll
from scoring.dice import format_dice
from scoring.game import Game


def play_demo(rules: str = "impossible", seed: int | None = None, turns: int = 4) -> Game:
    rng = random.Random(seed)
    game = Game(rules, ["Vous"])
    player = Facile()
    print(f"{game.rulebook.name} — {turns} tours simulés (graine {seed})\n")
    for _ in range(turns):
        if game.finished:
            break
        keep: list[int] | None = None
        while keep is not None or game.dice is None:
            game.throw(roll(game, rng, keep), keep or ())
            assert game.dice is not None
            best = "  |  ".join(f"{e.box} {e.points}" for e in game.choices()[:3])
            print(f"tour {game.turn}, jet {game.throw_no} : {format_dice(game.dice)}   → {best}")
            keep = player.keep(game) if game.throw_no < game.rulebook.max_throws else None
        written = game.score(player.choose(game))
        print(f"  inscrit : {written.entry.why}\n")
    for total in game.totals(0):
        print(f"{total.label:<28} {total.points:>6}")
    return game
