"""The table's (or the club's) records and statistics, from what the records keep.

Why from result rows and marks, never from the logs: ten thousand games are ten thousand
replays, minutes on a Pi; a finished game's result rows (total, win, harmonies, feats)
and marks (the boxes players brag about, the section totals) are written with the entry
that ends it, so the records are one pass over the result rows plus two index look-ups a
mark (docs/records.md has the numbers).
"""

from __future__ import annotations

import heapq
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from device.storage import Store
from device.storage.results import BRAG_SECTIONS, HARMONIES, NOT_SECTIONS
from device.table_state import computer_kind
from device.yardstick import yardstick
from scoring.rulebooks import RULEBOOKS, Rulebook, Table, get_rulebook

BEST_SHOWN = 10
SERIES_SHOWN = 300  # the latest games of a player drawn over time
BINS = 12
FEATS = {
    "impossible": ("yams", "prime"),
    "yams": ("yams", "prime"),
    "yahtzee": ("yams", "prime", "prime_yams"),
    "cameroun": ("yams",),
}


class NotFound(LookupError):
    """A rulebook, player or table the records do not know: one line to say so (404)."""


@dataclass
class _Player:
    """What one player did under one rulebook."""

    games: int = 0
    wins: int = 0
    points: int = 0
    best: tuple[int, int, str] | None = None  # total, game, date
    feats: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    harmonies: int = 0
    series: list[tuple[str, int, int]] = field(default_factory=list)


def check_rules(rules: str | None) -> None:
    if rules is not None and rules not in RULEBOOKS:
        known = ", ".join(RULEBOOKS)
        raise NotFound(f"no rulebook {rules!r} (known: {known})")


def mark_names(rulebook: Rulebook) -> list[tuple[str, str, str]]:
    """(mark, kind, label) of every record a rulebook keeps: its brag boxes, its section
    totals, and Yams impossible's harmonies in one game."""
    out = [(b.id, "box", b.label) for b in rulebook.boxes if b.section in BRAG_SECTIONS]
    empty = Table([rulebook.new_sheet("")])
    for total in rulebook.totals(empty, 0):
        if total.key not in NOT_SECTIONS:
            out.append((f"={total.key}", "section", total.label))
    if rulebook.id == "impossible":
        out.append((HARMONIES, "harmonies", "Harmonies en une partie"))
    return out


def records(
    store: Store,
    *,
    rules: str | None = None,
    player: str | None = None,
    table: str | None = None,
) -> dict[str, Any]:
    """Every rulebook's records, the players' statistics and the histograms of totals
    against the yardstick; ``rules``, ``player``, ``table`` narrow them (NotFound for one
    the records do not know)."""
    check_rules(rules)
    tables = store.tables()
    if table is not None and table not in tables:
        raise NotFound(f"no table named {table!r} in the records (tables: {', '.join(tables)})")
    rows = store.results(table)
    if player is not None and not any(r[2] == player for r in rows):
        raise NotFound(f"no finished game of a player named {player!r} in the records")
    by_rules: dict[str, list[tuple]] = defaultdict(list)
    people: dict[str, dict[str, _Player]] = defaultdict(lambda: defaultdict(_Player))
    for row in rows:
        game_id, _, name, rid, _, at, total, won, harmonies, feats = row
        if rules is not None and rid != rules:
            continue
        by_rules[rid].append(row)
        if player is not None and name != player:
            continue
        mine = people[name][rid]
        mine.games += 1
        mine.wins += won
        mine.points += total
        mine.harmonies += harmonies
        if mine.best is None or total > mine.best[0]:
            mine.best = (total, game_id, at)
        if feats:
            for feat in feats.split():
                mine.feats[feat] += 1
        mine.series.append((at, total, game_id))
    shown = [rules] if rules is not None else [r for r in RULEBOOKS if r in by_rules]
    return {
        "table": table,
        "tables": tables,
        "player": player,
        "games": len({r[0] for r in rows}),
        "rulebooks": [_rulebook(store, rid, by_rules[rid], people, player, table) for rid in shown],
        "players": [
            _player(name, people[name], series=player is not None)
            for name in sorted(people, key=str.casefold)
        ],
    }


def _holder(row: tuple) -> dict[str, Any]:
    return {"player": row[2], "game": row[0], "at": row[5], "table": row[4]}


def _rulebook(
    store: Store,
    rid: str,
    rows: list[tuple],
    people: dict[str, dict[str, _Player]],
    player: str | None,
    table: str | None,
) -> dict[str, Any]:
    rulebook = get_rulebook(rid)
    mine = [r for r in rows if player is None or r[2] == player]
    best = heapq.nsmallest(BEST_SHOWN, mine, key=lambda r: (-r[6], r[0]))
    marks = None
    if player is None:
        names = mark_names(rulebook)
        kept = store.marks(rid, [n for n, _, _ in names], table)
        found = {m: (points, gid, seat) for m, points, gid, seat in kept if points > 0}
        held = store.results_of(sorted({f[1] for f in found.values()}))
        holders = {(r[0], r[1]): r for r in held}
        marks = [
            {"mark": m, "kind": kind, "label": label, "points": found[m][0],
             **_holder(holders[found[m][1], found[m][2]])}
            for m, kind, label in names
            if m in found and (found[m][1], found[m][2]) in holders
        ]  # fmt: skip
    personal = [
        {"player": name, "computer": computer_kind(name), "games": p.games, "wins": p.wins,
         "average": round(p.points / p.games, 1), "best": p.best[0], "game": p.best[1],
         "at": p.best[2]}
        for name, by in people.items()
        if (p := by.get(rid)) is not None and p.best is not None
    ]  # fmt: skip
    personal.sort(key=lambda p: (-p["best"], p["player"]))
    return {
        "rules": rid,
        "name": rulebook.name,
        "games": len({r[0] for r in rows}),
        "best": [{"total": r[6], **_holder(r)} for r in best],
        "marks": marks,
        "personal": personal,
        "histogram": histogram([r[6] for r in mine], yardstick(rid)),
    }


def histogram(totals: list[int], against: dict[str, Any] | None) -> dict[str, Any] | None:
    """The players' totals and the yardstick's in the same bins (None without totals)."""
    if not totals:
        return None
    scores = np.asarray(totals, dtype=float)
    stick = np.asarray(against["scores"], dtype=float) if against else np.empty(0)
    both = np.concatenate([scores, stick])
    low, high = float(both.min()), float(both.max())
    edges = np.linspace(low, high if high > low else low + 1, BINS + 1)
    out: dict[str, Any] = {
        "edges": [round(float(e), 1) for e in edges],
        "counts": np.histogram(scores, bins=edges)[0].tolist(),
        "mean": round(float(scores.mean()), 1),
        "yardstick": None,
    }
    if against:
        out["yardstick"] = {
            "player": "difficile",
            "games": against["games"],
            "mean": round(float(against["mean"]), 1),
            "counts": np.histogram(stick, bins=edges)[0].tolist(),
        }
    return out


def _player(name: str, by_rules: dict[str, _Player], *, series: bool) -> dict[str, Any]:
    """One player's statistics; ``series``: with the totals over time (a player's page)."""
    rulebooks = []
    for rid in RULEBOOKS:
        p = by_rules.get(rid)
        if p is None or p.best is None:
            continue
        rulebooks.append(
            {
                "rules": rid,
                "name": RULEBOOKS[rid].name,
                "games": p.games,
                "wins": p.wins,
                "average": round(p.points / p.games, 1),
                "best": p.best[0],
                "best_game": p.best[1],
                "feats": {f: round(p.feats[f] / p.games, 4) for f in FEATS[rid]},
                "harmonies": round(p.harmonies / p.games, 2) if rid == "impossible" else None,
                "series": [list(point) for point in p.series[-SERIES_SHOWN:]] if series else None,
            }
        )
    return {
        "name": name,
        "computer": computer_kind(name),
        "games": sum(r["games"] for r in rulebooks),
        "wins": sum(r["wins"] for r in rulebooks),
        "rulebooks": rulebooks,
    }


def text_lines(data: dict[str, Any]) -> list[str]:
    """The records as the terminal shows them (``yamscope records``), in French."""
    lines = []
    where = f"table {data['table']}" if data["table"] else "toutes les tables"
    lines.append(f"Records ({where}) : {data['games']} parties terminées")
    for rb in data["rulebooks"]:
        lines += ["", f"== {rb['name']} ({rb['rules']}) : {rb['games']} parties"]
        lines.append("Meilleurs totaux :")
        for n, best in enumerate(rb["best"], 1):
            lines.append(
                f"  {n:>2}. {best['total']:>6}  {best['player']:<16} {best['at'][:10]}"
                f"  partie {best['game']}" + (f"  ({best['table']})" if best["table"] else "")
            )
        for mark in rb["marks"] or []:
            lines.append(
                f"  {mark['label']:<28} {mark['points']:>6}  {mark['player']}, "
                f"{mark['at'][:10]}, partie {mark['game']}"
            )
        if rb["personal"]:
            lines.append("Records personnels :")
        for p in rb["personal"]:
            lines.append(
                f"  {p['player']:<16} meilleur {p['best']:>6}  moyenne {p['average']:>8}  "
                f"{p['games']} parties, {p['wins']} gagnées"
            )
        hist = rb["histogram"]
        if hist and hist["yardstick"]:
            stick = hist["yardstick"]
            lines.append(
                f"Moyenne {hist['mean']} contre {stick['mean']} pour l'ordinateur difficile "
                f"({stick['games']} parties seul)"
            )
    for person in data["players"] if data["player"] else []:
        lines += ["", f"== {person['name']} : {person['games']} parties, {person['wins']} gagnées"]
        for rb in person["rulebooks"]:
            feats = ", ".join(f"{k} {v:.0%}" for k, v in rb["feats"].items())
            lines.append(
                f"  {rb['name']}: {rb['games']} parties, {rb['wins']} gagnées, moyenne "
                f"{rb['average']}, meilleur {rb['best']} ({feats})"
            )
    return lines
