"""`yamscope calibrate`: calibrate on a photo of the empty tray."""

from __future__ import annotations

import argparse
from pathlib import Path

from device.cli.common import Commands, UsageError


def register(sub: Commands) -> None:
    """The ``calibrate`` command and its options."""
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
