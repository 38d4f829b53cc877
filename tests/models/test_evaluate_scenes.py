"""Scoring the whole reading pipeline on labelled photos (models.common.evaluate_scenes,
models.common.datasets, `yamscope evaluate`): the matching and the metrics on hand-made readings,
then real runs on a tiny synthetic set and two Rune55 photos."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from device.cli import main
from models.common.datasets import DatasetError, TrueDie, open_dataset
from models.common.evaluate_scenes import Mistake, Tally, evaluate
from models.common.matching import match, match_iou
from models.common.mistakes import COLUMNS, TILE, write_mistakes
from models.common.photos import default_root
from models.common.report import silent_line
from models.synth.dataset import write_dataset
from vision.reading import ReadDie, Reading
from vision.recognise import Recogniser

RUNE55_TEST = default_root() / "test"


def read(box: tuple[int, int, int, int], value: int = 3, *flags: str, **looks: str) -> ReadDie:
    colour, finish = looks.get("colour", "red"), looks.get("finish", "frosted")
    return ReadDie("d10", value, colour, finish, 0.9, box, flags)  # type: ignore[arg-type]


def truth(box: tuple[int, int, int, int], value: int = 3, cocked: bool = False) -> TrueDie:
    return TrueDie(box, value, "d10", "red", "frosted", cocked)


def reading(*dice: ReadDie) -> Reading:
    return Reading(tuple(dice), 12.5, (640, 480))


@pytest.fixture(scope="module")
def scenes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("scenes")
    write_dataset(out, 4, seed=5, size=(640, 480), impossible=True, progress=False)
    return out


@pytest.fixture
def yolo(tmp_path: Path) -> Path:
    """Two Rune55 test photos and their labels, copied into a split folder."""
    if not RUNE55_TEST.is_dir():
        pytest.skip(f"{RUNE55_TEST} is absent")
    root = tmp_path / "rune55" / "test"
    for sub in ("images", "labels"):
        (root / sub).mkdir(parents=True)
    for image in sorted((RUNE55_TEST / "images").glob("*.jpg"))[:2]:
        shutil.copy(image, root / "images")
        shutil.copy(RUNE55_TEST / "labels" / f"{image.stem}.txt", root / "labels")
    return root


# -- matching and metrics ----------------------------------------------------------------


def test_matching_by_centres_is_nearest_first_and_one_to_one() -> None:
    labelled = [(0, 0, 10, 10), (2, 0, 12, 10)]
    found = [(1, 0, 11, 10), (0, 0, 10, 10), (50, 50, 60, 60)]
    assert match(labelled, found) == [(0, 1), (1, 0)]  # the exact box takes die 0
    # a box on the top face inside a label of the whole die (IoU 1/4) is that die
    assert match([(0, 0, 40, 40)], [(10, 10, 30, 30)]) == [(0, 0)]
    # and a label of the top face inside a box of the whole die
    assert match([(10, 10, 30, 30)], [(0, 0, 40, 40)]) == [(0, 0)]
    assert match([(0, 0, 10, 10)], [(8, 8, 30, 30)]) == []  # neither centre in the other


def test_matching_by_overlap_stays_beside_it() -> None:
    labelled = [(0, 0, 10, 10), (2, 0, 12, 10)]
    found = [(1, 0, 11, 10), (0, 0, 10, 10), (50, 50, 60, 60)]
    assert match_iou(labelled, found) == [(0, 1), (1, 0)]
    assert match_iou(labelled, [(0, 0, 10, 30)]) == []  # IoU 1/3: below 0.5


def test_one_hit_one_miss_one_extra_is_half_precision_and_half_recall() -> None:
    tally = Tally()
    tally.add(
        [truth((0, 0, 40, 40)), truth((100, 0, 140, 40))],
        reading(read((2, 1, 41, 40)), read((300, 300, 340, 340))),
    )
    summary = tally.summary()
    detection = summary["detection"]
    assert (detection["precision"], detection["recall"]) == (0.5, 0.5)
    assert (detection["matched"], detection["missed"], detection["extra"]) == (1, 1, 1)
    assert summary["attributes"]["value"]["accuracy"] == 1.0
    assert summary["entirely_right"]["photos"] == 0
    assert summary["flags"]["silent_errors"] == 1  # the extra die, unflagged
    assert summary["flags"]["silent_by_cause"]["no die"] == 1
    assert summary["latency_ms"]["median"] == 12.5
    assert summary["sizes"] == {"640x480": 1}
    assert tally.mistakes == [
        Mistake(-1, (300, 300, 340, 340), "", "d10 3 red frosted", "no die", False),
        Mistake(-1, (100, 0, 140, 40), "d10 3 red frosted", "", "missed", False),
    ]


def test_the_mistakes_are_listed_and_the_silent_ones_drawn(tmp_path: Path) -> None:
    tally = Tally()
    tally.add(
        [truth((0, 0, 40, 40), 5), truth((100, 0, 140, 40), 6), truth((200, 0, 240, 40), 7)],
        reading(
            read((0, 0, 40, 40), 5),  # right: no mistake
            read((100, 0, 140, 40), 2, "unsure"),  # misread, flagged
            read((200, 0, 240, 40), 1),  # misread, silent
            read((300, 100, 330, 130), 4),  # on no die, silent
        ),
        photo=1,
    )
    tally.add([truth((10, 10, 50, 50), 3)], reading(), photo=0)  # missed
    loaded: list[int] = []

    def load(index: int) -> np.ndarray:
        loaded.append(index)
        return np.full((240, 400), 128, np.uint8)  # grey photos are drawn in colour

    written = write_mistakes(tally.mistakes, tmp_path, ["a.png", "b.png"], load)
    assert [p.name for p in written] == ["mistakes.csv", "silent.png"]
    rows = (tmp_path / "mistakes.csv").read_text(encoding="utf-8").splitlines()
    assert rows == [
        "photo,cause,labelled,read,flagged,size_px,box",
        "b.png,value,d10 6 red frosted,d10 2 red frosted unsure,True,40,100 0 140 40",
        "b.png,value,d10 7 red frosted,d10 1 red frosted,False,40,200 0 240 40",
        "b.png,no die,,d10 4 red frosted,False,30,300 100 330 130",
        "a.png,missed,d10 3 red frosted,,False,40,10 10 50 50",
    ]
    sheet = cv2.imread(str(tmp_path / "silent.png"))
    assert sheet.shape == (TILE, TILE * COLUMNS, 3)  # two tiles, one row
    assert sheet[:, 2 * TILE :].max() == 0 and sheet[:, :TILE].max() > 0
    assert loaded == [1]  # the photo with silent errors, once
    flagged = [m for m in tally.mistakes if m.flagged]
    assert write_mistakes(flagged, tmp_path, ["a.png", "b.png"], load) == [written[0]]
    assert not (tmp_path / "silent.png").exists()  # no sheet from an older run


def test_attributes_flags_and_cocked_dice_are_scored_apart() -> None:
    tally = Tally()
    tally.add(  # right, but flagged: not entirely right, an undeserved flag
        [truth((0, 0, 40, 40), 7)], reading(read((0, 0, 40, 40), 7, "unsure"))
    )
    tally.add(  # wrong value, flagged: a deserved flag
        [truth((0, 0, 40, 40), 7)], reading(read((0, 0, 40, 40), 1, "unsure"))
    )
    tally.add(  # wrong finish, silent; a cocked die flagged, its value not scored
        [truth((0, 0, 40, 40), 2), truth((100, 0, 140, 40), 9, cocked=True)],
        reading(
            read((0, 0, 40, 40), 2, finish="transparent"), read((100, 0, 140, 40), 4, "cocked")
        ),
    )
    tally.add(  # entirely right: a flat die unflagged, a cocked die flagged
        [truth((0, 0, 40, 40), 5), truth((100, 0, 140, 40), 9, cocked=True)],
        reading(read((0, 0, 40, 40), 5), read((100, 0, 140, 40), 4, "unsure")),
    )
    summary = tally.summary()
    attributes = summary["attributes"]
    value = {k: v for k, v in attributes["value"].items() if k != "large"}
    assert value == {"accuracy": 0.75, "right": 3, "scored": 4}
    assert attributes["finish"] == {"accuracy": 0.8333, "right": 5, "scored": 6}
    assert attributes["colour"]["accuracy"] == attributes["kind"]["accuracy"] == 1.0
    assert summary["entirely_right"] == {"photos": 1, "share": 0.25}
    flags = summary["flags"]
    assert (flags["flagged"], flags["deserved"], flags["silent_errors"]) == (4, 3, 1)
    assert flags["by_flag"] == {"unsure": 3, "cocked": 1}
    assert summary["cocked"] == {"labelled": 2, "found": 2, "flagged": 2, "flagged_cocked": 1}
    assert summary["by_look"] == {  # the flat dice only; the wrong finish is a silent error
        "red frosted": {"dice": 4, "value": 0.75, "flagged": 2, "silent_errors": 1}
    }
    matrix, names = tally.confusions()["value"]
    assert names == tuple(range(1, 11)) and matrix.sum() == 4 and matrix[6, 0] == 1


def test_silent_errors_are_told_apart_by_cause() -> None:
    tally = Tally()
    tally.add(
        [truth((0, 0, 40, 40), 5), truth((100, 0, 140, 40), 6), truth((200, 0, 240, 40), 9, True)],
        reading(
            read((0, 0, 40, 40), 5),  # right
            read((0, 0, 15, 40), 5),  # a second box on the same die
            read((100, 0, 140, 40), 2),  # wrong value
            read((200, 0, 240, 40), 9),  # cocked, not flagged
            read((400, 400, 440, 440), 1),  # nothing there
            read((400, 0, 440, 40), 1, "unsure"),  # nothing there either, but flagged
        ),
    )
    causes = tally.summary()["flags"]["silent_by_cause"]
    assert causes == {
        "found twice": 1,
        "no die": 1,
        "value": 1,
        "kind/colour/finish": 0,
        "cocked die": 1,
    }
    assert sum(causes.values()) == tally.silent_errors == 4
    assert silent_line(tally.summary()["flags"]).startswith(
        "silent       found twice 1; no die 1; value 1"
    )


def test_dice_found_twice_and_photos_found_exactly_are_counted() -> None:
    tally = Tally()
    tally.add(  # every die once, nothing else: found exactly, though a value is wrong
        [truth((0, 0, 40, 40), 5), truth((100, 0, 140, 40), 6)],
        reading(read((0, 0, 40, 40), 5), read((100, 0, 140, 40), 2)),
    )
    tally.add(  # three boxes on one die, and the other die missed
        [truth((0, 0, 40, 40), 5), truth((100, 0, 140, 40), 6)],
        reading(read((0, 0, 40, 40)), read((0, 0, 20, 40)), read((20, 0, 40, 40))),
    )
    detection = tally.summary()["detection"]
    assert detection["found_twice"] == 1
    assert detection["found_once_photos"] == {"photos": 1, "share": 0.5}
    assert (detection["matched"], detection["extra"], detection["missed"]) == (3, 2, 1)


def test_dice_of_30_px_and_more_are_scored_apart() -> None:
    tally = Tally()
    tally.add(
        [truth((0, 0, 40, 40)), truth((100, 0, 120, 20)), truth((200, 0, 220, 20))],
        reading(
            read((0, 0, 40, 40)),  # a large die found
            read((100, 0, 120, 20)),  # a small die found: not in the large counts
            read((300, 0, 350, 50)),  # a large box on nothing
            read((400, 0, 410, 10)),  # a small box on nothing
        ),
    )
    large = tally.summary()["detection"]["large"]
    assert (large["labelled"], large["read"], large["matched"]) == (1, 2, 1)
    assert (large["precision"], large["recall"]) == (0.5, 1.0)


def test_values_of_dice_of_30_px_and_more_are_scored_apart() -> None:
    tally = Tally()
    tally.add(
        [truth((0, 0, 40, 40), 5), truth((100, 0, 140, 40), 6), truth((200, 0, 220, 20), 2)],
        reading(
            read((0, 0, 40, 40), 5),  # large, right
            read((100, 0, 140, 40), 2),  # large, wrong and not flagged: a silent error
            read((200, 0, 220, 20), 2),  # small, right: not in the large counts
        ),
    )
    summary = tally.summary()
    value = summary["attributes"]["value"]
    assert (value["right"], value["scored"]) == (2, 3)
    assert value["large"] == {"min_px": 30, "right": 1, "scored": 2, "accuracy": 0.5}
    assert summary["flags"]["silent_share_of_found"] == pytest.approx(1 / 3, abs=1e-4)


def test_a_box_read_on_a_kind_not_played_is_neither_right_nor_extra() -> None:
    tally = Tally()
    d8 = TrueDie((100, 0, 140, 40), 7, kind="d8")
    tally.add(
        [truth((0, 0, 40, 40), 5), d8],
        reading(read((0, 0, 40, 40), 5), read((102, 2, 138, 38), 7)),
    )
    detection = tally.summary()["detection"]
    assert (detection["labelled"], detection["read"], detection["matched"]) == (1, 1, 1)
    assert detection["ignored"] == {"labelled": 1, "read_on_them": 1}
    assert detection["found_once_photos"]["photos"] == 1 and tally.silent_errors == 0


def test_flat_dice_are_told_apart_by_look_and_kind_where_labelled() -> None:
    """By colour and finish, and by kind: the report prints the kinds only where a set
    holds both (a d10 misread among d6 is what a phone photo's mixed dice show)."""
    from models.common.report import look_lines

    tally = Tally()
    clear = TrueDie((0, 0, 40, 40), 4, "d10", "white", "transparent")
    unlabelled = TrueDie((100, 0, 140, 40), 6)  # a YOLO label: the face only
    tally.add(
        [clear, truth((200, 0, 240, 40), 8), unlabelled],
        reading(
            read((0, 0, 40, 40), 9, colour="white", finish="transparent"),
            read((200, 0, 240, 40), 8),
            read((100, 0, 140, 40), 6),
        ),
    )
    summary = tally.summary()
    assert summary["by_look"] == {
        "red frosted": {"dice": 1, "value": 1.0, "flagged": 0, "silent_errors": 0},
        "white transparent": {"dice": 1, "value": 0.0, "flagged": 0, "silent_errors": 1},
    }
    assert summary["by_kind"] == {
        "d10": {"dice": 2, "value": 0.5, "flagged": 0, "silent_errors": 1}
    }
    assert not any(line.startswith("d10 ") for line in look_lines(summary))
    d6 = TrueDie((300, 0, 340, 40), 5, "d6", "red", "frosted")
    tally.add([d6], reading(ReadDie("d6", 2, "red", "frosted", 0.4, d6.box, ("unsure",))))
    summary = tally.summary()
    assert summary["by_kind"]["d6"] == {"dice": 1, "value": 0.0, "flagged": 1, "silent_errors": 0}
    lines = look_lines(summary)
    assert any(line.startswith("d10 ") and "50.00% of 2 flat dice" in line for line in lines)
    assert any(line.startswith("d6 ") and "1 flagged" in line for line in lines)


# -- datasets ------------------------------------------------------------------------------


def test_a_folder_that_is_no_dataset_is_refused(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="no such folder"):
        open_dataset(tmp_path / "missing")
    with pytest.raises(DatasetError, match="not a dataset"):
        open_dataset(tmp_path)


def test_a_synthetic_set_is_read_calibrated_on_its_empty_trays(scenes: Path) -> None:
    dataset = open_dataset(scenes)
    assert (dataset.format, dataset.kinds, len(dataset)) == ("synthetic", ("d10",), 4)
    photo = dataset.load(0)
    assert photo.image.shape == (480, 640, 3) and len(photo.dice) == 10
    tally, how = evaluate(dataset, limit=2, progress=False)
    assert how["calibrated"] and how["kinds"] == ["d10"] and how["model"]["version"]
    assert tally.photos == 2 and tally.true_dice == 20
    assert set(tally.compared) == {"kind", "value", "colour", "finish"}


def test_each_tray_is_calibrated_with_its_cameras_field_of_view(scenes: Path) -> None:
    """The drawn camera's, as its owner would tell `yamscope calibrate`; --field-of-view
    overrides it (to measure a wrong setting)."""
    from models.common.evaluate_scenes import tray_calibration
    from models.synth import Tray

    photo = open_dataset(scenes).load(0)
    assert photo.tray is not None
    told = tray_calibration(photo, 0)
    assert told.field_of_view == pytest.approx(Tray(**photo.tray).field_of_view)
    assert tray_calibration(photo, 0, field_of_view=90.0).field_of_view == 90.0
    _, how = evaluate(open_dataset(scenes), limit=1, progress=False, field_of_view=90.0)
    assert how["field_of_view"] == 90.0


def test_a_field_of_view_no_camera_has_exits_2_with_one_line(
    scenes: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["evaluate", str(scenes), "--out", str(tmp_path / "report"), "--field-of-view", "0"]
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "not a camera's" in err


def test_a_yolo_split_folder_is_read_in_pixels(yolo: Path) -> None:
    dataset = open_dataset(yolo)
    assert (dataset.format, dataset.name, dataset.kinds) == ("photos", "rune55-test", ("d6",))
    photo = dataset.load(0)
    width = photo.image.shape[1]
    assert photo.dice and all(0 <= d.box[0] < d.box[2] <= width + 1 for d in photo.dice)
    assert all(d.kind is None and d.colour is None and 1 <= d.value <= 6 for d in photo.dice)


def pixel_set(root: Path, lines: str, name: str = "p0") -> Path:
    """A photo folder with one grey 200x100 photo labelled in pixels."""
    import cv2

    (root / "images").mkdir(parents=True, exist_ok=True)
    (root / "labels").mkdir(exist_ok=True)
    cv2.imwrite(str(root / "images" / f"{name}.png"), np.full((100, 200, 3), 90, np.uint8))
    (root / "labels" / f"{name}.txt").write_text(lines, encoding="utf-8")
    return root


def test_pixel_labels_name_each_dies_kind_and_other_kinds_are_ignored(tmp_path: Path) -> None:
    root = pixel_set(
        tmp_path / "phone", "d10 0 10 20 50 60\nd8 7 100 10 140 50\nd6 4 150 0 190 40\n"
    )
    dataset = open_dataset(root)
    assert (dataset.format, dataset.kinds) == ("photos", ("d6", "d10"))
    dice = dataset.load(0).dice
    assert [(d.kind, d.value, d.ignored) for d in dice] == [
        ("d10", 10, False),  # a d10's 0 is its ten
        ("d8", 7, True),
        ("d6", 4, False),
    ]
    assert dice[0].box == (10.0, 20.0, 50.0, 60.0)


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("d6 7 0 0 10 10", "a d6 shows 1 to 6"),
        ("d10 3 10 10 5 20", "is empty"),
        ("d10 three 0 0 10 10", "must be numbers"),
        ("d10 3 0 0 10", "expected 'CLASS cx cy w h' or 'KIND VALUE x0 y0 x1 y1'"),
    ],
)
def test_a_bad_pixel_label_names_its_file_and_line(tmp_path: Path, line: str, says: str) -> None:
    dataset = open_dataset(pixel_set(tmp_path / "bad", f"d6 2 0 0 10 10\n{line}\n"))
    with pytest.raises(DatasetError, match=f"p0.txt: line 2: .*{re.escape(says)}"):
        dataset.load(0)


def test_photos_can_be_labelled_from_another_folder(tmp_path: Path) -> None:
    """Photos that stay where they are (../shared) and labels kept beside the project: only
    the photos that have a label are read."""
    import cv2

    photos, labels = tmp_path / "photos", tmp_path / "labels"
    photos.mkdir()
    labels.mkdir()
    for name in ("a", "b", "c"):
        cv2.imwrite(str(photos / f"{name}.jpg"), np.full((64, 64, 3), 40, np.uint8))
    (labels / "a.txt").write_text("d10 4 1 1 20 20\n", encoding="utf-8")
    (labels / "b.txt").write_text("", encoding="utf-8")  # labelled: no die
    dataset = open_dataset(photos, labels)
    assert [p.name for p in dataset.photos] == ["a.jpg", "b.jpg"] and dataset.kinds == ("d10",)
    assert [len(dataset.load(i).dice) for i in range(2)] == [1, 0]
    with pytest.raises(DatasetError, match="no such label folder"):
        open_dataset(photos, tmp_path / "missing")


# -- the command ---------------------------------------------------------------------------


def test_evaluate_prints_the_table_and_draws_each_attribute(
    scenes: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "report"
    assert main(["evaluate", str(scenes), "--out", str(out), "--limit", "2"]) == 0
    printed = capsys.readouterr().out
    for row in ("detection", "value", "colour", "finish", "whole photos", "flags", "latency"):
        assert row in printed
    assert "precision" in printed and "calibrated on each empty tray" in printed
    assert "computes as where it was exported" in printed  # the shipped model's check crops
    assert re.search(r"^value .*; dice of 30 px and more: [\d.]+% \(\d+ of \d+\)\)$", printed, re.M)
    assert re.search(r"\d+ silent errors \([\d.]+% of the dice found\)", printed)
    assert re.search(
        r"^(red|white) (frosted|transparent) +value [\d.]+% of \d+ flat dice", printed, re.M
    )
    assert {p.name for p in out.glob("*.png")} - {"silent.png"} == {
        "kind.png",
        "value.png",
        "colour.png",
        "finish.png",
    }
    assert "mistakes (mistakes.csv, silent.png)" in printed
    header = (out / "mistakes.csv").read_text(encoding="utf-8").splitlines()[0]
    assert header == "photo,cause,labelled,read,flagged,size_px,box"


def test_evaluate_json_on_rune55_photos(
    yolo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "report"
    assert main(["evaluate", str(yolo), "--json", "--out", str(out)]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["photos"] == 2 and result["format"] == "photos" and result["kinds"] == ["d6"]
    assert set(result["attributes"]) <= {"value"}
    assert result["by_look"] == {}  # a YOLO label says no colour or finish
    assert result["sizes"] == {"640x640": 2}
    assert result["model"]["check"] == "computes as where it was exported"
    assert [Path(p).name for p in result["confusions"]] == (
        ["value.png"] if result["attributes"] else []
    )
    assert (out / "result.json").is_file()
    assert Path(result["mistakes"][0]) == out / "mistakes.csv"


def test_evaluate_without_calibration_says_so(
    scenes: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["evaluate", str(scenes), "--no-calibration", "--kind", "d10", "--limit", "1"]
    assert main([*args, "--json", "--out", str(tmp_path)]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["calibrated"] is False and result["photos"] == 1


def test_evaluate_reads_photos_with_a_calibration_and_scaled(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One calibration for every photo of a tray, at the photos' size or scaled up as a
    camera of twice the resolution would see them."""
    from models.synth import empty_tray, random_scene
    from vision.calibration import calibrate, save

    scene = random_scene(np.random.default_rng(3), size=(320, 240), n=3, kinds=("d6",), cocked=0)
    root = tmp_path / "tray"
    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir()
    cv2.imwrite(str(root / "images" / "t.png"), scene.image)
    lines = [f"d6 {d.spec.value} {' '.join(str(v) for v in d.box)}" for d in scene.dice]
    (root / "labels" / "t.txt").write_text("\n".join(lines), encoding="utf-8")
    save(calibrate(empty_tray(scene.tray, np.random.default_rng(4))), tmp_path / "cal.json")
    args = ["evaluate", str(root), "--calibration", str(tmp_path / "cal.json"), "--json"]
    assert main([*args, "--out", str(tmp_path / "r1")]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["calibration"] == "given" and result["sizes"] == {"320x240": 1}
    assert main([*args, "--resize", "640x480", "--out", str(tmp_path / "r2")]) == 0
    scaled = json.loads(capsys.readouterr().out)
    assert scaled["sizes"] == {"640x480": 1} and scaled["resized"] == "640x480"
    assert scaled["detection"]["labelled"] == 3


def test_evaluate_tells_the_tray_how_many_dice_were_thrown(
    scenes: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["evaluate", str(scenes), "--limit", "1", "--out", str(tmp_path)]
    assert main([*args, "--dice", "10"]) == 0
    assert ", 10 dice thrown" in capsys.readouterr().out
    assert main([*args, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["dice_thrown"] is None
    recogniser = Recogniser(coloured=True, kinds=("d10",))
    evaluate(open_dataset(scenes), limit=1, progress=False, recogniser=recogniser, dice=10)
    assert recogniser.expected == 10
    assert main([*args, "--dice", "0"]) == 2
    assert capsys.readouterr().err.count("\n") == 1


@pytest.mark.parametrize("size", ["640", "10x10", "axb"])
def test_a_bad_resize_exits_2_with_one_line(
    size: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = pixel_set(tmp_path / "p", "d6 2 0 0 10 10\n")
    assert main(["evaluate", str(root), "--resize", size]) == 2
    assert capsys.readouterr().err.count("\n") == 1


@pytest.mark.parametrize("where", ["missing", "empty"])
def test_a_bad_dataset_path_exits_2_with_one_line(
    where: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "empty").mkdir()
    assert main(["evaluate", str(tmp_path / where)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1


def test_evaluate_scores_the_model_files_it_is_given(
    yolo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import shutil

    models = Path(__file__).resolve().parents[2] / "models"
    for name in ("dieface", "dicefind"):  # a candidate: the same model under another name
        for suffix in (".onnx", ".json"):
            shutil.copy(models / f"{name}{suffix}", tmp_path / f"cand-{name}{suffix}")
    args = ["evaluate", str(yolo), "--json", "--out", str(tmp_path / "report")]
    assert main(args) == 0
    shipped = json.loads(capsys.readouterr().out)
    model, detector = tmp_path / "cand-dieface.onnx", tmp_path / "cand-dicefind.onnx"
    assert main([*args, "--model", str(model), "--detector", str(detector)]) == 0
    candidate = json.loads(capsys.readouterr().out)
    assert candidate["model"]["path"] == str(model) and candidate["detector"] == str(detector)
    assert shipped["detector"] == "shipped"
    assert candidate["detection"] == shipped["detection"]  # same weights, same reading
    assert main([*args, "--model", str(tmp_path / "missing.onnx")]) == 2
    assert "model file missing" in capsys.readouterr().err


def test_evaluate_scores_the_cocked_model_it_is_given(
    scenes: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import shutil

    models = Path(__file__).resolve().parents[2] / "models"
    for suffix in (".onnx", ".json"):
        shutil.copy(models / f"cocked{suffix}", tmp_path / f"cand-cocked{suffix}")
    args = ["evaluate", str(scenes), "--json", "--out", str(tmp_path / "report")]
    assert main([*args, "--cocked", str(tmp_path / "cand-cocked.onnx")]) == 0
    candidate = json.loads(capsys.readouterr().out)
    assert candidate["cocked_model"] == {
        "path": str(tmp_path / "cand-cocked.onnx"),
        "version": json.loads((models / "cocked.json").read_text())["version"],
    }
    assert main([*args, "--cocked", str(tmp_path / "missing.onnx")]) == 2
    assert "model file missing" in capsys.readouterr().err


def test_evaluate_says_whether_the_numerals_looked_again(
    scenes: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["evaluate", str(scenes), "--limit", "1", "--json", "--out", str(tmp_path)]
    assert main(args) == 0
    looked = json.loads(capsys.readouterr().out)
    assert looked["numerals"]["path"].endswith("numerals.onnx")
    assert main([*args, "--no-numerals"]) == 0
    alone = json.loads(capsys.readouterr().out)
    assert alone["numerals"] is None


def test_evaluate_says_which_model_read_the_slanted_d10_again(
    scenes: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import shutil

    models = Path(__file__).resolve().parents[2] / "models"
    for suffix in (".onnx", ".json", ".check.npz"):
        shutil.copy(models / f"slanted-d10{suffix}", tmp_path / f"cand{suffix}")
    args = ["evaluate", str(scenes), "--limit", "1", "--json", "--out", str(tmp_path / "report")]
    assert main([*args, "--no-calibration"]) == 0
    shipped = json.loads(capsys.readouterr().out)
    assert shipped["slanted"]["path"].endswith("slanted-d10.onnx")
    assert main([*args, "--no-calibration", "--slanted", str(tmp_path / "cand.onnx")]) == 0
    candidate = json.loads(capsys.readouterr().out)
    assert candidate["slanted"]["path"] == str(tmp_path / "cand.onnx")
    assert candidate["attributes"] == shipped["attributes"]  # same weights, same reading
    assert main([*args, "--no-slanted"]) == 0
    assert json.loads(capsys.readouterr().out)["slanted"] is None
    assert main([*args, "--slanted", str(tmp_path / "missing.onnx")]) == 2
    assert "model file missing" in capsys.readouterr().err
    with pytest.raises(SystemExit) as refused:
        main([*args, "--slanted", str(tmp_path / "cand.onnx"), "--no-slanted"])
    assert refused.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err
