"""A kept game told again: its turns one by one (each with its throws, corrections and
entry), the sheet as it stood after each, and the points of any entry broken down (the
audit).

Why a replay: the log is the game, so everything here is what ``Game.replay`` gives back,
event by event, with the throws' records (photo, reading, source) and the corrections'
(who, when) joined from the tables written beside the log.
"""

from __future__ import annotations

from typing import Any

from device.storage import Store
from device.table_state import computer_kind, game_state
from scoring.dice import Die, format_dice
from scoring.entries import Entry
from scoring.game import Game, Written

PAGE = 50


class NoSuchGame(LookupError):
    """A game, or an entry of it, that the records do not hold (404)."""


def game_list(
    store: Store, *, table: str | None = None, offset: int = 0, limit: int = PAGE
) -> dict[str, Any]:
    """The kept games, newest first, with their results once finished."""
    total, shown = store.recent_games(table, offset, limit)
    results: dict[int, list[tuple]] = {}
    for row in store.results_of([g["id"] for g in shown]):
        results.setdefault(row[0], []).append(row)
    for game in shown:
        rows = results.get(game["id"], [])
        game["scores"] = {r[2]: r[6] for r in rows}
        game["winners"] = [r[2] for r in rows if r[7]]
    return {"games": shown, "total": total, "offset": offset, "limit": limit}


def _turn_steps(store: Store, game_id: int) -> tuple[Game, list[dict[str, Any]]]:
    """The game replayed, and one step per entry written or taken back, in order."""
    events = store.events(game_id)
    throws = {t["seq"]: t for t in store.throws(game_id)}
    corrections = {c["seq"]: c for c in store.corrections(game_id)}
    game = Game.replay(events[:1])
    steps: list[dict[str, Any]] = []
    turn: list[dict[str, Any]] = []  # the throws of the turn being played
    stack: list[list[dict[str, Any]]] = []  # turns closed by an entry, for an undo to reopen
    for seq, event in enumerate(events[1:], start=1):
        kind = event["type"]
        mover = game.player
        game._do(dict(event))  # one event at a time: replaying each prefix would be quadratic
        if kind == "throw":
            turn.append(_throw_step(seq, event, throws.get(seq)))
        elif kind == "correct" and turn:
            turn[-1]["corrections"].append(_correction_step(seq, event, corrections.get(seq),
                                                            mover))  # fmt: skip
        elif kind == "announce" and turn:
            turn[-1]["announced"] = event["box"]
        elif kind == "score":
            steps.append(_score_step(seq, game, turn))
            stack.append(turn)
            turn = []
        elif kind == "undo":
            turn = stack.pop() if stack else []
            steps.append({"seq": seq, "kind": "undo", "scores": game.scores()})
    return game, steps


def _throw_step(seq: int, event: dict[str, Any], row: dict[str, Any] | None) -> dict[str, Any]:
    return {
        "seq": seq,
        "throw_id": row["id"] if row else None,
        "throw": row["throw"] if row else None,
        "dice": event["dice"].split(),
        "kept": list(event.get("keep", [])),
        "source": row["source"] if row else None,
        "photo": bool(row and row["has_snapshot"]),
        "reading": row["reading"] if row else None,
        "at": row["at"] if row else None,
        "corrections": [],
        "announced": None,
    }


def _correction_step(
    seq: int, event: dict[str, Any], row: dict[str, Any] | None, player: str
) -> dict[str, Any]:
    before = (row["before"] if row else "").split()
    after = event["dice"].split()
    changed = [
        {"place": p, "from": before[p] if p < len(before) else None, "to": after[p]}
        for p in range(len(after))
        if p >= len(before) or before[p] != after[p]
    ]
    return {"seq": seq, "at": row["at"] if row else None, "client": row["client"] if row else None,
            "during": player, "changed": changed, "dice": after}  # fmt: skip


def _score_step(seq: int, game: Game, turn: list[dict[str, Any]]) -> dict[str, Any]:
    w = game.written[-1]
    return {
        "seq": seq,
        "kind": "score",
        "player": w.player,
        "turn": w.turn,
        "box": w.entry.box,
        "label": game.rulebook.box(w.entry.box).label,
        "points": w.entry.points,
        "bonus": w.entry.bonus,
        "why": w.entry.why,
        "dice": format_dice(w.dice).split(),
        "announced": w.announced,
        "throws": turn,
        "scores": game.scores(),
    }


def game_detail(store: Store, game_id: int) -> dict[str, Any]:
    """A game with its sheet as it ended (or stands) and its turns one by one."""
    info = store.game(game_id)
    if info is None:
        raise NoSuchGame(f"no game {game_id} in the records")
    game, steps = _turn_steps(store, game_id)
    state = game_state(game, game_id)
    keep = ("rules", "name", "kind", "players", "sheet", "sheets", "finished", "winners",
            "scores", "dice_count")  # fmt: skip
    return {**info, "state": {k: state[k] for k in keep}, "steps": steps}


def _entry_seq(store: Store, game_id: int, player: str, box: str) -> int:
    standing = [
        e["seq"]
        for e in store.entries(game_id)
        if not e["undone"] and e["player"] == player and e["box"] == box
    ]
    if not standing:
        raise NoSuchGame(f"{player!r} has written nothing in {box!r} in game {game_id}")
    return standing[-1]


def _multipliers(entry: Entry, dice: tuple[Die, ...]) -> list[dict[str, Any]]:
    """Each multiplier with the dice it rests on: a harmony's are the entry's dice (each
    group of one colour, or finish: ``looks`` says which), the first throw's the throw."""
    out = []
    for m in entry.multipliers:
        item: dict[str, Any] = {"x": m.x, "why": m.why, "dice": []}
        if m.why.startswith("harmonie"):
            item["dice"] = list(entry.dice)
            item["looks"] = sorted({str(dice[i])[len(str(dice[i].value)) :] for i in entry.dice})
        out.append(item)
    return out


def _origin(throws: list[dict[str, Any]], places: int) -> list[int | None]:
    """For each place of the final dice, the throw (index in ``throws``) that put it on
    the tray last: a die set aside was read on an earlier throw's photo."""
    origin: list[int | None] = [None] * places
    for i, t in enumerate(throws):
        for p in range(places):
            if p not in t["kept"]:
                origin[p] = i
    return origin


def audit(
    store: Store,
    game_id: int,
    *,
    seq: int | None = None,
    player: str | None = None,
    box: str | None = None,
) -> dict[str, Any]:
    """Why one entry scored what it did: the throws of its turn (photos, dice as read,
    corrections by whom and from what), the dice written and the points broken down (base,
    first throw, harmonies with their dice, the announced throw and its outcome)."""
    info = store.game(game_id)
    if info is None:
        raise NoSuchGame(f"no game {game_id} in the records")
    if seq is None:
        if player is None or box is None:
            raise NoSuchGame("say which entry: its seq, or its player and box")
        seq = _entry_seq(store, game_id, player, box)
    _, steps = _turn_steps(store, game_id)
    step = next((s for s in steps if s["seq"] == seq and s["kind"] == "score"), None)
    if step is None:
        raise NoSuchGame(f"event {seq} of game {game_id} is not an entry")
    replayed = Game.replay(store.events(game_id)[: seq + 1])
    written: Written = replayed.written[-1]
    entry = written.entry
    undone = next((e["undone"] for e in store.entries(game_id) if e["seq"] == seq), False)
    announced = None
    if written.announced is not None:
        announced = {
            "box": written.announced,
            "label": replayed.rulebook.box(written.announced).label,
            "throw": replayed.rulebook.announced_throw,
            "success": entry.points >= 0,
        }
    dice = written.dice
    return {
        "game": {k: info[k] for k in ("id", "rules", "players", "created", "table")},
        "name": replayed.rulebook.name,
        "seq": seq,
        "undone": undone,
        "player": written.player,
        "computer": computer_kind(written.player),
        "turn": written.turn,
        "box": entry.box,
        "label": replayed.rulebook.box(entry.box).label,
        "section": entry.section,
        "points": entry.points,
        "bonus": entry.bonus,
        "base": entry.base,
        "why": entry.why,
        "first_throw": written.throw == 1,
        "throw": written.throw,
        "multipliers": _multipliers(entry, dice),
        "announced": announced,
        "dice": [d.to_json() | {"text": str(d)} for d in dice],
        "used": list(entry.dice),
        "throws": step["throws"],
        "origin": _origin(step["throws"], len(dice)),
    }
