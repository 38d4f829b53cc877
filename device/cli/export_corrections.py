"""`yamscope export-corrections`: the dice players corrected, as a training folder."""

from __future__ import annotations

import argparse
from pathlib import Path

from device.cli.common import Commands, UsageError, open_records


def register(sub: Commands) -> None:
    """The ``export-corrections`` command and its options."""
    exc_ = sub.add_parser(
        "export-corrections",
        help="write the corrected dice's crops for fine-tuning",
        description="Every die a player corrected on the table page, with the crop the camera "
        "read: PNG files and labels.jsonl in OUT, the folder `yamscope train "
        "--from-corrections` reads.",
    )
    exc_.add_argument("--out", required=True, metavar="DIR")
    exc_.add_argument(
        "--data", metavar="DB_OR_URL", help="the records file or address (default: as serve)"
    )
    exc_.add_argument("--config", metavar="FILE", help="configuration file (for the data folder)")
    exc_.set_defaults(func=cmd_export_corrections)


def cmd_export_corrections(args: argparse.Namespace) -> int:
    """Write the corrected dice's crops and labels for ``train --from-corrections``."""
    from device.corrections import ExportError, export_corrections

    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out} is a file, not a folder")
    store = open_records(args)
    try:
        count = export_corrections(store, out)
    except ExportError as exc:
        raise UsageError(str(exc)) from None
    finally:
        store.close()
    print(f"{count} corrected dice written to {out} (labels in {out / 'labels.jsonl'})")
    return 0
