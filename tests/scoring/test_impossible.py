"""« Le Yams impossible » (seed 000): every worked example of the text, then the rest."""

from __future__ import annotations

import math

import pytest

from scoring.dice import Die, NotationError, parse_dice
from scoring.entries import Entry, RulesError
from scoring.rulebooks import get_rulebook
from scoring.rulebooks.base import Table
from scoring.rulebooks.impossible import COMBINATIONS, OF_A_KIND, RUNS, Impossible

IMP = get_rulebook("impossible")


def scored(text: str, rulebook=IMP, **kw) -> dict[str, Entry]:
    entries = rulebook.score(parse_dice(text), **kw)
    by_box = {e.box: e for e in entries}
    assert len(by_box) == len(entries) == len(rulebook.boxes)
    return by_box


def xs(entry: Entry) -> list[int]:
    return [m.x for m in entry.multipliers]


def product(entry: Entry) -> int:
    return math.prod(m.x for m in entry.multipliers)


def values(text: str, indices) -> list[int]:
    dice = parse_dice(text)
    return [dice[i].value for i in indices]


# ---------------------------------------------------------------------------------------
# The worked examples of seed 000, one test each
# ---------------------------------------------------------------------------------------


def test_seed_cinq_2_score_10_in_the_2s() -> None:
    # « Une combinaison de cinq « 2 » vaut 10 points (5x2) »: three red, two white
    e = scored("2r 2r 2r 2w 2w 1r 3w 4r 5w 6w")["2"]
    assert (e.points, e.base, e.multipliers) == (10, 10, ())
    assert sorted(e.dice) == [0, 1, 2, 3, 4]


def test_seed_huit_7_score_56_in_the_7s() -> None:
    # « Une combinaison de huit « 7 » vaut 56 points (8x7) »: four red, four white
    e = scored("7r 7r 7r 7r 7w 7w 7w 7w 1r 2w")["7"]
    assert (e.points, e.base, e.multipliers) == (56, 56, ())
    assert sorted(e.dice) == list(range(8))


def test_seed_brelan_of_three_red_dice_scores_10() -> None:
    # « Un Brelan de 3 dés rouges vaut 10 au lieu de 5 »
    text = "6r 6r 6r 1w 2w 3w 4w 5w 7r 8r"
    e = scored(text)["brelan"]
    assert (e.points, e.base, xs(e)) == (10, 5, [2])
    assert sorted(e.dice) == [0, 1, 2]
    assert "harmonie" in e.why


def test_seed_double_carre_four_red_four_white_scores_200() -> None:
    # « Un Double Carré avec 4 dés rouges et 4 dés blancs vaut 200 au lieu de 100 »
    text = "6r 6r 6r 6r 2w 2w 2w 2w 1r 9w"
    e = scored(text)["double_carre"]
    assert (e.points, e.base, xs(e)) == (200, 100, [2])
    assert sorted(e.dice) == list(range(8))
    assert "harmonie" in e.why


def test_seed_yams_impossible_is_also_a_harmonious_double_yams() -> None:
    # « Un Yams Impossible est aussi un Double Yams harmonieux. Ils valent tous les deux 800 »
    by_box = scored("7r 7r 7r 7r 7r 7w 7w 7w 7w 7w")
    impossible, double = by_box["yams_impossible"], by_box["double_yams"]
    assert (impossible.points, impossible.base, impossible.multipliers) == (800, 800, ())
    assert (double.points, double.base, xs(double)) == (800, 400, [2])
    assert "harmonie" in double.why
    assert sorted(impossible.dice) == sorted(double.dice) == list(range(10))
    # they share the top of the suggestions
    assert {e.box for e in IMP.score(parse_dice("7r 7r 7r 7r 7r 7w 7w 7w 7w 7w"))[:2]} == {
        "yams_impossible",
        "double_yams",
    }


def test_seed_cinq_10_rouges_score_100_in_the_10s() -> None:
    # « cinq dés 10 rouges valent 100 points dans les 10 ! »
    e = scored("0r 0r 0r 0r 0r 1w 2w 3w 4w 5w")["10"]
    assert (e.points, e.base, xs(e)) == (100, 50, [2])
    assert sorted(e.dice) == [0, 1, 2, 3, 4]
    assert "harmonie" in e.why


def test_seed_failed_sixth_throw_for_a_suite_ridicule_scores_minus_10() -> None:
    # « on a 2, 3, 4, 5 [...] Si la Suite Ridicule est obtenue, [...] 10 points légaux.
    # Sinon, il marque – 10 ! »
    entries = IMP.score(parse_dice("2r 3r 4r 5r 2w 3w 4w 5w 8r 8w"), sixth="suite_ridicule")
    chosen = entries[0]
    assert chosen.box == "suite_ridicule"
    assert (chosen.points, chosen.base, chosen.multipliers, chosen.dice) == (-10, 10, (), ())


def test_seed_successful_sixth_throw_for_a_suite_ridicule_scores_10() -> None:
    entries = IMP.score(parse_dice("2r 3r 4r 5r 2w 3w 4w 5w 6r 8w"), sixth="suite_ridicule")
    chosen = entries[0]
    assert (chosen.box, chosen.points, chosen.base, chosen.multipliers) == (
        "suite_ridicule",
        10,
        10,
        (),
    )
    assert sorted(values("2r 3r 4r 5r 2w 3w 4w 5w 6r 8w", chosen.dice)) == [2, 3, 4, 5, 6]


def test_seed_failed_sixth_throw_for_a_youpi_yams_scores_minus_25() -> None:
    # « on a quatre 2 [...] Si le Youpi Yams est obtenu, [...] 25 points légaux.
    # Sinon, il marque – 25 ! »
    chosen = IMP.score(parse_dice("2r 2r 2w 2w 1r 3w 4r 5w 6r 7w"), sixth="youpi_yams")[0]
    assert (chosen.box, chosen.points, chosen.base) == ("youpi_yams", -25, 25)


def test_seed_successful_sixth_throw_for_a_youpi_yams_scores_25() -> None:
    chosen = IMP.score(parse_dice("2r 2r 2w 2w 2r 3w 4r 5w 6r 7w"), sixth="youpi_yams")[0]
    assert (chosen.box, chosen.points, chosen.base, chosen.multipliers) == (
        "youpi_yams",
        25,
        25,
        (),
    )
    assert values("2r 2r 2w 2w 2r 3w 4r 5w 6r 7w", chosen.dice) == [2] * 5


def test_seed_frosted_brelan_scores_10() -> None:
    # « Un Brelan de 3 dés givrés vaut 10 au lieu de 5 »: two red and one white, all frosted
    text = "5rf 5rf 5wf 1rt 2wt 3rf 4wt 7wt 8rt 9wf"
    e = scored(text)["brelan"]
    assert (e.points, e.base, xs(e)) == (10, 5, [2])
    assert sorted(e.dice) == [0, 1, 2]
    assert "givr" in e.why


def test_seed_frosted_transparent_double_carre_scores_200() -> None:
    # « Un Double Carré avec 4 dés givrés et 4 dés transparents vaut 200 au lieu de 100 »
    # no group is one colour: the harmony is the finish's alone
    text = "6rf 6rf 6wf 6wf 3rt 3rt 3wt 3wt 1rf 2wt"
    e = scored(text)["double_carre"]
    assert (e.points, e.base, xs(e)) == (200, 100, [2])
    assert sorted(values(text, e.dice)) == [3, 3, 3, 3, 6, 6, 6, 6]
    assert "givr" in e.why and "transparent" in e.why


def test_seed_frosted_red_youpi_yams_scores_100() -> None:
    # « Un Youpi Yams avec cinq dés givrés (première harmonie) et cinq dés rouges
    # (deuxième harmonie) vaut 100 au lieu de 25 »
    text = "5rf 5rf 5rf 5rf 5rf 1wt 2wt 3wt 4wt 6wt"
    e = scored(text)["youpi_yams"]
    assert (e.points, e.base, xs(e)) == (100, 25, [2, 2])
    assert sorted(e.dice) == [0, 1, 2, 3, 4]


def test_seed_grand_full_is_also_tout_en_paires_and_yams_de_rene() -> None:
    # « un « Grand Full » est aussi « Tout en Paires » mais aussi un Yams de René ou moindre »
    by_box = scored("4r 4r 4r 4w 4w 4w 9r 9r 9w 9w")
    assert by_box["grand_full"].points == 250
    assert by_box["tout_en_paires"].points == 250
    assert by_box["yams_de_rene"].points == 50
    assert by_box["youpi_yams"].points == 25
    assert by_box["yams_superieur"].points == 0


# ---------------------------------------------------------------------------------------
# First throw ×3, stacking with the harmonies
# ---------------------------------------------------------------------------------------


def test_first_throw_triples_a_plain_combination() -> None:
    text = "3r 3r 3w 1r 2w 4r 5w 6r 7w 8w"
    plain, first = scored(text)["brelan"], scored(text, first=True)["brelan"]
    assert (plain.points, first.points) == (5, 15)
    assert xs(first) == [3]
    assert "premier jet" in first.why


def test_first_throw_stacks_with_both_harmonies_times_12() -> None:
    text = "5rf 5rf 5rf 5rf 5rf 1wt 2wt 3wt 4wt 6wt"
    by_box = scored(text, first=True)
    assert (by_box["brelan"].points, sorted(xs(by_box["brelan"]))) == (60, [2, 2, 3])
    assert by_box["carre"].points == 120
    assert by_box["youpi_yams"].points == 300


def test_first_throw_stacks_with_colour_harmony_times_6() -> None:
    e = scored("6r 6r 6r 6r 2w 2w 2w 2w 1r 9w", first=True)["double_carre"]
    assert (e.points, sorted(xs(e))) == (600, [2, 3])


def test_first_throw_does_not_touch_the_chiffres_nor_the_difference() -> None:
    text = "0r 0r 0r 0r 0r 1w 2w 3w 4w 5w"
    plain, first = scored(text), scored(text, first=True)
    for box in [str(v) for v in range(1, 11)] + ["plus", "moins"]:
        assert first[box].points == plain[box].points
        assert all(m.x != 3 for m in first[box].multipliers)
    assert first["10"].points == 100


def test_first_throw_triples_suites() -> None:
    text = "1r 2w 3r 4w 5r 9w 9r 9w 8r 8w"
    assert scored(text, first=True)["suite_ridicule"].points == 30


# ---------------------------------------------------------------------------------------
# Which dice the engine picks
# ---------------------------------------------------------------------------------------


def test_engine_picks_the_three_red_sixes_among_four_sixes() -> None:
    text = "6w 6r 1w 6r 2w 6r 3w 4r 5r 7w"
    by_box = scored(text)
    brelan = by_box["brelan"]
    assert brelan.points == 10
    assert sorted(brelan.dice) == [1, 3, 5]
    # the carré of the four sixes is not one colour: plain
    carre = by_box["carre"]
    assert (carre.points, carre.multipliers) == (10, ())
    assert sorted(carre.dice) == [0, 1, 3, 5]


def test_carre_may_be_taken_from_five_identical_dice() -> None:
    text = "7r 7r 7r 7w 7w 1r 2w 3r 4w 6w"
    by_box = scored(text)
    assert by_box["carre"].points == 10
    assert len(by_box["carre"].dice) == 4
    assert set(by_box["carre"].dice) <= {0, 1, 2, 3, 4}
    assert by_box["youpi_yams"].points == 25


def test_harmonious_groups_are_preferred_over_plain_ones() -> None:
    # three white 2s are harmonious; the mixed three 9s are not
    text = "9r 9r 9w 2w 2w 2w 1r 3r 4r 5w"
    e = scored(text)["brelan"]
    assert e.points == 10
    assert values(text, e.dice) == [2, 2, 2]


def test_finish_and_colour_harmonies_stack_on_a_combination() -> None:
    # double carré: four red frosted 6s and four white transparent 3s
    text = "6rf 6rf 6rf 6rf 3wt 3wt 3wt 3wt 1rt 2wf"
    e = scored(text)["double_carre"]
    assert (e.points, sorted(xs(e))) == (400, [2, 2])


def test_no_harmony_when_one_group_is_mixed() -> None:
    # double brelan: three red 3s, but the 5s are red and white
    text = "3r 3r 3r 5r 5w 5w 1r 2w 4w 6w"
    e = scored(text)["double_brelan"]
    assert (e.points, e.multipliers) == (20, ())


def test_groups_of_different_colours_are_still_harmonious() -> None:
    # each group is one colour, the colours differ between groups
    text = "3r 3r 3r 5w 5w 5w 1r 2w 4r 6w"
    e = scored(text)["double_brelan"]
    assert (e.points, xs(e)) == (40, [2])


# ---------------------------------------------------------------------------------------
# Chiffres
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("v", range(1, 11))
def test_chiffres_count_times_value(v: int) -> None:
    other = 1 if v != 1 else 2
    tok = "0" if v == 10 else str(v)
    oth = "0" if other == 10 else str(other)
    # three of v (two red, one white), the rest another value, no five of one colour there
    text = f"{tok}r {tok}r {tok}w {oth}r {oth}r {oth}r {oth}w {oth}w {oth}w {oth}w"
    by_box = scored(text)
    assert by_box[str(v)].points == 3 * v
    assert by_box[str(v)].base == 3 * v


def test_chiffres_zero_when_no_die_shows_the_value() -> None:
    e = scored("1r 2w 3r 4w 5r 6w 7r 8w 9r 9w")["10"]
    assert (e.points, e.dice) == (0, ())


def test_chiffres_five_of_one_colour_beat_more_dice() -> None:
    # eight 7s, five of them red: the red five score 70, more than 8×7
    e = scored("7r 7r 7r 7r 7r 7w 7w 7w 1w 2w")["7"]
    assert (e.points, e.base, xs(e)) == (70, 35, [2])
    assert len(e.dice) == 5


def test_chiffres_five_frosted_dice_of_mixed_colours_score_the_maximum() -> None:
    e = scored("0rf 0rf 0rf 0wf 0wf 1rt 2wt 3rt 4wt 5wt")["10"]
    assert (e.points, e.base, xs(e)) == (100, 50, [2])


def test_chiffres_harmonies_do_not_stack() -> None:
    e = scored("0rf 0rf 0rf 0rf 0rf 1wt 2wt 3wt 4wt 5wt")["10"]
    assert e.points == 100
    assert xs(e) == [2]


def test_chiffres_five_mixed_dice_score_plainly() -> None:
    e = scored("0rf 0rf 0rt 0wf 0wt 1wt 2wt 3rt 4wf 5rf")["10"]
    assert (e.points, e.multipliers) == (50, ())


def test_chiffres_ten_identical_dice_score_ten_times() -> None:
    assert scored("3r 3r 3r 3r 3r 3w 3w 3w 3w 3w")["3"].points == 30


# ---------------------------------------------------------------------------------------
# Yams
# ---------------------------------------------------------------------------------------

FILLER_RED = ["1r", "2r", "3r", "5r", "6r"]
FILLER_WHITE = ["7w", "8w", "9w", "0w", "1w"]


def of_a_kind_throw(k: int, value: int = 4) -> str:
    """k dice of ``value``, colours split so that no colour holds k of them when k <= 5."""
    reds = (k + 1) // 2 if k <= 5 else min(5, k - k // 2)
    if k <= 5 and reds == k:
        reds = k - 1
    whites = k - reds
    dice = [f"{value}r"] * reds + [f"{value}w"] * whites
    dice += FILLER_RED[: 5 - reds] + FILLER_WHITE[: 5 - whites]
    return " ".join(dice)


@pytest.mark.parametrize(("box", "label", "k", "points"), OF_A_KIND)
def test_each_yams_box_scores_its_legal_points(box: str, label: str, k: int, points: int) -> None:
    text = of_a_kind_throw(k)
    by_box = scored(text)
    e = by_box[box]
    assert (e.points, e.base, e.multipliers) == (points, points, ())
    assert values(text, e.dice) == [4] * k
    assert label in e.why
    bigger = [b for b, _, n, _ in OF_A_KIND if n == k + 1]
    for b in bigger:
        assert by_box[b].points == 0


def test_yams_box_values_match_the_text() -> None:
    assert [(b, p) for b, _, _, p in OF_A_KIND] == [
        ("brelan", 5),
        ("carre", 10),
        ("youpi_yams", 25),
        ("yams_de_rene", 50),
        ("yams_superieur", 100),
        ("giga_yams", 250),
        ("ultra_yams", 400),
        ("yams_impossible", 800),
    ]


def test_red_youpi_yams_scores_50() -> None:
    e = scored("8r 8r 8r 8r 8r 1w 2w 3w 4w 5w")["youpi_yams"]
    assert (e.points, xs(e)) == (50, [2])


def test_no_brelan_without_three_identical_dice() -> None:
    e = scored("1r 1w 2r 2w 3r 3w 4r 4w 5r 5w")["brelan"]
    assert (e.points, e.dice) == (0, ())


# ---------------------------------------------------------------------------------------
# Suites
# ---------------------------------------------------------------------------------------


def run_throw(k: int, start: int = 1) -> str:
    """A run of k values from ``start``, colours alternating, the rest repeats of the start."""
    run = [start + i for i in range(k)]
    tokens = []
    for i, v in enumerate(run):
        tokens.append(f"{0 if v == 10 else v}{'rw'[i % 2]}")
    reds = sum(t.endswith("r") for t in tokens)
    whites = len(tokens) - reds
    tokens += [f"{start}r"] * (5 - reds) + [f"{start}w"] * (5 - whites)
    return " ".join(tokens)


@pytest.mark.parametrize(("box", "label", "k", "points"), RUNS)
def test_each_suite_scores_its_legal_points(box: str, label: str, k: int, points: int) -> None:
    text = run_throw(k)
    by_box = scored(text)
    e = by_box[box]
    assert (e.points, e.base, e.multipliers) == (points, points, ())
    assert sorted(values(text, e.dice)) == list(range(1, k + 1))
    assert len(set(e.dice)) == k
    for b, _, n, _ in RUNS:
        if n > k:
            assert by_box[b].points == 0
        else:
            assert by_box[b].points > 0


def test_suite_values_match_the_text() -> None:
    assert [(b, n, p) for b, _, n, p in RUNS] == [
        ("suite_ridicule", 5, 10),
        ("petite_suite", 6, 25),
        ("suite_de_marcel", 7, 50),
        ("suite_royale", 8, 100),
        ("suite_geante", 9, 200),
        ("the_suite", 10, 400),
    ]


def test_the_suite_uses_every_value() -> None:
    text = "1r 2w 3r 4w 5r 6w 7r 8w 9r 0w"
    by_box = scored(text)
    assert by_box["the_suite"].points == 400
    assert sorted(by_box["the_suite"].dice) == list(range(10))
    assert all(by_box[b].points > 0 for b, _, _, _ in RUNS)


def test_a_suite_may_end_on_ten() -> None:
    e = scored("6r 7w 8r 9w 0r 6w 6r 6w 6r 6w")["suite_ridicule"]
    assert e.points == 10
    assert sorted(values("6r 7w 8r 9w 0r 6w 6r 6w 6r 6w", e.dice)) == [6, 7, 8, 9, 10]


def test_a_suite_does_not_wrap_from_ten_to_one() -> None:
    assert scored("8r 9w 0r 1w 2r 8w 9r 0w 1r 2w")["suite_ridicule"].points == 0


def test_a_red_suite_is_harmonious() -> None:
    e = scored("3r 4r 5r 6r 7r 1w 1w 2w 2w 9w")["suite_ridicule"]
    assert (e.points, xs(e)) == (20, [2])
    assert "harmonie" in e.why


def test_a_frosted_petite_suite_is_harmonious() -> None:
    text = "1rf 2wf 3rf 4wf 5rf 6wf 9rt 9wt 9rt 9wt"
    e = scored(text)["petite_suite"]
    assert (e.points, xs(e)) == (50, [2])
    assert sorted(values(text, e.dice)) == [1, 2, 3, 4, 5, 6]


def test_a_red_frosted_suite_stacks_both_harmonies() -> None:
    e = scored("3rf 4rf 5rf 6rf 7rf 1wt 1wf 2wt 2wf 9wt")["suite_ridicule"]
    assert (e.points, xs(e)) == (40, [2, 2])


def test_four_in_a_row_is_no_suite() -> None:
    assert scored("2r 3r 4r 5r 2w 3w 4w 5w 8r 8w")["suite_ridicule"].points == 0


# ---------------------------------------------------------------------------------------
# Combinaisons
# ---------------------------------------------------------------------------------------

COMBINATION_THROWS = {
    "double_brelan": "3r 3r 3w 5r 5w 5w 1r 7r 2w 9w",
    "triple_brelan": "3r 3r 3w 5r 5w 5w 8r 8w 8w 1r",
    "double_carre": "3r 3r 3w 3w 5r 5r 5w 5w 1r 2w",
    "double_yams": "2r 2r 2r 2w 2w 9r 9r 9w 9w 9w",
    "full_tordu": "3r 3r 3w 3w 5r 5w 5w 8r 8r 8w",
    "grand_full": "4r 4r 4r 4w 4w 4w 9r 9r 9w 9w",
    "full_supreme": "4r 4r 4r 4r 4w 4w 4w 9r 9w 9w",
    "tout_en_paires": "1r 1w 2r 2w 3r 3w 4r 4w 5r 5w",
}
COMBINATION_POINTS = {box: pts for box, _, _, pts in COMBINATIONS}


def test_combination_values_match_the_text() -> None:
    assert COMBINATION_POINTS == {
        "double_brelan": 20,
        "triple_brelan": 100,
        "double_carre": 100,
        "double_yams": 400,
        "full_tordu": 200,
        "grand_full": 250,
        "full_supreme": 350,
        "tout_en_paires": 250,
    }


@pytest.mark.parametrize(("box", "text"), sorted(COMBINATION_THROWS.items()))
def test_each_combination_scores_its_legal_points(box: str, text: str) -> None:
    e = scored(text)[box]
    pts = COMBINATION_POINTS[box]
    assert (e.points, e.base, e.multipliers) == (pts, pts, ())
    sizes = next(s for b, _, s, _ in COMBINATIONS if b == box)
    assert len(e.dice) == sum(sizes)
    assert len(set(e.dice)) == len(e.dice)


@pytest.mark.parametrize(
    ("box", "text"),
    [
        ("double_brelan", "3r 3r 3w 5r 5w 1r 7r 2w 9w 6w"),
        ("triple_brelan", "3r 3r 3w 5r 5w 5w 8r 8w 1w 2r"),
        ("double_carre", "3r 3r 3w 3w 5r 5r 5w 1r 2w 9w"),
        ("double_yams", "2r 2r 2r 2w 2w 9r 9r 9w 9w 1w"),
        ("full_tordu", "3r 3r 3w 5r 5w 5w 8r 8r 8w 1w"),
        ("grand_full", "4r 4r 4r 4w 4w 9r 9r 9w 9w 1w"),
        ("full_supreme", "4r 4r 4r 4r 4w 4w 9r 9w 9w 1w"),
        ("tout_en_paires", "1r 1w 2r 2w 3r 3w 4r 4w 5r 6w"),
    ],
)
def test_each_combination_is_missed_by_one_die(box: str, text: str) -> None:
    e = scored(text)[box]
    assert (e.points, e.dice) == (0, ())


def test_groups_may_share_a_value() -> None:
    # « 2 brelans différents ou identiques »: six 4s make a double brelan, eight a double carré
    by_box = scored("4r 4r 4r 4r 4w 4w 4w 4w 1r 2w")
    assert by_box["double_brelan"].points > 0
    assert by_box["double_carre"].points > 0
    assert by_box["tout_en_paires"].points == 0  # the two other dice differ
    assert scored("4r 4r 4r 4r 4w 4w 1r 2w 3w 5w")["double_brelan"].points == 20


def test_ten_identical_dice_fill_every_combination() -> None:
    by_box = scored("9r 9r 9r 9r 9r 9w 9w 9w 9w 9w")
    for box, _, _, pts in COMBINATIONS:
        assert by_box[box].points >= pts


def test_fulls_need_two_values_option() -> None:
    strict = get_rulebook("impossible", {"fulls_need_two_values": True})
    same = scored("9r 9r 9r 9r 9r 9w 9w 9w 9w 9w", strict)
    assert same["grand_full"].points == 0
    assert same["full_supreme"].points == 0
    assert same["full_tordu"].points == 200  # only the two fulls are concerned
    assert same["double_yams"].points == 800
    two = scored(COMBINATION_THROWS["grand_full"], strict)
    assert two["grand_full"].points == 250
    assert scored(COMBINATION_THROWS["full_supreme"], strict)["full_supreme"].points == 350
    # by default ten identical dice fill them too
    default = scored("9r 9r 9r 9r 9r 9w 9w 9w 9w 9w")
    assert (default["grand_full"].points, default["full_supreme"].points) == (250, 350)


def test_fulls_need_two_values_picks_two_values_among_more() -> None:
    strict = get_rulebook("impossible", {"fulls_need_two_values": True})
    text = "9w 4r 4r 9r 4r 4r 4w 4w 4w 9w"  # seven 4s and three 9s, shuffled
    e = scored(text, strict)["full_supreme"]
    assert e.points == 350
    assert sorted(values(text, e.dice)) == [4] * 7 + [9] * 3


# ---------------------------------------------------------------------------------------
# Plus and moins
# ---------------------------------------------------------------------------------------


def test_plus_and_moins_are_the_sum_of_the_dice() -> None:
    text = "1r 2w 3r 4w 5r 6w 7r 8w 9r 0w"
    by_box = scored(text, first=True)
    for box in ("plus", "moins"):
        assert (by_box[box].points, by_box[box].base, by_box[box].multipliers) == (55, 55, ())
        assert sorted(by_box[box].dice) == list(range(10))


def test_a_low_moins_ranks_high() -> None:
    low = scored("1r 1r 1r 1r 1r 1w 1w 1w 1w 1w")
    high = scored("0r 0r 0r 0r 0r 0w 0w 0w 0w 0w")
    assert low["moins"].points == 10
    assert high["moins"].points == 100
    assert low["moins"].sort_key > high["moins"].sort_key
    assert high["plus"].sort_key > low["plus"].sort_key


def test_score_is_best_first() -> None:
    entries = IMP.score(parse_dice("7r 7r 7r 7r 7w 7w 7w 7w 1r 2w"))
    keys = [e.sort_key for e in entries]
    assert keys == sorted(keys, reverse=True)
    assert entries[0].box == "giga_yams"


# ---------------------------------------------------------------------------------------
# The sixth throw
# ---------------------------------------------------------------------------------------


def test_sixth_throw_lists_every_other_box_at_zero() -> None:
    text = "2r 2r 2r 2w 2w 2w 2r 2w 2r 2w"  # everything would score
    entries = IMP.score(parse_dice(text), sixth="brelan")
    assert entries[0].box == "brelan"
    assert entries[0].points == 5  # the plain legal points, not the harmonious 10
    assert len(entries) == len(IMP.boxes)
    assert {e.box for e in entries} == {b.id for b in IMP.boxes}
    assert all(e.points == 0 and e.base == 0 for e in entries[1:])


def test_successful_sixth_throw_drops_harmonies_by_default() -> None:
    text = "2r 2r 2r 2r 2r 3w 4w 5w 6w 7w"
    chosen = IMP.score(parse_dice(text), sixth="youpi_yams")[0]
    assert (chosen.points, chosen.multipliers) == (25, ())


def test_successful_sixth_throw_keeps_harmonies_with_the_option() -> None:
    rb = get_rulebook("impossible", {"sixth_throw_harmony": True})
    text = "2r 2r 2r 2r 2r 3w 4w 5w 6w 7w"
    chosen = rb.score(parse_dice(text), sixth="youpi_yams")[0]
    assert (chosen.points, chosen.base, xs(chosen)) == (50, 25, [2])
    failed = rb.score(parse_dice("2r 2r 2r 2r 3r 3w 4w 5w 6w 7w"), sixth="youpi_yams")[0]
    assert failed.points == -25


def test_sixth_throw_is_never_a_first_throw() -> None:
    text = "2r 2r 2r 2w 2w 3r 4w 5w 6w 7r"
    with pytest.raises(RulesError):
        IMP.score(parse_dice(text), first=True, sixth="youpi_yams")
    assert IMP.score(parse_dice(text), sixth="youpi_yams")[0].points == 25


@pytest.mark.parametrize(("box", "_label", "_k", "legal"), OF_A_KIND + RUNS + COMBINATIONS)
def test_failed_sixth_throw_scores_minus_the_legal_points(box, _label, _k, legal) -> None:
    # four pairs and two odd dice: no brelan, no suite, no combination
    nothing = "1r 1w 3r 3w 5r 5w 7r 7w 9r 0w"
    chosen = IMP.score(parse_dice(nothing), sixth=box)[0]
    assert (chosen.box, chosen.points, chosen.base) == (box, -legal, legal)
    assert chosen.dice == ()


@pytest.mark.parametrize("box", [str(v) for v in range(1, 11)])
def test_no_sixth_throw_for_the_chiffres(box: str) -> None:
    with pytest.raises(RulesError):
        IMP.score(parse_dice("1r 1w 3r 3w 5r 5w 7r 7w 9r 0w"), sixth=box)
    with pytest.raises(RulesError):
        IMP.check_announce(box)


@pytest.mark.parametrize("box", ["plus", "moins"])
def test_no_sixth_throw_for_plus_and_moins(box: str) -> None:
    with pytest.raises(RulesError):
        IMP.score(parse_dice("1r 1w 3r 3w 5r 5w 7r 7w 9r 0w"), sixth=box)


def test_sixth_throw_for_an_unknown_box() -> None:
    with pytest.raises(RulesError):
        IMP.score(parse_dice("1r 1w 3r 3w 5r 5w 7r 7w 9r 0w"), sixth="chance")


def test_announced_is_the_same_entry_as_score_sixth() -> None:
    dice = parse_dice("2r 2r 2w 2w 1r 3w 4r 5w 6r 7w")
    assert IMP.announced(dice, "carre") == IMP.score(dice, sixth="carre")[0]
    assert IMP.announced(dice, "carre").points == 10


def test_choices_after_an_announced_throw_is_the_announced_entry_only() -> None:
    table = Table([IMP.new_sheet("a")])
    dice = parse_dice("2r 2r 2w 2w 1r 3w 4r 5w 6r 7w")
    got = IMP.choices(table, 0, dice, first=False, announced="youpi_yams")
    assert [(e.box, e.points) for e in got] == [("youpi_yams", -25)]


# ---------------------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "1r 2r 3r 4r 5r 6w 7w 8w 9w",  # 9 dice
        "1r 2r 3r 4r 5r 6w 7w 8w 9w 0w 1w",  # 11 dice
        "1r 2r 3r 4r 5r 6r 7w 8w 9w 0w",  # six red
        "1w 2w 3w 4w 5w 6w 7w 8w 9w 0w",  # no red
        "1r 2r 3r 4r 5r 6w 7w 8w 9w 0",  # one die without colour
        "1 2 3 4 5 6 7 8 9 0",  # no colours at all
        "1rf 2rf 3rf 4rf 5rf 6wf 7wf 8wf 9wf 0w",  # one die without finish
        "1rf 2rt 3r 4r 5r 6w 7w 8w 9w 0w",  # finishes on some dice only
    ],
)
def test_bad_throws_raise_rules_error(text: str) -> None:
    with pytest.raises(RulesError):
        IMP.score(parse_dice(text))


def test_eleven_is_not_a_die() -> None:
    with pytest.raises(NotationError):
        parse_dice("11r 2r 3r 4r 5r 6w 7w 8w 9w 0w")


def test_ten_finished_dice_are_accepted() -> None:
    assert scored("1rf 2rt 3rf 4rt 5rf 6wf 7wt 8wf 9wt 0wf")["plus"].points == 55


def test_unknown_options_and_bad_option_values() -> None:
    with pytest.raises(RulesError):
        get_rulebook("impossible", {"colours": 3})
    with pytest.raises(RulesError):
        get_rulebook("impossible", {"fulls_need_two_values": "yes"})
    with pytest.raises(RulesError):
        get_rulebook("impossible", {"sixth_throw_harmony": 1})
    assert get_rulebook("impossible").options.to_dict() == {
        "fulls_need_two_values": False,
        "sixth_throw_harmony": False,
    }


def test_rulebook_shape() -> None:
    assert isinstance(IMP, Impossible)
    assert (IMP.kind, IMP.dice_count, IMP.max_throws) == ("d10", 10, 5)
    assert len(IMP.boxes) == 10 + 8 + 6 + 8 + 2
    assert len({b.id for b in IMP.boxes}) == len(IMP.boxes)


def test_die_objects_work_as_well_as_text() -> None:
    tokens = ["6r", "6r", "6r", "1w", "2w", "3w", "4w", "5w", "7r", "8r"]
    dice = [Die.from_json(t) for t in tokens]
    assert {e.box: e.points for e in IMP.score(dice)}["brelan"] == 10


# ---------------------------------------------------------------------------------------
# Totals
# ---------------------------------------------------------------------------------------


def totals(cells: dict[str, int]) -> dict[str, int]:
    table = Table([IMP.new_sheet("a")])
    table.sheets[0].cells.update(cells)
    out = IMP.totals(table, 0)
    assert out[-1].key == "total"
    assert IMP.grand_total(table, 0) == out[-1].points
    return {t.key: t.points for t in out}


def test_chiffres_bonus_500_at_330() -> None:
    # « au moins 330 points [...] bonus [...] de 500 points »; six of each value is 330
    six_each = {str(v): 6 * v for v in range(1, 11)}
    assert sum(six_each.values()) == 330
    got = totals(six_each)
    assert (got["chiffres"], got["bonus"], got["total1"]) == (330, 500, 830)
    below = dict(six_each, **{"1": 5})
    got = totals(below)
    assert (got["chiffres"], got["bonus"], got["total1"]) == (329, 0, 329)


def test_section_totals_and_difference() -> None:
    got = totals(
        {
            "1": 3,
            "10": 100,
            "brelan": 10,
            "youpi_yams": -25,
            "suite_ridicule": 30,
            "double_carre": 200,
            "plus": 80,
            "moins": 20,
        }
    )
    assert got["total2"] == -15
    assert got["total3"] == 30
    assert got["total4"] == 200
    # « On multiplie cette différence par le nombre de « 1 » obtenu dans les chiffres »
    assert got["total5"] == (80 - 20) * 3
    assert got["total"] == 103 + (-15) + 30 + 200 + 180


def test_difference_needs_both_plus_and_moins() -> None:
    assert totals({"1": 4, "plus": 80})["total5"] == 0
    assert totals({"plus": 80, "moins": 20})["total5"] == 0
