"""What the commands share: the one-line usage error, the parser that reports it, the
rulebook options (``--option NAME=VALUE``) and sizes (``WIDTHxHEIGHT``)."""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Sequence
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
