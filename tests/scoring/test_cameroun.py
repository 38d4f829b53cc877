"""« Le Yams », dit Cameroun (seed 002): ten columns shared by the table."""

from __future__ import annotations

import itertools

import pytest

from scoring.dice import parse_dice
from scoring.entries import Entry, RulesError
from scoring.rulebooks import get_rulebook
from scoring.rulebooks.base import Table
from scoring.rulebooks.cameroun import Cameroun

CAM = get_rulebook("cameroun")
COLUMNS = ["1", "2", "3", "4", "5", "6", "P", "G", "F", "Q"]


def scored(text: str, **kw) -> dict[str, Entry]:
    entries = CAM.score(parse_dice(text), **kw)
    by_box = {e.box: e for e in entries}
    assert len(by_box) == len(entries) == 10
    return by_box


def points(text: str) -> dict[str, int]:
    return {box: e.points for box, e in scored(text).items()}


def new_table(players: int = 2) -> Table:
    return Table([CAM.new_sheet(name) for name in ("A", "B", "C", "D")[:players]])


def choices(table: Table, player: int, text: str, announced: str | None = None):
    got = CAM.choices(table, player, parse_dice(text), first=False, announced=announced)
    return {e.box: e for e in got}


def write(table: Table, player: int, text: str, box: str, announced: str | None = None) -> Entry:
    entry = choices(table, player, text, announced)[box]
    CAM.record(table, player, entry, announced)
    return entry


# ---------------------------------------------------------------------------------------
# The sheet
# ---------------------------------------------------------------------------------------


def test_ten_columns() -> None:
    assert isinstance(CAM, Cameroun)
    assert [b.id for b in CAM.boxes] == COLUMNS
    assert (CAM.kind, CAM.dice_count, CAM.max_throws) == ("d6", 5, 2)
    assert CAM.announced_throw is not None


def test_only_option_is_the_turn_limit() -> None:
    assert CAM.options.to_dict() == {"turns": 10}
    assert get_rulebook("cameroun", {"turns": 0}).options.turns == 0
    with pytest.raises(RulesError):
        get_rulebook("cameroun", {"brelan": "sum"})
    for bad in (-1, 101, "10", 2.0, True):
        with pytest.raises(RulesError):
            get_rulebook("cameroun", {"turns": bad})


@pytest.mark.parametrize(
    "text", ["1 2 3 4", "1 2 3 4 5 6", "1 2 3 4 7", "1r 2 3 4 5", "1 2 3 4 5t"]
)
def test_bad_throws_raise(text: str) -> None:
    with pytest.raises(RulesError):
        CAM.score(parse_dice(text))


# ---------------------------------------------------------------------------------------
# What a throw is worth
# ---------------------------------------------------------------------------------------


def test_seed_example_three_2s_and_two_4s() -> None:
    # « si un joueur A obtient 3 et 2. il inscrit 6 (3×2) dans la deuxième colonne et 8 (2×4)
    # dans la quatrième colonne »
    got = scored("2 2 2 4 4")
    assert (got["2"].points, got["2"].dice) == (6, (0, 1, 2))
    assert (got["4"].points, got["4"].dice) == (8, (3, 4))


@pytest.mark.parametrize("v", range(1, 7))
def test_number_column_is_count_times_value(v: int) -> None:
    other = 1 if v != 1 else 2
    got = points(f"{v} {other} {v} {other} {v}")
    assert got[str(v)] == 3 * v


@pytest.mark.parametrize(
    ("text", "total"),
    [
        ("1 1 1 2 2", 7),  # « 7 (trois As + deux 2) »
        ("6 6 6 5 5", 28),  # « 28, le maximum (trois 6 + deux 5) »
        ("2 2 1 1 1", 7),
        ("5 6 5 6 6", 28),
        ("1 1 6 6 6", 20),
        ("3 3 3 4 4", 17),
    ],
)
def test_full_scores_the_sum_of_the_five_dice(text: str, total: int) -> None:
    e = scored(text)["F"]
    assert (e.points, e.base) == (total, total)
    assert sorted(e.dice) == [0, 1, 2, 3, 4]


def test_every_full_is_between_7_and_28() -> None:
    seen = set()
    for a, b in itertools.permutations(range(1, 7), 2):
        text = f"{a} {a} {a} {b} {b}"
        total = 3 * a + 2 * b
        assert points(text)["F"] == total
        seen.add(total)
    assert (min(seen), max(seen)) == (7, 28)


@pytest.mark.parametrize("text", ["4 4 4 4 4", "4 4 4 4 2", "4 4 2 2 1", "1 2 3 4 5", "3 3 3 1 2"])
def test_no_full(text: str) -> None:
    assert points(text)["F"] == 0


@pytest.mark.parametrize("text", ["1 2 3 4 5", "5 4 3 2 1", "3 1 5 2 4"])
def test_petite_sequence_is_15(text: str) -> None:
    got = scored(text)
    assert (got["P"].points, got["P"].dice) == (15, (0, 1, 2, 3, 4))
    assert got["G"].points == 0


@pytest.mark.parametrize("text", ["2 3 4 5 6", "6 5 4 3 2"])
def test_grande_sequence_is_20(text: str) -> None:
    got = points(text)
    assert (got["G"], got["P"]) == (20, 0)


@pytest.mark.parametrize("text", ["1 2 3 4 6", "1 2 3 4 4", "2 3 4 5 5", "1 3 4 5 6"])
def test_no_sequence(text: str) -> None:
    got = points(text)
    assert (got["P"], got["G"]) == (0, 0)


@pytest.mark.parametrize("v", range(1, 7))
def test_quinte_is_30(v: int) -> None:
    got = points(" ".join([str(v)] * 5))
    assert got["Q"] == 30
    assert got[str(v)] == 5 * v
    assert got["F"] == 0


def test_no_quinte_with_four_identical() -> None:
    assert points("6 6 6 6 5")["Q"] == 0


def test_score_is_best_first() -> None:
    entries = CAM.score(parse_dice("6 6 6 5 5"))
    assert [e.box for e in entries[:3]] == ["F", "6", "5"]


def test_first_throw_changes_nothing() -> None:
    dice = parse_dice("6 6 6 5 5")
    assert CAM.score(dice, first=True) == CAM.score(dice)


# ---------------------------------------------------------------------------------------
# The announced third throw, as score(sixth=...)
# ---------------------------------------------------------------------------------------


def test_announced_third_throw_success_on_a_figure() -> None:
    entries = CAM.score(parse_dice("1 2 3 4 5"), sixth="P")
    assert (entries[0].box, entries[0].points) == ("P", 15)
    assert all(e.points == 0 for e in entries[1:])
    assert {e.box for e in entries} == set(COLUMNS)


def test_announced_third_throw_failure_on_a_figure_scores_nothing() -> None:
    chosen = CAM.score(parse_dice("1 2 3 4 6"), sixth="P")[0]
    assert (chosen.box, chosen.points) == ("P", 0)
    assert "barr" in chosen.why


def test_announced_third_throw_on_a_number_column() -> None:
    ok = CAM.score(parse_dice("4 4 4 1 2"), sixth="4")[0]
    assert (ok.box, ok.points) == ("4", 12)
    missed = CAM.score(parse_dice("1 2 3 5 6"), sixth="4")[0]
    assert (missed.box, missed.points) == ("4", 0)


def test_announced_other_columns_are_zero_even_when_filled() -> None:
    entries = CAM.score(parse_dice("6 6 6 6 6"), sixth="6")
    assert (entries[0].box, entries[0].points) == ("6", 30)
    assert {e.box: e.points for e in entries}["Q"] == 0


def test_announced_for_an_unknown_column() -> None:
    with pytest.raises(RulesError):
        CAM.score(parse_dice("1 2 3 4 5"), sixth="7")
    with pytest.raises(RulesError):
        CAM.check_announce("yams")


def test_announced_throw_is_never_the_first() -> None:
    with pytest.raises(RulesError):
        CAM.score(parse_dice("1 2 3 4 5"), first=True, sixth="P")


# ---------------------------------------------------------------------------------------
# Shared columns
# ---------------------------------------------------------------------------------------


def test_capacity() -> None:
    # « Ce total est égal à six fois le point (exemple : point 4 = 24) »
    assert CAM.capacity("4") == 24
    assert [CAM.capacity(str(v)) for v in range(1, 7)] == [6, 12, 18, 24, 30, 36]


def test_number_column_adds_up_for_one_player() -> None:
    table = new_table()
    write(table, 0, "4 4 1 2 3", "4")
    write(table, 0, "4 1 2 3 5", "4")
    assert table.sheets[0].cells["4"] == 12
    assert "4" not in table.closed


def test_number_column_closes_for_everyone_at_its_total() -> None:
    table = new_table(3)
    write(table, 0, "4 4 4 1 2", "4")  # 12
    write(table, 1, "4 4 4 1 2", "4")  # 24: the total
    assert CAM.column_total(table, "4") == 24
    assert "4" in table.closed
    for player in range(3):
        assert not CAM.is_open(table, player, "4")
        assert "4" not in choices(table, player, "4 4 4 4 4")


def test_excess_points_are_not_counted() -> None:
    table = new_table()
    write(table, 0, "6 6 6 6 6", "6")  # 30 of 36
    got = choices(table, 1, "6 6 6 1 2")["6"]
    assert got.points == 6
    assert got.base == 6
    assert got.multipliers == ()
    assert "limit" in got.why
    CAM.record(table, 1, got)
    assert table.sheets[1].cells["6"] == 6
    assert CAM.column_total(table, "6") == 36
    assert "6" in table.closed


def test_capped_entries_rank_by_what_they_score() -> None:
    table = new_table()
    write(table, 0, "6 6 6 6 6", "6")
    got = CAM.choices(table, 1, parse_dice("6 6 6 5 5"), first=False, announced=None)
    assert [e.box for e in got[:3]] == ["F", "5", "6"]
    assert [e.points for e in got[:3]] == [28, 10, 6]


def test_a_column_below_its_total_stays_open() -> None:
    table = new_table()
    write(table, 0, "1 1 1 1 1", "1")  # 5 of 6
    assert "1" not in table.closed
    assert choices(table, 1, "1 1 1 2 2")["1"].points == 1


@pytest.mark.parametrize(
    ("box", "text", "pts"),
    [
        ("P", "1 2 3 4 5", 15),
        ("G", "2 3 4 5 6", 20),
        ("F", "3 3 3 2 2", 13),
        ("Q", "5 5 5 5 5", 30),
    ],
)
def test_a_figure_takes_one_entry_then_closes_for_everyone(box: str, text: str, pts: int) -> None:
    table = new_table()
    assert write(table, 0, text, box).points == pts
    assert table.sheets[0].cells[box] == pts
    assert box in table.closed
    assert box not in choices(table, 1, text)
    assert box not in choices(table, 0, text)


def test_a_throw_that_fills_nothing_is_a_pass() -> None:
    table = new_table()
    entry = choices(table, 0, "1 2 3 4 6")["F"]
    assert entry.points == 0
    CAM.record(table, 0, entry)
    assert table.sheets[0].cells == {}
    assert table.closed == {}


def test_choices_are_best_first_over_open_columns() -> None:
    table = new_table()
    table.closed["F"] = "test"
    got = CAM.choices(table, 0, parse_dice("6 6 6 5 5"), first=False, announced=None)
    assert [e.box for e in got][:2] == ["6", "5"]
    assert len(got) == 9


# ---------------------------------------------------------------------------------------
# The announced third throw in a game
# ---------------------------------------------------------------------------------------


def test_announced_success_on_a_number_column_adds_to_the_total() -> None:
    # « S'il réussit ce qu'il annonce, il le rajoutera au total précédent »
    table = new_table()
    write(table, 0, "5 5 1 2 3", "5")
    entry = write(table, 0, "5 5 5 1 2", "5", announced="5")
    assert entry.points == 15
    assert table.sheets[0].cells["5"] == 25


def test_announced_failure_on_a_number_column_keeps_the_previous_total() -> None:
    # « il ne tiendra pas compte de son dernier essai s'il avait choisi une colonne numérotée
    # [...] et conservera le total précédent »
    table = new_table()
    write(table, 0, "5 5 1 2 3", "5")
    got = CAM.choices(table, 0, parse_dice("1 2 3 4 6"), first=False, announced="5")
    assert [(e.box, e.points) for e in got] == [("5", 0)]
    CAM.record(table, 0, got[0], announced="5")
    assert table.sheets[0].cells == {"5": 10}
    assert table.closed == {}


@pytest.mark.parametrize("box", ["P", "G", "F", "Q"])
def test_announced_failure_on_a_figure_crosses_it_for_everyone(box: str) -> None:
    # « s'il avait choisi une colonne P, G, F, Q, il perdra et « fermera » d'une croix cette
    # colonne, non seulement pour lui, mais aussi pour les autres joueurs »
    table = new_table(3)
    entry = write(table, 1, "1 3 4 6 6", box, announced=box)
    assert entry.points == 0
    assert box in table.closed
    assert "B" in table.closed[box]
    assert all(box not in s.cells for s in table.sheets)
    for player in range(3):
        assert not CAM.is_open(table, player, box)
    winning = {"P": "1 2 3 4 5", "G": "2 3 4 5 6", "F": "1 1 6 6 6", "Q": "2 2 2 2 2"}[box]
    assert box not in choices(table, 0, winning)


@pytest.mark.parametrize(
    ("box", "text", "pts"),
    [
        ("P", "1 2 3 4 5", 15),
        ("G", "2 3 4 5 6", 20),
        ("F", "1 1 6 6 6", 20),
        ("Q", "2 2 2 2 2", 30),
    ],
)
def test_announced_success_on_a_figure_scores_and_closes(box: str, text: str, pts: int) -> None:
    table = new_table()
    entry = write(table, 0, text, box, announced=box)
    assert entry.points == pts
    assert table.sheets[0].cells[box] == pts
    assert box in table.closed


def test_announced_success_is_capped_too() -> None:
    table = new_table()
    write(table, 0, "3 3 3 3 3", "3")  # 15 of 18
    entry = write(table, 1, "3 3 3 1 2", "3", announced="3")
    assert entry.points == 3
    assert "3" in table.closed


# ---------------------------------------------------------------------------------------
# Totals and the end
# ---------------------------------------------------------------------------------------


def test_totals() -> None:
    table = new_table()
    write(table, 0, "6 6 6 5 5", "F")
    write(table, 0, "6 6 6 1 2", "6")
    write(table, 0, "1 2 3 4 5", "P")
    write(table, 1, "4 4 4 4 1", "4")
    a = {t.key: t.points for t in CAM.totals(table, 0)}
    b = {t.key: t.points for t in CAM.totals(table, 1)}
    assert a == {"chiffres": 18, "figures": 43, "total": 61}
    assert b == {"chiffres": 16, "figures": 0, "total": 16}
    assert CAM.grand_total(table, 0) == 61


def test_finished_when_every_column_is_closed() -> None:
    table = new_table()
    for box in COLUMNS[:-1]:
        table.closed[box] = "test"
    assert not CAM.finished(table)
    table.closed["Q"] = "test"
    assert CAM.finished(table)


def test_a_whole_game_ends_when_every_column_is_closed() -> None:
    table = new_table()
    turns = [
        (0, "6 6 6 6 6", "6"),  # 30
        (1, "6 6 6 1 2", "6"),  # 6 of 18: closes the 6s
        (0, "5 5 5 5 5", "5"),  # 25
        (1, "5 5 1 2 3", "5"),  # 5 of 10: closes the 5s
        (0, "4 4 4 4 4", "4"),
        (1, "4 4 4 1 2", "4"),
        (0, "3 3 3 3 3", "3"),
        (1, "3 3 3 1 2", "3"),
        (0, "2 2 2 2 2", "2"),
        (1, "2 2 2 1 3", "2"),
        (0, "1 1 1 1 1", "1"),
        (1, "1 1 2 3 4", "1"),
        (0, "1 2 3 4 5", "P"),
        (1, "2 3 4 5 6", "G"),
        (0, "1 1 1 2 2", "F"),
    ]
    for player, text, box in turns:
        assert not CAM.finished(table)
        write(table, player, text, box)
    assert not CAM.finished(table)
    write(table, 1, "1 3 4 6 6", "Q", announced="Q")  # failed: crossed for everyone
    assert CAM.finished(table)
    for v in range(1, 7):
        assert CAM.column_total(table, str(v)) == 6 * v
    a, b = CAM.grand_total(table, 0), CAM.grand_total(table, 1)
    assert a == 30 + 25 + 20 + 15 + 10 + 5 + 15 + 7
    assert b == 6 + 5 + 4 + 3 + 2 + 1 + 20
    assert a + b == sum(6 * v for v in range(1, 7)) + 15 + 20 + 7


def test_game_ends_after_ten_turns_each_when_columns_stay_open() -> None:
    from scoring.game import Game

    game = Game("cameroun", ["a", "b"])
    # 2 2 3 4 6 fills no figure: every turn writes in a number column or passes
    for _ in range(19):
        game.throw("2 2 3 4 6")
        game.score("P")  # a pass: P stays open
        assert not game.finished
    game.throw("2 2 3 4 6")
    game.score("P")
    assert game.finished
    assert [s.turns for s in game.table.sheets] == [10, 10]
    assert "P" not in game.table.closed


def test_no_turn_limit_plays_on() -> None:
    from scoring.game import Game

    game = Game("cameroun", ["a"], {"turns": 0})
    for _ in range(30):
        game.throw("2 2 3 4 6")
        game.score("P")
    assert not game.finished
