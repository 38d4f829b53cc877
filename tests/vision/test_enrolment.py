"""A table's own dice (vision/enrolment.py, `yamscope enrol`): the fit of a value head on
the die-face model's features, its file, and the reader using it or refusing it."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from device.cli import main
from models.synth.dataset import write_dataset
from vision.enrolment import (
    BadEnrolmentError,
    Enrolment,
    Head,
    Lean,
    LeanHead,
    enrol,
    fit_head,
    fit_lean,
    head_of,
    load,
    save,
    turned,
)
from vision.faces import FaceReader, softmax
from vision.model_check import check_reader


def toy(seed: int = 0) -> tuple[np.ndarray, np.ndarray, Head]:
    """Features of three classes apart in space, and a prior head that confuses 1 and 2."""
    rng = np.random.default_rng(seed)
    centres = np.eye(3, 8) * 4
    labels = np.repeat(np.arange(3), 40)
    features = centres[labels] + rng.normal(0, 0.5, (len(labels), 8))
    weight = centres.copy()
    weight[1], weight[2] = centres[2], centres[1]  # the model reads 2 for 3 and 3 for 2
    return features, labels, Head((1, 2, 3), weight, np.zeros(3))


def test_the_models_own_head_is_recovered_from_what_it_gave() -> None:
    features, _, prior = toy()
    recovered = head_of(features, prior.logits(features), prior.classes)
    assert np.allclose(recovered.logits(features), prior.logits(features), atol=1e-8)


def test_the_fit_reads_the_tables_labels_and_stays_near_the_model_where_none_are() -> None:
    features, labels, prior = toy()
    before = (prior.probabilities(features).argmax(1) == labels).mean()
    fitted = fit_head(features, labels, prior, held=0.001)
    after = (fitted.probabilities(features).argmax(1) == labels).mean()
    assert before < 0.4 and after == 1.0
    held_fast = fit_head(features, labels, prior, held=100.0)
    assert np.abs(held_fast.weight - prior.weight).max() < 0.05  # a strong pull: the model's


def test_a_value_no_crop_shows_keeps_the_models_reading() -> None:
    """Crops of 1 and 2 only: pushed down by them alone, the 3 would never be read again."""
    features, labels, prior = toy()
    right = Head(prior.classes, np.eye(3, 8) * 4, np.zeros(3))  # a model that reads all three
    shown = labels < 2
    fitted = fit_head(features[shown], labels[shown], right, held=0.001)
    assert np.array_equal(fitted.weight[2], right.weight[2]) and fitted.bias[2] == right.bias[2]
    assert (fitted.probabilities(features[~shown]).argmax(1) == 2).all()
    assert not np.allclose(fitted.weight[:2], right.weight[:2])  # the values shown were fitted


def test_a_die_is_read_by_the_tables_head_only_where_its_own_kind_showed_the_value() -> None:
    """The d6 showed 1 and 2, the d10 1, 2 and 3: the head's row for 3 learned the d10's
    numeral, so a d6's 3 stays the model's; a kind with no crops is the model's whole."""
    features, labels, prior = toy()
    kinds = np.where(labels == 2, "d10", np.where(np.arange(len(labels)) % 2, "d6", "d10"))
    head = fit_head(features, labels, prior, held=0.001)
    both = Enrolment("t", "x", head, features, labels + 1, kinds, np.ones(len(labels)), 3)
    model = prior.logits(features[:4]) + 1.0  # told apart from the head's by the offset
    d6 = np.array([True, False, True, False])
    mixed = both.value_logits(features[:4], model, d6)
    table = head.logits(features[:4])
    assert np.allclose(mixed[d6, :2], table[d6, :2]) and np.allclose(mixed[d6, 2], model[d6, 2])
    assert np.allclose(mixed[~d6], table[~d6])
    d10 = replace(both, crop_kinds=np.full(len(labels), "d10"))
    assert np.allclose(d10.value_logits(features[:4], model, d6)[d6], model[d6])
    older = replace(both, crop_kinds=np.full(len(labels), ""))  # a version 2 file: every kind
    assert np.allclose(older.value_logits(features[:4], model, d6), table)


def test_enrol_names_the_values_no_labelled_die_shows() -> None:
    from device.enrol import Labelled, report_lines

    crops = np.zeros((3, 64, 64, 3), np.uint8)
    d6 = Labelled(crops, np.array([1, 2, 6]), ("d6", "d6", "d6"), photos=3, labelled=3)
    lines = report_lines(d6, 0.5, 1.0, Path("t.json"), "no calibration")
    assert "no d6 here shows 3, 4, 5: those stay read as the model reads them" in lines[-2]
    every = replace(d6, values=np.array([1, 2, 3, 4, 5, 6]), kinds=("d6",) * 6)
    assert not any(" here shows" in line for line in report_lines(every, 0, 1, Path("t"), ""))
    # a 3 on the d10 alone leaves the d6's 3 unshown: the d10's numeral is not three pips
    both = replace(
        d6, values=np.array([1, 2, 4, 5, 6, *range(1, 11)]), kinds=("d6",) * 5 + ("d10",) * 10
    )
    assert "no d6 here shows 3: those stay" in report_lines(both, 0, 1, Path("t"), "")[-2]


def test_a_crop_is_enrolled_at_every_quarter_turn() -> None:
    crops = np.arange(2 * 4 * 4 * 3, dtype=np.uint8).reshape(2, 4, 4, 3)
    turns = turned(crops)
    assert turns.shape == (8, 4, 4, 3)
    assert np.array_equal(turns[2], np.rot90(crops[0], 1))  # the second quarter block starts


def test_a_tables_flat_dice_are_learned_flat_and_the_anchors_cocked_ones_stay_cocked() -> None:
    """Hidden layers of three looks: the model's flat and cocked anchors, and the table's
    flat dice, which the model's own last layer takes for cocked."""
    rng = np.random.default_rng(5)
    flat, cocked, table = (rng.normal(c, 0.3, (80, 3)) for c in ([0, 0, 0], [2, 0, 0], [2, 2, 0]))
    anchors = np.vstack([flat, cocked])
    labels = np.repeat([False, True], 80)
    start = LeanHead(np.array([3.0, 0.0, 0.0]), -3.0)
    assert (start.probabilities(table) >= 0.5).mean() > 0.9
    head = fit_lean(table, anchors, labels, start)
    assert (head.probabilities(table) < 0.5).mean() > 0.95
    assert (head.probabilities(cocked) >= 0.5).mean() > 0.95
    assert (head.probabilities(flat) < 0.5).mean() > 0.95


@pytest.fixture(scope="module")
def reader() -> FaceReader:
    return FaceReader()


@pytest.fixture(scope="module")
def fitted(reader: FaceReader) -> Enrolment:
    rng = np.random.default_rng(3)
    crops = rng.integers(0, 255, (6, reader.card.size, reader.card.size, 3), dtype=np.uint8)
    features, logits = reader.features(turned(crops))
    values = np.tile(np.array([1, 2, 3, 4, 5, 6]), 4)
    classes = [int(c) for c in reader.classes("value")]
    return enrol(features, logits, values, classes, "test", reader.digest, photos=1)


def test_an_enrolment_is_written_and_read_back_for_its_model(
    tmp_path: Path, reader: FaceReader, fitted: Enrolment
) -> None:
    save(fitted, tmp_path / "e.json")
    again = load(tmp_path / "e.json", reader.path)
    assert np.allclose(again.value.weight, fitted.value.weight, atol=1e-5)
    assert again.examples() == {1: 1, 2: 1, 3: 1, 4: 1, 5: 1, 6: 1}
    assert again.photos == 1 and len(again.features) == 24


def test_a_foreign_or_damaged_enrolment_is_one_clear_error(
    tmp_path: Path, reader: FaceReader, fitted: Enrolment
) -> None:
    other = tmp_path / "other.onnx"
    other.write_bytes(reader.path.read_bytes() + b"x")
    save(fitted, tmp_path / "e.json")
    with pytest.raises(BadEnrolmentError, match=r"another file.*enrol the dice again"):
        load(tmp_path / "e.json", other)
    data = json.loads((tmp_path / "e.json").read_text(encoding="utf-8"))
    cases = {
        "text": "not json at all",
        "version": json.dumps(data | {"version": 99}),
        "format": json.dumps(data | {"format": "something"}),
        "weights": json.dumps(data | {"value_head": data["value_head"] | {"weight": "AAAA"}}),
        "shapes": json.dumps(data | {"value_head": data["value_head"] | {"bias": [0.0]}}),
    }
    for name, text in cases.items():
        (tmp_path / f"{name}.json").write_text(text, encoding="utf-8")
        with pytest.raises(BadEnrolmentError):
            load(tmp_path / f"{name}.json", reader.path)
    with pytest.raises(BadEnrolmentError, match="no such enrolment file"):
        load(tmp_path / "missing.json")


def test_the_tables_cocked_head_is_kept_read_back_and_carried_through_refits(
    tmp_path: Path, reader: FaceReader, fitted: Enrolment
) -> None:
    lean = Lean("2.2.0", "ab" * 32, LeanHead(np.linspace(-1, 1, 64), 0.25), dice=10)
    with_lean = enrol(
        fitted.features,
        np.zeros((len(fitted.features), 10)),
        fitted.labels,
        fitted.value.classes,
        "test",
        reader.digest,
        photos=1,
        lean=lean,
    )
    save(with_lean, tmp_path / "e.json")
    again = load(tmp_path / "e.json", reader.path).lean
    assert again is not None and again.model_digest == "ab" * 32 and again.dice == 10
    assert np.allclose(again.head.weight, lean.head.weight, atol=1e-6)
    assert again.head.bias == pytest.approx(0.25)
    crops = np.random.default_rng(9).integers(0, 255, (2, 64, 64, 3), dtype=np.uint8)
    features, logits = reader.features(turned(crops))
    refit = enrol(
        features,
        logits,
        np.tile([3, 4], 4),
        fitted.value.classes,
        "test",
        reader.digest,
        photos=0,
        previous=with_lean,
    )
    assert refit.lean == with_lean.lean  # play adds value crops; the cocked head stays


def test_an_enrolment_reads_the_kinds_of_dice_it_was_fitted_on_and_the_model_the_others(
    tmp_path: Path, reader: FaceReader, fitted: Enrolment
) -> None:
    """A d10 lesson at a table that also plays with d6: the d6 keep the model's reading."""
    assert fitted.kinds == ("d6", "d10")  # fitted without kinds: it reads every kind
    d10 = replace(fitted, crop_kinds=np.full(len(fitted.labels), "d10"))
    save(d10, tmp_path / "e.json")
    assert load(tmp_path / "e.json", reader.path).kinds == ("d10",)
    crops = np.random.default_rng(4).integers(0, 255, (4, 64, 64, 3), dtype=np.uint8)
    value = [h.attribute for h in reader.card.heads].index("value")
    own = reader.probabilities(crops)[value]
    kinds = np.array([True, False, True, False])  # d6, d10, d6, d10
    reader.enrol(d10)
    try:
        mine = reader.probabilities(crops, d6=kinds)[value]
        assert np.allclose(mine[kinds], own[kinds])
        assert not np.allclose(mine[~kinds], own[~kinds])
        logits, features = reader.session.run(
            ["value", "features"], {"crops": reader.to_input(crops)}
        )
        table = softmax(d10.value_logits(features, logits, kinds))[~kinds]
        assert np.allclose(mine[~kinds], (table + own[~kinds]) / 2)  # half each
        read = reader.read_crops(crops, overhead=False, d6=kinds)
        assert all(len(guess["value"].probabilities) == 10 for guess in read)
    finally:
        reader.enrol(None)
    refit = enrol(
        fitted.features[:8], np.zeros((8, 10)), fitted.labels[:8], fitted.value.classes,
        "test", reader.digest, photos=0, previous=d10, kinds=["d6"] * 8,
    )  # fmt: skip
    assert refit.kinds == ("d6", "d10")  # play with the d6 adds them
    kept = refit.other_kinds("d6")  # what a new d6 lesson keeps: the d10's crops alone
    assert kept is not None and kept.kinds == ("d10",) and len(kept.labels) == len(d10.labels)
    assert d10.other_kinds("d10") is None and fitted.other_kinds("d6") is None  # unknown kinds
    data = json.loads((tmp_path / "e.json").read_text(encoding="utf-8"))
    data["crops"].pop("kinds")
    (tmp_path / "v2.json").write_text(json.dumps(data | {"version": 2}), encoding="utf-8")
    assert load(tmp_path / "v2.json", reader.path).kinds == ("d6", "d10")  # as it was fitted
    data["crops"]["kinds"] = ["d8"] * len(data["crops"]["labels"])
    (tmp_path / "bad.json").write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(BadEnrolmentError, match="damaged enrolment"):
        load(tmp_path / "bad.json", reader.path)


def test_an_enrolment_of_version_1_reads_without_a_cocked_head(
    tmp_path: Path, reader: FaceReader, fitted: Enrolment
) -> None:
    save(fitted, tmp_path / "e.json")
    data = json.loads((tmp_path / "e.json").read_text(encoding="utf-8"))
    assert "cocked_head" not in data
    (tmp_path / "v1.json").write_text(json.dumps(data | {"version": 1}), encoding="utf-8")
    assert load(tmp_path / "v1.json", reader.path).lean is None
    lean = Lean("2.2.0", "ab" * 32, LeanHead(np.ones(64), 0.0), dice=4).to_json()
    for damaged in ({**lean, "weight": "AAAA"}, {**lean, "bias": "x"}, {"dice": 3}):
        (tmp_path / "d.json").write_text(json.dumps(data | {"cocked_head": damaged}))
        with pytest.raises(BadEnrolmentError, match="damaged enrolment"):
            load(tmp_path / "d.json", reader.path)


def test_the_recogniser_reads_with_a_cocked_head_of_its_own_model_only(
    reader: FaceReader, fitted: Enrolment, caplog: pytest.LogCaptureFixture
) -> None:

    from vision.recognise import Recogniser

    recogniser = Recogniser()
    head = LeanHead(np.zeros(64), -5.0)
    mine = Lean("2.2.0", recogniser.leaning.digest, head, dice=5)
    recogniser.enrol(replace(fitted, lean=mine))
    assert recogniser.leaning.table is head and recogniser.reader.enrolment is not None
    recogniser.enrol(replace(fitted, lean=replace(mine, model_digest="0" * 64)))
    assert recogniser.leaning.table is None and recogniser.reader.enrolment is not None
    assert "another file" in caplog.text
    recogniser.enrol(None)
    assert recogniser.leaning.table is None and recogniser.reader.enrolment is None
    narrow = replace(mine, head=LeanHead(np.zeros(32), 0.0))  # a damaged head: nothing changes
    with pytest.raises(BadEnrolmentError, match="hidden units"):
        recogniser.enrol(replace(fitted, lean=narrow))
    assert recogniser.leaning.table is None and recogniser.reader.enrolment is None


def test_the_enrolled_head_reads_the_value_and_the_model_check_its_own_heads(
    reader: FaceReader, fitted: Enrolment
) -> None:
    crops = np.random.default_rng(4).integers(0, 255, (5, 64, 64, 3), dtype=np.uint8)
    value = [h.attribute for h in reader.card.heads].index("value")
    own = reader.probabilities(crops)[value]
    reader.enrol(fitted)
    try:
        mine = reader.probabilities(crops)[value]
        assert not np.allclose(mine, own)
        assert np.allclose(reader.probabilities(crops, own=True)[value], own)
        assert check_reader(reader).ok  # the check crops are read with the model's own heads
    finally:
        reader.enrol(None)


# -- the command ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def photos(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("table")
    write_dataset(out, 3, seed=21, size=(640, 480), kinds=("d6",), progress=False)
    return out


def test_enrol_learns_from_labelled_photos_and_says_what_it_changed(
    photos: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "enrolment.json"
    assert main(["enrol", str(photos), "--out", str(out)]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].endswith(")") and "labelled found in 3 photos" in printed[0]
    assert printed[1].startswith("on these photos: value read right ") and " after" in printed[1]
    assert printed[2].startswith("no cocked-die head fitted")  # no --calibration given
    enrolment = load(out, FaceReader().path)
    assert enrolment.photos == 3 and sum(enrolment.examples().values()) >= 3
    image = next((photos / "images").iterdir())
    assert main(["recognise", "--json", "--enrolment", str(out), str(image)]) == 0
    assert json.loads(capsys.readouterr().out)["dice"]
    args = ["evaluate", str(photos), "--enrolment", str(out), "--json", "--out", str(tmp_path)]
    assert main(args) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["enrolment"] == str(out)
    assert result["model"]["check"] == "computes as where it was exported"


def test_a_bad_enrolment_is_said_and_the_models_own_head_reads(
    photos: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{}", encoding="utf-8")
    image = next((photos / "images").iterdir())
    assert main(["recognise", "--json", "--enrolment", str(bad), str(image)]) == 0
    captured = capsys.readouterr()
    assert "not a yamscope enrolment file" in captured.err and captured.err.count("\n") == 1
    assert json.loads(captured.out)["dice"]
    assert main(["evaluate", str(photos), "--enrolment", str(bad), "--out", str(tmp_path)]) == 2
    assert "not a yamscope enrolment file" in capsys.readouterr().err


def test_enrol_without_a_die_found_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import cv2

    (tmp_path / "images").mkdir()
    (tmp_path / "labels").mkdir()
    cv2.imwrite(str(tmp_path / "images" / "a.png"), np.full((200, 200, 3), 90, np.uint8))
    (tmp_path / "labels" / "a.txt").write_text("d6 3 10 10 50 50\n", encoding="utf-8")
    assert main(["enrol", str(tmp_path), "--out", str(tmp_path / "e.json")]) == 2
    assert "no labelled die was found" in capsys.readouterr().err
    assert not (tmp_path / "e.json").exists()


def test_enrol_fits_on_the_model_it_is_given(
    photos: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "e.json"
    missing = tmp_path / "candidate.onnx"
    assert main(["enrol", str(photos), "--model", str(missing), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "candidate.onnx: model file missing" in err and err.count("\n") == 1
    assert not out.exists()
    shipped = FaceReader().path
    assert main(["enrol", str(photos), "--model", str(shipped), "--out", str(out)]) == 0
    assert load(out, shipped).photos == 3
