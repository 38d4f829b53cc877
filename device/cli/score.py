"""`yamscope score`: what a throw scores in every box, best first."""

from __future__ import annotations

import argparse
import json

from device.cli.common import Commands, _add_option_flag, _options
from scoring.dice import format_dice, parse_dice
from scoring.rulebooks import RULEBOOKS, get_rulebook


def register(sub: Commands) -> None:
    """The ``score`` command and its options."""
    score = sub.add_parser(
        "score",
        help="what a throw scores in every box, best first",
        description="Every box of the rulebook with the points these dice score there, best "
        "first. Dice: 7r 10wf 3rt (value, colour r/w, finish f/t; 0 is a d10's ten).",
    )
    score.add_argument("--rules", required=True, choices=sorted(RULEBOOKS))
    score.add_argument("--first", action="store_true", help="the dice are the turn's first throw")
    score.add_argument("--sixth", metavar="BOX", help="an announced extra throw for BOX")
    score.add_argument("--json", action="store_true", help="JSON for tools")
    _add_option_flag(score)
    score.add_argument("dice", nargs="+", help="the dice, e.g. 7r 10wf 3rt")
    score.set_defaults(func=cmd_score)


def cmd_score(args: argparse.Namespace) -> int:
    rulebook = get_rulebook(args.rules, _options(args.option, args.rules))
    dice = parse_dice(args.dice)
    entries = rulebook.score(dice, first=args.first, sixth=args.sixth)
    if args.json:
        out = {
            "rules": rulebook.id,
            "dice": [str(d) for d in dice],
            "entries": [e.to_json() for e in entries],
        }
        print(json.dumps(out, ensure_ascii=False))
        return 0
    context = []
    if args.first:
        context.append("premier jet")
    if args.sixth:
        context.append(f"{rulebook.announced_throw} annoncé pour {args.sixth}")
    suffix = f" ({', '.join(context)})" if context else ""
    print(f"{rulebook.name} : {format_dice(dice)}{suffix}")
    width = max(len(b.id) for b in rulebook.boxes)
    print(f"{'points':>7}  {'case':<{width}}  détail")
    for e in entries:
        print(f"{e.points:>7}  {e.box:<{width}}  {e.why}")
    return 0
