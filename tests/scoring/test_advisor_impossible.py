"""The Yams impossible advisor: its tables read the rulebook right, it makes the obvious
moves, it is deterministic, it plays whole games and it beats the facile player."""

from __future__ import annotations

import random
import statistics

import numpy as np
import pytest

from scoring.advisor.impossible.advisor import Advisor, Difficile, _pick, advise, tables_for
from scoring.advisor.impossible.tables import multisets, one_throw_chances
from scoring.advisor.impossible.values import BOX_VALUES, Outlook
from scoring.computer import IMPOSSIBLE_SET, Facile
from scoring.dice import Die, parse_dice
from scoring.game import Game
from scoring.rulebooks import get_rulebook
from scoring.simulate import play_game

IMP = get_rulebook("impossible")
# the simulated set, in the notation: red f f f t t, white f f t t t
SET = ("rf", "rf", "rf", "rt", "rt", "wf", "wf", "wt", "wt", "wt")


def dice(*values: int) -> str:
    """Ten dice of the simulated set showing these values, in its order."""
    return " ".join(f"{v % 10}{s}" for v, s in zip(values, SET, strict=True))


def game_at(values: tuple[int, ...], throw: int = 1, cells: dict | None = None) -> Game:
    """A solo game whose current dice are ``values`` after ``throw`` throws."""
    game = Game("impossible", ["a"])
    game.table.sheets[0].cells.update(cells or {})
    game.throw(dice(*values))
    for _ in range(throw - 1):
        game.throw(dice(*values), keep=range(10))
    return game


def only_open(*boxes: str) -> dict[str, int]:
    return {b.id: 0 for b in IMP.boxes if b.id not in boxes}


# -- the tables are the rulebook's ----------------------------------------------------------


def test_tables_agree_with_the_rulebook_on_random_throws() -> None:
    tables, _ = tables_for(IMP)
    ms = multisets()
    rng = random.Random(7)
    for _ in range(300):
        throw = [Die(rng.randint(1, 10), c, f) for c, f in IMPOSSIBLE_SET]
        counts = np.bincount([d.value - 1 for d in throw], minlength=10)
        r = int(ms.index(counts)) - ms.rolls.start
        assert (ms.counts[ms.rolls][r] == counts).all()
        for e in IMP.entries(throw):
            if e.section == "chiffres" and e.multipliers:
                continue  # five of a value in one colour or finish: the real dice's harmony
            want = e.points
            if e.section in ("yams", "suites", "combinaisons") and e.points:
                want = e.base  # the legal points, without ×2 harmonies
            assert tables.box_points(e.box)[r] == want, (e.box, e.why)


def test_tables_follow_the_options() -> None:
    ms = multisets()
    ten_sevens = int(ms.index(np.eye(10, dtype=int)[6] * 10)) - ms.rolls.start
    default = tables_for(IMP)[0]
    strict = tables_for(get_rulebook("impossible", {"fulls_need_two_values": True}))[0]
    assert default.box_points("grand_full")[ten_sevens] == 250
    assert strict.box_points("grand_full")[ten_sevens] == 0


def test_the_tables_hold_no_view_of_a_larger_array() -> None:
    """The groups' features once were columns of an int64 count table, which kept the
    whole of it (7 MB of the appliance's memory) alive."""
    tables, sixth = tables_for(IMP)
    arrays = [sixth.best_fill]
    arrays += [a for g in tables.groups for a in (g.points, g.feature)]
    assert all(a.base is None or a.base.nbytes == a.nbytes for a in arrays)
    assert all(g.feature.dtype == np.int16 for g in tables.groups)


def test_one_throw_chances_match_the_notes() -> None:
    tables, sixth = tables_for(IMP)
    empty = np.array([0])  # the keep of no dice: one throw of all ten
    youpi, ridicule = one_throw_chances(tables, ["youpi_yams", "suite_ridicule"], empty)[0]
    assert youpi == pytest.approx(0.0163, abs=5e-4)
    assert ridicule == pytest.approx(0.270, abs=5e-4)
    assert set(sixth.boxes).isdisjoint({"1", "10", "plus", "moins"})


def test_best_inside_is_the_best_sub_multiset() -> None:
    ms = multisets()
    values = np.random.default_rng(3).random(ms.n).astype(np.float32)
    best = ms.best_inside(values)
    for r in (0, 17, 5000, 92377):
        subs = ms.subsets(ms.counts[ms.rolls][r])
        assert best[r] == values[ms.index(subs)].max()


# -- the obvious moves ----------------------------------------------------------------------


def test_ten_identical_dice_on_the_first_throw_are_written_at_once() -> None:
    best = advise(game_at((7,) * 10))["best"]
    assert best["kind"] == "write"
    assert best["box"] in ("yams_impossible", "double_yams")
    assert best["points"] == 2400


def test_five_pairs_on_the_first_throw_stop_for_the_triple_points() -> None:
    best = advise(game_at((1, 1, 3, 3, 5, 5, 7, 7, 9, 9)))["best"]
    assert (best["kind"], best["box"], best["points"]) == ("write", "tout_en_paires", 750)


def test_keeps_the_big_group_and_rerolls_the_rest() -> None:
    # six 8s, three of each colour and of each finish: no harmony to write
    for throw in (1, 2, 3):
        advice = advise(game_at((8, 8, 2, 8, 3, 8, 5, 8, 8, 10), throw))
        assert advice["best"]["kind"] == "keep"
        assert advice["best"]["keep"] == [0, 1, 3, 5, 7, 8]


def test_five_red_dice_of_a_value_are_written_in_their_chiffre() -> None:
    # « cinq dés 10 rouges valent 100 points dans les 10 »: here five red 8s, 80 points
    best = advise(game_at((8, 8, 8, 8, 8, 8, 2, 3, 5, 10), throw=2))["best"]
    assert (best["kind"], best["box"], best["points"]) == ("write", "8", 80)


def test_of_several_dice_of_a_value_the_harmonious_ones_are_kept() -> None:
    throw = parse_dice("7wt 7rf 7wf 7rf 2rt 3rt 4wf 5wt 6wt 9rf")
    counts = np.zeros(10, dtype=int)
    counts[6] = 2  # two of the four 7s: the two red frosted ones
    assert _pick(throw, counts) == (1, 3)
    counts[6] = 3  # three: the two red ones and a white one
    assert {1, 3} < set(_pick(throw, counts))


def test_announces_a_likely_sixth_throw_only() -> None:
    # 2-3-4-5 and the Suite Ridicule the only box left: a 1 or a 6 among six dice (74 %)
    game = game_at((2, 3, 4, 5, 9, 9, 9, 9, 9, 9), throw=5, cells=only_open("suite_ridicule"))
    best = advise(game)["best"]
    assert (best["kind"], best["box"]) == ("announce", "suite_ridicule")
    assert [game.dice[i].value for i in best["keep"]] == [2, 3, 4, 5]
    assert best["chance"] == pytest.approx(1 - 0.8**6, abs=1e-4)
    # four 7s and only the Yams impossible left: six more 7s is hopeless, −800 is not
    game = game_at((7, 7, 7, 7, 1, 2, 3, 4, 5, 6), throw=5, cells=only_open("yams_impossible"))
    advice = advise(game)
    assert advice["best"]["kind"] == "write"
    assert advice["announces"][0]["value"] < -700


def test_after_an_announce_only_the_announced_box_is_advised() -> None:
    game = game_at((2, 3, 4, 5, 9, 9, 9, 9, 9, 9), throw=5, cells=only_open("suite_ridicule"))
    game.announce("suite_ridicule")
    advice = advise(game)
    assert advice["announced"] == "suite_ridicule" and advice["best"] is None
    game.throw(dice(2, 3, 4, 5, 1, 9, 9, 9, 9, 9), keep=[0, 1, 2, 3])
    best = advise(game)["best"]
    assert (best["box"], best["points"]) == ("suite_ridicule", 10)
    assert Difficile().choose(game) == "suite_ridicule"


def test_player_follows_the_advice() -> None:
    game = game_at((2, 3, 4, 5, 9, 9, 9, 9, 9, 9), throw=5, cells=only_open("suite_ridicule"))
    box, keep = Difficile().announce(game)
    assert box == "suite_ridicule"
    assert sorted(game.dice[i].value for i in keep) == [2, 3, 4, 5]


def test_box_one_is_weighed_by_the_difference() -> None:
    # plus and moins written 60 apart: each 1 in box 1 is worth 1 + 60 points
    outlook = Outlook({"plus": 85, "moins": 25})
    step = outlook.gain("1", 5) - outlook.gain("1", 4)
    assert 61 <= step < 70  # the rest: a better chance of the chiffres bonus
    # moins above plus: fewer 1s is better
    outlook = Outlook({"plus": 30, "moins": 70})
    assert outlook.gain("1", 0) > outlook.gain("1", 5)


def test_the_chiffres_bonus_chance_grows_with_the_points() -> None:
    low, high = Outlook({"10": 30}), Outlook({"10": 100})
    assert 0 <= low.bonus_chance < high.bonus_chance <= 1
    assert Outlook({str(v): 10 * v for v in range(1, 11)}).bonus_chance == 1


# -- the advice itself ----------------------------------------------------------------------


def test_advice_is_ranked_and_complete() -> None:
    game = game_at((1, 4, 4, 6, 7, 7, 7, 9, 10, 10), throw=2)
    advice = advise(game)
    keeps = [k["value"] for k in advice["keeps"]]
    assert keeps == sorted(keeps, reverse=True) and len(keeps) == 10
    assert {e["box"] for e in advice["entries"]} == {b.id for b in IMP.boxes}
    assert all(o["loss"] >= 0 for o in advice["keeps"] + advice["entries"])
    assert min(o["loss"] for o in advice["keeps"] + advice["entries"]) == 0
    assert advice["expected_final"] > 0
    assert set(advice["entries"][0]) >= {"box", "points", "value", "loss"}


def test_advice_before_a_throw_has_no_options() -> None:
    advice = advise(Game("impossible", ["a"]))
    assert advice["best"] is None and advice["keeps"] == advice["entries"] == []
    assert advice["expected_final"] == pytest.approx(
        sum(v[0] for b, v in BOX_VALUES.items() if b not in ("plus", "moins"))
        + 500 * advice["bonus_chance"]
        + (BOX_VALUES["plus"][0] - BOX_VALUES["moins"][0]) * BOX_VALUES["1"][0],
        abs=0.1,
    )


def test_the_advisor_refuses_other_games() -> None:
    with pytest.raises(ValueError):
        tables_for(get_rulebook("yams"))


# -- whole games ----------------------------------------------------------------------------


def scores(player, games: int, seed: int) -> list[int]:
    rng = random.Random(seed)
    return [play_game("impossible", [player], rng).scores()["p1"] for _ in range(games)]


def test_games_are_deterministic_for_a_seed() -> None:
    assert scores(Difficile(), 1, seed=11) == scores(Difficile(), 1, seed=11)
    game = game_at((1, 4, 4, 6, 7, 7, 7, 9, 10, 10), throw=3)
    assert Advisor().advise(game) == Advisor().advise(game)


def test_plays_two_player_games_through_simulate(monkeypatch) -> None:
    from scoring import computer
    from scoring.simulate import simulate

    monkeypatch.setitem(computer.PLAYERS, "difficile", lambda *args: Difficile())
    results = simulate("impossible", ["difficile", "facile"], 1, seed=2)
    assert [row["games"] for row in results.summary()] == [1, 1]


def test_difficile_beats_facile() -> None:
    hard = scores(Difficile(), 5, seed=5)
    easy = scores(Facile(), 5, seed=5)
    assert statistics.fmean(hard) > statistics.fmean(easy) + 500, (hard, easy)
