"""`yamscope records`: the table's or the club's records and statistics."""

from __future__ import annotations

import argparse
import json

from device.cli.common import Commands, UsageError, open_records


def register(sub: Commands) -> None:
    """The ``records`` command and its options."""
    recs = sub.add_parser(
        "records",
        help="the table's or the club's records and statistics",
        description="Per rulebook the best totals, the best of each box and section players "
        "brag about, every player's personal bests and the totals against the computer's "
        "difficile play; per player (--player) games, wins, average, best, feats. Reads "
        "the records serve keeps (--data: an SQLite file or a postgresql:// address).",
    )
    recs.add_argument("--json", action="store_true", help="JSON for tools")
    recs.add_argument("--rules", metavar="ID", help="one rulebook only")
    recs.add_argument("--player", metavar="NAME", help="one player only")
    recs.add_argument("--table", metavar="NAME", help="one table of a club only")
    recs.add_argument("--data", metavar="DB_OR_URL", help="the records (default: as serve)")
    recs.add_argument("--config", metavar="FILE", help="configuration file (storage.url)")
    recs.set_defaults(func=cmd_records)


def cmd_records(args: argparse.Namespace) -> int:
    """The table's (or club's) records, as text or JSON; an unknown rulebook, player or
    table is one line and exit status 2."""
    from device.records import NotFound, records, text_lines

    store = open_records(args)
    try:
        data = records(store, rules=args.rules, player=args.player, table=args.table)
    except NotFound as exc:
        raise UsageError(str(exc.args[0])) from None
    finally:
        store.close()
    if args.json:
        print(json.dumps(data, ensure_ascii=False))
    else:
        print("\n".join(text_lines(data)))
    return 0
