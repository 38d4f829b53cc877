"""The strategy advisor: the widget on hand-computable turns, the engine-read tables, the
cache, the advice, and (marked ``slow``: one full solve each, ~5-20 s on 2 cores) the
published optima.

Deselect the full solves with ``pytest -m "not slow"``.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from scoring.advisor import UnsupportedRulebook, advise, forget, solve
from scoring.advisor import cache as advisor_cache
from scoring.advisor.five_dice import strategy as strategy_module
from scoring.advisor.five_dice.states import upper_reach
from scoring.advisor.five_dice.tables import build_tables
from scoring.advisor.five_dice.widget import values_of, widget
from scoring.dice import Die
from scoring.entries import RulesError
from scoring.rulebooks import get_rulebook
from scoring.rulebooks.base import Table

OFFICIAL = {"joker": "forced", "joker_after_zero": True, "yams_bonus": 100}
FREE = {"joker": "free", "joker_after_zero": True, "yams_bonus": 100}
VERHOEFF = {"joker": "verhoeff", "joker_after_zero": True, "yams_bonus": 100}
P_SIX_IN_THREE = Fraction(91, 216)  # one die shows a six within three throws, sixes kept


def only_open(rulebook, *open_boxes, cells=None):
    """A sheet with every box written (0 unless given in ``cells``) except ``open_boxes``."""
    return {b.id: 0 for b in rulebook.boxes if b.id not in open_boxes} | (cells or {})


@pytest.fixture(autouse=True)
def _fresh_memory():
    forget()
    yield
    forget()


@pytest.fixture(scope="module")
def yams_rb():
    return get_rulebook("yams")


@pytest.fixture(scope="module")
def yams_tables(yams_rb):
    return build_tables(yams_rb)


@pytest.fixture(scope="module")
def last_turns(yams_rb):
    """The classic game solved for its last turns only (seconds, not a full solve)."""
    return solve(yams_rb, min_filled=12)


@pytest.fixture(scope="module")
def official():
    """Official Yahtzee solved for its last two turns."""
    rb = get_rulebook("yahtzee", OFFICIAL)
    return rb, solve(rb, min_filled=11)


@pytest.fixture
def quick_tables(monkeypatch, yams_rb, yams_tables):
    """Cache tests rebuild often: reuse the classic tables (asking the engine takes ~2 s)."""

    def build(rulebook):
        assert rulebook.options == yams_rb.options
        return yams_tables

    monkeypatch.setattr(strategy_module, "build_tables", build)


# -- the widget -----------------------------------------------------------------------


def test_widget_counts():
    w = widget()
    assert w.keeps.shape == (462, 6)
    assert w.rolls.shape == (252, 6)
    assert (w.rolls.sum(axis=1) == 5).all()
    assert np.count_nonzero(w.transition) == 4368
    assert np.allclose(w.transition.sum(axis=1), 1.0)
    assert w.first_throw[w.roll_of((6, 6, 6, 6, 6))] == pytest.approx(1 / 7776)
    assert w.first_throw[w.roll_of((1, 2, 3, 4, 5))] == pytest.approx(120 / 7776)


def test_widget_steps_match_the_transition_matrix():
    w = widget()
    rolls = np.random.default_rng(1).random((252, 7))
    keeps = w.keep_values(rolls)
    assert np.allclose(keeps, w.transition @ rolls)
    best = w.best_keep_values(keeps.copy())
    assert np.array_equal(best, keeps[w.sub].max(axis=1))


def test_widget_chance_turn_is_seventy_thirds():
    """One die, three throws, keep what beats re-rolling: 3.5, then 4.25, then 14/3."""
    e = Fraction(7, 2)
    for _ in range(2):
        e = sum((max(Fraction(f), e) for f in range(1, 7)), Fraction(0)) / 6
    assert 5 * e == Fraction(70, 3)
    total = np.array([sum(values_of(r)) for r in widget().rolls], dtype=float)
    assert widget().turn_values(total[:, None])[0] == pytest.approx(70 / 3, abs=1e-12)


# -- tables read from the engine ------------------------------------------------------


def test_tables_are_the_engines_scores(yams_rb, yams_tables):
    t = yams_tables
    w = widget()
    table = Table([yams_rb.new_sheet("p")])
    for dice in ((3, 3, 3, 5, 5), (1, 2, 3, 4, 6), (6, 6, 6, 6, 6), (2, 2, 4, 5, 6)):
        r = w.roll_of(dice)
        entries = yams_rb.choices(table, 0, [Die(v) for v in dice], first=False, announced=None)
        for e in entries:
            assert t.base_points[r, t.box_ids.index(e.box)] == e.points
    assert len(t.dep_rolls) == 0 and not t.flag_matters  # no prime, no joker in classic Yam's


def test_a_further_yams_is_state_dependent_in_official_yahtzee(official):
    t = official[1].tables
    yams_rolls = sorted(widget().roll_of((v,) * 5) for v in range(1, 7))
    assert sorted(t.dep_rolls.tolist()) == yams_rolls
    assert t.flag_matters  # 50 earns the prime, 0 does not


def test_unreachable_upper_pairs(yams_tables):
    assert int((~upper_reach(yams_tables)).sum()) == 1302


def test_unsupported_rulebooks():
    with pytest.raises(UnsupportedRulebook):
        build_tables(get_rulebook("yams", {"in_order": True}))
    with pytest.raises(UnsupportedRulebook):
        build_tables(get_rulebook("impossible"))


# -- last turns, exactly --------------------------------------------------------------


def test_last_turn_values(yams_rb, last_turns):
    assert last_turns.value(only_open(yams_rb, "chance")) == pytest.approx(70 / 3, abs=1e-9)
    p_yams = 2_783_176 / 6**10  # five of a kind within three throws
    assert last_turns.value(only_open(yams_rb, "yams")) == pytest.approx(50 * p_yams, abs=1e-9)
    sixes = 6 * 5 * P_SIX_IN_THREE
    assert last_turns.value(only_open(yams_rb, "6")) == pytest.approx(float(sixes), abs=1e-9)


def test_last_turn_upper_bonus(yams_rb, last_turns):
    """33 in the upper boxes and only the sixes open: the 35 comes with five sixes."""
    sheet = only_open(yams_rb, "6", cells={"1": 3, "2": 6, "3": 9, "4": 12, "5": 3})
    expect = 6 * 5 * P_SIX_IN_THREE + 35 * P_SIX_IN_THREE**5
    assert last_turns.value(sheet) == pytest.approx(float(expect), abs=1e-9)
    past = only_open(yams_rb, "6", cells={"4": 20, "5": 25, "3": 18})  # 63: no more
    assert last_turns.value(past) == pytest.approx(float(6 * 5 * P_SIX_IN_THREE), abs=1e-9)


def test_box_worth_agrees_with_the_vectorised_final_values(official):
    solver = official[1].solver
    rng = np.random.default_rng(7)
    for _ in range(30):
        shut = rng.choice(13, size=11, replace=False)
        mask = int(sum(1 << int(b) for b in shut))
        slot = int(rng.integers(2)) if mask >> 11 & 1 else 0
        upper = int(rng.choice(np.flatnonzero(solver.reach[mask & 0b111111])))
        worth = solver.box_worth(mask, slot, upper).max(axis=1)
        final = solver.final_values(*(np.array([x]) for x in (mask, slot, upper)))[:, 0]
        assert np.allclose(worth, final)


# -- advice ---------------------------------------------------------------------------


def test_four_sixes_with_only_the_yams_open(yams_rb, last_turns):
    sheet = only_open(yams_rb, "yams")
    for throws_left, p in ((1, 1 / 6), (2, 11 / 36)):
        a = advise(yams_rb, sheet, [6, 2, 6, 6, 6], throws_left, strategy=last_turns)
        assert a.best.keep == (6, 6, 6, 6)
        assert a.best.dice == (0, 2, 3, 4)
        assert a.expected == pytest.approx(50 * p)
        assert a.fill == {"yams": pytest.approx(1.0)}
        assert a.keeps[-1].loss > 0 and all(k.loss >= 0 for k in a.keeps)
    final = advise(yams_rb, sheet, [6, 2, 6, 6, 6], 0, strategy=last_turns)
    assert final.keeps == () and final.best.box == "yams" and final.best.points == 0


def test_chance_advice_keeps_fives_and_sixes(yams_rb, last_turns):
    sheet = only_open(yams_rb, "chance")
    a = advise(yams_rb, sheet, [1, 2, 4, 5, 6], 2, strategy=last_turns)
    assert a.best.keep == (5, 6)
    assert a.expected == pytest.approx(11 + 3 * 4.25)
    a = advise(yams_rb, sheet, [1, 2, 4, 5, 6], 1, strategy=last_turns)
    assert a.best.keep == (4, 5, 6)
    assert a.expected == pytest.approx(15 + 2 * 3.5)
    keep_all = next(k for k in a.keeps if len(k.keep) == 5)
    assert keep_all.expected == pytest.approx(18)
    assert [b.box for b in a.boxes] == ["chance"] and a.boxes[0].expected == pytest.approx(18)


def test_advice_counts_the_sheet_and_the_fill_probabilities(yams_rb, last_turns):
    sheet = only_open(yams_rb, "full", "yams", cells={"1": 3, "2": 6})
    a = advise(yams_rb, sheet, [3, 3, 3, 5, 5], 2, strategy=last_turns)
    assert a.total_now == 9
    # full now scores 25; the yams box still takes the next turn's best
    assert a.best.box == "full" and a.best.points == 25
    assert a.fill == {"full": 1.0, "yams": 0.0}
    for k in a.keeps:
        assert sum(k.fill.values()) == pytest.approx(1.0)
    assert a.to_json()["best"]["box"] == "full"


def test_advice_refuses_impossible_sheets(yams_rb, last_turns):
    with pytest.raises(RulesError, match="no game"):  # the aces alone cannot total 7
        advise(yams_rb, {"1": 7}, [1] * 5, 0, strategy=last_turns)
    with pytest.raises(RulesError, match="full"):
        advise(yams_rb, only_open(yams_rb), [1] * 5, 0, strategy=last_turns)
    with pytest.raises(RulesError, match="solved only"):
        advise(yams_rb, {}, [1] * 5, 0, strategy=last_turns)
    with pytest.raises(RulesError):
        advise(yams_rb, only_open(yams_rb, "chance"), [1] * 5, 3, strategy=last_turns)


def test_forced_joker_offers_only_the_upper_box(official):
    rb, strategy = official
    a = advise(rb, only_open(rb, "6", "full", cells={"yams": 50}), [6] * 5, 0, strategy=strategy)
    assert [(b.box, b.points, b.bonus) for b in a.boxes] == [("6", 30, 100)]


# -- cache ----------------------------------------------------------------------------


def test_cache_round_trip(tmp_path, yams_rb, quick_tables):
    first = solve(yams_rb, tmp_path, min_filled=12)
    assert not first.from_cache
    assert len(list(tmp_path.glob("*.npz"))) == 1
    forget()
    again = solve(yams_rb, tmp_path, min_filled=12)
    assert again.from_cache
    assert np.array_equal(again.values, first.values, equal_nan=True)
    assert again.tables.arrays().keys() == first.tables.arrays().keys()


@pytest.mark.parametrize("damage", ["garbage", "truncate", "flip", "stale"])
def test_a_bad_cache_file_is_rebuilt(tmp_path, yams_rb, damage, quick_tables):
    good = solve(yams_rb, tmp_path, min_filled=12)
    (path,) = tmp_path.glob("*.npz")
    data = path.read_bytes()
    if damage == "garbage":
        path.write_bytes(b"not a numpy file")
    elif damage == "truncate":
        path.write_bytes(data[: len(data) // 2])
    elif damage == "flip":  # one value changed, archive still well formed
        arrays = dict(np.load(path))
        key, digest = str(arrays.pop("_key")), str(arrays.pop("_digest"))
        arrays["values"][-2, 0, 0] += 1.0  # only the ones open: a solved state
        np.savez(path, _key=np.array(key), _digest=np.array(digest), **arrays)
    else:  # the right name, but written for another key
        advisor_cache.save(path, good.key.replace('"format": 1', '"format": 0'), good.arrays())
    forget()
    rebuilt = solve(yams_rb, tmp_path, min_filled=12)
    assert not rebuilt.from_cache
    assert np.array_equal(rebuilt.values, good.values, equal_nan=True)
    forget()
    assert solve(yams_rb, tmp_path, min_filled=12).from_cache  # and the file is good again


def test_cache_key_follows_options_and_rulebook(yams_rb):
    keys = {
        advisor_cache.cache_key(yams_rb, 0),
        advisor_cache.cache_key(get_rulebook("yams", {"brelan": "matching"}), 0),
        advisor_cache.cache_key(get_rulebook("yahtzee", OFFICIAL), 0),
        advisor_cache.cache_key(yams_rb, 12),
    }
    assert len(keys) == 4


# -- the published optima (full solves) -----------------------------------------------


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("advisor-cache")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("rulebook", "expected"),
    [
        pytest.param(lambda: get_rulebook("yams"), 245.8708, id="yams"),
        pytest.param(lambda: get_rulebook("yahtzee", OFFICIAL), 254.5877, id="official-forced"),
        pytest.param(lambda: get_rulebook("yahtzee", VERHOEFF), 254.5896, id="verhoeff-free"),
        # seed 004's joker also fills Full and the suites while the face's own upper box
        # is open, which Verhoeff's free-choice joker does not: worth 0.1217 points.
        pytest.param(lambda: get_rulebook("yahtzee", FREE), 254.7113, id="seed-free"),
    ],
)
def test_published_optimum(rulebook, expected, cache_dir):
    rb = rulebook()
    strategy = solve(rb, cache_dir)
    assert round(strategy.expected_score, 4) == expected
    forget()
    loaded = solve(rb, cache_dir)
    assert loaded.from_cache and loaded.expected_score == strategy.expected_score


@pytest.mark.slow
def test_full_game_advice(cache_dir):
    rb = get_rulebook("yahtzee", OFFICIAL)
    strategy = solve(rb, cache_dir)
    a = advise(rb, {}, [6, 6, 6, 6, 6], 2, strategy=strategy)
    assert a.best.box == "yams" and a.expected > strategy.expected_score
    a = advise(rb, {}, [1, 2, 3, 4, 5], 0, strategy=strategy)
    assert a.best.box == "grande_suite"
    assert a.boxes[0].expected == pytest.approx(a.expected)
    assert sum(a.fill.values()) == pytest.approx(1.0)
