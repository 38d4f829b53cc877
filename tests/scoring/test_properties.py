"""Properties every rulebook keeps, checked on generated throws (hypothesis)."""

from __future__ import annotations

import math
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.dice import Colour, Die, Finish, NotationError, format_dice, parse_dice
from scoring.entries import Entry
from scoring.rulebooks import get_rulebook
from scoring.rulebooks.base import Rulebook, Table
from scoring.rulebooks.impossible import COMBINATIONS, LEGAL_POINTS, OF_A_KIND, RUNS

FAST = settings(max_examples=150, deadline=None)

IMPOSSIBLES = [
    get_rulebook("impossible"),
    get_rulebook("impossible", {"fulls_need_two_values": True}),
    get_rulebook("impossible", {"sixth_throw_harmony": True}),
]
FIVE_DICE = [
    get_rulebook("yams"),
    get_rulebook("yahtzee"),
    get_rulebook("yams", {"brelan": "matching", "carre": "matching", "straights": "fixed"}),
    get_rulebook("yahtzee", {"carre": "40", "joker": "forced", "joker_after_zero": True}),
]
CAMEROUN = get_rulebook("cameroun")


# ---------------------------------------------------------------------------------------
# Strategies
# ---------------------------------------------------------------------------------------


@st.composite
def impossible_throws(draw) -> list[Die]:
    """Ten d10, five red and five white, in any order; finishes on all dice or on none.

    Values are often drawn from a narrow range so that groups and harmonies turn up.
    """
    low, high = draw(st.sampled_from([(1, 10), (1, 10), (1, 2), (1, 3), (4, 7), (5, 6)]))
    values = draw(st.lists(st.integers(low, high), min_size=10, max_size=10))
    colours = [Colour.RED] * 5 + [Colour.WHITE] * 5
    if draw(st.booleans()):
        finishes = draw(st.lists(st.sampled_from(list(Finish)), min_size=10, max_size=10))
    else:
        finishes = [None] * 10
    dice = [Die(v, c, f) for v, c, f in zip(values, colours, finishes, strict=True)]
    return draw(st.permutations(dice))


@st.composite
def d6_throws(draw) -> list[Die]:
    low, high = draw(st.sampled_from([(1, 6), (1, 6), (2, 3), (1, 2), (4, 6)]))
    return [Die(v) for v in draw(st.lists(st.integers(low, high), min_size=5, max_size=5))]


def any_die() -> st.SearchStrategy[Die]:
    return st.builds(
        Die,
        st.integers(1, 10),
        st.one_of(st.none(), st.sampled_from(list(Colour))),
        st.one_of(st.none(), st.sampled_from(list(Finish))),
    )


# ---------------------------------------------------------------------------------------
# Invariants of entries
# ---------------------------------------------------------------------------------------


def failed_announced(entry: Entry) -> bool:
    return entry.points < 0


def check_entry(entry: Entry, n_dice: int, *, announced: bool = False) -> None:
    product = math.prod(m.x for m in entry.multipliers)
    if announced and failed_announced(entry):
        assert entry.points == -entry.base
        assert entry.multipliers == ()
    else:
        assert entry.points >= 0, entry
        assert entry.points == entry.base * product, entry
    assert all(0 <= i < n_dice for i in entry.dice), entry
    assert len(set(entry.dice)) == len(entry.dice), entry
    assert all(m.x > 1 for m in entry.multipliers)
    assert entry.bonus >= 0


def check_score(rb: Rulebook, entries: list[Entry], n_dice: int) -> None:
    assert sorted(e.box for e in entries) == sorted(b.id for b in rb.boxes)
    for e in entries:
        check_entry(e, n_dice)
        assert e.section == rb.box(e.box).section
    keys = [e.sort_key for e in entries]
    assert keys == sorted(keys, reverse=True)


def points_by_box(entries: list[Entry]) -> dict[str, int]:
    return {e.box: e.points for e in entries}


# ---------------------------------------------------------------------------------------
# Order of the dice never matters
# ---------------------------------------------------------------------------------------


@FAST
@given(impossible_throws(), st.randoms(use_true_random=False), st.booleans())
def test_impossible_order_does_not_matter(dice, rnd, first) -> None:
    shuffled = list(dice)
    rnd.shuffle(shuffled)
    for rb in IMPOSSIBLES:
        assert points_by_box(rb.score(dice, first=first)) == points_by_box(
            rb.score(shuffled, first=first)
        )


@FAST
@given(d6_throws(), st.randoms(use_true_random=False))
def test_five_dice_order_does_not_matter(dice, rnd) -> None:
    shuffled = list(dice)
    rnd.shuffle(shuffled)
    for rb in [*FIVE_DICE, CAMEROUN]:
        assert points_by_box(rb.score(dice)) == points_by_box(rb.score(shuffled))


@FAST
@given(impossible_throws(), st.randoms(use_true_random=False), st.data())
def test_impossible_announced_order_does_not_matter(dice, rnd, data) -> None:
    box = data.draw(st.sampled_from(sorted(LEGAL_POINTS)))
    shuffled = list(dice)
    rnd.shuffle(shuffled)
    for rb in IMPOSSIBLES:
        assert rb.announced(dice, box).points == rb.announced(shuffled, box).points


# ---------------------------------------------------------------------------------------
# Entries keep their promises: points, base, multipliers, dice
# ---------------------------------------------------------------------------------------


@FAST
@given(impossible_throws(), st.booleans())
def test_impossible_entries_are_consistent(dice, first) -> None:
    for rb in IMPOSSIBLES:
        entries = rb.score(dice, first=first)
        check_score(rb, entries, 10)
        for e in entries:
            if e.points and e.box not in ("plus", "moins") and not e.box.isdigit():
                # the dice an entry names make the box: k dice for a yams, a run for a suite
                values = sorted(dice[i].value for i in e.dice)
                if e.section == "suites":
                    assert values == list(range(values[0], values[0] + len(values)))
                elif e.section == "yams":
                    assert len(set(values)) == 1
                if any(m.why.startswith("harmonie des couleurs") for m in e.multipliers):
                    assert e.section in ("suites", "yams", "combinaisons")


@FAST
@given(impossible_throws(), st.data())
def test_impossible_announced_entries(dice, data) -> None:
    box = data.draw(st.sampled_from(sorted(LEGAL_POINTS)))
    for rb in IMPOSSIBLES:
        entries = rb.score(dice, sixth=box)
        chosen, others = entries[0], entries[1:]
        check_entry(chosen, 10, announced=True)
        assert chosen.box == box
        assert all(e.points == 0 for e in others)
        assert len(entries) == len(rb.boxes)
        plain = points_by_box(rb.score(dice))[box]
        legal = LEGAL_POINTS[box]
        if plain == 0:
            assert chosen.points == -legal
        elif rb.options.sixth_throw_harmony:
            assert chosen.points == plain
        else:
            assert chosen.points == legal


@FAST
@given(d6_throws(), st.booleans())
def test_five_dice_entries_are_consistent(dice, first) -> None:
    for rb in [*FIVE_DICE, CAMEROUN]:
        check_score(rb, rb.score(dice, first=first), 5)


@FAST
@given(d6_throws(), st.sampled_from(["1", "2", "3", "4", "5", "6", "P", "G", "F", "Q"]))
def test_cameroun_announced_entries(dice, box) -> None:
    entries = CAMEROUN.score(dice, sixth=box)
    check_entry(entries[0], 5, announced=True)
    assert entries[0].box == box
    assert entries[0].points == points_by_box(CAMEROUN.score(dice))[box]
    assert all(e.points == 0 for e in entries[1:])


@FAST
@given(
    st.lists(st.tuples(st.integers(0, 2), d6_throws()), max_size=12),
    d6_throws(),
)
def test_cameroun_choices_in_a_game(turns, dice) -> None:
    """Whatever was written before, choices keep the entry invariants and the caps."""
    table = Table([CAMEROUN.new_sheet(p) for p in "ABC"])
    for player, throw in turns:
        got = CAMEROUN.choices(table, player, throw, first=False, announced=None)
        if got:
            CAMEROUN.record(table, player, got[0])
    for v in range(1, 7):
        assert CAMEROUN.column_total(table, str(v)) <= 6 * v
    for player in range(3):
        for e in CAMEROUN.choices(table, player, dice, first=False, announced=None):
            check_entry(e, 5)
            assert e.box not in table.closed
            if e.box.isdigit():
                assert CAMEROUN.column_total(table, e.box) + e.points <= 6 * int(e.box)


@FAST
@given(
    d6_throws(),
    st.dictionaries(
        st.sampled_from(["1", "2", "3", "4", "5", "6", "full", "petite_suite", "chance"]),
        st.integers(0, 30),
        max_size=8,
    ),
    st.sampled_from([None, 0, 50]),
)
def test_five_dice_choices_in_a_game(dice, cells, yams_cell) -> None:
    for rb in FIVE_DICE:
        table = Table([rb.new_sheet("a")])
        table.sheets[0].cells.update(cells)
        if yams_cell is not None:
            table.sheets[0].cells["yams"] = yams_cell
        got = rb.choices(table, 0, dice, first=False, announced=None)
        assert got, "a player always has somewhere to write"
        for e in got:
            check_entry(e, 5)
            assert e.box not in table.sheets[0].cells
        if len({d.value for d in dice}) > 1 or yams_cell != 50:
            assert all(e.bonus == 0 for e in got)
        else:
            assert all(e.bonus == rb.options.yams_bonus for e in got)


# ---------------------------------------------------------------------------------------
# Notation
# ---------------------------------------------------------------------------------------


@FAST
@given(st.lists(any_die(), min_size=1, max_size=12))
def test_notation_round_trip(dice) -> None:
    text = format_dice(dice)
    assert parse_dice(text) == tuple(dice)
    assert parse_dice(text.replace(" ", ",")) == tuple(dice)
    assert [Die.from_json(d.to_json()) for d in dice] == dice
    assert [Die.from_json(str(d)) for d in dice] == dice


@FAST
@given(st.text(alphabet="0123456789rwftqx ,", max_size=20))
def test_any_text_parses_or_raises_notation_error(text) -> None:
    try:
        dice = parse_dice(text)
    except NotationError:
        return
    assert dice
    assert all(1 <= d.value <= 10 for d in dice)
    assert parse_dice(format_dice(dice)) == dice


# ---------------------------------------------------------------------------------------
# An independent reading of seed 000, box by box, against the engine
# ---------------------------------------------------------------------------------------


def _fits(counts: list[int], sizes: list[int]) -> bool:
    """Can groups of these sizes be cut from classes of these sizes? (plain search)"""
    if not sizes:
        return True
    for j, c in enumerate(counts):
        if c >= sizes[0]:
            counts[j] -= sizes[0]
            ok = _fits(counts, sizes[1:])
            counts[j] += sizes[0]
            if ok:
                return True
    return False


def reference_points(dice: list[Die], first: bool, fulls_two_values: bool) -> dict[str, int]:
    finished = all(d.finish for d in dice)
    levels = [(lambda d: (d.colour,), 2), (lambda d: (), 1)]
    if finished:
        levels = [
            (lambda d: (d.colour, d.finish), 4),
            levels[0],
            (lambda d: (d.finish,), 2),
            levels[1],
        ]
    times = 3 if first else 1
    out: dict[str, int] = {}
    for v in range(1, 11):
        count = sum(d.value == v for d in dice)
        five_alike = any(
            n >= 5 for (w, _), n in Counter((d.value, d.colour) for d in dice).items() if w == v
        )
        if finished:
            five_alike |= any(
                n >= 5 for (w, _), n in Counter((d.value, d.finish) for d in dice).items() if w == v
            )
        out[str(v)] = 10 * v if count >= 5 and five_alike else count * v
    for box, _, k, pts in OF_A_KIND:
        out[box] = next(
            (
                pts * x * times
                for key, x in levels
                if max(Counter((d.value, key(d)) for d in dice).values()) >= k
            ),
            0,
        )
    for box, _, k, pts in RUNS:
        out[box] = 0
        for key, x in levels:
            by_attr: dict[tuple, set[int]] = {}
            for d in dice:
                by_attr.setdefault(key(d), set()).add(d.value)
            if any(
                all(w in present for w in range(s, s + k))
                for present in by_attr.values()
                for s in range(1, 12 - k)
            ):
                out[box] = pts * x * times
                break
    for box, _, sizes, pts in COMBINATIONS:
        out[box] = 0
        for key, x in levels:
            classes = Counter((d.value, key(d)) for d in dice)
            if fulls_two_values and box in ("grand_full", "full_supreme"):
                ok = any(
                    a[0] != b[0] and classes[a] >= sizes[0] and classes[b] >= sizes[1]
                    for a in classes
                    for b in classes
                )
            else:
                ok = _fits(list(classes.values()), list(sizes))
            if ok:
                out[box] = pts * x * times
                break
    out["plus"] = out["moins"] = sum(d.value for d in dice)
    return out


@settings(max_examples=200, deadline=None)
@given(impossible_throws(), st.booleans())
def test_impossible_matches_an_independent_reading(dice, first) -> None:
    for rb in IMPOSSIBLES[:2]:
        got = points_by_box(rb.score(dice, first=first))
        assert got == reference_points(dice, first, rb.options.fulls_need_two_values)


def reference_five_dice(values: list[int], options: dict) -> dict[str, int]:
    counts = Counter(values)
    top_count = max(counts.values())
    top = max(v for v, n in counts.items() if n == top_count)
    total = sum(values)
    present = set(values)
    out = {str(v): counts[v] * v for v in range(1, 7)}
    rules = {"brelan": (3, options["brelan"]), "carre": (4, options["carre"])}
    for box, (need, rule) in rules.items():
        if top_count < need:
            out[box] = 0
        else:
            out[box] = {"sum": total, "matching": need * top, "40": 40}[rule]
    out["full"] = 25 if sorted(counts.values()) == [2, 3] else 0
    if options["straights"] == "runs":
        fours = any({s, s + 1, s + 2, s + 3} <= present for s in (1, 2, 3))
        out["petite_suite"] = 30 if fours else 0
        out["grande_suite"] = 40 if len(present) == 5 and max(present) - min(present) == 4 else 0
    else:
        out["petite_suite"] = 30 if present == {1, 2, 3, 4, 5} else 0
        out["grande_suite"] = 40 if present == {2, 3, 4, 5, 6} else 0
    out["yams"] = 50 if top_count == 5 else 0
    out["chance"] = total
    return out


@FAST
@given(d6_throws())
def test_five_dice_matches_an_independent_reading(dice) -> None:
    values = [d.value for d in dice]
    for rb in FIVE_DICE:
        got = points_by_box(rb.score(dice))
        assert got == reference_five_dice(values, rb.options.to_dict())
