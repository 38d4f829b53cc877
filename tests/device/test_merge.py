"""Dice read on the tray go back to the places that were thrown, one physical die a place."""

from __future__ import annotations

import pytest

from device.merge import ThrowNotRead, place_reading
from scoring.dice import format_dice
from scoring.game import Game
from vision.reading import ReadDie


def die(
    value: int,
    colour: str = "white",
    finish: str = "frosted",
    *,
    kind: str = "d10",
    flags: tuple = (),
    colour_score: float = 0.99,
) -> ReadDie:
    return ReadDie(
        kind,
        value,
        colour,
        finish,
        0.99,
        (0, 0, 10, 10),
        flags,  # type: ignore[arg-type]
        {"colour": colour_score},
    )


def test_five_dice_first_throw_takes_the_reading_in_order() -> None:
    game = Game("yams", ["A"])
    placed = place_reading(game, [die(v, "other", kind="d6") for v in (3, 1, 6, 6, 2)])
    assert format_dice(placed.dice) == "3 1 6 6 2"
    assert placed.source == (0, 1, 2, 3, 4)
    assert placed.unsure == ()


def test_rethrown_dice_fill_the_places_not_kept() -> None:
    game = Game("yams", ["A"])
    game.throw("3 1 6 6 2")
    placed = place_reading(
        game, [die(6, kind="d6"), die(4, kind="d6", flags=("unsure",))], keep=[2, 3, 4]
    )
    assert format_dice(placed.dice) == "6 4 6 6 2"
    assert placed.source == (0, 1, None, None, None)
    assert placed.unsure == (1,)
    game.throw(placed.dice, keep=[2, 3, 4])  # the game accepts it as the throw


def test_wrong_count_names_what_was_expected() -> None:
    game = Game("yams", ["A"])
    game.throw("3 1 6 6 2")
    with pytest.raises(ThrowNotRead, match="3 dice read on the tray, 2 expected \\(3 set aside\\)"):
        place_reading(game, [die(1, kind="d6")] * 3, keep=[0, 1, 2])


def test_a_die_of_the_wrong_kind_is_refused_unless_flagged() -> None:
    game = Game("yams", ["A"])
    with pytest.raises(ThrowNotRead, match="a d10 is on the tray"):
        place_reading(game, [die(3, kind="d6")] * 4 + [die(3)])
    placed = place_reading(game, [die(3, kind="d6")] * 4 + [die(3, flags=("cocked",))])
    assert placed.unsure == (4,)


IMPOSSIBLE = [
    die(v, c, f)
    for v, c, f in (
        (1, "red", "frosted"),
        (2, "red", "frosted"),
        (3, "red", "transparent"),
        (4, "red", "frosted"),
        (5, "red", "transparent"),
        (6, "white", "frosted"),
        (7, "white", "transparent"),
        (8, "white", "frosted"),
        (9, "white", "transparent"),
        (10, "white", "transparent"),
    )
]


def test_impossible_first_throw_keeps_colours_and_finishes() -> None:
    game = Game("impossible", ["A"])
    placed = place_reading(game, IMPOSSIBLE)
    assert format_dice(placed.dice) == "1rf 2rf 3rt 4rf 5rt 6wf 7wt 8wf 9wt 10wt"
    assert placed.unsure == ()
    game.throw(placed.dice)


def test_impossible_unbalanced_colours_change_the_least_sure_die_and_mark_it() -> None:
    game = Game("impossible", ["A"])
    read = list(IMPOSSIBLE)
    read[6] = die(7, "red", "transparent", colour_score=0.55)  # a white die read red
    placed = place_reading(game, read)
    assert str(placed.dice[6]) == "7wt"
    assert placed.unsure == (6,)
    game.throw(placed.dice)


def test_impossible_rethrow_puts_each_die_in_a_place_of_its_colour_and_finish() -> None:
    game = Game("impossible", ["A"])
    game.throw("1rf 2rf 3rt 4rf 5rt 6wf 7wt 8wf 9wt 10wt")
    # places 1 (red frosted) and 6 (white transparent) and 9 (white transparent) thrown again,
    # the dice come back in another order on the tray
    read = [
        die(5, "white", "transparent"),
        die(8, "red", "frosted"),
        die(2, "white", "transparent"),
    ]
    placed = place_reading(game, read, keep=[0, 2, 3, 4, 5, 7, 8])
    assert format_dice(placed.dice) == "1rf 8rf 3rt 4rf 5rt 6wf 5wt 8wf 9wt 2wt"
    assert placed.source[1] == 1 and placed.source[6] == 0 and placed.source[9] == 2
    assert placed.unsure == ()


def test_impossible_rethrow_with_a_misread_finish_fills_the_place_left_and_marks_it() -> None:
    game = Game("impossible", ["A"])
    game.throw("1rf 2rf 3rt 4rf 5rt 6wf 7wt 8wf 9wt 10wt")
    read = [die(4, "red", "transparent"), die(9, "white", "transparent")]  # place 0 is frosted
    placed = place_reading(game, read, keep=[1, 2, 3, 4, 5, 7, 8, 9])
    assert format_dice(placed.dice) == "4rf 2rf 3rt 4rf 5rt 6wf 9wt 8wf 9wt 10wt"
    assert placed.unsure == (0,)
