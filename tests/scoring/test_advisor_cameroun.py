"""The Cameroun advisor: faithful to the engine, right on obvious moves, strong in play."""

from __future__ import annotations

import random

import numpy as np
import pytest

from scoring.advisor.cameroun import advisor as cam
from scoring.advisor.cameroun import model, tables
from scoring.advisor.cameroun.advisor import Difficile, advise, best_announce, best_box, best_keep
from scoring.advisor.cameroun.dice import dice, positions
from scoring.advisor.cameroun.odds import figure_odds
from scoring.computer import Facile
from scoring.dice import Die
from scoring.game import Game
from scoring.rulebooks import get_rulebook
from scoring.simulate import play_game

COLUMNS = ("1", "2", "3", "4", "5", "6", "P", "G", "F", "Q")


def turn(game: Game, text: str, box: str) -> None:
    """One scripted turn: a single throw written in ``box``."""
    game.throw(text)
    game.score(box)


def two_players(**options) -> Game:
    return Game("cameroun", ["A", "B"], options or None)


# ---------------------------------------------------------------------------------------
# Dice combinatorics
# ---------------------------------------------------------------------------------------


def test_rolls_and_keeps() -> None:
    d = dice()
    assert (len(d.rolls), len(d.keeps)) == (252, 462)
    assert np.allclose(d.transition.sum(axis=1), 1.0)
    assert d.transition[d.empty, d.roll_of([6, 6, 6, 6, 6])] == pytest.approx(6**-5)
    # the sparse product is the dense one
    values = np.random.default_rng(0).random((252, 3))
    assert np.allclose(d.expect(values), d.transition @ values)
    # every keep inside a roll is a sub-multiset of it
    for r, roll in enumerate(d.rolls):
        for k in set(d.inside[r].tolist()):
            rest = list(roll)
            for v in d.keeps[k]:
                rest.remove(v)


def test_positions_are_the_first_matching_dice() -> None:
    assert positions([6, 2, 6, 1, 6], [6, 6]) == [0, 2]
    assert positions([6, 2, 6, 1, 6], []) == []
    with pytest.raises(ValueError):
        positions([1, 2, 3, 4, 5], [6])


# ---------------------------------------------------------------------------------------
# Points come from the engine
# ---------------------------------------------------------------------------------------


def _tables_to_check() -> list[tuple[Game, int]]:
    fresh = two_players()
    capped = two_players()
    turn(capped, "6 6 6 6 6", "6")  # 30 of the 36: the 6s can take 6 more
    turn(capped, "5 5 5 5 1", "5")  # 20 of the 30
    turn(capped, "1 2 3 4 5", "P")  # P closed
    turn(capped, "4 4 4 4 4", "Q")
    return [(fresh, 0), (capped, 0), (capped, 1)]


@pytest.mark.parametrize("case", range(3))
def test_table_points_are_the_engines_choices_roll_by_roll(case: int) -> None:
    game, player = _tables_to_check()[case]
    rb = game.rulebook
    tp = tables.table_points(rb, game.table, player)
    for r, roll in enumerate(dice().rolls):
        ds = tuple(Die(v) for v in roll)
        offered = {
            e.box: e.points for e in rb.choices(game.table, player, ds, first=False, announced=None)
        }
        assert set(offered) == {b for b, o in zip(COLUMNS, tp.open, strict=True) if o}
        for c, box in enumerate(COLUMNS):
            if box not in offered:
                continue
            assert tp.plain[r, c] == offered[box]
            (ann,) = rb.choices(game.table, player, ds, first=False, announced=box)
            assert tp.announced[r, c] == ann.points
            assert tp.success[r, c] == (rb.announced(ds, box).points > 0)


def test_failed_announcement_crosses_only_the_figures() -> None:
    crosses = tables.raw(get_rulebook("cameroun")).crosses
    assert dict(zip(COLUMNS, crosses.tolist(), strict=True)) == {
        **dict.fromkeys("123456", False),
        **dict.fromkeys("PGFQ", True),
    }


def test_a_turn_chasing_the_quinte_gets_it_as_often_as_a_yahtzee_in_three_throws() -> None:
    rate, points = figure_odds(get_rulebook("cameroun"))["Q"]
    assert rate == pytest.approx(2783176 / 6**10, abs=1e-9)  # the published 4.6029 %
    assert points == pytest.approx(30)


# ---------------------------------------------------------------------------------------
# Obviously right moves
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [1, 2])
def test_a_small_sequence_thrown_is_written_in_p(players: int) -> None:
    game = Game("cameroun", ["A", "B"][:players])
    game.throw("3 1 5 2 4")
    assert best_keep(game) is None
    assert best_box(game) == "P"
    assert advise(game)["best"]["action"] == "write"
    assert advise(game)["best"]["box"] == "P"
    game.throw("3 1 5 2 4", keep=[0, 1, 2, 3, 4])  # the same dice after throw 2
    assert best_announce(game) is None
    assert best_box(game) == "P"


def test_sixes_are_kept_while_their_column_has_room() -> None:
    game = two_players()
    game.throw("6 2 6 1 6")
    keep = best_keep(game)
    assert keep is not None
    assert {0, 2, 4} <= set(keep) and 3 not in keep


def test_four_sixes_announce_the_sixes_column_keeping_them() -> None:
    """A number column's third throw cannot fail while a die of it is kept: it is free."""
    game = two_players()
    game.throw("6 6 2 6 6")
    game.throw("6 6 1 6 6", keep=[0, 1, 3, 4])
    assert best_announce(game) == ("6", [0, 1, 3, 4])
    advice = advise(game)
    assert advice["best"]["action"] == "announce"
    assert advice["best"]["success"] == pytest.approx(1.0)
    assert advice["best"]["points"] == pytest.approx(24 + 6 / 6)


def _sixes_full_and_quinte_closed() -> Game:
    game = two_players()
    turn(game, "6 6 6 6 6", "6")
    turn(game, "6 6 6 5 5", "6")  # 18, capped at the 6 left: the 6s are closed
    turn(game, "2 2 2 2 2", "Q")
    turn(game, "3 3 3 1 1", "F")
    assert {"6", "Q", "F"} <= set(game.table.closed)
    return game


def test_no_aim_at_a_closed_column() -> None:
    game = _sixes_full_and_quinte_closed()
    game.throw("6 6 6 5 1")
    keep = best_keep(game)
    assert keep is None or [game.dice[i].value for i in keep].count(6) <= 1
    advice = advise(game)
    assert not {"6", "Q", "F"} & {e["box"] for e in advice["entries"]}
    assert not {"6", "Q", "F"} & set(advice["fill"])
    for item in advice["keeps"]:
        assert not {"6", "Q", "F"} & set(item["fill"])
    game.throw(game.dice, keep=range(5))
    advice = advise(game)
    assert advice["announces"]
    assert not {"6", "Q", "F"} & {a["box"] for a in advice["announces"]}


def test_behind_on_the_last_turn_it_plays_to_win_not_for_points() -> None:
    """B trails 2 to 31 on the game's last turn: a full (27) would lose, only the quinte (30)
    wins, so the three 5s are kept for it instead of writing the full."""
    game = two_players(turns=2)
    turn(game, "6 6 6 6 6", "6")  # A: 30, the 6s can take 6 more
    turn(game, "1 1 2 3 4", "1")  # B: 2
    turn(game, "1 2 3 3 4", "1")  # A: 31
    game.throw("5 5 5 6 6")
    assert best_box(game) == "F"  # if it had to write now, the full is the most points
    keep = best_keep(game)
    assert keep is not None and sorted(game.dice[i].value for i in keep) == [5, 5, 5]
    # each of the two dice needs a 5 within the two throws left (the third announced)
    assert advise(game)["value"] == pytest.approx((11 / 36) ** 2, abs=2e-3)


def test_crossing_a_figure_helps_only_when_the_others_would_take_it() -> None:
    """Alone, a failed P loses my own chance at it; on my last turn with an opponent still to
    play, it takes the chance away from them."""
    solo = Game("cameroun", ["A"])
    solo.throw("1 1 2 2 6")
    p = cam.plan(solo)
    g = COLUMNS.index("G")
    assert p.fail[g] < p.util[0, 0]
    last = two_players(turns=1)
    last.throw("1 1 2 2 6")
    p = cam.plan(last)
    assert p.fail[g] > p.util[0, 0]


# ---------------------------------------------------------------------------------------
# The advice itself
# ---------------------------------------------------------------------------------------


def _check_advice(advice: dict, game: Game) -> None:
    assert advice["objective"] == ("win" if len(game.players) > 1 else "score")
    best = advice["value"]
    assert advice["best"]["loss"] == pytest.approx(0, abs=1e-12)
    for group in ("entries", "keeps", "announces"):
        values = [item["value"] for item in advice[group]]
        assert values == sorted(values, reverse=True)
        for item in advice[group]:
            assert item["loss"] == pytest.approx(best - item["value"])
            assert item["loss"] >= -1e-12
            assert all(-1e-9 <= p <= 1 + 1e-9 for p in item["fill"].values())
            assert sum(item["fill"].values()) <= 1 + 1e-9
    assert {e["box"] for e in advice["entries"]} == {e.box for e in game.choices()}
    if game.throw_no == 1:
        assert advice["keeps"] and not advice["announces"]
    elif game.throw_no == 2 and game.announced is None:
        assert advice["announces"] and not advice["keeps"]
    else:
        assert not advice["keeps"] and not advice["announces"]


def test_advice_through_a_whole_game_and_it_is_what_difficile_plays() -> None:
    rng = random.Random(4)
    game = Game("cameroun", ["A", "B", "C"], {"turns": 4})
    player = Difficile()
    from scoring.computer import roll

    assert advise(game)["best"]["action"] == "throw"
    while not game.finished:
        game.throw(roll(game, rng))
        while True:
            advice = advise(game)
            _check_advice(advice, game)
            best = advice["best"]
            if game.throw_no == 1:
                keep = player.keep(game)
                assert (best["action"] == "keep") == (keep is not None)
                if keep is None:
                    break
                assert keep == best["dice"]
                game.throw(roll(game, rng, keep), keep)
                continue
            if game.throw_no == 2 and game.announced is None:
                announced = player.announce(game)
                assert (best["action"] == "announce") == (announced is not None)
                if announced is not None:
                    assert announced == (best["box"], best["dice"])
                    game.announce(announced[0])
                    game.throw(roll(game, rng, announced[1]), announced[1])
                    continue
            break
        advice = advise(game)
        box = player.choose(game)
        assert advice["best"]["action"] == "write" and advice["best"]["box"] == box
        game.score(box)


def test_advice_is_deterministic() -> None:
    def fresh_advice() -> dict:
        game = two_players()
        turn(game, "6 6 6 2 2", "F")
        game.throw("5 5 3 2 1")
        return advise(game)

    first = fresh_advice()
    cam._PLANS.clear()
    tables._TABLES.clear()
    assert fresh_advice() == first


def test_refuses_other_rulebooks_and_finished_games() -> None:
    game = Game("yams", ["A"])
    game.throw("1 2 3 4 5")
    with pytest.raises(ValueError):
        advise(game)
    done = Game("cameroun", ["A"], {"turns": 1})
    turn(done, "1 2 3 4 5", "P")
    assert done.finished
    with pytest.raises(ValueError):
        advise(done)


def test_the_model_reads_turns_left_in_seat_order() -> None:
    game = Game("cameroun", ["A", "B", "C"], {"turns": 2})
    turn(game, "1 2 3 4 5", "P")
    pos = model.read_position(game.rulebook, game.table, game.current)  # B on move
    assert pos.left.tolist() == [1, 1, 2]
    assert pos.order == (2, 0, 1, 2)
    assert pos.room.tolist() == [6, 12, 18, 24, 30, 36, 0, 1, 1, 1]


# ---------------------------------------------------------------------------------------
# Whole games
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "options"),
    [(1, None), (2, None), (3, {"turns": 3}), (2, {"turns": 0}), (4, {"turns": 2})],
)
def test_whole_games_play_without_error(players: int, options: dict | None) -> None:
    rng = random.Random(players)
    seats = [Difficile() if i % 2 == 0 else Facile() for i in range(players)]
    game = play_game("cameroun", seats, rng, options=options)
    assert game.finished
    assert all(score >= 0 for score in game.scores().values())


def test_difficile_beats_facile_in_most_two_player_games() -> None:
    games, won = 25, 0.0
    for n in range(games):
        for seat in (0, 1):
            seats: list = [Facile(), Facile()]
            seats[seat] = Difficile()
            game = play_game("cameroun", seats, random.Random(1000 + n), ["p1", "p2"])
            winners = game.winners()
            if f"p{seat + 1}" in winners:
                won += 1 / len(winners)
    assert won / (2 * games) > 0.7
