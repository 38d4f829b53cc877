"""The synthetic tray (models.synth): labels that match the pixels, looks a reader can rely
on, reproducible and resumable datasets, and `yamscope render`."""

from __future__ import annotations

import ast
import dataclasses
import json
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from models.synth import (
    DieSpec,
    Pose,
    Tray,
    empty_tray,
    place,
    random_scene,
    random_specs,
    random_tray,
    render,
)
from models.synth.dataset import DatasetError, read_labels, write_dataset
from models.synth.glyphs import tile

ROOT = Path(__file__).resolve().parents[2]


def plain_tray(felt: tuple[int, int, int] = (52, 112, 38), side: float = 56.0) -> Tray:
    """A quiet table: little noise, no blur/glare/JPEG, camera high (no side bands)."""
    return Tray(
        size=(640, 480),
        felt=felt,
        area=(40, 40, 600, 440),
        die_side=side,
        seed=3,
        camera_height=1e5,
        noise=1.0,
        shot=0.1,
        light=(-0.2, -0.3, 0.933),
    )


def mask_bbox(mask: np.ndarray) -> tuple[int, int, int, int]:
    ys, xs = np.nonzero(mask)
    return int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1


# --- the drawing canvas --------------------------------------------------------------------


def test_the_canvas_reads_and_writes_like_a_float32_array_and_leaves_the_background() -> None:
    from models.synth.background import Canvas

    rng = np.random.default_rng(5)
    background = rng.random((150, 200, 3)).astype(np.float16)
    kept = background.copy()
    canvas, array = Canvas(background), background.astype(np.float32)
    for _ in range(40):
        y0, x0 = int(rng.integers(0, 140)), int(rng.integers(0, 190))
        key = (slice(y0, y0 + int(rng.integers(1, 90))), slice(x0, x0 + int(rng.integers(1, 90))))
        shape = array[key].shape
        if rng.random() < 0.5:
            shade = rng.random(shape).astype(np.float32)
            canvas[key] *= shade
            array[key] *= shade
        else:
            value = rng.random(shape).astype(np.float32)
            canvas[key] = value
            array[key] = value
    assert canvas.shape == array.shape and canvas[0:150, 0:200].dtype == np.float32
    assert np.array_equal(canvas[0:150, 0:200], array)
    assert np.array_equal(canvas.rows(37, 101), array[37:101])
    assert np.array_equal(background, kept)  # the tray's cached background is shared


# --- reproducible ------------------------------------------------------------------------


def test_the_same_seed_draws_the_same_scene_and_another_seed_another() -> None:
    a = random_scene(np.random.default_rng([4, 1]), (320, 240), kinds=("d6", "d10"))
    b = random_scene(np.random.default_rng([4, 1]), (320, 240), kinds=("d6", "d10"))
    c = random_scene(np.random.default_rng([4, 2]), (320, 240), kinds=("d6", "d10"))
    assert np.array_equal(a.image, b.image)
    assert np.array_equal(a.masks, b.masks)
    assert a.dice == b.dice and a.tray == b.tray
    assert not np.array_equal(a.image, c.image)


def test_the_empty_tray_is_the_scene_without_dice() -> None:
    tray = random_tray(np.random.default_rng(8))
    empty = empty_tray(tray, np.random.default_rng(1))
    assert np.array_equal(empty, render(tray, [], [], np.random.default_rng(1)).image)
    again = empty_tray(tray, np.random.default_rng(2)).astype(int)
    # the same felt, only the sensor noise differs
    assert 0 < np.abs(again - empty).mean() < 4 + 2 * tray.noise


# --- labels match the pixels --------------------------------------------------------------


@pytest.mark.parametrize("seed", range(6))
def test_every_die_has_visible_pixels_and_its_box_is_their_bounding_box(seed: int) -> None:
    rng = np.random.default_rng([10, seed])
    scene = random_scene(rng, (640, 480), n=10, kinds=("d6", "d10"), cocked=0.3)
    assert scene.image.shape == (480, 640, 3) and scene.image.dtype == np.uint8
    assert scene.masks.shape == (480, 640) and scene.masks.max() <= len(scene.dice)
    x0, y0, x1, y1 = scene.tray.area
    for i, die in enumerate(scene.dice):
        mask = scene.masks == i + 1
        assert mask.sum() > 0.2 * die.pose.side**2, f"die {i} is hidden"
        assert die.box == mask_bbox(mask)
        if not die.spec.cocked:
            bx0, by0, bx1, by1 = die.box
            assert x0 <= bx0 and y0 <= by0 and bx1 <= x1 and by1 <= y1, (i, die.box)


@pytest.mark.parametrize("seed", range(3))
def test_a_flat_die_is_exactly_the_pixels_it_has_when_drawn_alone(seed: int) -> None:
    """Dice do not overlap: each flat die that no cocked die leans on keeps every pixel it
    has on its own; a cocked die on top of another takes some of that die's pixels."""
    rng = np.random.default_rng([11, seed])
    tray = random_tray(rng)
    specs = random_specs(rng, 10, ("d6", "d10"), cocked=0.3)
    poses = place(rng, specs, tray, touching=0.6)
    scene = render(tray, specs, poses, np.random.default_rng(0))
    for i, (spec, pose) in enumerate(zip(specs, poses, strict=True)):
        alone = render(tray, [spec], [pose], np.random.default_rng(0)).masks == 1
        together = scene.masks == i + 1
        assert not (together & ~alone).any(), "a die took pixels it does not have alone"
        if not spec.cocked:
            covered = (alone & ~together).sum() / alone.sum()
            assert covered <= 0.35  # at most what a cocked die leaning on it covers


def test_motion_smears_the_dice_but_keeps_them_labelled() -> None:
    rng = np.random.default_rng(12)
    tray = plain_tray(side=40.0)
    specs = random_specs(rng, 5, ("d6", "d10"))
    poses = place(rng, specs, tray)
    still = render(tray, specs, poses, np.random.default_rng(1))
    rolling = render(tray, specs, poses, np.random.default_rng(1), motion=0.8)
    for i, die in enumerate(rolling.dice):
        moving = rolling.masks == i + 1
        assert moving.any() and die.box == mask_bbox(moving)
        region = still.masks == i + 1
        diff = np.abs(rolling.image.astype(int) - still.image.astype(int))[region].mean()
        assert diff > 8, f"die {i} does not look moved"


# --- looks --------------------------------------------------------------------------------


def _lineup(tray: Tray, specs: list[DieSpec]) -> list[Pose]:
    side = tray.die_side
    return [
        Pose(90 + (k % 6) * 2.1 * side, 110 + (k // 6) * 2.2 * side, 23.0 * k, side)
        for k in range(len(specs))
    ]


FELTS = [(52, 112, 38), (140, 78, 28), (42, 48, 112), (104, 104, 100), (30, 29, 31)]


@pytest.mark.parametrize("felt", FELTS)
def test_red_dice_are_redder_and_transparent_dice_show_more_felt(felt) -> None:
    tray = plain_tray(felt, side=44.0)
    specs = [
        DieSpec(kind, value, colour, finish)
        for kind, value in (("d10", 3), ("d6", 4), ("d10", 8))
        for colour in ("red", "white")
        for finish in ("frosted", "transparent")
    ]
    poses = _lineup(tray, specs)
    scene = render(tray, specs, poses, np.random.default_rng(0))
    empty = empty_tray(tray, np.random.default_rng(1)).astype(float)
    hsv = cv2.cvtColor(scene.image, cv2.COLOR_BGR2HSV).astype(float)
    img = scene.image.astype(float)
    redness, felt_distance = {}, {}
    for i, spec in enumerate(specs):
        m = scene.masks == i + 1
        b, g, r = img[m].T
        red_hue = (hsv[m][:, 0] < 12) | (hsv[m][:, 0] > 168)
        key = (spec.kind, spec.value, spec.colour, spec.finish)
        redness[key] = (r - (g + b) / 2).mean() + 100 * (red_hue * hsv[m][:, 1] / 255).mean()
        felt_distance[key] = np.linalg.norm(img[m] - empty[m], axis=1).mean()
    for kind, value in (("d10", 3), ("d6", 4), ("d10", 8)):
        for finish in ("frosted", "transparent"):
            assert redness[(kind, value, "red", finish)] > redness[(kind, value, "white", finish)]
        for colour in ("red", "white"):
            frosted = felt_distance[(kind, value, colour, "frosted")]
            clear = felt_distance[(kind, value, colour, "transparent")]
            assert clear < frosted, (kind, colour, clear, frosted)


def _pip_count(scene, i: int, spec: DieSpec) -> int:
    """Pips on the top face: connected components of strong local ink contrast inside the
    die (black-hat for dark pips on white dice, top-hat of green for white pips on red)."""
    side = scene.dice[i].pose.side
    mask = (scene.masks == i + 1).astype(np.uint8)
    edge = int(0.24 * side) | 1  # leave out the rim, where glints and bevels are
    inner = cv2.erode(mask, np.ones((edge, edge), np.uint8)).astype(bool)
    size = int(0.4 * side) | 1
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size))
    if spec.colour == "white":
        grey = cv2.cvtColor(scene.image, cv2.COLOR_BGR2GRAY)
        contrast = cv2.morphologyEx(grey, cv2.MORPH_BLACKHAT, kernel).astype(float)
    else:
        contrast = cv2.morphologyEx(scene.image[..., 1], cv2.MORPH_TOPHAT, kernel).astype(float)
    ink = inner & (contrast > max(20.0, 0.5 * contrast[inner].max()))
    _, _, stats, _ = cv2.connectedComponentsWithStats(ink.astype(np.uint8), connectivity=8)
    pip = np.pi * (0.08 * side) ** 2
    area = stats[1:, cv2.CC_STAT_AREA]
    w, h = stats[1:, cv2.CC_STAT_WIDTH], stats[1:, cv2.CC_STAT_HEIGHT]
    round_ = (area > 0.3 * pip) & (area < 2.5 * pip) & (np.maximum(w, h) < 2 * np.minimum(w, h))
    return int(round_.sum())


def test_d6_pips_counted_as_blobs_read_the_value() -> None:
    rng = np.random.default_rng(13)
    right = total = 0
    for felt in FELTS[:3]:
        tray = plain_tray(felt, side=46.0)
        specs = [
            DieSpec("d6", int(rng.integers(1, 7)), colour, finish)
            for colour in ("red", "white")
            for finish in ("frosted", "transparent")
            for _ in range(3)
        ]
        poses = [
            dataclasses.replace(p, angle=float(rng.uniform(0, 360))) for p in _lineup(tray, specs)
        ]
        scene = render(tray, specs, poses, np.random.default_rng(2))
        for i, spec in enumerate(specs):
            total += 1
            right += _pip_count(scene, i, spec) == spec.value
    assert right >= 0.85 * total, f"{right} of {total}"


def test_six_and_nine_differ_at_any_rotation() -> None:
    for font in range(4):
        six, nine = tile("d10", "6", font), tile("d10", "9", font)
        for k in range(4):  # whatever way a 6 is turned, it is not a 9
            assert np.abs(np.rot90(six, k) - nine).mean() > 0.03


def test_cocked_dice_lean_on_the_wall_or_a_die_and_are_tilted() -> None:
    rng = np.random.default_rng(14)
    tray = random_tray(rng)
    specs = random_specs(rng, 6, ("d6", "d10")) + random_specs(rng, 4, ("d6", "d10"), cocked=1.0)
    poses = place(rng, specs, tray)
    x0, y0, x1, y1 = tray.area
    for spec, pose in zip(specs, poses, strict=True):
        assert (pose.tilt > 10) == spec.cocked
    scene = render(tray, specs, poses, rng)
    for die in scene.dice[6:]:
        bx0, by0, bx1, by1 = die.box
        over_wall = bx0 < x0 or by0 < y0 or bx1 > x1 or by1 > y1
        on_die = any(
            (scene.masks[by0:by1, bx0:bx1] == j + 1).any() or _near(die, other)
            for j, other in enumerate(scene.dice[:6])
        )
        assert over_wall or on_die


@pytest.mark.parametrize("slant", [30.0, 55.0])
def test_a_slanted_camera_shows_the_top_face_at_the_top_and_the_front_face_below(
    slant: float,
) -> None:
    tray = dataclasses.replace(plain_tray(side=60.0), slant=slant)
    spec = DieSpec("d6", 1, "white", "frosted")
    pose = Pose(320.0, 240.0, 0.0, 60.0)  # square to the photo: top and front face in full
    scene = render(tray, [spec], [pose], np.random.default_rng(0))
    x0, y0, x1, y1 = scene.dice[0].box
    t = np.radians(slant)
    # a cube seen from above at a slant: the top face cos(t) tall, the front face sin(t)
    assert (y1 - y0) / (x1 - x0) == pytest.approx(np.cos(t) + np.sin(t), abs=0.08)
    # the top face's one pip in the upper cos(t) part of the box, the front face's below
    grey = cv2.cvtColor(scene.image, cv2.COLOR_BGR2GRAY)[y0:y1, x0:x1].astype(float)
    split = round((y1 - y0) * np.cos(t) / (np.cos(t) + np.sin(t)))
    inside = scene.masks[y0:y1, x0:x1] == 1
    dark = (inside & (grey < 0.5 * np.median(grey[inside]))).astype(np.uint8)
    pips = [cv2.connectedComponents(part)[0] - 1 for part in (dark[:split], dark[split:])]
    assert pips[0] == 1 and pips[1] >= 2


def test_a_straight_down_camera_is_the_default_and_a_slant_out_of_range_is_refused() -> None:
    assert plain_tray().slant == 0.0 and random_tray(np.random.default_rng(1)).slant == 0.0
    tilted = random_tray(np.random.default_rng(1), slant=(20.0, 60.0))
    assert 20.0 <= tilted.slant <= 60.0
    assert dataclasses.replace(tilted, slant=0.0) == random_tray(np.random.default_rng(1))
    for bad in (-5.0, 80.0):
        with pytest.raises(ValueError, match=r"slant is 0\.\.70 degrees"):
            dataclasses.replace(plain_tray(), slant=bad)


def _near(a, b) -> bool:
    ax0, ay0, ax1, ay1 = a.box
    bx0, by0, bx1, by1 = b.box
    return ax0 < bx1 + 2 and bx0 < ax1 + 2 and ay0 < by1 + 2 and by0 < ay1 + 2


# --- throws -------------------------------------------------------------------------------


def test_random_specs_impossible_is_five_red_and_five_white_d10() -> None:
    specs = random_specs(np.random.default_rng(1), 10, impossible=True)
    assert [s.kind for s in specs] == ["d10"] * 10
    assert sorted(s.colour for s in specs) == ["red"] * 5 + ["white"] * 5
    assert all(1 <= s.value <= 10 for s in specs)
    with pytest.raises(ValueError):
        random_specs(np.random.default_rng(1), 5, impossible=True)
    with pytest.raises(ValueError):
        random_specs(np.random.default_rng(1), 3, kinds=("d8",))
    with pytest.raises(ValueError):
        DieSpec("d6", 7, "red", "frosted")
    assert all(s.cocked for s in random_specs(np.random.default_rng(2), 5, cocked=1.0))


def test_kept_dice_stay_on_the_same_pixels_when_the_others_are_thrown_again() -> None:
    rng = np.random.default_rng(15)
    tray = random_tray(rng)
    specs = random_specs(rng, 8, ("d6", "d10"))
    poses = place(rng, specs, tray)
    first = render(tray, specs, poses, rng)
    keep = {0: poses[0], 3: poses[3], 5: poses[5]}
    again = [specs[i] if i in keep else s for i, s in enumerate(random_specs(rng, 8, ("d6",)))]
    new_poses = place(rng, again, tray, fixed=keep)
    second = render(tray, again, new_poses, rng)
    for i in range(8):
        if i in keep:
            assert new_poses[i] == poses[i]
            assert np.array_equal(first.masks == i + 1, second.masks == i + 1)
        else:
            assert new_poses[i] != poses[i]


def test_place_says_when_the_dice_do_not_fit() -> None:
    tray = dataclasses.replace(plain_tray(), area=(100, 100, 180, 180))
    specs = random_specs(np.random.default_rng(1), 10)
    with pytest.raises(ValueError, match="could not place"):
        place(np.random.default_rng(1), specs, tray)


# --- datasets and `yamscope render` -------------------------------------------------------


def _files(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name != "dataset.json"
    }


def test_a_resumed_dataset_is_the_same_as_one_written_at_once(tmp_path: Path) -> None:
    options = {"size": (200, 150), "kinds": ("d6", "d10"), "progress": False}
    once, resumed = tmp_path / "once", tmp_path / "resumed"
    write_dataset(once, 4, 7, **options)
    assert write_dataset(resumed, 2, 7, **options)["written"] == 2
    (resumed / "labels" / "000001.json").unlink()  # as if killed before the labels
    summary = write_dataset(resumed, 4, 7, **options)
    assert (summary["written"], summary["skipped"]) == (3, 1)
    assert _files(once) == _files(resumed)
    assert len(_files(once)) == 12
    labelled = list(read_labels(once))
    assert [p.name for p, _ in labelled] == [f"{i:06d}.png" for i in range(4)]
    for image_path, labels in labelled:
        masks = cv2.imread(str(image_path).replace("images", "masks"), cv2.IMREAD_UNCHANGED)
        assert labels["size"] == [200, 150]
        assert cv2.imread(str(image_path)).shape == (150, 200, 3)
        tray = Tray(**labels["tray"])  # the table can be rebuilt from the labels
        assert tray.size == (200, 150) and empty_tray(tray, np.random.default_rng(0)).any()
        for i, die in enumerate(labels["dice"]):
            assert list(mask_bbox(masks == i + 1)) == die["box"]
            assert {"kind", "value", "colour", "finish", "cocked", "box"} <= set(die)


def test_a_folder_with_another_dataset_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "set"
    write_dataset(out, 1, 7, size=(160, 120), progress=False)
    for change in ({"seed": 8}, {"size": (200, 150)}, {"kinds": ("d6",)}):
        args = {"seed": 7, "size": (160, 120), "kinds": ("d10",)} | change
        with pytest.raises(DatasetError, match="use another folder"):
            write_dataset(
                out, 2, args["seed"], size=args["size"], kinds=args["kinds"], progress=False
            )
    assert not (out / "labels" / "000001.json").exists()


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    from device.cli import main

    try:
        code = main(args)
    except SystemExit as exc:  # argparse's own errors
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    "extra",
    [
        ["--n", "0"],
        ["--n", "two"],
        ["--n", "2", "--size", "640"],
        ["--n", "2", "--size", "32x32"],
        ["--n", "2", "--size", "axb"],
        ["--n", "2", "--kinds", "d8"],
        ["--n", "2", "--kinds", ","],
        ["--n", "2", "--kinds", "d6", "--impossible"],
        ["--seed", "1"],
    ],
)
def test_render_cli_bad_arguments_exit_2_with_one_line(
    extra: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run_cli(["render", "--out", str(tmp_path / "x"), *extra], capsys)
    assert code == 2
    assert len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "x").exists()


def test_render_cli_writes_a_dataset_and_refuses_a_file_or_other_settings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "synth"
    common = ["render", "--out", str(out), "--size", "160x120", "--quiet"]
    code, stdout, _ = run_cli([*common, "--n", "2", "--kinds", "d6,d10"], capsys)
    assert code == 0 and "2 scenes written" in stdout
    assert sorted(p.name for p in (out / "labels").iterdir()) == ["000000.json", "000001.json"]
    code, _, err = run_cli([*common, "--n", "2", "--kinds", "d6,d10", "--seed", "3"], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1 and "seed" in err
    a_file = tmp_path / "file.txt"
    a_file.write_text("x")
    code, _, err = run_cli(["render", "--n", "1", "--out", str(a_file)], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1


# --- the appliance imports it --------------------------------------------------------------


def test_synth_imports_only_numpy_opencv_and_tqdm() -> None:
    found = set()
    for path in (ROOT / "models" / "synth").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module.split(".")[0])
    assert found - set(sys.stdlib_module_names) <= {"numpy", "cv2", "tqdm", "models"}
    internal = {
        node.module
        for path in (ROOT / "models" / "synth").rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("models")
    }
    assert all(m.startswith("models.synth") for m in internal), internal


def test_the_camera_range_sets_how_high_the_camera_stands() -> None:
    """The default stays the narrow lens every set so far was drawn with; a wide one (a Pi
    camera module) stands lower, and nothing else about the table changes."""
    narrow = random_tray(np.random.default_rng(3), (1280, 960))
    again = random_tray(np.random.default_rng(3), (1280, 960), (1.3, 2.6))
    wide = random_tray(np.random.default_rng(3), (1280, 960), (0.65, 1.3))
    assert narrow == again
    assert 1.3 * 1280 <= narrow.camera_height <= 2.6 * 1280
    assert 0.65 * 1280 <= wide.camera_height <= 1.3 * 1280
    assert wide.felt == narrow.felt and wide.area == narrow.area


def test_the_wide_camera_engine_is_a_folder_of_its_own(tmp_path: Path) -> None:
    from models.synth.dataset import NUMPY_WIDE, DatasetError, write_dataset
    from models.synth.layout import WIDE_CAMERA

    out = tmp_path / "wide"
    write_dataset(out, 2, seed=4, size=(320, 240), engine=NUMPY_WIDE, progress=False)
    for label in sorted((out / "labels").glob("*.json")):
        tray = json.loads(label.read_text(encoding="utf-8"))["tray"]
        low, high = (v * 320 for v in WIDE_CAMERA)
        assert low - 0.1 <= tray["camera_height"] <= high + 0.1
    with pytest.raises(DatasetError, match="generator"):
        write_dataset(out, 2, seed=4, size=(320, 240), progress=False)


def test_the_slanted_camera_engine_draws_slanted_trays_in_a_folder_of_its_own(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from device.cli import main as cli

    out = tmp_path / "slanted"
    assert cli(["render", "--n", "2", "--seed", "4", "--size", "320x240", "--quiet",
                "--engine", "numpy-slanted", "--out", str(out)]) == 0  # fmt: skip
    for label in sorted((out / "labels").glob("*.json")):
        assert 20.0 <= json.loads(label.read_text(encoding="utf-8"))["tray"]["slant"] <= 60.0
    assert json.loads((out / "dataset.json").read_text(encoding="utf-8"))["generator"].endswith(
        "(slanted camera)"
    )
    assert cli(["render", "--n", "2", "--seed", "4", "--size", "320x240", "--quiet",
                "--out", str(out)]) == 2  # fmt: skip
    assert "generator" in capsys.readouterr().err  # another engine's folder: refused


def test_the_typefaces_numerals_are_drawn_only_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    """The eval sets and the simulated tray keep the four stroke styles the shipped model
    learned; training asks for the 29 typefaces too (`--typefaces`)."""
    from models.synth.glyphs import FONTS, TYPEFACES, font_count
    from models.synth.numerals import tiles

    monkeypatch.delenv(TYPEFACES, raising=False)
    assert font_count() == len(FONTS)
    monkeypatch.setenv(TYPEFACES, "1")
    assert font_count() == len(FONTS) + len(tiles()) and len(tiles()) >= 20
    stroke, typeface = tile("d10", "4", 0), tile("d10", "4", len(FONTS) + 1)
    assert typeface.shape == stroke.shape and typeface.max() > 0.9
    assert np.abs(typeface - stroke).mean() > 0.02  # another drawing of the same numeral
    fonts = {random_tray(np.random.default_rng(s), (640, 480)).font for s in range(60)}
    assert max(fonts) >= len(FONTS)


def test_marbled_dice_are_drawn_only_when_asked_and_leave_the_rest_of_the_set(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Training asks for marbled sets (`--marbled`); the eval sets and the simulated tray keep
    plain plastic, and a marbled set draws everything else as the plain one does."""
    from models.synth.layout import MARBLED

    monkeypatch.delenv(MARBLED, raising=False)
    plain = [random_tray(np.random.default_rng(s)) for s in range(40)]
    assert {t.marble for t in plain} == {0.0}
    monkeypatch.setenv(MARBLED, "1")
    asked = [random_tray(np.random.default_rng(s)) for s in range(40)]
    marbled = [t for t in asked if t.marble > 0]
    assert 8 <= len(marbled) <= 32 and all(0.35 <= t.marble <= 0.9 for t in marbled)
    for before, after in zip(plain, asked, strict=True):
        unmarbled = dataclasses.replace(
            after, marble=0.0, marble_red=before.marble_red, marble_white=before.marble_white
        )
        assert unmarbled == before
    with pytest.raises(ValueError, match=r"marble is a strength in 0\.\.1"):
        dataclasses.replace(plain_tray(), marble=1.5)


def test_a_marbled_die_is_veined_where_a_plain_one_is_one_plastic() -> None:
    """The same dice, plain and marbled: the frosted bodies change, unevenly (veins, not a
    tint), and a transparent die is never marbled."""
    specs = [DieSpec("d10", 3, "white", "frosted"), DieSpec("d6", 4, "red", "frosted"),
             DieSpec("d10", 8, "red", "transparent")]  # fmt: skip
    plain = plain_tray(side=60.0)
    marbled = dataclasses.replace(plain, marble=0.9, marble_white=(200, 60, 20))
    scenes = [
        render(tray, specs, _lineup(tray, specs), np.random.default_rng(0))
        for tray in (plain, marbled)
    ]
    diff = np.abs(scenes[1].image.astype(float) - scenes[0].image.astype(float)).mean(axis=2)
    for i in (0, 1):
        body = diff[scenes[0].masks == i + 1]
        assert body.mean() > 8 and np.percentile(body, 90) > 3 * np.percentile(body, 10) + 5
    assert diff[scenes[0].masks == 3].max() == 0


def test_numbered_d6_are_drawn_only_when_asked_and_leave_the_rest_of_the_set(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Training asks for d6 with numerals (`--numbered`); the eval sets and the simulated tray
    keep pips, and a numbered set draws everything else as the plain one does."""
    from models.synth.layout import NUMBERED

    monkeypatch.delenv(NUMBERED, raising=False)
    plain = [random_tray(np.random.default_rng(s)) for s in range(40)]
    assert not any(t.numbered for t in plain)
    monkeypatch.setenv(NUMBERED, "1")
    asked = [random_tray(np.random.default_rng(s)) for s in range(40)]
    assert 4 <= sum(t.numbered for t in asked) <= 24
    for before, after in zip(plain, asked, strict=True):
        assert dataclasses.replace(after, numbered=False) == before


def test_a_numbered_d6_carries_the_numeral_where_a_plain_one_has_pips() -> None:
    """The same d6, with pips and numbered: only the marks differ, and the numbered one's top
    face is inked as a d10's numeral of that value is, not as its pips."""
    tray = plain_tray(side=80.0)
    specs = [DieSpec("d6", 4, "white", "frosted"), DieSpec("d10", 4, "white", "frosted")]
    poses = [Pose(200, 240, 0.0, 80.0), Pose(440, 240, 0.0, 80.0)]
    pips, numbered = (
        render(t, specs, poses, np.random.default_rng(0))
        for t in (tray, dataclasses.replace(tray, numbered=True))
    )
    d10 = numbered.masks == 2
    assert np.array_equal(pips.image[d10], numbered.image[d10])  # a d10 is numbered anyway
    x0, y0, x1, y1 = pips.dice[0].box
    grey = [cv2.cvtColor(s.image[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY) for s in (pips, numbered)]
    ink = [g < 120 for g in grey]
    assert ink[0].sum() > 50 and ink[1].sum() > 50
    # four round pips sit at the face's corners; a "4" does not: its ink is at the centre
    h, w = ink[0].shape
    centre = (slice(h // 3, 2 * h // 3), slice(w // 3, 2 * w // 3))
    assert ink[0][centre].sum() < 0.1 * ink[0].sum() < ink[1][centre].sum()


def render_with_look(
    out: Path, look: str, variable: str, monkeypatch: pytest.MonkeyPatch
) -> tuple[list[dict], list[str]]:
    """`yamscope render --LOOK` into ``out``: each scene's tray and the folder's looks. The
    look's variable is off before and restored after the test (the CLI sets it)."""
    from device.cli import main as cli

    monkeypatch.setenv(variable, "")
    assert cli(["render", "--n", "6", "--seed", "4", "--size", "320x240", "--quiet",
                f"--{look}", "--out", str(out)]) == 0  # fmt: skip
    trays = [json.loads(p.read_text(encoding="utf-8"))["tray"] for p in (out / "labels").iterdir()]
    return trays, json.loads((out / "dataset.json").read_text(encoding="utf-8"))["looks"]


def test_render_marbled_is_a_folder_of_its_own(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from device.cli import main as cli
    from models.synth.layout import MARBLED

    out = tmp_path / "marbled"
    trays, looks = render_with_look(out, "marbled", MARBLED, monkeypatch)
    assert any(t["marble"] > 0 for t in trays)
    assert looks == ["marbled"]
    monkeypatch.setenv(MARBLED, "")
    assert cli(["render", "--n", "6", "--seed", "4", "--size", "320x240", "--quiet",
                "--out", str(out)]) == 2  # fmt: skip
    assert "looks" in capsys.readouterr().err  # plain dice into a marbled folder: refused


def test_lettered_numerals_are_drawn_only_when_asked_and_leave_the_rest_of_the_set(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Training asks for numerals lettered anew (`--lettered`); the eval sets and the
    simulated tray draw the typefaces as they are, and a lettered set changes nothing else."""
    from models.synth.glyphs import PLAIN_LETTERING
    from models.synth.layout import LETTERED, LETTERING

    monkeypatch.delenv(LETTERED, raising=False)
    plain = [random_tray(np.random.default_rng(s)) for s in range(40)]
    assert all(t.lettering == PLAIN_LETTERING for t in plain)
    monkeypatch.setenv(LETTERED, "1")
    asked = [random_tray(np.random.default_rng(s)) for s in range(40)]
    changed = [t.lettering for t in asked if t.lettering != PLAIN_LETTERING]
    assert 16 <= len(changed) <= 38
    for lettering in changed:
        assert all(lo <= v <= hi for v, (lo, hi) in zip(lettering, LETTERING, strict=True))
    for before, after in zip(plain, asked, strict=True):
        assert dataclasses.replace(after, lettering=before.lettering) == before


def test_lettering_thins_bolds_widens_and_leaves_pips_alone() -> None:
    """A lettered numeral's ink: less for thinner strokes, more for bolder, wider when widened,
    leaning when slanted; the plain lettering is the typeface's own tile, and pips are pips."""
    from models.synth.glyphs import PLAIN_LETTERING, tile_for

    def ink(lettering: tuple[float, float, float, float]) -> np.ndarray:
        return tile_for("d10", "4", 1, 128, lettering)

    plain = ink(PLAIN_LETTERING)
    assert np.array_equal(plain, tile("d10", "4", 1))
    thin, bold = ink((-2.0, 1.0, 1.0, 0.0)), ink((3.0, 1.0, 1.0, 0.0))
    assert 0.3 * plain.sum() < thin.sum() < 0.9 * plain.sum() < plain.sum() < 0.9 * bold.sum()

    def span(t: np.ndarray, axis: int) -> int:
        lit = np.flatnonzero(t.max(axis=axis) > 0.5)
        return int(lit[-1] - lit[0])

    wide = ink((0.0, 1.3, 1.0, 0.0))
    assert span(wide, 0) > 1.2 * span(plain, 0) and abs(span(wide, 1) - span(plain, 1)) <= 2
    slanted = ink((0.0, 1.0, 1.0, 0.2))
    top, bottom = slanted[:64], slanted[64:]
    centre = np.arange(128)
    lean = [float((half.sum(0) * centre).sum() / half.sum()) for half in (top, bottom)]
    assert lean[0] > lean[1] + 3  # the top leans right, as an italic's
    assert np.array_equal(tile_for("d6", "4", 1, 128, (3.0, 1.3, 1.2, 0.2)), tile("d6", "4"))


def test_a_tray_refuses_a_lettering_that_cannot_be_drawn() -> None:
    with pytest.raises(ValueError, match="lettering"):
        dataclasses.replace(plain_tray(), lettering=(0.0, 0.0, 1.0, 0.0))
    with pytest.raises(ValueError, match="lettering"):
        dataclasses.replace(plain_tray(), lettering=(0.0, 1.0))


def test_render_lettered_writes_each_sets_lettering_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from models.synth.glyphs import PLAIN_LETTERING
    from models.synth.layout import LETTERED

    trays, looks = render_with_look(tmp_path / "lettered", "lettered", LETTERED, monkeypatch)
    assert any(tuple(t["lettering"]) != PLAIN_LETTERING for t in trays)
    assert looks == ["lettered"]
