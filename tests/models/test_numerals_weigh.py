"""models/numerals/weigh.py: the offline scoring of how the numerals are weighed."""

from __future__ import annotations

import numpy as np

from models.common.datasets import TrueDie
from models.numerals.weigh import Doubtful, score, under, weighed


def die(
    truth: int, model_best: int, numerals_best: int, model_p: float = 0.5, runner_up: int = 0
) -> Doubtful:
    """A doubtful d10: the model gives ``model_p`` to its best and 0.45 to ``runner_up``."""
    model = np.full(10, 0.005)
    model[model_best - 1] = model_p
    if runner_up:
        model[runner_up - 1] = 0.45
    model /= model.sum()
    numerals = np.full(10, 0.01)
    numerals[numerals_best - 1] = 0.91
    return Doubtful(truth, model, numerals)


def test_the_numerals_turn_a_torn_reading_and_readers_at_odds_are_flagged() -> None:
    torn = die(truth=4, model_best=6, numerals_best=4, runner_up=4)
    value, flagged = weighed(0.5, flag_odds=False)(torn)
    assert value == 4 and not flagged
    assert weighed(0.5, flag_odds=True)(torn) == (4, True)
    agreeing = die(truth=9, model_best=9, numerals_best=6, model_p=0.85)  # a 6 and a 9 agree
    assert weighed(1.0, flag_odds=True)(agreeing) == (9, False)


def test_the_score_counts_right_silent_and_flagged() -> None:
    found = [die(4, 6, 4, runner_up=4), die(3, 3, 3, 0.9), die(2, 7, 7, 0.9)]
    assert score(found, weighed(0.5, flag_odds=True)) == "2 / 1 / 1"


def test_a_read_box_is_the_labelled_die_nearest_its_centre() -> None:
    near = TrueDie((10, 10, 50, 50), 3, "d10")
    wide = TrueDie((0, 0, 100, 100), 7, "d10")
    assert under((20, 20, 40, 40), [wide, near]) is near
    assert under((200, 200, 220, 220), [wide, near]) is None
