"""Advice at one moment of a game, whatever the rulebook: the keeps and the entries, ranked.

Each rulebook has its own advisor; this module picks it and gives the answers one shape
(``Advice``), so the command line, the web page and the coach read them all alike.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from scoring.advisor.advice import Advice, KeepOption, advise
from scoring.advisor.strategy import solve
from scoring.entries import RulesError
from scoring.game import Game
from scoring.rulebooks import Rulebook

FIVE_DICE = ("yams", "yahtzee")


def advise_game(game: Game, cache_dir: str | os.PathLike[str] | None = None) -> Advice:
    """Advice for the current player of ``game``, with the dice it has on the table."""
    if game.dice is None:
        raise RulesError(f"{game.player} has not thrown yet: nothing to advise")
    rb = game.rulebook
    if rb.id in FIVE_DICE:
        strategy = solve(rb, cache_dir)
        sheet = game.table.sheets[game.current]
        return advise(rb, sheet, game.dice, rb.max_throws - game.throw_no, strategy=strategy)
    raise RulesError(f"no advisor for {rb.id} yet")


def expected_score(
    rulebook: Rulebook, cache_dir: str | os.PathLike[str] | None = None
) -> tuple[float, str]:
    """The expected score of a new game under the advisor's play, and how it is known."""
    if rulebook.id in FIVE_DICE:
        value = solve(rulebook, cache_dir).expected_score
        return value, "exact optimum of solitaire play"
    raise RulesError(f"no advisor for {rulebook.id} yet")


def keep_cost(advice: Advice, values: Sequence[int]) -> KeepOption:
    """The keep option that sets aside these face values (the coach's question)."""
    wanted = tuple(sorted(values))
    for option in advice.keeps:
        if option.keep == wanted:
            return option
    raise RulesError(f"keeping {' '.join(map(str, wanted)) or 'nothing'} is not possible now")
