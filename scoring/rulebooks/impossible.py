"""« Le Yams impossible »: ten d10, five red and five white, harmonies (seed 000).

Readings of the text are in docs/rules.md; the short form:

* a combination's dice are chosen among the throw so that the box scores most: harmonies
  are looked for first (every group of one colour, of one finish, or both), then plain;
* a group of k identical dice may be taken from more (a Carré from five 7s), and the groups
  of a combination may share a value (« différents ou identiques »);
* ×3 for the first throw and the harmonies apply to the yams, suites and combinaisons;
  the chiffres only know their own harmony (five identical dice of one colour score the
  box's maximum, ten times the value); the différence (plus, moins) has no multiplier.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from scoring.dice import Colour, Die
from scoring.entries import Box, Entry, Multiplier, RulesError
from scoring.rulebooks.base import Options, Rulebook, Table, Total, option

CHIFFRES, YAMS, SUITES, COMBINAISONS, DIFFERENCE = (
    "chiffres",
    "yams",
    "suites",
    "combinaisons",
    "difference",
)
BONUS_THRESHOLD, BONUS = 330, 500
MEAN_SUM = 55  # the mean sum of ten d10

# box id, French label, dice needed (groups of identical dice, or run length), legal points
OF_A_KIND = (
    ("brelan", "Brelan", 3, 5),
    ("carre", "Carré", 4, 10),
    ("youpi_yams", "Youpi Yams", 5, 25),
    ("yams_de_rene", "Yams de René", 6, 50),
    ("yams_superieur", "Yams Supérieur", 7, 100),
    ("giga_yams", "Giga Yams", 8, 250),
    ("ultra_yams", "Ultra Yams", 9, 400),
    ("yams_impossible", "Yams Impossible", 10, 800),
)
RUNS = (
    ("suite_ridicule", "Suite Ridicule", 5, 10),
    ("petite_suite", "Petite Suite", 6, 25),
    ("suite_de_marcel", "Suite de Marcel", 7, 50),
    ("suite_royale", "Suite Royale", 8, 100),
    ("suite_geante", "Suite Géante", 9, 200),
    ("the_suite", "The Suite", 10, 400),
)
COMBINATIONS = (
    ("double_brelan", "Double Brelan", (3, 3), 20),
    ("triple_brelan", "Triple Brelan", (3, 3, 3), 100),
    ("double_carre", "Double Carré", (4, 4), 100),
    ("double_yams", "Double Yams", (5, 5), 400),
    ("full_tordu", "Full Tordu", (4, 3, 3), 200),
    ("grand_full", "Grand Full", (6, 4), 250),
    ("full_supreme", "Full Suprême", (7, 3), 350),
    ("tout_en_paires", "Tout en Paires", (2, 2, 2, 2, 2), 250),
)
FULLS = ("grand_full", "full_supreme")
LEGAL_POINTS = {box: pts for box, _, _, pts in OF_A_KIND + RUNS + COMBINATIONS}

BOXES = (
    *(Box(str(v), CHIFFRES, f"Les {v}") for v in range(1, 11)),
    *(Box(b, YAMS, label) for b, label, _, _ in OF_A_KIND),
    *(Box(b, SUITES, label) for b, label, _, _ in RUNS),
    *(Box(b, COMBINAISONS, label) for b, label, _, _ in COMBINATIONS),
    Box("plus", DIFFERENCE, "Plus"),
    Box("moins", DIFFERENCE, "Moins"),
)

FIRST = Multiplier(3, "premier jet")
COLOUR_HARMONY = Multiplier(2, "harmonie des couleurs")
FINISH_HARMONY = Multiplier(2, "harmonie givré/transparent")


@dataclass(frozen=True)
class ImpossibleOptions(Options):
    fulls_need_two_values: bool = option(
        False,
        "Grand Full and Full Suprême need two different values (by default ten identical "
        "dice fill them too, as they fill every combination).",
    )
    sixth_throw_harmony: bool = option(
        False,
        "A successful sixth throw keeps its harmonies (by default it scores the plain "
        "« points légaux »).",
    )


@dataclass(frozen=True, slots=True)
class _Level:
    """One way of grouping dice: by value only, or by value and colour and/or finish."""

    multipliers: tuple[Multiplier, ...]
    attr: Callable[[Die], tuple]
    words: Callable[[Die], str]


def _plural(word: str) -> str:
    return word if word.endswith("s") else word + "s"


_LEVELS_WITH_FINISH = (
    _Level(
        (COLOUR_HARMONY, FINISH_HARMONY),
        lambda d: (d.colour, d.finish),
        lambda d: f" {_plural(d.colour.french)} {_plural(d.finish.french)}",
    ),
    _Level((COLOUR_HARMONY,), lambda d: (d.colour,), lambda d: f" {_plural(d.colour.french)}"),
    _Level((FINISH_HARMONY,), lambda d: (d.finish,), lambda d: f" {_plural(d.finish.french)}"),
    _Level((), lambda d: (), lambda d: ""),
)
_LEVELS_COLOUR_ONLY = (_LEVELS_WITH_FINISH[1], _LEVELS_WITH_FINISH[3])


def _assign(caps: list[int], sizes: Sequence[int], start: int, out: list[int]) -> bool:
    """Give each group (largest first) a class with room for it; backtrack on failure.

    Classes with the same room left are interchangeable, so only one of them is tried.
    """
    if start == len(sizes):
        return True
    need = sizes[start]
    tried: set[int] = set()
    for c, cap in enumerate(caps):
        if cap < need or cap in tried:
            continue
        tried.add(cap)
        caps[c] -= need
        out.append(c)
        if _assign(caps, sizes, start + 1, out):
            return True
        caps[c] += need
        out.pop()
    return False


class _Throw:
    """A throw prepared once for all boxes: dice indices by value and by each grouping."""

    def __init__(self, dice: Sequence[Die]) -> None:
        self.dice = dice
        self.levels = _LEVELS_WITH_FINISH if all(d.finish for d in dice) else _LEVELS_COLOUR_ONLY
        # per level: class keys (value, attributes...), their sizes and member indices,
        # largest classes first and higher values first among equals: stable picks
        self.classes: list[tuple[list[tuple], list[int], list[list[int]]]] = []
        # per level: maximal runs of values sharing the level's attributes
        self.spans: list[list[tuple[int, int, dict[int, int]]]] = []
        for level in self.levels:
            classes: dict[tuple, list[int]] = defaultdict(list)
            by_attr: dict[tuple, dict[int, int]] = defaultdict(dict)
            for i, d in enumerate(dice):
                attr = level.attr(d)
                classes[(d.value, *attr)].append(i)
                by_attr[attr].setdefault(d.value, i)
            ordered = sorted(classes.items(), key=lambda kv: (-len(kv[1]), -kv[0][0]))
            self.classes.append(
                ([k for k, _ in ordered], [len(m) for _, m in ordered], [m for _, m in ordered])
            )
            self.spans.append([span for first in by_attr.values() for span in _spans(first)])

    def groups(self, sizes: Sequence[int], distinct: bool = False):
        """The best grouping of the dice into groups of identical dice of these sizes.

        Returns (level, [index tuples]) or None when the dice hold no such groups.
        """
        for level, (keys, sizes_of, members) in zip(self.levels, self.classes, strict=True):
            if sizes_of[0] < sizes[0] or len(self.dice) < sum(sizes):
                continue
            out: list[int] = []
            if not _assign(list(sizes_of), sizes, 0, out):
                continue
            if distinct and len({keys[c][0] for c in out}) < len(out):
                out = _distinct(keys, sizes_of, sizes)
                if not out:
                    continue
            taken: dict[int, int] = defaultdict(int)
            picked = []
            for size, c in zip(sizes, out, strict=True):
                picked.append(tuple(members[c][taken[c] : taken[c] + size]))
                taken[c] += size
            return level, picked
        return None

    def run(self, length: int):
        """The best run of ``length`` consecutive values, one die each: (level, indices)."""
        for level, spans in zip(self.levels, self.spans, strict=True):
            best = max(
                (s for s in spans if s[1] - s[0] + 1 >= length), key=lambda s: s[1], default=None
            )
            if best is not None:
                _, end, first = best
                return level, tuple(first[v] for v in range(end - length + 1, end + 1))
        return None


def _spans(first: dict[int, int]) -> list[tuple[int, int, dict[int, int]]]:
    """Maximal runs (start, end) of the values present, with the first die of each value."""
    out = []
    v = 1
    while v <= 10:
        if v in first:
            start = v
            while v + 1 in first:
                v += 1
            out.append((start, v, first))
        v += 1
    return out


def _distinct(keys: list[tuple], sizes_of: list[int], sizes: Sequence[int]) -> list[int]:
    """Two groups of different values (only asked for two-group fulls)."""
    for a, ka in enumerate(keys):
        if sizes_of[a] < sizes[0]:
            continue
        for b, kb in enumerate(keys):
            if b != a and kb[0] != ka[0] and sizes_of[b] >= sizes[1]:
                return [a, b]
    return []


def _why(label: str, parts: str, multipliers: Sequence[Multiplier], points: int) -> str:
    extra = "".join(f", {m.why} ×{m.x}" for m in multipliers)
    return f"{label} : {parts}{extra} = {points}"


def _product(multipliers: Sequence[Multiplier]) -> int:
    out = 1
    for m in multipliers:
        out *= m.x
    return out


def _filled(throw: _Throw, box, section, label, pts, mult, level: _Level, groups) -> Entry:
    dice = throw.dice
    parts = " + ".join(f"{len(g)}×{dice[g[0]].value}{level.words(dice[g[0]])}" for g in groups)
    points = pts * _product(mult)
    used = tuple(i for g in groups for i in g)
    return Entry(box, section, points, pts, mult, used, _why(label, parts, mult, points))


class Impossible(Rulebook):
    id = "impossible"
    name = "Yams impossible"
    kind = "d10"
    dice_count = 10
    max_throws = 5
    announced_throw = "6e jet"
    boxes = BOXES
    options_type = ImpossibleOptions
    options: ImpossibleOptions

    def validate(self, dice: Sequence[Die]) -> None:
        super().validate(dice)
        if any(d.colour is None for d in dice):
            raise RulesError("impossible needs a colour on every die: five red (r), five white (w)")
        reds = sum(d.colour is Colour.RED for d in dice)
        if reds != 5:
            raise RulesError(
                f"impossible is played with five red and five white dice, not {reds} red"
            )
        with_finish = sum(d.finish is not None for d in dice)
        if with_finish not in (0, len(dice)):
            raise RulesError("give a finish (f, t) for every die or for none")

    # -- what a throw is worth --------------------------------------------------------
    def entries(self, dice: Sequence[Die], *, first: bool = False) -> list[Entry]:
        throw = _Throw(dice)
        bonus = (FIRST,) if first else ()
        out = [self._chiffre(throw, v) for v in range(1, 11)]
        out += [self._of_a_kind(throw, bonus, *spec) for spec in OF_A_KIND]
        out += [self._run(throw, bonus, *spec) for spec in RUNS]
        out += [self._combination(throw, bonus, *spec) for spec in COMBINATIONS]
        total = sum(d.value for d in dice)
        everything = tuple(range(len(dice)))
        # plus and moins are worth what they add to the différence: rank them by how far
        # the sum is from an average throw's (55), up for plus and down for moins
        why = f"Plus : somme des dés = {total} (le plus grand est le meilleur)"
        out.append(
            Entry("plus", DIFFERENCE, total, total, (), everything, why, rank=total - MEAN_SUM)
        )
        why = f"Moins : somme des dés = {total} (le plus petit est le meilleur)"
        out.append(
            Entry("moins", DIFFERENCE, total, total, (), everything, why, rank=MEAN_SUM - total)
        )
        return out

    @staticmethod
    def _chiffre(throw: _Throw, v: int) -> Entry:
        box = str(v)
        idx = tuple(i for i, d in enumerate(throw.dice) if d.value == v)
        if 5 <= len(idx) < 10:
            # « cinq dés 10 rouges valent 100 points dans les 10 »: five identical dice of
            # one colour (or of one finish) score the box's maximum, ten times the value.
            for level, (keys, _, members) in zip(throw.levels, throw.classes, strict=True):
                if len(level.multipliers) != 1:
                    continue
                for key, group in zip(keys, members, strict=True):
                    if key[0] == v and len(group) >= 5:
                        used = tuple(group[:5])
                        parts = f"cinq {v}{level.words(throw.dice[used[0]])}"
                        why = _why(f"Les {v}", parts, level.multipliers, 10 * v)
                        return Entry(box, CHIFFRES, 10 * v, 5 * v, level.multipliers, used, why)
        if not idx:
            return Entry(box, CHIFFRES, 0, 0, why=f"Les {v} : aucun {v}")
        plain = len(idx) * v
        return Entry(box, CHIFFRES, plain, plain, (), idx, f"Les {v} : {len(idx)} × {v} = {plain}")

    @staticmethod
    def _of_a_kind(throw: _Throw, bonus, box: str, label: str, k: int, pts: int) -> Entry:
        found = throw.groups((k,))
        if found is None:
            return Entry(box, YAMS, 0, 0, why=f"{label} : pas {k} dés identiques")
        level, groups = found
        return _filled(throw, box, YAMS, label, pts, bonus + level.multipliers, level, groups)

    @staticmethod
    def _run(throw: _Throw, bonus, box: str, label: str, k: int, pts: int) -> Entry:
        found = throw.run(k)
        if found is None:
            return Entry(box, SUITES, 0, 0, why=f"{label} : pas de suite de {k} dés")
        level, used = found
        parts = "-".join(str(throw.dice[i].value) for i in used) + level.words(throw.dice[used[0]])
        mult = bonus + level.multipliers
        points = pts * _product(mult)
        return Entry(box, SUITES, points, pts, mult, used, _why(label, parts, mult, points))

    def _combination(
        self, throw: _Throw, bonus, box: str, label: str, sizes: tuple[int, ...], pts: int
    ) -> Entry:
        distinct = box in FULLS and self.options.fulls_need_two_values
        found = throw.groups(sizes, distinct=distinct)
        if found is None:
            need = " + ".join(str(s) for s in sizes)
            return Entry(box, COMBINAISONS, 0, 0, why=f"{label} : pas de groupes {need}")
        level, groups = found
        mult = bonus + level.multipliers
        return _filled(throw, box, COMBINAISONS, label, pts, mult, level, groups)

    # -- the announced sixth throw ----------------------------------------------------
    def check_announce(self, box: str) -> None:
        section = self.box(box).section
        if section == CHIFFRES:
            raise RulesError(
                "no sixth throw for the chiffres: « Ce 6ème jet ne peut jamais être effectué "
                "pour remplir le premier tableau des chiffres »"
            )
        if section == DIFFERENCE:
            raise RulesError("a sixth throw is announced for a combination, not for plus or moins")

    def announced(self, dice: Sequence[Die], box: str) -> Entry:
        self.check_announce(box)
        plain = next(e for e in self.entries(dice) if e.box == box)
        label = self.box(box).label
        legal = LEGAL_POINTS[box]
        if plain.points == 0:
            why = f"6e jet manqué : {label} non obtenu, on marque −{legal}"
            return Entry(box, plain.section, -legal, legal, (), (), why)
        if self.options.sixth_throw_harmony:
            why = plain.why.replace(" : ", " : 6e jet réussi, ", 1)
            return Entry(
                box, plain.section, plain.points, legal, plain.multipliers, plain.dice, why
            )
        why = f"6e jet réussi : {label}, points légaux = {legal}"
        return Entry(box, plain.section, legal, legal, (), plain.dice, why)

    # -- totals -----------------------------------------------------------------------
    def totals(self, table: Table, player: int) -> list[Total]:
        cells = table.sheets[player].cells
        section = {s: 0 for s in (CHIFFRES, YAMS, SUITES, COMBINAISONS)}
        for b in self.boxes:
            if b.section in section and b.id in cells:
                section[b.section] += cells[b.id]
        bonus = BONUS if section[CHIFFRES] >= BONUS_THRESHOLD else 0
        total1 = section[CHIFFRES] + bonus
        if "plus" in cells and "moins" in cells:
            # « On multiplie cette différence par le nombre de « 1 » obtenu dans les chiffres »
            total5 = (cells["plus"] - cells["moins"]) * cells.get("1", 0)
        else:
            total5 = 0
        totals = [
            Total("chiffres", "Chiffres", section[CHIFFRES]),
            Total("bonus", f"Bonus ({BONUS} à {BONUS_THRESHOLD})", bonus),
            Total("total1", "Total n°1", total1),
            Total("total2", "Total n°2 (yams)", section[YAMS]),
            Total("total3", "Total n°3 (suites)", section[SUITES]),
            Total("total4", "Total n°4 (combinaisons)", section[COMBINAISONS]),
            Total("total5", "Total n°5 (différence)", total5),
        ]
        grand = total1 + section[YAMS] + section[SUITES] + section[COMBINAISONS] + total5
        return [*totals, Total("total", "Total général", grand)]
