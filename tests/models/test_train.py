"""Training and export with torch: one step learns, checkpoints resume, ONNX agrees with torch.

These need the `train` extra (torch==2.13.0, onnx). They fail, not skip, without it: CI
installs `.[dev,train]` so the training code cannot rot unnoticed.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

try:
    import torch
except ImportError as exc:  # a clear failure, not a skip: CI must install the train extra
    raise ImportError("tests/models/test_train.py needs: pip install -e '.[dev,train]'") from exc

from device.cli import main as cli
from models.export import export_onnx, max_logit_difference
from models.net import DieFaceNet, count_parameters, normalise
from models.train import TrainConfig, augment, fit, latest_checkpoint, train_step


def test_net_is_small_and_maps_crops_to_six_logits() -> None:
    model = DieFaceNet().eval()
    assert count_parameters(model) * 4 < 2_000_000  # under 2 MB of float32 weights
    with torch.no_grad():
        assert model(normalise(np.zeros((3, 64, 64), np.uint8))).shape == (3, 6)


def test_augment_keeps_shape_and_range_and_is_seeded() -> None:
    images = torch.randint(0, 256, (5, 64, 64), dtype=torch.uint8)
    a = augment(images, torch.Generator().manual_seed(1), TrainConfig())
    b = augment(images, torch.Generator().manual_seed(1), TrainConfig())
    assert a.shape == (5, 1, 64, 64) and float(a.min()) >= 0.0 and float(a.max()) <= 1.0
    assert torch.equal(a, b)


def test_one_training_step_lowers_the_loss_on_its_batch() -> None:
    torch.manual_seed(0)
    torch.set_num_threads(1)
    model = DieFaceNet()
    cfg = TrainConfig(max_scale=0.0, max_shift=0.0)
    optimiser = torch.optim.SGD(model.parameters(), lr=0.05)
    images = torch.randint(0, 256, (16, 64, 64), dtype=torch.uint8)
    labels = torch.arange(16) % 6
    before = [p.detach().clone() for p in model.parameters()]
    losses = [
        train_step(model, optimiser, images, labels, torch.Generator().manual_seed(0), cfg)[0]
        for _ in range(5)
    ]
    assert any(not torch.equal(a, b) for a, b in zip(before, model.parameters(), strict=True))
    assert losses[-1] < losses[0]


def test_fit_checkpoints_each_epoch_and_resumes(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    images = rng.integers(0, 256, (40, 64, 64), dtype=np.uint8)
    labels = np.arange(40) % 6
    cfg = TrainConfig(epochs=1, batch_size=16, threads=1)
    valid = {"valid": (images[:8], labels[:8])}
    first = fit(images, labels, valid, tmp_path, cfg, progress=False)
    assert [r["epoch"] for r in first["history"]] == [1]
    assert latest_checkpoint(tmp_path) == tmp_path / "epoch-001.pt"
    cfg.epochs = 2
    second = fit(images, labels, valid, tmp_path, cfg, resume=True, progress=False)
    assert [r["epoch"] for r in second["history"]] == [1, 2]  # epoch 1 kept, not redone
    assert second["history"][0] == first["history"][0]
    assert (tmp_path / "best.pt").exists() and (tmp_path / "summary.json").exists()


def test_export_round_trip_agrees_with_torch(tmp_path: Path) -> None:
    torch.manual_seed(0)
    model = DieFaceNet().eval()
    path = tmp_path / "m.onnx"
    export_onnx(model, path)
    inputs = torch.randn(8, 1, 64, 64)
    assert max_logit_difference(model, path, inputs) < 1e-4
    assert path.stat().st_size < 5_000_000


def test_cli_train_then_resume_on_a_tiny_dataset(synthetic_rune55: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    args = ["train", "--out", str(out), "--data", str(synthetic_rune55), "--threads", "1"]
    assert cli([*args, "--epochs", "1", "--quiet"]) == 0
    assert cli([*args, "--epochs", "2", "--quiet", "--resume"]) == 0
    assert sorted(p.name for p in out.glob("epoch-*.pt")) == ["epoch-001.pt", "epoch-002.pt"]
