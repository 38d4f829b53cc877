"""`yamscope evaluate-crops` (lab): the die-face model on Rune55 or synthetic crops."""

from __future__ import annotations

import argparse
from pathlib import Path

from device.cli.common import Commands


def register(sub: Commands) -> None:
    """The ``evaluate-crops`` command and its options."""
    evc = sub.add_parser(
        "evaluate-crops",
        help="score the shipped die-face model on Rune55 or held-out synthetic crops",
        description="Value accuracy (all, and on photos whose source is not in train), "
        "confusion matrix and latency of the ONNX die-face model on a Rune55 split; with "
        "--synthetic, the accuracy and confusion of every head on held-out synthetic crops.",
    )
    evc.add_argument("--split", default="test", choices=("train", "valid", "test"))
    evc.add_argument("--model", metavar="ONNX", help="default: models/dieface.onnx")
    evc.add_argument("--data", metavar="DIR", help="the rune55-d6 folder (default ../shared)")
    evc.add_argument("--png", metavar="PNG", help="also draw the confusion matrix into this PNG")
    evc.add_argument("--json", action="store_true", help="JSON for tools")
    evc.add_argument(
        "--mistakes",
        metavar="PNG",
        help="draw the crops whose value was misread, label>read and photo, for a person to "
        "check the labels",
    )
    evc.add_argument(
        "--synthetic",
        type=int,
        nargs="?",
        const=600,
        metavar="SCENES",
        help="score every head on held-out synthetic scenes instead (default 600 scenes)",
    )
    evc.set_defaults(func=cmd_evaluate_crops)


def cmd_evaluate_crops(args: argparse.Namespace) -> int:
    """Score the shipped ONNX model on Rune55 crops (value) or held-out synthetic crops (every
    head): accuracy, confusion, latency."""
    from models.dieface.evaluate import evaluate_crops

    return evaluate_crops(
        split=args.split,
        model=Path(args.model) if args.model else None,
        data=Path(args.data) if args.data else None,
        png=Path(args.png) if args.png else None,
        as_json=args.json,
        synthetic=args.synthetic,
        mistakes=Path(args.mistakes) if args.mistakes else None,
    )
