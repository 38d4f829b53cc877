"""Train and export the cocked-die model (vision/cocked.py says why it exists).

    python -m models.cocked.train --out data/runs/cocked --trunk data/runs/dieface-gpu/best.pt
    python -m models.cocked.train --out data/runs/cocked --export models/cocked.onnx

Crops come from the synthetic tray generator (``models.synth``), many dice cocked, cut upright
as the runtime cuts them from jittered boxes; they are cached in ``data/synth-crops`` chunk by
chunk, so a stopped build resumes. Training (the chain's loop, models/training) checkpoints
every epoch and resumes from the last one; ``best.pt`` is the epoch with the fewest mistakes
on the valid crops (a missed cocked die counted twice: it is scored from a face that is not
on top, a needless flag costs the player a glance).
"""

from __future__ import annotations

import argparse
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch.nn import functional as F

from models.cocked.crops import TRAIN_SEED, VALID_SEED, load_crops, with_rendered
from models.cocked.net import CockedNet, augment
from models.common.datasets import DatasetError
from models.dieface import distil, spec
from models.dieface.net import DieFaceNet
from models.dieface.synth_crops import CropSet
from models.training import loop
from models.training.loop import Pick, Plan
from vision.errors import BadModelError

VERSION = "2.2.0"
MISSED_WEIGHT = 2  # a missed cocked die counts as two needless flags


def to_input(images: np.ndarray, size: int = spec.INPUT_SIZE) -> torch.Tensor:
    """uint8 (N, C, C, 3) crops → float (N, 3, S, S) in [0, 1], averaged down from the cut
    side C to the model's input side S (for S = C / 2, each pixel the mean of four: what
    the runtime's cv2.INTER_AREA gives)."""
    return downsized(torch.as_tensor(images).permute(0, 3, 1, 2).float() / 255.0, size)


def downsized(x: torch.Tensor, size: int) -> torch.Tensor:
    """A float (N, 3, C, C) batch averaged down to side ``size`` (as cv2.INTER_AREA)."""
    return x if x.shape[-1] == size else F.interpolate(x, size=(size, size), mode="area")


def standardise(x: torch.Tensor) -> torch.Tensor:
    return (x - spec.MEAN) / spec.STD


def predict(
    model: CockedNet, crops: CropSet, size: int = spec.INPUT_SIZE, batch: int = 512
) -> np.ndarray:
    """How likely each crop's die is cocked, by the model (input side ``size``) in eval
    mode."""
    model.eval()
    out = []
    with torch.no_grad():
        for i in range(0, len(crops), batch):
            x = standardise(to_input(crops.images[i : i + batch], size))
            slants = torch.as_tensor(crops.labels["slant"][i : i + batch])
            out.append(torch.softmax(model(x, slants), dim=1)[:, 1].numpy())
    return np.concatenate(out) if out else np.zeros(0)


def mistakes(probability: np.ndarray, cocked: np.ndarray, threshold: float) -> dict[str, Any]:
    """Missed cocked dice and flagged flat ones when flagging from ``threshold``."""
    flag = probability >= threshold
    missed, flagged = int((~flag & (cocked == 1)).sum()), int((flag & (cocked == 0)).sum())
    return {
        "threshold": round(float(threshold), 2),
        "cocked": int((cocked == 1).sum()),
        "flat": int((cocked == 0).sum()),
        "missed": missed,
        "flagged_flat": flagged,
        "cost": MISSED_WEIGHT * missed + flagged,
    }


def best_threshold(probability: np.ndarray, cocked: np.ndarray) -> dict[str, Any]:
    """The threshold (0.05 steps) with the lowest cost, and its mistakes."""
    rows = [mistakes(probability, cocked, t) for t in np.arange(0.05, 0.951, 0.05)]
    return min(rows, key=lambda r: (r["cost"], abs(r["threshold"] - 0.5)))


@dataclass
class Config:
    scenes: int = 2500
    valid_scenes: int = 300
    epochs: int = 12
    lr: float = 1e-3
    batch_size: int = 256
    weight_decay: float = 1e-4
    label_smoothing: float = 0.02
    threads: int = 2
    seed: int = 0
    wide_share: float = 0.5  # of scenes seen by a camera as wide as a Pi camera module's
    # the model's input side; crops are cut at spec.INPUT_SIZE and averaged down to it
    input_size: int = spec.INPUT_SIZE
    widths: tuple[int, int, int, int] = DieFaceNet.WIDTHS  # the trunk's channels
    # an exported cocked-die model that teaches (models/dieface/distil.py): with no other start the
    # net begins from its strongest filters, and learns its probabilities beside the labels
    teacher: str = ""
    temperature: float = 2.0
    rendered: list[str] = field(default_factory=list)  # rendered scene folders trained on too


def from_onnx(path: Path) -> CockedNet:
    """An exported cocked-die model as a torch net (see models/dieface/distil.py): a model whose
    checkpoint is gone can be fine-tuned. ValueError for a file that is not one."""
    convs, gemms = distil.onnx_layers(path)
    try:
        model = CockedNet(distil.trunk_widths(convs))
        distil.load_trunk(model.features, convs)
        distil.load_linear(model.head[1], gemms["head/head.1"])
        distil.load_linear(model.head[3], gemms["head/head.3"])
    except (KeyError, ValueError) as exc:
        raise ValueError(f"{path}: not a float cocked-die model ({exc!r})") from None
    return model


def slimmed(teacher: CockedNet, widths: tuple[int, int, int, int]) -> CockedNet:
    """A cocked-die net of ``widths`` started from the teacher's strongest filters
    (models/dieface/distil.py), its head reading the kept features and the two slant terms."""
    student = CockedNet(widths)
    kept = distil.slim_trunk(teacher.features, student.features)
    width = teacher.head[1].in_features - 2  # the pooled features; the slant terms follow
    inputs = torch.cat([kept, torch.tensor([width, width + 1])])
    student.head[1].weight.data = teacher.head[1].weight.data[:, inputs].clone()
    student.head[1].bias.data = teacher.head[1].bias.data.clone()
    student.head[3].load_state_dict(teacher.head[3].state_dict())
    return student


def load_net(path: Path) -> CockedNet:
    """The cocked-die net of a checkpoint, its widths those of the weights."""
    state = torch.load(path, map_location="cpu", weights_only=False)["model"]
    model = CockedNet(DieFaceNet.widths_of(state))
    model.load_state_dict(state)
    return model


def initial_model(
    trunk: Path | None,
    weights: Path | None = None,
    exported: Path | None = None,
    cfg: Config | None = None,
) -> CockedNet:
    """A fresh net, its trunk copied from a die-face checkpoint when given, or the whole of
    it from a cocked-die checkpoint (``weights``, to fine-tune) or an exported cocked-die
    model (``exported``); else, with ``cfg.teacher``, the teacher slimmed to ``cfg.widths``."""
    cfg = cfg or Config()
    model = CockedNet(cfg.widths)
    if exported is not None:
        model = from_onnx(exported)
    elif weights is not None:
        model = load_net(weights)
    elif cfg.teacher:
        model = slimmed(from_onnx(Path(cfg.teacher)), cfg.widths)
    elif trunk is not None:
        state = torch.load(trunk, map_location="cpu", weights_only=False)["model"]
        prefix = "features."
        model.features.load_state_dict(
            {k[len(prefix) :]: v for k, v in state.items() if k.startswith(prefix)}
        )
    return model


class CockedTask:
    """The cocked-die net's part of the training chain (models/training): whole batches of
    augmented crops (a teacher, when one teaches, reads them at the cut size, the net averaged
    down to its own), cross-entropy with a missed cocked die weighted ``MISSED_WEIGHT``; the
    epoch is picked by its valid cost at its best threshold."""

    pick = Pick("cost", lower_is_better=True)

    def __init__(self, model: CockedNet, train: CropSet, valid: CropSet, cfg: Config) -> None:
        self.model, self.train, self.valid, self.cfg = model, train, valid, cfg
        self.teacher = from_onnx(Path(cfg.teacher)).eval() if cfg.teacher else None
        self.steps_per_epoch = len(train) // cfg.batch_size
        if self.steps_per_epoch == 0:
            raise ValueError(f"fewer crops than one batch ({len(train)} < {cfg.batch_size})")
        self.generator = torch.Generator().manual_seed(cfg.seed)
        self.class_weights = torch.tensor([1.0, float(MISSED_WEIGHT)])
        self.labels = torch.as_tensor(train.labels["cocked"])
        self.slants = torch.as_tensor(train.labels["slant"])

    def batches(self, epoch: int) -> tuple[torch.Tensor, ...]:
        order = torch.randperm(len(self.train), generator=self.generator)
        return order[: self.steps_per_epoch * self.cfg.batch_size].split(self.cfg.batch_size)

    def loss(self, index: torch.Tensor) -> tuple[torch.Tensor, dict[str, float]]:
        # changed at the cut size and then averaged down, as the runtime cuts: the
        # teacher reads the cut-size crops it was made for, the net its own size
        cut = augment(to_input(self.train.images[index.numpy()]), self.generator)
        slants = self.slants[index]
        logits = self.model(standardise(downsized(cut, self.cfg.input_size)), slants)
        loss = F.cross_entropy(
            logits,
            self.labels[index],
            weight=self.class_weights,
            label_smoothing=self.cfg.label_smoothing,
        )
        if self.teacher is not None:
            with torch.no_grad():
                taught = self.teacher(standardise(cut), slants)
            loss = loss + distil.distillation_loss((logits,), (taught,), self.cfg.temperature)
        return loss, {}

    def scores(self, losses: list[float]) -> tuple[dict[str, Any], float]:
        probability = predict(self.model, self.valid, self.cfg.input_size)
        row = {
            "loss": losses[-1],
            "valid": best_threshold(probability, self.valid.labels["cocked"]),
        }
        return row, row["valid"]["cost"]

    def shown(self, row: dict[str, Any]) -> str:
        return f"valid {row['valid']}"

    def state(self) -> dict[str, Any]:
        return {"generator": self.generator.get_state()}

    def restore(self, state: dict[str, Any]) -> None:
        self.generator.set_state(state["generator"])


def fit(
    train: CropSet,
    valid: CropSet,
    out: Path,
    cfg: Config,
    trunk: Path | None = None,
    minutes: float = 0.0,
    progress: bool = True,
    weights: Path | None = None,
    exported: Path | None = None,
) -> dict[str, Any]:
    """Train through the chain (models/training) into ``out`` (a stopped run resumes after
    its last finished epoch), the epoch of lowest valid cost in ``best.pt``; returns the
    summary also written to ``summary.json``."""
    torch.set_num_threads(cfg.threads)
    torch.manual_seed(cfg.seed)
    model = initial_model(trunk, weights, exported, cfg)
    task = CockedTask(model, train, valid, cfg)
    plan = Plan(cfg.epochs, cfg.lr, cfg.weight_decay, minutes)
    about = {
        "train_crops": len(train),
        "config": asdict(cfg),
        "trunk": str(trunk) if trunk is not None else None,
        "weights": str(weights) if weights is not None else None,
        "exported": str(exported) if exported is not None else None,
        "minutes": minutes,
    }
    return loop.train(task, out, plan, about, progress=progress)


def main(argv: list[str] | None = None) -> int:
    """Train the cocked-die model (resuming a stopped run in --out), or --export its best
    epoch with a card.

    Long: the trainer's options, then the run they ask for."""
    from models.cocked.export import export, write_anchors
    from vision.recognise import COCKED_FROM

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--out", type=Path, default=Path("data/runs/cocked"), help="run folder")
    parser.add_argument("--trunk", type=Path, help="die-face checkpoint to start the trunk from")
    parser.add_argument("--weights", type=Path, help="cocked-die checkpoint to fine-tune")
    parser.add_argument(
        "--from-onnx", type=Path, metavar="ONNX", help="an exported cocked-die model to fine-tune"
    )
    parser.add_argument(
        "--teacher",
        type=Path,
        metavar="ONNX",
        help="an exported cocked-die model that teaches: the net starts from its strongest "
        "filters (unless another start is given) and learns its probabilities",
    )
    parser.add_argument(
        "--widths",
        type=int,
        nargs=4,
        metavar="W",
        help="the trunk's channels (default 16 32 64 128)",
    )
    parser.add_argument(
        "--input-size",
        type=int,
        default=Config.input_size,
        help=f"the model's input side: crops cut at {spec.INPUT_SIZE} px are averaged down to it",
    )
    parser.add_argument("--scenes", type=int, default=Config.scenes)
    parser.add_argument("--valid-scenes", type=int, default=Config.valid_scenes)
    parser.add_argument("--epochs", type=int, default=Config.epochs)
    parser.add_argument("--lr", type=float, default=Config.lr)
    parser.add_argument("--minutes", type=float, default=0.0, help="end when this time is spent")
    parser.add_argument("--threads", type=int, default=Config.threads)
    parser.add_argument(
        "--wide-share",
        type=float,
        default=Config.wide_share,
        help="share of scenes seen by a camera as wide as a Pi camera module's (0..1)",
    )
    parser.add_argument(
        "--rendered",
        type=Path,
        action="append",
        default=[],
        metavar="DIR",
        help="a folder of rendered scenes (yamscope render --engine blender) whose dice are "
        "trained on too, about a quarter of each epoch (repeat)",
    )
    parser.add_argument("--export", type=Path, metavar="ONNX", help="export --out's best epoch")
    parser.add_argument(
        "--anchors",
        type=Path,
        metavar="ONNX",
        help="write the anchors of an exported model beside it (export writes them too)",
    )
    parser.add_argument(
        "--evaluate",
        type=Path,
        action="append",
        metavar="DIR",
        help="with --export: a labelled synthetic folder to read through the pipeline for the "
        "card (repeat)",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    args = parser.parse_args(argv)
    for option, path in (("--trunk", args.trunk), ("--weights", args.weights)):
        if path is not None and not path.is_file():
            parser.error(f"{option} {path}: no such checkpoint")
    for option, path in (("--from-onnx", args.from_onnx), ("--teacher", args.teacher)):
        if path is not None:
            try:
                from_onnx(path)
            except (OSError, ValueError) as exc:
                parser.error(f"{option}: {exc}")
    if args.widths is not None and min(args.widths) < 1:
        parser.error(f"--widths are channel counts, 1 or more; not {args.widths}")
    if not 8 <= args.input_size <= spec.INPUT_SIZE:
        parser.error(f"--input-size is 8..{spec.INPUT_SIZE} pixels; not {args.input_size}")
    if args.anchors is not None:
        try:
            print(f"wrote {write_anchors(args.anchors, progress=not args.quiet)}")
        except BadModelError as exc:
            parser.error(f"--anchors: {exc}")
        return 0
    if args.export is not None and not (args.out / "best.pt").is_file():
        parser.error(f"{args.out}: no best.pt to export (train first)")
    for option, folders in (("--evaluate", args.evaluate or []), ("--rendered", args.rendered)):
        for folder in folders:
            if not (folder / "dataset.json").is_file():
                parser.error(
                    f"{option} {folder}: not a labelled synthetic folder (yamscope render)"
                )
    cfg = Config(
        scenes=args.scenes,
        valid_scenes=args.valid_scenes,
        epochs=args.epochs,
        lr=args.lr,
        threads=args.threads,
        wide_share=args.wide_share,
        rendered=[str(f) for f in args.rendered],
        input_size=args.input_size,
        widths=tuple(args.widths) if args.widths else DieFaceNet.WIDTHS,
        teacher=str(args.teacher) if args.teacher else "",
    )
    if not 0 <= cfg.wide_share <= 1:
        parser.error(f"--wide-share is a share of scenes, 0..1; not {cfg.wide_share}")
    progress = not args.quiet
    valid = load_crops(VALID_SEED, cfg.valid_scenes, cfg.threads, progress, cfg.wide_share)
    if args.export is not None:
        info = export(args.out, args.export, valid, COCKED_FROM, args.evaluate, progress)
        print(f"wrote {args.export} and its card: valid {info['metrics']['valid_crops']}")
        return 0
    train = load_crops(TRAIN_SEED, cfg.scenes, cfg.threads, progress, cfg.wide_share)
    try:
        train, valid = with_rendered(train, valid, args.rendered, progress)
    except DatasetError as error:
        parser.error(str(error))
    summary = fit(
        train,
        valid,
        args.out,
        cfg,
        args.trunk,
        args.minutes,
        progress,
        args.weights,
        args.from_onnx,
    )
    print(f"best epoch {summary['best']}; weights in {args.out / 'best.pt'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
