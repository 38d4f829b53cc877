"""Learning from play: the dice players confirmed are fitted into the table's enrolment, in
the background, so the reader keeps adapting to the table's own dice.

A die is confirmed when the players write an entry from the throw it lies in: its value as
written (after any correction) labels the crop the camera cut of it. A die the players
corrected counts ``CORRECTED`` times as much: it is where the reader was wrong. A reading
nobody wrote from is never learned from. The refit runs in its own thread after every
``REFIT_EVERY`` confirmed dice, and never delays a throw (vision/enrolment.py says what is
fitted; the file is the one `yamscope serve` reads beside the calibration).
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.enrolment import TURNS, BadEnrolmentError, enrol, load, save, turned
from vision.faces import FaceReader

log = logging.getLogger(__name__)

REFIT_EVERY = 10  # confirmed dice between two refits
CORRECTED = 3.0  # how much a die the players corrected counts, against one they let stand


@dataclass(frozen=True)
class Confirmed:
    """The dice of one written throw: each place's crop (PNG, as the tray watcher cut it),
    its value as written, whether the players corrected it, and the game's kind of dice."""

    crops: Mapping[int, bytes]
    values: Mapping[int, int]
    corrected: frozenset[int]
    kind: str


class PlayLearner:
    """The background refit of ``reader``'s enrolment, kept in ``path``."""

    def __init__(self, reader: FaceReader, path: Path, refit_every: int = REFIT_EVERY) -> None:
        self.reader = reader
        self.path = path
        self.refit_every = refit_every
        self.refits = 0  # done since the start (the page and the tests read it)
        self._queue: queue.Queue[Confirmed | None] = queue.Queue()
        self._thread = threading.Thread(target=self._run, name="play-learner", daemon=True)
        self._thread.start()

    def confirmed(self, throw: Confirmed) -> None:
        """A written throw's dice (returns at once: the refit is the thread's)."""
        self._queue.put(throw)

    def stop(self) -> None:
        self._queue.put(None)
        self._thread.join(timeout=30)

    def _run(self) -> None:
        crops: list[np.ndarray] = []
        values: list[int] = []
        weights: list[float] = []
        kinds: list[str] = []
        while (throw := self._queue.get()) is not None:
            for place, png in throw.crops.items():
                crop = self._decoded(png)
                if crop is None or place not in throw.values:
                    continue
                crops.append(crop)
                values.append(throw.values[place])
                weights.append(CORRECTED if place in throw.corrected else 1.0)
                kinds.append(throw.kind)
            if len(crops) >= self.refit_every:
                try:
                    self._refit(
                        np.stack(crops), np.array(values), np.array(weights), np.array(kinds)
                    )
                except Exception:  # the table plays on with the head it has
                    log.exception("the table's dice could not be learned from play")
                crops, values, weights, kinds = [], [], [], []

    def _decoded(self, png: bytes) -> np.ndarray | None:
        """A kept crop as the model takes it (its own cut, at its input size)."""
        image = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR)
        if image is None:
            return None
        size = self.reader.card.size
        return cv2.resize(image, (size, size), interpolation=cv2.INTER_AREA)

    def _refit(
        self, crops: np.ndarray, values: np.ndarray, weights: np.ndarray, kinds: np.ndarray
    ) -> None:
        """The enrolment fitted again with these crops (``kinds``: the kind of dice of
        each) beside the ones it had."""
        reader = self.reader
        try:
            previous = load(self.path, reader.path) if self.path.exists() else None
        except BadEnrolmentError as exc:
            log.warning("a new enrolment is begun from play: %s", exc)
            previous = None
        features, logits = reader.features(turned(crops))
        enrolment = enrol(
            features,
            logits,
            np.tile(values, TURNS),
            [int(c) for c in reader.classes("value")],
            reader.card.version,
            reader.digest,
            photos=0,
            weights=np.tile(weights, TURNS),
            previous=previous,
            kinds=np.tile(kinds, TURNS),
        )
        save(enrolment, self.path)
        reader.enrol(enrolment)
        self.refits += 1
        log.info("the table's dice learned from play: %d crops", len(enrolment.labels) // TURNS)
