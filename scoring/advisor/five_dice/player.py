"""« Difficile » at the five-dice games: the exact optimal strategy as a computer player."""

from __future__ import annotations

import os

from scoring.advisor.five_dice.advice import Advice, BoxOption, advise
from scoring.advisor.five_dice.strategy import solve
from scoring.game import Game


class FiveDiceDifficile:
    """Keeps and writes what maximises the expected final score (solitaire optimum).

    The strategy is solved once per rulebook and options (about 10-20 s) and then read
    from ``cache_dir`` when one is given.
    """

    def __init__(self, cache_dir: str | os.PathLike[str] | None = None) -> None:
        self.cache_dir = cache_dir

    def advice(self, game: Game) -> Advice:
        assert game.dice is not None
        rb = game.rulebook
        strategy = solve(rb, self.cache_dir)
        sheet = game.table.sheets[game.current]
        return advise(rb, sheet, game.dice, rb.max_throws - game.throw_no, strategy=strategy)

    def keep(self, game: Game) -> list[int] | None:
        best = self.advice(game).best
        if isinstance(best, BoxOption) or len(best.dice) == len(game.dice or ()):
            return None
        return list(best.dice)

    def announce(self, game: Game) -> tuple[str, list[int]] | None:
        return None  # the five-dice games have no announced throw

    def choose(self, game: Game) -> str | None:
        advice = self.advice(game)
        return advice.boxes[0].box
