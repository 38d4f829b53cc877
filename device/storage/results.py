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


def result_rows(game: Game) -> list[dict[str, Any]]:
    """One row per seat of a finished game: total, win, every total of the sheet, every
    box's points, and how many harmonies the player's entries scored."""
    winners = set(game.winners())
    rows = []
    for seat, sheet in enumerate(game.table.sheets):
        totals = {t.key: t.points for t in game.totals(seat)}
        mine = [w for w in game.written if w.player == sheet.player]
        rows.append(
            {
                "seat": seat,
                "player": sheet.player,
                "total": totals["total"],
                "won": sheet.player in winners,
                "totals": totals,
                "cells": dict(sheet.cells) | {f"+{k}": v for k, v in sheet.extras.items()},
                "harmonies": sum(harmonies(w.entry.multipliers) for w in mine),
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
