"""Train the die-face CNN on Rune55's train split; pick the epoch on its valid split.

Dice lie at any angle and the camera sees them at varying size, offset and light, so every
batch is augmented on the fly (rotation by any angle, mirror, small scale and shift,
brightness and contrast) with one vectorised ``grid_sample`` — cheap on a two-core machine.
Each epoch writes a checkpoint (model, optimiser, schedule, history) so a stopped run resumes
where it stopped, and ``best.pt`` keeps the weights of the epoch with the best valid accuracy.
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from tqdm import tqdm

from models.net import DieFaceNet, normalise
from models.spec import MEAN, STD


@dataclass
class TrainConfig:
    """The knobs of one run; stored in every checkpoint so a resume uses the same ones."""

    epochs: int = 12
    batch_size: int = 128
    lr: float = 3e-3
    weight_decay: float = 1e-4
    label_smoothing: float = 0.05
    seed: int = 0
    threads: int = 2
    max_scale: float = 0.10  # crops are scaled by 1 ± this
    max_shift: float = 0.05  # and shifted by up to this fraction of the crop
    contrast: float = 1.25  # contrast is multiplied by a factor in [1 / this, this]
    brightness: float = 0.1  # brightness is shifted by up to ± this (pixels in [0, 1])
    max_noise: float = 0.02  # Gaussian noise with a standard deviation up to this
    extra: dict[str, Any] = field(default_factory=dict)


def augment(images: torch.Tensor, generator: torch.Generator, cfg: TrainConfig) -> torch.Tensor:
    """Random rotation (any angle), mirror, scale, shift, brightness and contrast.

    ``images``: (N, H, W) uint8 → (N, 1, H, W) float in [0, 1]. Pips of a d6 face are the
    same value mirrored, so a mirror is a fair augmentation; the border is reflected so the
    rotated corners look like table rather than black.
    """
    n = images.shape[0]
    x = images.float().unsqueeze(1) / 255.0

    def uniform(low: float, high: float) -> torch.Tensor:
        return torch.rand(n, generator=generator) * (high - low) + low

    angle = uniform(0.0, 2 * math.pi)
    scale = uniform(1 - cfg.max_scale, 1 + cfg.max_scale)
    mirror = torch.where(torch.rand(n, generator=generator) < 0.5, -1.0, 1.0)
    cos, sin = torch.cos(angle) / scale, torch.sin(angle) / scale
    theta = torch.zeros(n, 2, 3)
    theta[:, 0, 0], theta[:, 0, 1] = cos * mirror, -sin
    theta[:, 1, 0], theta[:, 1, 1] = sin * mirror, cos
    theta[:, 0, 2] = uniform(-2 * cfg.max_shift, 2 * cfg.max_shift)  # grid spans [-1, 1]
    theta[:, 1, 2] = uniform(-2 * cfg.max_shift, 2 * cfg.max_shift)
    grid = F.affine_grid(theta, list(x.shape), align_corners=False)
    x = F.grid_sample(x, grid, mode="bilinear", padding_mode="reflection", align_corners=False)
    contrast = uniform(1 / cfg.contrast, cfg.contrast).view(n, 1, 1, 1)
    brightness = uniform(-cfg.brightness, cfg.brightness).view(n, 1, 1, 1)
    mean = x.mean(dim=(2, 3), keepdim=True)
    x = (x - mean) * contrast + mean + brightness
    x = x + torch.randn(x.shape, generator=generator) * uniform(0.0, cfg.max_noise).view(n, 1, 1, 1)
    return x.clamp(0.0, 1.0)


def train_step(
    model: nn.Module,
    optimiser: torch.optim.Optimizer,
    images: torch.Tensor,
    labels: torch.Tensor,
    generator: torch.Generator,
    cfg: TrainConfig,
) -> tuple[float, int]:
    """One optimiser step on an augmented batch; returns (loss, number right)."""
    model.train()
    x = (augment(images, generator, cfg) - MEAN) / STD  # as normalise() does
    logits = model(x)
    loss = F.cross_entropy(logits, labels, label_smoothing=cfg.label_smoothing)
    optimiser.zero_grad(set_to_none=True)
    loss.backward()
    optimiser.step()
    return float(loss.detach()), int((logits.argmax(1) == labels).sum())


@torch.no_grad()
def predict(model: nn.Module, images: np.ndarray, batch_size: int = 512) -> np.ndarray:
    """Class indices (0..5) for uint8 crops (N, H, W), in eval mode."""
    model.eval()
    out = [
        model(normalise(images[i : i + batch_size])).argmax(1).numpy()
        for i in range(0, len(images), batch_size)
    ]
    return np.concatenate(out) if out else np.zeros(0, dtype=np.int64)


def _save(obj: dict[str, Any], path: Path) -> None:
    """Write then rename, so a run killed mid-write never leaves a torn checkpoint."""
    tmp = path.with_suffix(".tmp")
    torch.save(obj, tmp)
    os.replace(tmp, path)


def latest_checkpoint(out: Path) -> Path | None:
    """The checkpoint of the last finished epoch in ``out``, if any."""
    found = sorted(out.glob("epoch-*.pt"))
    return found[-1] if found else None


def _schedule(total_steps: int) -> Any:
    """Linear warm-up over 3 % of the steps, then cosine decay to zero."""
    warm = max(1, total_steps // 33)

    def factor(step: int) -> float:
        if step < warm:
            return (step + 1) / warm
        return 0.5 * (1 + math.cos(math.pi * min(1.0, (step - warm) / max(1, total_steps - warm))))

    return factor


def fit(
    train_images: np.ndarray,
    train_labels: np.ndarray,
    valid: dict[str, tuple[np.ndarray, np.ndarray]],
    out: Path,
    cfg: TrainConfig,
    resume: bool = False,
    progress: bool = True,
) -> dict[str, Any]:
    """Train, checkpoint each epoch into ``out``, keep the best by ``valid['valid']``.

    ``valid`` maps a name to (images, labels); each is scored after every epoch and logged, the
    one named ``valid`` picks the epoch. Returns the summary also written to ``summary.json``.
    """
    torch.set_num_threads(cfg.threads)
    torch.manual_seed(cfg.seed)
    out.mkdir(parents=True, exist_ok=True)
    model = DieFaceNet()
    optimiser = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    steps_per_epoch = math.ceil(len(train_labels) / cfg.batch_size)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimiser, _schedule(steps_per_epoch * cfg.epochs)
    )
    generator = torch.Generator().manual_seed(cfg.seed)
    history: list[dict[str, Any]] = []
    start_epoch, best = 0, {"epoch": 0, "valid_accuracy": -1.0}
    checkpoint = latest_checkpoint(out) if resume else None
    if checkpoint is not None:
        state = torch.load(checkpoint, weights_only=False)
        model.load_state_dict(state["model"])
        optimiser.load_state_dict(state["optimiser"])
        scheduler.load_state_dict(state["scheduler"])
        generator.set_state(state["generator"])
        history, best, start_epoch = state["history"], state["best"], state["epoch"]
        print(f"resuming after epoch {start_epoch} from {checkpoint}", file=sys.stderr)
    images = torch.as_tensor(train_images)
    labels = torch.as_tensor(train_labels, dtype=torch.int64)
    for epoch in range(start_epoch + 1, cfg.epochs + 1):
        began = time.perf_counter()
        order = torch.randperm(len(labels), generator=generator)
        batches = order.split(cfg.batch_size)
        bar = tqdm(batches, desc=f"epoch {epoch}/{cfg.epochs}", disable=not progress, leave=False)
        total_loss, right = 0.0, 0
        for index in bar:
            loss, hits = train_step(model, optimiser, images[index], labels[index], generator, cfg)
            scheduler.step()
            total_loss += loss * len(index)
            right += hits
            bar.set_postfix(loss=f"{loss:.3f}")
        row: dict[str, Any] = {
            "epoch": epoch,
            "train_loss": total_loss / len(labels),
            "train_accuracy_augmented": right / len(labels),
        }
        for name, (x, y) in valid.items():
            row[f"{name}_accuracy"] = float((predict(model, x) == y).mean()) if len(y) else None
        row["seconds"] = time.perf_counter() - began
        history.append(row)
        shown = ", ".join(f"{k} {v:.4f}" for k, v in row.items() if isinstance(v, float))
        print(f"epoch {epoch}: {shown}", file=sys.stderr)
        if row.get("valid_accuracy", 0.0) > best["valid_accuracy"]:
            best = {"epoch": epoch, "valid_accuracy": row["valid_accuracy"]}
            _save({"model": model.state_dict(), "epoch": epoch, "row": row}, out / "best.pt")
        _save(
            {
                "model": model.state_dict(),
                "optimiser": optimiser.state_dict(),
                "scheduler": scheduler.state_dict(),
                "generator": generator.get_state(),
                "history": history,
                "best": best,
                "epoch": epoch,
                "config": cfg.__dict__,
            },
            out / f"epoch-{epoch:03d}.pt",
        )
    summary = {
        "best": best,
        "history": history,
        "train_seconds": sum(r["seconds"] for r in history),
        "config": cfg.__dict__,
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    return summary


def train_rune55(
    out: Path,
    data: Path | None = None,
    cfg: TrainConfig | None = None,
    resume: bool = False,
    progress: bool = True,
) -> dict[str, Any]:
    """Train on Rune55's train split; score valid (all, and sources unseen in train) per epoch."""
    from models.photos import load_splits, unseen_mask

    cfg = cfg or TrainConfig()
    splits = load_splits(data, splits=("train", "valid"))
    train, valid = splits["train"], splits["valid"]
    unseen = valid.subset(unseen_mask(valid, train))
    return fit(
        train.images,
        train.labels,
        {"valid": (valid.images, valid.labels), "valid_unseen": (unseen.images, unseen.labels)},
        out,
        cfg,
        resume=resume,
        progress=progress,
    )
