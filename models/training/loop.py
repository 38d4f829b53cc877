"""The training loop every model shares: epochs of optimiser steps on the warmed-up cosine,
a progress bar, a checkpoint after each epoch that a stopped run resumes from, the best
epoch kept, and the run's summary."""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import torch
from torch import nn
from tqdm import tqdm

from models.training.checkpoints import (
    BEST,
    cpu_weights,
    epoch_path,
    latest_checkpoint,
    save,
    write_summary,
)
from models.training.schedule import Budget, Schedule


@dataclass(frozen=True)
class Plan:
    """How long a run lasts and how it learns; AdamW for every model."""

    epochs: int
    lr: float
    weight_decay: float = 1e-4
    minutes: float = 0.0  # > 0: the run ends when this time is spent, the schedule with it
    schedule: Schedule = field(default_factory=Schedule)


@dataclass(frozen=True)
class Pick:
    """Which number of an epoch's scores picks the best epoch, under which name ``best``
    records it, and which way is better."""

    name: str
    lower_is_better: bool = False

    @property
    def worst(self) -> float:
        return math.inf if self.lower_is_better else -1.0

    def better(self, value: float, than: float) -> bool:
        return value < than if self.lower_is_better else value > than


class Task(Protocol):
    """What one model brings to the chain: its net (on its device), its batches, its loss
    and its scores."""

    model: nn.Module
    steps_per_epoch: int
    pick: Pick

    def batches(self, epoch: int) -> Iterable[Any]:
        """The batches of ``epoch`` (1-based), ``steps_per_epoch`` of them."""
        ...

    def loss(self, batch: Any) -> tuple[torch.Tensor, dict[str, float]]:
        """The loss of one batch to step on, and any parts of it worth showing."""
        ...

    def scores(self, losses: list[float]) -> tuple[dict[str, Any], float]:
        """The epoch's row for the history (the net is trained; its steps' losses given)
        and the number ``pick`` reads."""
        ...

    def shown(self, row: dict[str, Any]) -> str:
        """The epoch's line in the log, after ``epoch N:``."""
        ...

    def state(self) -> dict[str, Any]:
        """What a resume needs beyond the net and the optimiser (a generator's state)."""
        ...

    def restore(self, state: dict[str, Any]) -> None:
        """Take back what :meth:`state` gave, from a checkpoint."""
        ...


def take_step(optimiser: torch.optim.Optimizer, loss: torch.Tensor) -> float:
    """One optimiser step on ``loss``; its value."""
    optimiser.zero_grad(set_to_none=True)
    loss.backward()
    optimiser.step()
    return float(loss.detach())


def train(
    task: Task,
    out: Path,
    plan: Plan,
    about: dict[str, Any] | None = None,
    resume: bool = True,
    progress: bool = True,
    device: str | torch.device = "cpu",
) -> dict[str, Any]:
    """Train ``task`` into ``out`` (after its last finished epoch there when ``resume``),
    checkpoint each epoch, keep the best epoch in ``best.pt``; returns the summary (best
    epoch, history, seconds, then ``about``) also written to ``summary.json`` after each
    epoch.

    Long: the loop, its checkpoints and its picking of the epoch in one piece."""
    out.mkdir(parents=True, exist_ok=True)
    model, pick = task.model, task.pick
    optimiser = torch.optim.AdamW(
        [p for p in model.parameters() if p.requires_grad],
        lr=plan.lr,
        weight_decay=plan.weight_decay,
    )
    budget = Budget(task.steps_per_epoch * plan.epochs, plan.minutes)
    history: list[dict[str, Any]] = []
    best: dict[str, Any] = {"epoch": 0, pick.name: pick.worst}
    start, step = 0, 0
    checkpoint = latest_checkpoint(out) if resume else None
    if checkpoint is not None:
        state = torch.load(checkpoint, map_location=device, weights_only=False)
        model.load_state_dict(state["model"])
        optimiser.load_state_dict(state["optimiser"])
        task.restore(state)
        history, best, start, step = state["history"], state["best"], state["epoch"], state["step"]
        print(f"resuming after epoch {start} from {checkpoint}", file=sys.stderr)

    def summary() -> dict[str, Any]:
        seconds = sum(r["seconds"] for r in history)
        return {"best": best, "history": history, "train_seconds": seconds, **(about or {})}

    for epoch in range(start + 1, plan.epochs + 1):
        if budget.spent():
            print(f"time budget of {plan.minutes} min spent", file=sys.stderr)
            break
        began = time.perf_counter()
        model.train()
        bar = tqdm(
            task.batches(epoch),
            f"epoch {epoch}/{plan.epochs}",
            task.steps_per_epoch,
            leave=False,
            disable=not progress,
        )
        losses: list[float] = []
        for batch in bar:
            for group in optimiser.param_groups:
                group["lr"] = plan.lr * plan.schedule.factor(budget, step)
            loss, parts = task.loss(batch)
            losses.append(take_step(optimiser, loss))
            step += 1
            shown = {k: f"{v:.3f}" for k, v in parts.items()}
            bar.set_postfix(loss=f"{np.mean(losses[-20:]):.3f}", **shown)
            if budget.spent():
                break
        row, value = task.scores(losses)
        row = {"epoch": epoch, **row, "seconds": time.perf_counter() - began}
        history.append(row)
        print(f"epoch {epoch}: {task.shown(row)}", file=sys.stderr, flush=True)
        if pick.better(value, best[pick.name]):
            best = {"epoch": epoch, pick.name: value}
            save({"model": cpu_weights(model), "epoch": epoch, "row": row}, out / BEST)
        state = {"model": cpu_weights(model), "optimiser": optimiser.state_dict()}
        state |= {"history": history, "best": best, "epoch": epoch, "step": step}
        save(state | task.state(), epoch_path(out, epoch))
        write_summary(out, summary())
    result = summary()
    write_summary(out, result)
    return result
