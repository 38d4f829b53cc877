"""`yamscope simulate`: games between computer players, and their scores."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from device.cli.common import Commands, UsageError, _add_option_flag, _options
from scoring.rulebooks import RULEBOOKS


def register(sub: Commands) -> None:
    """The ``simulate`` command and its options."""
    sim = sub.add_parser(
        "simulate",
        help="play games between computer players and print the scores",
        description="Mean, spread and a histogram of the final scores of computer players.",
    )
    sim.add_argument("--rules", required=True, choices=sorted(RULEBOOKS))
    sim.add_argument("--players", default="facile", help="comma list, e.g. difficile,facile")
    sim.add_argument("--games", type=int, default=100)
    sim.add_argument("--seed", type=int, default=0)
    sim.add_argument("--plot", metavar="PNG", help="also draw the histogram into this PNG")
    sim.add_argument("--quiet", action="store_true", help="no progress bar")
    _add_option_flag(sim)
    sim.set_defaults(func=cmd_simulate)


def cmd_simulate(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from device.paths import cache_dir
    from device.plots import bins_for, histogram_png, text_histogram
    from scoring.computer import PLAYERS
    from scoring.simulate import simulate

    kinds = [k.strip() for k in args.players.split(",") if k.strip()]
    unknown = [k for k in kinds if k not in PLAYERS]
    if not kinds or unknown:
        raise UsageError(
            f"--players takes a comma list of {', '.join(PLAYERS)}; not {args.players!r}"
        )
    if args.games < 1:
        raise UsageError("--games must be at least 1")
    if args.plot and not Path(args.plot).resolve().parent.is_dir():
        raise UsageError(f"--plot: no folder {Path(args.plot).parent} to write into")
    options = _options(args.option, args.rules)
    bar = tqdm(
        total=args.games, desc="games played", unit="game", disable=args.quiet, file=sys.stderr
    )
    with bar:
        results = simulate(
            args.rules,
            kinds,
            args.games,
            args.seed,
            options,
            lambda n: bar.update(n - bar.n),
            str(cache_dir()),
        )
    print(f"{args.rules}: {args.games} games, seed {args.seed}, players {', '.join(kinds)}")
    print(
        f"{'player':<12} {'mean':>8} {'stdev':>7} {'min':>6} {'median':>7} {'max':>6} {'wins':>7}"
    )
    for row in results.summary():
        print(
            f"{row['player']:<12} {row['mean']:8.2f} {row['stdev']:7.2f} {row['min']:6d} "
            f"{row['median']:7.1f} {row['max']:6d} {_wins(row['wins']):>7}"
        )
    edges = bins_for(results.scores)
    for name, scores in zip(results.players, results.scores, strict=True):
        print(text_histogram(name, scores, edges))
    if args.plot:
        title = f"{args.rules}: {args.games} parties"
        print(f"plot: {histogram_png(args.plot, title, results.players, results.scores)}")
    return 0


def _wins(wins: float) -> str:
    """Games won, a tie shared between its winners: 470, or 235.5 where ties split one."""
    return f"{round(wins, 1):g}"
