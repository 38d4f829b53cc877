"""`yamscope check-model`: does the die-face model compute here as where it was exported?"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from device.cli.common import Commands


def register(sub: Commands) -> None:
    """The ``check-model`` command and its options."""
    chk = sub.add_parser(
        "check-model",
        help="check that the die-face model computes here as where it was exported",
        description="Read the check crops recorded beside the die-face model at its export "
        "(NAME.check.npz) and compare every head's probabilities: exit status 0 when they "
        "agree, 1 when this machine computes otherwise (its readings cannot be trusted), 2 "
        "when the model, its card or its check crops are missing or unreadable.",
    )
    chk.add_argument("--model", type=Path, metavar="ONNX", help="default: the shipped model")
    chk.set_defaults(func=cmd_check_model)


def cmd_check_model(args: argparse.Namespace) -> int:
    """Whether the die-face model computes on this machine as where it was exported."""
    from vision.errors import BadModelError
    from vision.faces import DEFAULT_MODEL, FaceReader
    from vision.model_check import check_reader

    try:
        result = check_reader(FaceReader(args.model or DEFAULT_MODEL))
    except BadModelError as exc:
        print(f"yamscope: error: {exc}", file=sys.stderr)
        return 2
    print(result.line())
    return 0 if result.ok else 1
