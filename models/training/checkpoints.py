"""The layout of a run folder, the same for every model: ``epoch-NNN.pt`` after each epoch
(all a resume needs), ``best.pt`` (the best epoch's CPU weights) and ``summary.json``."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import torch
from torch import nn

BEST = "best.pt"
SUMMARY = "summary.json"


def epoch_path(out: Path, epoch: int) -> Path:
    """Where the checkpoint of ``epoch`` lies in the run folder ``out``."""
    return out / f"epoch-{epoch:03d}.pt"


def latest_checkpoint(out: Path) -> Path | None:
    """The checkpoint of the last finished epoch in ``out``, if any."""
    found = sorted(out.glob("epoch-*.pt"))
    return found[-1] if found else None


def save(obj: dict[str, Any], path: Path) -> None:
    """Write then rename, so a run killed mid-write never leaves a torn checkpoint."""
    tmp = path.with_suffix(".tmp")
    torch.save(obj, tmp)
    os.replace(tmp, path)


def cpu_weights(model: nn.Module) -> dict[str, torch.Tensor]:
    """The weights as CPU tensors: a checkpoint loads anywhere, a GPU run's too."""
    return {k: v.detach().cpu() for k, v in model.state_dict().items()}


def write_summary(out: Path, summary: dict[str, Any]) -> None:
    """The run's summary as JSON, where the exporters read what the card says of the run."""
    (out / SUMMARY).write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
