"""Recorded throws played back: one settle event per photo, bad files skipped, videos too."""

from __future__ import annotations

import itertools
import logging
import shutil
import time
from pathlib import Path

import cv2
import numpy as np
import pytest

from device.camera import open_source
from device.camera.frames import CameraError
from device.camera.opencv_source import OpenCVSource
from device.camera.replay_source import ReplaySource, lead_in, motion_frames
from device.camera.runner import CameraRunner
from device.config import Camera, CameraSource
from vision.settle import SettleDetector

FELT = (40, 110, 50)


def photo(seed: int) -> np.ndarray:
    """A green tray with a few white dice at random places."""
    rng = np.random.default_rng(seed)
    image = np.full((240, 320, 3), FELT, np.uint8)
    for _ in range(4):
        x, y = rng.integers(20, 280), rng.integers(20, 200)
        cv2.rectangle(image, (int(x), int(y)), (int(x) + 18, int(y) + 18), (230, 230, 230), -1)
        cv2.circle(image, (int(x) + 9, int(y) + 9), 3, (20, 20, 20), -1)
    return image


def throws(folder: Path, count: int = 3) -> Path:
    folder.mkdir()
    for i in range(count):
        cv2.imwrite(str(folder / f"throw-{i:02d}.png"), photo(i))
    return folder


def play(source: ReplaySource, after_end: int = 10) -> tuple[int, int]:
    """The frames through a settle detector, and ``after_end`` more once the playback has
    ended: (events, frames before the end)."""
    detector = SettleDetector()
    source.open()
    events = frames = 0
    while after_end:
        frame = source.read(timeout=1)
        assert frame is not None and frame.lores.shape == (240, 320)
        events += detector.update(frame.lores) is not None
        if source.finished:
            after_end -= 1
        else:
            frames += 1
    source.close()
    return events, frames


def test_a_folder_of_three_photos_is_three_throws(tmp_path: Path) -> None:
    source = ReplaySource(throws(tmp_path / "photos"), fps=10, hold=2.0, realtime=False)
    events, frames = play(source)
    assert events == 3
    assert frames == 20 + 3 * (4 + 20)  # the dark lead-in, then motion and hold per photo


def test_photos_from_a_camera_that_moved_are_one_throw_each(tmp_path: Path) -> None:
    """The tray and the table around it shift from photo to photo (a hand-held camera): the
    whole picture changes, which is a new scene, not a hand in view."""
    rng = np.random.default_rng(5)
    table = cv2.GaussianBlur(rng.integers(0, 255, (300, 400, 3), dtype=np.uint8), (0, 0), 3)
    folder = tmp_path / "photos"
    folder.mkdir()
    for i in range(4):
        image = table[i * 12 : i * 12 + 240, i * 20 : i * 20 + 320].copy()
        image[30:210, 40:280] = photo(i)[30:210, 40:280]  # the tray, with its dice
        cv2.imwrite(str(folder / f"{i}.jpg"), image)
    events, _ = play(ReplaySource(folder, fps=10, realtime=False))
    assert events == 4


@pytest.mark.parametrize("level", [20, 235])
def test_the_plain_frame_before_the_first_photo_is_unlike_its_edge(level: int) -> None:
    image = np.full((240, 320, 3), level, np.uint8)
    assert abs(int(lead_in(image)[0, 0, 0]) - level) > 200


def test_an_unreadable_photo_is_skipped_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    folder = throws(tmp_path / "photos")
    (folder / "throw-01b.jpg").write_bytes(b"not a jpeg")
    (folder / "notes.txt").write_text("not a photo either")
    with caplog.at_level(logging.WARNING):
        events, _ = play(ReplaySource(folder, fps=10, realtime=False))
    assert events == 3
    assert "skipping" in caplog.text and "throw-01b.jpg" in caplog.text


def test_loop_starts_again(tmp_path: Path) -> None:
    source = ReplaySource(throws(tmp_path / "photos", 2), fps=10, hold=1.0, loop=True)
    source.realtime = False
    source.open()
    detector = SettleDetector()
    events = sum(detector.update(source.read(1).lores) is not None for _ in range(10 + 5 * 14))
    assert events == 5 and not source.finished


def test_frames_come_at_the_asked_pace(tmp_path: Path) -> None:
    source = ReplaySource(throws(tmp_path / "photos", 1), fps=50)
    source.open()
    frames = [source.read(timeout=1) for _ in range(11)]
    times = [f.time for f in frames if f is not None]
    assert len(times) == 11 and [f.seq for f in frames if f] == list(range(11))
    assert 0.17 < times[-1] - times[0] < 0.4


def test_motion_frames_move_every_frame() -> None:
    before, after = photo(0), photo(1)
    frames = [before, *motion_frames(before, after, 4), after]
    for a, b in itertools.pairwise(frames):
        assert np.abs(a.astype(int) - b.astype(int)).mean() > 1


def test_a_video_is_played_frame_by_frame(tmp_path: Path) -> None:
    path = tmp_path / "throw.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (320, 240))
    for i in range(6):
        writer.write(photo(i))
    writer.release()
    source = ReplaySource(path, realtime=False)
    source.open()
    frames = [source.read(timeout=1) for _ in range(8)]
    assert all(f is not None and f.main.shape == (240, 320, 3) for f in frames)
    assert source.finished


def test_nothing_to_play_is_a_camera_error(tmp_path: Path) -> None:
    with pytest.raises(CameraError, match=r"no \.jpg or \.png photos"):
        ReplaySource(tmp_path).open()
    (tmp_path / "broken.png").write_bytes(b"\x89PNG broken")
    source = ReplaySource(tmp_path, realtime=False)
    source.open()
    with pytest.raises(CameraError, match="nothing readable"):
        source.read(timeout=1)
    (tmp_path / "broken.avi").write_text("not a video")
    with pytest.raises(CameraError, match="cannot read the video"):
        ReplaySource(tmp_path / "broken.avi").open()


def test_the_factory_makes_replay_and_opencv_sources(tmp_path: Path) -> None:
    camera = Camera(lores_width=160, lores_height=120, fps=5.0)
    replay = open_source(CameraSource("replay", path=tmp_path), camera)
    assert isinstance(replay, ReplaySource) and replay.lores_size == (160, 120)
    opencv = open_source(CameraSource("opencv", index=7), camera)
    assert isinstance(opencv, OpenCVSource) and opencv.name == "opencv:7"


def test_an_opencv_camera_that_is_not_there_is_a_camera_error() -> None:
    with pytest.raises(CameraError, match="cannot open camera 99"):
        OpenCVSource(99).open()


def _state_becomes(runner: CameraRunner, states: set[str], timeout: float) -> str:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        state = runner.state()["state"]
        if state in states:
            return state
        time.sleep(0.02)
    pytest.fail(f"the camera stayed {runner.state()['state']}, never {sorted(states)}")


@pytest.mark.parametrize("how", ["emptied", "removed"])
def test_a_folder_emptied_under_a_replay_is_a_stall_and_it_comes_back(
    tmp_path: Path, how: str
) -> None:
    folder = throws(tmp_path / "photos", 2)
    kept = {p.name: p.read_bytes() for p in folder.iterdir()}
    source = ReplaySource(folder, fps=30, hold=0.2, gap=2, loop=True)
    # a long backoff: coming back must not wait for it to end
    runner = CameraRunner(source, watchdog_seconds=2, backoff=(20, 30))
    with runner:
        _state_becomes(runner, {"live"}, 10)
        if how == "emptied":
            for p in folder.iterdir():
                p.unlink()
        else:
            shutil.rmtree(folder)
        assert _state_becomes(runner, {"stalled", "reopening", "failed"}, 10) != "live"
        frames = runner.latest.frames
        time.sleep(0.5)
        assert runner.latest.frames == frames  # no more frames of the last photo
        folder.mkdir(exist_ok=True)
        for name, data in kept.items():
            (folder / name).write_bytes(data)
        _state_becomes(runner, {"live"}, 10)  # well before the 20 s backoff
        assert runner.state()["reopens"] >= 1
