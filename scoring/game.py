"""A game as an event log: players, turns, throws, announced throws, entries, undo.

Every action is an event; the state is what replaying the events gives, so a saved log
replays a game exactly, and undo is an event too (the records keep what was undone).
The rules themselves live in the rulebook; this module only knows turn order and limits.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from scoring.dice import Die, NotationError, format_dice, parse_dice
from scoring.entries import Entry, RulesError
from scoring.rulebooks import Options, Rulebook, Table, Total, get_rulebook

FORMAT_VERSION = 1
MAX_PLAYERS = 12
DiceLike = str | Sequence[Die] | Sequence[str]


def as_dice(value: DiceLike) -> tuple[Die, ...]:
    """Dice given to an action; bad notation is refused as a RulesError like any other."""
    try:
        if isinstance(value, str):
            return parse_dice(value)
        if all(isinstance(d, Die) for d in value):
            return tuple(value)  # type: ignore[arg-type]
        return tuple(Die.from_json(d) for d in value)
    except (NotationError, TypeError) as exc:
        raise RulesError(f"bad dice: {exc}") from None


@dataclass(frozen=True)
class Written:
    """One entry on the sheet, as the records keep it."""

    turn: int
    player: str
    dice: tuple[Die, ...]
    throw: int
    entry: Entry
    announced: str | None

    def to_json(self) -> dict[str, Any]:
        return {
            "turn": self.turn,
            "player": self.player,
            "dice": format_dice(self.dice),
            "throw": self.throw,
            "announced": self.announced,
            **self.entry.to_json(),
        }


class Game:
    """One game of one rulebook. Methods raise RulesError and change nothing when refused."""

    def __init__(
        self,
        rules: str,
        players: Sequence[str],
        options: Mapping[str, Any] | Options | None = None,
    ) -> None:
        if not isinstance(options, Options):
            options = dict(options or {})
        rulebook = get_rulebook(rules, options)
        names = [str(p).strip() for p in players]
        if not names:
            raise RulesError("a game needs at least one player")
        if len(names) > MAX_PLAYERS:
            raise RulesError(f"at most {MAX_PLAYERS} players")
        if any(not n for n in names) or len(set(names)) != len(names):
            raise RulesError("player names must be non-empty and different")
        start = {
            "type": "new_game",
            "rules": rules,
            "options": rulebook.options.to_dict(),
            "players": names,
        }
        self.events: list[dict[str, Any]] = [start]
        self._effective: list[dict[str, Any]] = [start]
        self._start(start)

    # -- state ------------------------------------------------------------------------
    def _start(self, event: dict[str, Any]) -> None:
        self.rulebook: Rulebook = get_rulebook(event["rules"], event["options"])
        self.players: list[str] = list(event["players"])
        self.table = Table([self.rulebook.new_sheet(p) for p in self.players])
        self.written: list[Written] = []
        self.current = 0
        self.throw_no = 0
        self.dice: tuple[Die, ...] | None = None
        self.announced: str | None = None

    @property
    def rules(self) -> str:
        return self.rulebook.id

    @property
    def player(self) -> str:
        return self.players[self.current]

    @property
    def turn(self) -> int:
        return len(self.written) + 1

    @property
    def effective(self) -> tuple[dict[str, Any], ...]:
        """The events that make the game as it stands: the log without what undo took back
        (why: records about the dice on the table, such as a correction's "before", must
        not look at an undone throw)."""
        return tuple(self._effective)

    def throw_event(self) -> dict[str, Any] | None:
        """The logged throw whose dice are on the table (corrected since, maybe), None before
        the turn's first throw."""
        if self.dice is None:
            return None
        return next(e for e in reversed(self._effective) if e["type"] == "throw")

    @property
    def finished(self) -> bool:
        return self.rulebook.finished(self.table)

    def totals(self, player: int | str) -> list[Total]:
        return self.rulebook.totals(self.table, self._index(player))

    def scores(self) -> dict[str, int]:
        return {p: self.rulebook.grand_total(self.table, i) for i, p in enumerate(self.players)}

    def winners(self) -> list[str]:
        """The players with the best total once the game is over (several on a tie)."""
        if not self.finished:
            return []
        scores = self.scores()
        best = max(scores.values())
        return [p for p, s in scores.items() if s == best]

    def _index(self, player: int | str) -> int:
        if isinstance(player, int):
            if not 0 <= player < len(self.players):
                raise RulesError(f"no player number {player}")
            return player
        try:
            return self.players.index(player)
        except ValueError:
            raise RulesError(f"no player named {player!r}") from None

    # -- actions ----------------------------------------------------------------------
    def draw_order(self, throws: Mapping[str, DiceLike]) -> list[str]:
        """Order the players by one throw each, highest total first (« désigné par les dés »)."""
        event = {
            "type": "order",
            "throws": {p: format_dice(as_dice(d)) for p, d in throws.items()},
        }
        self._do(event)
        return list(self.players)

    def throw(self, dice: DiceLike, keep: Iterable[int] = ()) -> tuple[Die, ...]:
        """The dice after a throw; ``keep`` lists the positions of dice set aside (unchanged)."""
        try:
            kept = sorted({int(k) for k in keep})
        except (TypeError, ValueError):
            raise RulesError(f"keep lists dice positions (0, 1, ...), not {keep!r}") from None
        event = {"type": "throw", "dice": format_dice(as_dice(dice)), "keep": kept}
        self._do(event)
        assert self.dice is not None
        return self.dice

    def announce(self, box: str) -> None:
        """Announce the extra throw (Yams impossible's sixth, Cameroun's third) for a box."""
        self._do({"type": "announce", "box": box})

    def choices(self) -> list[Entry]:
        """The entries the current player may write now, best first."""
        if self.finished:
            raise RulesError("the game is over")
        if self.dice is None:
            raise RulesError(f"{self.player} has not thrown yet")
        if self.announced is not None and self.throw_no <= self.rulebook.max_throws:
            raise RulesError(f"throw again: the {self.rulebook.announced_throw} was announced")
        return self.rulebook.choices(
            self.table,
            self.current,
            self.dice,
            first=self.throw_no == 1,
            announced=self.announced,
        )

    def score(self, box: str | None = None) -> Written:
        """Write the current dice in ``box`` (may be omitted after an announced throw)."""
        self._do({"type": "score", "box": box})
        return self.written[-1]

    def correct(self, dice: DiceLike) -> tuple[Die, ...]:
        """Replace the dice of the current throw (a misread die): same turn, same throw."""
        self._do({"type": "correct", "dice": format_dice(as_dice(dice))})
        assert self.dice is not None
        return self.dice

    def uncorrect(self) -> tuple[Die, ...]:
        """Take back the last correction, when it is the last thing done: the dice are as
        they were before it (a die put right by mistake)."""
        last = self._effective[-1] if len(self._effective) > 1 else None
        if last is None or last["type"] != "correct":
            raise RulesError("no correction to undo")
        of = next(i for i in range(len(self.events) - 1, -1, -1) if self.events[i] is last)
        self._do({"type": "uncorrect", "of": of})
        assert self.dice is not None
        return self.dice

    def can_uncorrect(self) -> bool:
        """Whether the last thing done is a correction (``uncorrect`` takes it back)."""
        return len(self._effective) > 1 and self._effective[-1]["type"] == "correct"

    def undo(self) -> Written:
        """Take back the last entry: its turn is open again with the dice as they were."""
        last = self.written[-1] if self.written else None
        self._do({"type": "undo"})
        assert last is not None
        return last

    # -- events -----------------------------------------------------------------------
    def _do(self, event: dict[str, Any]) -> None:
        self._apply(event)
        self.events.append(event)

    def _apply(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        handler = {
            "order": self._on_order,
            "throw": self._on_throw,
            "announce": self._on_announce,
            "score": self._on_score,
            "correct": self._on_correct,
            "undo": self._on_undo,
            "uncorrect": self._on_uncorrect,
        }.get(kind)  # type: ignore[arg-type]
        if handler is None:
            raise RulesError(f"unknown event type {kind!r}")
        try:
            handler(event)
        except RulesError:
            raise
        except (NotationError, KeyError, TypeError, ValueError, AttributeError) as exc:
            raise RulesError(f"malformed {kind} event: {exc}") from None
        if kind not in ("undo", "uncorrect"):
            self._effective.append(event)

    def _on_order(self, event: dict[str, Any]) -> None:
        if self.written or self.dice is not None:
            raise RulesError("the order is drawn before the first throw")
        throws = {p: parse_dice(d) for p, d in event["throws"].items()}
        if sorted(throws) != sorted(self.players):
            raise RulesError("draw the order with one throw for every player")
        for d in throws.values():
            self.rulebook.validate(d)
        sums = {p: sum(x.value for x in d) for p, d in throws.items()}
        tied = [p for p in self.players if list(sums.values()).count(sums[p]) > 1]
        if tied:
            raise RulesError(f"tie between {', '.join(tied)}: they throw again")
        order = sorted(self.players, key=lambda p: -sums[p])
        self.table.sheets.sort(key=lambda s: order.index(s.player))
        self.players = order

    def _on_throw(self, event: dict[str, Any]) -> None:
        dice = parse_dice(event["dice"])
        keep = [int(k) for k in event.get("keep", [])]
        self.check_throw(keep)
        self.rulebook.validate(dice)
        for k in keep:
            assert self.dice is not None
            if dice[k] != self.dice[k]:
                raise RulesError(f"die {k} was kept as {self.dice[k]}, not {dice[k]}")
        self.dice = dice
        self.throw_no += 1

    def check_throw(self, keep: Iterable[int] = ()) -> None:
        """Raise RulesError unless the current player may throw now, setting ``keep`` aside
        (the camera asks before the dice are on the tray)."""
        if self.finished:
            raise RulesError("the game is over")
        rb = self.rulebook
        limit = rb.max_throws + (1 if self.announced is not None else 0)
        if self.throw_no >= limit:
            if self.announced is None and rb.announced_throw:
                raise RulesError(
                    f"{self.player} has thrown {self.throw_no} times: write an entry "
                    f"or announce the {rb.announced_throw}"
                )
            raise RulesError(f"{self.player} has thrown {self.throw_no} times: write an entry")
        keep = list(keep)
        if keep and self.dice is None:
            raise RulesError("nothing to keep before the first throw of a turn")
        for k in keep:
            if not 0 <= k < rb.dice_count:
                raise RulesError(f"kept die {k} does not exist")

    def _on_correct(self, event: dict[str, Any]) -> None:
        if self.dice is None:
            raise RulesError("no throw to correct")
        dice = parse_dice(event["dice"])
        self.rulebook.validate(dice)
        self.dice = dice

    def _on_announce(self, event: dict[str, Any]) -> None:
        box = event["box"]
        rb = self.rulebook
        if rb.announced_throw is None:
            raise RulesError(f"{rb.id} has no announced extra throw")
        if self.announced is not None:
            raise RulesError(f"the {rb.announced_throw} is already announced for {self.announced}")
        if self.throw_no != rb.max_throws:
            raise RulesError(f"the {rb.announced_throw} is announced after throw {rb.max_throws}")
        rb.check_announce(box)
        if not rb.is_open(self.table, self.current, box):
            raise RulesError(f"box {box} is not open")
        self.announced = box

    def _on_score(self, event: dict[str, Any]) -> None:
        box = event["box"]
        options = self.choices()
        if box is None:
            if len(options) != 1:
                raise RulesError("choose a box")
            entry = options[0]
        else:
            self.rulebook.box(box)
            found = [e for e in options if e.box == box]
            if not found:
                raise RulesError(f"box {box} cannot be written now")
            entry = found[0]
        assert self.dice is not None
        self.rulebook.record(self.table, self.current, entry, self.announced)
        self.table.sheets[self.current].turns += 1
        self.written.append(
            Written(self.turn, self.player, self.dice, self.throw_no, entry, self.announced)
        )
        self.current = (self.current + 1) % len(self.players)
        self.throw_no = 0
        self.dice = None
        self.announced = None

    def _on_undo(self, event: dict[str, Any]) -> None:
        last = max((i for i, e in enumerate(self._effective) if e["type"] == "score"), default=None)
        if last is None:
            raise RulesError("nothing to undo")
        effective = self._effective[:last]
        self._effective = effective[:1]
        self._start(effective[0])
        for e in effective[1:]:
            self._apply(e)

    def _on_uncorrect(self, event: dict[str, Any]) -> None:
        of = int(event["of"])
        if not (0 < of < len(self.events) and self._effective[-1] is self.events[of]):
            raise RulesError("no correction to undo")
        if self.events[of]["type"] != "correct":
            raise RulesError("no correction to undo")
        effective = self._effective[:-1]
        self._effective = effective[:1]
        self._start(effective[0])
        for e in effective[1:]:
            self._apply(e)

    def turn_start(self) -> Game:
        """A copy of this game at the start of the current turn, its throws taken back.

        An advisor asked about a described moment (these dice, at throw n) replays the
        throws on this copy; the game itself and its log are left alone.
        """
        turn_begins = max(
            i for i, e in enumerate(self._effective) if e["type"] in ("new_game", "order", "score")
        )  # throws, corrections and announcements after it belong to the current turn
        return Game.replay(self._effective[: turn_begins + 1])

    # -- JSON ---------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {
            "format": "yamscope-game",
            "version": FORMAT_VERSION,
            "events": copy.deepcopy(self.events),
            "state": {
                "rules": self.rules,
                "players": list(self.players),
                "turn": self.turn,
                "player": None if self.finished else self.player,
                "throw": self.throw_no,
                "dice": format_dice(self.dice) if self.dice else None,
                "announced": self.announced,
                "written": [w.to_json() for w in self.written],
                "closed": dict(self.table.closed),
                "totals": {
                    p: {t.key: t.points for t in self.totals(i)} for i, p in enumerate(self.players)
                },
                "finished": self.finished,
                "winners": self.winners(),
            },
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Game:
        """Replay a saved game. Only the events are read: the state is always recomputed."""
        if not isinstance(data, Mapping) or data.get("format") != "yamscope-game":
            raise RulesError("not a yamscope game file")
        if data.get("version") != FORMAT_VERSION:
            raise RulesError(f"unsupported game file version {data.get('version')!r}")
        return cls.replay(data.get("events") or [])

    @classmethod
    def replay(cls, events: Sequence[Mapping[str, Any]]) -> Game:
        if not isinstance(events, Sequence) or isinstance(events, str):
            raise RulesError("a game log is a list of events")
        if not events or not isinstance(events[0], Mapping) or events[0].get("type") != "new_game":
            raise RulesError("a game log starts with a new_game event")
        first = events[0]
        try:
            game = cls(first["rules"], first["players"], first.get("options"))
        except KeyError as exc:
            raise RulesError(f"event 0 (new_game): lacks {exc}") from None
        except (ValueError, TypeError, AttributeError) as exc:  # RulesError is a ValueError
            raise RulesError(f"event 0 (new_game): {exc}") from None
        for n, event in enumerate(events[1:], start=1):
            if not isinstance(event, Mapping):
                raise RulesError(f"event {n}: not an event object: {event!r}")
            try:
                game._do(dict(event))
            except RulesError as exc:
                raise RulesError(f"event {n} ({event.get('type')}): {exc}") from None
        return game
