"""The die-face model's check crops: the shipped model reads them as recorded, and a model
that computes otherwise, or a missing or foreign check file, is said so in one line."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from device.cli import main as cli
from vision.errors import BadModelError
from vision.faces import DEFAULT_MODEL, FaceReader
from vision.model_check import TOLERANCE, check_path, check_reader, check_words, write_check


@pytest.fixture(scope="module")
def reader() -> FaceReader:
    return FaceReader(DEFAULT_MODEL)


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    """The shipped model and its card in a folder of their own, without check crops."""
    for suffix in (".onnx", ".json"):
        shutil.copyfile(DEFAULT_MODEL.with_suffix(suffix), tmp_path / f"m{suffix}")
    return tmp_path / "m.onnx"


def recorded(path: Path) -> dict[str, np.ndarray]:
    with np.load(path) as stored:
        return {name: stored[name] for name in stored.files}


def test_the_shipped_model_reads_its_check_crops_as_recorded(reader: FaceReader) -> None:
    assert check_path(DEFAULT_MODEL).is_file()
    result = check_reader(reader)
    assert result.ok and result.crops >= 24
    assert result.version == reader.card.version
    assert result.largest_difference <= TOLERANCE
    assert "as where it was exported" in result.line()
    crops = recorded(check_path(DEFAULT_MODEL))["crops"]
    assert crops.dtype == np.uint8 and crops.shape[1:] == (64, 64, 3)


def test_other_answers_are_counted_and_said(reader: FaceReader, copy: Path) -> None:
    write_check(FaceReader(copy), recorded(check_path(DEFAULT_MODEL))["crops"])
    stored = recorded(check_path(copy))
    value = stored["head_value"]
    value[:3] = np.roll(value[:3], 1, axis=1)  # three crops recorded with another best value
    np.savez_compressed(check_path(copy), **stored)
    result = check_reader(FaceReader(copy))
    assert not result.ok
    assert result.disagreements == 3
    assert "differently on this machine" in result.line()
    assert "3 with another answer" in result.line()


@pytest.mark.parametrize(("shift", "ok"), [(TOLERANCE / 2, True), (TOLERANCE * 2, False)])
def test_probabilities_may_move_within_the_tolerance(copy: Path, shift: float, ok: bool) -> None:
    reader = FaceReader(copy)
    crops = recorded(check_path(DEFAULT_MODEL))["crops"]
    write_check(reader, crops)
    stored = recorded(check_path(copy))
    colour = stored["head_colour"]
    best = colour.argmax(axis=1)
    colour[0, best[0]] -= shift  # less sure of the same answer
    colour[0, 1 - best[0]] += shift
    np.savez_compressed(check_path(copy), **stored)
    result = check_reader(reader)
    assert result.disagreements == 0
    assert result.largest_difference == pytest.approx(shift, abs=1e-6)
    assert result.ok is ok


def test_a_missing_corrupt_or_foreign_check_file_is_one_clear_error(copy: Path) -> None:
    reader = FaceReader(copy)
    with pytest.raises(BadModelError, match="check crops are missing"):
        check_reader(reader)
    check_path(copy).write_bytes(b"PK\x03\x04 not a zip")
    with pytest.raises(BadModelError, match="check crops unreadable"):
        check_reader(reader)
    crops = recorded(check_path(DEFAULT_MODEL))["crops"]
    np.savez_compressed(check_path(copy), crops=crops, head_value=np.zeros((len(crops), 6)))
    with pytest.raises(BadModelError, match="not recorded for"):
        check_reader(reader)


def test_cli_check_model_exit_status(copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(["check-model"]) == 0
    shipped = capsys.readouterr().out  # the die-face model and the slanted photos' d10 one
    assert shipped.count("as where it was exported") == 2 and "slanted-d10.onnx" in shipped
    assert cli(["check-model", "--model", str(copy)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "check crops are missing" in err
    stored = recorded(check_path(DEFAULT_MODEL))
    stored["head_kind"] = np.roll(stored["head_kind"], 1, axis=1)  # every kind another one
    np.savez_compressed(check_path(copy), **stored)
    assert cli(["check-model", "--model", str(copy)]) == 1
    out = capsys.readouterr().out
    assert f"{len(stored['crops'])} with another answer" in out


def test_report_words_say_whether_the_numbers_can_be_trusted(
    reader: FaceReader, copy: Path
) -> None:
    assert check_words(reader) == "computes as where it was exported"
    assert check_words(FaceReader(copy)) == "no check crops"
    stored = recorded(check_path(DEFAULT_MODEL))
    stored["head_kind"] = stored["head_kind"][:, ::-1].copy()
    np.savez_compressed(check_path(copy), **stored)
    words = check_words(FaceReader(copy))
    assert words.startswith("COMPUTES OTHERWISE HERE") and "yamscope check-model" in words


def test_a_reader_whose_model_computes_otherwise_flags_every_die(copy: Path) -> None:
    from drawn_dice import draw_die, felt

    from vision.calibration import calibrate
    from vision.recognise import Recogniser

    image = felt(seed=12)
    calibration = calibrate(image.copy())
    for i, value in enumerate((2, 5, 6)):
        draw_die(image, value, 30 + 90 * i, 90)
    trusted = Recogniser(calibration, kinds=("d6",))
    assert trusted.check_model() is None and trusted.distrust is None
    plain = trusted(image)
    assert len(plain.dice) == 3

    distrusted = Recogniser(calibration, model=copy, kinds=("d6",))
    assert "check crops are missing" in (distrusted.check_model() or "")
    stored = recorded(check_path(DEFAULT_MODEL))
    stored["head_value"] = stored["head_value"][:, ::-1].copy()
    np.savez_compressed(check_path(copy), **stored)
    assert "differently on this machine" in (distrusted.check_model() or "")
    flagged = distrusted(image)
    assert [d.value for d in flagged.dice] == [d.value for d in plain.dice]  # read as before
    assert all(d.flags == (*(f for f in p.flags if f != "unsure"), "unsure")
               for d, p in zip(flagged.dice, plain.dice, strict=True))  # fmt: skip


def test_cli_recognise_flags_every_die_when_the_model_computes_otherwise(
    tmp_path: Path, copy: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    import cv2
    from drawn_dice import draw_die, felt

    import vision.recognise as recognise_module

    stored = recorded(check_path(DEFAULT_MODEL))
    stored["head_value"] = stored["head_value"][:, ::-1].copy()
    np.savez_compressed(check_path(copy), **stored)  # check crops this model now fails
    real = recognise_module.check_reader
    monkeypatch.setattr(recognise_module, "check_reader", lambda r: real(r, check_path(copy)))
    image = felt(seed=2)
    for i, value in enumerate((3, 5)):
        draw_die(image, value, 30 + 90 * i, 90, side=32)  # as test_cli_vision.py draws them
    photo = tmp_path / "two.png"
    cv2.imwrite(str(photo), image)
    assert cli(["recognise", "--json", "--kind", "d6", str(photo)]) == 0
    out, err = capsys.readouterr()
    assert err.startswith("yamscope: warning: every die flagged unsure: die-face model")
    assert err.count("\n") == 1
    dice = json.loads(out)["dice"]
    assert len(dice) == 2 and all("unsure" in d["flags"] for d in dice)


def test_the_slanted_photos_d10_reader_is_checked_too(tmp_path: Path) -> None:
    import shutil

    from vision.recognise import Recogniser
    from vision.slanted import DEFAULT_SLANTED_MODEL

    copy = tmp_path / "slanted.onnx"
    for suffix in (".onnx", ".json"):  # no check crops beside it
        shutil.copy(DEFAULT_SLANTED_MODEL.with_suffix(suffix), copy.with_suffix(suffix))
    assert Recogniser(kinds=("d6", "d10")).check_model() is None
    distrusted = Recogniser(kinds=("d6", "d10"), slanted_model=copy)
    assert "check crops are missing" in (distrusted.check_model() or "")
    assert str(check_path(copy)) in (distrusted.distrust or "")  # it names the file
