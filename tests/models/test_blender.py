"""The Blender scenes' geometry and layout, without Blender: the solids are real dice, the
rotation puts the labelled value on top, the dice rest on the felt without overlapping, and
a knocked table smears the photo of the throw along a line (not the empty tray's), one
table's throws keep its felt, camera and dice, a phone looks at the dice from its slant,
and asking for the Blender engine without bpy
(or a dice set without it) is one clear error."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

from models.blender import geometry, one_table, throw
from models.blender.scene import (
    DICE_SETS,
    SURFACES,
    _radius,
    _scale,
    _sensor,
    _solid,
    camera_pose,
    draw_setup,
    motion_kernel,
    place_dice,
    varied_set,
)
from models.common.numeral_fonts import font_files
from models.synth.layout import random_specs


@pytest.mark.parametrize(("solid", "total"), [(geometry.d10(), 11), (geometry.d6(), 7)])
def test_the_solids_are_real_dice(solid: geometry.Solid, total: int) -> None:
    faces = len(solid.faces)
    assert sorted(solid.values) == list(range(1, faces + 1))
    for f in range(faces):
        corners = solid.vertices[list(solid.faces[f])]
        n = solid.normal(f)
        assert np.abs((corners - corners[0]) @ n).max() < 1e-9  # flat
        assert n @ solid.centre(f) > 0  # facing out
        assert abs(solid.up[f] @ n) < 1e-9 and abs(np.linalg.norm(solid.up[f]) - 1) < 1e-9
        opposite = min(range(faces), key=lambda g, n=n: float(solid.normal(g) @ n))
        assert solid.normal(opposite) @ n == pytest.approx(-1)  # parallel: rests face up
        assert solid.values[f] + solid.values[opposite] == total


@pytest.mark.parametrize("solid", [geometry.d10(), geometry.d6()])
def test_showing_puts_the_value_on_top(solid: geometry.Solid) -> None:
    for value in solid.values:
        for turn in (0.0, 1.3, 4.0):
            rotation = geometry.showing(solid, value, turn)
            assert np.allclose(rotation @ rotation.T, np.eye(3))
            assert np.linalg.det(rotation) == pytest.approx(1)
            up = rotation @ solid.normal(solid.face_of(value))
            assert up == pytest.approx([0, 0, 1], abs=1e-9)
            assert geometry.top_value(solid, rotation) == value
        tilted = geometry.showing(solid, value, 0.5, tilt=math.radians(25), tilt_dir=1.0)
        lean = math.degrees(math.acos((tilted @ solid.normal(solid.face_of(value)))[2]))
        assert lean == pytest.approx(25)


def test_rotation_between_opposite_vectors() -> None:
    a = np.array([0.0, 0.0, 1.0])
    assert geometry.rotation_between(a, -a) @ a == pytest.approx(-a)


def test_the_dice_rest_on_the_felt_apart() -> None:
    for seed in range(20):
        rng = np.random.default_rng(seed)
        specs = random_specs(rng, 10, ("d6", "d10"), cocked=0.2)
        setup = draw_setup(rng, (640, 480), specs)
        assert 1 <= len(setup.dice) <= 10
        half_w, half_h = setup.felt_size[0] / 2, setup.felt_size[1] / 2
        for spec, rotation, position in setup.dice:
            solid = _solid(spec.kind)
            world = solid.vertices @ (rotation * _scale(spec.kind)).T + position
            assert world[:, 2].min() == pytest.approx(0, abs=1e-9)  # lying on the felt
            assert np.abs(world[:, 0]).max() <= half_w + 0.3
            assert np.abs(world[:, 1]).max() <= half_h + 0.3
            face_up = rotation @ solid.normal(solid.face_of(spec.value))
            assert (face_up[2] < 0.96) == spec.cocked  # a cocked die leans, the others not
        for i, (a, _, pa) in enumerate(setup.dice):
            for b, _, pb in setup.dice[i + 1 :]:
                apart = math.hypot(*(pa[:2] - pb[:2]))
                assert apart >= _radius(a.kind) + _radius(b.kind) - 1e-9


def test_one_tables_throws_keep_its_felt_camera_and_dice() -> None:
    table = one_table(7, (640, 480), ("d10",), impossible=True)
    assert table == one_table(7, (640, 480), ("d10",), impossible=True)
    assert table.setup != one_table(8, (640, 480), ("d10",), impossible=True).setup
    looks = sorted((d.kind, d.colour, d.finish) for d in table.dice)
    assert [d.colour for d in table.dice].count("red") == 5
    values = []
    for seed in range(6):
        rng = np.random.default_rng(seed)
        specs = throw(rng, table, impossible=True, cocked=0.0)
        assert sorted((d.kind, d.colour, d.finish) for d in specs) == looks
        setup = place_dice(rng, table.setup, specs)
        assert (setup.felt, setup.camera_height, setup.sun) == (
            table.setup.felt,
            table.setup.camera_height,
            table.setup.sun,
        )
        assert not table.setup.dice  # the table itself stays bare
        values.append(sorted(d.value for d in specs))
    assert len({tuple(v) for v in values}) > 1  # each throw lands anew
    few = throw(np.random.default_rng(0), one_table(7, (640, 480), ("d6", "d10"), False), False, 0)
    assert 1 <= len(few) <= 10


def _looking(rotation: tuple[float, float, float]) -> np.ndarray:
    """Where a Blender camera turned by these XYZ Euler angles looks (unturned: down)."""
    x, y, z = rotation
    rx = np.array([[1, 0, 0], [0, math.cos(x), -math.sin(x)], [0, math.sin(x), math.cos(x)]])
    ry = np.array([[math.cos(y), 0, math.sin(y)], [0, 1, 0], [-math.sin(y), 0, math.cos(y)]])
    rz = np.array([[math.cos(z), -math.sin(z), 0], [math.sin(z), math.cos(z), 0], [0, 0, 1]])
    return rz @ ry @ rx @ np.array([0.0, 0.0, -1.0])


def test_a_phone_looks_at_the_dice_from_its_slant() -> None:
    """The phone view: a table of one of the surfaces, the camera 20-55° from straight down
    and aimed at the middle of the dice, its field of view drawn (not the tray's), the dice
    lying flat within its middle; the tray's camera looks nearly straight down."""
    slants = []
    for seed in range(20):
        rng = np.random.default_rng(seed)
        specs = random_specs(rng, 6, ("d6", "d10"), finish="frosted")
        setup = draw_setup(rng, (640, 480), specs, phone=True)
        assert setup.surface in SURFACES and 55 <= setup.field_of_view <= 70
        slant = math.degrees(setup.slant)
        assert 20 <= slant <= 55
        slants.append(slant)
        place, rotation = camera_pose(setup)
        to_dice = -np.array(place) / np.linalg.norm(place)
        assert _looking(rotation) == pytest.approx(to_dice, abs=1e-9)
        assert math.degrees(math.acos(-to_dice[2])) == pytest.approx(slant)
        for spec, _, position in setup.dice:
            assert abs(position[0]) <= setup.felt_size[0] / 2
            assert abs(position[1]) <= setup.felt_size[1] / 2
            assert not spec.cocked and spec.finish == "frosted"
    assert max(slants) - min(slants) > 15
    tray = draw_setup(np.random.default_rng(0), (640, 480), [])
    place, rotation = camera_pose(tray)
    assert tray.surface == "felt" and place[:2] == (0.0, 0.0)
    assert _looking(rotation)[2] < -0.99  # within a few degrees of straight down
    phone_table = one_table(7, (640, 480), ("d10",), True, phone=True, finish="frosted")
    assert phone_table.setup.surface in SURFACES
    assert {d.finish for d in phone_table.dice} == {"frosted"}


def test_every_dice_set_colours_both_plastics_and_varied_sets_differ() -> None:
    assert "house" in DICE_SETS and len(DICE_SETS) >= 2
    for look in DICE_SETS.values():
        assert set(look.body) == set(look.ink) == {"red", "white"}
        for colour in ("red", "white"):  # the ink stands out from the plastic
            assert abs(sum(look.body[colour]) - sum(look.ink[colour])) > 0.5
        assert look.frosted_roughness[0] <= look.frosted_roughness[1]
        assert set(look.marble) <= {"red", "white"} and look.finish in (None, "frosted")
    varied = [varied_set(np.random.default_rng(seed)) for seed in range(30)]
    assert len({(v.font, v.body["red"], v.ink["white"]) for v in varied}) == 30
    assert len({v.font for v in varied}) >= min(4, 1 + len(font_files()))  # fonts installed
    assert all(v.font != DICE_SETS["ivory"].font for v in varied)  # ivory's stays unseen
    for v in varied:
        assert set(v.body) == set(v.ink) == {"red", "white"}
        assert 0.4 < v.numeral_size < 0.65 and 0 <= v.stroke <= 0.03


def test_a_knocked_table_smears_the_throw_along_a_line() -> None:
    flat = motion_kernel(5.0, 0.0)
    assert flat.sum() == pytest.approx(1.0) and flat.shape == (5, 5)
    assert np.count_nonzero(flat[2]) == 5 and np.count_nonzero(flat) == 5  # one row
    upright = motion_kernel(5.0, math.pi / 2)
    assert np.count_nonzero(upright[:, 2]) == 5 and np.count_nonzero(upright) == 5
    setups = [draw_setup(np.random.default_rng(s), (64, 48), []) for s in range(40)]
    moved = next(s for s in setups if s.motion[0])  # about one table in seven is knocked
    assert 2.0 <= moved.motion[0] <= 6.0 and any(not s.motion[0] for s in setups)
    moved.blur, moved.noise, moved.motion = 0.0, 0.0, (5.0, 0.0)
    dot = np.zeros((48, 64, 3), np.uint8)
    dot[24, 32] = 250
    rng = np.random.default_rng(0)
    smeared = _sensor(dot, moved, rng, moved=True)[..., 0]
    assert np.count_nonzero(smeared[24]) == 5 and np.count_nonzero(smeared) == 5
    assert np.array_equal(_sensor(dot, moved, rng), dot)  # the empty tray was not knocked


@pytest.mark.parametrize("engine", ["blender", "blender-phone"])
def test_render_with_blender_without_bpy_is_one_clear_error(
    engine: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from device.cli import main

    monkeypatch.setitem(sys.modules, "bpy", None)  # as on a machine without the extra
    out = tmp_path / "blender"
    code = main(["render", "--engine", engine, "--n", "1", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and "pip install -e '.[render]'" in err
    assert not out.exists()


@pytest.mark.parametrize(
    "flags", [["--dice-set", "ivory"], ["--dice-set", "opaque"], ["--one-table", "3"]]
)
def test_blender_looks_without_blender_are_one_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: list[str]
) -> None:
    from device.cli import main

    out = tmp_path / "numpy"
    code = main(["render", "--n", "1", "--out", str(out), *flags])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and "--engine blender" in err
    assert not out.exists()


def test_the_labels_give_the_cameras_field_of_view() -> None:
    """The felt and a little wall fill the frame's width: a camera 1.05-1.25 felt widths
    up sees about 43-50° across; the labels carry it for the calibration, and a phone's
    slant for training (its dice are held upright)."""
    from models.blender import labels
    from models.blender.scene import Rendered

    rng = np.random.default_rng(3)
    setup = draw_setup(rng, (640, 480), random_specs(rng, 3, ("d10",)))
    assert 40 < setup.field_of_view < 55
    half = math.radians(setup.field_of_view) / 2
    assert math.tan(half) * 2 * setup.camera_height == pytest.approx(setup.felt_size[0] + 1.5)
    blank = np.zeros((480, 640, 3), np.uint8)
    rendered = Rendered(blank, blank, blank[..., 0], [], setup.field_of_view)
    assert labels(rendered, (640, 480))["field_of_view"] == round(setup.field_of_view, 3)
    assert "slant" not in labels(rendered, (640, 480))  # from overhead: read at any angle
    phone = Rendered(blank, None, blank[..., 0], [], 62.0, slant=35.2)
    assert labels(phone, (640, 480))["slant"] == 35.2
