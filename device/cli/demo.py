"""`yamscope demo`: a few simulated turns in the terminal."""

from __future__ import annotations

import argparse

from device.cli.common import Commands
from scoring.rulebooks import RULEBOOKS


def register(sub: Commands) -> None:
    """The ``demo`` command and its options."""
    demo = sub.add_parser("demo", help="play a few simulated turns and show the engine's advice")
    demo.add_argument("--rules", default="impossible", choices=sorted(RULEBOOKS))
    demo.add_argument("--seed", type=int, default=None)
    demo.add_argument("--turns", type=int, default=4)
    demo.set_defaults(func=cmd_demo)


def cmd_demo(args: argparse.Namespace) -> int:
    from device.demo import play_demo

    play_demo(rules=args.rules, seed=args.seed, turns=args.turns)
    return 0
