"""Five d6 and thirteen boxes: classic Yam's (seed 001) and the Yahtzee-style game (seed 004).

Both games share one sheet; what differs are pre-game options, and the two rulebooks are
this one class with different defaults. Readings of the texts are in docs/rules.md.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from scoring.dice import Die
from scoring.entries import Box, Entry, RulesError
from scoring.rulebooks.base import Options, Rulebook, Table, Total, face_counts, option

UPPER, LOWER = "haut", "bas"
UPPER_THRESHOLD, UPPER_BONUS = 63, 35
FACE_NAMES = {1: "As", 2: "Deux", 3: "Trois", 4: "Quatre", 5: "Cinq", 6: "Six"}

BOXES = (
    *(Box(str(v), UPPER, FACE_NAMES[v]) for v in range(1, 7)),
    Box("brelan", LOWER, "Brelan"),
    Box("carre", LOWER, "Carré"),
    Box("full", LOWER, "Full"),
    Box("petite_suite", LOWER, "Petite suite"),
    Box("grande_suite", LOWER, "Grande suite"),
    Box("yams", LOWER, "Yam's"),
    Box("chance", LOWER, "Chance"),
)
FIXED = {"full": 25, "petite_suite": 30, "grande_suite": 40, "yams": 50}
JOKERS = ("none", "free", "forced", "verhoeff")
JOKER_HELP = (
    "A further Yam's as joker for the Full and the suites: none; free (in any open box, "
    "at full value); forced (official Yahtzee: its upper box if open, else a lower box); "
    "verhoeff (official scoring with a free choice of box: full value only once the "
    "face's upper box is written)."
)


@dataclass(frozen=True)
class FiveDiceOptions(Options):
    brelan: str = option(
        "sum",
        "What a Brelan scores: the five dice (sum) or the three identical dice (matching).",
        ("sum", "matching"),
    )
    carre: str = option(
        "sum",
        "What a Carré scores: the five dice (sum), the four identical dice (matching) or 40.",
        ("sum", "matching", "40"),
    )
    straights: str = option(
        "runs",
        "runs: petite suite = four values in a row, grande = five; fixed: petite = 1-2-3-4-5, "
        "grande = 2-3-4-5-6.",
        ("runs", "fixed"),
    )
    yams_bonus: int = option(
        0,
        "Points for each further Yam's once 50 is written in the Yam's box (0 or 100).",
        (0, 100),
    )
    joker: str = option(
        "none",
        JOKER_HELP,
        JOKERS,
    )
    joker_after_zero: bool = option(
        False,
        "The joker also works when the Yam's box was crossed with 0 (official Yahtzee); "
        "by default only after 50 was written there, as seed 004 says.",
    )
    in_order: bool = option(False, "Boxes must be filled from top to bottom.")


@dataclass(frozen=True)
class YahtzeeOptions(FiveDiceOptions):
    """Seed 004: « Chaque Yams supplémentaire [...] vaut 100 points en plus et sert de joker »."""

    yams_bonus: int = option(
        100,
        "Points for each further Yam's once 50 is written in the Yam's box (0 or 100).",
        (0, 100),
    )
    joker: str = option(
        "free",
        JOKER_HELP,
        JOKERS,
    )


class FiveDice(Rulebook):
    """Shared scoring of the 13-box sheet."""

    kind = "d6"
    dice_count = 5
    max_throws = 3
    announced_throw = None
    boxes = BOXES
    options_type = FiveDiceOptions
    options: FiveDiceOptions

    def entries(self, dice: Sequence[Die], *, first: bool = False) -> list[Entry]:
        return self._entries(dice, joker=False)

    def _entries(self, dice: Sequence[Die], *, joker: bool) -> list[Entry]:
        values = [d.value for d in dice]
        counts = Counter(values)
        total = sum(values)
        every = tuple(range(len(dice)))
        out = face_counts(values, UPPER, FACE_NAMES.__getitem__)
        top, n = max(counts.items(), key=lambda kv: (kv[1], kv[0]))
        for box, label, need, rule in (
            ("brelan", "Brelan", 3, self.options.brelan),
            ("carre", "Carré", 4, self.options.carre),
        ):
            if n < need:
                out.append(Entry(box, LOWER, 0, 0, why=f"{label} : pas {need} dés identiques"))
                continue
            matching = tuple(i for i, x in enumerate(values) if x == top)[:need]
            if rule == "sum":
                pts, used, why = total, every, f"{label} : total des 5 dés = {total}"
            elif rule == "matching":
                pts, used = need * top, matching
                why = f"{label} : {need} × {top} = {pts}"
            else:
                pts, used = int(rule), matching
                why = f"{label} : {need} × {top}, valeur fixe = {rule}"
            out.append(Entry(box, LOWER, pts, pts, (), used, why))
        shape = sorted(counts.values())
        if shape == [2, 3]:
            pair = min(counts, key=counts.__getitem__)
            out.append(self._fixed("full", "Full", every, f"trois {top} et deux {pair}"))
        elif joker and n == 5:
            out.append(self._fixed("full", "Full", every, "joker (Yam's)"))
        else:
            out.append(Entry("full", LOWER, 0, 0, why="Full : il faut un brelan et une paire"))
        out.append(
            self._straight("petite_suite", "Petite suite", values, joker, 4, (1, 2, 3, 4, 5))
        )
        out.append(
            self._straight("grande_suite", "Grande suite", values, joker, 5, (2, 3, 4, 5, 6))
        )
        if n == 5:
            out.append(self._fixed("yams", "Yam's", every, f"cinq {top}"))
        else:
            out.append(Entry("yams", LOWER, 0, 0, why="Yam's : il faut cinq dés identiques"))
        out.append(
            Entry("chance", LOWER, total, total, (), every, f"Chance : total des 5 dés = {total}")
        )
        return out

    @staticmethod
    def _fixed(box: str, label: str, used: tuple[int, ...], how: str) -> Entry:
        pts = FIXED[box]
        return Entry(box, LOWER, pts, pts, (), used, f"{label} : {how} = {pts}")

    def _straight(
        self, box: str, label: str, values: list[int], joker: bool, length: int, fixed: tuple
    ) -> Entry:
        """A run of ``length`` values (option runs) or exactly the ``fixed`` values."""
        present = set(values)
        if self.options.straights == "runs":
            for start in range(7 - length, 0, -1):
                want = range(start, start + length)
                if all(v in present for v in want):
                    used = tuple(values.index(v) for v in want)
                    return self._fixed(box, label, used, "-".join(map(str, want)))
        elif present >= set(fixed):
            used = tuple(values.index(v) for v in fixed)
            return self._fixed(box, label, used, "-".join(map(str, fixed)))
        if joker:
            return self._fixed(box, label, tuple(range(len(values))), "joker (Yam's)")
        return Entry(box, LOWER, 0, 0, why=f"{label} : pas de suite")

    def announced(self, dice: Sequence[Die], box: str) -> Entry:
        raise RulesError(f"{self.id} has no announced extra throw")

    # -- a game: bonus, joker, order ----------------------------------------------------
    def choices(
        self, table: Table, player: int, dice: Sequence[Die], *, first: bool, announced: str | None
    ) -> list[Entry]:
        if announced is not None:
            raise RulesError(f"{self.id} has no announced extra throw")
        cells = table.sheets[player].cells
        values = [d.value for d in dice]
        is_yams = len(set(values)) == 1
        yams_cell = cells.get("yams")
        joker_on = (
            is_yams
            and self.options.joker != "none"
            and (yams_cell == 50 or (yams_cell == 0 and self.options.joker_after_zero))
            and (self.options.joker != "verhoeff" or str(values[0]) in cells)
        )
        bonus = self.options.yams_bonus if is_yams and yams_cell == 50 else 0
        entries = [e for e in self._entries(dice, joker=joker_on) if e.box not in cells]
        if self.options.in_order:
            entries = entries[:1]
        elif joker_on and self.options.joker == "forced":
            entries = self._forced(entries, values[0])
        if bonus:
            entries = [
                Entry(
                    e.box,
                    e.section,
                    e.points,
                    e.base,
                    e.multipliers,
                    e.dice,
                    f"{e.why}, prime Yam's +{bonus}",
                    bonus,
                )
                for e in entries
            ]
        return sorted(entries, key=lambda e: (-e.sort_key, self.order[e.box]))

    @staticmethod
    def _forced(entries: list[Entry], face: int) -> list[Entry]:
        """Official joker: the face's own upper box if open, else a lower box, else any."""
        own = [e for e in entries if e.box == str(face)]
        if own:
            return own
        lower = [e for e in entries if e.section == LOWER]
        return lower or entries

    def totals(self, table: Table, player: int) -> list[Total]:
        sheet = table.sheets[player]
        upper = sum(sheet.cells.get(str(v), 0) for v in range(1, 7))
        prime = UPPER_BONUS if upper >= UPPER_THRESHOLD else 0
        lower = sum(sheet.cells.get(b.id, 0) for b in self.boxes if b.section == LOWER)
        yams_bonus = sheet.extras.get("bonus", 0)
        totals = [
            Total("haut", "Total partie haute", upper),
            Total("prime", f"Prime ({UPPER_BONUS} si {UPPER_THRESHOLD} ou plus)", prime),
        ]
        if self.options.yams_bonus:
            totals.append(Total("prime_yams", "Primes Yam's", yams_bonus))
        totals.append(Total("bas", "Total partie basse", lower + yams_bonus))
        return [*totals, Total("total", "TOTAL", upper + prime + lower + yams_bonus)]


class Yams(FiveDice):
    id = "yams"
    name = "Yam's classique"


class Yahtzee(FiveDice):
    id = "yahtzee"
    name = "Yams style Yahtzee"
    options_type = YahtzeeOptions
