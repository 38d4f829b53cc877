"""The ``yamscope`` command. Each subcommand imports what it needs only when it runs."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from scoring.dice import NotationError, format_dice, parse_dice
from scoring.entries import RulesError
from scoring.rulebooks import RULEBOOKS, get_rulebook

if TYPE_CHECKING:
    from scoring.game import Game


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
    with tqdm(total=args.games, unit="game", disable=args.quiet, file=sys.stderr) as bar:
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
            f"{row['median']:7.1f} {row['max']:6d} {row['wins']:7.1f}"
        )
    edges = bins_for(results.scores)
    for name, scores in zip(results.players, results.scores, strict=True):
        print(text_histogram(name, scores, edges))
    if args.plot:
        title = f"{args.rules}: {args.games} parties"
        print(f"plot: {histogram_png(args.plot, title, results.players, results.scores)}")
    return 0


def _load_game(path: str, rules: str) -> Game:
    from scoring.game import Game

    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise UsageError(f"{path} is not JSON: {exc}") from None
    except UnicodeDecodeError:
        raise UsageError(f"{path} is not a text file") from None
    game = Game.from_json(data)
    if game.rules != rules:
        raise UsageError(f"{path} is a {game.rules} game, not {rules}")
    return game


def _print_advice(advice: Any, dice: str, player: str, throw: int, rulebook: Any) -> None:
    print(
        f"{rulebook.name} — {player}, jet {throw}/{rulebook.max_throws} : {dice}\n"
        f"score final espéré en jouant au mieux : {advice.expected:.2f}"
    )
    best = advice.best
    if hasattr(best, "keep"):
        print(f"conseil : garder {' '.join(map(str, best.keep)) or 'rien'} et relancer")
    else:
        print(f"conseil : inscrire en {best.box} ({best.points} points)")
    if advice.keeps:
        print("garder            espéré    perte   chances de remplir")
        for k in advice.keeps[:8]:
            likely = sorted(k.fill.items(), key=lambda bp: -bp[1])[:3]
            odds = ", ".join(f"{b} {p:.0%}" for b, p in likely if p >= 0.005)
            kept = " ".join(map(str, k.keep)) or "rien"
            print(f"{kept:<16} {k.expected:8.2f} {k.loss:8.2f}   {odds}")
    print("inscrire          points   espéré    perte")
    for b in advice.boxes:
        bonus = f"+{b.bonus}" if b.bonus else ""
        print(f"{b.box:<16} {b.points:>4}{bonus:<4} {b.expected:8.2f} {b.loss:8.2f}")


def cmd_advise(args: argparse.Namespace) -> int:
    from device.paths import cache_dir
    from scoring.advisor.moment import advise_game, expected_score, keep_cost
    from scoring.game import Game

    if args.game and args.option:
        raise UsageError("--option comes from the game file when --game is given")
    rulebook = get_rulebook(args.rules, _options(args.option, args.rules))
    if args.expected:
        value, how = expected_score(rulebook, cache_dir())
        print(f"{rulebook.name}: {value:.4f} ({how})")
        return 0
    if args.dice is None or args.throw is None:
        raise UsageError("give --dice and --throw (or --expected)")
    if args.chose and args.kept is not None:
        raise UsageError("ask about --chose or --kept, not both")
    game = _load_game(args.game, args.rules) if args.game else Game(args.rules, ["joueur"])
    if game.finished:
        raise UsageError("the game is over: nothing to advise")
    moment = game.turn_start()
    if not 1 <= args.throw <= rulebook.max_throws:
        raise UsageError(f"--throw must be 1 to {rulebook.max_throws} for {rulebook.id}")
    for _ in range(args.throw):
        moment.throw(args.dice)
    advice = advise_game(moment, cache_dir())
    assert moment.dice is not None
    coach = None
    if args.chose:
        options = {b.box: b for b in advice.boxes}
        if args.chose not in options:
            raise UsageError(f"{args.chose} cannot be written now")
        chosen = options[args.chose]
        coach = {"choice": f"inscrire en {args.chose}", "expected": chosen.expected}
        coach["loss"] = chosen.loss
    elif args.kept is not None:
        try:
            positions = [int(p) for p in args.kept.replace(",", " ").split()]
            values = [moment.dice[p].value for p in positions]
        except (ValueError, IndexError):
            raise UsageError(f"--kept lists dice positions 0 to {len(moment.dice) - 1}") from None
        if not advice.keeps:
            raise UsageError("no throw is left: nothing can be kept")
        kept = keep_cost(advice, values)
        label = " ".join(map(str, kept.keep)) or "rien"
        coach = {"choice": f"garder {label}", "expected": kept.expected, "loss": kept.loss}
    if args.json:
        out = {"rules": rulebook.id, "player": moment.player, "throw": args.throw}
        out |= {"dice": [str(d) for d in moment.dice], **advice.to_json()}
        if coach:
            out["coach"] = {**coach, "loss": round(coach["loss"], 4)}
        print(json.dumps(out, ensure_ascii=False))
        return 0
    _print_advice(advice, format_dice(moment.dice), moment.player, args.throw, moment.rulebook)
    if coach:
        print(f"coach : {coach['choice']} coûte {coach['loss']:.2f} points d'espérance")
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    from scoring.benchmark import bench_scoring

    for line in bench_scoring(n=args.n, seed=args.seed):
        print(line)
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from device.demo import play_demo

    play_demo(rules=args.rules, seed=args.seed, turns=args.turns)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="yamscope", description="A dice-table appliance that reads and scores Yams throws."
    )
    sub = parser.add_subparsers(dest="command", required=True)

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
    score.add_argument(
        "--option", action="append", default=[], metavar="NAME=VALUE", help="a rulebook option"
    )
    score.add_argument("dice", nargs="+", help="the dice, e.g. 7r 10wf 3rt")
    score.set_defaults(func=cmd_score)

    bench = sub.add_parser("bench", help="time the scoring engine")
    bench.add_argument("--n", type=int, default=2000, help="throws to time")
    bench.add_argument("--seed", type=int, default=1)
    bench.set_defaults(func=cmd_bench)

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
    sim.add_argument(
        "--option", action="append", default=[], metavar="NAME=VALUE", help="a rulebook option"
    )
    sim.set_defaults(func=cmd_simulate)

    adv = sub.add_parser(
        "advise",
        help="which dice to keep and where to write, with what each choice costs",
        description="Keep and entry advice at one moment of a game (a saved game file, or a "
        "new game), or with --expected the expected score of a new game under best play.",
    )
    adv.add_argument("--rules", required=True, choices=sorted(RULEBOOKS))
    adv.add_argument("--expected", action="store_true", help="expected score of a new game")
    adv.add_argument("--game", metavar="FILE", help="a saved game (JSON); default: a new game")
    adv.add_argument("--dice", help="the dice on the table, e.g. '6 6 6 2 3'")
    adv.add_argument("--throw", type=int, help="which throw of the turn these dice are (1, 2, ...)")
    adv.add_argument("--chose", metavar="BOX", help="coach: what writing BOX costs")
    adv.add_argument("--kept", metavar="POSITIONS", help="coach: what keeping these dice costs")
    adv.add_argument("--json", action="store_true", help="JSON for tools")
    adv.add_argument(
        "--option", action="append", default=[], metavar="NAME=VALUE", help="a rulebook option"
    )
    adv.set_defaults(func=cmd_advise)

    demo = sub.add_parser("demo", help="play a few simulated turns and show the engine's advice")
    demo.add_argument("--rules", default="impossible", choices=sorted(RULEBOOKS))
    demo.add_argument("--seed", type=int, default=None)
    demo.add_argument("--turns", type=int, default=4)
    demo.set_defaults(func=cmd_demo)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except (RulesError, NotationError, UsageError) as exc:
        print(f"yamscope: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # output piped into head: not an error of ours
        sys.stderr.close()
        return 0
    except OSError as exc:  # a file that cannot be read or written
        print(f"yamscope: error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
