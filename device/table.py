"""The table session: the current game, who may act, and every action kept as it happens.

Why one object: the page, a camera pipeline and the computer players all act on the same
game from different threads. Each action takes one lock, runs the ``Game`` method (which
changes nothing when the rules refuse it) and then ``Store.append``, so what the page shows
is always what the records hold; a crash loses nothing that was acknowledged, and a restart
shows the game played last again by replaying its log.

Slow work never runs under the lock: the advisor's first solve of a rulebook (tens of
seconds) and a computer player's first decisions run in one background worker, on a copy
of the game; the page gets the advice by push when it is ready. Pushed states are
"newest wins": each listener holds one state at most, so a slow client never makes a queue
grow.
"""

from __future__ import annotations

import logging
import os
import random
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, cast

from device.listeners import MAX_LISTENERS, Listener, Listeners
from device.moments import (
    Advised,
    ComputerFailed,
    Kept,
    Key,
    LastRead,
    Photo,
    ThrowCrops,
    Turn,
)
from device.storage import Store, StoreError
from device.table_camera import CameraActions
from device.table_state import computer_kind, computer_names, game_state
from device.table_worker import Worker
from device.words import french
from scoring.computer import computer_player, play_step, play_turn, roll
from scoring.entries import RulesError
from scoring.game import DiceLike, Game, as_dice

log = logging.getLogger(__name__)

Advisor = Callable[[Game], Mapping[str, Any]]  # the shape of scoring.advisor.moment
CROPS_KEPT = 16  # throws whose dice crops wait for a correction (a few turns back)


class _Recorded:
    """The game as a computer player acts on it: each of its actions is kept at once."""

    def __init__(self, game: Game, keep: Callable[[], None]) -> None:
        self._game = game
        self._keep = keep

    def __getattr__(self, name: str) -> Any:
        return getattr(self._game, name)

    def throw(self, dice: DiceLike, keep: Iterable[int] = ()) -> Any:
        out = self._game.throw(dice, keep)
        self._keep()
        return out

    def announce(self, box: str) -> None:
        self._game.announce(box)
        self._keep()

    def score(self, box: str | None = None) -> Any:
        out = self._game.score(box)
        self._keep()
        return out


class TableSession(Worker, CameraActions):
    """The current game of the table, its records, and the states pushed to the page."""

    def __init__(
        self,
        store: Store,
        *,
        rng: random.Random | None = None,
        cache_dir: str | os.PathLike[str] | None = None,
        advisor: Advisor | None = None,
        advice: bool = True,
        tray: str = "none",
        worker: bool = True,
        computer_pace: float = 0.0,
    ) -> None:
        self.store = store
        self.rng = rng or random.Random(int.from_bytes(os.urandom(16), "big"))
        if cache_dir is None:
            from device.paths import cache_dir as default_cache

            cache_dir = default_cache()
        self.cache_dir = str(cache_dir)
        self._advisor: Advisor | None = None
        if advice:
            self._advisor = advisor or self._default_advisor
        self.tray = tray
        self.instance = secrets.token_hex(4)
        self._lock = threading.RLock()
        self._listeners = Listeners()
        self._version = 0
        self._state: dict[str, Any] = {}
        # what holds at one moment of the game (device/moments.py), lapsing when it moves on
        self._advice = Advised()
        self._computer_error = ComputerFailed()
        self._keep = Kept()
        self._read = LastRead()
        self._crops: deque[ThrowCrops] = deque(maxlen=CROPS_KEPT)
        self._tray_status: dict[str, Any] | None = None
        self._stale = False  # the game in memory may be behind the records (they were away)
        self._storage_checked = 0.0
        self.watcher: Any = None  # device.tray.TrayWatcher when a camera feeds the table
        self.learner: Any = None  # device.learning.PlayLearner: the dice written, learned
        self._working = False
        self._wake = threading.Event()
        self._closed = threading.Event()
        # A computer's turn is played one move at a time, ``computer_pace`` seconds apart, so
        # that players follow it; « Passer » (``skip``) plays the rest of the turn at once.
        self.computer_pace = computer_pace
        self._skip = threading.Event()
        self._skipped: Turn | None = None  # the turn « Passer » was pressed in
        # the picture of a computer's throw on this table's tray (the simulated one draws it)
        self._photo = Photo()
        self.game: Game | None = None
        self.game_id: int | None = None
        self._resume()
        with self._lock:
            self._publish()
        self._thread: threading.Thread | None = None
        if worker:
            self._thread = threading.Thread(target=self._run, name="table-worker", daemon=True)
            self._thread.start()
            self._wake.set()

    # -- setup ------------------------------------------------------------------------
    def _resume(self) -> None:
        game_id = self.store.latest_game()
        if game_id is None:
            return
        try:
            self.game = self.store.load(game_id)
            self.game_id = game_id
        except Exception:  # a records file we cannot replay must not stop the appliance
            log.exception("game %s cannot be resumed; starting without a game", game_id)

    def _default_advisor(self, game: Game) -> Any:
        from scoring.advisor.moment import advise_game

        return advise_game(game, self.cache_dir)

    def close(self) -> None:
        """Stop the worker and close the records (tests; the server exits without it)."""
        self._closed.set()
        self._skip.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        with self._lock:
            self.store.close()

    # -- reading ------------------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        """The latest published state (never blocks on an action in progress)."""
        return self._state

    @property
    def version(self) -> int:
        return self._version

    def add_listener(
        self, limit: int = MAX_LISTENERS, *, client: str = "", loopback: bool = False
    ) -> Listener:
        """A new push client; it starts with the current state. Remove it when it leaves.

        At most ``PER_CLIENT_LISTENERS`` from one ``client`` address: a newer one ends the
        oldest (a page reloaded leaves its old stream until a keepalive finds it gone);
        ``limit`` from the network, and ``LOOPBACK_LISTENERS`` more for ``loopback`` ones
        apart, so that no number of phones or scripts on the network shuts out the kiosk.
        """
        listener = self._listeners.add(limit, client, loopback)
        listener.offer(self._state)
        return listener

    def remove_listener(self, listener: Listener) -> None:
        self._listeners.remove(listener)

    @contextmanager
    def subscribe(self, limit: int = MAX_LISTENERS) -> Iterator[Listener]:
        """A push client for as long as the block lasts."""
        listener = self.add_listener(limit)
        try:
            yield listener
        finally:
            self.remove_listener(listener)

    def wait_idle(self, timeout: float = 10.0) -> bool:
        """Wait until no computer turn or advice is due (tests, and the bench)."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            with self._lock:
                idle = not self._working and self._job() is None
            if idle:
                return True
            self._wake.set()
            time.sleep(0.005)
        return False

    # -- actions ------------------------------------------------------------------------
    def new_game(
        self, rules: str, options: Mapping[str, Any] | None, players: Sequence[str]
    ) -> dict[str, Any]:
        """Start a game; ``players`` are names, or "facile"/"difficile" for computers."""
        names = computer_names(list(players))
        game = Game(rules, names, dict(options or {}))
        for kind in {computer_kind(n) for n in names} - {None}:
            try:
                computer_player(cast(str, kind), rules, self.cache_dir)
            except ValueError as exc:
                raise RulesError(str(exc)) from None
        with self._lock:
            game_id = self.store.create(game)
            self.game, self.game_id = game, game_id
            self._computer_error = ComputerFailed()
            self._publish()
        self._wake.set()
        return self._state

    def throw(
        self, dice: DiceLike, keep: Iterable[int] = (), snapshot: bytes | None = None
    ) -> dict[str, Any]:
        """Dice read on the tray (the camera's way in), ``keep``: positions set aside."""
        keep = list(keep)
        return self._act(lambda g: g.throw(dice, keep), snapshot=snapshot, source="manual")

    def simulated_throw(self, keep: Iterable[int] = ()) -> dict[str, Any]:
        """The throw button: with a camera on the simulated tray, the dice not kept roll on it
        and the camera reads them (the page hears of it by push); without a camera, the
        session's generator throws them at once."""
        keep = list(keep)
        if self.watcher is None:
            return self._act(lambda g: g.throw(roll(g, self.rng, keep), keep), source="drawn")
        with self._lock:
            game = self._game()
            self._check_human(game)
            game.check_throw(keep)
            self.watcher.throw_simulated(game, keep, self.rng)  # RulesError: nothing changed
            self._keep = Kept(self._key(), sorted(set(keep)))
            self._publish()
        return self._state

    def set_keep(self, keep: Iterable[int]) -> dict[str, Any]:
        """The dice set aside for the next throw the camera reads (tapped on the page)."""
        keep = sorted(set(keep))
        with self._lock:
            game = self._game()
            self._check_human(game)
            game.check_throw(keep)
            self._keep = Kept(self._key(), keep)
            self._publish()
        return self._state

    def correct(
        self, dice: DiceLike, crops: Sequence[tuple[int, bytes]] = (), client: str | None = None
    ) -> dict[str, Any]:
        """A misread die put right: the full dice of the throw, as they really lie. The
        crops of the dice the camera read and the player changed are kept with it, and the
        address it came from (``client``), for the audit."""
        with self._lock:
            shown = self.game.throw_event() if self.game is not None else None
            read = next((c.crops for c in reversed(self._crops) if c.event is shown), None)
            if not crops and read and self.game is not None:
                before = self.game.dice or ()
                after = as_dice(dice)
                crops = [
                    (p, crop)
                    for p, crop in sorted(read.items())
                    if p < len(before) and p < len(after) and before[p] != after[p]
                ]
            return self._act(lambda g: g.correct(dice), crops=crops, client=client)

    def skip(self) -> dict[str, Any]:
        """« Passer »: the computer playing now plays the rest of its turn without pauses."""
        with self._lock:
            game = self._game()
            if game.finished or computer_kind(game.player) is None:
                raise RulesError("no computer is playing: nothing to skip")
            self._skipped = Turn(self.game_id, game.turn, game.current)
            self._skip.set()
        return self._state

    def photo(self) -> bytes | None:
        """The picture of the current throw when a computer threw it on a drawn tray."""
        return self._photo.picture if self._photo.at(self._key()) else None

    def announce(self, box: str) -> dict[str, Any]:
        return self._act(lambda g: g.announce(box))

    def score(self, box: str | None) -> dict[str, Any]:
        """Write the throw in ``box``; its dice, as written, are the table's to learn from."""
        with self._lock:
            written = self._written_dice()
        state = self._act(lambda g: g.score(box))
        if written is not None and self.learner is not None:
            self.learner.confirmed(written)
        return state

    def undo(self) -> dict[str, Any]:
        """Take back the last correction when it is the last thing done; else the last
        human entry, and the computers' entries written after it.

        Why more than one: computers play as soon as a human has written, so taking back
        only the computer's entry would let it play again at once.
        """
        with self._lock:
            game = self._game()
            if game.can_uncorrect() and computer_kind(game.player) is None:
                game.uncorrect()  # a die put right by mistake: the dice as they were read
                self._append(game)
                self._publish()
                return self._state
            humans = [i for i, w in enumerate(game.written) if computer_kind(w.player) is None]
            if not humans:
                raise RulesError("nothing to undo")
            for _ in range(len(game.written) - humans[-1]):
                game.undo()
                self._append(game)
            self._computer_error = ComputerFailed()
            self._publish()
        self._wake.set()
        return self._state

    # -- internals ------------------------------------------------------------------------
    def _game(self) -> Game:
        if self.game is None or self.game_id is None:
            raise RulesError("no game: start one")
        return self.game

    def _check_human(self, game: Game) -> None:
        if game.finished:
            raise RulesError("the game is over")
        if computer_kind(game.player) is not None:
            raise RulesError(f"it is {game.player}'s turn: the computer plays it")

    def _act(self, action: Callable[[Game], Any], **record: Any) -> dict[str, Any]:
        """One action of a player, kept with ``record`` (Store.append's keywords)."""
        with self._lock:
            game = self._game()
            self._check_human(game)
            action(game)
            self._append(game, **record)
            self._publish()
        self._wake.set()
        return self._state

    def _append(self, game: Game, **record: Any) -> None:
        """Keep the newest event; if that fails, the game goes back to what is kept (from
        the records, or without them when they cannot be reached: its log less the event
        that was not kept, made good from the records once they are back)."""
        assert self.game_id is not None
        try:
            self.store.append(self.game_id, game, **record)
        except BaseException:
            try:
                self.game = self.store.load(self.game_id)
            except StoreError:
                self.game = Game.replay(game.events[:-1])
                self._stale = True
            self._publish()
            raise

    def _key(self) -> Key | None:
        if self.game is None or self.game_id is None:
            return None
        return (self.game_id, len(self.game.events))

    def _publish(self) -> None:
        """Build the state and hand it to every listener (called with the lock held)."""
        self._version += 1
        key = self._key()
        game = self.game
        body = game_state(game, cast(int, self.game_id)) if game is not None else None
        advice, pending = None, False
        if body is not None and body["human_turn"] and body["dice"] and self._advisor:
            if self._advice.at(key):
                advice = self._advice.advice
            else:
                pending = True
        error = self._computer_error.why if self._computer_error.at(key) else None
        keep = self._keep.places if self._keep.at(key) else None
        unsure = self._read.unsure if self._read.at(key) else []
        camera = self._tray_status
        if camera is not None and camera.get("message"):
            camera = camera | {"message_fr": french(camera["message"])}
        self._state = {
            "version": self._version,
            "instance": self.instance,
            "tray": self.tray,
            "camera": camera,
            "keep": keep,
            "unsure": unsure,
            "game": body,
            "advice": advice,
            "advice_pending": pending,
            "computer_error": error,
            "computer_error_fr": french(error) if error else None,
            "photo": self._photo.number if self._photo.at(key) else None,
            "storage": {
                "kind": self.store.kind,
                "table": self.store.table,
                "error": self.store.reachable,
            },
        }
        self._listeners.offer(self._state)

    # -- a computer's turn (the worker runs it; here, beside the actions it makes) --------
    def _computer_turn(self, key: Key, kind: str, rehearsal: Game) -> None:
        player = computer_player(kind, rehearsal.rules, self.cache_dir)
        try:  # on a copy, outside the lock: any first-time solve happens here
            play_turn(rehearsal, player, random.Random(0))
        except Exception:
            log.debug("rehearsal of %s's turn failed", kind, exc_info=True)
        while not self._closed.is_set():
            with self._lock:
                if self._key() != key:
                    return  # someone acted meanwhile (undo, new game): look again
                game = self._game()
                try:
                    recorded = _Recorded(game, lambda g=game: self._keep_computers(g))
                    done = play_step(cast(Game, recorded), player, self.rng)
                except Exception as exc:
                    log.exception("computer %s could not play", game.player)
                    self._computer_error = ComputerFailed(self._key(), str(exc))
                    self._publish()
                    return
                key = cast(Key, self._key())
                dice = None if done else game.dice
                turn = Turn(self.game_id, game.turn, game.current)
                self._publish()
            if done:
                return
            self._show_throw(key, dice)
            self._pause(turn)

    def _keep_computers(self, game: Game) -> None:
        """A computer's action, kept (its throws marked as the computer's)."""
        source = "computer" if game.events[-1]["type"] == "throw" else None
        self._append(game, source=source)
