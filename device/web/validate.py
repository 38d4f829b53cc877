"""Request bodies checked before they reach the table: types, sizes, known names.

Why here and not in the game: the game refuses what the *rules* forbid (409); malformed or
oversized input is the client's fault (400) and is refused before any lock is taken, so a
refused request never changes anything. Every check names the field it refused.
"""

from __future__ import annotations

import dataclasses
import re
import unicodedata
from collections.abc import Mapping
from typing import Any

from device.table_state import COMPUTER_KINDS, computer_kind
from scoring.dice import TOKEN_PATTERN
from scoring.rulebooks import RULEBOOKS

NAME_MAX = 24
MAX_DICE = 12
MAX_DEPTH = 8  # no body the API takes nests deeper than 3
BOX_PATTERN = r"[A-Za-z0-9_]{1,24}"  # a box id (DESIGN.md), short enough to quote back
# fullmatch, never ``$``: a ``$`` also matches before a newline at the end ("7r\n")
_TOKEN = re.compile(TOKEN_PATTERN)
_BOX = re.compile(BOX_PATTERN)


class BadRequest(ValueError):
    """Input the API refuses before looking at the rules (HTTP 400)."""


def plain_json(data: Any) -> Any:
    """``data`` if it nests at most ``MAX_DEPTH`` deep and all its text (keys too) is
    Unicode; else BadRequest. Walked without recursion, so any depth is only refused."""
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, str):
            _unicode(value)
        elif isinstance(value, dict | list):
            if depth > MAX_DEPTH:
                raise BadRequest(f"the body nests deeper than {MAX_DEPTH} levels")
            items = value.items() if isinstance(value, dict) else enumerate(value)
            for key, item in items:
                if isinstance(key, str):
                    _unicode(key)
                stack.append((item, depth + 1))
    return data


def _unicode(text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise BadRequest("the body holds a lone surrogate, which is not Unicode text") from None


def body(data: Any, allowed: set[str], required: frozenset[str] = frozenset()) -> dict[str, Any]:
    """A JSON object with only known fields and every required one."""
    if not isinstance(data, dict):
        raise BadRequest("the body must be a JSON object")
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise BadRequest(f"unknown field {', '.join(unknown)}")
    missing = sorted(required - set(data))
    if missing:
        raise BadRequest(f"missing field {', '.join(missing)}")
    return data


def rules_id(value: Any) -> str:
    if not isinstance(value, str) or value not in RULEBOOKS:
        raise BadRequest(f"rules must be one of {', '.join(RULEBOOKS)}")
    return value


def options(value: Any, rules: str) -> dict[str, Any]:
    """Pre-game options: known names, and values of the type and range each declares."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise BadRequest("options must be an object")
    fields = {f.name: f for f in dataclasses.fields(RULEBOOKS[rules].options_type)}
    out = {}
    for name, v in value.items():
        if name not in fields:
            raise BadRequest(f"{rules} has no option {str(name)[:NAME_MAX]!r}")
        f = fields[name]
        choices = f.metadata.get("choices")
        if choices is not None:
            if not any(type(v) is type(c) and v == c for c in choices):
                raise BadRequest(f"option {name} must be one of {list(choices)}")
        elif type(v) is not type(f.default):
            raise BadRequest(f"option {name} must be {type(f.default).__name__}")
        bounds = f.metadata.get("bounds")
        if bounds is not None and not bounds[0] <= v <= bounds[1]:
            raise BadRequest(f"option {name} must be {bounds[0]} to {bounds[1]}")
        out[name] = v
    return out


def player_name(value: Any) -> str:
    if not isinstance(value, str):
        raise BadRequest("a player is a name or a computer kind (facile, difficile)")
    name = " ".join(value.split())
    if not 1 <= len(name) <= NAME_MAX:
        raise BadRequest(f"a player's name has 1 to {NAME_MAX} characters")
    if any(unicodedata.category(c).startswith("C") for c in name):
        raise BadRequest("a player's name has no control characters")
    if name.lower() not in COMPUTER_KINDS and computer_kind(name):
        raise BadRequest(f"the name {name!r} is kept for computer players")
    return name


def players(value: Any, max_players: int) -> list[str]:
    """Names, computer kinds, or a named computer: "facile:Rita"."""
    if not isinstance(value, list) or not 1 <= len(value) <= max_players:
        raise BadRequest(f"players must be a list of 1 to {max_players} players")
    names = [_player(v) for v in value]
    humans = [n.casefold() for n in names if n.lower() not in COMPUTER_KINDS]
    if len(set(humans)) != len(humans):
        raise BadRequest("two players have the same name")
    return names


def _player(value: Any) -> str:
    kind, sep, alias = value.partition(":") if isinstance(value, str) else ("", "", "")
    if sep and kind.strip().lower() in COMPUTER_KINDS:
        return f"{kind.strip().lower()}:{player_name(alias)}"
    return player_name(value)


def keep(value: Any, dice_count: int) -> list[int]:
    if value is None:
        return []
    if not isinstance(value, list) or len(value) > dice_count:
        raise BadRequest(f"keep must be a list of at most {dice_count} positions")
    if any(type(k) is not int or not 0 <= k < dice_count for k in value):
        raise BadRequest(f"keep lists dice positions 0 to {dice_count - 1}")
    if len(set(value)) != len(value):
        raise BadRequest("keep lists each position once")
    return sorted(value)


def dice(value: Any) -> list[str]:
    """Dice in the notation of DESIGN.md, one token per die (``7r``, ``10wf``, ``3``)."""
    if not isinstance(value, list) or not 1 <= len(value) <= MAX_DICE:
        raise BadRequest(f"dice must be a list of 1 to {MAX_DICE} dice tokens")
    if any(not isinstance(t, str) or not _TOKEN.fullmatch(t) for t in value):
        raise BadRequest("a die is a token like 7, 7r, 10wf or 3rt")
    return list(value)


def box(value: Any, *, nullable: bool = False) -> str | None:
    if value is None and nullable:
        return None
    if not isinstance(value, str) or not _BOX.fullmatch(value):
        raise BadRequest("box must be a box id such as brelan, 6 or petite_suite")
    return value


def anyway(value: Any) -> bool:
    if not isinstance(value, bool):
        raise BadRequest("anyway must be true or false")
    return value


def dice_count(state: Mapping[str, Any]) -> int:
    game = state.get("game") or {}
    return int(game.get("dice_count") or MAX_DICE)
