"""« Apprendre mes dés »: the table's own dice learned from photos the players lay for it.

Why this way: the die-face model learned renders and other people's dice; a table's dice
have their own numerals and plastic (vision/enrolment.py). Labelling photos by hand is not
a family's job, so the page asks for dice whose value it knows: every die of the game laid
showing 1, then 2, ..., each value twice in other places (two looks at each numeral, at
different spots of the tray's light). The camera takes each once the tray has come to rest
(a settled frame, as for a throw, so a photo is never of the tray before the dice were
turned), the pipeline finds the dice as it does in play, and each crop is labelled with the
value asked. A photo where the reader does not find every die is refused, never kept with a
guess. Then the table's head is fitted (``device.enrol``; on a calibrated tray its cocked-die
head too, every die of a lesson lying flat), kept in ``enrolment.json`` beside the
calibration (``yamscope serve`` loads it at start) and read with at once; the page shows the
dice read right on these photos before and after, and the flat dice called cocked.

On the simulated tray the lesson lays the dice itself (it draws them showing the value),
so the whole path runs without a camera.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from device.camera import Frame
from device.enrol import Labelled, cocked_change, enrol_crops
from scoring.computer import IMPOSSIBLE_SET
from scoring.rulebooks import get_rulebook
from vision.enrolment import BadEnrolmentError, Enrolment, load, save
from vision.perspective import top_face_box
from vision.recognise import find_dice, value_of

ROUNDS = 2  # photos of each value, the dice in other places each time
WAIT_S = 20.0  # how long a photo waits for the tray to come to rest
IDLE_S = 600.0  # a lesson left this long ends: the tray reads throws again
THUMB_PX = 480


class TeachRefused(RuntimeError):
    """This photo or step cannot be done; ``french`` is the same said in French."""

    def __init__(self, message: str, french: str) -> None:
        super().__init__(message)
        self.french = french


@dataclass(frozen=True)
class Shot:
    """One photo: the value shown, which look at it, the dice's crops and a small picture."""

    value: int
    round: int
    crops: np.ndarray
    photo: bytes
    leans: np.ndarray  # the cocked-die model's hidden layer of the (flat) dice, (n, 2, H)


class Lesson:
    """One run of « Apprendre mes dés » at a table: ``take`` a photo per step, then
    ``finish``. While it runs the tray watcher hands it the settled frames (``settled``)
    instead of reading them as throws."""

    def __init__(self, watcher: Any, rules: str, path: Path, rounds: int = ROUNDS) -> None:
        rulebook = get_rulebook(rules)
        self.watcher = watcher
        self.rules = rules
        self.kind: str = rulebook.kind
        self.count = rulebook.dice_count
        self.path = path
        top = 6 if self.kind == "d6" else 10
        self.steps = [(v, r) for v in range(1, top + 1) for r in range(1, rounds + 1)]
        self.shots: list[Shot] = []
        self.result: dict[str, Any] | None = None
        self._guard = threading.Lock()
        self._frame: Frame | None = None
        self._arrived = threading.Event()
        self._own = callable(getattr(watcher.runner.source, "throw", None))  # simulated
        self._busy = threading.Lock()  # one photo or fit at a time
        self._touched = time.monotonic()

    # -- the watcher's side ---------------------------------------------------------------
    def settled(self, frame: Frame) -> bool:
        """A frame of the tray at rest; True when this lesson takes it (it is no throw),
        False once the lesson was left alone too long (it ends: the tray reads again). The
        simulated tray's photos are taken when it says its dice rest (``_rested``)."""
        if time.monotonic() - self._touched > IDLE_S:
            self.end()
            return False
        if self._own:
            return True
        with self._guard:
            self._frame = frame
        self._arrived.set()
        return True

    def end(self) -> None:
        """The tray reads throws again."""
        if self.watcher.lesson is self:
            self.watcher.lesson = None

    # -- the page's side ------------------------------------------------------------------
    @property
    def step(self) -> tuple[int, int] | None:
        """(value, round) of the next photo, None when every photo is taken."""
        return self.steps[len(self.shots)] if len(self.shots) < len(self.steps) else None

    def state(self) -> dict[str, Any]:
        step = self.step
        return {
            "rules": self.rules,
            "kind": self.kind,
            "dice": self.count,
            "steps": len(self.steps),
            "taken": len(self.shots),
            "value": step[0] if step else None,
            "round": step[1] if step else None,
            "simulated": self._own,
            "result": self.result,
        }

    def take(self, wait_s: float = WAIT_S) -> dict[str, Any]:
        """The photo of this step, once the tray has come to rest with the dice laid."""
        if not self._busy.acquire(blocking=False):
            raise TeachRefused("a photo is being taken", "une photo est en cours")
        try:
            self._touched = time.monotonic()
            step = self.step
            if step is None:
                raise TeachRefused(
                    "every photo is taken: learn the dice", "toutes les photos sont prises"
                )
            frame = self._rested(step[0], wait_s) if self._own else self._settled(wait_s)
            if frame is None:
                raise TeachRefused(
                    f"the tray did not come to rest with new dice: lay every die showing "
                    f"{step[0]}, take your hands away, then try again",
                    f"la piste n'a pas montré de nouveaux dés au repos : posez chaque dé sur "
                    f"le {step[0]}, retirez les mains, puis recommencez",
                )
            self.shots.append(self._shoot(frame.main, *step))
            return self.state()
        finally:
            self._touched = time.monotonic()
            self._busy.release()

    def drop_last(self) -> dict[str, Any]:
        """Take the last photo back (it showed something else than asked)."""
        with self._busy:
            if self.shots:
                self.shots.pop()
            self.result = None
            return self.state()

    def _settled(self, wait_s: float) -> Frame | None:
        """The frame the tray came to rest in since the last photo (the players lay the dice,
        then tap), else the next one within ``wait_s``; None when none came."""
        if not self._arrived.wait(wait_s):
            return None
        with self._guard:
            frame, self._frame = self._frame, None
            self._arrived.clear()
        return frame

    def _rested(self, value: int, wait_s: float) -> Frame | None:
        """(simulated) every die drawn showing ``value``, in new places, and the first frame
        shown once they rest: the simulated tray knows when, so no settle is waited for."""
        from models.synth import DieSpec

        looks = (
            [(c.value, f.value) for c, f in IMPOSSIBLE_SET]
            if self.rules == "impossible"
            else [("white", "frosted")] * self.count
        )
        specs = [DieSpec(self.kind, value, c, f) for c, f in looks]  # type: ignore[arg-type]
        source = self.watcher.runner.source
        source.throw(specs)
        end = time.monotonic() + wait_s
        rested = None
        while time.monotonic() < end:
            if rested is None and source.settled:
                rested = time.monotonic()
            frame = self.watcher.newest_frame()
            if rested is not None and frame is not None and frame.time > rested:
                return frame
            time.sleep(0.02)
        return None

    def _shoot(self, image: np.ndarray, value: int, round_: int) -> Shot:
        """The dice of a photo found and cropped as the pipeline reads them in play."""
        recogniser = self.watcher.recogniser
        calibration = recogniser.calibration
        found = find_dice(image, calibration, recogniser.finder, recogniser.view, self.count)
        boxes = [blob.box for blob in found.segmentation.blobs]
        if len(boxes) != self.count:
            raise TeachRefused(
                f"{len(boxes)} dice seen, {self.count} expected: lay every die of the game "
                f"flat in the tray showing {value}, then try again",
                f"{len(boxes)} dé(s) vu(s), {self.count} attendus : posez tous les dés du jeu "
                f"à plat dans la piste, sur le {value}, puis recommencez",
            )
        faces = (
            [top_face_box(image.shape, b, calibration.focal) for b in boxes]
            if calibration is not None
            else boxes
        )
        crops = recogniser.reader.crops(image, faces)
        leaning = recogniser.leaning
        leans = (
            leaning.flat_hidden(image, boxes, calibration.focal)
            if calibration is not None and leaning.has_hidden
            else np.zeros((0, 2, 0))
        )
        return Shot(value, round_, crops, _thumbnail(image, boxes), leans)

    def finish(self) -> dict[str, Any]:
        """Fit the table's head on every photo's dice, keep it and read with it from now
        on; returns the dice read right on each photo before and after."""
        with self._busy:
            if self.step is not None:
                raise TeachRefused(
                    f"{len(self.steps) - len(self.shots)} photos still to take",
                    f"encore {len(self.steps) - len(self.shots)} photo(s) à prendre",
                )
            recogniser = self.watcher.recogniser
            reader = recogniser.reader
            crops = np.concatenate([s.crops for s in self.shots])
            values = np.concatenate([np.full(len(s.crops), s.value) for s in self.shots])
            leans = [s.leans for s in self.shots if len(s.leans)]
            labelled = Labelled(
                crops,
                values,
                (self.kind,) * len(values),
                len(self.shots),
                len(values),
                np.concatenate(leans) if leans else np.zeros((0, 2, 0)),
            )
            before = _read_values(reader, crops, self.kind, reader.enrolment)
            kept = self._other_kinds(reader)
            enrolment = enrol_crops(reader, labelled, previous=kept, leaning=recogniser.leaning)
            after = _read_values(reader, crops, self.kind, enrolment)
            cocked = cocked_change(recogniser.leaning, labelled, enrolment)
            save(enrolment, self.path)
            recogniser.enrol(enrolment)
            self.result = _summary(self.shots, values, before, after, enrolment, self.path, cocked)
            self.end()
            return self.state()

    def _other_kinds(self, reader: Any) -> Enrolment | None:
        """The table's enrolled dice of other kinds than this lesson's, kept beside it (a
        table with d6 and d10 learns each in its own lesson); this kind's are replaced."""
        try:
            previous = load(self.path, reader.path) if self.path.exists() else None
        except BadEnrolmentError:
            return None
        return previous.other_kinds(self.kind) if previous is not None else None


def _read_values(
    reader: Any, crops: np.ndarray, kind: str, enrolment: Enrolment | None
) -> np.ndarray:
    """The value read on each crop with this enrolment (None: the model's own head)."""
    kept = reader.enrolment
    reader.enrol(enrolment)
    try:
        guesses = reader.read_crops(crops, d6=np.full(len(crops), kind == "d6"))
    finally:
        reader.enrol(kept)
    classes = tuple(int(c) for c in reader.classes("value"))
    return np.array([value_of(g["value"], kind, classes)[0] for g in guesses])  # type: ignore[arg-type]


def _summary(
    shots: list[Shot],
    values: np.ndarray,
    before: np.ndarray,
    after: np.ndarray,
    enrolment: Enrolment,
    path: Path,
    cocked: tuple[int, int] | None,
) -> dict[str, Any]:
    photos, start = [], 0
    for index, shot in enumerate(shots):
        end = start + len(shot.crops)
        photos.append(
            {
                "index": index,
                "value": shot.value,
                "round": shot.round,
                "dice": len(shot.crops),
                "right_before": int((before[start:end] == shot.value).sum()),
                "right_after": int((after[start:end] == shot.value).sum()),
            }
        )
        start = end
    return {
        "dice": len(values),
        "right_before": int((before == values).sum()),
        "right_after": int((after == values).sum()),
        "photos": photos,
        "examples": {str(k): v for k, v in enrolment.examples().items()},
        "path": str(path),
        "cocked": {"before": cocked[0], "after": cocked[1]} if cocked is not None else None,
    }


def _thumbnail(image: np.ndarray, boxes: list[tuple[int, int, int, int]]) -> bytes:
    """The photo, small, with the dice found boxed (what the page shows of it)."""
    scale = min(1.0, THUMB_PX / image.shape[1])
    small = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    for x0, y0, x1, y1 in boxes:
        corner = (int(x0 * scale), int(y0 * scale))
        cv2.rectangle(small, corner, (int(x1 * scale), int(y1 * scale)), (40, 200, 255), 2)
    ok, data = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, 75])
    return data.tobytes() if ok else b""
