"""`yamscope advise`: which dice to keep and where to write, with what each choice costs."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from device.cli.common import Commands, UsageError, _add_option_flag, _options
from scoring.dice import format_dice
from scoring.rulebooks import RULEBOOKS, get_rulebook

if TYPE_CHECKING:
    from scoring.game import Game


def register(sub: Commands) -> None:
    """The ``advise`` command and its options."""
    adv = sub.add_parser(
        "advise",
        help="which dice to keep and where to write, with what each choice costs",
        description="Keep and entry advice at one moment of a game (a saved game file, or a "
        "new game), or with --expected the expected score of a new game under best play.",
    )
    adv.add_argument("--rules", required=True, choices=sorted(RULEBOOKS))
    adv.add_argument("--expected", action="store_true", help="expected score of a new game")
    adv.add_argument(
        "--games",
        type=int,
        default=100,
        help="with --expected, for the rulebooks not solved exactly: games to simulate",
    )
    adv.add_argument("--game", metavar="FILE", help="a saved game (JSON); default: a new game")
    adv.add_argument("--dice", help="the dice on the table, e.g. '6 6 6 2 3'")
    adv.add_argument("--throw", type=int, help="which throw of the turn these dice are (1, 2, ...)")
    adv.add_argument("--chose", metavar="BOX", help="coach: what writing BOX costs")
    adv.add_argument("--kept", metavar="POSITIONS", help="coach: what keeping these dice costs")
    adv.add_argument("--json", action="store_true", help="JSON for tools")
    _add_option_flag(adv)
    adv.set_defaults(func=cmd_advise)


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


def _print_advice(advice: dict[str, Any], dice: str, player: str, throw: int, rb: Any) -> None:
    score = advice["objective"] == "score"
    unit = "score final espéré" if score else "chance de gagner"

    def fmt(value: float) -> str:
        return f"{value:8.2f}" if score else f"{value:8.1%}"

    print(f"{rb.name} — {player}, jet {throw}/{rb.max_throws} : {dice}")
    print(f"{unit} en jouant au mieux : {fmt(advice['value']).strip()}")
    best = advice["best"]
    kept = " ".join(map(str, best.get("keep", []))) or "rien"
    print(
        {
            "write": f"conseil : inscrire en {best.get('box')} ({best.get('entry_points')} points)",
            "keep": f"conseil : garder {kept} et relancer",
            "announce": f"conseil : annoncer {best.get('box')}, garder {kept} et relancer",
        }[best["action"]]
    )
    if advice["keeps"]:
        print(f"garder           {'valeur':>8} {'perte':>8}   chances de remplir")
        for k in advice["keeps"][:8]:
            likely = sorted(k["fill"].items(), key=lambda bp: -bp[1])[:3]
            odds = ", ".join(f"{b} {p:.0%}" for b, p in likely if p >= 0.005)
            faces = " ".join(map(str, k["keep"])) or "rien"
            print(f"{faces:<16} {fmt(k['value'])} {fmt(k['loss'])}   {odds}")
    if advice["announces"]:
        print(f"annoncer         {'valeur':>8} {'perte':>8}   garder")
        for a in advice["announces"][:5]:
            faces = " ".join(map(str, a["keep"])) or "rien"
            print(f"{a['box']:<16} {fmt(a['value'])} {fmt(a['loss'])}   {faces}")
    print(f"inscrire         points {'valeur':>8} {'perte':>8}")
    for e in advice["entries"]:
        bonus = f"+{e['bonus']}" if e.get("bonus") else ""
        print(f"{e['box']:<16} {e['entry_points']:>4}{bonus:<4}{fmt(e['value'])} {fmt(e['loss'])}")


def cmd_advise(args: argparse.Namespace) -> int:
    from device.paths import cache_dir
    from scoring.advisor.moment import advise_game, expected_score, keep_option
    from scoring.game import Game

    if args.game and args.option:
        raise UsageError("--option comes from the game file when --game is given")
    rulebook = get_rulebook(args.rules, _options(args.option, args.rules))
    if args.expected:
        from tqdm import tqdm

        from scoring.advisor.moment import FIVE_DICE

        if args.games < 2:
            raise UsageError("--games must be at least 2")
        exact = rulebook.id in FIVE_DICE  # solved, not simulated: no games to count
        if exact and not args.json:
            print(
                f"solving {rulebook.name} exactly (10-20 s the first time, then read from the "
                "cache)…",
                file=sys.stderr,
                flush=True,
            )
        bar = tqdm(
            total=args.games,
            desc="simulated solo games of difficile",
            unit="game",
            file=sys.stderr,
            disable=args.json or exact,
        )
        with bar:
            value, how = expected_score(
                rulebook, cache_dir(), games=args.games, progress=lambda n: bar.update(n - bar.n)
            )
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
        options = {e["box"]: e for e in advice["entries"]}
        if args.chose not in options:
            raise UsageError(f"{args.chose} cannot be written now")
        coach = {"choice": f"inscrire en {args.chose}", **_value_loss(options[args.chose])}
    elif args.kept is not None:
        try:
            positions = [int(p) for p in args.kept.replace(",", " ").split()]
            values = [moment.dice[p].value for p in positions]
        except (ValueError, IndexError):
            raise UsageError(f"--kept lists dice positions 0 to {len(moment.dice) - 1}") from None
        if not advice["keeps"]:
            raise UsageError("no free throw is left: nothing can be kept")
        kept = keep_option(advice, values)
        label = " ".join(map(str, kept["keep"])) or "rien"
        coach = {"choice": f"garder {label}", **_value_loss(kept)}
    if args.json:
        out = {"rules": rulebook.id, "player": moment.player, "throw": args.throw}
        out |= {"dice": [str(d) for d in moment.dice], **advice}
        if coach:
            out["coach"] = coach
        print(json.dumps(out, ensure_ascii=False))
        return 0
    _print_advice(advice, format_dice(moment.dice), moment.player, args.throw, moment.rulebook)
    if coach:
        unit = "points d'espérance" if advice["objective"] == "score" else "de chance de gagner"
        loss = coach["loss"] if advice["objective"] == "score" else coach["loss"] * 100
        print(f"coach : {coach['choice']} coûte {loss:.2f} {unit}")
    return 0


def _value_loss(option: dict[str, Any]) -> dict[str, float]:
    return {"value": round(option["value"], 6), "loss": round(option["loss"], 6)}
