"""`yamscope validate-config`: check a configuration file, or print the defaults."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from device.cli.common import Commands, UsageError


def register(sub: Commands) -> None:
    """The ``validate-config`` command and its options."""
    check = sub.add_parser(
        "validate-config",
        help="check a configuration file, or print the documented defaults",
        description="Check a configuration file: every problem on its own line, exit status "
        "2; valid, the values that differ from the defaults. --print-defaults writes a "
        "commented example with every key and its default.",
    )
    check.add_argument("file", nargs="?", metavar="FILE", help="the TOML file to check")
    check.add_argument(
        "--print-defaults", action="store_true", help="print the default configuration, commented"
    )
    check.set_defaults(func=cmd_validate_config)


def cmd_validate_config(args: argparse.Namespace) -> int:
    """Check a configuration file before the appliance starts on it; or print the example."""
    from device.config import ConfigError, load_config
    from device.config_sections import Config
    from device.config_toml import toml_value

    if args.print_defaults:
        if args.file:
            raise UsageError("give a FILE to check or --print-defaults, not both")
        sys.stdout.write(Config().to_toml())
        return 0
    if not args.file:
        raise UsageError("give a FILE to check (or --print-defaults)")
    try:
        config = load_config(Path(args.file))
    except ConfigError as exc:
        for problem in exc.problems:
            print(f"{args.file}: {problem}", file=sys.stderr)
        return 2
    print(f"{args.file}: valid")
    changes = config.changes()
    for key, value, default in changes:
        shown = '"****"' if key == "server.pin" else toml_value(value)  # not in logs
        if key == "storage.url" and "://" in str(value):
            from device.storage import shown as without_password

            shown = toml_value(without_password(str(value)))
        print(
            f"  {key} = {shown}"
            + (f"  (default {toml_value(default)})" if default is not None else "")
        )
    if not changes:
        print("  every value is the default")
    return 0
