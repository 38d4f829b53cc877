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


def cmd_demo(args: argparse.Namespace) -> int:
    from device.demo import play_demo

    play_demo(rules=args.rules, seed=args.seed, turns=args.turns)
    return 0


def cmd_export_corrections(args: argparse.Namespace) -> int:
    """Write the corrected dice's crops and labels for ``train --from-corrections``."""
    from device.corrections import ExportError, export_corrections

    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out} is a file, not a folder")
    store = _open_records(args)
    try:
        count = export_corrections(store, out)
    except ExportError as exc:
        raise UsageError(str(exc)) from None
    finally:
        store.close()
    print(f"{count} corrected dice written to {out} (labels in {out / 'labels.jsonl'})")
    return 0


def _open_records(args: argparse.Namespace) -> Any:
    """The records ``--data`` (or ``--config``) names, opened to be read: UsageError, with
    one line, when there are none there or they cannot be opened (a server unreachable)."""
    from device.config import ConfigError, load_config
    from device.serve import records_target
    from device.storage import Store, StoreError, is_url

    try:
        config = load_config(args.config)
    except ConfigError as exc:
        raise UsageError("; ".join(exc.problems)) from None
    data = records_target(config, args.data)
    if not is_url(data) and not Path(data).is_file():
        raise UsageError(f"no records file at {data}")
    try:
        return Store(data, table=config.table.table_name())
    except StoreError as exc:
        raise UsageError(str(exc)) from None


def cmd_records(args: argparse.Namespace) -> int:
    """The table's (or club's) records, as text or JSON; an unknown rulebook, player or
    table is one line and exit status 2."""
    from device.records import NotFound, records, text_lines

    store = _open_records(args)
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


def cmd_export(args: argparse.Namespace) -> int:
    """Games, turns, throws and entries as CSV and JSON files in a folder."""
    from device.export import FORMATS, export

    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out} is a file, not a folder")
    store = _open_records(args)
    try:
        written = export(store, out, FORMATS if args.format == "both" else (args.format,))
    finally:
        store.close()
    print(f"{len(written)} files written to {out}: " + ", ".join(p.name for p in written))
    return 0


def cmd_validate_config(args: argparse.Namespace) -> int:
    """Check a configuration file before the appliance starts on it; or print the example."""
    from device.config import Config, ConfigError, load_config
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


def cmd_check_model(args: argparse.Namespace) -> int:
    """Whether the die-face model computes on this machine as where it was exported."""
    from vision.errors import BadModelError
    from vision.faces import DEFAULT_MODEL, FaceReader
    from vision.model_check import check_reader

    try:
        result = check_reader(FaceReader(args.model or DEFAULT_MODEL))
    except BadModelError as exc:
        print(f"yamscope: error: {exc}", file=sys.stderr)
        return 2
    print(result.line())
    return 0 if result.ok else 1


def cmd_serve(args: argparse.Namespace) -> int:
    from device.config import ConfigError
    from device.serve import read_pin_file, records_target, serve, settings
    from device.settings import load_for_serve

    if args.pin is not None and args.pin_file is not None:
        raise UsageError("give --pin or --pin-file, not both")
    try:
        config = load_for_serve(args.config)  # else the settings page's file, if written
        pin = read_pin_file(Path(args.pin_file)) if args.pin_file is not None else args.pin
        server, camera = settings(
            config, host=args.host, port=args.port, pin=pin, camera=args.camera
        )
    except ConfigError as exc:
        raise UsageError("; ".join(exc.problems)) from None
    if args.pin is not None:
        print(
            "yamscope: warning: --pin can be read by every user of this machine (ps, "
            "/proc/PID/cmdline): put it in the configuration file (server.pin) or use --pin-file",
            file=sys.stderr,
        )
    data = records_target(config, args.data)
    config_path = Path(args.config) if args.config is not None else None
    return serve(
        config, server, data, camera=camera, advice=not args.no_advice, config_path=config_path
    )


# --- models: train and evaluate the die-face classifier (torch only for `train`) ---


def _rendered_scenes(folder: Path) -> None:
    """UsageError unless ``folder`` holds rendered scenes with full labels."""
    from models.datasets import DatasetError, open_dataset

    try:
        dataset = open_dataset(folder)
    except DatasetError as exc:
        raise UsageError(f"--scenes: {exc}") from None
    if dataset.format != "synthetic":
        raise UsageError(f"--scenes: {folder} is not a folder of rendered scenes (yamscope render)")


def cmd_train(args: argparse.Namespace) -> int:
    """Train the die-face CNN on synthetic crops and Rune55, or fine-tune it on corrected
    crops (needs the `train` extra: torch)."""
    try:
        from models.train import TrainConfig, finetune_corrections, train_dieface
    except ImportError as exc:
        raise UsageError(f"training needs torch: pip install -e '.[train]' ({exc})") from None
    cfg = TrainConfig(epochs=args.epochs, seed=args.seed, threads=args.threads)
    if args.lr is not None:
        cfg.lr = args.lr
    if args.synthetic is not None:
        cfg.synthetic = args.synthetic
    if args.epoch_crops is not None:
        cfg.epoch_crops = args.epoch_crops
    if not 0 <= args.wide_share <= 1:
        raise UsageError(f"--wide-share is a share of scenes, 0..1; not {args.wide_share}")
    cfg.wide_share = args.wide_share
    if args.rune55_repeats < 1:
        raise UsageError(f"--rune55-repeats is a count, 1 or more; not {args.rune55_repeats}")
    cfg.rune55_repeats = args.rune55_repeats
    if args.colour_repeats < 0:
        raise UsageError(f"--colour-repeats is a count, 0 or more; not {args.colour_repeats}")
    cfg.colour_repeats = args.colour_repeats
    if args.teacher:
        from models.distil import from_onnx

        try:
            from_onnx(Path(args.teacher))
        except (OSError, ValueError) as exc:
            raise UsageError(f"--teacher: {exc}") from None
        cfg.teacher = args.teacher
    if args.widths is not None:
        if any(w < 1 for w in args.widths):
            raise UsageError(f"--widths are channel counts, 1 or more; not {args.widths}")
        cfg.widths = tuple(args.widths)
    common = {"resume": args.resume, "progress": not args.quiet, "workers": args.workers}
    if args.from_corrections:
        if not args.weights:
            raise UsageError("--from-corrections needs --weights: the checkpoint to start from")
        if args.lr is None:
            cfg.lr = 3e-4  # a nudge, not a retraining
        if args.synthetic is None:
            cfg.synthetic = 300
        try:
            summary = finetune_corrections(
                Path(args.from_corrections), Path(args.weights), Path(args.out), cfg, **common
            )
        except (OSError, ValueError) as exc:
            raise UsageError(str(exc)) from None
    else:
        data = Path(args.data) if args.data else None
        weights = Path(args.weights) if args.weights else None
        scenes = [Path(s) for s in args.scenes]
        for folder in scenes:  # before hours of synthetic crops, not after
            _rendered_scenes(folder)
        summary = train_dieface(
            Path(args.out), data, cfg, weights=weights, device=args.device,
            minutes=args.minutes, scenes=scenes, **common,
        )  # fmt: skip
    best = summary["best"]
    print(
        f"best epoch {best['epoch']}: valid score {best['score']:.4f}; "
        f"{summary['train_seconds']:.0f} s of training; weights in {Path(args.out) / 'best.pt'}"
    )
    return 0


def cmd_evaluate_crops(args: argparse.Namespace) -> int:
    """Score the shipped ONNX model on Rune55 crops (value) or held-out synthetic crops (every
    head): accuracy, confusion, latency."""
    from models.evaluate import evaluate_crops

    return evaluate_crops(
        split=args.split,
        model=Path(args.model) if args.model else None,
        data=Path(args.data) if args.data else None,
        png=Path(args.png) if args.png else None,
        as_json=args.json,
        synthetic=args.synthetic,
        mistakes=Path(args.mistakes) if args.mistakes else None,
    )


def cmd_evaluate(args: argparse.Namespace) -> int:
    """Score recognise on a folder of labelled photos (YOLO or synthetic)."""
    from models.datasets import DatasetError
    from models.evaluate_scenes import evaluate_dataset
    from vision.calibration import load as load_calibration
    from vision.errors import VisionError

    if args.limit is not None and args.limit < 1:
        raise UsageError("--limit must be at least 1")
    try:
        calibration = load_calibration(args.calibration) if args.calibration else None
        return evaluate_dataset(
            args.dataset,
            out=Path(args.out) if args.out else None,
            as_json=args.json,
            labels=Path(args.labels) if args.labels else None,
            kind=args.kind,
            limit=args.limit,
            calibrated=not args.no_calibration,
            model=Path(args.model) if args.model else None,
            detector=Path(args.detector) if args.detector else None,
            cocked=Path(args.cocked) if args.cocked else None,
            field_of_view=args.field_of_view,
            calibration=calibration,
            resize=_size(args.resize) if args.resize else None,
            enrolment=Path(args.enrolment) if args.enrolment else None,
        )
    except (DatasetError, VisionError) as exc:
        raise UsageError(str(exc)) from None


def _size(text: str, option: str = "--resize") -> tuple[int, int]:
    """WIDTHxHEIGHT, each at least 64 (and at most the image limit), or UsageError."""
    try:
        width, height = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise UsageError(f"{option} is WIDTHxHEIGHT, e.g. 640x480; not {text!r}") from None
    if width < 64 or height < 64:
        raise UsageError(f"{option} must be at least 64x64, not {text}")
    if width * height > 64_000_000:
        raise UsageError(f"{option} {text} is larger than any camera frame yamscope reads")
    return width, height


def cmd_enrol(args: argparse.Namespace) -> int:
    """Learn the table's own dice from a folder of labelled photos of them."""
    from device.enrol import enrol_crops, labelled_crops, report_lines, right_share
    from device.paths import data_dir
    from models.datasets import DatasetError, open_dataset
    from vision.calibration import load as load_calibration
    from vision.enrolment import save
    from vision.errors import VisionError
    from vision.recognise import Recogniser

    out = Path(args.out) if args.out else data_dir() / "enrolment.json"
    try:
        calibration = load_calibration(args.calibration) if args.calibration else None
        dataset = open_dataset(args.dataset, Path(args.labels) if args.labels else None)
        recogniser = Recogniser(calibration, kinds=dataset.kinds)  # type: ignore[arg-type]
        labelled = labelled_crops(dataset, recogniser.reader, recogniser.finder, calibration)
    except (DatasetError, VisionError) as exc:
        raise UsageError(str(exc)) from None
    if not len(labelled.crops):
        raise UsageError(f"{args.dataset}: no labelled die was found in its photos")
    enrolment = enrol_crops(recogniser.reader, labelled)
    before = right_share(recogniser.reader, labelled, None)
    after = right_share(recogniser.reader, labelled, enrolment)
    save(enrolment, out)
    for line in report_lines(labelled, before, after, out):
        print(line)
    return 0


def cmd_render(args: argparse.Namespace) -> int:
    """Draw synthetic tray photos with exact labels into a folder (resumable)."""
    from models.synth.dataset import DatasetError, write_dataset

    if args.n < 1:
        raise UsageError("--n must be at least 1")
    if args.samples < 1:
        raise UsageError("--samples must be at least 1")
    width, height = _size(args.size, "--size")
    kinds = [k.strip() for k in args.kinds.split(",") if k.strip()]
    if not kinds or any(k not in ("d6", "d10") for k in kinds):
        raise UsageError(f"--kinds takes d10, d6 or d6,d10; not {args.kinds!r}")
    if args.impossible and kinds != ["d10"]:
        raise UsageError("--impossible draws ten d10: leave --kinds at d10")
    out = Path(args.out) if args.out else Path(__file__).resolve().parents[1] / "data" / "synth"
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out} is a file, not a folder")
    engine = None
    if args.engine == "numpy-wide":
        from models.synth.dataset import NUMPY_WIDE

        engine = NUMPY_WIDE
    if args.engine == "blender":
        try:
            from models.blender import engine as blender_engine

            engine = blender_engine(args.samples)
        except ImportError as exc:
            raise UsageError(
                f"--engine blender needs Blender's bpy: pip install -e '.[render]' ({exc})"
            ) from None
    try:
        summary = write_dataset(
            out,
            args.n,
            args.seed,
            size=(width, height),
            kinds=kinds,
            impossible=args.impossible,
            progress=not args.quiet,
            engine=engine,
        )
    except DatasetError as exc:
        raise UsageError(str(exc)) from None
    written, skipped = summary["written"], summary["skipped"]
    scenes = "scene" if written == 1 else "scenes"
    print(f"{written} {scenes} written, {skipped} already there: {out}")
    return 0


# --- vision: read dice in photos, calibrate on the empty tray ---


def _die_token(die: Any) -> str:
    """A read die in the dice notation (``7rt``), with ``?`` for an unknown colour and its
    flags in brackets."""
    colour = {"red": "r", "white": "w"}.get(die.colour, "?")
    flags = f"[{','.join(die.flags)}]" if die.flags else ""
    return f"{die.value}{colour}{die.finish[0]}{flags}"


def cmd_recognise(args: argparse.Namespace) -> int:
    """Read the dice in each photo; a bad photo is reported and the others still read."""
    from vision.calibration import load as load_calibration
    from vision.errors import VisionError
    from vision.images import load_image
    from vision.recognise import KINDS, Recogniser

    try:
        calibration = load_calibration(args.calibration) if args.calibration else None
        kinds = (args.kind,) if args.kind else KINDS
        recogniser = Recogniser(calibration, kinds=kinds)
    except VisionError as exc:
        raise UsageError(str(exc)) from None
    if args.count is not None and not 1 <= args.count <= 20:
        raise UsageError(f"--count takes 1 to 20 dice, not {args.count}")
    recogniser.expected = args.count
    if args.enrolment:
        from vision.enrolment import load as load_enrolment

        try:
            recogniser.reader.enrol(load_enrolment(args.enrolment, recogniser.reader.path))
        except VisionError as exc:  # read all the same, with the model's own head
            print(f"yamscope: warning: the model's own head reads: {exc}", file=sys.stderr)
    if recogniser.check_model() is not None:  # read all the same, every die flagged
        why = recogniser.distrust
        print(f"yamscope: warning: every die flagged unsure: {why}", file=sys.stderr)
    failed = 0
    for name in args.images:
        try:
            reading = recogniser(load_image(name))
        except VisionError as exc:
            print(f"yamscope: {exc}", file=sys.stderr)
            failed += 1
            continue
        if args.json:
            print(json.dumps(reading.to_json(name)), flush=True)
        else:
            dice = " ".join(_die_token(d) for d in reading.dice) or "no dice"
            print(f"{name}: {dice} ({len(reading.dice)} dice, {reading.ms:.0f} ms)", flush=True)
            for note in reading.notes:
                print(f"yamscope: {name}: {note}", file=sys.stderr)
    return 1 if failed else 0


def cmd_calibrate(args: argparse.Namespace) -> int:
    """Calibrate on a photo of the empty tray; save it, say what was found, draw it."""
    import cv2

    from device.paths import data_dir
    from vision.calibration import DEFAULT_FIELD_OF_VIEW, WIDEST_TRAINED, calibrate, save
    from vision.errors import VisionError
    from vision.images import load_image
    from vision.overlay import draw_calibration
    from vision.recognise import dice_seen

    out = Path(args.out) if args.out else data_dir() / "calibration.json"
    if args.out is None and out.exists() and not args.force:
        raise UsageError(
            f"{out} is the calibration the appliance reads (yamscope serve): give --force to "
            "replace it, or --out FILE to write another"
        )
    png = Path(args.png) if args.png else out.with_suffix(".png")
    try:
        image = load_image(args.image)
        told = args.field_of_view
        calibration = calibrate(
            image, field_of_view=DEFAULT_FIELD_OF_VIEW if told is None else told
        )
        seen = dice_seen(image, calibration)
    except VisionError as exc:
        raise UsageError(str(exc)) from None
    save(calibration, out)
    png.parent.mkdir(parents=True, exist_ok=True)
    if not cv2.imwrite(str(png), draw_calibration(image, calibration, seen)):
        raise OSError(f"cannot write {png}")
    width, height = calibration.size
    light, (l_, a_, b_) = calibration.light, calibration.felt.mean
    how = "measured on the dice in the photo" if calibration.die_measured else "guessed"
    share = calibration.tray_share
    print(f"tray: {len(calibration.area)} corners, {share:.0%} of the {width}x{height} photo")
    print(f"felt colour: L* {l_:.0f}, a* {a_:.0f}, b* {b_:.0f}")
    print(f"die size: {calibration.die_side:.0f} px ({how})")
    told_how = "not told: a Pi Camera Module 3's in 4:3" if told is None else "as told"
    print(f"camera: {calibration.field_of_view:g}° across ({told_how})")
    if calibration.summary()["wider_than_trained"]:
        print(
            f"camera: wider than the models learned (up to {WIDEST_TRAINED:g}°): dice near the "
            "wall may be read less well"
        )
    print(
        f"light: lightness {light.mean_lightness:.0f}, exposure {light.exposure:.0%}, "
        f"clipped {light.saturated_share:.2%}, unevenness {light.unevenness:.0%}"
    )
    for line in calibration.advice or ("light: good",):
        print(line)
    print(f"reader: {seen_line(seen)}")
    print(f"calibration written to {out}; drawing in {png}")
    return 0


def seen_line(boxes: list[tuple[int, int, int, int]]) -> str:
    """What the reader takes for dice on the calibration photo, said to its owner."""
    if not boxes:
        return "no die seen in this photo"
    where = ", ".join(f"({x0}, {y0})-({x1}, {y1})" for x0, y0, x1, y1 in boxes)
    return (
        f"{len(boxes)} {'die' if len(boxes) == 1 else 'dice'} seen in this photo, at {where}: "
        "a die left in the tray must come out (then calibrate again); anything else there "
        "is now part of the empty tray and will not be read as a die"
    )


def _add_option_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--option", action="append", default=[], metavar="NAME=VALUE", help="a rulebook option"
    )


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
    _add_option_flag(score)
    score.add_argument("dice", nargs="+", help="the dice, e.g. 7r 10wf 3rt")
    score.set_defaults(func=cmd_score)

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

    demo = sub.add_parser("demo", help="play a few simulated turns and show the engine's advice")
    demo.add_argument("--rules", default="impossible", choices=sorted(RULEBOOKS))
    demo.add_argument("--seed", type=int, default=None)
    demo.add_argument("--turns", type=int, default=4)
    demo.set_defaults(func=cmd_demo)

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

    chk = sub.add_parser(
        "check-model",
        help="check that the die-face model computes here as where it was exported",
        description="Read the check crops recorded beside the die-face model at its export "
        "(NAME.check.npz) and compare every head's probabilities: exit status 0 when they "
        "agree, 1 when this machine computes otherwise (its readings cannot be trusted), 2 "
        "when the model, its card or its check crops are missing or unreadable.",
    )
    chk.add_argument("--model", type=Path, metavar="ONNX", help="default: the shipped model")
    chk.set_defaults(func=cmd_check_model)

    srv = sub.add_parser(
        "serve",
        help="the appliance: the table page and its API",
        description="Serve the table page (/) and the JSON API (/api/). Binds to 127.0.0.1 "
        "unless told otherwise; any other address needs --pin.",
    )
    srv.add_argument("--config", metavar="FILE", help="a configuration file (TOML)")
    srv.add_argument("--host", help="address to bind (default 127.0.0.1, or the config's)")
    srv.add_argument("--port", type=int, help="port (default 8600, or the config's)")
    srv.add_argument(
        "--data",
        metavar="PATH",
        help="the records: an SQLite file or a postgresql:// address (default: the config's "
        "storage.url, else yamscope.db in its storage.data_dir: "
        "the user data folder, or $YAMSCOPE_DATA_DIR)",
    )
    srv.add_argument(
        "--pin",
        help="a code every changing action needs (required off loopback); other users of "
        "this machine can read it here: prefer --pin-file or server.pin in --config",
    )
    srv.add_argument(
        "--pin-file", metavar="FILE", help="a file whose first line is the PIN (chmod 600 it)"
    )
    srv.add_argument("--camera", metavar="SPEC", help="the dice source; only 'simulated' for now")
    srv.add_argument("--no-advice", action="store_true", help="do not compute the advisor's advice")
    srv.set_defaults(func=cmd_serve)

    trn = sub.add_parser(
        "train",
        help="train the die-face classifier on synthetic crops and Rune55 (needs torch)",
        description="Train the die-face CNN on synthetic crops (cached in data/) and the Rune55 "
        "train split, pick the epoch by Rune55 valid and synthetic valid; or, with "
        "--from-corrections, fine-tune a checkpoint on crops corrected on the appliance. "
        "A checkpoint per epoch in OUT, best weights in OUT/best.pt.",
    )
    trn.add_argument("--out", required=True, metavar="DIR", help="checkpoints go here")
    trn.add_argument("--epochs", type=int, default=12)
    trn.add_argument("--resume", action="store_true", help="continue after the last checkpoint")
    trn.add_argument("--data", metavar="DIR", help="the rune55-d6 folder (default ../shared)")
    trn.add_argument("--seed", type=int, default=0)
    trn.add_argument("--threads", type=int, default=2, help="torch CPU threads")
    trn.add_argument(
        "--synthetic",
        type=int,
        metavar="SCENES",
        help="synthetic training scenes, about 7 dice each (default 6000; 300 to fine-tune)",
    )
    trn.add_argument(
        "--epoch-crops",
        type=int,
        metavar="N",
        help="crops drawn at random for each epoch (default: all; shorter epochs, more checks)",
    )
    trn.add_argument("--workers", type=int, default=2, help="processes rendering scenes")
    trn.add_argument("--lr", type=float, help="peak learning rate (3e-3; 3e-4 to fine-tune)")
    trn.add_argument(
        "--from-corrections",
        metavar="DIR",
        help="fine-tune on DIR/labels.jsonl and its PNG crops (see models/corrections.py)",
    )
    trn.add_argument(
        "--weights",
        metavar="PT",
        help="start from this checkpoint (1.x ones too; best.pt) or an "
        "exported model (an .onnx file)",
    )
    trn.add_argument(
        "--scenes",
        action="append",
        default=[],
        metavar="DIR",
        help="a folder of rendered scenes (yamscope render --engine blender) whose dice are "
        "trained on too, about a quarter of each epoch; repeat for more folders",
    )
    trn.add_argument(
        "--wide-share",
        type=float,
        default=0.0,
        metavar="SHARE",
        help="cut the synthetic crops as a calibrated appliance does (top face only), SHARE "
        "of the scenes seen by a camera as wide as a Pi camera module's (0..1; default 0: "
        "the narrow camera, whole boxes)",
    )
    trn.add_argument(
        "--rune55-repeats",
        type=int,
        default=1,
        metavar="N",
        help="Rune55's train crops appear N times in each epoch (each augmented anew; default 1)",
    )
    trn.add_argument(
        "--colour-repeats",
        type=int,
        default=0,
        metavar="N",
        help="roboflow-dice-d6's colour train photos' dice appear N times in each epoch "
        "(default 0: not used)",
    )
    trn.add_argument(
        "--widths",
        type=int,
        nargs=4,
        metavar="W",
        help="the net's four channel widths (default 16 32 64 128; fewer: faster, see "
        "docs/speed.md; with --weights the checkpoint's own)",
    )
    trn.add_argument(
        "--teacher",
        metavar="ONNX",
        help="a float die-face model that teaches: the net starts from its strongest filters "
        "(unless --weights) and learns its probabilities beside the labels",
    )
    trn.add_argument("--device", default="cpu", help="torch device: cpu, or cuda on a GPU")
    trn.add_argument(
        "--minutes", type=float, default=0.0, help="stop after this; the schedule ends there"
    )
    trn.add_argument("--quiet", action="store_true", help="no progress bar")
    trn.set_defaults(func=cmd_train)

    evc = sub.add_parser(
        "evaluate-crops",
        help="score the shipped die-face model on Rune55 or held-out synthetic crops",
        description="Value accuracy (all, and on photos whose source is not in train), "
        "confusion matrix and latency of the ONNX die-face model on a Rune55 split; with "
        "--synthetic, the accuracy and confusion of every head on held-out synthetic crops.",
    )
    evc.add_argument("--split", default="test", choices=("train", "valid", "test"))
    evc.add_argument("--model", metavar="ONNX", help="default: models/dieface.onnx")
    evc.add_argument("--data", metavar="DIR", help="the rune55-d6 folder (default ../shared)")
    evc.add_argument("--png", metavar="PNG", help="also draw the confusion matrix into this PNG")
    evc.add_argument("--json", action="store_true", help="JSON for tools")
    evc.add_argument(
        "--mistakes",
        metavar="PNG",
        help="draw the crops whose value was misread, label>read and photo, for a person to "
        "check the labels",
    )
    evc.add_argument(
        "--synthetic",
        type=int,
        nargs="?",
        const=600,
        metavar="SCENES",
        help="score every head on held-out synthetic scenes instead (default 600 scenes)",
    )
    evc.set_defaults(func=cmd_evaluate_crops)

    evs = sub.add_parser(
        "evaluate",
        help="score the whole reading pipeline on a folder of labelled photos",
        description="Read every photo of DATASET as the appliance does (one thread) and match "
        "the dice read to the labelled ones (a read box's centre in the labelled box or the "
        "labelled centre in the read box, one to one; IoU >= 0.5 beside it): detection "
        "precision and recall, dice found twice, accuracy of each attribute, photos read "
        "entirely right, flags, cocked dice, latency. DATASET: a folder of photos (images/ + "
        "labels/*.txt, YOLO lines or 'KIND VALUE x0 y0 x1 y1' in pixels; e.g. "
        "rune55-d6/test) or a synthetic one (yamscope render). Confusion matrices go to --out "
        "as PNG.",
    )
    evs.add_argument("dataset", metavar="DATASET")
    evs.add_argument("--json", action="store_true", help="JSON for tools")
    evs.add_argument("--model", metavar="ONNX", help="die-face model (default: the shipped one)")
    evs.add_argument("--detector", metavar="ONNX", help="detector (default: the shipped one)")
    evs.add_argument("--cocked", metavar="ONNX", help="cocked-die model (default: the shipped one)")
    evs.add_argument("--out", metavar="DIR", help="default: data/evaluate/<dataset name>/")
    evs.add_argument("--limit", type=int, metavar="N", help="only the first N photos")
    evs.add_argument(
        "--labels", metavar="DIR", help="the photos' label files, when not in DATASET/labels"
    )
    evs.add_argument(
        "--calibration", metavar="FILE", help="read every photo with this tray's calibration"
    )
    evs.add_argument("--resize", metavar="WxH", help="scale each photo and its labels to WxH first")
    evs.add_argument(
        "--enrolment", metavar="FILE", help="read with the table's own dice (yamscope enrol)"
    )
    evs.add_argument(
        "--no-calibration",
        action="store_true",
        help="synthetic sets: read without calibrating on each empty tray",
    )
    evs.add_argument(
        "--kind", choices=("d6", "d10"), help="every die is of this kind (default: the dataset's)"
    )
    evs.add_argument(
        "--field-of-view",
        type=float,
        metavar="DEG",
        help="synthetic sets: calibrate as if the camera saw DEG degrees across, not what the "
        "labels say (to measure a wrong setting)",
    )
    evs.set_defaults(func=cmd_evaluate)

    enr = sub.add_parser(
        "enrol",
        help="learn the table's own dice from labelled photos of them",
        description="Read every photo of DATASET (images/ + labels/, YOLO or 'KIND VALUE x0 "
        "y0 x1 y1' lines) as the appliance does, and fit the table's own value head on the "
        "dice found (vision/enrolment.py); says the dice read right before and after. "
        "yamscope serve reads it from beside the calibration.",
    )
    enr.add_argument("dataset", metavar="DATASET")
    enr.add_argument("--out", metavar="FILE", help="default: enrolment.json in the data folder")
    enr.add_argument("--labels", metavar="DIR", help="the label files, when not DATASET/labels")
    enr.add_argument("--calibration", metavar="FILE", help="the photos are of this tray")
    enr.set_defaults(func=cmd_enrol)

    rnd = sub.add_parser(
        "render",
        help="draw synthetic tray photos with exact labels",
        description="Draw N synthetic photos of dice in a felt tray into DIR: images/, masks/ "
        "(die i's visible pixels are i+1), labels/ (JSON: kind, value, colour, finish, cocked, "
        "box per die). Scene i depends only on the seed and i; a second run resumes.",
    )
    rnd.add_argument("--n", type=int, required=True, help="number of scenes")
    rnd.add_argument("--out", metavar="DIR", help="default: data/synth in the repository")
    rnd.add_argument("--seed", type=int, default=0)
    rnd.add_argument("--size", default="640x480", help="photo size WIDTHxHEIGHT")
    rnd.add_argument("--kinds", default="d10", help="d10, d6 or d6,d10")
    rnd.add_argument("--impossible", action="store_true", help="ten d10, five red, five white")
    rnd.add_argument(
        "--engine",
        choices=("numpy", "numpy-wide", "blender"),
        default="numpy",
        help="numpy: the fast generator (default); numpy-wide: the same seen by a camera as "
        "wide as a Pi camera module's; blender: photoreal Cycles renders (extra 'render', "
        "~30 s a 640x480 scene)",
    )
    rnd.add_argument("--samples", type=int, default=16, help="Cycles samples a pixel (blender)")
    rnd.add_argument("--quiet", action="store_true", help="no progress bar")
    rnd.set_defaults(func=cmd_render)

    rec = sub.add_parser(
        "recognise",
        help="read the dice in photos",
        description="Read every die in each photo: kind, value, colour, finish, confidence, "
        "box and flags (cocked, occluded, unsure). --json: one JSON object per image (JSON "
        "Lines). A photo that cannot be read is reported on stderr and the others still are.",
    )
    rec.add_argument("--json", action="store_true", help="JSON Lines for tools")
    rec.add_argument("--calibration", metavar="FILE", help="a calibration (yamscope calibrate)")
    rec.add_argument("--kind", choices=("d6", "d10"), help="every die is of this kind")
    rec.add_argument(
        "--count",
        type=int,
        metavar="N",
        help="N dice were thrown (a calibrated tray then accounts for a count that is off)",
    )
    rec.add_argument(
        "--enrolment", metavar="FILE", help="read with the table's own dice (yamscope enrol)"
    )
    rec.add_argument("images", nargs="+", metavar="IMAGE")
    rec.set_defaults(func=cmd_recognise)

    cal = sub.add_parser(
        "calibrate",
        help="calibrate on a photo of the empty tray",
        description="Find the felt, its colour, the die size and the light in a photo of the "
        "empty tray (a die or two in it give the die size); write the calibration and a PNG "
        "with the felt's outline and a die-size square.",
    )
    cal.add_argument("image", metavar="IMAGE")
    cal.add_argument(
        "--out", metavar="FILE", help="default: calibration.json in the user data folder"
    )
    cal.add_argument("--png", metavar="FILE", help="default: beside --out, ending .png")
    cal.add_argument(
        "--force",
        action="store_true",
        help="replace the appliance's calibration (the default --out) when there is one",
    )
    cal.add_argument(
        "--field-of-view",
        type=float,
        metavar="DEG",
        help="how many degrees across the camera's frames see, which a photo does not tell; "
        "the cocked-die model and the face reading need it (default: 52, a Raspberry Pi "
        "Camera Module 3 in a 4:3 stream such as 1280x960, cut from its 66° 16:9 view; "
        "Camera Module 2: 62.2; an HQ camera: its lens's)",
    )
    cal.set_defaults(func=cmd_calibrate)
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
