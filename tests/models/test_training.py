"""The training chain the three models share (models/training): its schedule, its loop that
checkpoints and resumes, its ONNX export checked against onnxruntime, and its card fields.
Needs the `train` extra (fails without it, as tests/models/test_train.py explains)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
import torch
from torch import nn

from models.training import loop
from models.training.card import count_parameters, export_fields, header, write_card
from models.training.checkpoints import BEST, SUMMARY, latest_checkpoint
from models.training.loop import Pick, Plan
from models.training.onnx_export import (
    OPSET,
    export_onnx,
    max_difference,
    require_agreement,
)
from models.training.schedule import Budget, Schedule


class LineTask:
    """A line fitted to y = 2x: the smallest task the chain can run."""

    steps_per_epoch = 4

    def __init__(self, lower_is_better: bool = True) -> None:
        torch.manual_seed(0)
        self.model = nn.Linear(1, 1)
        self.pick = Pick("error", lower_is_better)
        self.generator = torch.Generator().manual_seed(0)
        self.restored: dict[str, Any] = {}

    def batches(self, epoch: int) -> list[torch.Tensor]:
        return [torch.rand(8, 1, generator=self.generator) for _ in range(self.steps_per_epoch)]

    def loss(self, x: torch.Tensor) -> tuple[torch.Tensor, dict[str, float]]:
        return nn.functional.mse_loss(self.model(x), 2 * x), {}

    def scores(self, losses: list[float]) -> tuple[dict[str, Any], float]:
        return {"loss": losses[-1]}, losses[-1]

    def shown(self, row: dict[str, Any]) -> str:
        return f"loss {row['loss']:.3f}"

    def state(self) -> dict[str, Any]:
        return {"generator": self.generator.get_state()}

    def restore(self, state: dict[str, Any]) -> None:
        self.generator.set_state(state["generator"])
        self.restored = state


def test_the_schedules_warm_up_by_share_or_by_steps_then_decay_to_zero() -> None:
    budget = Budget(100)
    plain, by_share, by_steps = Schedule(), Schedule(warm_share=0.1), Schedule(warm_steps=10)
    assert plain.factor(budget, 0) == 1.0 and plain.factor(budget, 50) == pytest.approx(0.5)
    assert by_share.factor(budget, 5) == pytest.approx(0.5)  # halfway through its warm-up
    assert by_share.factor(budget, 10) == pytest.approx(1.0)
    assert by_steps.factor(budget, 4) == pytest.approx(0.5 * 0.5 * (1 + math.cos(0.04 * math.pi)))
    for schedule in (plain, by_share, by_steps):
        assert schedule.factor(budget, 100) == pytest.approx(0.0)


def test_the_best_epoch_is_picked_either_way() -> None:
    lowest, highest = Pick("cost", lower_is_better=True), Pick("f1")
    assert lowest.better(1.0, lowest.worst) and not lowest.better(2.0, 1.0)
    assert highest.better(0.0, highest.worst) and highest.better(0.5, 0.4)


def test_the_loop_checkpoints_each_epoch_keeps_the_best_and_resumes(tmp_path: Path) -> None:
    about = {"config": {"what": "a line"}}
    first = loop.train(LineTask(), tmp_path, Plan(epochs=1, lr=0.1), about, progress=False)
    assert [r["epoch"] for r in first["history"]] == [1] and first["config"] == about["config"]
    assert latest_checkpoint(tmp_path) == tmp_path / "epoch-001.pt"
    best = torch.load(tmp_path / BEST, weights_only=False)
    assert set(best) == {"model", "epoch", "row"} and best["row"] == first["history"][0]
    task = LineTask()
    second = loop.train(task, tmp_path, Plan(epochs=3, lr=0.1), about, progress=False)
    assert [r["epoch"] for r in second["history"]] == [1, 2, 3]  # epoch 1 kept, not redone
    assert second["history"][0] == first["history"][0] and task.restored["step"] == 4
    assert json.loads((tmp_path / SUMMARY).read_text(encoding="utf-8"))["best"] == second["best"]
    state = torch.load(tmp_path / "epoch-003.pt", weights_only=False)
    assert state["step"] == 12 and {"model", "optimiser", "history", "generator"} <= set(state)
    again = loop.train(LineTask(), tmp_path / "fresh", Plan(epochs=1, lr=0.1), resume=False)
    assert again["history"][0]["loss"] == first["history"][0]["loss"]  # seeded alike


def test_the_learning_rate_follows_the_schedule(tmp_path: Path) -> None:
    seen: list[float] = []
    original = torch.optim.AdamW.step

    def stepping(self: torch.optim.AdamW, *args: Any, **kwargs: Any) -> Any:
        seen.append(self.param_groups[0]["lr"])
        return original(self, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(torch.optim.AdamW, "step", stepping)
        loop.train(LineTask(), tmp_path, Plan(epochs=2, lr=0.1), progress=False)
    budget = Budget(8)
    assert seen == pytest.approx([0.1 * Schedule().factor(budget, s) for s in range(8)])


class TwoInputs(nn.Module):
    def forward(self, x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return x * 2 + y, x.sum(1, keepdim=True)


def test_an_export_with_two_inputs_agrees_with_torch_and_a_card_is_written(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "two.onnx"
    inputs = {"x": torch.randn(1, 3), "y": torch.randn(1, 3)}
    export_onnx(TwoInputs(), inputs, ["double", "total"], path)
    batch = {"x": torch.randn(5, 3), "y": torch.randn(5, 3)}  # the batch is free
    assert max_difference(TwoInputs(), path, batch) < 1e-6
    require_agreement({"random": 1e-6})
    with pytest.raises(SystemExit, match="disagree"):
        require_agreement(0.5)
    model = nn.Linear(3, 2)
    card = header("two", "1.0.0", "a test", path, count_parameters(model))
    card |= {"export": export_fields(1e-6)}
    written = write_card(path, card)
    assert written == tmp_path / "deep" / "two.json"
    read = json.loads(written.read_text(encoding="utf-8"))
    assert read["parameters"] == 8 and read["size_bytes"] == path.stat().st_size
    assert read["export"]["opset"] == OPSET
    assert read["export"]["max_abs_logit_difference_torch_vs_onnxruntime"] == 1e-6
