"""The table session's camera half: throws read on the tray, the calibration asked from
the page, and the dice a written throw confirms for learning from play.

Why apart: ``TableSession`` (device/table.py) holds the game and its actions; what only a
camera brings is here, and reads the state set up in ``TableSession.__init__``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from device.learning import Confirmed
from device.merge import place_reading
from device.moments import LastRead, ThrowCrops
from scoring.entries import RulesError
from scoring.game import as_dice
from vision.reading import Reading


class CalibrationRefused(RulesError):
    """Calibrating was refused because dice lie on the tray (``seen``: their boxes)."""

    def __init__(self, message: str, seen: list[tuple[int, int, int, int]]) -> None:
        super().__init__(message)
        self.seen = seen


class CameraActions:
    """The camera's part of ``TableSession``."""

    def dice_to_throw(self) -> int | None:
        """How many dice the next throw puts on the tray: the rulebook's, less those set
        aside after the turn's first throw (None without a game in play)."""
        with self._lock:
            game = self.game
            if game is None or game.finished:
                return None
            at = self._keep.key == self._key() and game.dice is not None
            kept = set(self._keep.places) if at else set()
            return game.rulebook.dice_count - len(kept)

    def camera_throw(
        self, reading: Reading, *, snapshot: bytes | None = None, crops: Sequence[bytes] = ()
    ) -> dict[str, Any]:
        """Dice the camera read on the tray: they fill the places not set aside. Raises
        RulesError (nothing recorded) when they cannot be this throw."""
        with self._lock:
            try:
                placed, keep = self._record_reading(reading, snapshot)
            finally:  # under the lock: a throw asked meanwhile waits for this one to be kept
                if self.watcher is not None:
                    self.watcher.roll_done()
            previous = self._read.crops if self._read.key is not None else {}
            by_place = {p: previous[p] for p in keep if p in previous}
            by_place |= {
                p: crops[j] for p, j in enumerate(placed.source) if j is not None and j < len(crops)
            }
            self._read = LastRead(self._key(), list(placed.unsure), by_place)
            event = cast(dict[str, Any], self._game().throw_event())
            self._crops.append(ThrowCrops(event, by_place))
            self._publish()
        self._wake.set()
        return self._state

    def _record_reading(self, reading: Reading, snapshot: bytes | None) -> tuple[Any, list[int]]:
        """The reading placed and kept as this throw (lock held): its placement, and the
        places that were set aside."""
        game = self._game()
        self._check_human(game)
        keep = self._keep.places if self._keep.key == self._key() else []
        placed = place_reading(game, reading.dice, keep)
        game.throw(placed.dice, keep)
        source = "simulated" if "simulated" in self.tray else "camera"
        self._append(game, snapshot=snapshot, source=source, reading=reading_json(reading, placed))
        return placed, keep

    def calibrate(self, anyway: bool = False) -> dict[str, Any]:
        """The camera calibrated on the tray it sees now, which should be empty (the page's
        button). Raises RulesError, with the calibration in use kept, without a camera,
        before its first picture, when no felt is found or the file cannot be written, and
        CalibrationRefused when dice are in view (unless ``anyway``: the page asks first)."""
        from device.tray import DiceInView, TrayError
        from vision.errors import VisionError

        if self.watcher is None:
            raise RulesError("no camera: there is nothing to calibrate")
        try:
            self.watcher.calibrate(anyway=anyway)
        except DiceInView as exc:
            raise CalibrationRefused(f"the tray could not be calibrated: {exc}", exc.seen) from None
        except (TrayError, VisionError, OSError) as exc:
            raise RulesError(f"the tray could not be calibrated: {exc}") from None
        self.set_tray_status(self.watcher.status())
        return self._state

    def set_tray_status(self, status: dict[str, Any]) -> None:
        """What the page shows of the camera (the tray watcher calls this on a change)."""
        with self._lock:
            self._tray_status = status
            self._publish()

    def _written_dice(self) -> Confirmed | None:
        """The crops the camera cut of the dice on the table and their values now (those
        the players corrected marked), or None when the camera did not read them."""
        game = self.game
        shown = game.throw_event() if game is not None else None
        crops = next((c.crops for c in reversed(self._crops) if c.event is shown), None)
        if not crops or game is None or shown is None or game.dice is None:
            return None
        read = as_dice(shown["dice"])
        values = {p: d.value for p, d in enumerate(game.dice)}
        corrected = frozenset(p for p in crops if p < len(read) and read[p] != game.dice[p])
        return Confirmed(crops, values, corrected, game.rulebook.kind)


def reading_json(reading: Reading, placed: Any) -> dict[str, Any]:
    """Where on the throw's photo each place's die was read (None: a die set aside), for
    the audit to draw them."""
    dice: list[dict[str, Any] | None] = []
    for j in placed.source:
        dice.append(None if j is None else reading.dice[j].to_json())
    return {"size": list(reading.size), "dice": dice}
