"""A narrower die-face net taught by a float ONNX model: the teacher read back from ONNX
computes what onnxruntime computes, the slimmed start keeps the strongest filters, the
distillation term teaches, and `yamscope train --teacher --widths` refuses bad input.

Needs the `train` extra, as tests/models/test_train.py (fails, not skips, without it).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest

try:
    import torch
except ImportError as exc:  # a clear failure, not a skip: CI must install the train extra
    raise ImportError("tests/models/test_distil.py needs: pip install -e '.[dev,train]'") from exc

from device.cli import main as cli
from models.dieface import spec, synth_crops
from models.dieface.augment import augment
from models.dieface.distil import (
    agrees,
    distillation_loss,
    from_onnx,
    resized,
    slimmed,
    widened,
)
from models.dieface.export import export_onnx
from models.dieface.net import DieFaceNet, normalise
from models.dieface.pair import small_part
from models.dieface.spec import MEAN, STD
from models.dieface.train import TrainConfig, batch_loss, fit, load_model
from models.training.loop import take_step
from vision.faces import DEFAULT_MODEL
from vision.model_check import check_path

SLIM = (8, 12, 16, 24)
WIDE = (24, 40, 80, 160)


def _onnx_logits(path: Path, x: torch.Tensor) -> list[np.ndarray]:
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return session.run(list(spec.HEADS), {"crops": x.numpy()})


def _trained_teacher(tmp_path: Path, kinds: int = len(spec.HEADS["kind"])) -> Path:
    """A full-width net with batch norms that are not the identity, exported to ONNX;
    ``kinds``: the classes of its kind head (2: a model from before "none")."""
    torch.manual_seed(0)
    model = DieFaceNet()
    model.heads["kind"] = torch.nn.Linear(DieFaceNet.WIDTHS[-1], kinds)
    model.train()
    with torch.no_grad():
        for _ in range(3):  # running statistics away from 0 and 1
            model(torch.randn(16, 3, 64, 64) * 2 + 0.5)
        for module in model.modules():
            if isinstance(module, torch.nn.BatchNorm2d):
                module.weight.uniform_(0.5, 1.5)
                module.bias.uniform_(-0.2, 0.2)
    path = tmp_path / "teacher.onnx"
    export_onnx(model.eval(), path)
    return path


def test_the_teacher_read_back_computes_what_onnxruntime_does(tmp_path: Path) -> None:
    path = _trained_teacher(tmp_path)
    x = torch.randn(6, 3, 64, 64)
    with torch.no_grad():
        back = from_onnx(path)(x)
    for ours, theirs in zip(back, _onnx_logits(path, x), strict=True):
        np.testing.assert_allclose(ours.numpy(), theirs, atol=1e-4)


def test_the_shipped_model_teaches_as_its_small_net_reads(tmp_path: Path) -> None:
    """A pair (models/dieface/pair.py) teaches as its small net: that net's answers, within
    what int8 activations round off (0.25 of a logit; a float file within 0.001)."""
    crops = np.load(check_path(DEFAULT_MODEL))["crops"]
    x = normalise(crops)
    card = json.loads(DEFAULT_MODEL.with_suffix(".json").read_text(encoding="utf-8"))
    tolerance = 0.25 if card["weights"].startswith("int8") else 1e-3
    small = small_part(onnx.load(str(DEFAULT_MODEL)))
    reads = DEFAULT_MODEL
    if small is not None:
        reads = tmp_path / "small.onnx"
        onnx.save(small, str(reads))
    with torch.no_grad():
        back = from_onnx(DEFAULT_MODEL)(x)
    for ours, theirs in zip(back, _onnx_logits(reads, x), strict=True):
        top = np.sort(theirs, axis=1)
        clear = top[:, -1] - top[:, -2] > 2 * tolerance  # no near tie the rounding may flip
        assert clear.sum() >= len(theirs) // 2
        assert np.array_equal(ours.numpy().argmax(1)[clear], theirs.argmax(1)[clear])
        np.testing.assert_allclose(ours.numpy(), theirs, atol=tolerance)


def test_a_model_from_before_no_die_teaches_that_every_crop_is_a_die(tmp_path: Path) -> None:
    """Its kind head lacks the "none" class: read back, the class is there, and the teacher
    gives it no weight, so it teaches no crop to be a phantom."""
    path = _trained_teacher(tmp_path, kinds=2)
    x = torch.randn(6, 3, 64, 64)
    kind = list(spec.HEADS).index("kind")
    with torch.no_grad():
        back = from_onnx(path)(x)[kind]
    assert back.shape == (6, len(spec.HEADS["kind"]))
    np.testing.assert_allclose(back[:, :2].numpy(), _onnx_logits(path, x)[kind], atol=1e-4)
    assert (back.softmax(1)[:, spec.HEADS["kind"].index(spec.NO_DIE)] < 0.01).all()


@pytest.mark.parametrize("name", ["not-onnx", "detector"])
def test_a_file_that_is_not_a_die_face_model_cannot_teach(tmp_path: Path, name: str) -> None:
    path = tmp_path / "x.onnx"
    if name == "not-onnx":
        path.write_bytes(b"not a model")
    else:
        path = DEFAULT_MODEL.parent / "dicefind.onnx"
    with pytest.raises(ValueError, match="not a"):
        from_onnx(path)


def test_slimming_to_the_same_widths_changes_nothing(tmp_path: Path) -> None:
    teacher = from_onnx(_trained_teacher(tmp_path))
    student = slimmed(teacher, DieFaceNet.WIDTHS).eval()
    x = torch.randn(4, 3, 64, 64)
    with torch.no_grad():
        for a, b in zip(student(x), teacher(x), strict=True):
            torch.testing.assert_close(a, b)


def test_slimming_keeps_the_strongest_filters_and_their_inputs() -> None:
    torch.manual_seed(1)
    teacher = DieFaceNet().eval()
    first, second = teacher.features[0], teacher.features[3]
    with torch.no_grad():
        first.weight.mul_(0.01)
        strong = [3, 7, 11, 2, 9, 0, 14, 5]  # out of order: kept in the teacher's order
        first.weight[strong] *= 1000
    student = slimmed(teacher, SLIM)
    assert DieFaceNet.widths_of(student.state_dict()) == SLIM
    kept = sorted(strong)
    torch.testing.assert_close(student.features[0].weight, first.weight[kept])
    # the second conv reads only the kept channels of the first
    chosen = student.features[3].weight
    assert chosen.shape == (SLIM[1], SLIM[0], 3, 3)
    rows = [r for r in range(second.out_channels) if torch.equal(second.weight[r, kept], chosen[0])]
    assert len(rows) == 1


def test_a_widened_net_computes_what_the_narrow_one_did() -> None:
    torch.manual_seed(2)
    narrow = DieFaceNet().eval()
    x = torch.randn(4, 3, 64, 64)
    exact = widened(narrow, WIDE, noise=0.0).eval()
    jittered = widened(narrow, WIDE).eval()
    assert DieFaceNet.widths_of(exact.state_dict()) == WIDE
    with torch.no_grad():
        for a, b, c in zip(narrow(x), exact(x), jittered(x), strict=True):
            torch.testing.assert_close(b, a, rtol=1e-4, atol=1e-5)
            assert 0 < float((c - a).abs().max()) < 0.1 * float(a.abs().max())


def test_a_widened_nets_copies_learn_apart() -> None:
    """The noise on the shares gives each copy of a channel its own gradient."""
    torch.manual_seed(3)
    wide = widened(DieFaceNet().eval(), WIDE).train()
    sum(o.square().sum() for o in wide(torch.randn(4, 3, 64, 64))).backward()
    grads = wide.features[0].weight.grad.flatten(1)
    copies = [j for j in range(16, WIDE[0])]  # the first layer's added channels
    assert all(
        not torch.allclose(grads[j], grads[k])
        for j in copies
        for k in range(16)
        if torch.equal(wide.features[0].weight[j], wide.features[0].weight[k])
    )


def test_resizing_refuses_widths_both_wider_and_narrower() -> None:
    net = DieFaceNet()
    assert resized(net, DieFaceNet.WIDTHS) is net
    assert DieFaceNet.widths_of(resized(net, SLIM).state_dict()) == SLIM
    with pytest.raises(ValueError, match="neither all wider nor all narrower"):
        resized(net, (24, 16, 64, 128))


def test_the_distillation_term_is_zero_only_when_the_student_agrees() -> None:
    torch.manual_seed(0)
    teacher = tuple(torch.randn(5, len(c)) for c in spec.HEADS.values())
    assert float(distillation_loss(teacher, teacher, 2.0)) == pytest.approx(0.0, abs=1e-6)
    other = tuple(t + torch.randn_like(t) for t in teacher)
    assert float(distillation_loss(other, teacher, 2.0)) > 0.01


def test_the_distillation_term_counts_only_the_crops_taught() -> None:
    torch.manual_seed(0)
    teacher = tuple(torch.randn(6, len(c)) for c in spec.HEADS.values())
    student = tuple(t.clone() for t in teacher)
    for s in student:
        s[3:] += 5 * torch.randn_like(s[3:])  # only the last three disagree
    first = torch.tensor([True, True, True, False, False, False])
    assert float(distillation_loss(student, teacher, 2.0, first)) == pytest.approx(0.0, abs=1e-6)
    assert float(distillation_loss(student, teacher, 2.0, ~first)) > 0.01
    assert float(distillation_loss(student, teacher, 2.0, torch.zeros(6, dtype=torch.bool))) == 0.0


def test_the_teacher_does_not_teach_crops_held_upright() -> None:
    """Every crop upright: no teacher term, so the loss is the labels' alone."""
    torch.manual_seed(0)
    teacher = from_onnx(DEFAULT_MODEL)
    crops = torch.as_tensor(np.load(check_path(DEFAULT_MODEL))["crops"])
    labels = {name: torch.full((len(crops),), -1) for name in spec.HEADS}
    labels["kind"] = torch.zeros(len(crops), dtype=torch.int64)
    student = slimmed(teacher, SLIM).eval()  # no dropout: the two losses see the same net
    cfg = TrainConfig(max_scale=0.0, max_shift=0.0, blur=0.0, grey=0.0, swap=0.0)
    upright = torch.ones(len(crops), dtype=torch.bool)

    def loss(taught: torch.nn.Module | None, held: torch.Tensor | None) -> float:
        generator = torch.Generator().manual_seed(0)
        return float(batch_loss(student, crops, labels, generator, cfg, taught, held))

    assert loss(teacher, upright) == pytest.approx(loss(None, upright))
    assert loss(teacher, ~upright) > loss(None, ~upright)


def test_the_teacher_does_not_teach_crops_it_reads_otherwise_than_their_labels() -> None:
    """Labels that contradict the teacher's reading on a head: no teacher term; labels it
    reads as given: the teacher teaches."""
    torch.manual_seed(0)
    teacher = from_onnx(DEFAULT_MODEL).eval()
    crops = torch.as_tensor(np.load(check_path(DEFAULT_MODEL))["crops"])
    student = slimmed(teacher, SLIM).eval()
    cfg = TrainConfig(max_scale=0.0, max_shift=0.0, blur=0.0, grey=0.0, swap=0.0)
    unmirrored = torch.zeros(len(crops), dtype=torch.bool)
    x, _ = augment(crops, unmirrored, torch.Generator().manual_seed(0), cfg)  # as the loss's
    with torch.no_grad():
        taught = teacher((x - MEAN) / STD)
    read = taught[list(spec.HEADS).index("value")].argmax(1)
    unknown = {name: torch.full((len(crops),), -1) for name in spec.HEADS}

    def loss(taught: torch.nn.Module | None, values: torch.Tensor) -> float:
        generator = torch.Generator().manual_seed(0)
        labels = unknown | {"value": values}
        return float(batch_loss(student, crops, labels, generator, cfg, taught))

    wrong = (read + 1) % 10
    assert loss(teacher, wrong) == pytest.approx(loss(None, wrong))
    assert loss(teacher, read) > loss(None, read) + 0.01
    assert agrees(taught, unknown | {"value": read}).all()
    assert not agrees(taught, unknown | {"value": wrong}).any()


def test_a_taught_step_moves_the_student_towards_the_teacher(tmp_path: Path) -> None:
    torch.manual_seed(0)
    torch.set_num_threads(1)
    teacher = from_onnx(DEFAULT_MODEL)
    crops = np.load(check_path(DEFAULT_MODEL))["crops"]
    images = torch.as_tensor(crops)
    unknown = torch.full((len(crops),), -1)  # no labels: the teacher alone teaches
    labels = {name: unknown for name in spec.HEADS}
    student = slimmed(teacher, SLIM)
    optimiser = torch.optim.SGD(student.parameters(), lr=0.02)
    cfg = TrainConfig(max_scale=0.0, max_shift=0.0, blur=0.0, grey=0.0, swap=0.0)
    generator = torch.Generator().manual_seed(0)
    losses = [
        take_step(optimiser, batch_loss(student, images, labels, generator, cfg, teacher))
        for _ in range(6)
    ]
    assert losses[-1] < losses[0]


def test_fit_with_a_teacher_saves_a_slim_net_that_loads(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    images = rng.integers(0, 256, (24, 64, 64, 3), dtype=np.uint8)
    labels = {name: rng.integers(0, len(c), 24) for name, c in spec.HEADS.items()}
    crops = synth_crops.CropSet(images, labels)
    cfg = TrainConfig(epochs=1, batch_size=8, threads=1, widths=SLIM, teacher=str(DEFAULT_MODEL))
    summary = fit(crops, {"valid": crops.subset(np.arange(8))}, tmp_path, cfg, progress=False)
    assert summary["config"]["widths"] == SLIM
    model = load_model(tmp_path / "best.pt")
    assert DieFaceNet.widths_of(model.state_dict()) == SLIM
    exported = tmp_path / "slim.onnx"
    export_onnx(model, exported)
    assert [o.shape[1] for o in _onnx_logits(exported, normalise(images[:2]))] == [
        len(c) for c in spec.HEADS.values()
    ]


def test_fit_from_weights_at_wider_widths_saves_the_wider_net(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    images = rng.integers(0, 256, (16, 64, 64, 3), dtype=np.uint8)
    labels = {name: rng.integers(0, len(c), 16) for name, c in spec.HEADS.items()}
    crops = synth_crops.CropSet(images, labels)
    cfg = TrainConfig(epochs=1, batch_size=8, threads=1)
    fit(crops, {"valid": crops.subset(np.arange(8))}, tmp_path / "a", cfg, progress=False)
    cfg = TrainConfig(epochs=1, batch_size=8, threads=1, widths=WIDE)
    start = tmp_path / "a" / "best.pt"
    fit(
        crops,
        {"valid": crops.subset(np.arange(8))},
        tmp_path / "b",
        cfg,
        weights=start,
        progress=False,
    )
    assert DieFaceNet.widths_of(load_model(tmp_path / "b" / "best.pt").state_dict()) == WIDE


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--teacher", "{tmp}/notes.txt"], "notes.txt: not an ONNX file"),
        (["--weights", "{model}", "--widths", "4", "4", "4", "999"], "neither all wider"),
        (["--teacher", "{tmp}/missing.onnx"], "No such file"),
        (["--widths", "16", "0", "40", "80"], "--widths are channel counts"),
    ],
)
def test_train_refuses_a_bad_teacher_or_widths(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    (tmp_path / "notes.txt").write_text("not a model", encoding="utf-8")
    extra = [e.format(tmp=tmp_path, model=DEFAULT_MODEL) for e in extra]
    out = tmp_path / "run"
    assert cli(["train", "--out", str(out), "--quiet", *extra]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert not out.exists()  # refused before anything was made
