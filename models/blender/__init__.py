"""Photoreal tray scenes rendered with Blender's Cycles (optional extra ``render``: ``bpy``).

``yamscope render --engine blender`` writes them in the same folder layout as the fast
generator (``models.synth.dataset``), plus ``empty/`` (the same tray without its dice, what
an appliance calibrates on), so ``yamscope evaluate`` and training read either. Only
:mod:`models.blender.geometry` and the layout are used without Blender (CI tests them);
``bpy`` is imported when an engine is asked for.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from models.blender.scene import (
    DICE_SETS,
    HOUSE,
    VARIED,
    DiceSet,
    Rendered,
    Setup,
    draw_phone_table,
    draw_setup,
    draw_table,
    place_dice,
    render_setup,
    varied_set,
)
from models.synth.core import FACES, DieSpec
from models.synth.dataset import Engine, die_label
from models.synth.layout import random_specs

VERSION = "1.2.0"  # 1.1: glare lamp, sensor noise, blur; 1.2: clear dice lit through,
# bold numerals, motion blur
GENERATOR = "yamscope models.blender"
COCKED = 0.05  # the chance a die is cocked


@dataclass(frozen=True)
class Table:
    """One appliance's table through an evening: felt, camera and light stay, and so do its
    dice (kind, colour, finish); each throw lands them anew."""

    setup: Setup
    dice: list[DieSpec]


def one_table(
    seed: int,
    size: tuple[int, int],
    kinds: tuple[str, ...],
    impossible: bool,
    phone: bool = False,
    finish: str | None = None,
) -> Table:
    """The table and its ten dice drawn from ``seed`` alone (``phone``: a table seen by a
    phone, :func:`models.blender.scene.draw_phone_table`)."""
    rng = np.random.default_rng(seed)
    table = draw_phone_table(rng, size) if phone else draw_table(rng, size)
    return Table(table, random_specs(rng, 10, kinds, impossible=impossible, finish=finish))


def throw(rng: np.random.Generator, table: Table, impossible: bool, cocked: float) -> list[DieSpec]:
    """Some of the table's dice (all ten for ``impossible``), each showing a new value."""
    n = 10 if impossible else int(rng.integers(1, 11))
    return [
        replace(
            table.dice[i],
            value=int(rng.integers(1, FACES[table.dice[i].kind] + 1)),
            cocked=bool(rng.random() < cocked),
        )
        for i in rng.permutation(len(table.dice))[:n]
    ]


def random_render(
    rng: np.random.Generator,
    size: tuple[int, int] = (640, 480),
    kinds: tuple[str, ...] = ("d10",),
    impossible: bool = False,
    samples: int = 16,
    cocked: float = COCKED,
    dice_set: DiceSet = HOUSE,
    table: Table | None = None,
    phone: bool = False,
) -> Rendered:
    """A random throw, rendered: 1..10 dice (ten for ``impossible``), on a random table or
    on ``table``; ``phone``: on a table seen by a phone (no tray wall: no die is cocked)."""
    if phone:
        cocked = 0.0
    if table is None:
        n = 10 if impossible else int(rng.integers(1, 11))
        specs = random_specs(
            rng, n, kinds, impossible=impossible, cocked=cocked, finish=dice_set.finish
        )
        setup = draw_setup(rng, size, specs, phone=phone)
    else:
        setup = place_dice(rng, table.setup, throw(rng, table, impossible, cocked))
    return render_setup(setup, rng, samples=samples, dice_set=dice_set)


def labels(rendered: Rendered, size: tuple[int, int]) -> dict:
    """The JSON labels of a rendered scene (its empty tray's photo is named beside them by
    the dataset writer: there is no drawn tray to rebuild), with the camera's field of view
    that an appliance's owner would give its calibration, and a phone's slant."""
    out = {
        "size": list(size),
        "field_of_view": round(rendered.field_of_view, 3),
        "dice": [die_label(spec, box) for spec, box in rendered.dice],
    }
    if rendered.slant:  # a phone's photo: its dice are read upright, by their top face
        out["slant"] = rendered.slant
    return out


def engine(
    samples: int = 16, dice_set: str = "house", table_seed: int | None = None, phone: bool = False
) -> Engine:
    """The dataset engine that renders with Blender; ImportError without ``bpy``.
    ``dice_set`` names the dice's look (:data:`models.blender.scene.DICE_SETS`, or ``varied``:
    a new one each scene, or each table); ``table_seed``: every scene on the one table drawn
    from it; ``phone``: dice on a table seen by a phone, not in a tray seen from above."""
    import bpy  # noqa: F401  (fail now, before a folder is made)

    fixed = DICE_SETS.get(dice_set)
    if fixed is None and dice_set != VARIED:
        raise ValueError(f"dice_set is one of {', '.join([*DICE_SETS, VARIED])}, not {dice_set!r}")
    if fixed is None and table_seed is not None:  # the table's dice keep their one look
        fixed = varied_set(np.random.default_rng([table_seed, 1]))
    tables: dict[tuple, Table] = {}

    def draw(rng, size, kinds, impossible):
        table = None
        if table_seed is not None:
            key = (size, kinds, impossible)
            if key not in tables:
                finish = fixed.finish if fixed is not None else None
                tables[key] = one_table(table_seed, size, kinds, impossible, phone, finish)
            table = tables[key]
        look = fixed or varied_set(rng)
        rendered = random_render(
            rng, size, kinds, impossible, samples, dice_set=look, table=table, phone=phone
        )
        pictures = {"images": rendered.image, "masks": rendered.masks}
        if rendered.empty is not None:
            pictures["empty"] = rendered.empty
        return pictures, labels(rendered, size)

    notes = [f"{dice_set} set"] if dice_set != HOUSE.name else []
    if phone:
        notes.insert(0, "phone view")
    if table_seed is not None:
        notes.append(f"table {table_seed}")
    generator = f"{GENERATOR} ({', '.join(notes)})" if notes else GENERATOR
    return Engine(generator, VERSION, draw, samples)


__all__ = [
    "GENERATOR",
    "VERSION",
    "Rendered",
    "Table",
    "engine",
    "labels",
    "one_table",
    "random_render",
    "throw",
]
