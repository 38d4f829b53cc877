"""`yamscope export`: the games, turns, throws and entries as CSV and JSON files."""

from __future__ import annotations

import argparse
from pathlib import Path

from device.cli.common import Commands, UsageError, open_records


def register(sub: Commands) -> None:
    """The ``export`` command and its options."""
    exp = sub.add_parser(
        "export",
        help="write the games, turns, throws and entries as CSV and JSON",
        description="games, turns, throws and entries, each as NAME.csv and NAME.json in "
        "OUT (files of those names are replaced, nothing else is touched).",
    )
    exp.add_argument("--out", required=True, metavar="DIR")
    exp.add_argument("--format", choices=("csv", "json", "both"), default="both")
    exp.add_argument("--data", metavar="DB_OR_URL", help="the records (default: as serve)")
    exp.add_argument("--config", metavar="FILE", help="configuration file (storage.url)")
    exp.set_defaults(func=cmd_export)


def cmd_export(args: argparse.Namespace) -> int:
    """Games, turns, throws and entries as CSV and JSON files in a folder."""
    from device.export import FORMATS, export

    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out} is a file, not a folder")
    store = open_records(args)
    try:
        written = export(store, out, FORMATS if args.format == "both" else (args.format,))
    finally:
        store.close()
    print(f"{len(written)} files written to {out}: " + ", ".join(p.name for p in written))
    return 0
