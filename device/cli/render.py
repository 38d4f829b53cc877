"""`yamscope render` (lab): synthetic tray photos with exact labels."""

from __future__ import annotations

import argparse
from pathlib import Path

from device.cli.common import Commands, UsageError, _size, add_look_flags, ask_looks


def register(sub: Commands) -> None:
    """The ``render`` command and its options."""
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
        choices=("numpy", "numpy-wide", "numpy-slanted", "blender", "blender-phone"),
        default="numpy",
        help="numpy: the fast generator (default); numpy-wide: the same seen by a camera as "
        "wide as a Pi camera module's; numpy-slanted: the dice seen by a camera held 20-60 "
        "degrees from straight down, as a phone's photo (the tray still drawn from above); "
        "blender: photoreal Cycles renders (extra 'render', ~30 s a 640x480 scene); "
        "blender-phone: the same dice on a table (wood, cloth, cork, a printed board) seen by "
        "a phone held 20-55 degrees from straight down, no tray and no empty-tray photo",
    )
    rnd.add_argument("--samples", type=int, default=16, help="Cycles samples a pixel (blender)")
    rnd.add_argument(
        "--dice-set",
        choices=("house", "ivory", "opaque", "varied"),
        default="house",
        help="the dice's look (blender): house, the look the die-face model learned (default); "
        "ivory, a set no model saw (crimson and ivory glossy plastic, gilt and navy numerals in "
        "Blender's Inter), to measure enrolment; opaque, another (white with black numerals, "
        "blue marbled with white ones, in the 'red' slot: colour is not scored); varied, a new "
        "set each scene (plastic, ink, typeface, weight), for training",
    )
    rnd.add_argument(
        "--one-table",
        type=int,
        metavar="SEED",
        help="blender: every scene on one table drawn from SEED (felt, camera, light and the "
        "dice's colours and finishes stay; each throw lands anew), as one appliance sees an "
        "evening: two folders on one table with other --seed, one to enrol on, one to read",
    )
    rnd.add_argument("--quiet", action="store_true", help="no progress bar")
    add_look_flags(rnd)
    rnd.set_defaults(func=cmd_render)


def cmd_render(args: argparse.Namespace) -> int:
    """Draw synthetic tray photos with exact labels into a folder (resumable)."""
    ask_looks(args)
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
    out = Path(args.out) if args.out else Path(__file__).resolve().parents[2] / "data" / "synth"
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out} is a file, not a folder")
    blender = args.engine in ("blender", "blender-phone")
    if not blender and (args.dice_set != "house" or args.one_table is not None):
        raise UsageError("--dice-set and --one-table need --engine blender or blender-phone")
    engine = None
    if args.engine == "numpy-wide":
        from models.synth.dataset import NUMPY_WIDE

        engine = NUMPY_WIDE
    if args.engine == "numpy-slanted":
        from models.synth.dataset import NUMPY_SLANTED

        engine = NUMPY_SLANTED
    if blender:
        try:
            from models.blender import engine as blender_engine

            phone = args.engine == "blender-phone"
            engine = blender_engine(args.samples, args.dice_set, args.one_table, phone)
        except ImportError as exc:
            raise UsageError(
                f"--engine {args.engine} needs Blender's bpy: pip install -e '.[render]' ({exc})"
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
