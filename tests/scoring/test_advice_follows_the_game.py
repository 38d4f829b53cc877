"""Yams impossible's advice values the moment: the expectation follows the dice and the
sheet, not the sheet's value at the start of the turn (issue 24: 2623.9 on every throw)."""

from __future__ import annotations

from scoring.advisor.moment import advise_game
from scoring.game import Game

LUCKY = "7r 7r 7r 7r 7r 7w 7w 7w 7w 7w"  # ten 7s, five of a colour each: a giant first throw
PLAIN = "1r 3r 5r 8r 10r 2w 4w 6w 9w 9w"


def moment(dice: str, throws: int = 1) -> Game:
    game = Game("impossible", ["Alice"])
    for _ in range(throws):
        game.throw(dice)
    return game


def test_the_expectation_follows_the_dice() -> None:
    lucky, plain = advise_game(moment(LUCKY)), advise_game(moment(PLAIN))
    assert lucky["value"] > plain["value"] + 100
    assert lucky["value"] == lucky["best"]["value"]
    for advice in (lucky, plain):
        for option in advice["entries"] + advice["keeps"]:
            assert option["value"] == advice["value"] - option["loss"]


def test_the_expectation_follows_the_sheet() -> None:
    game = moment(LUCKY)
    before = advise_game(game)
    game.score(before["best"]["box"] if before["best"]["action"] == "write" else "giga_yams")
    game.throw(PLAIN)
    after = advise_game(game)
    assert after["value"] != before["value"]
    assert after["value"] > advise_game(moment(PLAIN))["value"]  # the points written count
