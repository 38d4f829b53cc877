"""The strategy advisor: exact expected-score-optimal solitaire play for five-dice Yams.

``solve(rulebook, cache_dir)`` computes (or loads) the value of every turn-start state;
``advise(rulebook, sheet, dice, throws_left)`` turns it into the choices of one moment.
Scores always come from the rulebook itself (``tables``), never from a copy of the rules.
"""

from scoring.advisor.advice import Advice, BoxOption, KeepOption, advise
from scoring.advisor.strategy import Strategy, forget, solve
from scoring.advisor.tables import UnsupportedRulebook

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
