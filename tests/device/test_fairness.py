"""Dice fairness: the chi-square p-value against exact values, and the verdict on dice
thrown for real through the records (a loaded die is named, fair dice are not)."""

from __future__ import annotations

import math
import random
from pathlib import Path

import pytest

from device.chisquare import chi2_sf, chi_square, upper_gamma
from device.fairness import ENOUGH, fairness, number
from device.storage import Store
from scoring.dice import Colour, Die, Finish
from scoring.game import Game


def _even(x: float, df: int) -> float:
    """The closed form for an even number of degrees of freedom."""
    m, y = df // 2, x / 2
    return math.exp(-y) * sum(y**i / math.factorial(i) for i in range(m))


@pytest.mark.parametrize("df", [2, 4, 6, 10, 20])
@pytest.mark.parametrize("x", [0.01, 0.5, 1.0, 3.0, 9.0, 17.5, 40.0, 90.0])
def test_even_degrees_match_the_closed_form(x: float, df: int) -> None:
    assert chi2_sf(x, df) == pytest.approx(_even(x, df), rel=1e-10, abs=1e-300)


@pytest.mark.parametrize("x", [0.001, 0.3, 2.0, 3.841459, 12.0, 60.0])
def test_odd_degrees_match_erfc(x: float) -> None:
    one = math.erfc(math.sqrt(x / 2))
    three = one + math.sqrt(2 * x / math.pi) * math.exp(-x / 2)
    assert chi2_sf(x, 1) == pytest.approx(one, rel=1e-10)
    assert chi2_sf(x, 3) == pytest.approx(three, rel=1e-10)


@pytest.mark.parametrize(
    ("x", "df", "p"),
    [(3.841459, 1, 0.05), (11.070498, 5, 0.05), (15.086272, 5, 0.01),
     (16.918978, 9, 0.05), (21.665994, 9, 0.01), (27.877165, 9, 0.001)],
)  # fmt: skip
def test_the_tables_critical_values(x: float, df: int, p: float) -> None:
    assert chi2_sf(x, df) == pytest.approx(p, rel=1e-5)


def test_edges_and_refusals() -> None:
    assert chi2_sf(0, 5) == 1.0
    assert upper_gamma(3, 1e6) == 0.0
    assert chi_square([10] * 6) == (0.0, 5, 1.0)
    statistic, df, p = chi_square([20, 10, 10, 10, 10, 0])
    assert (statistic, df) == (20.0, 5) and p == pytest.approx(chi2_sf(20, 5))
    with pytest.raises(ValueError):
        upper_gamma(0, 1)


def play_impossible(
    store: Store, rng: random.Random, games: int, loaded: int | None, turns: int = 20
) -> None:
    """Turns of Yams impossible typed in from real dice: one throw each, written at once;
    die ``loaded`` (a place) shows 1 half of the time."""
    looks = [(Colour.RED, Finish.FROSTED)] * 3 + [(Colour.RED, Finish.TRANSPARENT)] * 2
    looks += [(Colour.WHITE, Finish.FROSTED)] * 2 + [(Colour.WHITE, Finish.TRANSPARENT)] * 3
    for _ in range(games):
        game = Game("impossible", ["Ana"])
        gid = store.create(game)
        for _ in range(turns):
            values = [rng.randint(1, 10) for _ in looks]
            if loaded is not None and rng.random() < 0.5:
                values[loaded] = 1
            game.throw([Die(v, c, f) for v, (c, f) in zip(values, looks, strict=True)])
            store.append(gid, game, source="manual")
            game.score(game.choices()[0].box)
            store.append(gid, game)


def test_a_loaded_die_is_named_and_fair_dice_are_not(tmp_path: Path) -> None:
    rng = random.Random(3)
    fair = Store(tmp_path / "fair.db", table="fair")
    play_impossible(fair, rng, 12, None)
    report = fairness(fair, "fair")
    places = [g for g in report["groups"] if g["place"] is not None]
    assert len(places) == 10 and all(g["throws"] == 240 and g["enough"] for g in places)
    assert report["said"]["fr"].startswith("Aucun dé ne s'écarte du hasard")

    loaded = Store(tmp_path / "loaded.db", table="loaded")
    play_impossible(loaded, rng, 12, loaded=2)
    report = fairness(loaded, "loaded")
    said = report["said"]["fr"]
    assert said.startswith(
        "Le dé n°3 (rouge givré) sort le 1 trop souvent : p < 0,001 sur 240 jets"
    )
    assert report["said"]["en"].startswith("Die no. 3 (red frosted) shows 1 too often")
    [third] = [g for g in report["groups"] if g["place"] == 2]
    assert third["counts"][0] > 100 and third["p"] < 1e-10
    sets = {g["look"]: g for g in report["groups"] if g["place"] is None}
    assert sets["rf"]["throws"] == 720 and sets[None]["throws"] == 2400


def test_too_few_throws_say_how_many_are_needed(tmp_path: Path) -> None:
    store = Store(tmp_path / "r.db")
    play_impossible(store, random.Random(1), 1, None, turns=4)
    report = fairness(store, "")
    assert not any(g["enough"] for g in report["groups"])
    assert report["said"]["fr"] == (
        f"Pas encore assez de jets confirmés pour juger les dés (40 sur les "
        f"{number(ENOUGH * 10, 'fr')} qu'il faut à chaque dé)."
    )
    assert fairness(Store(tmp_path / "empty.db"), None)["groups"] == []


def test_numbers_are_written_as_each_language_does() -> None:
    assert number(1840, "fr") == "1\u202f840" and number(1840, "en") == "1,840"
    assert number(0.002, "fr", 3) == "0,002"
