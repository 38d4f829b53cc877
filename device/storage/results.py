"""What the records keep of a game beyond its log: a result row per player once it is
over, and the faces of the dice players confirmed.

Why kept at write time: records over ten thousand games must not replay ten thousand
logs; a finished game's totals, cells and harmonies are a few numbers each, written in the
same transaction as the entry that ended it (and taken back with an undo).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from scoring.dice import Die
from scoring.game import Game

# Throws of real dice: read by the camera on a real tray, or typed in by the players. The
# generator's throws (the throw button without a camera, the simulated tray, the
# computers') say nothing of the table's dice and are left out of dice fairness.
PHYSICAL = frozenset({"camera", "manual"})


def harmonies(multipliers: Sequence[Any]) -> int:
    """The harmonies (colour, frosted/transparent) among an entry's multipliers."""
    return sum(1 for m in multipliers if m.why.startswith("harmonie"))


# The boxes players brag about: Yams impossible's yams, suites and combinations, the five-
# dice games' lower section, Cameroun's figures (the chiffres are a matter of course).
BRAG_SECTIONS = frozenset({"yams", "suites", "combinaisons", "bas", "figures"})
# Totals that only say whether a bonus was made (a feat below), or the grand total itself.
NOT_SECTIONS = frozenset({"total", "bonus", "prime"})
HARMONIES = "harmonies"


def feats(rules: str, cells: dict[str, int], totals: dict[str, int]) -> list[str]:
    """The Yams- and bonus-style feats of a player's game: ``yams`` (the Yam's box at 50,
    Cameroun's Quinte, Yams impossible's own box), ``prime`` (the upper section's bonus),
    ``prime_yams`` (a Yahtzee bonus)."""
    out = []
    made = {
        "impossible": cells.get("yams_impossible", 0) > 0,
        "cameroun": cells.get("Q", 0) > 0,
    }.get(rules, cells.get("yams", 0) == 50)
    if made:
        out.append("yams")
    if totals.get("prime", totals.get("bonus", 0)) > 0:
        out.append("prime")
    if totals.get("prime_yams", 0) > 0:
        out.append("prime_yams")
    return out


def result_rows(game: Game) -> list[dict[str, Any]]:
    """One row per seat of a finished game: total, win, harmonies, feats, and its marks
    (the brag boxes it filled, its section totals, its harmonies) for the records."""
    winners = set(game.winners())
    sections = {b.id for b in game.rulebook.boxes if b.section in BRAG_SECTIONS}
    rows = []
    for seat, sheet in enumerate(game.table.sheets):
        totals = {t.key: t.points for t in game.totals(seat)}
        mine = [w for w in game.written if w.player == sheet.player]
        count = sum(harmonies(w.entry.multipliers) for w in mine)
        marks = {box: p for box, p in sheet.cells.items() if box in sections and p > 0}
        marks |= {f"={k}": p for k, p in totals.items() if k not in NOT_SECTIONS}
        if game.rulebook.id == "impossible":
            marks[HARMONIES] = count
        rows.append(
            {
                "seat": seat,
                "player": sheet.player,
                "total": totals["total"],
                "won": sheet.player in winners,
                "harmonies": count,
                "feats": feats(game.rulebook.id, sheet.cells, totals),
                "marks": marks,
            }
        )
    return rows


def look(die: Die) -> str:
    """A die's look in the notation's letters (``rf``: red frosted; ``""``: a plain d6)."""
    return (die.colour.letter if die.colour else "") + (die.finish.letter if die.finish else "")


def confirmed_faces(dice: Sequence[Die], kept: Sequence[int]) -> Iterator[tuple[int, str, int]]:
    """(place, look, value) of each die a throw put on the tray (not those set aside)."""
    aside = set(kept)
    for place, die in enumerate(dice):
        if place not in aside:
            yield place, look(die), die.value
