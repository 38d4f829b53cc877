"""The table session's background worker: it plays the computers' turns (each move kept and
published by ``TableSession._computer_turn``, beside the actions it makes) and computes the
advice.

Why apart from the page's actions: a computer's first decisions and the advisor's first solve
of a rulebook take tens of seconds, so they run in one worker thread on a copy of the game
(``snapshot_of``), outside the session's lock. ``Worker`` is ``TableSession``'s half that does
this; the state it reads is set up in ``TableSession.__init__``.
"""

from __future__ import annotations

import copy
import logging
import time
from collections.abc import Mapping
from typing import Any, cast

from device import memory
from device.moments import (
    Advised,
    ComputerFailed,
    Job,
    Key,
    Photo,
    Turn,
)
from device.storage import StoreError
from device.table_state import computer_kind
from scoring.entries import RulesError
from scoring.game import Game

log = logging.getLogger(__name__)
STORAGE_CHECK_S = 1.0  # how often the worker asks whether the records can be reached


class Worker:
    """The worker's part of ``TableSession`` (its thread runs ``_run``)."""

    def _job(self) -> Job | None:
        """What the worker should do next (lock held): a computer turn, advice, or nothing."""
        game, key = self.game, self._key()
        if game is None or key is None or game.finished:
            return None
        kind = computer_kind(game.player)
        if kind is not None:
            if self._computer_error.at(key):
                return None
            return Job("computer", key, kind)
        if self._state.get("advice_pending"):
            return Job("advice", key)
        return None

    def _run(self) -> None:
        while not self._closed.is_set():
            self._wake.wait(timeout=1.0)
            self._wake.clear()
            if time.monotonic() - self._storage_checked >= STORAGE_CHECK_S:
                self._storage_checked = time.monotonic()
                self.check_storage()
            while not self._closed.is_set():
                with self._lock:
                    job = self._job()
                    if job is None:
                        break
                    self._working = True
                    snapshot = snapshot_of(cast(Game, self.game))
                try:
                    if job.what == "computer":
                        self._computer_turn(job.key, cast(str, job.kind), cast(Game, snapshot))
                    else:
                        self._compute_advice(job.key, cast(Game, snapshot))
                except Exception as exc:  # the worker survives anything a player or advisor does
                    log.exception("table worker: %s failed", job.what)
                    self._give_up(job, str(exc))
                finally:
                    self._working = False
                    memory.trim()  # an advisor's turn frees tens of MB of tables

    def check_storage(self) -> None:
        """Ask the records whether they can be reached, and tell the page when that
        changes; once they are back, the game is the one they hold (an action whose answer
        was lost with the connection may have been kept after all)."""
        was = self.store.reachable
        now = self.store.ping()
        if now is None and (was is not None or self._stale):
            with self._lock:
                if self.game_id is not None:
                    try:
                        self.game = self.store.load(self.game_id)
                        self._stale = False
                    except StoreError:
                        log.exception("game %s cannot be reloaded", self.game_id)
                self._computer_error = ComputerFailed()
        shown = (self._state.get("storage") or {}).get("error")
        if now != shown:
            log.warning("records: %s", now or "reachable again")
            with self._lock:
                self._publish()
            self._wake.set()

    def _give_up(self, job: Job, why: str) -> None:
        """Mark a job that failed as done, so the worker does not retry it in a loop."""
        with self._lock:
            if job.what == "computer":
                self._computer_error = ComputerFailed(job.key, why)
            else:
                self._advice = Advised(job.key, None)
            if self._key() == job.key:
                self._publish()

    def _pause(self, turn: Turn) -> None:
        """Between two moves of a computer: the pace, unless its turn was skipped."""
        self._skip.clear()  # before looking: a skip coming meanwhile still wakes the wait
        if self._skipped != turn:
            self._skip.wait(self.computer_pace)

    def _show_throw(self, key: Key, dice: Any) -> None:
        """Draw a computer's throw on the tray, where the tray can be drawn (outside the lock:
        a drawing takes a fifth of a second)."""
        draw = getattr(self.watcher, "picture_of", None)
        if draw is None or dice is None or self.computer_pace <= 0:
            return
        try:
            picture = draw(dice)
        except Exception:  # a picture is a nicety: the turn goes on without it
            log.exception("the computer's throw could not be drawn")
            return
        with self._lock:
            if picture is not None and self._key() == key:
                self._photo = Photo(key, self._photo.number + 1, picture)
                self._publish()

    def _compute_advice(self, key: Key, game: Game) -> None:
        assert self._advisor is not None
        try:
            advice: dict[str, Any] | None = advice_json(self._advisor(game))
        except RulesError:
            advice = None  # no advisor for these rules, or nothing to advise now
        except Exception:
            log.exception("advisor failed")
            advice = None
        with self._lock:
            self._advice = Advised(key, advice)
            if self._key() == key:
                self._publish()


def snapshot_of(game: Game) -> Game:
    """A copy of the game for work outside the lock (advice, a computer's rehearsal).

    Lists of things never changed once made (logged events, written entries: frozen) are
    copied without their items, and the rulebook is shared: deep-copying a long game cost
    tens of milliseconds under the lock. The sheets, which actions change, are deep-copied.
    """
    memo: dict[int, Any] = {id(game.rulebook): game.rulebook}
    for name in ("events", "_effective", "written"):
        items = getattr(game, name, None)
        if isinstance(items, list):
            memo[id(items)] = list(items)
    return copy.deepcopy(game, memo)


def advice_json(advice: Mapping[str, Any], shown: int = 6) -> dict[str, Any]:
    """The advice as the page reads it: the shape of ``scoring.advisor.moment`` trimmed to
    the few best ``entries``, ``keeps`` and ``announces``; per-box odds are left out (more
    than the page shows)."""
    out: dict[str, Any] = {"objective": advice["objective"], "value": advice["value"]}
    for group in ("entries", "keeps", "announces"):
        out[group] = [_lean(item) for item in (advice.get(group) or [])[:shown]]
    out["best"] = _lean(advice.get("best") or {})
    return out


def _lean(option: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in option.items() if k not in ("fill", "crossed")}
