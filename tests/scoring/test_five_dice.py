"""Five d6, thirteen boxes: Yam's classique (seed 001) and Yams style Yahtzee (seed 004)."""

from __future__ import annotations

import pytest

from scoring.dice import parse_dice
from scoring.entries import Entry, RulesError
from scoring.rulebooks import get_rulebook
from scoring.rulebooks.base import Rulebook, Table
from scoring.rulebooks.five_dice import Yahtzee, Yams

YAMS = get_rulebook("yams")
YAHTZEE = get_rulebook("yahtzee")
BOTH = pytest.mark.parametrize("rb", [YAMS, YAHTZEE], ids=["yams", "yahtzee"])
BOX_IDS = ["1", "2", "3", "4", "5", "6", "brelan", "carre", "full"]
BOX_IDS += ["petite_suite", "grande_suite", "yams", "chance"]


def scored(rb: Rulebook, text: str, **kw) -> dict[str, Entry]:
    entries = rb.score(parse_dice(text), **kw)
    by_box = {e.box: e for e in entries}
    assert len(by_box) == len(entries) == 13
    return by_box


def points(rb: Rulebook, text: str) -> dict[str, int]:
    return {box: e.points for box, e in scored(rb, text).items()}


def table_with(rb: Rulebook, cells: dict[str, int] | None = None, players: int = 1) -> Table:
    table = Table([rb.new_sheet(f"p{i}") for i in range(players)])
    table.sheets[0].cells.update(cells or {})
    return table


def choices(rb: Rulebook, table: Table, text: str, player: int = 0) -> dict[str, Entry]:
    got = rb.choices(table, player, parse_dice(text), first=False, announced=None)
    keys = [e.sort_key for e in got]
    assert keys == sorted(keys, reverse=True)
    return {e.box: e for e in got}


# ---------------------------------------------------------------------------------------
# The sheet
# ---------------------------------------------------------------------------------------


@BOTH
def test_thirteen_boxes_in_sheet_order(rb: Rulebook) -> None:
    assert [b.id for b in rb.boxes] == BOX_IDS
    assert (rb.kind, rb.dice_count, rb.max_throws, rb.announced_throw) == ("d6", 5, 3, None)


def test_rulebook_classes_and_defaults() -> None:
    assert isinstance(YAMS, Yams) and isinstance(YAHTZEE, Yahtzee)
    yams, yahtzee = YAMS.options.to_dict(), YAHTZEE.options.to_dict()
    assert yams == {
        "brelan": "sum",
        "carre": "sum",
        "straights": "runs",
        "yams_bonus": 0,
        "joker": "none",
        "joker_after_zero": False,
        "in_order": False,
    }
    assert yahtzee == dict(yams, yams_bonus=100, joker="free")


# ---------------------------------------------------------------------------------------
# Upper section
# ---------------------------------------------------------------------------------------


@BOTH
@pytest.mark.parametrize("v", range(1, 7))
def test_upper_box_is_count_times_face(rb: Rulebook, v: int) -> None:
    other = 1 if v != 1 else 2
    text = f"{v} {v} {v} {other} {other}"
    e = scored(rb, text)[str(v)]
    assert (e.points, e.base, e.multipliers) == (3 * v, 3 * v, ())
    assert e.dice == (0, 1, 2)


def test_trois_5_en_cinq_valent_15() -> None:
    # « trois 5 inscrits en « Cinq » valent 15 »
    assert points(YAMS, "5 5 5 1 2")["5"] == 15


def test_upper_box_without_the_face_is_zero() -> None:
    e = scored(YAMS, "1 2 3 4 5")["6"]
    assert (e.points, e.dice) == (0, ())


# ---------------------------------------------------------------------------------------
# Lower section, default options
# ---------------------------------------------------------------------------------------


@BOTH
def test_brelan_and_carre_score_the_five_dice(rb: Rulebook) -> None:
    got = points(rb, "4 4 4 2 5")
    assert (got["brelan"], got["carre"]) == (19, 0)
    got = points(rb, "6 6 6 6 1")
    assert (got["brelan"], got["carre"]) == (25, 25)
    assert scored(rb, "6 6 6 6 1")["carre"].dice == (0, 1, 2, 3, 4)


@BOTH
def test_a_full_or_a_carre_fills_the_brelan(rb: Rulebook) -> None:
    # « Un full ou un carré contient un brelan : il peut s'inscrire en « Brelan » »
    assert points(rb, "3 3 3 2 2")["brelan"] == 13
    assert points(rb, "2 2 2 2 5")["brelan"] == 13


@BOTH
def test_a_yams_fills_brelan_carre_and_chance(rb: Rulebook) -> None:
    got = points(rb, "5 5 5 5 5")
    assert (got["brelan"], got["carre"], got["yams"], got["chance"]) == (25, 25, 50, 25)


@BOTH
def test_no_brelan_with_two_pairs(rb: Rulebook) -> None:
    got = points(rb, "3 3 5 5 1")
    assert (got["brelan"], got["carre"], got["full"]) == (0, 0, 0)


@BOTH
@pytest.mark.parametrize("text", ["3 3 3 2 2", "2 2 6 6 6", "1 6 1 6 1", "6 6 6 5 5"])
def test_full_is_25(rb: Rulebook, text: str) -> None:
    e = scored(rb, text)["full"]
    assert (e.points, e.base) == (25, 25)
    assert sorted(e.dice) == [0, 1, 2, 3, 4]


@BOTH
def test_a_yams_is_not_a_full(rb: Rulebook) -> None:
    # « Un Yam's n'est pas un full : un full demande deux valeurs différentes »
    assert points(rb, "4 4 4 4 4")["full"] == 0


@BOTH
def test_a_carre_is_not_a_full(rb: Rulebook) -> None:
    assert points(rb, "4 4 4 4 2")["full"] == 0


@BOTH
@pytest.mark.parametrize(
    ("text", "run"),
    [
        ("1 2 3 4 6", [1, 2, 3, 4]),
        ("2 3 5 4 2", [2, 3, 4, 5]),
        ("3 4 5 6 6", [3, 4, 5, 6]),
        ("4 3 1 2 4", [1, 2, 3, 4]),
    ],
)
def test_petite_suite_is_four_in_a_row(rb: Rulebook, text: str, run: list[int]) -> None:
    e = scored(rb, text)["petite_suite"]
    assert (e.points, e.base) == (30, 30)
    dice = parse_dice(text)
    assert sorted(dice[i].value for i in e.dice) == run
    assert points(rb, text)["grande_suite"] == 0


@BOTH
@pytest.mark.parametrize("text", ["1 2 3 5 6", "1 2 4 5 6", "1 1 2 2 3", "6 5 4 6 2"])
def test_no_petite_suite_without_four_in_a_row(rb: Rulebook, text: str) -> None:
    assert points(rb, text)["petite_suite"] == 0


@BOTH
@pytest.mark.parametrize("text", ["1 2 3 4 5", "2 3 4 5 6", "5 3 1 4 2", "6 4 2 5 3"])
def test_grande_suite_is_40_and_fills_the_petite(rb: Rulebook, text: str) -> None:
    # « Une grande suite contient une petite suite : elle peut s'inscrire en « Petite suite »
    # pour 30 points »
    got = points(rb, text)
    assert (got["grande_suite"], got["petite_suite"]) == (40, 30)
    assert sorted(scored(rb, text)["grande_suite"].dice) == [0, 1, 2, 3, 4]
    assert len(scored(rb, text)["petite_suite"].dice) == 4


@BOTH
@pytest.mark.parametrize("text", ["1 1 1 1 1", "6 6 6 6 6", "3 3 3 3 3"])
def test_yams_is_50(rb: Rulebook, text: str) -> None:
    e = scored(rb, text)["yams"]
    assert (e.points, e.base, e.dice) == (50, 50, (0, 1, 2, 3, 4))


@BOTH
def test_no_yams_with_four_identical(rb: Rulebook) -> None:
    assert points(rb, "3 3 3 3 4")["yams"] == 0


@BOTH
@pytest.mark.parametrize("text", ["1 1 2 2 4", "6 6 6 6 6", "1 2 3 4 5"])
def test_chance_is_the_sum(rb: Rulebook, text: str) -> None:
    dice = parse_dice(text)
    assert points(rb, text)["chance"] == sum(d.value for d in dice)


@BOTH
def test_first_throw_changes_nothing(rb: Rulebook) -> None:
    for text in ("3 3 3 2 2", "1 2 3 4 5", "6 6 6 6 6"):
        assert rb.score(parse_dice(text), first=True) == rb.score(parse_dice(text))


def test_score_is_best_first() -> None:
    entries = YAMS.score(parse_dice("1 2 3 4 5"))
    assert [e.box for e in entries[:3]] == ["grande_suite", "petite_suite", "chance"]
    pts = [e.points for e in entries]
    assert pts == sorted(pts, reverse=True)


def test_ties_keep_sheet_order() -> None:
    entries = YAMS.score(parse_dice("5 5 5 5 5"))
    assert [e.box for e in entries[:5]] == ["yams", "5", "brelan", "carre", "chance"]


# ---------------------------------------------------------------------------------------
# Options
# ---------------------------------------------------------------------------------------


def test_brelan_matching_scores_the_three_identical_dice() -> None:
    rb = get_rulebook("yams", {"brelan": "matching"})
    e = scored(rb, "3 6 3 6 3")["brelan"]
    assert (e.points, e.dice) == (9, (0, 2, 4))
    assert points(rb, "6 6 6 6 1")["brelan"] == 18
    assert points(rb, "2 2 5 5 1")["brelan"] == 0
    assert points(rb, "6 6 6 6 1")["carre"] == 25  # the carré keeps its own option


def test_carre_matching_scores_the_four_identical_dice() -> None:
    rb = get_rulebook("yams", {"carre": "matching"})
    e = scored(rb, "5 5 2 5 5")["carre"]
    assert (e.points, sorted(e.dice)) == (20, [0, 1, 3, 4])
    assert points(rb, "5 5 5 5 5")["carre"] == 20
    assert points(rb, "5 5 5 2 2")["carre"] == 0


def test_carre_40() -> None:
    rb = get_rulebook("yams", {"carre": "40"})
    assert points(rb, "1 1 1 1 2")["carre"] == 40
    assert points(rb, "6 6 6 6 6")["carre"] == 40
    assert points(rb, "6 6 6 5 5")["carre"] == 0
    assert len(scored(rb, "1 1 1 1 2")["carre"].dice) == 4


def test_straights_fixed() -> None:
    rb = get_rulebook("yams", {"straights": "fixed"})
    assert points(rb, "1 2 3 4 5")["petite_suite"] == 30
    assert points(rb, "1 2 3 4 5")["grande_suite"] == 0
    assert points(rb, "2 3 4 5 6")["grande_suite"] == 40
    assert points(rb, "2 3 4 5 6")["petite_suite"] == 0
    assert points(rb, "1 2 3 4 6")["petite_suite"] == 0  # four in a row is not enough
    assert points(rb, "3 4 5 6 6")["petite_suite"] == 0
    assert sorted(scored(rb, "5 4 3 2 1")["petite_suite"].dice) == [0, 1, 2, 3, 4]


def test_options_combine() -> None:
    rb = get_rulebook("yahtzee", {"brelan": "matching", "carre": "40", "straights": "fixed"})
    got = points(rb, "4 4 4 4 1")
    assert (got["brelan"], got["carre"]) == (12, 40)


@pytest.mark.parametrize(
    "options",
    [
        {"brelan": "three"},
        {"carre": 40},
        {"carre": "sum5"},
        {"straights": "long"},
        {"yams_bonus": 50},
        {"yams_bonus": False},  # equal to 0, but not a number of points
        {"yams_bonus": 100.0},
        {"yams_bonus": "100"},
        {"joker": "maybe"},
        {"joker_after_zero": "yes"},
        {"in_order": 1},
        {"colours": True},
    ],
)
@pytest.mark.parametrize("rules", ["yams", "yahtzee"])
def test_bad_options_raise(rules: str, options: dict) -> None:
    with pytest.raises(RulesError):
        get_rulebook(rules, options)


def test_unknown_rulebook() -> None:
    with pytest.raises(RulesError):
        get_rulebook("poker")


# ---------------------------------------------------------------------------------------
# Bad throws
# ---------------------------------------------------------------------------------------


@BOTH
@pytest.mark.parametrize("text", ["1 2 3 4", "1 2 3 4 5 6", "1 2 3 4 7", "1 2 3 4 0", "1r 2 3 4 5"])
def test_bad_throws_raise(rb: Rulebook, text: str) -> None:
    with pytest.raises(RulesError):
        rb.score(parse_dice(text))


@BOTH
def test_finish_refused(rb: Rulebook) -> None:
    with pytest.raises(RulesError):
        rb.score(parse_dice("1f 2 3 4 5"))


@BOTH
def test_no_announced_throw(rb: Rulebook) -> None:
    dice = parse_dice("1 2 3 4 5")
    with pytest.raises(RulesError):
        rb.score(dice, sixth="yams")
    with pytest.raises(RulesError):
        rb.announced(dice, "yams")
    with pytest.raises(RulesError):
        rb.choices(table_with(rb), 0, dice, first=False, announced="yams")


# ---------------------------------------------------------------------------------------
# A game: open boxes, bonus, joker, order
# ---------------------------------------------------------------------------------------


@BOTH
def test_choices_leave_out_written_boxes(rb: Rulebook) -> None:
    table = table_with(rb, {"full": 25, "chance": 20, "3": 9})
    got = choices(rb, table, "3 3 3 2 2")
    assert set(got) == set(BOX_IDS) - {"full", "chance", "3"}
    assert got["brelan"].points == 13
    # the other player's sheet is untouched
    table.sheets.append(rb.new_sheet("other"))
    assert set(choices(rb, table, "3 3 3 2 2", player=1)) == set(BOX_IDS)


def test_yams_classic_second_yams_has_no_bonus_and_no_joker() -> None:
    # « Un deuxième Yam's ne rapporte pas de prime : il s'inscrit dans une autre case »
    table = table_with(YAMS, {"yams": 50})
    got = choices(YAMS, table, "4 4 4 4 4")
    assert "yams" not in got
    assert all(e.bonus == 0 for e in got.values())
    assert (got["full"].points, got["petite_suite"].points, got["grande_suite"].points) == (
        0,
        0,
        0,
    )
    assert got["4"].points == 20


def test_yahtzee_further_yams_gets_100_and_free_joker() -> None:
    # « Chaque Yams supplémentaire, après avoir marqué 50 au Yams, vaut 100 points en plus et
    # sert de joker au Full et aux suites »
    table = table_with(YAHTZEE, {"yams": 50})
    got = choices(YAHTZEE, table, "4 4 4 4 4")
    assert "yams" not in got
    assert all(e.bonus == 100 for e in got.values())
    assert (got["full"].points, got["petite_suite"].points, got["grande_suite"].points) == (
        25,
        30,
        40,
    )
    assert got["4"].points == 20
    assert got["1"].points == 0  # any open box, crossing included
    assert next(iter(got)) == "grande_suite"
    assert "joker" in got["full"].why


def test_yahtzee_first_yams_goes_in_the_yams_box_without_bonus() -> None:
    got = choices(YAHTZEE, table_with(YAHTZEE), "4 4 4 4 4")
    assert got["yams"].points == 50
    assert all(e.bonus == 0 for e in got.values())
    assert got["full"].points == 0


def test_yahtzee_no_bonus_no_joker_after_a_crossed_yams() -> None:
    table = table_with(YAHTZEE, {"yams": 0})
    got = choices(YAHTZEE, table, "4 4 4 4 4")
    assert all(e.bonus == 0 for e in got.values())
    assert got["full"].points == 0


def test_joker_after_zero_option() -> None:
    rb = get_rulebook("yahtzee", {"joker_after_zero": True})
    got = choices(rb, table_with(rb, {"yams": 0}), "4 4 4 4 4")
    assert got["full"].points == 25
    assert got["grande_suite"].points == 40
    assert all(e.bonus == 0 for e in got.values())  # the bonus still needs the 50


def test_not_a_yams_gets_no_bonus() -> None:
    got = choices(YAHTZEE, table_with(YAHTZEE, {"yams": 50}), "4 4 4 4 3")
    assert all(e.bonus == 0 for e in got.values())
    assert got["full"].points == 0


def test_joker_forced_own_upper_box_first() -> None:
    rb = get_rulebook("yahtzee", {"joker": "forced"})
    got = choices(rb, table_with(rb, {"yams": 50}), "4 4 4 4 4")
    assert list(got) == ["4"]
    assert (got["4"].points, got["4"].bonus) == (20, 100)


def test_joker_forced_lower_boxes_when_own_box_written() -> None:
    rb = get_rulebook("yahtzee", {"joker": "forced"})
    got = choices(rb, table_with(rb, {"yams": 50, "4": 8}), "4 4 4 4 4")
    assert set(got) == {"brelan", "carre", "full", "petite_suite", "grande_suite", "chance"}
    assert (got["full"].points, got["grande_suite"].points) == (25, 40)
    assert all(e.bonus == 100 for e in got.values())


def test_joker_forced_any_box_when_the_lower_section_is_full() -> None:
    rb = get_rulebook("yahtzee", {"joker": "forced"})
    lower = {"brelan": 20, "carre": 0, "full": 25, "petite_suite": 30}
    lower |= {"grande_suite": 40, "yams": 50, "chance": 22, "4": 12}
    got = choices(rb, table_with(rb, lower), "4 4 4 4 4")
    assert set(got) == {"1", "2", "3", "5", "6"}
    assert all(e.points == 0 and e.bonus == 100 for e in got.values())


def test_joker_none_keeps_the_bonus() -> None:
    rb = get_rulebook("yahtzee", {"joker": "none"})
    got = choices(rb, table_with(rb, {"yams": 50}), "2 2 2 2 2")
    assert got["full"].points == 0
    assert all(e.bonus == 100 for e in got.values())


def test_yams_with_bonus_and_joker_options() -> None:
    rb = get_rulebook("yams", {"yams_bonus": 100, "joker": "free"})
    got = choices(rb, table_with(rb, {"yams": 50}), "6 6 6 6 6")
    assert (got["full"].points, got["full"].bonus) == (25, 100)


def test_joker_fixed_straights_at_full_value() -> None:
    rb = get_rulebook("yahtzee", {"straights": "fixed"})
    got = choices(rb, table_with(rb, {"yams": 50}), "1 1 1 1 1")
    assert (got["petite_suite"].points, got["grande_suite"].points) == (30, 40)


def test_in_order_offers_only_the_first_open_box() -> None:
    rb = get_rulebook("yams", {"in_order": True})
    assert list(choices(rb, table_with(rb), "6 6 6 6 6")) == ["1"]
    table = table_with(rb, {str(v): v for v in range(1, 7)} | {"brelan": 10})
    got = choices(rb, table, "6 6 6 6 6")
    assert list(got) == ["carre"]
    assert got["carre"].points == 30


def test_record_writes_the_points_and_the_bonus() -> None:
    table = table_with(YAHTZEE, {"yams": 50})
    entry = choices(YAHTZEE, table, "5 5 5 5 5")["full"]
    YAHTZEE.record(table, 0, entry)
    assert table.sheets[0].cells["full"] == 25
    assert table.sheets[0].extras["bonus"] == 100
    entry = choices(YAHTZEE, table, "5 5 5 5 5")["5"]
    YAHTZEE.record(table, 0, entry)
    assert table.sheets[0].extras["bonus"] == 200
    got = {t.key: t.points for t in YAHTZEE.totals(table, 0)}
    assert got["prime_yams"] == 200
    assert got["bas"] == 50 + 25 + 200
    assert got["total"] == 25 + 50 + 25 + 200


# ---------------------------------------------------------------------------------------
# Totals
# ---------------------------------------------------------------------------------------


def totals(rb: Rulebook, cells: dict[str, int], extras: dict[str, int] | None = None):
    table = table_with(rb, cells)
    table.sheets[0].extras.update(extras or {})
    out = rb.totals(table, 0)
    assert out[-1].key == "total"
    assert rb.grand_total(table, 0) == out[-1].points
    return {t.key: t.points for t in out}


@BOTH
def test_upper_prime_35_at_63(rb: Rulebook) -> None:
    # « 35 points de plus si ta partie haute atteint 63, soit trois dés de chaque face »
    three_each = {str(v): 3 * v for v in range(1, 7)}
    got = totals(rb, three_each)
    assert (got["haut"], got["prime"], got["total"]) == (63, 35, 98)
    got = totals(rb, dict(three_each, **{"1": 2}))
    assert (got["haut"], got["prime"], got["total"]) == (62, 0, 62)
    got = totals(rb, dict(three_each, **{"6": 24}))
    assert (got["haut"], got["prime"]) == (69, 35)


def test_yams_totals() -> None:
    cells = {"1": 3, "6": 30, "brelan": 20, "full": 25, "yams": 50, "chance": 17}
    got = totals(YAMS, cells)
    assert got == {"haut": 33, "prime": 0, "bas": 112, "total": 145}


def test_yahtzee_totals_show_the_yams_bonus() -> None:
    cells = {"1": 3, "6": 30, "brelan": 20, "full": 25, "yams": 50, "chance": 17}
    got = totals(YAHTZEE, cells, {"bonus": 100})
    assert got == {"haut": 33, "prime": 0, "prime_yams": 100, "bas": 212, "total": 245}


@BOTH
def test_empty_sheet_totals_zero(rb: Rulebook) -> None:
    assert totals(rb, {})["total"] == 0


@BOTH
def test_a_whole_game_of_thirteen_turns(rb: Rulebook) -> None:
    throws = [
        "1 1 1 2 3",
        "2 2 2 4 5",
        "3 3 3 1 1",
        "4 4 4 6 6",
        "5 5 5 2 1",
        "6 6 6 3 3",
        "2 2 2 2 6",
        "1 1 6 6 6",
        "1 2 3 4 6",
        "2 3 4 5 6",
        "3 3 3 3 3",
        "6 5 6 5 4",
        "2 2 5 5 1",
    ]
    plan = ["1", "2", "3", "4", "5", "6", "carre", "full", "petite_suite", "grande_suite"]
    plan += ["yams", "chance", "brelan"]
    table = table_with(rb)
    for text, box in zip(throws, plan, strict=True):
        assert not rb.finished(table)
        entry = choices(rb, table, text)[box]
        rb.record(table, 0, entry)
    assert rb.finished(table)
    cells = table.sheets[0].cells
    assert cells == {
        "1": 3,
        "2": 6,
        "3": 9,
        "4": 12,
        "5": 15,
        "6": 18,
        "carre": 14,
        "full": 25,
        "petite_suite": 30,
        "grande_suite": 40,
        "yams": 50,
        "chance": 26,
        "brelan": 0,
    }
    got = totals(rb, cells)
    assert (got["haut"], got["prime"]) == (63, 35)
    assert got["total"] == 63 + 35 + 14 + 25 + 30 + 40 + 50 + 26


def test_yams_bonus_values_are_switchable() -> None:
    off = get_rulebook("yahtzee", {"yams_bonus": 0})
    got = choices(off, table_with(off, {"yams": 50}), "3 3 3 3 3")
    assert all(e.bonus == 0 for e in got.values())
    assert got["full"].points == 25  # the joker stays on
    assert "prime_yams" not in {t.key for t in off.totals(table_with(off), 0)}
    on = get_rulebook("yams", {"yams_bonus": 100})
    got = choices(on, table_with(on, {"yams": 50}), "3 3 3 3 3")
    assert all(e.bonus == 100 for e in got.values())
    assert got["full"].points == 0  # no joker in the classic game
