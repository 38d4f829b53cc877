"""Random tables and throws: trays, dice specs, and where the dice come to rest."""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import replace

import cv2
import numpy as np

from models.synth.core import FACES, KINDS, DieSpec, Pose, Scene, Tray
from models.synth.draw import render
from models.synth.glyphs import FONTS, font_count
from models.synth.solids import hull, outline, posed, solid

#: BGR felt colours by family; each tray jitters one of them
FELTS = {
    "green": (52, 112, 38),
    "blue": (140, 78, 28),
    "red-brown": (42, 48, 112),
    "grey": (104, 104, 100),
    "black": (30, 29, 31),
}
WALLS = ((35, 42, 58), (22, 22, 24), (70, 95, 130), (120, 140, 165), (60, 62, 66))
TABLES = ((52, 75, 110), (40, 58, 85), (80, 100, 130), (45, 45, 48), (150, 155, 160))
MARBLED = "YAMSCOPE_SYNTH_MARBLED"  # set to 1: half the sets of dice marbled (training)
MARBLED_SHARE = 0.5
NUMBERED = "YAMSCOPE_SYNTH_NUMBERED"  # set to 1: a share of the sets' d6 numbered (training)
NUMBERED_SHARE = 0.3
LETTERED = "YAMSCOPE_SYNTH_LETTERED"  # set to 1: most sets' numerals lettered anew (training)
LETTERED_SHARE = 0.7
#: The ranges of a lettered set's numerals: stroke change (128-px tile pixels), width, size,
#: slant; thin to bold and condensed to wide, as real dice's numerals are.
LETTERING = ((-2.5, 3.5), (0.75, 1.3), (0.85, 1.3), (-0.2, 0.2))


def _jitter(rng: np.random.Generator, bgr: Sequence[int], amount: float) -> tuple[int, int, int]:
    scale = rng.uniform(1 - amount, 1 + amount) * rng.uniform(1 - amount / 3, 1 + amount / 3, 3)
    b, g, r = np.clip(np.array(bgr) * scale, 0, 255).round().astype(int)
    return int(b), int(g), int(r)


# The range of the camera's height above the felt, in frame widths (its focal length): the
# generator's usual narrow lens (22-42° across), and one as wide as a Raspberry Pi camera
# module's (42-75°; a Camera Module 3 sees 66°, 0.77), which sees the flat dice near the wall
# at a slant.
NARROW_CAMERA = (1.3, 2.6)
WIDE_CAMERA = (0.65, 1.3)
# The range of a camera held at a slant, as for a phone's photo: degrees from straight down.
SLANTED_CAMERA = (20.0, 60.0)


def random_tray(
    rng: np.random.Generator,
    size: tuple[int, int] = (640, 480),
    camera: tuple[float, float] = NARROW_CAMERA,
    slant: tuple[float, float] | None = None,
) -> Tray:
    """A random table: felt colour, tray placement in the frame, camera height, lamp, the
    camera's noise and the colours and numeral style of the set of dice. ``camera``: the
    range of the camera's height above the felt, in frame widths; ``slant``: the range of
    its tilt from straight down in degrees (None: straight down, as the appliance's)."""
    w, h = int(size[0]), int(size[1])
    if w < 64 or h < 64:
        raise ValueError(f"a photo of at least 64x64 pixels, not {w}x{h}")
    short = min(w, h)
    die = float(rng.uniform(0.05, 0.082) * short)
    wall_w = round(float(rng.uniform(0.5, 1.4)) * die)
    # the tray's outer edge covers 80..104 % of the frame, off centre a little
    out_w, out_h = w * rng.uniform(0.8, 1.04), h * rng.uniform(0.8, 1.04)
    ox = w / 2 + rng.uniform(-0.04, 0.04) * w
    oy = h / 2 + rng.uniform(-0.04, 0.04) * h
    x0 = max(0, round(ox - out_w / 2 + wall_w))
    x1 = min(w, round(ox + out_w / 2 - wall_w))
    y0 = max(0, round(oy - out_h / 2 + wall_w))
    y1 = min(h, round(oy + out_h / 2 - wall_w))
    family = list(FELTS)[int(rng.integers(len(FELTS)))]
    az = rng.uniform(0, 2 * math.pi)
    el = math.radians(rng.uniform(40, 82))
    light = (math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), math.sin(el))
    warm = rng.uniform(-0.08, 0.08)
    hot = rng.random() < 0.4
    red = (rng.integers(20, 65), rng.integers(15, 50), rng.integers(150, 225))
    white_level = rng.uniform(205, 240)
    white = np.clip(white_level + rng.uniform(-10, 6, 3), 0, 255)
    tray = Tray(
        size=(w, h),
        felt=_jitter(rng, FELTS[family], 0.18),
        area=(int(x0), int(y0), int(x1), int(y1)),
        die_side=round(die, 2),
        seed=int(rng.integers(2**31)),
        wall=_jitter(rng, WALLS[int(rng.integers(len(WALLS)))], 0.2),
        wall_width=wall_w,
        wall_height=round(float(rng.uniform(1.3, 3.0) * die), 2),
        table=_jitter(rng, TABLES[int(rng.integers(len(TABLES)))], 0.2),
        felt_grain=round(float(rng.uniform(0.025, 0.07)), 4),
        camera_height=round(float(rng.uniform(*camera) * w), 1),
        light=tuple(round(v, 4) for v in light),
        ambient=round(float(rng.uniform(0.35, 0.6)), 3),
        exposure=round(float(rng.uniform(0.85, 1.15)), 3),
        gradient=(
            round(float(rng.uniform(-0.15, 0.15)), 3),
            round(float(rng.uniform(-0.15, 0.15)), 3),
        ),
        vignette=round(float(rng.uniform(0.0, 0.35)), 3),
        hotspot=(
            round(float(rng.uniform(0.2, 0.8)), 3),
            round(float(rng.uniform(0.2, 0.8)), 3),
            round(float(rng.uniform(0.15, 0.4)), 3),
            round(float(rng.uniform(0.05, 0.25)), 3) if hot else 0.0,
        ),
        white_balance=(
            round(float(1 - warm + rng.uniform(-0.02, 0.02)), 3),
            1.0,
            round(float(1 + warm + rng.uniform(-0.02, 0.02)), 3),
        ),
        noise=round(float(rng.uniform(1.0, 5.0)), 2),
        shot=round(float(rng.uniform(0.2, 1.2)), 2),
        blur=round(float(rng.uniform(0.3, 1.0)), 2) if rng.random() < 0.5 else 0.0,
        glare=round(float(rng.uniform(0.1, 0.5)), 2) if rng.random() < 0.2 else 0.0,
        jpeg=int(rng.integers(70, 96)) if rng.random() < 0.5 else 0,
        red=tuple(int(v) for v in red),
        white=tuple(int(v) for v in white.round()),
        ink_dark=_jitter(rng, (28, 26, 30), 0.3),
        ink_light=_jitter(rng, (238, 240, 242), 0.03),
        font=int(rng.integers(font_count())),
        slant=round(float(rng.uniform(*slant)), 1) if slant else 0.0,  # last: other trays as before
    )
    if marbled() and rng.random() < MARBLED_SHARE:  # drawn after the rest: plain sets as before
        tray = replace(tray, **_marble(rng))
    if numbered() and rng.random() < NUMBERED_SHARE:  # last again: the other sets as before
        tray = replace(tray, numbered=True)
    if lettered() and rng.random() < LETTERED_SHARE:  # last again: the other sets as before
        lettering = tuple(round(float(rng.uniform(*span)), 3) for span in LETTERING)
        tray = replace(tray, lettering=lettering)
    return tray


def marbled() -> bool:
    """Whether the environment asks for marbled dice (``MARBLED``: training on them; the eval
    sets and the simulated tray keep the plain plastic the shipped model learned)."""
    return _asked(MARBLED)


def numbered() -> bool:
    """Whether the environment asks for d6 with numerals (``NUMBERED``: training on them; the
    eval sets and the simulated tray keep the pips the shipped model learned)."""
    return _asked(NUMBERED)


def lettered() -> bool:
    """Whether the environment asks for numerals lettered anew (``LETTERED``: training on
    them; the eval sets and the simulated tray draw the typefaces as they are)."""
    return _asked(LETTERED)


def _asked(variable: str) -> bool:
    return os.environ.get(variable, "") not in ("", "0")


def asked_looks() -> list[str]:
    """The generator's options the environment asks for, beyond the appliance's own dice."""
    asked = {
        "typefaces": font_count() != len(FONTS),
        "marbled": marbled(),
        "numbered": numbered(),
        "lettered": lettered(),
    }
    return [name for name, wanted in asked.items() if wanted]


def _marble(rng: np.random.Generator) -> dict:
    """A marbled set: the veins' strength, light or dark veins in the red dice, veins of any
    hue in the white ones."""
    level = rng.uniform(200, 250) if rng.random() < 0.5 else rng.uniform(15, 60)
    red_vein = np.clip(level + rng.uniform(-12, 12, 3), 0, 255)
    hsv = np.array([[[rng.integers(180), rng.integers(90, 256), rng.integers(60, 210)]]], np.uint8)
    white_vein = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0]
    return {
        "marble": round(float(rng.uniform(0.35, 0.9)), 3),
        "marble_red": tuple(int(v) for v in red_vein.round()),
        "marble_white": tuple(int(v) for v in white_vein),
    }


def random_specs(
    rng: np.random.Generator,
    n: int,
    kinds: Sequence[str] = ("d10",),
    impossible: bool = False,
    cocked: float = 0.0,
    finish: str | None = None,
) -> list[DieSpec]:
    """``n`` random dice. ``impossible``: the ten d10 of Yams impossible, five red and five
    white (``n`` must be 10). ``cocked``: the chance each die is cocked. ``finish`` gives every
    die that finish; by default each die's is random."""
    if finish not in (None, "frosted", "transparent"):
        raise ValueError(f"finish is 'frosted' or 'transparent', not {finish!r}")
    kinds = tuple(kinds)
    bad = [k for k in kinds if k not in KINDS]
    if not kinds or bad:
        raise ValueError(f"kinds are {', '.join(KINDS)}; not {bad or 'none'}")
    if impossible:
        if n != 10:
            raise ValueError("an impossible set is ten d10")
        colours = ["red"] * 5 + ["white"] * 5
        rng.shuffle(colours)
        kind_of = ["d10"] * 10
    else:
        if n < 0:
            raise ValueError("n must not be negative")
        colours = [("red", "white")[int(rng.integers(2))] for _ in range(n)]
        kind_of = [kinds[int(rng.integers(len(kinds)))] for _ in range(n)]
    specs = []
    for kind, colour in zip(kind_of, colours, strict=True):
        value = int(rng.integers(1, FACES[kind] + 1))
        fin = finish or ("frosted", "transparent")[int(rng.integers(2))]
        specs.append(DieSpec(kind, value, colour, fin, cocked=bool(rng.random() < cocked)))  # type: ignore[arg-type]
    return specs


# --- placement ---------------------------------------------------------------------------


def _overlap(a: np.ndarray, b: np.ndarray) -> float:
    area, _ = cv2.intersectConvexConvex(a, b)
    return float(area)


def _grow(poly: np.ndarray, px: float) -> np.ndarray:
    """The convex polygon pushed out by about ``px`` pixels (a clearance margin)."""
    c = poly.mean(0)
    d = poly - c
    r = np.linalg.norm(d, axis=1, keepdims=True) + 1e-6
    return (c + d * (1 + px / r)).astype(np.float32)


def _inside(poly: np.ndarray, rect: Sequence[float], margin: float = 0.0) -> bool:
    x0, y0, x1, y1 = rect
    return bool(
        (poly[:, 0] >= x0 + margin).all()
        and (poly[:, 0] <= x1 - margin).all()
        and (poly[:, 1] >= y0 + margin).all()
        and (poly[:, 1] <= y1 - margin).all()
    )


def _contact(test, lo: float, hi: float) -> float:
    """The smallest distance in [lo, hi] at which ``test(distance)`` is clear (bisection)."""
    for _ in range(14):
        mid = (lo + hi) / 2
        if test(mid):
            hi = mid
        else:
            lo = mid
    return hi


def place(
    rng: np.random.Generator,
    specs: Sequence[DieSpec],
    tray: Tray,
    fixed: Mapping[int, Pose] | None = None,
    touching: float = 0.3,
) -> list[Pose]:
    """Resting poses for the dice: flat dice inside ``tray.area`` without overlapping, some
    touching a neighbour (chance ``touching``); cocked dice lean on the wall or on a flat die,
    tilted away from it and partly over it. ``fixed`` keeps those dice where they are.
    Raises ValueError when the dice do not fit."""
    fixed = dict(fixed or {})
    bad = [i for i in fixed if not 0 <= i < len(specs)]
    if bad:
        raise ValueError(f"fixed dice {bad} are not among the {len(specs)} dice")
    poses: dict[int, Pose] = dict(fixed)
    hulls: dict[int, np.ndarray] = {i: hull(specs[i], p, tray) for i, p in fixed.items()}
    todo = sorted((i for i in range(len(specs)) if i not in fixed), key=lambda i: specs[i].cocked)
    for i in todo:
        pose = None
        for attempt in range(400):
            if specs[i].cocked:
                pose = _try_cocked(rng, i, specs, tray, poses, hulls)
            else:
                pose = _try_flat(
                    rng, i, specs, tray, poses, hulls, touching if attempt < 200 else 0
                )
            if pose is not None:
                break
        if pose is None:
            raise ValueError(
                f"could not place die {i} ({specs[i].kind}{' cocked' if specs[i].cocked else ''})"
                f" with {len(specs)} dice in tray area {tray.area}"
            )
        poses[i] = pose
        hulls[i] = hull(specs[i], pose, tray)
    return [poses[i] for i in range(len(specs))]


def _gap(tray: Tray) -> float:
    return 1.0 + 0.02 * tray.die_side


def _clear(
    poly: np.ndarray, hulls: Mapping[int, np.ndarray], gap: float, ignore: int | None = None
) -> bool:
    g = _grow(poly, gap)
    return all(_overlap(g, o) <= 0 for j, o in hulls.items() if j != ignore)


def _try_flat(rng, i, specs, tray, poses, hulls, touching) -> Pose | None:
    """One try at a flat die: anywhere on the felt, or against a flat die already there."""
    spec = specs[i]
    side = tray.die_side * float(rng.uniform(0.96, 1.04))
    reach = solid(spec.kind).extent * side
    angle = float(rng.uniform(0, 360))
    v = posed(spec, Pose(0.0, 0.0, angle, side))
    gap = _gap(tray)
    flat = [j for j in poses if not specs[j].cocked]
    area = tray.area
    if flat and rng.random() < touching:
        j = flat[int(rng.integers(len(flat)))]
        a = rng.uniform(0, 2 * math.pi)
        d = np.array([math.cos(a), math.sin(a)])
        c = np.array([poses[j].cx, poses[j].cy])
        other = hulls[j]

        def clear_of_j(t: float) -> bool:
            p = c + d * t
            return _overlap(_grow(outline(v, p[0], p[1], tray), gap), other) <= 0

        far = reach + solid(specs[j].kind).extent * poses[j].side + 2 * gap
        p = c + d * (_contact(clear_of_j, 0.0, far) + float(rng.uniform(0, 0.5)))
    else:
        lo_x, hi_x = area[0] + reach, area[2] - reach
        lo_y, hi_y = area[1] + reach, area[3] - reach
        if lo_x >= hi_x or lo_y >= hi_y:
            raise ValueError(f"tray area {area} is too small for a die of {side:.0f} px")
        p = np.array([rng.uniform(lo_x, hi_x), rng.uniform(lo_y, hi_y)])
    poly = outline(v, p[0], p[1], tray)
    if _inside(poly, area, 1.0) and _clear(poly, hulls, gap):
        return Pose(float(p[0]), float(p[1]), angle, side)
    return None


def _try_cocked(rng, i, specs, tray, poses, hulls) -> Pose | None:
    """One try at a cocked die: leaning on a wall, or on a flat die, partly over it."""
    spec = specs[i]
    side = tray.die_side * float(rng.uniform(0.96, 1.04))
    reach = solid(spec.kind).extent * side
    angle = float(rng.uniform(0, 360))
    tilt = float(rng.uniform(18, 38))
    w, h = tray.size
    x0, y0, x1, y1 = tray.area
    gap = _gap(tray)
    flat = [j for j in poses if not specs[j].cocked]
    walls = [  # (which, direction pointing into the tray) of the walls in the photo
        (k, inward)
        for k, (room, inward) in enumerate(
            ((x0, 0.0), (y0, 90.0), (w - x1, 180.0), (h - y1, 270.0))
        )
        if room > 0.3 * side
    ]
    if flat and (not walls or rng.random() < 0.5):
        j = flat[int(rng.integers(len(flat)))]
        tilt_dir = float(rng.uniform(0, 360))  # the top face leans away from the die below
        c = np.array([poses[j].cx, poses[j].cy])
        ignore, against = j, hulls[j]
    elif walls:
        k, tilt_dir = walls[int(rng.integers(len(walls)))]
        along = rng.uniform(0.15, 0.85)
        if k in (0, 2):
            c = np.array([x0 if k == 0 else x1, y0 + along * (y1 - y0)], float)
        else:
            c = np.array([x0 + along * (x1 - x0), y0 if k == 1 else y1], float)
        ignore, against = None, None
    else:  # no wall in the photo and no die to lean on: tilted on something out of sight
        tilt_dir = float(rng.uniform(0, 360))
        c = np.array([rng.uniform(x0 + reach, x1 - reach), rng.uniform(y0 + reach, y1 - reach)])
        pose = Pose(float(c[0]), float(c[1]), angle, side, tilt, tilt_dir)
        poly = hull(spec, pose, tray)
        return pose if _inside(poly, (0, 0, w, h), 1.0) and _clear(poly, hulls, gap) else None
    d = np.array([math.cos(math.radians(tilt_dir)), math.sin(math.radians(tilt_dir))])
    v = posed(spec, Pose(0.0, 0.0, angle, side, tilt, tilt_dir))

    def poly_at(t: float) -> np.ndarray:
        p = c + d * t
        return outline(v, p[0], p[1], tray)

    if against is not None:
        far = reach + solid(specs[ignore].kind).extent * poses[ignore].side + 2 * gap
        touch = _contact(lambda t: _overlap(poly_at(t), against) <= 0, 0.0, far)
        t = touch - float(rng.uniform(0.1, 0.25)) * side
    else:
        edge = (x0, y0, x1, y1)[k]
        axis = 0 if k in (0, 2) else 1
        sign = 1 if k in (0, 1) else -1
        touch = _contact(
            lambda t: bool(((poly_at(t)[:, axis] - edge) * sign >= 0).all()), -reach, 2 * reach
        )
        t = touch - float(rng.uniform(0.1, 0.3)) * side
    poly = poly_at(t)
    if not _inside(poly, (0, 0, w, h), 1.0) or not _clear(poly, hulls, gap, ignore):
        return None
    if against is not None:
        covered = _overlap(poly, against) / max(cv2.contourArea(against), 1.0)
        if covered > 0.3:
            return None
    p = c + d * t
    return Pose(float(p[0]), float(p[1]), angle, side, tilt, tilt_dir)


def random_scene(
    rng: np.random.Generator,
    size: tuple[int, int] = (640, 480),
    n: int | None = None,
    kinds: Sequence[str] = ("d10",),
    impossible: bool = False,
    cocked: float = 0.05,
    camera: tuple[float, float] = NARROW_CAMERA,
    slant: tuple[float, float] | None = None,
) -> Scene:
    """A random table and throw, drawn: ``n`` dice (default 1..10; ten for ``impossible``)."""
    tray = random_tray(rng, size, camera, slant)
    if n is None:
        n = 10 if impossible else int(rng.integers(1, 11))
    specs = random_specs(rng, n, kinds, impossible=impossible, cocked=cocked)
    poses = place(rng, specs, tray, touching=0.3)
    return render(tray, specs, poses, rng)
