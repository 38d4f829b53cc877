"""The strategy advisor, one package per rulebook family (``five_dice``, ``impossible``,
``cameroun``) and ``moment``, which asks the right one in one shape. This package exports
the five-dice advisor: exact expected-score-optimal solitaire play.

``solve(rulebook, cache_dir)`` computes (or loads) the value of every turn-start state;
``advise(rulebook, sheet, dice, throws_left)`` turns it into the choices of one moment.
Scores always come from the rulebook itself (``tables``), never from a copy of the rules.
"""

from scoring.advisor.five_dice.advice import Advice, BoxOption, KeepOption, advise
from scoring.advisor.five_dice.strategy import Strategy, forget, solve
from scoring.advisor.five_dice.tables import UnsupportedRulebook

__all__ = [
    "Advice",
    "BoxOption",
    "KeepOption",
    "Strategy",
    "UnsupportedRulebook",
    "advise",
    "forget",
    "solve",
]
