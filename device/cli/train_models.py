"""`yamscope train-cocked` and `yamscope train-detector` (lab): the per-model trainers.

Each trainer owns its options (``python -m models.cocked.train --help``); these commands
hand it every argument after their name, so the lab's commands are all one ``yamscope``
away. torch is imported only when one runs.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from device.cli.common import Commands, UsageError

TRAINERS = {
    "train-cocked": (
        "models.cocked.train",
        "train or export the cocked-die model (needs torch; its options: --help)",
    ),
    "train-detector": (
        "models.detector.train",
        "train the dice detector (needs torch; its options: --help)",
    ),
}


def register(sub: Commands) -> None:
    """The per-model trainers, each a command whose options are its module's."""
    for name, (module, says) in TRAINERS.items():
        trainer = sub.add_parser(
            name, help=says, add_help=False, description=f"python -m {module}, as a command."
        )
        trainer.add_argument("arguments", nargs=argparse.REMAINDER)
        trainer.set_defaults(func=lambda args, name=name: run_trainer(name, args.arguments))


def run_trainer(name: str, argv: Sequence[str]) -> int:
    """Run the trainer ``name`` with ``argv`` as its own command line."""
    module, _ = TRAINERS[name]
    try:
        trainer = importlib.import_module(module)
    except ImportError as exc:
        raise UsageError(f"training needs torch: pip install -e '.[train]' ({exc})") from None
    program, sys.argv[0] = sys.argv[0], f"yamscope {name}"  # what its usage lines say
    try:
        return int(trainer.main(list(argv)) or 0)
    finally:
        sys.argv[0] = program
