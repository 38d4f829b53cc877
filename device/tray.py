"""The tray watcher: camera frames in, throws recorded in the table session.

One thread takes the newest frame from the camera runner (older unread ones were already
dropped there), feeds the small stream to the settle detector, and when the dice come to
rest reads the full frame and hands the dice to the session, with the frame as evidence and
a crop of each die for corrections. Reading runs here, never in a web request: the page
learns of the throw by push.

The live view is encoded here too, once per new picture and only while someone has asked
for it in the last few seconds, so ten phones watching cost one JPEG encode, and an
unwatched tray costs none.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from device import memory
from device.camera import CameraRunner, Frame
from device.storage import StoreError
from scoring.computer import IMPOSSIBLE_SET
from scoring.dice import Die
from scoring.entries import RulesError
from scoring.game import Game
from vision.calibration import Calibration
from vision.errors import VisionError
from vision.faces import crop_square
from vision.overlay import draw
from vision.reading import Reading
from vision.recognise import Recogniser
from vision.settle import SettleDetector

log = logging.getLogger(__name__)


class TrayError(RuntimeError):
    """Something asked of the tray that it cannot do now (said to the player as it is)."""


class DiceInView(TrayError):
    """Calibrating was asked with dice on the tray (``seen``: their boxes): they would be
    taken for felt, and the die size for theirs. Nothing was changed."""

    def __init__(self, seen: list[tuple[int, int, int, int]]) -> None:
        n = len(seen)
        them = "it" if n == 1 else "them"
        super().__init__(
            f"{n} {'die' if n == 1 else 'dice'} in view: take {them} out of the tray, then "
            "calibrate"
        )
        self.seen = seen


LIVE_WATCHED_S = 5.0  # a live picture is encoded while someone asked for one this recently
LOOK_EVERY_S = 10.0  # the tray at rest is compared with its empty picture this often
# A simulated throw is refused while the last one rolls; past this, a roll that was never
# seen to end (the camera stalled meanwhile) no longer holds the button.
ROLL_TIMEOUT_S = 10.0
LIVE_STILL_FACTOR = 5  # while the tray lies still, the live picture is encoded 5x less often
# Crops kept for corrections: cut by the model's own rule (vision.faces), in colour and
# larger than any model input so far, so that a later model can still learn from them.
CROP_PX = 96


class TrayWatcher:
    """Camera → settle → recognise → ``session.camera_throw``, in one background thread."""

    def __init__(
        self,
        session: Any,
        runner: CameraRunner,
        recogniser: Recogniser,
        *,
        detector: SettleDetector | None = None,
        live_fps: float = 2.0,
        snapshots: bool = True,
        lock_exposure: bool = False,
        lock_after_calibrating: bool = False,
        calibration_path: Path | None = None,
        field_of_view: float | None = None,
        field_of_view_from: str = "file",
    ) -> None:
        self.session = session
        self.runner = runner
        self.recogniser = recogniser
        self.detector = detector or SettleDetector()
        self.live_interval = 1.0 / live_fps
        self.snapshots = snapshots
        self.lock_exposure = lock_exposure
        self.lock_after_calibrating = lock_after_calibrating
        self.calibration_path = calibration_path
        self.field_of_view = field_of_view  # the configuration's; None: the camera's own
        # who told the calibration in use its field of view: file, camera, configuration, default
        self.field_of_view_from = field_of_view_from
        # boxes the reader took for dice on the picture calibrated on (None: not known, the
        # calibration came from a file)
        self.dice_seen: list[tuple[int, int, int, int]] | None = None
        self._locked_for: int | None = None  # the runner's reopen count when last locked
        self._calibrating = threading.Lock()  # one calibration at a time
        self._frame: Frame | None = None  # the newest frame, for calibrating on
        # the page's summary of the calibration in use, made once per calibration: the status
        # is asked for on every frame
        self._summary: tuple[Any, dict[str, Any] | None] = (None, None)
        self._lock = threading.Lock()
        self._live: bytes | None = None
        self._live_at = 0.0
        self._watched_at = 0.0
        self._overlay: Reading | None = None
        self._live_overlay: Reading | None = None  # the reading drawn on the live picture
        # the reader's reason to flag every die, else what went wrong with the last throw
        self._message: str | None = recogniser.distrust
        self._reading_ms: float | None = None
        self._looked_at = -LOOK_EVERY_S  # when the tray at rest was last compared
        self._view_said: str | None = None  # what that comparison last told the players
        self._published: tuple[Any, ...] | None = None
        self._rolling_since: float | None = None  # a simulated throw not read yet
        self.lesson: Any = None  # device.teach.Lesson while the owner teaches the dice
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="tray-watcher", daemon=True)

    # -- life -------------------------------------------------------------------------------
    def start(self) -> None:
        self.runner.start()
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5)
        self.runner.stop()

    # -- what the page asks for -----------------------------------------------------------
    def status(self) -> dict[str, Any]:
        """The camera and the reader as the page shows them."""
        camera = self.runner.state()
        with self._lock:
            return {
                "source": camera.get("source"),
                "state": camera.get("state"),
                "error": camera.get("error"),
                "fps": camera.get("fps"),
                "drops": camera.get("drops"),
                "message": self._message,
                "reading_ms": self._reading_ms,
                "can_throw": callable(getattr(self.runner.source, "throw", None)),
                # until the tray is first seen at rest no throw can be told from the tray
                "starting": self.detector.state == "warming",
                "calibration": self._calibration_summary(),
            }

    def calibrate(self, anyway: bool = False) -> dict[str, Any]:
        """Calibrate on the camera's newest picture, which should show the empty tray (as
        ``yamscope calibrate`` does on a photo), keep it in ``calibration_path`` and read
        every throw with it from now on; returns its summary. The field of view is the
        configuration's, else the camera's own (a Pi camera module names its lens), else
        the default. Raises TrayError before the first picture, DiceInView when the reader
        sees dice on the new calibration's felt (unless ``anyway``), and VisionError when no
        felt is found: the calibration in use, if any, stays."""
        from vision.calibration import DEFAULT_FIELD_OF_VIEW, calibrate, save
        from vision.recognise import dice_seen

        with self._lock:
            frame = self._frame
        if frame is None:
            raise TrayError("no picture from the camera yet: wait for the live picture")
        told, own = self.field_of_view, getattr(self.runner.source, "field_of_view", None)
        field_of_view = told or own or DEFAULT_FIELD_OF_VIEW
        with self._calibrating:
            calibration = calibrate(frame.main, field_of_view=field_of_view)
            seen = dice_seen(frame.main, calibration, self.recogniser.finder)
            if seen and not anyway:
                raise DiceInView(seen)
            if self.calibration_path is not None:
                save(calibration, self.calibration_path)
            self.field_of_view_from = "configuration" if told else "camera" if own else "default"
            self.dice_seen = seen
            self.recogniser.calibration = calibration  # after: the summary is made for it
        self.lock_exposure = self.lock_exposure or self.lock_after_calibrating
        self._locked_for = None  # lock at the next still picture of this tray
        log.info("tray calibrated: %s", calibration.summary())
        return self._calibration_summary() or {}

    def newest_frame(self) -> Frame | None:
        """The newest frame the watcher has seen."""
        with self._lock:
            return self._frame

    def _calibration_summary(self) -> dict[str, Any] | None:
        calibration = self.recogniser.calibration
        made_for, summary = self._summary
        if calibration is not made_for:
            summary = None
            if calibration is not None:
                summary = calibration.summary() | {
                    "field_of_view_from": self.field_of_view_from,
                    "dice_seen": self.dice_seen,
                }
            self._summary = (calibration, summary)
        return summary

    def live_jpeg(self) -> bytes | None:
        """The newest live picture (None until the first one); asking keeps it coming."""
        with self._lock:
            self._watched_at = time.monotonic()
            return self._live

    def throw_simulated(self, game: Game, keep: Sequence[int], rng: random.Random) -> None:
        """The simulated tray's throw button: the dice not set aside are thrown on the tray
        (kept ones are out of the tray, as players do), and the camera reads them."""
        throw = getattr(self.runner.source, "throw", None)
        if throw is None:
            raise RulesError("the camera reads the throws: throw the dice in the tray")
        why = self._not_ready()
        if why is not None:
            raise RulesError(why)
        from models.synth import DieSpec

        rb = game.rulebook
        top = 6 if rb.kind == "d6" else 10
        if game.dice is not None:
            looks = [(d.colour, d.finish) for d in game.dice]
        elif rb.id == "impossible":
            looks = list(IMPOSSIBLE_SET)
        else:
            looks = [(None, None)] * rb.dice_count
        kept = set(keep) if game.dice is not None else set()
        specs = [
            DieSpec(
                rb.kind,  # type: ignore[arg-type]
                rng.randint(1, top),
                colour.value if colour else "white",  # type: ignore[arg-type]
                finish.value if finish else "frosted",  # type: ignore[arg-type]
            )
            for i, (colour, finish) in enumerate(looks)
            if i not in kept
        ]
        with self._lock:
            self._message = self.recogniser.distrust
            self._rolling_since = time.monotonic()
        throw(specs)

    def _not_ready(self) -> str | None:
        """Why the simulated tray cannot take a throw now: the watcher has not yet seen it
        at rest (just started), or the last throw still rolls or is being read. A throw then
        would be lost, or would restart the roll unread."""
        with self._lock:
            since = self._rolling_since
        if since is not None and time.monotonic() - since < ROLL_TIMEOUT_S:
            return "the dice are still rolling: wait until they are read"
        if self.detector.state == "warming":
            return "the camera is starting: throw again in a moment"
        if self.detector.state == "moving":
            return "the tray is moving: wait until it stands still"
        return None

    def roll_done(self) -> None:
        """The last simulated throw was read (or came to rest unread): the next may come.
        The session calls it under its lock, as it keeps the reading."""
        with self._lock:
            self._rolling_since = None

    def picture_of(self, dice: Sequence[Die]) -> bytes | None:
        """These dice drawn on the simulated tray (a computer's throw, shown to the table);
        None on a real camera's tray, which nothing can draw."""
        tray = getattr(self.runner.source, "tray", None)
        game = self.session.game
        if tray is None or game is None:
            return None
        from models.synth import DieSpec, place, render

        specs = [
            DieSpec(
                game.rulebook.kind,  # type: ignore[arg-type]
                d.value,
                d.colour.value if d.colour else "white",  # type: ignore[arg-type]
                d.finish.value if d.finish else "frosted",  # type: ignore[arg-type]
            )
            for d in dice
        ]
        rng = np.random.default_rng()
        image = render(tray, specs, place(rng, specs, tray), rng).image
        photo = _jpeg(_fit(image, 960), 75)
        del image
        memory.trim()  # a computer's turn draws a throw every few seconds: give each back
        return photo

    # -- the thread -----------------------------------------------------------------------
    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                frame = self.runner.latest.get(timeout=0.5)
                read = frame is not None and self._step(frame)
                self._publish_status()
                if read:
                    memory.trim()  # the throw's drawing and reading freed tens of MB
            except Exception:  # the watcher outlives any one bad frame
                log.exception("tray watcher: frame skipped")

    def _step(self, frame: Frame) -> bool:
        """One frame through the settle detector; True when the dice came to rest in it."""
        with self._lock:
            self._frame = frame
        was = self.detector.state
        self.detector.die_share = _die_share(self.recogniser.calibration)
        settled = self.detector.update(frame.lores)
        if self.lock_exposure and self.detector.state == "idle":
            self._lock_exposure()
        if self.detector.state == "moving":
            with self._lock:
                self._overlay = None
        lesson = self.lesson
        if settled is not None and lesson is not None and lesson.settled(frame):
            self.roll_done()  # « Apprendre mes dés » (device/teach.py): a photo, not a throw
        elif settled is not None:
            try:
                self._read(frame)
            finally:
                self.roll_done()
        elif was == "moving" and self.detector.state != "moving":
            self.roll_done()  # the tray came to rest with nothing to read
        if settled is None and self.detector.state == "idle":
            self._look_at_empty(frame)
        self._encode_live(frame)
        return settled is not None

    def _read(self, frame: Frame) -> None:
        self._fit_to_game()
        try:
            reading = self.recogniser(frame.main)
        except VisionError as exc:
            self._say(f"the dice could not be read: {exc}")
            return
        with self._lock:
            self._overlay = reading
            self._reading_ms = round(reading.ms, 1)
        snapshot = _jpeg(frame.main, 85) if self.snapshots else None
        scale = self.recogniser.reader.card.crop_scale
        crops = [_png(crop_square(frame.main, d.box, CROP_PX, scale)) for d in reading.dice]
        try:
            self.session.camera_throw(reading, snapshot=snapshot, crops=crops)
        except (RulesError, StoreError) as exc:  # not this throw, or the records are away
            self._say(_joined(str(exc), *reading.notes))
            return
        self._say(_joined(self.recogniser.distrust, *reading.notes))

    def _look_at_empty(self, frame: Frame) -> None:
        """Now and then, the tray at rest: its empty picture kept up to date with the
        evening's light, and the players told when the camera or the tray has moved (and
        when that is over)."""
        now = time.monotonic()
        if now - self._looked_at < LOOK_EVERY_S:
            return
        self._looked_at = now
        try:
            notes = self.recogniser.look_at_empty(frame.main)
        except VisionError as exc:
            notes = (str(exc),)
        said = _joined(*notes) if notes else None
        if said == self._view_said:
            return
        with self._lock:
            message = self._message
        shown = _joined(self.recogniser.distrust, self._view_said)
        if said is not None or message == shown:  # a throw's own message stays
            self._say(_joined(self.recogniser.distrust, said))
        self._view_said = said

    def _lock_exposure(self) -> None:
        """Once the calibrated tray stands still (the camera's automatic exposure has
        settled), fix exposure and white balance so that a die's colour reads the same all
        evening; again after each reopening, which starts the camera afresh."""
        reopens = self.runner.state().get("reopens", 0)
        if self._locked_for != reopens:
            self._locked_for = reopens
            if self.runner.lock_exposure():
                log.info("camera: exposure and white balance locked")

    def _fit_to_game(self) -> None:
        """Tell the reader what the game plays with: the kind of every die (no guessing
        d6 or d10 at a five-dice table), whether colour and finish count, and how many dice
        this throw puts on the tray."""
        game = self.session.game
        if game is None:
            return
        self.recogniser.kinds = (game.rulebook.kind,)
        self.recogniser.coloured = game.rulebook.id == "impossible"
        self.recogniser.expected = self.session.dice_to_throw()

    def _say(self, message: str | None) -> None:
        with self._lock:
            self._message = message
        if message:
            log.info("tray: %s", message)

    def _encode_live(self, frame: Frame) -> None:
        """The live picture, while watched: at its pace while dice move, every few seconds
        while the tray lies still (the same picture again costs an encode for nothing),
        and at once when the dice read are to be drawn on it."""
        now = time.monotonic()
        still = self.detector.state == "idle"
        with self._lock:
            reading = self._overlay
            pace = self.live_interval * (LIVE_STILL_FACTOR if still else 1)
            due = now - self._live_at >= pace or reading is not self._live_overlay
            watched = now - self._watched_at <= LIVE_WATCHED_S
        if not (due and watched):
            return
        picture = draw(frame.main, reading) if reading is not None else frame.main
        encoded = _jpeg(_fit(picture, 960), 70)
        with self._lock:
            self._live, self._live_at, self._live_overlay = encoded, now, reading

    def _publish_status(self) -> None:
        """Tell the session when what the page shows of the camera changed (not for every
        frame counter)."""
        status = self.status()
        key = (
            status["state"],
            status["starting"],
            status["error"],
            status["message"],
            status["reading_ms"],
            str(status["calibration"]),
        )
        if key != self._published:
            self._published = key
            self.session.set_tray_status(status)


def _die_share(calibration: Calibration | None) -> float:
    """The share of the picture one die covers (0 without a calibration): the settle
    detector's measure of a hand is in dice."""
    if calibration is None:
        return 0.0
    width, height = calibration.size
    return calibration.die_side**2 / (width * height)


def _joined(*parts: str | None) -> str | None:
    """The page's one message from several (None when there is nothing to say)."""
    said = [part for part in parts if part]
    return "; ".join(said) if said else None


def _fit(image: np.ndarray, width: int) -> np.ndarray:
    if image.shape[1] <= width:
        return image
    height = round(image.shape[0] * width / image.shape[1])
    return cv2.resize(image, (width, height), interpolation=cv2.INTER_AREA)


def _jpeg(image: np.ndarray, quality: int) -> bytes:
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise VisionError("the picture could not be encoded as JPEG")
    return data.tobytes()


def _png(image: np.ndarray) -> bytes:
    ok, data = cv2.imencode(".png", image)
    if not ok:
        raise VisionError("the crop could not be encoded as PNG")
    return data.tobytes()
