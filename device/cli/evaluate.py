"""`yamscope evaluate`: the whole reading pipeline scored on labelled photos."""

from __future__ import annotations

import argparse
from pathlib import Path

from device.cli.common import Commands, UsageError, _size


def register(sub: Commands) -> None:
    """The ``evaluate`` command and its options."""
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
        "as PNG, with every die read wrong, made up or missed (mistakes.csv) and the silent "
        "errors drawn (silent.png).",
    )
    evs.add_argument("dataset", metavar="DATASET")
    evs.add_argument("--json", action="store_true", help="JSON for tools")
    evs.add_argument("--model", metavar="ONNX", help="die-face model (default: the shipped one)")
    evs.add_argument("--detector", metavar="ONNX", help="detector (default: the shipped one)")
    evs.add_argument("--cocked", metavar="ONNX", help="cocked-die model (default: the shipped one)")
    evs.add_argument(
        "--no-numerals",
        action="store_true",
        help="no second look at a doubtful d10's numeral (vision/numerals.py): to measure it",
    )
    slanted = evs.add_mutually_exclusive_group()
    slanted.add_argument(
        "--slanted",
        metavar="ONNX",
        help="the model that reads the d10 of a photo without a calibration again "
        "(vision/slanted.py; default: the shipped one)",
    )
    slanted.add_argument(
        "--no-slanted",
        action="store_true",
        help="no such second reading of a slanted photo's d10: to measure what it brings",
    )
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
        "--dice",
        type=int,
        metavar="N",
        help="every photo holds N dice, as the game tells the appliance: a calibrated tray "
        "then explains a count that is off (default: not told)",
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


def cmd_evaluate(args: argparse.Namespace) -> int:
    """Score recognise on a folder of labelled photos (YOLO or synthetic)."""
    from models.common.datasets import DatasetError
    from models.common.evaluate_scenes import evaluate_dataset
    from vision.calibration import load as load_calibration
    from vision.errors import VisionError

    if args.limit is not None and args.limit < 1:
        raise UsageError("--limit must be at least 1")
    if args.dice is not None and args.dice < 1:
        raise UsageError("--dice must be at least 1")
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
            dice=args.dice,
            numerals=not args.no_numerals,
            slanted=Path(args.slanted) if args.slanted else None,
            slanted_look=not args.no_slanted,
        )
    except (DatasetError, VisionError) as exc:
        raise UsageError(str(exc)) from None
