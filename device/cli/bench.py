"""`yamscope bench`: the engine, the vision stages and the live appliance, timed."""

from __future__ import annotations

import argparse
import sys

from device.cli.common import Commands


def register(sub: Commands) -> None:
    """The ``bench`` command and its options."""
    bench = sub.add_parser(
        "bench",
        help="time the scoring engine, the vision stages and the appliance",
        description="Scoring every box of random throws; reading one still frame stage by "
        "stage (a 1280x960 ten-d10 synthetic throw, a Rune55 photo) and settle detection; "
        "the live appliance on the simulated tray: settled frame to the page, idle CPU, peak "
        "memory; the records of 10,000 kept games and the records page. Pin a core for "
        "numbers like the Pi's: taskset -c 0 yamscope bench.",
    )
    bench.add_argument("--n", type=int, default=2000, help="throws to time")
    bench.add_argument("--seed", type=int, default=1)
    bench.add_argument(
        "--only", choices=("scoring", "vision", "appliance", "records"), help="one section"
    )
    bench.add_argument("--games", type=int, default=10_000, help="records: games kept")
    bench.add_argument("--repeats", type=int, default=30, help="vision: runs of each stage")
    bench.add_argument("--throws", type=int, default=5, help="appliance: throws to time")
    bench.set_defaults(func=cmd_bench)


def cmd_bench(args: argparse.Namespace) -> int:
    """The scoring engine, then the live appliance and the vision stages (``--only`` one).
    The appliance runs before the vision bench so that the peak memory it reports is the
    appliance's, not the bench's frames'."""
    from scoring.benchmark import bench_scoring

    if args.only in (None, "scoring"):
        for line in bench_scoring(n=args.n, seed=args.seed):
            print(line, flush=True)
    if args.only in (None, "appliance"):
        from device.bench import appliance_lines, run_appliance

        if args.only is None:
            print()
        say = lambda line: print(line, file=sys.stderr, flush=True)  # noqa: E731
        for line in appliance_lines(run_appliance(throws=args.throws, progress=say)):
            print(line, flush=True)
    if args.only in (None, "records"):
        from device.records_bench import bench_records

        if args.only is None:
            print()
        for line in bench_records(games=args.games):
            print(line, flush=True)
    if args.only in (None, "vision"):
        from device.bench import vision_lines

        if args.only is None:
            print()
        for line in vision_lines(args.repeats):
            print(line, flush=True)
    return 0
