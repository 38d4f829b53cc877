"""What the commands share: the one-line usage error, the parser that reports it, the
rulebook options (``--option NAME=VALUE``) and sizes (``WIDTHxHEIGHT``)."""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn, Protocol

from scoring.rulebooks import RULEBOOKS


class Commands(Protocol):
    """Where a command's module adds its parser (``argparse``'s subparsers, as the CLI's
    ``build_parser`` hands them over: it lists each command in its group)."""

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser: ...


class UsageError(Exception):
    """Bad input from the command line: one line on stderr, exit status 2."""


class _Parser(argparse.ArgumentParser):
    """argparse that reports bad usage on one line (DESIGN.md), not usage text plus error."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _option_value(text: str) -> Any:
    lowered = text.lower()
    if lowered in ("true", "yes", "on"):
        return True
    if lowered in ("false", "no", "off"):
        return False
    return int(text) if text.lstrip("-").isdigit() else text


def _options(pairs: Sequence[str], rules: str | None = None) -> dict[str, Any]:
    """NAME=VALUE pairs; a value that is one of the option's listed choices keeps its type
    (``carre=40`` is the choice "40", not the number 40)."""
    fields = {}
    if rules in RULEBOOKS:
        fields = {f.name: f for f in dataclasses.fields(RULEBOOKS[rules].options_type)}
    out = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        name, value = name.strip(), value.strip()
        if not sep or not name:
            raise UsageError(f"--option wants NAME=VALUE, not {pair!r}")
        choices = fields[name].metadata.get("choices") if name in fields else None
        matching = [c for c in choices or () if str(c) == value]
        out[name] = matching[0] if matching else _option_value(value)
    return out


def _add_option_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--option", action="append", default=[], metavar="NAME=VALUE", help="a rulebook option"
    )


def _size(text: str, option: str = "--resize") -> tuple[int, int]:
    """WIDTHxHEIGHT, each at least 64 (and at most the image limit), or UsageError."""
    try:
        width, height = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise UsageError(f"{option} is WIDTHxHEIGHT, e.g. 640x480; not {text!r}") from None
    if width < 64 or height < 64:
        raise UsageError(f"{option} must be at least 64x64, not {text}")
    if width * height > 64_000_000:
        raise UsageError(f"{option} {text} is larger than any camera frame yamscope reads")
    return width, height


def add_look_flags(parser: argparse.ArgumentParser) -> None:
    """The generator's options beyond the appliance's own dice, for training and its tests."""
    parser.add_argument(
        "--typefaces",
        action="store_true",
        help="draw the synthetic d10's numerals in 29 real typefaces too "
        "(models/synth/numerals.py), not only the four stroke styles",
    )
    parser.add_argument(
        "--marbled",
        action="store_true",
        help="marble half the sets of opaque dice: swirls of a second plastic through the body",
    )
    parser.add_argument(
        "--numbered",
        action="store_true",
        help="print numerals 1-6 on the d6 of 30%% of the sets of dice, not pips",
    )
    parser.add_argument(
        "--lettered",
        action="store_true",
        help="letter the numerals of 70%% of the sets anew: thinner or bolder strokes, "
        "narrower or wider, larger or smaller, slanted",
    )


def ask_looks(args: argparse.Namespace) -> None:
    """Ask the generator for what ``add_look_flags`` offers (its worker processes inherit it)."""
    import os

    from models.synth.glyphs import TYPEFACES
    from models.synth.layout import LETTERED, MARBLED, NUMBERED

    looks = (
        ("typefaces", TYPEFACES),
        ("marbled", MARBLED),
        ("numbered", NUMBERED),
        ("lettered", LETTERED),
    )
    for flag, variable in looks:
        if getattr(args, flag, False):
            os.environ[variable] = "1"


def open_records(args: argparse.Namespace) -> Any:
    """The records ``--data`` (or ``--config``) names, opened to be read: UsageError, with
    one line, when there are none there or they cannot be opened (a server unreachable)."""
    from device.config import ConfigError, load_config
    from device.serve import records_target
    from device.storage import Store, StoreError, is_url

    try:
        config = load_config(args.config)
    except ConfigError as exc:
        raise UsageError("; ".join(exc.problems)) from None
    data = records_target(config, args.data)
    if not is_url(data) and not Path(data).is_file():
        raise UsageError(f"no records file at {data}")
    try:
        return Store(data, table=config.table.table_name())
    except StoreError as exc:
        raise UsageError(str(exc)) from None
