"""`yamscope train` (lab): train or fine-tune the die-face model (needs torch)."""

from __future__ import annotations

import argparse
from pathlib import Path

from device.cli.common import Commands, UsageError, add_look_flags, ask_looks

# The crops' sides a run may ask for: below 32 px the net's three poolings leave nothing of a
# numeral; above 256 px a crop costs sixteen 64 px ones.
MIN_SIDE, MAX_SIDE = 32, 256


def register(sub: Commands) -> None:
    """The ``train`` command and its options, in the order ``--help`` lists them."""
    trn = sub.add_parser(
        "train",
        help="train the die-face classifier on synthetic crops and Rune55 (needs torch)",
        description="Train the die-face CNN on synthetic crops (cached in data/) and the Rune55 "
        "train split, pick the epoch by Rune55 valid and synthetic valid; or, with "
        "--from-corrections, fine-tune a checkpoint on crops corrected on the appliance. "
        "A checkpoint per epoch in OUT, best weights in OUT/best.pt.",
    )
    _run_options(trn)
    _source_options(trn)
    trn.add_argument("--device", default="cpu", help="torch device: cpu, or cuda on a GPU")
    trn.add_argument(
        "--minutes", type=float, default=0.0, help="stop after this; the schedule ends there"
    )
    trn.add_argument("--quiet", action="store_true", help="no progress bar")
    add_look_flags(trn)
    trn.set_defaults(func=cmd_train)


def _run_options(trn: argparse.ArgumentParser) -> None:
    """Where the checkpoints go, how long, how many scenes and crops, the learning rate."""
    trn.add_argument("--out", required=True, metavar="DIR", help="checkpoints go here")
    trn.add_argument("--epochs", type=int, default=12)
    trn.add_argument("--resume", action="store_true", help="continue after the last checkpoint")
    trn.add_argument("--data", metavar="DIR", help="the rune55-d6 folder (default ../shared)")
    trn.add_argument("--seed", type=int, default=0)
    trn.add_argument("--threads", type=int, default=2, help="torch CPU threads")
    trn.add_argument(
        "--synthetic",
        type=int,
        metavar="SCENES",
        help="synthetic training scenes, about 7 dice each (default 6000; 300 to fine-tune)",
    )
    trn.add_argument(
        "--epoch-crops",
        type=int,
        metavar="N",
        help="crops drawn at random for each epoch (default: all; shorter epochs, more checks)",
    )
    trn.add_argument(
        "--input-size",
        type=int,
        metavar="PX",
        help="the crops' side in pixels, every source cut at it (default 64; larger keeps "
        "more of a slanted d10's top face and costs more per crop, docs/speed.md)",
    )
    trn.add_argument("--workers", type=int, default=2, help="processes rendering scenes")
    trn.add_argument("--lr", type=float, help="peak learning rate (3e-3; 3e-4 to fine-tune)")


def _source_options(trn: argparse.ArgumentParser) -> None:
    """What the net starts from and learns beside the synthetic crops: corrections, a
    checkpoint, rendered scenes, the wide camera's share, photos' repeats, a teacher."""
    trn.add_argument(
        "--from-corrections",
        metavar="DIR",
        help="fine-tune on DIR/labels.jsonl and its PNG crops (see models/dieface/corrections.py)",
    )
    trn.add_argument(
        "--weights",
        metavar="PT",
        help="start from this checkpoint (1.x ones too; best.pt) or an "
        "exported model (an .onnx file)",
    )
    trn.add_argument(
        "--scenes",
        action="append",
        default=[],
        metavar="DIR",
        help="a folder of rendered scenes (yamscope render --engine blender) whose dice are "
        "trained on too, about a quarter of each epoch; repeat for more folders",
    )
    trn.add_argument(
        "--scenes-only",
        action="store_true",
        help="train on the --scenes folders' dice alone and pick the epoch on their held-out "
        "tenth: a reader of one renderer's camera view (tried for slanted photos' d10, "
        "docs/lab-notes.md); no synthetic crops or photos",
    )
    trn.add_argument(
        "--wide-share",
        type=float,
        default=0.0,
        metavar="SHARE",
        help="cut the synthetic crops as a calibrated appliance does (top face only), SHARE "
        "of the scenes seen by a camera as wide as a Pi camera module's (0..1; default 0: "
        "the narrow camera, whole boxes)",
    )
    trn.add_argument(
        "--slanted",
        type=int,
        default=0,
        metavar="SCENES",
        help="also SCENES synthetic scenes seen at a slant, as phone photos are (20-60 degrees "
        "from straight down, the top face narrow at the top of each die); the photos' crops "
        "are then turned only a little too (default 0: none)",
    )
    trn.add_argument(
        "--rune55-repeats",
        type=int,
        default=1,
        metavar="N",
        help="Rune55's train crops appear N times in each epoch (each augmented anew; default 1)",
    )
    trn.add_argument(
        "--colour-repeats",
        type=int,
        default=0,
        metavar="N",
        help="roboflow-dice-d6's colour train photos' dice appear N times in each epoch "
        "(default 0: not used)",
    )
    trn.add_argument(
        "--found-repeats",
        type=int,
        default=0,
        metavar="N",
        help="what the detector finds on the real photos' train splits, cut as the appliance "
        'cuts it, N times in each epoch: its boxes on no die teach the model to say "no die" '
        "(default 0: not used)",
    )
    trn.add_argument(
        "--value-over-kind",
        action="store_true",
        help="score a d6's value over 1..6 only in training, as the runtime reads it, so the "
        "many d6 crops do not lean every d10's value to 1..6 (default: over all ten values)",
    )
    trn.add_argument(
        "--widths",
        type=int,
        nargs=4,
        metavar="W",
        help="the net's four channel widths (default 16 32 64 128; fewer: faster, see "
        "docs/speed.md; with --weights the checkpoint's own unless given: wider ones widen "
        "it, each new channel a copy of one of its own, narrower ones slim it)",
    )
    trn.add_argument(
        "--backbone",
        choices=("small", "lite0"),
        default="small",
        help="small: the shipped net from scratch; lite0: EfficientNet-Lite0's ImageNet "
        "layers fine-tuned (models/dieface/pretrained.py)",
    )
    trn.add_argument(
        "--teacher",
        metavar="ONNX",
        help="a die-face model (float or int8; a pair teaches as its small net) that teaches: "
        "the net starts from its strongest filters (unless --weights or --backbone lite0) and "
        "learns its probabilities beside the labels, on every crop but those kept upright "
        "(--slanted)",
    )


def _rendered_scenes(folder: Path) -> None:
    """UsageError unless ``folder`` holds rendered scenes with full labels."""
    from models.common.datasets import DatasetError, open_dataset

    try:
        dataset = open_dataset(folder)
    except DatasetError as exc:
        raise UsageError(f"--scenes: {exc}") from None
    if dataset.format != "synthetic":
        raise UsageError(f"--scenes: {folder} is not a folder of rendered scenes (yamscope render)")


def _check_resize(weights: Path, widths: tuple[int, int, int, int]) -> None:
    """UsageError unless the start ``weights`` can be widened or slimmed to ``widths``: before
    the crops are cut, not after."""
    from models.dieface import distil
    from models.dieface.net import DieFaceNet
    from models.dieface.train import load_model

    try:
        start = distil.from_onnx(weights) if weights.suffix == ".onnx" else load_model(weights)
    except (OSError, ValueError, KeyError, RuntimeError) as exc:
        raise UsageError(f"--weights: {weights}: {exc}") from None
    if not isinstance(start, DieFaceNet):
        raise UsageError("--widths: a Lite0 start has its own widths")
    try:
        distil.resized(start, widths)
    except ValueError as exc:
        raise UsageError(f"--widths: {exc}") from None


def _scenes_alone(args: argparse.Namespace) -> None:
    """UsageError unless --scenes-only has scenes and no other source to leave out."""
    if not args.scenes:
        raise UsageError("--scenes-only trains on --scenes folders: name at least one")
    others = {
        "--from-corrections": bool(args.from_corrections),
        "--slanted": args.slanted > 0,
        "--wide-share": args.wide_share > 0,
        "--colour-repeats": args.colour_repeats > 0,
        "--found-repeats": args.found_repeats > 0,
        "--rune55-repeats": args.rune55_repeats != 1,
        "--synthetic": args.synthetic is not None,
    }
    named = [option for option, given in others.items() if given]
    if named:
        raise UsageError(f"--scenes-only trains on the scenes alone: drop {', '.join(named)}")


def cmd_train(args: argparse.Namespace) -> int:
    """Train the die-face CNN on synthetic crops and Rune55, or fine-tune it on corrected
    crops (needs the `train` extra: torch)."""
    ask_looks(args)
    try:
        from models.dieface.train import TrainConfig, finetune_corrections, train_dieface
    except ImportError as exc:
        raise UsageError(f"training needs torch: pip install -e '.[train]' ({exc})") from None
    cfg = TrainConfig(epochs=args.epochs, seed=args.seed, threads=args.threads)
    if args.lr is not None:
        cfg.lr = args.lr
    if args.synthetic is not None:
        cfg.synthetic = args.synthetic
    if args.epoch_crops is not None:
        cfg.epoch_crops = args.epoch_crops
    if args.input_size is not None:
        if not MIN_SIDE <= args.input_size <= MAX_SIDE:
            raise UsageError(
                f"--input-size is a side in pixels, {MIN_SIDE}..{MAX_SIDE}; not {args.input_size}"
            )
        cfg.input_size = args.input_size
    if not 0 <= args.wide_share <= 1:
        raise UsageError(f"--wide-share is a share of scenes, 0..1; not {args.wide_share}")
    cfg.wide_share = args.wide_share
    if args.rune55_repeats < 1:
        raise UsageError(f"--rune55-repeats is a count, 1 or more; not {args.rune55_repeats}")
    cfg.rune55_repeats = args.rune55_repeats
    if args.colour_repeats < 0:
        raise UsageError(f"--colour-repeats is a count, 0 or more; not {args.colour_repeats}")
    cfg.colour_repeats = args.colour_repeats
    if args.found_repeats < 0:
        raise UsageError(f"--found-repeats is a count, 0 or more; not {args.found_repeats}")
    cfg.found_repeats = args.found_repeats
    cfg.value_over_kind = args.value_over_kind
    if args.slanted < 0:
        raise UsageError(f"--slanted is a count of scenes, 0 or more; not {args.slanted}")
    cfg.slanted = args.slanted
    if args.scenes_only:
        _scenes_alone(args)
        cfg.scenes_only = True
    cfg.backbone = args.backbone
    if args.backbone == "lite0" and args.widths is not None:
        raise UsageError("--backbone lite0 has its own widths: no --widths")
    if args.teacher:
        from models.dieface.distil import from_onnx

        try:
            from_onnx(Path(args.teacher))
        except (OSError, ValueError) as exc:
            raise UsageError(f"--teacher: {exc}") from None
        cfg.teacher = args.teacher
    if args.widths is not None:
        if any(w < 1 for w in args.widths):
            raise UsageError(f"--widths are channel counts, 1 or more; not {args.widths}")
        cfg.widths = tuple(args.widths)
        if args.weights:
            _check_resize(Path(args.weights), cfg.widths)
    common = {"resume": args.resume, "progress": not args.quiet, "workers": args.workers}
    if args.from_corrections:
        if not args.weights:
            raise UsageError("--from-corrections needs --weights: the checkpoint to start from")
        if args.lr is None:
            cfg.lr = 3e-4  # a nudge, not a retraining
        if args.synthetic is None:
            cfg.synthetic = 300
        try:
            summary = finetune_corrections(
                Path(args.from_corrections), Path(args.weights), Path(args.out), cfg, **common
            )
        except (OSError, ValueError) as exc:
            raise UsageError(str(exc)) from None
    else:
        data = Path(args.data) if args.data else None
        weights = Path(args.weights) if args.weights else None
        scenes = [Path(s) for s in args.scenes]
        for folder in scenes:  # before hours of synthetic crops, not after
            _rendered_scenes(folder)
        summary = train_dieface(
            Path(args.out), data, cfg, weights=weights, device=args.device,
            minutes=args.minutes, scenes=scenes, **common,
        )  # fmt: skip
    best = summary["best"]
    print(
        f"best epoch {best['epoch']}: valid score {best['score']:.4f}; "
        f"{summary['train_seconds']:.0f} s of training; weights in {Path(args.out) / 'best.pt'}"
    )
    return 0
