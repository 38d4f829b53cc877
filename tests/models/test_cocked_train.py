"""The cocked-die model's training: its crops, a few steps that resume, an export the runtime
reads and that agrees with torch, and clear refusals. Needs the `train` extra (fails without
it, as tests/models/test_train.py explains)."""

from __future__ import annotations

import json
import shutil
from dataclasses import asdict
from pathlib import Path

import numpy as np
import pytest
import torch

from models.cocked import crops as cocked_crops
from models.cocked import export as cocked_export
from models.cocked import train as cocked_train
from models.cocked.crops import (
    load_crops,
    rendered_crops,
    scene_crops,
    with_cocked_share,
    with_rendered,
)
from models.cocked.export import export
from models.cocked.net import CockedNet, augment
from models.cocked.train import Config, best_threshold, fit
from models.common.datasets import DatasetError, open_dataset
from models.dieface import synth_crops
from models.dieface.net import DieFaceNet
from models.dieface.scene_crops import VALID_EVERY
from models.synth.dataset import write_dataset
from vision.calibration import focal_widths
from vision.cocked import DEFAULT_COCKED_MODEL, CockedReader
from vision.perspective import slant

SLIM = (8, 12, 16, 24)


@pytest.fixture(scope="module")
def few() -> synth_crops.CropSet:
    """Upright crops of four scenes of a seed no model trains on."""
    return synth_crops.concat([scene_crops(77, i, 64) for i in range(4)])


def test_scene_crops_are_seeded_and_labelled(few: synth_crops.CropSet) -> None:
    again = scene_crops(77, 0, 64)
    assert np.array_equal(again.images, few.images[: len(again)])
    assert few.images.shape[1:] == (64, 64, 3)
    assert set(few.labels) == {"cocked", "slant"}
    assert set(np.unique(few.labels["cocked"])) <= {0, 1}
    slants = few.labels["slant"]  # a narrow camera sees 11-21° off axis at most, a wide one 37°
    assert slants.dtype == np.float32 and slants.min() >= 0 and slants.max() < 1.0
    assert len(few) % cocked_crops.CUTS == 0  # every die cut the same number of times


def test_crops_are_cached_apart_from_the_die_face_ones(synth_cache: Path) -> None:
    crops = load_crops(5, 2, workers=1, progress=False)
    folders = sorted(p.name for p in synth_cache.iterdir())
    assert len(folders) == 1 and folders[0].startswith(cocked_crops.RECIPE + "-wide0.5-seed5-")
    assert np.array_equal(load_crops(5, 2, workers=1, progress=False).images, crops.images)


def test_a_share_of_wide_camera_scenes_is_cached_apart(synth_cache: Path) -> None:
    narrow = load_crops(5, 1, workers=1, progress=False, wide_share=0.0)
    wide = load_crops(5, 1, workers=1, progress=False, wide_share=1.0)
    assert sorted(p.name.split("-seed")[0] for p in synth_cache.iterdir()) == [
        cocked_crops.RECIPE + "-wide0",
        cocked_crops.RECIPE + "-wide1",
    ]
    assert len(wide) == len(narrow) and not np.array_equal(wide.images, narrow.images)
    # the same die is seen more slanted by the wider camera
    assert wide.labels["slant"].mean() > 1.5 * narrow.labels["slant"].mean()


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A rendered scene folder (the fast engine's: its labels carry the table, whose camera
    tells the field of view), one scene more than a valid one."""
    out = tmp_path_factory.mktemp("rendered")
    write_dataset(out, VALID_EVERY + 1, 12, size=(320, 240), impossible=True, progress=False)
    return out


def test_rendered_dice_are_cut_upright_with_their_slant(rendered: Path) -> None:
    train, valid = rendered_crops(rendered, copies=2, progress=False)
    dataset = open_dataset(rendered)
    photos = [dataset.load(i) for i in range(len(dataset))]
    held = [p for i, p in enumerate(photos) if i % VALID_EVERY == VALID_EVERY - 1]
    assert len(held) == 1 and len(valid) == 2 * len(held[0].dice)
    assert len(train) == 2 * sum(len(p.dice) for p in photos) - len(valid)
    assert train.images.shape[1:] == (64, 64, 3)
    expected = [int(d.cocked) for p in photos if p not in held for d in p.dice for _ in range(2)]
    assert train.labels["cocked"].tolist() == expected
    # each cut's slant is its jittered box's: close to the labelled box's, seen by that camera
    first = photos[0]
    focal = focal_widths(first.camera_field_of_view())
    truth = [slant(first.image.shape, d.box, focal) for d in first.dice for _ in range(2)]
    assert np.allclose(train.labels["slant"][: len(truth)], truth, atol=0.03)
    assert not np.allclose(train.labels["slant"][: len(truth)], truth, atol=1e-6)


def test_rendered_crops_need_the_camera_field_of_view(rendered: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(rendered, copy)
    label = sorted((copy / "labels").glob("*.json"))[0]
    data = json.loads(label.read_text(encoding="utf-8"))
    del data["tray"]  # an old Blender label: no table, no field of view
    label.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(DatasetError, match="no field_of_view"):
        rendered_crops(copy, progress=False)
    with pytest.raises(DatasetError, match="no such folder"):
        rendered_crops(tmp_path / "none", progress=False)


def test_rendered_dice_make_about_a_quarter_of_an_epoch(
    rendered: Path, few: synth_crops.CropSet
) -> None:
    extra, extra_valid = rendered_crops(rendered, progress=False)
    extra = with_cocked_share(extra)  # valid crops are not repeated
    base = synth_crops.concat([few] * 30)  # synthetic crops outnumber rendered ones
    train, valid = with_rendered(base, few, [rendered], progress=False)
    assert len(valid) == len(few) + len(extra_valid)
    repeats = (len(train) - len(base)) // len(extra)
    assert repeats >= 1 and len(train) == len(base) + repeats * len(extra)
    assert 0.15 < repeats * len(extra) / len(train) < 0.4
    # a few synthetic crops: the rendered ones still come once
    small, _ = with_rendered(few, few, [rendered], progress=False)
    assert len(small) == len(few) + len(extra)
    assert with_rendered(few, few, [], progress=False) == (few, few)


def test_rare_cocked_dice_are_repeated_to_the_synthetic_share(few: synth_crops.CropSet) -> None:
    labels = np.zeros(len(few), np.int64)
    labels[:3] = 1  # three cocked crops among 80: a rendered throw's few
    rare = synth_crops.CropSet(few.images, {"cocked": labels, "slant": few.labels["slant"]})
    balanced = with_cocked_share(rare)
    assert np.array_equal(balanced.images[: len(rare)], rare.images)  # every crop still once
    share = balanced.labels["cocked"].mean()
    assert abs(share - cocked_crops.COCKED_SHARE) < 0.03
    assert (balanced.labels["cocked"] == 0).sum() == len(rare) - 3  # flat ones not repeated
    # already common enough, or none at all: as they are
    plenty = synth_crops.CropSet(
        few.images, {"cocked": np.ones(len(few), np.int64), "slant": few.labels["slant"]}
    )
    assert len(with_cocked_share(plenty)) == len(few)
    flat = synth_crops.CropSet(
        few.images, {"cocked": np.zeros(len(few), np.int64), "slant": few.labels["slant"]}
    )
    assert len(with_cocked_share(flat)) == len(few)


def test_the_card_names_the_rendered_folders(tmp_path: Path, rendered: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    cfg = Config(rendered=[str(rendered)])
    summary = {
        "best": {"epoch": 1},
        "history": [],
        "train_seconds": 0,
        "train_crops": 9,
        "config": asdict(cfg),
        "trunk": "t.pt",
        "minutes": 0,
    }
    (run / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    info = cocked_export.card(DEFAULT_COCKED_MODEL, CockedNet(), run)
    assert f"--rendered {rendered} " in info["metrics"]["reproduce"]["train"]
    assert info["training"]["rendered"][0]["folder"] == str(rendered)
    assert info["training"]["rendered"][0]["scenes"] == VALID_EVERY + 1
    assert "rendered folders below" in info["training"]["data"]


def test_augment_keeps_shape_and_range() -> None:
    x = torch.rand(6, 3, 64, 64)
    y = augment(x, torch.Generator().manual_seed(0))
    assert y.shape == x.shape and float(y.min()) >= 0 and float(y.max()) <= 1
    assert not torch.equal(x, y)


def test_the_threshold_weighs_a_miss_twice() -> None:
    cocked = np.array([1, 1, 0, 0, 0, 0])
    p = np.array([0.9, 0.32, 0.35, 0.1, 0.1, 0.1])
    best = best_threshold(p, cocked)
    assert best["missed"] == 0 and best["flagged_flat"] == 1 and best["cost"] == 1


def test_a_few_steps_resume_and_export(tmp_path: Path, few: synth_crops.CropSet) -> None:
    run = tmp_path / "run"
    cfg = Config(scenes=4, valid_scenes=4, epochs=1, batch_size=16, threads=1)
    first = fit(few, few, run, cfg, progress=False)
    assert first["best"]["epoch"] == 1 and (run / "best.pt").is_file()
    cfg.epochs = 2
    second = fit(few, few, run, cfg, progress=False)
    assert [r["epoch"] for r in second["history"]] == [1, 2]
    target = tmp_path / "out" / "cocked.onnx"
    trays = tmp_path / "trays"
    write_dataset(trays, 2, seed=8, size=(640, 480), impossible=True, progress=False)
    info = export(run, target, few, 0.5, [trays], progress=False, anchors=few)
    card = json.loads(target.with_suffix(".json").read_text(encoding="utf-8"))
    assert card["metrics"]["valid_crops"]["threshold"] == 0.5
    assert (
        card["hidden"]["shape"] == ["batch", 64] and card["anchors"]["file"] == "cocked.anchors.npz"
    )
    read = card["metrics"]["pipeline"]["trays"]
    assert read["photos"] == 2 and read["cocked_found"] <= read["cocked_labelled"]
    assert read["command"] == f"yamscope evaluate {trays}"
    assert info["export"]["max_abs_logit_difference_torch_vs_onnxruntime"] < 1e-3
    reader = CockedReader(target)
    p = reader.probabilities_of(few.images, few.labels["slant"])
    model = CockedNet().eval()
    model.load_state_dict(torch.load(run / "best.pt")["model"])
    with torch.no_grad():
        x = cocked_train.standardise(cocked_train.to_input(few.images))
        expected = torch.softmax(model(x, torch.as_tensor(few.labels["slant"])), 1)[:, 1]
    assert np.allclose(p, expected.numpy(), atol=1e-4)
    anchors = reader.anchors()  # written beside it, for the model's own hidden layer
    assert anchors is not None and len(anchors.hidden) == len(few)
    hidden = reader.hidden_of(few.images, few.labels["slant"])
    assert np.allclose(anchors.own.probabilities(hidden), p, atol=1e-3)


def test_a_fine_tune_starts_from_the_whole_cocked_net(
    tmp_path: Path, few: synth_crops.CropSet
) -> None:
    start = CockedNet()
    torch.nn.init.constant_(start.head[1].weight, 0.5)
    torch.save({"model": start.state_dict()}, tmp_path / "cocked.pt")
    model = cocked_train.initial_model(None, tmp_path / "cocked.pt")
    assert torch.all(model.head[1].weight == 0.5)
    cfg = Config(scenes=4, valid_scenes=4, epochs=1, batch_size=16, threads=1)
    summary = fit(few, few, tmp_path / "run", cfg, progress=False, weights=tmp_path / "cocked.pt")
    assert summary["weights"] == str(tmp_path / "cocked.pt")  # the card names where it began
    info = cocked_export.card(DEFAULT_COCKED_MODEL, CockedNet(), tmp_path / "run")
    assert f"--weights {tmp_path / 'cocked.pt'} " in info["metrics"]["reproduce"]["train"]
    assert info["training"]["fine_tuned_from"] == str(tmp_path / "cocked.pt")


def test_the_trunk_comes_from_a_die_face_checkpoint(tmp_path: Path) -> None:
    face = DieFaceNet()
    torch.nn.init.constant_(face.features[0].weight, 0.25)
    torch.save({"model": face.state_dict()}, tmp_path / "face.pt")
    model = cocked_train.initial_model(tmp_path / "face.pt")
    assert torch.all(model.features[0].weight == 0.25)


def test_bad_arguments_exit_with_one_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exc:
        cocked_train.main(["--trunk", str(tmp_path / "none.pt")])
    assert exc.value.code == 2
    assert "no such checkpoint" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        cocked_train.main(["--weights", str(tmp_path / "none.pt")])
    assert exc.value.code == 2
    assert "--weights" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        cocked_train.main(["--out", str(tmp_path), "--export", str(tmp_path / "c.onnx")])
    assert exc.value.code == 2
    assert "no best.pt to export" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        cocked_train.main(["--wide-share", "2"])
    assert exc.value.code == 2
    assert "--wide-share is a share" in capsys.readouterr().err
    for option in ("--evaluate", "--rendered"):
        with pytest.raises(SystemExit) as exc:
            cocked_train.main([option, str(tmp_path)])
        assert exc.value.code == 2
        assert f"{option} {tmp_path}: not a labelled synthetic folder" in capsys.readouterr().err


def test_fewer_crops_than_a_batch_are_refused(tmp_path: Path, few: synth_crops.CropSet) -> None:
    with pytest.raises(ValueError, match="fewer crops than one batch"):
        fit(few, few, tmp_path, Config(batch_size=len(few) + 1), progress=False)


def _exported(tmp_path: Path, size: int = 64) -> tuple[CockedNet, Path]:
    """A net whose batch norms are not the identity, exported as the trainer exports it."""
    torch.manual_seed(3)
    model = CockedNet()
    with torch.no_grad():
        model.train()
        for _ in range(3):  # running statistics away from 0 and 1
            model(torch.randn(8, 3, size, size) * 2 + 0.3, torch.rand(8))
        for module in model.modules():
            if isinstance(module, torch.nn.BatchNorm2d):
                module.weight.uniform_(0.5, 1.5)
    path = tmp_path / "cocked.onnx"
    cocked_export.export_onnx(model.eval(), path, size)
    return model, path


def test_an_exported_model_is_read_back_as_it_computes(
    tmp_path: Path, few: synth_crops.CropSet
) -> None:
    model, path = _exported(tmp_path)
    back = cocked_train.from_onnx(path).eval()
    x = cocked_train.standardise(cocked_train.to_input(few.images[:16]))
    slants = torch.as_tensor(few.labels["slant"][:16])
    with torch.no_grad():
        torch.testing.assert_close(back(x, slants), model(x, slants), atol=1e-4, rtol=1e-4)
    shipped = cocked_train.from_onnx(DEFAULT_COCKED_MODEL).eval()
    expected = CockedReader().probabilities_of(few.images, few.labels["slant"])
    got = cocked_train.predict(shipped, few)
    np.testing.assert_allclose(got, expected, atol=1e-4)
    with pytest.raises(ValueError, match="not a float cocked-die model"):
        cocked_train.from_onnx(DEFAULT_COCKED_MODEL.parent / "dieface.onnx")


def test_a_smaller_input_is_the_cut_crop_averaged_down() -> None:
    import cv2

    rng = np.random.default_rng(0)
    images = rng.integers(0, 256, (3, 64, 64, 3), dtype=np.uint8)
    small = cocked_train.to_input(images, 32).numpy()
    for got, image in zip(small, images, strict=True):
        want = cv2.resize(image.astype(np.float32) / 255, (32, 32), interpolation=cv2.INTER_AREA)
        np.testing.assert_allclose(got.transpose(1, 2, 0), want, atol=1e-6)
    assert cocked_train.to_input(images).shape == (3, 3, 64, 64)


def test_a_model_of_a_smaller_input_trains_exports_and_reads(
    tmp_path: Path, few: synth_crops.CropSet
) -> None:
    _, start = _exported(tmp_path)
    run = tmp_path / "run"
    cfg = Config(scenes=4, valid_scenes=4, epochs=1, batch_size=16, threads=1, input_size=32)
    summary = fit(few, few, run, cfg, progress=False, exported=start)
    assert summary["exported"] == str(start) and summary["config"]["input_size"] == 32
    target = tmp_path / "out" / "cocked.onnx"
    info = export(run, target, few, 0.5, progress=False, anchors=few)
    assert info["input"]["shape"][2:] == [32, 32] and info["input"]["cut_size"] == 64
    assert f"--from-onnx {start} --input-size 32 " in info["metrics"]["reproduce"]["train"]
    reader = CockedReader(target)
    assert (reader.card.size, reader.card.cut) == (32, 64)
    frame = np.full((480, 640, 3), 90, np.uint8)
    crops, _ = reader.inputs(frame, [(10, 10, 60, 60)], 0.8)
    assert crops.shape == (1, 64, 64, 3)  # cut at 64, averaged down when read
    model = CockedNet().eval()
    model.load_state_dict(torch.load(run / "best.pt")["model"])
    expected = cocked_train.predict(model, few, 32)
    got = reader.probabilities_of(few.images, few.labels["slant"])
    np.testing.assert_allclose(got, expected, atol=1e-4)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--from-onnx", "{tmp}/none.onnx"], "--from-onnx: [Errno 2]"),
        (["--from-onnx", "{dieface}"], "not a float cocked-die model"),
        (["--input-size", "4"], "--input-size is 8..64 pixels"),
        (["--input-size", "96"], "--input-size is 8..64 pixels"),
    ],
)
def test_a_bad_start_or_input_size_exits_with_one_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    dieface = DEFAULT_COCKED_MODEL.parent / "dieface.onnx"
    argv = [a.format(tmp=tmp_path, dieface=dieface) for a in argv]
    with pytest.raises(SystemExit) as exc:
        cocked_train.main(["--out", str(tmp_path / "run"), *argv])
    assert exc.value.code == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "run").exists()


def test_a_slimmed_start_keeps_the_teachers_answers_at_its_widths(tmp_path: Path) -> None:
    teacher = cocked_train.from_onnx(_exported(tmp_path)[1]).eval()
    same = cocked_train.slimmed(teacher, DieFaceNet.WIDTHS).eval()
    x, slants = torch.randn(4, 3, 64, 64), torch.rand(4)
    with torch.no_grad():
        torch.testing.assert_close(same(x, slants), teacher(x, slants))
    slim = cocked_train.slimmed(teacher, SLIM)
    assert DieFaceNet.widths_of(slim.state_dict()) == SLIM
    # the head still hears the slant terms, from the teacher's last two inputs
    torch.testing.assert_close(slim.head[1].weight[:, -2:], teacher.head[1].weight[:, -2:])


def test_a_taught_slim_net_trains_exports_and_reads_back(
    tmp_path: Path, few: synth_crops.CropSet
) -> None:
    _, teacher = _exported(tmp_path)
    run = tmp_path / "run"
    cfg = Config(epochs=1, batch_size=16, threads=1, widths=SLIM, teacher=str(teacher))
    fit(few, few, run, cfg, progress=False)
    target = tmp_path / "out" / "cocked.onnx"
    info = export(run, target, few, 0.5, progress=False, anchors=few)
    assert info["training"]["widths"] == list(SLIM)
    assert info["training"]["taught_by"] == str(teacher)
    train = info["metrics"]["reproduce"]["train"]
    assert f"--teacher {teacher} " in train and "--widths 8 12 16 24 " in train
    back = cocked_train.from_onnx(target)
    assert DieFaceNet.widths_of(back.state_dict()) == SLIM
    np.testing.assert_allclose(
        cocked_train.predict(back, few),
        CockedReader(target).probabilities_of(few.images, few.labels["slant"]),
        atol=1e-4,
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--teacher", "{dieface}"], "--teacher: "),
        (["--widths", "16", "24", "0", "80"], "--widths are channel counts"),
    ],
)
def test_a_bad_teacher_or_widths_exits_with_one_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    dieface = DEFAULT_COCKED_MODEL.parent / "dieface.onnx"
    with pytest.raises(SystemExit) as exc:
        cocked_train.main(
            ["--out", str(tmp_path / "run"), *[a.format(dieface=dieface) for a in argv]]
        )
    assert exc.value.code == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "run").exists()


def test_a_taught_net_of_a_smaller_input_has_a_teacher_that_reads_the_cut_crops(
    tmp_path: Path, few: synth_crops.CropSet, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The teacher learned 64 px crops: it must be shown those, and the net the same crops
    averaged down, or it teaches what it says of crops it never learned."""
    _, teacher = _exported(tmp_path)
    seen: list[int] = []
    read_back = cocked_train.from_onnx

    def recording(path: Path) -> CockedNet:
        net = read_back(path)
        net.register_forward_pre_hook(lambda _, args: seen.append(args[0].shape[-1]))
        return net

    monkeypatch.setattr(cocked_train, "from_onnx", recording)
    cfg = Config(epochs=1, batch_size=16, threads=1, input_size=32, teacher=str(teacher))
    fit(few, few, tmp_path / "run", cfg, progress=False, exported=teacher)
    steps = len(few) // cfg.batch_size
    # the start (read from the same file) sees 32 px in every step and in valid, the
    # teacher 64 px in every step
    assert seen.count(64) == steps and seen.count(32) >= steps


def test_anchors_are_refused_for_a_file_that_is_no_cocked_die_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from vision.faces import DEFAULT_MODEL

    model = tmp_path / "cocked.onnx"
    shutil.copy(DEFAULT_MODEL, model)
    shutil.copy(DEFAULT_MODEL.with_suffix(".json"), model.with_suffix(".json"))
    with pytest.raises(SystemExit) as exited:
        cocked_train.main(["--anchors", str(model), "--quiet"])
    assert exited.value.code == 2
    assert "--anchors" in capsys.readouterr().err
    assert not (tmp_path / "cocked.anchors.npz").exists()
