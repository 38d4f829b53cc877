"""The computer's ``difficile`` play as a yardstick for the players' totals.

Why shipped and not computed on the appliance: a game of Yams impossible played by the
advisor takes over a second here and far longer on a Pi, and two hundred of them are needed
for a histogram worth comparing with. So the distributions of solo games under each
rulebook's default options are computed once, by ``python -m device.yardstick`` (seeded,
so anyone can make them again), and shipped in ``device/data/yardstick.json``; the records
page reads them in a millisecond. Games played with other options are compared with the
default options' yardstick, which the page says.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

FILE = "yardstick.json"
GAMES = 200
SEED = 2026


@cache
def shipped() -> dict[str, Any]:
    """The shipped distributions by rulebook id (empty when the file is missing)."""
    try:
        text = (resources.files("device") / "data" / FILE).read_text(encoding="utf-8")
    except (FileNotFoundError, OSError):
        return {}
    return json.loads(text).get("rulebooks", {})


def yardstick(rules: str) -> dict[str, Any] | None:
    """``{"games", "seed", "mean", "scores"}`` of ``difficile`` playing ``rules`` alone."""
    return shipped().get(rules)


def compute(rules: str, games: int, seed: int, cache_dir: str | None) -> dict[str, Any]:
    from scoring.simulate import simulate

    results = simulate(rules, ["difficile"], games, seed, None, None, cache_dir)
    scores = results.scores[0]
    return {"games": games, "seed": seed, "mean": statistics.fmean(scores), "scores": scores}


def main(argv: list[str] | None = None) -> int:
    """Make the shipped file again: every rulebook, ``--games`` solo games each."""
    from device.paths import cache_dir
    from scoring.rulebooks import RULEBOOKS

    parser = argparse.ArgumentParser(prog="python -m device.yardstick", description=main.__doc__)
    parser.add_argument("--games", type=int, default=GAMES)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--rules", nargs="*", default=list(RULEBOOKS))
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "data" / FILE)
    args = parser.parse_args(argv)
    done = json.loads(args.out.read_text()) if args.out.exists() else {"rulebooks": {}}
    for rules in args.rules:
        start = time.monotonic()
        done["rulebooks"][rules] = compute(rules, args.games, args.seed, str(cache_dir()))
        print(f"{rules}: {args.games} games in {time.monotonic() - start:.0f} s", file=sys.stderr)
        done["format"] = "yamscope-yardstick"
        done["player"] = "difficile, alone, each rulebook's default options"
        args.out.write_text(json.dumps(done, separators=(",", ":")) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
