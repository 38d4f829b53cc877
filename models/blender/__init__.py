"""Photoreal tray scenes rendered with Blender's Cycles (optional extra ``render``: ``bpy``).

``yamscope render --engine blender`` writes them in the same folder layout as the fast
generator (``models.synth.dataset``), plus ``empty/`` (the same tray without its dice, what
an appliance calibrates on), so ``yamscope evaluate`` and training read either. Only
:mod:`models.blender.geometry` and the layout are used without Blender (CI tests them);
``bpy`` is imported when an engine is asked for.
"""

from __future__ import annotations

import numpy as np

from models.blender.scene import Rendered, draw_setup, render_setup
from models.synth.dataset import Engine, die_label
from models.synth.layout import random_specs

VERSION = "1.2.0"  # 1.1: glare lamp, sensor noise, blur; 1.2: clear dice lit through,
# bold numerals, motion blur
GENERATOR = "yamscope models.blender"


def random_render(
    rng: np.random.Generator,
    size: tuple[int, int] = (640, 480),
    kinds: tuple[str, ...] = ("d10",),
    impossible: bool = False,
    samples: int = 16,
    cocked: float = 0.05,
) -> Rendered:
    """A random throw on a random table, rendered: 1..10 dice (ten for ``impossible``)."""
    n = 10 if impossible else int(rng.integers(1, 11))
    specs = random_specs(rng, n, kinds, impossible=impossible, cocked=cocked)
    return render_setup(draw_setup(rng, size, specs), rng, samples=samples)


def labels(rendered: Rendered, size: tuple[int, int]) -> dict:
    """The JSON labels of a rendered scene (its empty tray's photo is named beside them by
    the dataset writer: there is no drawn tray to rebuild), with the camera's field of view
    that an appliance's owner would give its calibration."""
    return {
        "size": list(size),
        "field_of_view": round(rendered.field_of_view, 3),
        "dice": [die_label(spec, box) for spec, box in rendered.dice],
    }


def engine(samples: int = 16) -> Engine:
    """The dataset engine that renders with Blender; ImportError without ``bpy``."""
    import bpy  # noqa: F401  (fail now, before a folder is made)

    def draw(rng, size, kinds, impossible):
        rendered = random_render(rng, size, kinds, impossible, samples)
        pictures = {"images": rendered.image, "masks": rendered.masks, "empty": rendered.empty}
        return pictures, labels(rendered, size)

    return Engine(GENERATOR, VERSION, draw, samples)


__all__ = ["GENERATOR", "VERSION", "Rendered", "engine", "labels", "random_render"]
