"""What the table page shows, as one JSON-able dict built from a ``Game``.

Why a module of its own: the session (``device.table``) is about who may act and when, and
about storage; this is only a view of a game, a pure function the page, the tests and a
future kiosk share. The layout of the sheets follows the paper ones: seed 001's sheet for
the five-dice games (upper boxes, their total and prime, lower boxes, totals), Yams
impossible's five sections each closed by its own total, Cameroun's ten shared columns.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from device.rules_text import rules_text
from device.words import english, option_words, with_english
from scoring.dice import Die
from scoring.entries import Entry, RulesError
from scoring.game import Game
from scoring.rulebooks import RULEBOOKS, Rulebook

COMPUTER_KINDS = ("facile", "difficile")
COMPUTER_PREFIX = "Ordi"
_KINDS = "|".join(COMPUTER_KINDS)
_COMPUTER_NAME = re.compile(rf"{COMPUTER_PREFIX} ({_KINDS})(?: (\d+))?", re.I)
# a computer the table named: « Rita (ordi facile) »
_NAMED_COMPUTER = re.compile(rf"(.+) \({COMPUTER_PREFIX} ({_KINDS})\)", re.I)
# how the new-game form asks for one: "facile:Rita"
_NAMING = re.compile(rf"({_KINDS}):(.+)", re.I)
RECENT = 8  # entries shown in the "last turns" list

# Which totals close which section, per rulebook (anything not listed goes at the bottom).
SECTION_TOTALS: dict[str, dict[str, tuple[str, ...]]] = {
    "yams": {"haut": ("haut", "prime"), "bas": ("prime_yams", "bas")},
    "yahtzee": {"haut": ("haut", "prime"), "bas": ("prime_yams", "bas")},
    "impossible": {
        "chiffres": ("chiffres", "bonus", "total1"),
        "yams": ("total2",),
        "suites": ("total3",),
        "combinaisons": ("total4",),
        "difference": ("total5",),
    },
}
SECTION_LABELS = {
    "haut": "Partie haute",
    "bas": "Partie basse",
    "chiffres": "Chiffres",
    "yams": "Yams",
    "suites": "Suites",
    "combinaisons": "Combinaisons",
    "difference": "Différence",
    "figures": "Figures",
}
# The paper sheet of seed 001 has no section headings; Yams impossible's has five tables.
HEADINGS = {"impossible"}
SHARED_COLUMNS = {"cameroun"}
# The bonus of the upper boxes: (the total it is counted on, the row that shows it, the points
# it needs), per rulebook; the page says how many points each player still needs.
UPPER_BONUS = {
    "yams": ("haut", "prime", 63),
    "yahtzee": ("haut", "prime", 63),
    "impossible": ("chiffres", "bonus", 330),
}


def computer_kind(name: str) -> str | None:
    """The kind of a computer player from its name, None for a human.

    Why names: a game's log keeps only player names, and the records must say, after a
    restart, who the computers were. Computer names are made by ``computer_names`` and
    reserved (humans cannot take them), so the name alone is unambiguous.
    """
    match = _COMPUTER_NAME.fullmatch(name)
    if match:
        return match.group(1).lower()
    named = _NAMED_COMPUTER.fullmatch(name)
    return named.group(2).lower() if named else None


def computer_alias(name: str) -> str | None:
    """The name the table gave a computer player (« Rita »), None for any other player."""
    named = _NAMED_COMPUTER.fullmatch(name)
    return named.group(1) if named else None


def computer_names(players: list[str]) -> list[str]:
    """Player names for a new game: computer kinds become « Ordi facile », « Ordi facile 2 »,
    and a named one ("facile:Rita") « Rita (ordi facile) »."""
    out: list[str] = []
    seen: dict[str, int] = {}
    for p in players:
        naming = _NAMING.fullmatch(p.strip())
        if naming:
            kind, alias = naming.group(1).lower(), " ".join(naming.group(2).split())
            out.append(f"{alias} ({COMPUTER_PREFIX.lower()} {kind})")
            continue
        kind = p.strip().lower()
        if kind not in COMPUTER_KINDS:
            if computer_kind(p.strip()):
                raise RulesError(f"the name {p.strip()!r} is kept for computer players")
            out.append(p.strip())
            continue
        seen[kind] = seen.get(kind, 0) + 1
        n = seen[kind]
        out.append(f"{COMPUTER_PREFIX} {kind}" + (f" {n}" if n > 1 else ""))
    return out


def die_json(die: Die, kept: bool) -> dict[str, Any]:
    return {**die.to_json(), "text": str(die), "kept": kept}


def entry_json(entry: Entry, rulebook: Rulebook) -> dict[str, Any]:
    """An entry as the page lists it, its name and reasons in French and English."""
    out = {**entry.to_json(), "label": rulebook.box(entry.box).label, "bonus": entry.bonus}
    out["multipliers"] = [with_english(m, "why") for m in out.get("multipliers", [])]
    return with_english(out, "label", "why")


def options_catalog(rulebook_cls: type[Rulebook]) -> list[dict[str, Any]]:
    """Each option as the new-game form needs it: name, default, help, legal values or range."""
    import dataclasses

    out = []
    fields = {f.name: f for f in dataclasses.fields(rulebook_cls.options_type)}
    for name, default, help_text in rulebook_cls.options_type.describe():
        meta = fields[name].metadata
        choices = list(meta["choices"]) if meta.get("choices") is not None else None
        out.append(
            {
                "name": name,
                "default": default,
                "help": help_text,
                "type": type(default).__name__,
                "choices": choices,
                "bounds": list(meta["bounds"]) if meta.get("bounds") is not None else None,
            }
            | option_words(name, help_text, choices)
        )
    return out


def rules_catalog() -> list[dict[str, Any]]:
    """The rulebooks a new game may use, with their options (static: sent once with the page)."""
    return [
        {
            "id": rid,
            "name": cls.name,
            "name_en": english(cls.name),
            "kind": cls.kind,
            "dice_count": cls.dice_count,
            "max_throws": cls.max_throws,
            "announced_throw": cls.announced_throw,
            "options": options_catalog(cls),
            "text": rules_text(rid),
        }
        for rid, cls in RULEBOOKS.items()
    ]


def sheet_rows(rulebook: Rulebook, total_labels: Mapping[str, str]) -> list[dict[str, Any]]:
    """The rows of a paper sheet, top to bottom: section headings, boxes, totals."""
    placement = SECTION_TOTALS.get(rulebook.id, {})
    rows: list[dict[str, Any]] = []
    placed: set[str] = set()

    def close(section: str) -> None:
        for key in placement.get(section, ()):
            if key in total_labels:
                rows.append(_total_row(key, total_labels[key]))
                placed.add(key)

    section = None
    for box in rulebook.boxes:
        if box.section != section:
            if section is not None:
                close(section)
            section = box.section
            if rulebook.id in HEADINGS:
                label = SECTION_LABELS.get(section, section)
                rows.append(
                    {"kind": "section", "id": section, "label": label, "label_en": english(label)}
                )
        rows.append(
            {
                "kind": "box",
                "id": box.id,
                "label": box.label,
                "label_en": english(box.label),
                "section": box.section,
            }
        )
    if section is not None:
        close(section)
    for key, label in total_labels.items():
        if key not in placed:
            rows.append(_total_row(key, label))
    return rows


def _total_row(key: str, label: str) -> dict[str, Any]:
    return {"kind": "total", "key": key, "label": label, "label_en": english(label)}


def _bonus_needed(game: Game, i: int, totals: Mapping[str, int]) -> int | None:
    """Points player ``i`` still needs for the upper bonus; None once made, when it can no
    longer be made (its boxes all written), or in a rulebook without one."""
    rule = UPPER_BONUS.get(game.rulebook.id)
    if rule is None:
        return None
    total, _row, threshold = rule
    boxes = [b.id for b in game.rulebook.boxes if b.id.isdigit()]
    left = [b for b in boxes if b not in game.table.sheets[i].cells]
    needed = threshold - totals[total]
    return needed if needed > 0 and left else None


def rounds(game: Game) -> int | None:
    """Turns each player plays in a game of these rules (None: no fixed number)."""
    if game.rulebook.id in SHARED_COLUMNS:
        return int(getattr(game.rulebook.options, "turns", 0)) or None
    return len(game.rulebook.boxes)


def _sheets(game: Game) -> list[dict[str, Any]]:
    out = []
    for i, sheet in enumerate(game.table.sheets):
        points = {t.key: t.points for t in game.totals(i)}
        out.append(
            {
                "bonus_needed": _bonus_needed(game, i, points),
                "player": sheet.player,
                "computer": computer_kind(sheet.player),
                "cells": {b.id: sheet.cells.get(b.id) for b in game.rulebook.boxes},
                "totals": [
                    {
                        "key": t.key,
                        "label": t.label,
                        "label_en": english(t.label),
                        "points": t.points,
                    }
                    for t in game.totals(i)
                ],
            }
        )
    return out


def _columns(game: Game) -> list[dict[str, Any]] | None:
    """Cameroun's shared columns: how full each is, and who closed or crossed it."""
    rb = game.rulebook
    if rb.id not in SHARED_COLUMNS:
        return None
    capacity = getattr(rb, "capacity", None)
    out = []
    for b in rb.boxes:
        total = sum(s.cells.get(b.id, 0) for s in game.table.sheets)
        closed = game.table.closed.get(b.id)
        out.append(
            {
                "id": b.id,
                "label": b.label,
                "label_en": english(b.label),
                "section": b.section,
                "total": total,
                "capacity": capacity(b.id) if capacity else None,
                "closed": closed,
                "closed_en": english(closed) if closed else None,
            }
        )
    return out


def _announceable(game: Game) -> list[str]:
    rb = game.rulebook
    if (
        not rb.announced_throw
        or game.finished
        or game.announced is not None
        or game.throw_no != rb.max_throws
    ):
        return []
    out = []
    for b in rb.boxes:
        try:
            rb.check_announce(b.id)
        except RulesError:
            continue
        if rb.is_open(game.table, game.current, b.id):
            out.append(b.id)
    return out


def _kept(game: Game) -> set[int]:
    """Positions kept in the throw that gave the dice on the table (after an undo too)."""
    event = game.throw_event()
    return {int(k) for k in event.get("keep", [])} if event is not None else set()


def game_state(game: Game, game_id: int) -> dict[str, Any]:
    """The whole table as the page draws it (everything but advice and version)."""
    rb = game.rulebook
    finished = game.finished
    current = None if finished else game.current
    player = None if finished else game.player
    human = player is not None and computer_kind(player) is None
    totals0 = game.totals(0)
    suggestions: list[dict[str, Any]] = []
    must_throw = False
    if not finished and game.dice is not None:
        try:
            suggestions = [entry_json(e, rb) for e in game.choices()]
        except RulesError:
            must_throw = True  # an announced throw is still to be made
    limit = rb.max_throws + (1 if game.announced is not None else 0)
    kept = _kept(game) if game.dice else set()
    return {
        "id": game_id,
        "rules": rb.id,
        "name": rb.name,
        "name_en": english(rb.name),
        "kind": rb.kind,
        "dice_count": rb.dice_count,
        "options": rb.options.to_dict(),
        "max_throws": rb.max_throws,
        "announced_throw": rb.announced_throw,
        "announced_throw_en": english(rb.announced_throw) if rb.announced_throw else None,
        "players": [
            {"name": p, "computer": computer_kind(p), "alias": computer_alias(p)}
            for p in game.players
        ],
        "current": current,
        "player": player,
        "human_turn": human,
        "turn": game.turn,
        # the current player's turn of how many (« tour 5/13 »)
        "round": None if finished else game.table.sheets[game.current].turns + 1,
        "rounds": rounds(game),
        "bonus_row": (UPPER_BONUS.get(rb.id) or (None, None))[1],
        "throw": game.throw_no,
        "dice": [die_json(d, i in kept) for i, d in enumerate(game.dice)] if game.dice else None,
        "announced": game.announced,
        "announceable": _announceable(game) if human else [],
        "can_throw": human and game.throw_no < limit,
        "must_throw": must_throw,
        "corrected": human and game.can_uncorrect(),  # undo takes the correction back
        "suggestions": suggestions,
        "sheet": {
            "layout": "columns" if rb.id in SHARED_COLUMNS else "rows",
            "rows": sheet_rows(rb, {t.key: t.label for t in totals0}),
            "columns": _columns(game),
        },
        "sheets": _sheets(game),
        "closed": dict(game.table.closed),
        "finished": finished,
        "winners": game.winners(),
        "scores": game.scores(),
        "recent": [
            with_english(_written(w, rb), "label", "why") for w in reversed(game.written[-RECENT:])
        ],
    }


def _written(w: Any, rb: Rulebook) -> dict[str, Any]:
    """One written entry of the "last turns" list."""
    return {
        "turn": w.turn,
        "player": w.player,
        "box": w.entry.box,
        "label": rb.box(w.entry.box).label,
        "points": w.entry.points,
        "bonus": w.entry.bonus,
        "dice": [str(d) for d in w.dice],
        "throw": w.throw,
        "why": w.entry.why,
        "announced": w.announced,
    }
