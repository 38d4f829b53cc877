"""Calibration on an empty tray: the felt, its colour, the light advice, and its file."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from vision.calibration import (
    DEFAULT_FIELD_OF_VIEW,
    Calibration,
    calibrate,
    field_of_view_of,
    focal_widths,
    load,
    save,
)
from vision.errors import BadCalibrationError


def synthetic_tray(seed: int) -> tuple[np.ndarray, object]:
    from models.synth import empty_tray, random_tray

    rng = np.random.default_rng(seed)
    tray = random_tray(rng, (640, 480))
    return empty_tray(tray, rng), tray


@pytest.fixture(scope="module")
def tray_and_calibration() -> tuple[object, Calibration, np.ndarray]:
    image, tray = synthetic_tray(11)
    return tray, calibrate(image), image


def test_the_felt_is_found(tray_and_calibration) -> None:
    tray, calibration, _ = tray_and_calibration
    mask = calibration.area_mask(640, 480)
    x0, y0, x1, y1 = tray.area
    truth = np.zeros_like(mask)
    truth[y0:y1, x0:x1] = True
    assert (mask & truth).sum() / (mask | truth).sum() > 0.85
    # the felt's colour in Lab is the colour the tray was drawn with
    import cv2

    expected = cv2.cvtColor(np.uint8([[tray.felt]]), cv2.COLOR_BGR2Lab)[0, 0].astype(float)
    expected = expected * [100 / 255, 1, 1] - [0, 128, 128]
    assert np.abs(np.asarray(calibration.felt.mean)[1:] - expected[1:]).max() < 12


def test_the_die_size_is_guessed_from_the_tray_within_a_factor(tray_and_calibration) -> None:
    tray, calibration, _ = tray_and_calibration
    assert not calibration.die_measured
    assert 0.6 < calibration.die_side / tray.die_side < 1.6


def test_a_die_in_the_photo_gives_the_die_size() -> None:
    from models.synth import place, random_specs, random_tray, render

    rng = np.random.default_rng(5)
    tray = random_tray(rng, (640, 480))
    specs = random_specs(rng, 2, kinds=("d6",), finish="frosted")
    scene = render(tray, specs, place(rng, specs, tray, touching=0.0), rng)
    calibration = calibrate(scene.image)
    assert calibration.die_measured
    assert 0.8 < calibration.die_side / tray.die_side < 1.3


def test_a_file_round_trip_keeps_everything(tmp_path: Path, tray_and_calibration) -> None:
    _, calibration, _ = tray_and_calibration
    save(calibration, tmp_path / "sub" / "calibration.json")
    again = load(tmp_path / "sub" / "calibration.json")
    assert again.to_json() == calibration.to_json()
    assert again.for_size(1280, 960).die_side == pytest.approx(2 * again.die_side)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: "{broken", "unreadable"),
        (lambda d: json.dumps({**d, "version": 99}), "version 99"),
        (lambda d: json.dumps({**d, "format": "other"}), "not a yamscope calibration"),
        (lambda d: json.dumps({k: v for k, v in d.items() if k != "felt"}), "incomplete"),
        (lambda d: json.dumps({**d, "die_side": -3}), "out of range"),
        (lambda d: json.dumps({**d, "field_of_view": 179}), "out of range"),
        (lambda d: json.dumps({**d, "field_of_view": "wide"}), "incomplete"),
    ],
)
def test_bad_calibration_files_are_refused(
    tmp_path: Path, tray_and_calibration, change, message: str
) -> None:
    _, calibration, _ = tray_and_calibration
    path = tmp_path / "calibration.json"
    path.write_text(change(calibration.to_json()), encoding="utf-8")
    with pytest.raises(BadCalibrationError, match=message):
        load(path)
    with pytest.raises(BadCalibrationError, match="no such"):
        load(tmp_path / "missing.json")


def test_the_cameras_field_of_view_is_kept_and_gives_the_focal_length(
    tmp_path: Path, tray_and_calibration
) -> None:
    """A photo does not tell it: the owner does (default a Pi Camera Module 3's in a 4:3
    stream, 52°). Calibrations written before it was kept read as the default."""
    tray, calibration, image = tray_and_calibration
    assert calibration.field_of_view == DEFAULT_FIELD_OF_VIEW == 52.0
    wide = calibrate(image, field_of_view=102.0)
    assert wide.focal == pytest.approx(0.5 / math.tan(math.radians(51)))
    assert wide.focal < calibration.focal
    save(wide, tmp_path / "wide.json")
    assert load(tmp_path / "wide.json").field_of_view == 102.0
    assert wide.for_size(1280, 960).field_of_view == 102.0
    older = {k: v for k, v in calibration.to_json().items() if k != "field_of_view"}
    (tmp_path / "older.json").write_text(json.dumps(older), encoding="utf-8")
    assert load(tmp_path / "older.json").field_of_view == DEFAULT_FIELD_OF_VIEW
    assert focal_widths(field_of_view_of(1.7)) == pytest.approx(1.7)
    assert tray.field_of_view == pytest.approx(field_of_view_of(tray.camera_height / 640))


@pytest.mark.parametrize("degrees", [0.0, 5.0, 170.0])
def test_a_field_of_view_no_camera_has_is_refused(tray_and_calibration, degrees: float) -> None:
    _, _, image = tray_and_calibration
    with pytest.raises(BadCalibrationError, match="not a camera's"):
        calibrate(image, field_of_view=degrees)


def test_good_light_gets_no_advice() -> None:
    image = np.full((240, 320, 3), (60, 150, 70), np.uint8)
    image += np.random.default_rng(0).integers(0, 4, image.shape, dtype=np.uint8)
    calibration = calibrate(image)
    assert calibration.light.advice() == () and calibration.summary()["light"] == []
    assert calibration.cut_off == ("left", "top", "right", "bottom")  # all felt: no wall seen


def test_a_dark_tray_is_told_too_dark(tray_and_calibration) -> None:
    _, _, image = tray_and_calibration
    dark = (image * 0.2).astype(np.uint8)
    calibration = calibrate(dark)
    assert calibration.light.exposure < 0.25
    assert any(line.startswith("too dark") for line in calibration.advice)
    (problem,) = [p for p in calibration.summary()["light"] if p["problem"] == "dark"]
    assert problem["measured"] == round(calibration.light.exposure, 4)
    assert problem["limit"] == 0.25  # for a page that says it in its own words


def test_glare_is_told(tray_and_calibration) -> None:
    _, _, image = tray_and_calibration
    glaring = image.copy()
    glaring[200:230, 300:340] = 255  # a lamp's reflection on the felt
    calibration = calibrate(glaring)
    assert calibration.light.saturated_share > 0.005
    assert any(line.startswith("glare") for line in calibration.advice)


def test_uneven_light_is_told() -> None:
    image = np.full((240, 320, 3), (60, 150, 70), np.float32)
    image *= np.linspace(0.35, 1.0, 320, dtype=np.float32)[None, :, None]
    calibration = calibrate(image.astype(np.uint8))
    assert calibration.light.unevenness > 0.35
    assert any(line.startswith("uneven light") for line in calibration.advice)
    assert "uneven" in [p["problem"] for p in calibration.summary()["light"]]


def test_a_lens_wider_than_the_models_learned_is_pointed_out() -> None:
    from dataclasses import replace

    from models.synth.layout import WIDE_CAMERA
    from vision.calibration import WIDEST_TRAINED, field_of_view_of

    # the widest training camera stands WIDE_CAMERA[0] frame widths above the felt
    assert field_of_view_of(WIDE_CAMERA[0]) == pytest.approx(WIDEST_TRAINED, abs=0.2)
    image = np.full((240, 320, 3), (60, 150, 70), np.uint8)
    calibration = calibrate(image)
    assert calibration.summary()["wider_than_trained"] is False  # 52°, the default
    wide = replace(calibration, field_of_view=86.0)  # a Camera Module 3 Wide in 4:3
    assert wide.summary()["wider_than_trained"] is True


def tray_with_a_dark_corner() -> np.ndarray:
    """A 480x360 photo of green felt inside a wooden rim, its bottom left corner in the
    deep shadow of the walls (a quarter disc, as a lamp's falls off)."""
    import cv2

    rng = np.random.default_rng(3)
    image = np.empty((360, 480, 3), np.float32)
    image[:] = (40, 80, 130)
    image[40:320, 50:430] = (60, 140, 70)
    shadow = np.ones((360, 480), np.float32)
    cv2.circle(shadow, (50, 320), 80, 0.3, -1)
    image *= cv2.GaussianBlur(shadow, (0, 0), 3)[..., None]
    image += rng.normal(0, 2, image.shape)
    return np.clip(image, 0, 255).astype(np.uint8)


def test_a_corner_too_dark_to_pass_for_felt_is_still_felt() -> None:
    mask = calibrate(tray_with_a_dark_corner()).area_mask(480, 360)
    assert mask[269, 101]  # in the shadow, within the felt's hull
    assert not mask[20, 20] and not mask[340, 460]  # the rim stays out
    assert mask.sum() < 1.05 * 380 * 280


def tray_cut_at(sides: tuple[str, ...]) -> np.ndarray:
    """A 480x360 photo of green felt inside a wooden rim, the rim left out (the felt running
    on to the picture's edge) on ``sides``."""
    rng = np.random.default_rng(4)
    image = np.empty((360, 480, 3), np.float32)
    image[:] = (40, 80, 130)
    top, bottom = (0 if "top" in sides else 40), (360 if "bottom" in sides else 320)
    left, right = (0 if "left" in sides else 50), (480 if "right" in sides else 430)
    image[top:bottom, left:right] = (60, 140, 70)
    image += rng.normal(0, 2, image.shape)
    return np.clip(image, 0, 255).astype(np.uint8)


@pytest.mark.parametrize("sides", [(), ("right",), ("left", "bottom")])
def test_the_sides_the_felt_runs_out_of_the_picture_are_said(sides: tuple[str, ...]) -> None:
    calibration = calibrate(tray_cut_at(sides))
    assert calibration.cut_off == sides
    assert calibration.summary()["cut_off"] == list(sides)
    said = [line for line in calibration.advice if "out of the picture" in line]
    if sides:
        assert len(said) == 1 and " and ".join(sides) in said[0]
    else:
        assert said == []
