"""The value types of the synthetic tray: dice, poses, the table's tray and a drawn scene."""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Literal

import numpy as np

from models.synth.glyphs import PLAIN_LETTERING

#: Bumped whenever the pictures drawn for a given seed change; written into datasets.
VERSION = "1.1.0"

Kind = Literal["d6", "d10"]
Colour = Literal["red", "white"]
Finish = Literal["frosted", "transparent"]

KINDS: tuple[str, ...] = ("d6", "d10")
COLOURS: tuple[str, ...] = ("red", "white")
FINISHES: tuple[str, ...] = ("frosted", "transparent")
FACES = {"d6": 6, "d10": 10}


@dataclass(frozen=True)
class DieSpec:
    """What a die is and what it shows: the label a reader must find."""

    kind: Kind
    value: int  # 1..6 for d6, 1..10 for d10 (a d10 shows "0" for ten)
    colour: Colour
    finish: Finish
    cocked: bool = False  # leaning on the wall or on another die: top face tilted, not readable

    def __post_init__(self) -> None:
        if self.kind not in FACES:
            raise ValueError(f"kind must be one of {KINDS}, not {self.kind!r}")
        if not 1 <= int(self.value) <= FACES[self.kind]:
            raise ValueError(f"a {self.kind} shows 1..{FACES[self.kind]}, not {self.value!r}")
        if self.colour not in COLOURS:
            raise ValueError(f"colour must be one of {COLOURS}, not {self.colour!r}")
        if self.finish not in FINISHES:
            raise ValueError(f"finish must be one of {FINISHES}, not {self.finish!r}")

    @property
    def face(self) -> str:
        """The mark on the top face: "1".."6" on a d6 (as pips), "0".."9" on a d10."""
        return str(self.value % 10) if self.kind == "d10" else str(self.value)


@dataclass(frozen=True)
class Pose:
    """Where a die lies in the photo.

    ``angle`` turns the die clockwise on screen; at 0 the top face's numeral (or pip layout)
    stands upright. ``side`` is the apparent size (a d6's edge; a d10 is drawn at a similar
    scale). ``tilt``/``tilt_dir`` (degrees) lean a cocked die: its top face turns ``tilt``
    degrees away from the camera towards the screen direction ``tilt_dir`` (0 = right,
    90 = down). A flat die has ``tilt == 0``.
    """

    cx: float
    cy: float
    angle: float
    side: float
    tilt: float = 0.0
    tilt_dir: float = 0.0


@dataclass(frozen=True)
class Tray:
    """Everything that stays the same from throw to throw at one table: the tray, its light,
    the camera and the set of dice (their reds, whites, ink and numeral font).

    Colours are BGR 0..255. Lengths are pixels. ``light`` is a unit vector towards the lamp
    in screen axes (x right, y down, z towards the camera).
    """

    size: tuple[int, int]  # (width, height) of the photo
    felt: tuple[int, int, int]  # BGR felt colour
    area: tuple[int, int, int, int]  # x0, y0, x1, y1 of the felt inside the tray wall
    die_side: float  # typical die size in pixels at this camera height
    seed: int = 0  # texture of felt, wall and table (the same photo of the empty tray)
    wall: tuple[int, int, int] = (40, 45, 55)  # top of the tray wall
    wall_width: int = 24  # width of the wall's top band
    wall_height: float = 40.0  # height of the wall above the felt
    table: tuple[int, int, int] = (60, 80, 110)  # what lies around the tray
    felt_grain: float = 0.05  # strength of the felt's fibre texture
    camera_height: float = 1400.0  # camera above the felt (perspective of dice and walls)
    light: tuple[float, float, float] = (-0.3, -0.4, 0.866)
    ambient: float = 0.45
    exposure: float = 1.0
    gradient: tuple[float, float] = (0.0, 0.0)  # light change across the photo (x, y)
    vignette: float = 0.2
    hotspot: tuple[float, float, float, float] = (0.5, 0.5, 0.6, 0.0)  # x, y, radius, gain
    white_balance: tuple[float, float, float] = (1.0, 1.0, 1.0)  # BGR gains
    noise: float = 2.0  # read noise, in 0..255 units
    shot: float = 0.5  # photon noise scale
    blur: float = 0.0  # optical blur sigma
    glare: float = 0.0  # veiling glare strength
    jpeg: int = 0  # JPEG quality of the camera's output; 0 = none
    red: tuple[int, int, int] = (40, 35, 200)  # body colour of the set's red dice
    white: tuple[int, int, int] = (228, 230, 232)  # body colour of the set's white dice
    ink_dark: tuple[int, int, int] = (25, 25, 30)  # numerals/pips on white dice
    ink_light: tuple[int, int, int] = (240, 240, 240)  # numerals/pips on red dice
    font: int = 0  # the numerals' style (models/synth/glyphs.py font_count)
    # degrees from straight down of a camera held at a slant past the photo's bottom edge, as
    # a phone's photo is: each die shows its front face. The felt and wall stay drawn as
    # from above (only the dice matter to a crop). 0: the appliance's camera.
    slant: float = 0.0
    # how strongly the opaque (frosted) dice are marbled: swirled veins of a second plastic
    # through the body, as many real dice are. 0: plain plastic, the appliance's dice.
    marble: float = 0.0
    marble_red: tuple[int, int, int] = (235, 235, 240)  # the veins' colour in the red dice
    marble_white: tuple[int, int, int] = (150, 120, 60)  # and in the white dice
    # the set's d6 carry numerals 1..6 (the 6 underlined) instead of pips, as many real d6
    # do; False: pips, the appliance's dice.
    numbered: bool = False
    # how the set's numerals are lettered beside their typeface, as real dice differ: the
    # strokes' change in a 128-px tile's pixels (<0 thinner), the width and the size as
    # factors, the slant as a shear. The default draws the typeface as it is.
    lettering: tuple[float, float, float, float] = PLAIN_LETTERING

    def __post_init__(self) -> None:
        # accept lists (a tray read back from JSON labels: Tray(**labels["tray"]))
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, list):
                object.__setattr__(self, f.name, tuple(value))
        w, h = self.size
        x0, y0, x1, y1 = self.area
        if not (0 <= x0 < x1 <= w and 0 <= y0 < y1 <= h):
            raise ValueError(f"tray area {self.area} does not fit a {w}x{h} photo")
        if self.die_side <= 0:
            raise ValueError("die_side must be positive")
        if not 0 <= self.slant <= 70:
            raise ValueError(f"slant is 0..70 degrees from straight down, not {self.slant}")
        if not 0 <= self.marble <= 1:
            raise ValueError(f"marble is a strength in 0..1, not {self.marble}")
        if len(self.lettering) != 4 or not (self.lettering[1] > 0 and self.lettering[2] > 0):
            raise ValueError(f"lettering is (stroke, width, size, slant), not {self.lettering}")

    @property
    def field_of_view(self) -> float:
        """The camera's horizontal field of view in degrees (a pinhole ``camera_height``
        pixels above the felt)."""
        return math.degrees(2 * math.atan(0.5 * self.size[0] / self.camera_height))


@dataclass
class SceneDie:
    spec: DieSpec
    pose: Pose
    box: tuple[int, int, int, int]  # x0, y0, x1, y1 (exclusive) of the die's visible pixels


@dataclass
class Scene:
    image: np.ndarray  # (H, W, 3) uint8 BGR
    masks: np.ndarray  # (H, W) uint8: 0 background, i + 1 = visible pixels of die i
    dice: list[SceneDie]
    tray: Tray
