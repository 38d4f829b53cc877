"""The game engine: whole games replayed from their event logs, turn flow, undo, bad input.

Expected totals are worked out by hand from the rule texts (../shared/seeds/) in comments
next to each game, never read back from the engine.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from typing import Any

import pytest

from scoring.entries import RulesError
from scoring.game import Game, Written

Throw = str | tuple[str, Sequence[int]]


# -- helpers ------------------------------------------------------------------------------
def throw_all(game: Game, throws: Sequence[Throw]) -> None:
    for t in throws:
        dice, keep = (t, ()) if isinstance(t, str) else t
        game.throw(dice, keep)


def play(
    game: Game,
    throws: Sequence[Throw],
    box: str | None,
    *,
    announce: str | None = None,
    extra: Throw | None = None,
) -> Written:
    """One turn: the throws, optionally an announced box and its extra throw, then the entry."""
    throw_all(game, throws)
    if announce is not None:
        game.announce(announce)
        assert extra is not None
        throw_all(game, [extra])
    return game.score(box)


def snapshot(game: Game) -> str:
    return json.dumps(game.to_json(), sort_keys=True)


def round_trip(game: Game) -> Game:
    """to_json → text → from_json, as a saved log would travel."""
    return Game.from_json(json.loads(json.dumps(game.to_json())))


def totals(game: Game, player: str) -> dict[str, int]:
    return {t.key: t.points for t in game.totals(player)}


def written(game: Game) -> list[tuple[str, str, int]]:
    return [(w.player, w.entry.box, w.entry.points) for w in game.written]


def assert_same_game(replayed: Game, game: Game) -> None:
    assert replayed.events == game.events
    assert replayed.players == game.players
    for p in game.players:
        assert totals(replayed, p) == totals(game, p)
    assert written(replayed) == written(game)
    assert [w.to_json() for w in replayed.written] == [w.to_json() for w in game.written]
    assert replayed.winners() == game.winners()
    assert replayed.finished == game.finished
    assert replayed.to_json() == game.to_json()


# -- classic Yam's: two players, thirteen turns each -------------------------------------
# (player, throws, box, points written)
YAMS_TURNS: list[tuple[str, list[Throw], str, int]] = [
    ("Alice", ["1 1 5 2 3", ("1 1 1 2 3", [0, 1, 3, 4])], "1", 3),
    ("Bob", ["1 2 3 4 6"], "yams", 0),  # crossed: no Yam's, written 0
    ("Alice", ["2 2 2 5 6"], "2", 6),
    ("Bob", ["6 6 1 2 3"], "6", 12),
    ("Alice", ["3 1 1 1 1", ("3 3 2 2 1", [0]), ("3 3 3 3 1", [0, 1, 4])], "3", 12),
    ("Bob", ["5 5 1 2 3"], "5", 10),
    ("Alice", ["4 4 4 1 2"], "4", 12),
    ("Bob", ["4 4 4 1 2"], "4", 12),
    ("Alice", ["5 5 5 5 2"], "5", 20),
    ("Bob", ["3 3 1 2 4"], "3", 6),
    ("Alice", ["6 6 6 1 1"], "6", 18),
    ("Bob", ["2 2 2 2 1"], "2", 8),
    ("Alice", ["6 6 6 5 2"], "brelan", 25),  # brelan = total of the five dice
    ("Bob", ["1 1 3 4 5"], "1", 2),
    ("Alice", ["4 4 4 4 6"], "carre", 22),  # carré = total of the five dice
    ("Bob", ["3 3 5 5 5"], "full", 25),
    ("Alice", ["2 2 3 3 3"], "full", 25),
    ("Bob", ["6 6 6 1 1"], "brelan", 20),
    ("Alice", ["1 2 3 4 6"], "petite_suite", 30),
    ("Bob", ["1 2 3 4 5"], "carre", 0),  # crossed
    ("Alice", ["2 3 4 5 6"], "grande_suite", 40),
    ("Bob", ["3 4 5 6 6"], "petite_suite", 30),
    ("Alice", ["5 5 1 5 5", ("5 5 5 5 5", [0, 1, 3, 4])], "yams", 50),
    ("Bob", ["1 2 3 4 5"], "grande_suite", 40),
    ("Alice", ["6 5 4 6 3"], "chance", 24),
    ("Bob", ["6 6 5 5 4"], "chance", 26),
]


def yams_game() -> Game:
    game = Game("yams", ["Alice", "Bob"])
    for player, throws, box, points in YAMS_TURNS:
        assert game.player == player
        w = play(game, throws, box)
        assert (w.player, w.entry.box, w.entry.points) == (player, box, points)
    return game


def test_yams_two_players_whole_game():
    game = yams_game()
    assert game.finished
    # Alice: haut 3 + 6 + 12 + 12 + 20 + 18 = 71 ≥ 63 → prime 35;
    #        bas 25 + 22 + 25 + 30 + 40 + 50 + 24 = 216; total 71 + 35 + 216 = 322
    assert totals(game, "Alice") == {"haut": 71, "prime": 35, "bas": 216, "total": 322}
    # Bob: haut 12 + 10 + 12 + 6 + 8 + 2 = 50 < 63 → no prime;
    #      bas 0 + 25 + 20 + 0 + 30 + 40 + 26 = 141; total 50 + 141 = 191
    assert totals(game, "Bob") == {"haut": 50, "prime": 0, "bas": 141, "total": 191}
    assert game.scores() == {"Alice": 322, "Bob": 191}
    assert game.winners() == ["Alice"]
    assert len(game.written) == 26
    # thirteen boxes each, every box once
    for p in ("Alice", "Bob"):
        boxes = [w.entry.box for w in game.written if w.player == p]
        assert sorted(boxes) == sorted(b.id for b in game.rulebook.boxes)

    replayed = round_trip(game)
    assert_same_game(replayed, game)
    assert replayed.scores() == {"Alice": 322, "Bob": 191}


# -- Yams impossible: one player, all 34 boxes -------------------------------------------
X = "1r 2r 3r 4r 5r 1w 2w 3w 4w 5w"  # five pairs, runs of five: crosses the big boxes

# (throws, box, points, announced box, extra throw)
IMPOSSIBLE_TURNS: list[tuple[list[Throw], str, int, str | None, Throw | None]] = [
    # chiffres: five red 10s are the box's maximum 10 × 10 = 100, and no ×3 on a first throw
    (["0r 0r 0r 0r 0r 1w 2w 3w 4w 5w"], "10", 100, None, None),
    (["9w 9w 9w 9w 9w 1r 2r 3r 4r 5r"], "9", 90, None, None),
    (
        ["8r 8r 1r 2r 3r 4w 5w 6w 7w 9w", ("8r 8r 8r 8r 8r 4w 5w 6w 7w 9w", [0, 1, 5, 6, 7, 8, 9])],
        "8",
        80,
        None,
        None,
    ),
    (["7r 7r 7r 7w 7w 7w 1r 2r 3w 4w"], "7", 42, None, None),  # 6 × 7, three of each colour
    (["6r 6r 6w 6w 1r 2r 3r 4w 5w 8w"], "6", 24, None, None),
    (["5r 5w 1r 2r 3r 4w 6w 7w 8w 9r"], "5", 10, None, None),
    (["4r 1r 2r 3r 5r 6w 7w 8w 9w 0w"], "4", 4, None, None),
    (["1r 2r 4r 5r 6r 7w 8w 9w 0w 1w"], "3", 0, None, None),  # crossed: no 3
    (["2r 2w 1r 3r 4r 5r 6w 7w 8w 9w"], "2", 4, None, None),
    (["1r 1r 1w 2r 3r 4r 5w 6w 7w 8w"], "1", 3, None, None),  # three 1s
    # yams: a brelan on the first throw is worth 5 × 3
    (["3r 3r 3w 1r 2r 4w 5w 6w 7r 8w"], "brelan", 15, None, None),
    # a carré of four red 9s on the second throw: harmony 10 × 2
    ([X, ("9r 9r 9r 9r 1r 2w 3w 4w 5w 6w", [])], "carre", 20, None, None),
    # four 2s after five throws, sixth throw announced for the Youpi Yams and missed: −25
    (
        [
            "2r 2r 2r 2r 1r 3w 4w 5w 6w 7w",
            ("2r 2r 2r 2r 3r 4w 5w 6w 7w 8w", [0, 1, 2, 3]),
            ("2r 2r 2r 2r 4r 5w 6w 7w 8w 9w", [0, 1, 2, 3]),
            ("2r 2r 2r 2r 5r 6w 7w 8w 9w 0w", [0, 1, 2, 3]),
            ("2r 2r 2r 2r 6r 7w 8w 9w 0w 1w", [0, 1, 2, 3]),
        ],
        "youpi_yams",
        -25,
        "youpi_yams",
        ("2r 2r 2r 2r 7r 8w 9w 0w 1w 3w", [0, 1, 2, 3]),
    ),
    ([X, ("8r 8r 8r 8w 8w 8w 1r 2r 3w 4w", [])], "yams_de_rene", 50, None, None),
    ([X], "yams_superieur", 0, None, None),
    ([X], "giga_yams", 0, None, None),
    ([X], "ultra_yams", 0, None, None),
    ([X], "yams_impossible", 0, None, None),
    # suites: sixth throw announced for the Suite Ridicule and made: the legal 10 points
    # (a red 2-6 run would be a harmony, but a sixth throw scores the plain points)
    (
        ["2r 3r 4r 5r 7r 7w 7w 8w 8w 9w"] + [("2r 3r 4r 5r 7r 7w 7w 8w 8w 9w", [0, 1, 2, 3])] * 4,
        "suite_ridicule",
        10,
        "suite_ridicule",
        ("2r 3r 4r 5r 6r 7w 7w 8w 8w 9w", [0, 1, 2, 3]),
    ),
    ([X, ("1r 2w 3r 4w 5r 6w 9r 9r 9w 9w", [])], "petite_suite", 25, None, None),
    ([X], "suite_de_marcel", 0, None, None),
    ([X], "suite_royale", 0, None, None),
    ([X], "suite_geante", 0, None, None),
    (
        [X, ("1r 2r 3r 4r 5r 6w 7w 8w 9w 0w", []), ("1r 2r 3r 4r 5r 6w 7w 8w 9w 0w", range(10))],
        "the_suite",
        400,
        None,
        None,
    ),
    # combinaisons: three red 2s and three white 5s, a harmonious double brelan 20 × 2
    ([X, ("2r 2r 2r 5w 5w 5w 1r 3r 4w 6w", [])], "double_brelan", 40, None, None),
    ([X], "triple_brelan", 0, None, None),
    ([X, ("4r 4r 4w 4w 6r 6r 6w 6w 1r 2w", [])], "double_carre", 100, None, None),
    ([X], "double_yams", 0, None, None),
    ([X], "full_tordu", 0, None, None),
    ([X], "grand_full", 0, None, None),
    ([X], "full_supreme", 0, None, None),
    (["1r 2r 3r 4r 5r 6w 7w 8w 9w 0w", (X, [])], "tout_en_paires", 250, None, None),
    # différence: plus 5 × 10 + 5 × 9 = 95, moins 4 + 2 + 4 + 2 = 12
    ([X, ("0r 0r 0r 0r 0r 9w 9w 9w 9w 9w", [])], "plus", 95, None, None),
    (["1r 1r 1r 1r 2r 1w 1w 1w 1w 2w"], "moins", 12, None, None),
]


def impossible_game() -> Game:
    game = Game("impossible", ["Zoé"])
    for throws, box, points, announce, extra in IMPOSSIBLE_TURNS:
        w = play(game, throws, None if announce else box, announce=announce, extra=extra)
        assert (w.entry.box, w.entry.points) == (box, points), w.entry.why
        assert w.announced == announce
    return game


def test_impossible_one_player_whole_game():
    game = impossible_game()
    assert len(game.written) == 34 == len(game.rulebook.boxes)
    assert game.finished
    # chiffres 100 + 90 + 80 + 42 + 24 + 10 + 4 + 0 + 4 + 3 = 357 ≥ 330 → bonus 500
    # total n°1 357 + 500 = 857
    # yams 15 + 20 − 25 + 50 + 0 + 0 + 0 + 0 = 60
    # suites 10 + 25 + 0 + 0 + 0 + 400 = 435
    # combinaisons 40 + 0 + 100 + 0 + 0 + 0 + 0 + 250 = 390
    # différence (95 − 12) × 3 (three 1s in the « 1 ») = 249
    # total 857 + 60 + 435 + 390 + 249 = 1991
    assert totals(game, "Zoé") == {
        "chiffres": 357,
        "bonus": 500,
        "total1": 857,
        "total2": 60,
        "total3": 435,
        "total4": 390,
        "total5": 249,
        "total": 1991,
    }
    assert game.winners() == ["Zoé"]

    by_box = {w.entry.box: w for w in game.written}
    # the first-throw ×3 on the brelan, the harmony on the carré and the double brelan
    assert [m.x for m in by_box["brelan"].entry.multipliers] == [3]
    assert by_box["brelan"].throw == 1
    assert [m.x for m in by_box["carre"].entry.multipliers] == [2]
    assert [m.x for m in by_box["double_brelan"].entry.multipliers] == [2]
    # no ×3 on the chiffres, even on a first throw
    assert by_box["10"].throw == 1
    assert all(m.x != 3 for m in by_box["10"].entry.multipliers)
    # the announced throws are the sixth
    assert by_box["youpi_yams"].throw == 6
    assert by_box["suite_ridicule"].throw == 6

    replayed = round_trip(game)
    assert_same_game(replayed, game)
    assert replayed.scores() == {"Zoé": 1991}


@pytest.mark.parametrize(
    ("ones", "chiffres", "bonus"),
    [
        # 100 + 90 + 80 + 42 + 6 + 5 + 4 + 0 + 0 + 3 = 330: « au moins 330 » → 500
        ("1r 1r 1w 2r 3r 4r 5w 6w 7w 8w", 330, 500),
        # the same with two 1s: 329, no bonus
        ("1r 1w 2r 3r 4r 5r 6w 7w 8w 9w", 329, 0),
    ],
)
def test_impossible_bonus_needs_330(ones, chiffres, bonus):
    game = Game("impossible", ["Zoé"])
    for throws, box, _, _, _ in IMPOSSIBLE_TURNS[:4]:  # the 10s, 9s, 8s and 7s: 312
        play(game, throws, box)
    assert totals(game, "Zoé")["bonus"] == 0
    play(game, ["6r 1r 2r 3r 4r 5w 7w 8w 9w 0w"], "6")
    play(game, ["5r 1r 2r 3r 4r 6w 7w 8w 9w 0w"], "5")
    play(game, ["4r 1r 2r 3r 5r 6w 7w 8w 9w 0w"], "4")
    play(game, ["1r 4r 5r 6r 7r 8w 9w 0w 1w 4w"], "3")
    play(game, ["1r 4r 5r 6r 7r 8w 9w 0w 1w 4w"], "2")
    play(game, [ones], "1")
    assert totals(game, "Zoé")["chiffres"] == chiffres
    assert totals(game, "Zoé")["bonus"] == bonus
    assert totals(game, "Zoé")["total1"] == chiffres + bonus


# -- Yahtzee style: further Yams, +100 and joker -----------------------------------------
YAHTZEE_TURNS: list[tuple[list[Throw], str, int, int]] = [
    # (throws, box, points, bonus)
    (["6 6 6 6 6"], "yams", 50, 0),
    (["3 3 1 3 3", ("3 3 3 3 3", [0, 1, 3, 4])], "full", 25, 100),  # second Yams: joker full
    (["4 4 4 4 4"], "petite_suite", 30, 100),  # third Yams: joker petite suite
    (["1 1 1 2 3"], "1", 3, 0),
    (["2 2 2 4 5"], "2", 6, 0),
    (["3 3 3 1 2"], "3", 9, 0),
    (["4 4 4 4 1"], "4", 16, 0),
    (["5 5 5 1 2"], "5", 15, 0),
    (["6 6 6 6 2"], "6", 24, 0),
    (["5 5 5 6 6"], "brelan", 27, 0),
    (["2 2 2 2 6"], "carre", 14, 0),
    (["1 2 3 4 5"], "grande_suite", 40, 0),
    (["1 1 2 2 3"], "chance", 9, 0),
]


def yahtzee_game() -> Game:
    game = Game("yahtzee", ["Léa"])
    for throws, box, points, bonus in YAHTZEE_TURNS:
        w = play(game, throws, box)
        assert (w.entry.box, w.entry.points, w.entry.bonus) == (box, points, bonus)
    return game


def test_yahtzee_second_yams_bonus_and_joker():
    game = yahtzee_game()
    assert game.finished
    # haut 3 + 6 + 9 + 16 + 15 + 24 = 73 ≥ 63 → prime 35
    # bas 50 + 25 + 30 + 27 + 14 + 40 + 9 = 195, primes Yam's 100 + 100 = 200 → 395
    # total 73 + 35 + 195 + 200 = 503
    assert totals(game, "Léa") == {
        "haut": 73,
        "prime": 35,
        "prime_yams": 200,
        "bas": 395,
        "total": 503,
    }
    assert game.winners() == ["Léa"]
    assert game.written[1].to_json()["bonus"] == 100
    assert "bonus" not in game.written[0].to_json()

    replayed = round_trip(game)
    assert_same_game(replayed, game)
    assert replayed.scores() == {"Léa": 503}


def test_yahtzee_joker_needs_fifty_in_yams():
    # a Yams crossed with 0 in the Yam's box gives neither joker nor bonus (seed 004)
    game = Game("yahtzee", ["Léa"])
    play(game, ["1 2 3 4 6"], "yams")
    game.throw("3 3 3 3 3")
    by_box = {e.box: e for e in game.choices()}
    assert by_box["full"].points == 0
    assert all(e.bonus == 0 for e in by_box.values())


def test_classic_yams_has_no_joker_nor_bonus():
    game = Game("yams", ["Léa"])
    play(game, ["6 6 6 6 6"], "yams")
    game.throw("3 3 3 3 3")
    by_box = {e.box: e for e in game.choices()}
    assert by_box["full"].points == 0  # « Un Yam's n'est pas un full »
    assert all(e.bonus == 0 for e in by_box.values())
    assert totals(game, "Léa")["total"] == 50


# -- Cameroun: shared columns, order drawn by the dice ------------------------------------
# (player, throws, box, points, announced box, third throw)
CAMEROUN_TURNS: list[tuple[str, list[Throw], str, int, str | None, Throw | None]] = [
    ("Ben", ["6 6 6 6 1"], "6", 24, None, None),
    # column 6 holds 6 × 6 = 36: Ana's four 6s (24) are capped to 36 − 24 = 12, and it closes
    ("Ana", ["6 6 6 1 2", ("6 6 6 6 3", [0, 1, 2])], "6", 12, None, None),
    # third throw announced for P and missed: P is crossed for everyone, nothing is written
    ("Ben", ["1 2 3 4 6", ("1 2 3 4 6", [0, 1, 2, 3])], "P", 0, "P", ("1 2 3 4 4", [0, 1, 2, 3])),
    ("Ana", ["2 3 4 5 6"], "G", 20, None, None),
    ("Ben", ["5 5 5 2 2"], "F", 19, None, None),  # full: total of the five dice
    ("Ana", ["4 4 4 4 4"], "Q", 30, None, None),
    ("Ben", ["5 5 5 5 5"], "5", 25, None, None),
    ("Ana", ["4 4 4 4 4"], "4", 20, None, None),
    # third throw announced for the 4s and missed: the last try does not count
    ("Ben", ["4 4 1 1 1", ("4 4 1 1 2", [0, 1])], "4", 0, "4", ("1 2 3 5 6", [])),
    ("Ana", ["5 5 5 2 3"], "5", 5, None, None),  # 15 capped to 30 − 25 = 5: 5s closed
    ("Ben", ["4 4 3 3 1"], "4", 4, None, None),  # 8 capped to 24 − 20 = 4: 4s closed
    ("Ana", ["3 3 3 3 3"], "3", 15, None, None),
    ("Ben", ["3 3 2 2 2"], "2", 6, None, None),
    ("Ana", ["2 2 2 3 3"], "2", 6, None, None),  # 2s: 6 + 6 = 12, closed
    ("Ben", ["3 1 2 4 6"], "3", 3, None, None),  # 3s: 15 + 3 = 18, closed
    ("Ana", ["1 1 1 1 1"], "1", 5, None, None),
    ("Ben", ["1 1 6 6 6"], "1", 1, None, None),  # 2 capped to 6 − 5 = 1: every column closed
]


def cameroun_game() -> Game:
    game = Game("cameroun", ["Ana", "Ben"])
    # « l'ordre des joueurs sera désigné par les dés »: Ben 30 > Ana 15, Ben starts
    assert game.draw_order({"Ana": "1 2 3 4 5", "Ben": "6 6 6 6 6"}) == ["Ben", "Ana"]
    for player, throws, box, points, announce, extra in CAMEROUN_TURNS:
        assert not game.finished
        assert game.player == player
        w = play(game, throws, None if announce else box, announce=announce, extra=extra)
        assert (w.player, w.entry.box, w.entry.points) == (player, box, points), w.entry.why
    return game


def test_cameroun_two_players_until_every_column_is_closed():
    game = cameroun_game()
    assert game.finished
    assert game.players == ["Ben", "Ana"]
    assert sorted(game.table.closed) == sorted(b.id for b in game.rulebook.boxes)
    assert "Ben" in game.table.closed["P"]
    # Ben: 6s 24, 5s 25, 4s 4, 2s 6, 3s 3, 1s 1 = 63; F 19; total 82
    assert totals(game, "Ben") == {"chiffres": 63, "figures": 19, "total": 82}
    # Ana: 6s 12, 4s 20, 5s 5, 3s 15, 2s 6, 1s 5 = 63; G 20 + Q 30 = 50; total 113
    assert totals(game, "Ana") == {"chiffres": 63, "figures": 50, "total": 113}
    assert game.winners() == ["Ana"]
    # the columns hold six times their number, across the table
    for v in range(1, 7):
        held = sum(s.cells.get(str(v), 0) for s in game.table.sheets)
        assert held == 6 * v
    assert "P" not in game.table.sheets[0].cells and "P" not in game.table.sheets[1].cells

    replayed = round_trip(game)
    assert_same_game(replayed, game)
    assert replayed.players == ["Ben", "Ana"]
    assert replayed.table.closed == game.table.closed


def test_cameroun_crossed_column_is_closed_for_the_other_player_too():
    game = Game("cameroun", ["Ana", "Ben"])
    play(game, ["1 2 3 4 6", "1 2 3 4 6"], None, announce="P", extra="1 2 3 4 4")
    assert "P" in game.table.closed
    game.throw("1 2 3 4 5")  # Ben throws the petite séquence: too late
    assert "P" not in {e.box for e in game.choices()}
    game.throw("1 1 1 1 1")
    with pytest.raises(RulesError):
        game.announce("P")


def test_draw_order_tie_and_missing_player_are_refused():
    game = Game("cameroun", ["Ana", "Ben", "Cyd"])
    before = snapshot(game)
    with pytest.raises(RulesError, match="tie"):
        game.draw_order({"Ana": "1 2 3 4 5", "Ben": "5 4 3 2 1", "Cyd": "6 6 6 6 6"})
    with pytest.raises(RulesError):
        game.draw_order({"Ana": "1 2 3 4 5", "Ben": "6 6 6 6 6"})
    assert snapshot(game) == before
    assert game.draw_order({"Ana": "1 1 1 1 1", "Ben": "2 2 2 2 2", "Cyd": "3 3 3 3 3"}) == [
        "Cyd",
        "Ben",
        "Ana",
    ]
    assert game.player == "Cyd"


# -- turn flow ----------------------------------------------------------------------------
def test_kept_dice_must_stay_unchanged():
    game = Game("yams", ["Alice"])
    game.throw("1 2 3 4 5")
    with pytest.raises(RulesError, match="die 1"):
        game.throw("1 6 6 6 6", keep=[0, 1])
    assert game.dice is not None and [d.value for d in game.dice] == [1, 2, 3, 4, 5]
    assert game.throw_no == 1
    assert [d.value for d in game.throw("1 2 6 6 6", keep=[0, 1])] == [1, 2, 6, 6, 6]
    assert game.throw_no == 2


@pytest.mark.parametrize(
    ("rules", "dice", "max_throws", "extra"),
    [
        ("yams", "1 2 3 4 6", 3, None),
        ("yahtzee", "1 2 3 4 6", 3, None),
        ("impossible", X, 5, "suite_ridicule"),
        ("cameroun", "1 2 3 4 6", 2, "P"),
    ],
)
def test_throw_limit_then_only_an_announced_throw(rules, dice, max_throws, extra):
    game = Game(rules, ["A", "B"])
    for n in range(1, max_throws + 1):
        if extra and n < max_throws:
            with pytest.raises(RulesError):
                game.announce(extra)  # announced only after the last ordinary throw
        game.throw(dice)
        assert game.throw_no == n
    with pytest.raises(RulesError, match="thrown"):
        game.throw(dice)
    if extra is None:
        with pytest.raises(RulesError):
            game.announce("yams")
        return
    game.announce(extra)
    with pytest.raises(RulesError):  # announced: throw before writing
        game.choices()
    with pytest.raises(RulesError):
        game.score(extra)
    game.throw(dice)
    assert game.throw_no == max_throws + 1
    with pytest.raises(RulesError):  # no throw after the announced one
        game.throw(dice)
    # after an announced throw only the announced box is offered
    assert [e.box for e in game.choices()] == [extra]
    other = next(b.id for b in game.rulebook.boxes if b.id != extra)
    with pytest.raises(RulesError):
        game.score(other)
    w = game.score()
    assert w.entry.box == extra and w.announced == extra
    assert game.player == "B" and game.throw_no == 0 and game.dice is None


def test_impossible_sixth_throw_refused_for_chiffres_and_difference():
    game = Game("impossible", ["Zoé"])
    throw_all(game, [X] * 5)
    for box in ("1", "10", "plus", "moins", "nope"):
        with pytest.raises(RulesError):
            game.announce(box)
    assert game.announced is None
    game.announce("carre")
    with pytest.raises(RulesError, match="already"):
        game.announce("brelan")


def test_announced_box_must_be_open():
    game = Game("impossible", ["Zoé"])
    play(game, [X], "brelan")
    throw_all(game, [X] * 5)
    with pytest.raises(RulesError, match="not open"):
        game.announce("brelan")


def test_first_throw_flag_only_on_throw_one():
    game = Game("impossible", ["Zoé"])
    game.throw("3r 3r 3w 1r 2r 4w 5w 6w 7r 8w")
    assert {e.box: e.points for e in game.choices()}["brelan"] == 15
    game.throw("3r 3r 3w 1r 2r 4w 5w 6w 7r 8w", keep=range(10))
    assert {e.box: e.points for e in game.choices()}["brelan"] == 5


def test_one_entry_per_turn_and_crossed_box():
    game = Game("yams", ["Alice", "Bob"])
    game.throw("1 2 3 4 6")
    w = game.score("yams")  # crossing a box: 0 is allowed
    assert (w.player, w.entry.box, w.entry.points, w.turn) == ("Alice", "yams", 0, 1)
    assert game.table.sheets[0].cells["yams"] == 0
    with pytest.raises(RulesError, match="not thrown"):
        game.score("chance")  # the turn is over; Bob has not thrown
    assert game.player == "Bob"
    game.throw("6 6 6 6 6")
    game.score("yams")
    assert game.player == "Alice"
    game.throw("6 6 6 6 6")
    assert "yams" not in {e.box for e in game.choices()}  # written once, even as 0
    with pytest.raises(RulesError, match="cannot be written"):
        game.score("yams")
    with pytest.raises(RulesError, match="choose a box"):
        game.score()
    assert len(game.written) == 2


def test_players_rotate_and_the_game_ends():
    game = Game("yams", ["A", "B", "C"])
    seen = []
    for _ in range(13 * 3):
        seen.append(game.player)
        game.throw("1 2 3 4 6")
        game.score(game.choices()[0].box)
    assert seen == ["A", "B", "C"] * 13
    assert game.finished
    with pytest.raises(RulesError, match="over"):
        game.throw("1 2 3 4 6")
    with pytest.raises(RulesError, match="over"):
        game.choices()
    assert game.to_json()["state"]["player"] is None
    assert game.to_json()["state"]["finished"] is True
    # everyone threw the same dice and wrote them the same way: a three-way tie
    assert len(set(game.scores().values())) == 1
    assert game.winners() == ["A", "B", "C"]


def test_tie_gives_several_winners_and_no_winner_before_the_end():
    game = Game("yams", ["Alice", "Bob"])
    for _, throws, box, _ in YAMS_TURNS[::2]:  # Alice's turns, played by both
        for _player in ("Alice", "Bob"):
            assert game.winners() == []
            play(game, throws, box)
    assert game.finished
    assert game.scores() == {"Alice": 322, "Bob": 322}
    assert game.winners() == ["Alice", "Bob"]
    assert round_trip(game).winners() == ["Alice", "Bob"]


# -- undo ---------------------------------------------------------------------------------
def test_undo_restores_the_turn_and_stays_in_the_log():
    game = Game("yams", ["Alice", "Bob"])
    game.throw("1 1 5 2 3")
    game.throw("1 1 1 2 3", keep=[0, 1, 3, 4])
    before = game.to_json()
    w = game.score("1")
    undone = game.undo()
    assert undone == w
    after = game.to_json()
    assert after["state"] == before["state"]
    assert game.player == "Alice" and game.throw_no == 2
    assert game.dice is not None and [d.value for d in game.dice] == [1, 1, 1, 2, 3]
    assert game.written == []
    assert after["events"] == [*before["events"], {"type": "score", "box": "1"}, {"type": "undo"}]
    # the turn goes on: the third throw is still allowed, and another box may be chosen
    game.throw("1 1 1 1 3", keep=[0, 1, 2])
    assert game.score("1").entry.points == 4
    assert_same_game(round_trip(game), game)
    # undo again: back to the third throw, the first undo is not replayed
    game.undo()
    assert game.player == "Alice" and game.throw_no == 3 and game.written == []
    assert game.dice is not None and [d.value for d in game.dice] == [1, 1, 1, 1, 3]
    assert [e["type"] for e in game.events].count("undo") == 2
    assert_same_game(round_trip(game), game)


def test_undo_takes_back_the_next_players_throws_too():
    game = Game("yams", ["Alice", "Bob"])
    game.throw("6 6 6 6 6")
    before = game.to_json()["state"]
    game.score("yams")
    game.throw("1 2 3 4 5")  # Bob's first throw
    game.undo()
    assert game.to_json()["state"] == before
    assert game.player == "Alice"


def test_undo_twice_and_nothing_to_undo():
    game = Game("yams", ["Alice", "Bob"])
    before = snapshot(game)
    with pytest.raises(RulesError, match="nothing to undo"):
        game.undo()
    assert snapshot(game) == before
    game.throw("6 6 6 6 6")
    with pytest.raises(RulesError, match="nothing to undo"):
        game.undo()  # a throw is not an entry
    play(game, [], "yams")
    play(game, ["1 2 3 4 5"], "grande_suite")
    game.undo()
    game.undo()
    assert game.written == [] and game.player == "Alice" and game.throw_no == 1
    with pytest.raises(RulesError, match="nothing to undo"):
        game.undo()
    assert [e["type"] for e in game.events].count("undo") == 2
    assert_same_game(round_trip(game), game)


def test_undo_reopens_cameroun_columns():
    game = cameroun_game()
    last = game.undo()  # Ben's 1 that closed the 1s and ended the game
    assert last.entry.box == "1"
    assert not game.finished and game.winners() == []
    assert "1" not in game.table.closed and game.player == "Ben"
    # back to Ben's third turn: undo back to the failed P, then P opens again
    while len(game.written) > 3:
        game.undo()
    assert "P" in game.table.closed
    game.undo()
    assert "P" not in game.table.closed
    assert game.player == "Ben" and game.announced == "P" and game.throw_no == 3
    assert game.dice is not None and [d.value for d in game.dice] == [1, 2, 3, 4, 4]
    assert game.players == ["Ben", "Ana"]  # the drawn order is no entry: it stays
    replayed = round_trip(game)
    assert_same_game(replayed, game)
    assert replayed.announced == "P"


def test_undo_takes_back_a_yahtzee_bonus():
    game = yahtzee_game()
    while len(game.written) > 2:
        game.undo()
    assert totals(game, "Léa")["prime_yams"] == 100
    game.undo()
    assert totals(game, "Léa")["prime_yams"] == 0
    assert game.choices()[0].bonus == 100  # the Yams is still on the table
    assert_same_game(round_trip(game), game)


def test_undo_of_a_finished_game_then_replay():
    game = impossible_game()
    game.undo()  # the moins
    assert not game.finished
    assert totals(game, "Zoé")["total5"] == 0
    play(game, [], "moins")
    assert game.finished
    assert totals(game, "Zoé")["total"] == 1991
    replayed = round_trip(game)
    assert_same_game(replayed, game)
    assert [e["type"] for e in replayed.events].count("undo") == 1


# -- refused actions change nothing --------------------------------------------------------
def fresh_yams() -> Game:
    return Game("yams", ["Alice", "Bob"])


def thrown_yams() -> Game:
    game = fresh_yams()
    game.throw("1 2 3 4 5")
    return game


def thrice_yams() -> Game:
    game = thrown_yams()
    play(game, [], "grande_suite")  # Alice
    play(game, ["6 6 1 2 3"], "chance")  # Bob
    throw_all(game, ["6 6 1 2 3"] * 3)  # Alice again
    return game


def five_impossible() -> Game:
    game = Game("impossible", ["Zoé"])
    throw_all(game, [X] * 5)
    return game


def announced_impossible() -> Game:
    game = five_impossible()
    game.announce("youpi_yams")
    return game


def sixth_impossible() -> Game:
    game = announced_impossible()
    game.throw(X)
    return game


def twice_cameroun() -> Game:
    game = Game("cameroun", ["Ana", "Ben"])
    throw_all(game, ["1 2 3 4 6"] * 2)
    return game


REFUSED: list[tuple[str, Any, Any]] = [
    ("score before throwing", fresh_yams, lambda g: g.score("1")),
    ("choices before throwing", fresh_yams, lambda g: g.choices()),
    ("announce in classic yams", thrice_yams, lambda g: g.announce("yams")),
    ("six dice", fresh_yams, lambda g: g.throw("1 2 3 4 5 6")),
    ("four dice", fresh_yams, lambda g: g.throw("1 2 3 4")),
    ("a 7 on a d6", fresh_yams, lambda g: g.throw("7 1 1 1 1")),
    ("colours in classic yams", fresh_yams, lambda g: g.throw("1r 2 3 4 5")),
    ("bad notation", fresh_yams, lambda g: g.throw("1 2 x 4 5")),
    ("11 is no die", fresh_yams, lambda g: g.throw("11 1 1 1 1")),
    ("numbers are no dice", fresh_yams, lambda g: g.throw([1, 2, 3, 4, 5])),
    ("keep before first throw", fresh_yams, lambda g: g.throw("1 2 3 4 5", keep=[0])),
    ("keep a die that does not exist", thrown_yams, lambda g: g.throw("1 2 3 4 5", keep=[5])),
    ("keep a negative position", thrown_yams, lambda g: g.throw("1 2 3 4 5", keep=[-1])),
    ("keep what is no position", thrown_yams, lambda g: g.throw("1 2 3 4 5", keep=["a"])),
    ("kept die changed", thrown_yams, lambda g: g.throw("6 2 3 4 5", keep=[0])),
    ("a fourth throw", thrice_yams, lambda g: g.throw("1 1 1 1 1")),
    ("unknown box", thrown_yams, lambda g: g.score("nope")),
    ("box written already", thrice_yams, lambda g: g.score("grande_suite")),
    ("no box given", thrown_yams, lambda g: g.score()),
    ("nothing to undo", thrown_yams, lambda g: g.undo()),
    ("order after a throw", thrown_yams, lambda g: g.draw_order({"Alice": "1 1 1 1 1"})),
    ("order with a bad throw", fresh_yams, lambda g: g.draw_order({"Alice": "x", "Bob": "1"})),
    ("no such player", fresh_yams, lambda g: g.totals("Carl")),
    ("no player number 2", fresh_yams, lambda g: g.totals(2)),
    ("sixth without announcing", five_impossible, lambda g: g.throw(X)),
    ("sixth for a chiffre", five_impossible, lambda g: g.announce("7")),
    ("sixth for plus", five_impossible, lambda g: g.announce("plus")),
    ("sixth for no box", five_impossible, lambda g: g.announce("nope")),
    ("announce too early", thrown_yams, lambda g: g.announce("yams")),
    ("announce twice", announced_impossible, lambda g: g.announce("carre")),
    ("write before the sixth", announced_impossible, lambda g: g.score("youpi_yams")),
    ("choices before the sixth", announced_impossible, lambda g: g.choices()),
    ("a seventh throw", sixth_impossible, lambda g: g.throw(X)),
    ("another box after the sixth", sixth_impossible, lambda g: g.score("brelan")),
    ("nine dice", five_impossible, lambda g: g.throw("1r 2r 3r 4r 5r 1w 2w 3w 4w")),
    (
        "six red impossible",
        lambda: Game("impossible", ["Zoé"]),
        lambda g: g.throw("1r 2r 3r 4r 5r 6r 1w 2w 3w 4w"),
    ),
    (
        "finish on some dice only",
        lambda: Game("impossible", ["Zoé"]),
        lambda g: g.throw("1rf 2r 3r 4r 5r 6w 1w 2w 3w 4w"),
    ),
    ("third throw unannounced", twice_cameroun, lambda g: g.throw("1 2 3 4 5")),
    ("colours in cameroun", twice_cameroun, lambda g: g.throw("1r 2 3 4 5")),
    ("announce no column", twice_cameroun, lambda g: g.announce("X")),
    ("throw after the end", yams_game, lambda g: g.throw("1 2 3 4 5")),
    ("write after the end", yams_game, lambda g: g.score("chance")),
    ("choices after the end", yams_game, lambda g: g.choices()),
]


@pytest.mark.parametrize(("setup", "action"), [r[1:] for r in REFUSED], ids=[r[0] for r in REFUSED])
def test_refused_action_changes_nothing(setup, action):
    game = setup()
    before = snapshot(game)
    events = copy.deepcopy(game.events)
    with pytest.raises(RulesError):
        action(game)
    assert snapshot(game) == before
    assert game.events == events
    # and the game goes on: the same replay gives the same game
    assert snapshot(round_trip(game)) == before


@pytest.mark.parametrize(
    ("rules", "players", "options"),
    [
        ("nope", ["A"], None),
        ("yams", [], None),
        ("yams", ["A", "A"], None),
        ("yams", ["A", " "], None),
        ("yams", [f"P{i}" for i in range(13)], None),
        ("yams", ["A"], {"nope": 1}),
        ("yams", ["A"], {"brelan": "median"}),
        ("yahtzee", ["A"], {"in_order": "yes"}),
    ],
)
def test_new_game_refused(rules, players, options):
    with pytest.raises(RulesError):
        Game(rules, players, options)


def test_options_travel_in_the_log():
    game = Game("yams", ["A"], {"brelan": "matching", "yams_bonus": 100})
    play(game, ["5 5 5 6 6"], "brelan")
    assert game.written[0].entry.points == 15  # three 5s only
    replayed = round_trip(game)
    assert replayed.rulebook.options == game.rulebook.options
    assert replayed.written[0].entry.points == 15


# -- corrupt logs -------------------------------------------------------------------------
def saved_yams() -> dict[str, Any]:
    game = Game("yams", ["Alice", "Bob"])
    game.throw("1 2 3 4 5")
    game.throw("1 2 3 4 6", keep=[0, 1, 2, 3])
    game.score("petite_suite")
    game.throw("6 6 6 6 6")
    return json.loads(json.dumps(game.to_json()))


def test_saved_log_replays():
    data = saved_yams()
    game = Game.from_json(data)
    assert game.player == "Bob" and game.throw_no == 1
    assert game.to_json() == data


def corrupt(change) -> dict[str, Any]:
    data = saved_yams()
    change(data)
    return data


CORRUPT: list[tuple[str, Any, str]] = [
    ("wrong format tag", lambda d: d.update(format="yamscope-sheet"), "not a yamscope game"),
    ("no format tag", lambda d: d.pop("format"), "not a yamscope game"),
    ("wrong version", lambda d: d.update(version=99), "version"),
    ("no events", lambda d: d.update(events=[]), "new_game"),
    ("events not a list", lambda d: d.update(events="throw"), "list of events"),
    ("first event not new_game", lambda d: d["events"].pop(0), "new_game"),
    ("new_game without rules", lambda d: d["events"][0].pop("rules"), r"^event 0 "),
    ("new_game unknown rules", lambda d: d["events"][0].update(rules="poker"), r"^event 0 "),
    ("new_game bad option", lambda d: d["events"][0].update(options={"x": 1}), r"^event 0 "),
    ("new_game no players", lambda d: d["events"][0].update(players=[]), r"^event 0 "),
    ("unknown event type", lambda d: d["events"][2].update(type="reroll"), r"^event 2 .*reroll"),
    ("event without type", lambda d: d["events"][3].pop("type"), r"^event 3 "),
    ("event not an object", lambda d: d["events"].insert(1, "throw"), r"^event 1\b"),
    ("event a number", lambda d: d["events"].insert(2, 7), r"^event 2\b"),
    ("malformed dice", lambda d: d["events"][1].update(dice="1 2 x 4 5"), r"^event 1 "),
    ("dice not text", lambda d: d["events"][1].update(dice=12345), r"^event 1 "),
    ("too many dice", lambda d: d["events"][1].update(dice="1 2 3 4 5 6"), r"^event 1 "),
    ("dice missing", lambda d: d["events"][1].pop("dice"), r"^event 1 "),
    ("keep not positions", lambda d: d["events"][2].update(keep=["a"]), r"^event 2 "),
    ("keep not a list", lambda d: d["events"][2].update(keep=3), r"^event 2 "),
    ("kept die changed", lambda d: d["events"][2].update(dice="6 2 3 4 6"), r"^event 2 "),
    (
        "score before throw",
        lambda d: d["events"].insert(1, {"type": "score", "box": "1"}),
        "^event 1 ",
    ),
    ("score unknown box", lambda d: d["events"][3].update(box="poker"), r"^event 3 "),
    ("score box missing", lambda d: d["events"][3].pop("box"), r"^event 3 "),
    (
        "a fourth throw",
        lambda d: d["events"].__setitem__(slice(3, 3), [d["events"][1]] * 2),
        r"^event 4 ",
    ),
    (
        "announce in yams",
        lambda d: d["events"].insert(3, {"type": "announce", "box": "yams"}),
        r"^event 3 ",
    ),
    ("undo at the start", lambda d: d["events"].insert(1, {"type": "undo"}), r"^event 1 "),
    (
        "order after a throw",
        lambda d: d["events"].append({"type": "order", "throws": {}}),
        r"^event 5 ",
    ),
    (
        "order throws not a map",
        lambda d: d["events"].insert(1, {"type": "order", "throws": [1]}),
        r"^event 1 ",
    ),
]


@pytest.mark.parametrize(
    ("change", "message"), [c[1:] for c in CORRUPT], ids=[c[0] for c in CORRUPT]
)
def test_corrupt_log_is_refused(change, message):
    with pytest.raises(RulesError, match=message):
        Game.from_json(corrupt(change))


def test_not_a_mapping_is_refused():
    for data in (None, [], "yamscope-game", 3):
        with pytest.raises(RulesError, match="not a yamscope game"):
            Game.from_json(data)  # type: ignore[arg-type]


def test_replay_ignores_the_saved_state():
    data = saved_yams()
    data["state"]["totals"]["Alice"]["total"] = 10_000
    data["state"]["winners"] = ["Bob"]
    game = Game.from_json(data)
    assert totals(game, "Alice")["total"] == 30
    assert game.winners() == []


def test_turn_start_takes_back_the_current_turns_throws_only() -> None:
    game = Game("yams", ["a", "b"])
    game.throw("1 1 1 2 3")
    game.score("1")
    game.throw("6 6 6 2 3")
    game.throw("6 6 6 6 3", keep=[0, 1, 2])
    start = game.turn_start()
    assert (start.player, start.throw_no, start.dice) == ("b", 0, None)
    assert start.table.sheets[0].cells == {"1": 3}
    assert game.throw_no == 2 and len(game.events) == 5  # the game itself is unchanged
    fresh = Game("yams", ["a"])
    assert fresh.turn_start().to_json()["state"] == fresh.to_json()["state"]


def test_correct_replaces_the_dice_of_the_current_throw() -> None:
    game = Game("impossible", ["a"])
    game.throw("1r 2r 3r 4r 5r 6w 7w 8w 9w 10w")
    game.correct("1r 1r 3r 4r 5r 6w 7w 8w 9w 10w")  # the second die was misread
    assert game.throw_no == 1
    assert str(game.dice[1]) == "1r"
    ones = next(e for e in game.choices() if e.box == "1")
    assert ones.points == 2
    replayed = Game.from_json(json.loads(json.dumps(game.to_json())))
    assert replayed.dice == game.dice
    assert [e["type"] for e in game.events] == ["new_game", "throw", "correct"]


def test_bad_corrections_change_nothing() -> None:
    game = Game("impossible", ["a"])
    with pytest.raises(RulesError):
        game.correct("1r 2r 3r 4r 5r 6w 7w 8w 9w 10w")  # nothing thrown yet
    game.throw("1r 2r 3r 4r 5r 6w 7w 8w 9w 10w")
    before = game.to_json()
    for bad in ("1r 2r 3r 4r 5r 6r 7w 8w 9w 10w", "1r 2r", "11r 2r 3r 4r 5r 6w 7w 8w 9w 10w"):
        with pytest.raises(RulesError):
            game.correct(bad)
    assert game.to_json() == before
