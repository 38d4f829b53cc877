"""The ``yamscope`` command: one module per command, each registering its own parser and
options (``register``) beside the handler that runs it (``cmd_*``). Each command imports
what it needs only when it runs, so ``yamscope serve`` never loads the lab's torch.

``yamscope --help`` lists the commands of players and owners first, then the lab's.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import Any

from device.cli import (
    advise,
    bench,
    calibrate,
    check_model,
    demo,
    enrol,
    evaluate,
    evaluate_crops,
    export,
    export_corrections,
    recognise,
    records,
    render,
    score,
    serve,
    simulate,
    train,
    train_models,
    validate_config,
)
from device.cli.common import UsageError, _Parser
from scoring.dice import NotationError
from scoring.entries import RulesError

GROUPS: tuple[tuple[str, tuple[ModuleType, ...]], ...] = (
    (
        "commands for players and owners",
        (
            *(score, advise, simulate, demo, serve, calibrate, recognise, enrol, evaluate),
            *(records, export, check_model, validate_config, export_corrections, bench),
        ),
    ),
    (
        "lab commands (the models: train, render, measure; pip install -e '.[train]')",
        (train, train_models, evaluate_crops, render),
    ),
)


class _Listed:
    """The subparsers as a command's module sees them: each parser is added as asked, and
    its name and help are kept for the group it is listed in."""

    def __init__(self, sub: Any, listed: list[tuple[str, str]]) -> None:
        self._sub, self._listed = sub, listed

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser:
        self._listed.append((name, kwargs.pop("help", "")))
        return self._sub.add_parser(name, **kwargs)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="yamscope",
        description="A dice-table appliance that reads and scores Yams throws.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(
        dest="command",
        required=True,
        metavar="COMMAND",
        help="see yamscope COMMAND --help",
    )
    epilog = []
    for title, modules in GROUPS:
        listed: list[tuple[str, str]] = []
        for module in modules:
            module.register(_Listed(sub, listed))
        epilog.append(f"{title}:")
        epilog += [f"  {name:<20}{says}" for name, says in listed]
        epilog.append("")
    parser.epilog = "\n".join(epilog).rstrip()
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in train_models.TRAINERS:  # every argument after it is the trainer's
        try:
            return train_models.run_trainer(argv[0], argv[1:])
        except UsageError as exc:
            print(f"yamscope: error: {exc}", file=sys.stderr)
            return 2
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except (RulesError, NotationError, UsageError) as exc:
        print(f"yamscope: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # output piped into head: not an error of ours
        sys.stderr.close()
        return 0
    except OSError as exc:  # a file that cannot be read or written
        print(f"yamscope: error: {exc}", file=sys.stderr)
        return 1
