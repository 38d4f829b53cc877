"""`yamscope recognise`: read the dice in photos."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from device.cli.common import Commands, UsageError


def register(sub: Commands) -> None:
    """The ``recognise`` command and its options."""
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
            recogniser.enrol(load_enrolment(args.enrolment, recogniser.reader.path))
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
