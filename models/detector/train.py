"""Train the dice detector (``models/detector/net.py``) on real photos + synthetic scenes.

    python -m models.detector.train --minutes 30          # train (resumes data/runs/detector)
    python -m models.detector.train --from-onnx models/dicefind.onnx --lr 1e-3   # fine-tune
    python -m models.detector.train --prepare-only        # only build the data caches

Data, cached letterboxed (``vision.detect.letterbox``, long side 256, padded to 256x256) in the
git-ignored ``data/detector/``:
- Rune55 v3 d6 photos (train split for training, valid for picking the epoch); their boxes hug
  the top face of each die;
- the colour photos of ``roboflow-dice-d6`` (train; valid for picking the epoch), a board
  game's dice among its pieces and tiles, ``COLOUR_SHARE`` of the photos drawn;
- synthetic trays from ``models.synth.random_scene`` (d6, d10 or both, 640x480), boxes of the
  whole visible die. Training scenes use seeds from ``SYNTH_TRAIN_SEED``, validation from
  ``SYNTH_VALID_SEED``; the evaluation (``models.detector.eval``) uses ``SYNTH_TEST_SEED``.

Each epoch is ``--steps`` batches, half photos and half synthetic (a quarter of the batch
from rendered scene folders when ``--scenes`` names some: Blender's photoreal dice; another
share with ``--scene-share``), augmented (90° turns, flips, scale and shift,
brightness/contrast/colour, hue, grey, blur, noise), and half of them given hard negatives:
game tokens, screws, specks, tiles, edges and dice's hard shadows (models/detector/distractors.py).
After each epoch the model is checked on the validation sets (F1 at IoU 0.5; the rendered
scenes' tenth too) and the chain's run folder (models/training: ``epoch-NNN.pt``,
``best.pt``, ``summary.json``) is written to ``data/runs/detector/`` (``--out``); a new run
resumes after its last epoch there, or starts from another run's weights with ``--weights``.
On a GPU: ``--device cuda --workers N`` (N processes draw the augmented batches) and
``--minutes M`` (the learning rate's cosine ends with the time); ``models/gpu/run.sh`` is how
1.3 and 1.4 were trained.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import torch

from models.common.norms import restore_norms
from models.detector.data import (
    REPO,
    SCENE_SHARE,
    SYNTH_TRAIN_SEED,
    SYNTH_VALID_SEED,
    Batches,
    Set,
    draw_batch,
    load_photos,
    load_scenes,
    load_synth,
    roboflow_root,
)
from models.detector.net import (
    DiceNet,
    detector_loss,
    from_onnx,
)
from models.training import loop
from models.training.card import count_parameters
from models.training.loop import Pick, Plan
from models.training.schedule import Schedule
from vision.detect import decode, to_tensor

RUN_DIR = REPO / "data" / "runs" / "detector"


# -------------------------------------------------------------------------------- metrics


def iou_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if len(a) == 0 or len(b) == 0:
        return np.zeros((len(a), len(b)), np.float32)
    x0 = np.maximum(a[:, None, 0], b[None, :, 0])
    y0 = np.maximum(a[:, None, 1], b[None, :, 1])
    x1 = np.minimum(a[:, None, 2], b[None, :, 2])
    y1 = np.minimum(a[:, None, 3], b[None, :, 3])
    inter = np.clip(x1 - x0, 0, None) * np.clip(y1 - y0, 0, None)
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    return inter / np.maximum(area_a[:, None] + area_b[None] - inter, 1e-9)


def match(pred: np.ndarray, truth: np.ndarray, iou: float = 0.5) -> int:
    """True positives: greedy one-to-one matching of predictions (best score first) to truth."""
    m = iou_matrix(pred, truth)
    used = np.zeros(len(truth), bool)
    tp = 0
    for i in range(len(pred)):
        if not len(truth):
            break
        row = np.where(used, -1.0, m[i])
        j = int(np.argmax(row))
        if row[j] >= iou:
            used[j] = True
            tp += 1
    return tp


def counts_to_scores(tp: int, n_pred: int, n_true: int) -> dict[str, float]:
    precision = tp / n_pred if n_pred else 1.0
    recall = tp / n_true if n_true else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": precision, "recall": recall, "f1": f1, "tp": tp, "pred": n_pred,
            "true": n_true}  # fmt: skip


@torch.no_grad()
def predict_set(model: DiceNet, data: Set, batch_size: int = 16) -> list[tuple]:
    """The raw maps of every cached image (heatmap, size, offset) as numpy."""
    model.eval()
    device = next(model.parameters()).device
    out = []
    for start in range(0, len(data), batch_size):
        x = np.concatenate([to_tensor(im) for im in data.images[start : start + batch_size]])
        heat, size, offset = (t.cpu() for t in model(torch.from_numpy(x).to(device)))
        for i in range(len(heat)):
            out.append((heat[i, 0].numpy(), size[i].numpy(), offset[i].numpy()))
    return out


def score_maps(maps: list[tuple], data: Set, threshold: float) -> dict[str, float]:
    tp = n_pred = n_true = 0
    for (heat, size, offset), truth in zip(maps, data.boxes, strict=True):
        found = decode(heat, size, offset, 1.0, threshold)
        pred = np.asarray([b for b, _ in found], np.float32).reshape(-1, 4)
        tp += match(pred, truth)
        n_pred += len(pred)
        n_true += len(truth)
    return counts_to_scores(tp, n_pred, n_true)


# ------------------------------------------------------------------------------- training


WARM_UP = Schedule(warm_steps=50)  # the cosine, its first 50 steps warmed up linearly


class DetectorTask:
    """The detector's part of the training chain (models/training): ``args.steps`` batches
    an epoch drawn by ``args.workers`` processes (seeded by the epoch the run starts at),
    the detector's loss, and the epoch picked by the mean F1 of the validation sets at the
    threshold whose F1s sum highest."""

    pick = Pick("f1")

    def __init__(
        self,
        args: argparse.Namespace,
        model: DiceNet,
        train: dict[str, Any],
        checks: dict[str, Set],
        device: torch.device,
    ) -> None:
        self.args, self.model, self.device = args, model, device
        self.train, self.checks = train, checks
        self.steps_per_epoch = args.steps
        self.stream: Iterator[Any] | None = None
        self.started = time.monotonic()

    def batches(self, epoch: int) -> Iterator[Any]:
        if self.stream is None:  # one stream for the run, seeded where it starts
            args, train = self.args, self.train
            drawn = Batches(
                train["photos"], train["synth"], args.batch, args.crop, seed=1000 + epoch - 1,
                scenes=train["scenes"], scene_share=args.scene_share, colour=train["colour"],
            )  # fmt: skip
            self.stream = iter(
                torch.utils.data.DataLoader(
                    drawn, batch_size=None, num_workers=args.workers,
                    pin_memory=self.device.type == "cuda", persistent_workers=args.workers > 0,
                )
            )  # fmt: skip
        return (next(self.stream) for _ in range(self.steps_per_epoch))

    def loss(self, batch: Any) -> tuple[torch.Tensor, dict[str, float]]:
        x, targets = batch
        x = x.to(self.device, non_blocking=True)
        targets = {k: v.to(self.device, non_blocking=True) for k, v in targets.items()}
        return detector_loss(self.model(x), targets)

    def scores(self, losses: list[float]) -> tuple[dict[str, Any], float]:
        scores, t_best, f1 = _validate(self.model, self.checks)
        row = {
            "loss": float(np.mean(losses)), "threshold": t_best, **scores[t_best], "f1": f1,
            "minutes": (time.monotonic() - self.started) / 60,
        }  # fmt: skip
        return row, f1

    def shown(self, row: dict[str, Any]) -> str:
        sets = "  ".join(
            f"{name} P {row[name]['precision']:.3f} R {row[name]['recall']:.3f}"
            for name in self.checks
        )
        return f"loss {row['loss']:.3f}  t={row['threshold']}  {sets}"

    def state(self) -> dict[str, Any]:
        return {}

    def restore(self, state: dict[str, Any]) -> None:
        """Nothing beyond the net and the optimiser: the stream is seeded by the epoch."""


def train(args: argparse.Namespace) -> dict[str, Any]:
    """Train the detector through the chain (models/training) into ``args.out``, resuming
    there unless ``--fresh``: load the sets, start the net, then the chain's epochs."""
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    device = torch.device(args.device)
    sets = {
        "photos": load_photos("train"),
        "colour": load_photos("train", roboflow_root(), name="roboflow"),
        "synth": load_synth("train", SYNTH_TRAIN_SEED, args.synth, args.workers),
    }
    checks = {
        "photos": load_photos("valid", limit=args.valid_photos),
        "colour": load_photos("valid", roboflow_root(), name="roboflow"),
        "synth": load_synth("valid", SYNTH_VALID_SEED, args.valid_synth, args.workers),
    }
    roots = [Path(r) for r in args.scenes]
    sets["scenes"] = load_scenes(roots, "train") if roots else None
    valid_scenes = load_scenes(roots, "valid") if roots else None
    if valid_scenes is not None and len(valid_scenes):
        checks["rendered"] = valid_scenes
    print(f"train: {len(sets['photos'])} + {len(sets['colour'])} photos, {len(sets['synth'])} "
          f"synthetic, {len(sets['scenes'] or ())} rendered; valid: {len(checks['photos'])} + "
          f"{len(checks['colour'])} photos, {len(checks['synth'])} synthetic, "
          f"{len(valid_scenes or ())} rendered")  # fmt: skip
    model = initial_model(args, sets)
    print(f"parameters: {count_parameters(model)}")
    task = DetectorTask(args, model.to(device), sets, checks, device)
    plan = Plan(args.epochs, args.lr, minutes=args.minutes, schedule=WARM_UP)
    about = {"config": vars(args)}
    return loop.train(task, Path(args.out), plan, about, resume=not args.fresh, device=device)


def initial_model(args: argparse.Namespace, sets: dict[str, Any]) -> DiceNet:
    """What the run starts from (a resume overrides it): --weights, --from-onnx (its norms
    restored on a few batches) or a fresh net."""
    model = DiceNet()
    if args.weights:
        model.load_state_dict(
            torch.load(args.weights, map_location="cpu", weights_only=False)["model"]
        )
        print(f"starting from the weights of {args.weights}")
    elif args.from_onnx:
        model = from_onnx(Path(args.from_onnx))
        rng = np.random.default_rng(999)
        samples = [draw_batch(sets["photos"], sets["synth"], args.batch, args.crop, rng,
                              sets["scenes"], args.scene_share, sets["colour"])[0]
                   for _ in range(8)]  # fmt: skip
        restore_norms(model, samples)
        print(f"starting from the exported model {args.from_onnx}")
    return model


def _validate(model: DiceNet, checks: dict[str, Any]) -> tuple[dict, float, float]:
    """Each validation set scored at four thresholds; (scores, the threshold whose F1s sum
    highest, their mean F1 there)."""
    maps = {name: predict_set(model, data) for name, data in checks.items()}
    scores = {
        t: {name: score_maps(maps[name], data, t) for name, data in checks.items()}
        for t in (0.2, 0.3, 0.4, 0.5)
    }
    t_best = max(scores, key=lambda t: sum(s["f1"] for s in scores[t].values()))
    f1 = float(np.mean([s["f1"] for s in scores[t_best].values()]))
    return scores, t_best, f1


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--epochs", type=int, default=15, help="planned epochs (LR schedule)")
    parser.add_argument("--steps", type=int, default=100, help="batches per epoch")
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--crop", type=int, default=192, help="training window (multiple of 32)")
    parser.add_argument("--synth", type=int, default=600, help="synthetic training scenes")
    parser.add_argument("--valid-photos", type=int, default=300)
    parser.add_argument("--valid-synth", type=int, default=100)
    parser.add_argument("--minutes", type=float, default=0, help="stop after this (0: no limit)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--device", default="cpu", help="torch device: cpu, or cuda on a GPU")
    parser.add_argument(
        "--workers",
        type=int,
        default=0,
        help="processes drawing batches and synthetic scenes (0: inline)",
    )
    parser.add_argument(
        "--scenes",
        action="append",
        default=[],
        metavar="DIR",
        help="a folder of rendered scenes (yamscope render --engine blender): a quarter of "
        "each batch, its held-out tenth checked each epoch; repeat for more folders",
    )
    parser.add_argument(
        "--scene-share",
        type=float,
        default=SCENE_SHARE,
        help="share of the synthetic half of each batch drawn from --scenes (default "
        f"{SCENE_SHARE}: a quarter of the batch; 0.25 kept a real tray's corner from being "
        "taken for a die, docs/photoreal.md)",
    )
    parser.add_argument("--out", default=str(RUN_DIR), help="run folder (epoch-NNN.pt, best.pt)")
    parser.add_argument("--weights", help="start from this checkpoint's weights (new schedule)")
    parser.add_argument(
        "--from-onnx", metavar="ONNX", help="start from an exported detector (its checkpoint gone)"
    )
    parser.add_argument(
        "--fresh", action="store_true", help="start afresh: ignore the run folder's checkpoints"
    )
    parser.add_argument("--prepare-only", action="store_true")
    args = parser.parse_args(argv)
    if args.prepare_only:
        load_photos("train")
        load_photos("valid")
        load_photos("test")
        load_photos("train", roboflow_root(), name="roboflow")
        load_photos("valid", roboflow_root(), name="roboflow")
        load_synth("train", SYNTH_TRAIN_SEED, args.synth, args.workers)
        load_synth("valid", SYNTH_VALID_SEED, args.valid_synth, args.workers)
        return
    train(args)


if __name__ == "__main__":
    main()
