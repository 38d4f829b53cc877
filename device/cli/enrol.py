"""`yamscope enrol`: learn the table's own dice from labelled photos of them."""

from __future__ import annotations

import argparse
from pathlib import Path

from device.cli.common import Commands, UsageError


def register(sub: Commands) -> None:
    """The ``enrol`` command and its options."""
    enr = sub.add_parser(
        "enrol",
        help="learn the table's own dice from labelled photos of them",
        description="Read every photo of DATASET (images/ + labels/, YOLO or 'KIND VALUE x0 "
        "y0 x1 y1' lines) as the appliance does, and fit the table's own value head on the "
        "dice found (vision/enrolment.py), and with --calibration its cocked-die head on the "
        "same flat dice; says the dice read right, and flat dice called cocked, before and "
        "after. "
        "yamscope serve reads it from beside the calibration.",
    )
    enr.add_argument("dataset", metavar="DATASET")
    enr.add_argument("--out", metavar="FILE", help="default: enrolment.json in the data folder")
    enr.add_argument("--labels", metavar="DIR", help="the label files, when not DATASET/labels")
    enr.add_argument("--calibration", metavar="FILE", help="the photos are of this tray")
    enr.add_argument(
        "--model",
        metavar="ONNX",
        help="die-face model to fit on (default: the shipped one); read later with the same "
        "--model",
    )
    enr.set_defaults(func=cmd_enrol)


def cmd_enrol(args: argparse.Namespace) -> int:
    """Learn the table's own dice from a folder of labelled photos of them."""
    from device.enrol import cocked_change, enrol_crops, labelled_crops, report_lines, right_share
    from device.paths import data_dir
    from models.common.datasets import DatasetError, open_dataset
    from vision.calibration import load as load_calibration
    from vision.enrolment import save
    from vision.errors import VisionError
    from vision.faces import DEFAULT_MODEL
    from vision.recognise import Recogniser

    out = Path(args.out) if args.out else data_dir() / "enrolment.json"
    try:
        calibration = load_calibration(args.calibration) if args.calibration else None
        dataset = open_dataset(args.dataset, Path(args.labels) if args.labels else None)
        recogniser = Recogniser(
            calibration,
            model=args.model or DEFAULT_MODEL,
            kinds=dataset.kinds,  # type: ignore[arg-type]
        )
        labelled = labelled_crops(
            dataset, recogniser.reader, recogniser.finder, calibration, recogniser.leaning
        )
    except (DatasetError, VisionError) as exc:
        raise UsageError(str(exc)) from None
    if not len(labelled.crops):
        raise UsageError(f"{args.dataset}: no labelled die was found in its photos")
    enrolment = enrol_crops(recogniser.reader, labelled, leaning=recogniser.leaning)
    before = right_share(recogniser.reader, labelled, None)
    after = right_share(recogniser.reader, labelled, enrolment)
    change = cocked_change(recogniser.leaning, labelled, enrolment)
    cocked: tuple[int, int] | str = (
        change
        if change is not None
        else "the photos need the tray's --calibration"
        if calibration is None
        else f"no anchors for {recogniser.leaning.path} beside it (yamscope train-cocked "
        "--anchors writes them)"
    )
    save(enrolment, out)
    for line in report_lines(labelled, before, after, out, cocked):
        print(line)
    return 0
