"""`yamscope recognise` and `yamscope calibrate` as a user runs them (DESIGN.md contract)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import cv2
import pytest
from drawn_dice import draw_die, felt

if TYPE_CHECKING:
    from conftest import Run


def photo(path: Path, values: tuple[int, ...]) -> Path:
    """Flat dice drawn 32 px wide on felt: a size the shipped detector finds them at, as
    they are and in their mirror images (these tests are about the command, not it)."""
    image = felt(seed=len(values))
    for i, value in enumerate(values):
        draw_die(image, value, 30 + 90 * i, 90, side=32)
    cv2.imwrite(str(path), image)
    return path


def test_recognise_json_lines_and_a_bad_image(run: Run, tmp_path: Path) -> None:
    good = photo(tmp_path / "two.png", (3, 5))
    bad = tmp_path / "broken.jpg"
    bad.write_bytes(b"")
    one = photo(tmp_path / "one.jpg", (6,))
    result = run("recognise", "--json", "--kind", "d6", str(good), str(bad), str(one))
    assert result.returncode == 1
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [line["image"] for line in lines] == [str(good), str(one)]
    assert [len(line["dice"]) for line in lines] == [2, 1]
    for line in lines:
        assert set(line) == {"image", "ms", "dice"}
        assert isinstance(line["ms"], float)
        for die in line["dice"]:
            assert set(die) == {"kind", "value", "colour", "finish", "confidence", "box", "flags"}
    assert result.stderr.count("\n") == 1
    assert str(bad) in result.stderr and "empty file" in result.stderr


def test_recognise_readable_lines(run: Run, tmp_path: Path) -> None:
    good = photo(tmp_path / "two.png", (3, 5))
    result = run("recognise", str(good))
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"{good}: ")
    assert "(2 dice," in result.stdout


def test_calibrate_writes_the_file_and_the_drawing(run: Run, tmp_path: Path) -> None:
    image = tmp_path / "empty.png"
    cv2.imwrite(str(image), felt(seed=3))
    result = run("calibrate", str(image), env={"YAMSCOPE_DATA_DIR": str(tmp_path / "data")})
    assert result.returncode == 0, result.stderr
    written = tmp_path / "data" / "calibration.json"
    assert json.loads(written.read_text(encoding="utf-8"))["format"] == "yamscope-calibration"
    assert (tmp_path / "data" / "calibration.png").is_file()
    for words in ("tray:", "felt colour:", "die size:", "light:", "camera: 52° across (not told"):
        assert words in result.stdout
    assert "wider than the models learned" not in result.stdout
    assert "reader: no die seen in this photo" in result.stdout
    used = run("recognise", "--calibration", str(written), str(photo(tmp_path / "p.png", (2,))))
    assert used.returncode == 0, used.stderr
    missing = run("recognise", "--calibration", str(tmp_path / "none.json"), str(image))
    assert missing.returncode == 2
    assert "no such calibration file" in missing.stderr


def test_calibrate_says_where_it_sees_dice(run: Run, tmp_path: Path) -> None:
    """Dice in the calibration photo give the die size; on what should be an empty tray
    they would be spots read as dice in every throw, so their places are said."""
    result = run(
        "calibrate", str(photo(tmp_path / "two.png", (3, 5))), "--out", str(tmp_path / "c.json")
    )
    assert result.returncode == 0, result.stderr
    line = next(x for x in result.stdout.splitlines() if x.startswith("reader: "))
    assert line.startswith("reader: 2 dice seen in this photo, at (")
    assert "must come out" in line and "will not be read as a die" in line


def test_calibrate_is_told_the_cameras_field_of_view(run: Run, tmp_path: Path) -> None:
    image = tmp_path / "empty.png"
    cv2.imwrite(str(image), felt(seed=3))
    out = tmp_path / "wide.json"
    told = run("calibrate", str(image), "--field-of-view", "102", "--out", str(out))
    assert told.returncode == 0, told.stderr
    assert "camera: 102° across (as told)" in told.stdout
    assert "wider than the models learned (up to 75°)" in told.stdout  # a Camera Module 3 Wide
    assert json.loads(out.read_text(encoding="utf-8"))["field_of_view"] == 102
    for degrees in ("200", "0"):
        wrong = run("calibrate", str(image), "--field-of-view", degrees, "--out", str(out))
        assert wrong.returncode == 2
        assert "not a camera's" in wrong.stderr and "Traceback" not in wrong.stderr
    assert json.loads(out.read_text(encoding="utf-8"))["field_of_view"] == 102  # kept


def huge_png(path: Path, side: int = 20_000) -> Path:
    """A real, valid grey PNG of side x side pixels in a few tens of KB (one bit a pixel,
    all black): decoded, it would take side * side * 3 bytes (1.2 GB for 20000)."""
    import struct
    import zlib

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = zlib.crc32(kind + body) & 0xFFFFFFFF
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

    packer = zlib.compressobj(9)
    row = b"\x00" + bytes((side + 7) // 8)  # filter byte, then the row's bits
    data = b"".join(packer.compress(row) for _ in range(side)) + packer.flush()
    header = struct.pack(">IIBBBBB", side, side, 1, 0, 0, 0, 0)
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", data)
    path.write_bytes(png + chunk(b"IEND", b""))
    return path


def fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (lambda tmp: Path("/dev/zero"), "not a regular file"),
        (lambda tmp: fifo(tmp / "pipe.png"), "not a regular file"),
        (lambda tmp: huge_png(tmp / "huge.png"), "20000x20000 pixels, more than 50 megapixels"),
    ],
    ids=["dev-zero", "fifo", "huge-png"],
)
def test_a_file_no_photo_could_be_is_one_line_and_the_others_are_read(
    run: Run, tmp_path: Path, make: Any, said: str
) -> None:
    bad = make(tmp_path)
    good = photo(tmp_path / "one.png", (6,))
    result = run("recognise", "--kind", "d6", str(bad), str(good), timeout=60)
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr, result.stderr
    assert str(bad) in result.stderr and said in result.stderr
    assert result.stdout.startswith(f"{good}: 6")  # the photo after it is still read


def test_calibrate_never_silently_replaces_the_appliances_calibration(
    run: Run, tmp_path: Path
) -> None:
    image = tmp_path / "empty.png"
    cv2.imwrite(str(image), felt(seed=3))
    data = tmp_path / "data"
    live = data / "calibration.json"
    data.mkdir()
    live.write_text("the table's own", encoding="utf-8")
    refused = run("calibrate", str(image), env={"YAMSCOPE_DATA_DIR": str(data)})
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1
    assert "--force" in refused.stderr and "--out" in refused.stderr
    assert live.read_text(encoding="utf-8") == "the table's own"
    assert not (data / "calibration.png").exists()
    other = run(
        "calibrate",
        str(image),
        "--out",
        str(tmp_path / "other.json"),
        env={"YAMSCOPE_DATA_DIR": str(data)},
    )
    assert other.returncode == 0, other.stderr
    assert live.read_text(encoding="utf-8") == "the table's own"
    forced = run("calibrate", str(image), "--force", env={"YAMSCOPE_DATA_DIR": str(data)})
    assert forced.returncode == 0, forced.stderr
    assert json.loads(live.read_text(encoding="utf-8"))["format"] == "yamscope-calibration"
