"""« Le Yams », also called Cameroun (seed 002): shared columns that close for everyone.

Our reading (docs/rules.md has the French sentences): the ten columns 1-6, P, G, F, Q are
shared by the table. A turn's dice are written in one open column; a number column holds at
most six times its number across all players (« Ce total est égal à six fois le point »)
and P, G, F, Q hold one entry each. When a column's total is reached it is closed for
everyone; points beyond it are not counted. The third throw must be announced for one
column: failing it on a number column scores nothing this turn, failing it on P, G, F or Q
crosses that column for everyone. The game ends when every column is closed, or when each
player has had ten turns (« Chaque joueur jette ses cinq dés dix fois de suite »).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from scoring.dice import Die
from scoring.entries import Box, Entry
from scoring.rulebooks.base import Options, Rulebook, Table, Total, face_counts, option

NUMBERS, FIGURES = "chiffres", "figures"
BOXES = (
    *(Box(str(v), NUMBERS, f"Colonne des {v}") for v in range(1, 7)),
    Box("P", FIGURES, "Petite séquence"),
    Box("G", FIGURES, "Grande séquence"),
    Box("F", FIGURES, "Full"),
    Box("Q", FIGURES, "Quinte"),
)
SEQUENCES = {"P": ((1, 2, 3, 4, 5), 15), "G": ((2, 3, 4, 5, 6), 20)}
QUINTE = 30


@dataclass(frozen=True)
class CamerounOptions(Options):
    turns: int = option(
        10,
        "Turns each player plays at most (« Chaque joueur jette ses cinq dés dix fois de "
        "suite »); the game ends sooner when every column is closed. 0: no limit.",
        bounds=(0, 100),
    )


class Cameroun(Rulebook):
    id = "cameroun"
    name = "Cameroun"
    kind = "d6"
    dice_count = 5
    max_throws = 2
    announced_throw = "3e jet"
    boxes = BOXES
    options_type = CamerounOptions
    options: CamerounOptions

    def entries(self, dice: Sequence[Die], *, first: bool = False) -> list[Entry]:
        values = [d.value for d in dice]
        counts = Counter(values)
        every = tuple(range(len(values)))
        out = face_counts(values, NUMBERS, lambda v: f"Colonne des {v}")
        for box, (run, pts) in SEQUENCES.items():
            label = self.box(box).label
            if sorted(values) == list(run):
                seq = "-".join(map(str, run))
                out.append(Entry(box, FIGURES, pts, pts, (), every, f"{label} : {seq} = {pts}"))
            else:
                out.append(
                    Entry(box, FIGURES, 0, 0, why=f"{label} : il faut {'-'.join(map(str, run))}")
                )
        if sorted(counts.values()) == [2, 3]:
            total = sum(values)
            out.append(
                Entry("F", FIGURES, total, total, (), every, f"Full : total des 5 dés = {total}")
            )
        else:
            out.append(
                Entry("F", FIGURES, 0, 0, why="Full : il faut trois dés identiques et une paire")
            )
        if len(counts) == 1:
            out.append(
                Entry(
                    "Q", FIGURES, QUINTE, QUINTE, (), every, f"Quinte : cinq {values[0]} = {QUINTE}"
                )
            )
        else:
            out.append(Entry("Q", FIGURES, 0, 0, why="Quinte : il faut cinq dés identiques"))
        return out

    def announced(self, dice: Sequence[Die], box: str) -> Entry:
        self.check_announce(box)
        plain = next(e for e in self.entries(dice) if e.box == box)
        if plain.points:
            why = plain.why.replace(" : ", " : 3e jet réussi, ", 1)
            return Entry(box, plain.section, plain.points, plain.base, (), plain.dice, why)
        label = self.box(box).label
        if plain.section == NUMBERS:
            why = f"3e jet manqué ({label}) : le dernier essai ne compte pas"
        else:
            why = f"3e jet manqué : {label} est barrée pour tous les joueurs"
        return Entry(box, plain.section, 0, 0, why=why)

    # -- a game: shared columns ---------------------------------------------------------
    @staticmethod
    def capacity(box: str) -> int:
        """What a column holds for the whole table: six times its number, or one entry."""
        if box.isdigit():
            return 6 * int(box)
        return 1  # one entry, whatever its points

    def is_open(self, table: Table, player: int, box: str) -> bool:
        return box not in table.closed

    def column_total(self, table: Table, box: str) -> int:
        return sum(s.cells.get(box, 0) for s in table.sheets)

    def choices(
        self, table: Table, player: int, dice: Sequence[Die], *, first: bool, announced: str | None
    ) -> list[Entry]:
        if announced is not None:
            return [self._capped(table, self.announced(dice, announced))]
        entries = [
            self._capped(table, e) for e in self.entries(dice) if self.is_open(table, player, e.box)
        ]
        return sorted(entries, key=lambda e: (-e.sort_key, self.order[e.box]))

    def _capped(self, table: Table, entry: Entry) -> Entry:
        if not entry.box.isdigit():
            return entry
        room = self.capacity(entry.box) - self.column_total(table, entry.box)
        if entry.points <= room:
            return entry
        why = f"{entry.why}, limité à {room} (total de la colonne : {self.capacity(entry.box)})"
        # the base is what the column can still take: points stay base × multipliers
        return Entry(entry.box, entry.section, room, room, (), entry.dice, why)

    def record(self, table: Table, player: int, entry: Entry, announced: str | None = None) -> None:
        if announced is not None and entry.points == 0:
            if entry.section == FIGURES:
                table.closed[entry.box] = f"barrée par {table.sheets[player].player}"
            return
        if entry.points == 0:
            return  # a throw that fills nothing is written as a pass
        cells = table.sheets[player].cells
        cells[entry.box] = cells.get(entry.box, 0) + entry.points
        if entry.section == FIGURES or self.column_total(table, entry.box) >= self.capacity(
            entry.box
        ):
            table.closed[entry.box] = f"fermée par {table.sheets[player].player}"

    def finished(self, table: Table) -> bool:
        if all(b.id in table.closed for b in self.boxes):
            return True
        limit = self.options.turns
        return bool(limit) and all(s.turns >= limit for s in table.sheets)

    def totals(self, table: Table, player: int) -> list[Total]:
        cells = table.sheets[player].cells
        numbers = sum(cells.get(str(v), 0) for v in range(1, 7))
        figures = sum(cells.get(b, 0) for b in "PGFQ")
        return [
            Total("chiffres", "Colonnes 1 à 6", numbers),
            Total("figures", "P, G, F, Q", figures),
            Total("total", "Total", numbers + figures),
        ]
