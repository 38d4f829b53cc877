"""The four rulebooks, by the ids of DESIGN.md."""

from __future__ import annotations

from typing import Any

from scoring.entries import RulesError
from scoring.rulebooks.base import Options, Rulebook, Sheet, Table, Total
from scoring.rulebooks.cameroun import Cameroun
from scoring.rulebooks.five_dice import Yahtzee, Yams
from scoring.rulebooks.impossible import Impossible

RULEBOOKS: dict[str, type[Rulebook]] = {r.id: r for r in (Impossible, Yams, Yahtzee, Cameroun)}


def get_rulebook(rules: str, options: dict[str, Any] | Options | None = None) -> Rulebook:
    try:
        cls = RULEBOOKS[rules]
    except KeyError:
        known = ", ".join(RULEBOOKS)
        raise RulesError(f"unknown rulebook {rules!r} (known: {known})") from None
    return cls(options)


__all__ = ["RULEBOOKS", "Options", "Rulebook", "Sheet", "Table", "Total", "get_rulebook"]
