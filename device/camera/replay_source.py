"""Recorded throws played back as a camera: a video, or a folder of photos, one throw each.

Why photos are not simply shown one after the other: the table reacts to dice coming to
rest, so each photo is held for ``hold`` seconds and reached through a few frames of motion
(the previous photo fading into the next one, sliding in), as a throw would look to the
settle detector: one photo, one throw. Before the first photo a plain frame is held for
``hold`` seconds (black, or white when the photo's edge is dark: as unlike the photo as it
can be), so that the first photo is a change too. At the end the last photo stays, as the
dice of the last throw stay on a real tray (``finished`` tells a test it got there).

A folder emptied or removed while it plays is a camera gone, not a tray at rest: ``read``
raises, so the runner's watchdog sees it stalled, and ``available`` tells the runner when
photos are back, so that it reopens at once instead of at the end of its backoff.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Generator
from pathlib import Path

import cv2
import numpy as np

from device.camera.frames import CameraError, Frame, Pacer, grey_lores
from vision.errors import BadImageError
from vision.images import load_image

log = logging.getLogger(__name__)

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png")
SLIDE_PIXELS = 12  # how far each motion frame's photo is from its place, per frame left


class ReplaySource:
    """Plays ``path`` (a folder of .jpg/.png, sorted by name, or a video) at ``fps``.

    Photos: ``gap`` motion frames then ``hold`` seconds still, each; unreadable ones are
    skipped with a warning. ``loop`` starts again after the last photo or the video's end.
    ``realtime=False`` gives frames as fast as they are read (tests).
    """

    exclusive = False

    def __init__(
        self,
        path: Path,
        *,
        lores_size: tuple[int, int] = (320, 240),
        fps: float = 15.0,
        hold: float = 2.0,
        gap: int = 4,
        loop: bool = False,
        realtime: bool = True,
    ) -> None:
        self.path = Path(path)
        self.name = f"replay:{self.path}"
        self.lores_size = lores_size
        self.fps = fps
        self.hold_frames = max(1, round(hold * fps))
        self.gap = gap
        self.loop = loop
        self.realtime = realtime
        self.finished = False
        self._frames: Generator[np.ndarray, None, None] | None = None
        self._pacer = Pacer(fps, realtime)
        self._last: np.ndarray | None = None
        self._seq = 0

    def available(self) -> bool:
        """Whether opening could succeed now: the video is there, or the folder has photos."""
        try:
            return bool(self._photos()) if self.path.is_dir() else self.path.is_file()
        except OSError:
            return False

    def _photos(self) -> list[Path]:
        return sorted(p for p in self.path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)

    def open(self) -> None:
        if not self.path.exists():
            raise CameraError(f"replay: no such file or folder {self.path}")
        if self.path.is_dir():
            if not self._photos():
                raise CameraError(f"replay: no .jpg or .png photos in {self.path}")
            self._frames = self._photo_frames()
        else:
            capture = cv2.VideoCapture(str(self.path))
            if not capture.isOpened():
                capture.release()
                raise CameraError(f"replay: cannot read the video {self.path}")
            self._frames = self._video_frames(capture)
        self._pacer = Pacer(self.fps, self.realtime)
        self.finished = False

    def read(self, timeout: float) -> Frame | None:
        if self._frames is None:
            raise CameraError(f"{self.name} is not open")
        if not self._pacer.wait(timeout):
            return None
        main = next(self._frames, None)
        if main is None:  # the end: the last image stays on the tray
            self.finished = True
            main = self._last
        if main is None:
            raise CameraError(f"replay: nothing readable in {self.path}")
        self._last = main
        frame = Frame(main, grey_lores(main, self.lores_size), time.monotonic(), self._seq)
        self._seq += 1
        return frame

    def close(self) -> None:
        if self._frames is not None:
            self._frames.close()  # releases a video at once, not whenever it is collected
            self._frames = None

    # -- what is played ----------------------------------------------------------------------
    def _photo_frames(self) -> Generator[np.ndarray, None, None]:
        """The folder's photos, listed again at each pass (photos added are played); a
        photo gone, or a pass with nothing readable, is a CameraError."""
        previous: np.ndarray | None = None
        while True:
            shown = 0
            for path in self._listed():
                try:
                    photo = load_image(path)
                except BadImageError as exc:
                    if not path.exists():
                        raise CameraError(f"replay: {path} is gone") from None
                    log.warning("replay: skipping %s", exc)
                    continue
                if previous is None:
                    previous = lead_in(photo)
                    yield from [previous] * self.hold_frames
                yield from motion_frames(previous, photo, self.gap)
                yield from [photo] * self.hold_frames
                previous, shown = photo, shown + 1
            if not shown:
                raise CameraError(f"replay: nothing readable in {self.path}")
            if not self.loop:
                return

    def _listed(self) -> list[Path]:
        try:
            photos = self._photos()
        except OSError:
            raise CameraError(f"replay: the folder {self.path} is gone") from None
        if not photos:
            raise CameraError(f"replay: no .jpg or .png photos left in {self.path}")
        return photos

    def _video_frames(self, capture: cv2.VideoCapture) -> Generator[np.ndarray, None, None]:
        try:
            read_since_start = 0
            while True:
                ok, image = capture.read()
                if ok:
                    read_since_start += 1
                    yield image
                elif self.loop and read_since_start and capture.set(cv2.CAP_PROP_POS_FRAMES, 0):
                    read_since_start = 0
                else:
                    return
        finally:
            capture.release()


def lead_in(photo: np.ndarray) -> np.ndarray:
    """A plain frame unlike the photo all along its edge, where the table around the tray is:
    the settle detector then sees a new scene, not a hand, when the photo comes."""
    edge = np.concatenate((photo[0], photo[-1], photo[:, 0], photo[:, -1]))
    return np.full_like(photo, 255 if edge.mean() < 128 else 0)


def motion_frames(before: np.ndarray, after: np.ndarray, count: int) -> list[np.ndarray]:
    """``count`` frames from ``before`` to ``after``: ``after`` fades in while sliding into
    place, so every frame differs from the one before it, as dice rolling would."""
    height, width = after.shape[:2]
    if before.shape != after.shape:
        before = cv2.resize(before, (width, height), interpolation=cv2.INTER_AREA)
    frames = []
    for step in range(1, count + 1):
        shift = SLIDE_PIXELS * (count + 1 - step)
        moved = cv2.warpAffine(
            after,
            np.float32([[1, 0, shift], [0, 1, 0]]),
            (width, height),
            borderMode=cv2.BORDER_REPLICATE,
        )
        frames.append(cv2.addWeighted(before, 1 - step / (count + 1), moved, step / (count + 1), 0))
    return frames
