"""`yamscope check-model`: do the die-face models compute here as where they were exported?"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from device.cli.common import Commands


def register(sub: Commands) -> None:
    """The ``check-model`` command and its options."""
    chk = sub.add_parser(
        "check-model",
        help="check that the die-face models compute here as where they were exported",
        description="Read the check crops recorded beside each die-face model at its export "
        "(NAME.check.npz) and compare every head's probabilities: exit status 0 when they "
        "agree, 1 when this machine computes otherwise (its readings cannot be trusted), 2 "
        "when a model, its card or its check crops are missing or unreadable.",
    )
    chk.add_argument(
        "--model",
        type=Path,
        metavar="ONNX",
        help="default: the shipped ones (dieface.onnx and slanted-d10.onnx)",
    )
    chk.set_defaults(func=cmd_check_model)


def cmd_check_model(args: argparse.Namespace) -> int:
    """Whether each die-face model computes on this machine as where it was exported."""
    from vision.errors import BadModelError
    from vision.faces import DEFAULT_MODEL, FaceReader
    from vision.model_check import check_reader
    from vision.slanted import DEFAULT_SLANTED_MODEL

    status = 0
    for model in [args.model] if args.model else [DEFAULT_MODEL, DEFAULT_SLANTED_MODEL]:
        try:
            result = check_reader(FaceReader(model))
        except BadModelError as exc:
            print(f"yamscope: error: {exc}", file=sys.stderr)
            status = 2
            continue
        print(result.line())
        status = max(status, 0 if result.ok else 1)
    return status
