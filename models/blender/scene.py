"""Photoreal tray scenes rendered by Blender's Cycles (``bpy``, the optional extra
``render``): felt with grain and sheen, the tray's wooden wall, a sun and the sky's light,
sometimes a lamp near the camera (glare on glossy dice), a camera above at a slight slant,
exposure, sensor noise, now and then a soft focus or a smear (motion blur); or, in the phone
view, dice on a table (wood, cloth, cork, a printed board) seen by a camera held 20-55° from
straight down, as the dice in other people's phone photos are; d6 with painted
pips and d10 with bold numerals (6 and 9 underlined, "0" for ten), red or white, frosted or
transparent (real refraction: the felt is seen through them, lit through them), bevelled;
some touching, some cocked; in one dice set's plastic, ink and typeface (``DiceSet``).
Labels are exact: each die's value is the face the solid was turned to show
(``models.blender.geometry``), its mask the projection of its convex solid through the
camera, nearer dice painted over farther ones.

Each scene is drawn from one random generator, so a seed gives the same picture; Cycles'
own noise has a fixed seed too.
"""

from __future__ import annotations

import math
import os
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

import cv2
import numpy as np

from models.blender import geometry
from models.synth.core import DieSpec

#: die sizes in scene units: a d6's side is 1, a d10's ring radius this
D10_SCALE = 0.8
FELTS = (
    (0.02, 0.18, 0.06),
    (0.03, 0.08, 0.25),
    (0.35, 0.03, 0.04),
    (0.12, 0.12, 0.12),
    (0.25, 0.2, 0.1),
)  # fmt: skip  (green, blue, wine, grey, sand; linear RGB)


@dataclass(frozen=True)
class DiceSet:
    """How a set of dice looks: plastic, ink and numerals. The reader must read any set;
    enrolment must learn one it never saw."""

    name: str
    body: dict[str, tuple[float, float, float]]  # colour -> linear RGB of the plastic
    ink: dict[str, tuple[float, float, float]]  # colour -> linear RGB of pips and numerals
    frosted_roughness: tuple[float, float]  # uniform range
    frosted_transmission: tuple[float, float]  # uniform range: how milky a frosted die is
    font: str | None = None  # a font file, or one in Blender's own fonts folder; None: its default
    numeral_size: float = 0.5  # of the d10's ring radius
    stroke: float = 0.025  # numerals thickened by this much: bold
    pip: float = 0.085  # a d6 pip's radius, of the side
    marble: dict[str, tuple[float, float, float]] = field(default_factory=dict)
    # colour -> linear RGB of a second plastic swirled through the first (marbled dice)
    finish: str | None = None  # every die of the set this finish ("frosted": opaque); None: either


HOUSE = DiceSet(
    "house",
    body={"red": (0.6, 0.02, 0.025), "white": (0.85, 0.85, 0.82)},
    ink={"red": (0.9, 0.9, 0.85), "white": (0.01, 0.01, 0.012)},
    frosted_roughness=(0.35, 0.55),
    frosted_transmission=(0.2, 0.5),
)
#: a set no model trained on, for measuring enrolment: crimson and ivory glossy plastic,
#: gilt and navy ink, numerals in Blender's interface typeface (Inter) at regular weight
IVORY = DiceSet(
    "ivory",
    body={"red": (0.35, 0.01, 0.04), "white": (0.8, 0.7, 0.5)},
    ink={"red": (0.75, 0.5, 0.12), "white": (0.01, 0.02, 0.12)},
    frosted_roughness=(0.12, 0.25),
    frosted_transmission=(0.05, 0.15),
    font="Inter.woff2",
    numeral_size=0.62,
    stroke=0.0,
    pip=0.07,
)
#: opaque dice as sold in shops and seen in phone photos: white with black numerals, and blue
#: marbled with white ones (the blue dice take the "red" slot, so the colour read is not
#: scored on this set; their values are what it measures)
OPAQUE = DiceSet(
    "opaque",
    body={"red": (0.015, 0.05, 0.3), "white": (0.82, 0.82, 0.8)},
    ink={"red": (0.85, 0.85, 0.85), "white": (0.01, 0.01, 0.012)},
    frosted_roughness=(0.2, 0.45),
    frosted_transmission=(0.0, 0.04),
    font="Inter.woff2",  # not thickened: an offset outline of Inter's 7 fills its bowl
    numeral_size=0.6,
    stroke=0.0,
    marble={"red": (0.12, 0.22, 0.6)},
    finish="frosted",
)
DICE_SETS = {s.name: s for s in (HOUSE, IVORY, OPAQUE)}
SURFACES = ("wood", "cloth", "cork", "board")  # under the dice in the phone view
VARIED = "varied"  # a new set drawn for each scene (:func:`varied_set`)
RED_INKS = ((0.9, 0.9, 0.85), (0.75, 0.5, 0.12), (0.01, 0.01, 0.012), (0.6, 0.6, 0.55))
WHITE_INKS = ((0.01, 0.01, 0.012), (0.01, 0.02, 0.12), (0.25, 0.01, 0.01), (0.01, 0.08, 0.02))


def varied_set(rng: np.random.Generator) -> DiceSet:
    """A set of dice as a shop might sell: plastic shades, ink, typeface (Blender's default or
    one of the system's DejaVu and Liberation faces, never ivory's), weight and size of the
    numerals, pips. For training a reader that must read any table's dice."""
    from models.common.numeral_fonts import font_files

    fonts = [None, *(str(f) for f in font_files())]
    shade = float(rng.uniform(0.6, 0.92))
    rough, milk = float(rng.uniform(0.1, 0.45)), float(rng.uniform(0.05, 0.4))
    return DiceSet(
        VARIED,
        body={
            "red": (
                float(rng.uniform(0.3, 0.75)),
                float(rng.uniform(0.005, 0.05)),
                float(rng.uniform(0.01, 0.06)),
            ),
            "white": (
                shade,
                shade * float(rng.uniform(0.85, 1.0)),
                shade * float(rng.uniform(0.65, 1.0)),
            ),
        },
        ink={
            "red": RED_INKS[int(rng.integers(len(RED_INKS)))],
            "white": WHITE_INKS[int(rng.integers(len(WHITE_INKS)))],
        },
        frosted_roughness=(rough, rough + 0.15),
        frosted_transmission=(milk, milk + 0.15),
        font=fonts[int(rng.integers(len(fonts)))],
        numeral_size=float(rng.uniform(0.45, 0.62)),
        stroke=float(rng.uniform(0.0, 0.03)),
        pip=float(rng.uniform(0.065, 0.095)),
    )


@dataclass
class Setup:
    """One scene's random choices, drawn before anything is built (see :func:`draw_setup`)."""

    size: tuple[int, int]
    felt: tuple[float, float, float]
    felt_size: tuple[float, float]
    camera_height: float
    camera_tilt: tuple[float, float]
    sun: tuple[float, float, float]  # elevation, azimuth (radians), strength
    sun_softness: float
    sky: float
    lamp: tuple[float, float, float] | None  # a lamp near the camera (x, y, watts): glare
    noise: float  # sensor noise, standard deviation in 0..255 levels
    blur: float  # a slightly soft lens: Gaussian sigma in pixels
    motion: tuple[float, float]  # the table knocked as the photo was taken: length (px), angle
    dice: list[tuple[DieSpec, np.ndarray, np.ndarray]] = field(default_factory=list)
    # each die: spec, rotation (3x3), position (x, y, z of its centre)
    surface: str = "felt"  # or one of SURFACES: a table seen by a phone, no tray wall
    slant: float = 0.0  # the phone's from straight down (radians); its azimuth below
    azimuth: float = 0.0
    distance: float = 0.0  # the phone's from the middle of the dice
    fov: float = 0.0  # the phone's field of view across the frame (degrees)
    pattern: tuple[float, float] = (1.0, 5.0)  # the table's: scale factor, wood's distortion

    @property
    def field_of_view(self) -> float:
        """The camera's across the frame, in degrees: the felt and 75 mm of the wall fill
        the frame's width at the camera's height (a phone's is drawn)."""
        if self.fov:
            return self.fov
        return math.degrees(2 * math.atan((self.felt_size[0] + 1.5) / (2 * self.camera_height)))


def _solid(kind: str) -> geometry.Solid:
    return geometry.d6() if kind == "d6" else geometry.d10()


def _scale(kind: str) -> float:
    return 1.0 if kind == "d6" else D10_SCALE


def _radius(kind: str) -> float:
    """The die's reach on the felt from its centre (its circumscribed circle, flat)."""
    return 0.72 if kind == "d6" else D10_SCALE


def draw_setup(
    rng: np.random.Generator,
    size: tuple[int, int],
    specs: list[DieSpec],
    touching: float = 0.3,
    phone: bool = False,
) -> Setup:
    """Felt, light, camera and a resting place for each die (cocked ones lean by the wall);
    ``phone``: a table and a phone's camera instead (:func:`draw_phone_table`)."""
    table = draw_phone_table(rng, size) if phone else draw_table(rng, size)
    return place_dice(rng, table, specs, touching)


def draw_table(rng: np.random.Generator, size: tuple[int, int]) -> Setup:
    """Felt, light and camera, no dice yet."""
    aspect = size[0] / size[1]
    width = float(rng.uniform(14, 22))
    felt_size = (width, width / aspect * 0.92)
    elevation = math.radians(float(rng.uniform(35, 80)))
    return Setup(
        size=size,
        felt=tuple(
            float(c) * float(rng.uniform(0.7, 1.3)) for c in FELTS[rng.integers(len(FELTS))]
        ),
        felt_size=felt_size,
        camera_height=float(rng.uniform(1.05, 1.25)) * width,
        camera_tilt=(float(rng.normal(0, 0.03)), float(rng.normal(0, 0.03))),
        sun=(elevation, float(rng.uniform(0, 2 * math.pi)), float(rng.uniform(2.0, 5.0))),
        sun_softness=math.radians(float(rng.uniform(2, 25))),
        sky=float(rng.uniform(0.2, 0.8)),
        lamp=(
            (
                float(rng.uniform(-0.3, 0.3)) * width,
                float(rng.uniform(-0.3, 0.3)) * width,
                float(rng.uniform(3e3, 1.2e4)),
            )
            if rng.random() < 0.4
            else None
        ),
        noise=float(rng.uniform(0.5, 5.0)),
        blur=float(rng.uniform(0.6, 1.4)) if rng.random() < 0.25 else 0.0,
        motion=(
            (float(rng.uniform(2.0, 6.0)), float(rng.uniform(0, math.pi)))
            if rng.random() < 0.15
            else (0.0, 0.0)
        ),
    )


def draw_phone_table(rng: np.random.Generator, size: tuple[int, int]) -> Setup:
    """A table (wood, cloth, cork or a printed board) and a phone held 20-55° from straight
    down, 55-70° across, the dice 40-70 pixels at 640x480 as in other people's photos of
    their dice; light as on the tray. The dice lie in the middle third of the view."""
    table = draw_table(rng, size)
    aspect = size[0] / size[1]
    width = float(rng.uniform(14, 20))  # across the view at the dice, in d6 sides
    fov = float(rng.uniform(55, 70))
    slant = math.radians(float(rng.uniform(20, 55)))
    distance = width / 2 / math.tan(math.radians(fov) / 2)
    surface = SURFACES[int(rng.integers(len(SURFACES)))]
    tone = {
        "wood": (0.2, 0.09, 0.03),
        "cloth": tuple(float(c) for c in rng.uniform(0.02, 0.5, 3)),
        "cork": (0.35, 0.2, 0.09),
        "board": (0.5, 0.45, 0.35),
    }[surface]
    return replace(
        table,
        felt=tuple(float(c) * float(rng.uniform(0.7, 1.3)) for c in tone),
        felt_size=(width * 0.62, width / aspect * 0.45),
        camera_height=distance * math.cos(slant),
        camera_tilt=(0.0, 0.0),
        surface=surface,
        slant=slant,
        azimuth=float(rng.uniform(0, 2 * math.pi)),
        distance=distance,
        fov=fov,
        pattern=(float(rng.uniform(0.7, 1.3)), float(rng.uniform(3.0, 9.0))),
    )


def place_dice(
    rng: np.random.Generator, table: Setup, specs: list[DieSpec], touching: float = 0.3
) -> Setup:
    """The table with a resting place for each die (cocked ones lean by the wall); a die with
    no room left is not placed (labels say what is there)."""
    setup = replace(table, dice=[])
    placed: list[tuple[float, float, float]] = []  # x, y, radius
    half_w, half_h = setup.felt_size[0] / 2, setup.felt_size[1] / 2
    for spec in specs:
        solid, scale, reach = _solid(spec.kind), _scale(spec.kind), _radius(spec.kind)
        turn = float(rng.uniform(0, 2 * math.pi))
        for _ in range(200):
            if spec.cocked:  # against a wall, leaning towards it
                side = int(rng.integers(4))
                along = float(rng.uniform(-0.7, 0.7))
                walls = [
                    (half_w - reach, along * half_h),
                    (-half_w + reach, along * half_h),
                    (along * half_w, half_h - reach),
                    (along * half_w, -half_h + reach),
                ]
                x, y = walls[side]
                lean_dir = [0.0, math.pi, math.pi / 2, -math.pi / 2][side]
                tilt = math.radians(float(rng.uniform(18, 35)))
            else:
                x = float(rng.uniform(-half_w + reach, half_w - reach))
                y = float(rng.uniform(-half_h + reach, half_h - reach))
                tilt = lean_dir = 0.0
                if placed and rng.random() < touching:  # beside the last die
                    px, py, pr = placed[-1]
                    a = float(rng.uniform(0, 2 * math.pi))
                    gap = float(rng.uniform(0.0, 0.08))
                    x, y = (
                        px + (pr + reach + gap) * math.cos(a),
                        py + (pr + reach + gap) * math.sin(a),
                    )
            inside = abs(x) <= half_w - reach * 0.9 and abs(y) <= half_h - reach * 0.9
            free = all(math.hypot(x - px, y - py) >= pr + reach for px, py, pr in placed)
            if inside and free:
                break
        else:
            continue  # no room: the scene has one die less (labels say what is there)
        rotation = geometry.showing(solid, spec.value, turn, tilt, lean_dir)
        lowest = float((solid.vertices @ rotation.T)[:, 2].min()) * scale
        setup.dice.append((spec, rotation, np.array([x, y, -lowest])))
        placed.append((x, y, reach))
    return setup


# ----------------------------------------------------------------------------- Blender


def _material(bpy, name: str, colour, roughness: float, transmission: float = 0.0):
    material = bpy.data.materials.new(name)
    material.use_nodes = True
    bsdf = material.node_tree.nodes["Principled BSDF"]
    bsdf.inputs["Base Color"].default_value = (*colour, 1.0)
    bsdf.inputs["Roughness"].default_value = roughness
    bsdf.inputs["Transmission Weight"].default_value = transmission
    bsdf.inputs["IOR"].default_value = 1.5
    return material, bsdf


def _mesh(bpy, name: str, vertices, faces, material):
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata([tuple(map(float, v)) for v in vertices], [], [tuple(f) for f in faces])
    mesh.update()
    mesh.materials.append(material)
    obj = bpy.data.objects.new(name, mesh)
    bpy.context.scene.collection.objects.link(obj)
    return obj


def _felt(bpy, setup: Setup) -> None:
    material, bsdf = _material(bpy, "felt", setup.felt, 0.95)
    bsdf.inputs["Sheen Weight"].default_value = 0.6
    nodes, links = material.node_tree.nodes, material.node_tree.links
    noise = nodes.new("ShaderNodeTexNoise")
    noise.inputs["Scale"].default_value = 180.0
    bump = nodes.new("ShaderNodeBump")
    bump.inputs["Strength"].default_value = 0.25
    links.new(noise.outputs["Fac"], bump.inputs["Height"])
    links.new(bump.outputs["Normal"], bsdf.inputs["Normal"])
    w, h = setup.felt_size[0] / 2 + 3, setup.felt_size[1] / 2 + 3
    _mesh(bpy, "felt", [(-w, -h, 0), (w, -h, 0), (w, h, 0), (-w, h, 0)], [(0, 1, 2, 3)], material)
    wood, _ = _material(bpy, "wall", (0.25, 0.12, 0.05), 0.6)
    fw, fh, t, z = setup.felt_size[0] / 2, setup.felt_size[1] / 2, 1.5, 1.6
    for x0, y0, x1, y1 in ((-fw - t, fh, fw + t, fh + t), (-fw - t, -fh - t, fw + t, -fh),
                           (fw, -fh, fw + t, fh), (-fw - t, -fh, -fw, fh)):  # fmt: skip
        corners = [(x0, y0, 0), (x1, y0, 0), (x1, y1, 0), (x0, y1, 0),
                   (x0, y0, z), (x1, y0, z), (x1, y1, z), (x0, y1, z)]  # fmt: skip
        box = [(0, 3, 2, 1), (4, 5, 6, 7), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (3, 0, 4, 7)]
        _mesh(bpy, "wall", corners, box, wood)


def _surface(bpy, setup: Setup) -> None:
    """The table under the phone's dice: wood grain, woven cloth, cork or a printed board,
    wide enough to fill the slanted view, no wall."""
    material, bsdf = _material(bpy, setup.surface, setup.felt, 0.6)
    nodes, links = material.node_tree.nodes, material.node_tree.links
    where = nodes.new("ShaderNodeTexCoord").outputs["Object"]  # in die sides, not the plane's
    bump = nodes.new("ShaderNodeBump")
    links.new(bump.outputs["Normal"], bsdf.inputs["Normal"])
    ramp = nodes.new("ShaderNodeValToRGB")
    dark = tuple(c * 0.55 for c in setup.felt)
    ramp.color_ramp.elements[0].color = (*dark, 1.0)
    ramp.color_ramp.elements[1].color = (*setup.felt, 1.0)
    scale, distortion = setup.pattern
    if setup.surface == "wood":
        grain = nodes.new("ShaderNodeTexWave")
        grain.bands_direction = "X"
        grain.inputs["Scale"].default_value = 2.0 * scale
        grain.inputs["Distortion"].default_value = distortion
        grain.inputs["Detail"].default_value = 8.0
        links.new(where, grain.inputs["Vector"])
        pattern = grain.outputs["Fac"]
        bump.inputs["Strength"].default_value = 0.05
        bsdf.inputs["Roughness"].default_value = 0.45
    else:
        noise = nodes.new("ShaderNodeTexNoise")
        base = {"cloth": 60.0, "cork": 9.0, "board": 0.6}[setup.surface]
        noise.inputs["Scale"].default_value = base * scale
        noise.inputs["Detail"].default_value = 8.0
        pattern = noise.outputs["Fac"]
        bump.inputs["Strength"].default_value = {"cloth": 0.3, "cork": 0.6, "board": 0.02}[
            setup.surface
        ]
        bsdf.inputs["Roughness"].default_value = {"cloth": 0.95, "cork": 0.8, "board": 0.35}[
            setup.surface
        ]
        links.new(where, noise.inputs["Vector"])
    links.new(pattern, ramp.inputs["Fac"])
    links.new(pattern, bump.inputs["Height"])
    colour = ramp.outputs["Color"]
    if setup.surface == "board":  # printed fields of colour, in a print's muted inks
        cells = nodes.new("ShaderNodeTexVoronoi")
        cells.inputs["Scale"].default_value = 0.25 * scale
        links.new(where, cells.inputs["Vector"])
        muted = nodes.new("ShaderNodeHueSaturation")
        muted.inputs["Saturation"].default_value = 0.6
        muted.inputs["Value"].default_value = 0.45
        links.new(cells.outputs["Color"], muted.inputs["Color"])
        colour = muted.outputs["Color"]
    links.new(colour, bsdf.inputs["Base Color"])
    half = setup.distance * 3
    square = [(-half, -half, 0), (half, -half, 0), (half, half, 0), (-half, half, 0)]
    _mesh(bpy, "table", square, [(0, 1, 2, 3)], material)


def _marbled(material, body, swirl, rng: np.random.Generator) -> None:
    """A second plastic swirled through the die's: distorted noise in the die's own
    coordinates, cut sharp by a colour ramp."""
    nodes, links = material.node_tree.nodes, material.node_tree.links
    noise = nodes.new("ShaderNodeTexNoise")
    noise.inputs["Scale"].default_value = float(rng.uniform(0.5, 1.0))
    noise.inputs["Detail"].default_value = 1.0
    noise.inputs["Distortion"].default_value = float(rng.uniform(1.0, 2.5))
    noise.noise_dimensions = "4D"  # W: each die's own swirl
    noise.inputs["W"].default_value = float(rng.uniform(0, 100))
    links.new(nodes.new("ShaderNodeTexCoord").outputs["Object"], noise.inputs["Vector"])
    ramp = nodes.new("ShaderNodeValToRGB")
    ramp.color_ramp.elements[0].position = float(rng.uniform(0.4, 0.5))
    ramp.color_ramp.elements[0].color = (*body, 1.0)
    ramp.color_ramp.elements[1].position = ramp.color_ramp.elements[0].position + 0.2
    ramp.color_ramp.elements[1].color = (*swirl, 1.0)
    links.new(noise.outputs["Fac"], ramp.inputs["Fac"])
    links.new(ramp.outputs["Color"], nodes["Principled BSDF"].inputs["Base Color"])


def _disc(radius: float, centre, right, up, normal, lift: float, sides: int = 16):
    a = np.linspace(0, 2 * math.pi, sides, endpoint=False)
    ring = [centre + normal * lift + radius * (math.cos(t) * right + math.sin(t) * up) for t in a]
    return ring, [tuple(range(sides))]


def _marks(bpy, die, solid: geometry.Solid, spec: DieSpec, ink, dice_set: DiceSet) -> None:
    """Pips or numerals on every face, as thin shapes just above it, parented to the die."""
    from mathutils import Matrix

    font = _font(bpy, dice_set.font)
    for f, value in enumerate(solid.values):
        n, up, centre = solid.normal(f), solid.up[f], solid.centre(f)
        right = np.cross(up, n)
        if spec.kind == "d6":
            vertices, faces = [], []
            for px, py in geometry.PIPS[value]:
                ring, poly = _disc(dice_set.pip, centre + px * right + py * up, right, up, n, 0.002)
                faces += [tuple(i + len(vertices) for i in p) for p in poly]
                vertices += ring
            pips = _mesh(bpy, f"pips{value}", vertices, faces, ink)
            pips.parent = die
            continue
        curve = bpy.data.curves.new(f"n{value}", type="FONT")
        curve.body = "0" if value == 10 else str(value)
        if font is not None:
            curve.font = font
        curve.size = dice_set.numeral_size
        curve.offset = dice_set.stroke  # the house set's bold: thin strokes vanish in glints
        curve.align_x, curve.align_y = "CENTER", "CENTER"
        curve.materials.append(ink)
        text = bpy.data.objects.new(f"n{value}", curve)
        bpy.context.scene.collection.objects.link(text)
        # the face's frame: x right, y up (towards the apex), z out; the numeral sits a little
        # towards the face's wide end
        origin = centre - 0.12 * up + n * 0.002
        frame = np.eye(4)
        frame[:3, 0], frame[:3, 1], frame[:3, 2], frame[:3, 3] = right, up, n, origin
        text.matrix_basis = Matrix(frame.tolist())
        text.parent = die
        if value in (6, 9):
            bar_c = origin - 0.27 * up
            bar = [bar_c + sx * 0.13 * right + sy * 0.025 * up + n * 0.0005
                   for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))]  # fmt: skip
            underline = _mesh(bpy, f"u{value}", bar, [(0, 1, 2, 3)], ink)
            underline.parent = die


def _shadows_through(material, tint) -> None:
    """Let shadow rays through a clear die, tinted by its colour. Why: in a photo the felt
    under a clear die is lit through the glass, so its marks stand out against lit felt;
    Cycles brings that light only as caustics, which 16 samples leave dark, and the marks
    vanished in a murky die (renderer 1.1)."""
    nodes, links = material.node_tree.nodes, material.node_tree.links
    path = nodes.new("ShaderNodeLightPath")
    clear = nodes.new("ShaderNodeBsdfTransparent")
    clear.inputs["Color"].default_value = (*tint, 1.0)
    mix = nodes.new("ShaderNodeMixShader")
    links.new(path.outputs["Is Shadow Ray"], mix.inputs["Fac"])
    links.new(nodes["Principled BSDF"].outputs["BSDF"], mix.inputs[1])
    links.new(clear.outputs["BSDF"], mix.inputs[2])
    links.new(mix.outputs["Shader"], nodes["Material Output"].inputs["Surface"])


def _font(bpy, name: str | None):
    """A font file or one of Blender's own typefaces (loaded once a scene), or None for its
    default."""
    if name is None:
        return None
    folder = bpy.utils.system_resource("DATAFILES", path="fonts")
    return bpy.data.fonts.load(os.path.join(folder, name), check_existing=True)  # or absolute


def _die(
    bpy,
    index: int,
    spec: DieSpec,
    rotation: np.ndarray,
    position: np.ndarray,
    rng: np.random.Generator,
    dice_set: DiceSet,
):
    from mathutils import Matrix

    solid = _solid(spec.kind)
    transparent = spec.finish == "transparent"
    colour = dice_set.body[spec.colour]
    roughness = 0.03 if transparent else float(rng.uniform(*dice_set.frosted_roughness))
    # frosted: milky, light goes in and scatters; transparent: clear, the felt shows through
    transmission = 1.0 if transparent else float(rng.uniform(*dice_set.frosted_transmission))
    body, bsdf = _material(bpy, f"body{index}", colour, roughness, transmission)
    if transparent:
        _shadows_through(body, colour)
    else:
        bsdf.inputs["Subsurface Weight"].default_value = 0.3
    if spec.colour in dice_set.marble:
        _marbled(body, colour, dice_set.marble[spec.colour], rng)
    ink, _ = _material(bpy, f"ink{index}", dice_set.ink[spec.colour], 0.5)
    die = _mesh(bpy, f"die{index}", solid.vertices, solid.faces, body)
    bevel = die.modifiers.new("bevel", "BEVEL")
    bevel.width = 0.07 if spec.kind == "d6" else 0.04
    bevel.segments = 3
    _marks(bpy, die, solid, spec, ink, dice_set)
    scale = _scale(spec.kind)
    pose = np.eye(4)
    pose[:3, :3] = rotation * scale
    pose[:3, 3] = position
    die.matrix_world = Matrix(pose.tolist())
    return die


Vec3 = tuple[float, float, float]


def camera_pose(setup: Setup) -> tuple[Vec3, Vec3]:
    """The camera's place and rotation (Blender's XYZ Euler angles; unturned, a camera looks
    straight down): above the felt's middle, a little askew; a phone back along its slant
    and azimuth, looking at the middle of the dice."""
    if not setup.slant:
        return (0.0, 0.0, setup.camera_height), (*setup.camera_tilt, 0.0)
    back = setup.distance * math.sin(setup.slant)
    place = (
        back * math.sin(setup.azimuth),
        -back * math.cos(setup.azimuth),
        setup.distance * math.cos(setup.slant),
    )
    return place, (setup.slant, 0.0, setup.azimuth)


def _light_and_camera(bpy, setup: Setup):
    scene = bpy.context.scene
    world = bpy.data.worlds.new("sky")
    world.use_nodes = True
    world.node_tree.nodes["Background"].inputs["Strength"].default_value = setup.sky
    scene.world = world
    elevation, azimuth, strength = setup.sun
    sun_data = bpy.data.lights.new("sun", type="SUN")
    sun_data.energy = strength
    sun_data.angle = setup.sun_softness
    sun = bpy.data.objects.new("sun", sun_data)
    sun.rotation_euler = (math.pi / 2 - elevation, 0.0, azimuth)
    scene.collection.objects.link(sun)
    if setup.lamp is not None:
        x, y, watts = setup.lamp
        lamp_data = bpy.data.lights.new("lamp", type="POINT")
        lamp_data.energy = watts
        lamp_data.shadow_soft_size = 0.5
        lamp = bpy.data.objects.new("lamp", lamp_data)
        lamp.location = (x, y, setup.camera_height * 0.8)
        scene.collection.objects.link(lamp)
    camera_data = bpy.data.cameras.new("camera")
    camera_data.sensor_fit = "HORIZONTAL"
    camera_data.sensor_width = 36.0
    camera_data.lens = 18.0 / math.tan(math.radians(setup.field_of_view) / 2)
    camera = bpy.data.objects.new("camera", camera_data)
    camera.location, camera.rotation_euler = camera_pose(setup)
    scene.collection.objects.link(camera)
    scene.camera = camera
    return camera


def _project(scene, camera, points: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """World points → pixel (x, y) and distance from the camera."""
    from bpy_extras.object_utils import world_to_camera_view
    from mathutils import Vector

    out = []
    for p in points:
        v = world_to_camera_view(scene, camera, Vector(tuple(map(float, p))))
        out.append((v.x * size[0], (1 - v.y) * size[1], v.z))
    return np.array(out)


@dataclass
class Rendered:
    image: np.ndarray  # BGR uint8
    empty: np.ndarray | None  # the same tray without dice (what an appliance calibrates on)
    masks: np.ndarray  # 0 background, i + 1 = visible pixels of die i
    dice: list[tuple[DieSpec, tuple[int, int, int, int]]]
    field_of_view: float  # the camera's across the frame, degrees
    slant: float = 0.0  # a phone's from straight down, degrees (0: the tray's camera)


def render_setup(
    setup: Setup,
    rng: np.random.Generator,
    samples: int = 16,
    threads: int = 0,
    dice_set: DiceSet = HOUSE,
):
    """Build the scene in Blender, render it with and without its dice, and draw the masks."""
    import bpy

    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.render.engine = "CYCLES"
    scene.cycles.device = "CPU"
    scene.cycles.samples = samples
    scene.cycles.seed = int(rng.integers(1 << 30))
    scene.cycles.use_denoising = True
    scene.cycles.transmission_bounces = 8
    scene.render.resolution_x, scene.render.resolution_y = setup.size
    scene.render.resolution_percentage = 100
    scene.render.image_settings.file_format = "PNG"
    scene.view_settings.view_transform = "Standard"  # a camera's plain sRGB, not filmic
    scene.view_settings.exposure = float(rng.uniform(-0.3, 0.5))
    if threads:
        scene.render.threads_mode = "FIXED"
        scene.render.threads = threads
    if setup.surface == "felt":
        _felt(bpy, setup)
    else:
        _surface(bpy, setup)
    camera = _light_and_camera(bpy, setup)
    objects = []
    for i, (spec, rotation, position) in enumerate(setup.dice):
        objects.append(_die(bpy, i, spec, rotation, position, rng, dice_set))
    with tempfile.TemporaryDirectory() as tmp:
        image = _still(bpy, scene, Path(tmp) / "dice.png")
        empty = None
        if setup.surface == "felt":  # a phone's photo has no empty tray to calibrate on
            for die in objects:
                for obj in (die, *die.children_recursive):
                    obj.hide_render = True
            empty = _still(bpy, scene, Path(tmp) / "empty.png")
    masks, dice = _masks(scene, camera, setup)
    dice_photo = _sensor(image, setup, rng, moved=True)  # the throw's noise drawn first
    if empty is not None:
        empty = _sensor(empty, setup, rng)
    slant = round(math.degrees(setup.slant), 1)
    return Rendered(dice_photo, empty, masks, dice, setup.field_of_view, slant)


def motion_kernel(length: float, angle: float) -> np.ndarray:
    """A line ``length`` pixels long at ``angle`` (radians), summing to 1: the smear of a
    camera moved during the exposure."""
    size = math.ceil(length) | 1
    kernel = np.zeros((size, size), np.float32)
    c, dx, dy = size // 2, math.cos(angle) * length / 2, math.sin(angle) * length / 2
    cv2.line(kernel, (round(c - dx), round(c - dy)), (round(c + dx), round(c + dy)), 1.0, 1)
    return kernel / kernel.sum()


def _sensor(
    image: np.ndarray, setup: Setup, rng: np.random.Generator, moved: bool = False
) -> np.ndarray:
    """What a small camera adds: softness now and then, a smear when the table was knocked
    (``moved``: the photo of the throw, not of the empty tray), and noise (its own each
    frame)."""
    out = image.astype(np.float32)
    if setup.blur:
        out = cv2.GaussianBlur(out, (0, 0), setup.blur)
    if moved and setup.motion[0]:
        out = cv2.filter2D(out, -1, motion_kernel(*setup.motion))
    out += rng.normal(0.0, setup.noise, out.shape[:2])[..., None].astype(np.float32)
    return np.clip(out, 0, 255).astype(np.uint8)


def _still(bpy, scene, path: Path) -> np.ndarray:
    scene.render.filepath = str(path)
    with _quiet_stdout():  # Cycles prints a line per tile and sample to stdout
        bpy.ops.render.render(write_still=True)
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if image is None:
        raise OSError(f"Blender wrote no image at {path}")
    return image


@contextmanager
def _quiet_stdout() -> Iterator[None]:
    sys.stdout.flush()
    saved, devnull = os.dup(1), os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    try:
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.close(devnull)


def _masks(scene, camera, setup: Setup):
    """Each die's silhouette (the hull of its projected solid), far ones painted first."""
    width, height = setup.size
    shapes = []
    for i, (spec, rotation, position) in enumerate(setup.dice):
        solid = _solid(spec.kind)
        world = solid.vertices @ (rotation * _scale(spec.kind)).T + position
        projected = _project(scene, camera, world, setup.size)
        hull = cv2.convexHull(np.round(projected[:, :2]).astype(np.int32))
        shapes.append((float(projected[:, 2].mean()), i, hull))
    masks = np.zeros((height, width), np.uint8)
    for _, i, hull in sorted(shapes, reverse=True):
        cv2.fillConvexPoly(masks, hull, i + 1)
    dice = []
    for i, (spec, _, _) in enumerate(setup.dice):
        ys, xs = np.nonzero(masks == i + 1)
        box = (
            (int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1)
            if len(xs)
            else (0, 0, 0, 0)
        )
        dice.append((spec, box))
    return masks, dice
