"""The dice as 3-D solids: a cube and a pentagonal trapezohedron, their faces and marks, and
how a pose places them in the photo (a camera looking straight down, with the perspective of
its height: dice away from the centre show a little of their sides; or one held at a slant,
``Tray.slant``, that sees every die's front face)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache, lru_cache

import cv2
import numpy as np

from models.synth.core import DieSpec, Pose, Tray


@dataclass(frozen=True)
class Solid:
    kind: str
    vertices: np.ndarray  # (V, 3), in units of the pose's side
    faces: tuple[tuple[int, ...], ...]  # vertex indices of each face (convex polygons)
    normals: np.ndarray  # (F, 3) outward unit normals
    marks: tuple[str, ...]  # the mark on each face ("1".."6" pips, "0".."9" numerals)
    centres: np.ndarray  # (F, 3) centre of each face's mark
    ups: np.ndarray  # (F, 3) unit vector pointing to the top of each face's mark
    rights: np.ndarray  # (F, 3) unit vector pointing to the right of each face's mark
    mark_size: np.ndarray  # (F,) side of the square tile the mark is drawn in
    rounding: float  # corner/edge radius, in sides
    extent: float  # half of the largest span of the solid, in sides


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


@cache
def cube() -> Solid:
    """A d6 of edge 1: opposite faces add to 7 (1 top, 2 +x, 3 +y)."""
    v = np.array([[x, y, z] for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (-0.5, 0.5)], float)
    normals = np.array([[0, 0, 1], [0, 0, -1], [1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0]], float)
    marks = ("1", "6", "2", "5", "3", "4")
    ups = np.array([[0, -1, 0], [0, -1, 0], [0, 0, 1], [0, 0, 1], [0, 0, 1], [0, 0, 1]], float)
    faces = []
    for n in normals:
        idx = [i for i, p in enumerate(v) if abs(p @ n - 0.5) < 1e-9]
        c = v[idx].mean(0)
        a = np.cross(n, [0.3, 0.5, 0.7])
        b = np.cross(n, a)
        ang = [math.atan2((v[i] - c) @ b, (v[i] - c) @ a) for i in idx]
        faces.append(tuple(i for _, i in sorted(zip(ang, idx, strict=True))))
    return Solid(
        kind="d6",
        vertices=v,
        faces=tuple(faces),
        normals=normals,
        marks=marks,
        centres=normals * 0.5,
        ups=ups,
        rights=np.cross(-ups, normals),
        mark_size=np.full(6, 0.86),
        rounding=0.11,
        extent=0.87,
    )


#: Pole height of the d10 when its ring of vertices has radius 1.
D10_POLE = 1.05
#: The d10's scale: its ring radius in units of the pose's side.
D10_SCALE = 0.64
#: Values around the upper pole, in order; the face opposite each reads 9 minus it.
D10_UPPER = ("1", "7", "3", "9", "5")


@cache
def trapezohedron() -> Solid:
    """A d10: ten kites, five around each pole; opposite faces add to 9; every mark's top
    points to its pole."""
    h = D10_POLE
    z0 = h * (1 - math.cos(math.pi / 5)) / (1 + math.cos(math.pi / 5))
    north, south = [0.0, 0.0, h], [0.0, 0.0, -h]
    upper = [[math.cos(2 * math.pi * k / 5), math.sin(2 * math.pi * k / 5), z0] for k in range(5)]
    lower = [
        [
            math.cos(2 * math.pi * k / 5 + math.pi / 5),
            math.sin(2 * math.pi * k / 5 + math.pi / 5),
            -z0,
        ]
        for k in range(5)
    ]
    v = np.array([north, south, *upper, *lower], float) * D10_SCALE
    n_, s_, u_, l_ = 0, 1, 2, 7
    faces: list[tuple[int, ...]] = []
    for k in range(5):
        faces.append((n_, u_ + k, l_ + k, u_ + (k + 1) % 5))
    for k in range(5):
        faces.append((s_, l_ + k, u_ + (k + 1) % 5, l_ + (k + 1) % 5))
    normals, centres, ups, marks = [], [], [], []
    for i, f in enumerate(faces):
        p = v[list(f)]
        n = _unit(np.cross(p[1] - p[0], p[3] - p[0]))
        if n @ p.mean(0) < 0:
            n = -n
        pole, far = p[0], p[2]  # the kite's sharp end (pole) and blunt end
        normals.append(n)
        centres.append(pole + 0.6 * (far - pole))
        ups.append(_unit(pole - far))
        if i < 5:
            marks.append(D10_UPPER[i])
    normals_a = np.array(normals)
    # the face opposite an upper face has the opposite normal; it reads 9 minus that face
    for i in range(5, 10):
        opposite = int(np.argmin(normals_a[:5] @ normals_a[i]))
        marks.append(str(9 - int(D10_UPPER[opposite])))
    kite = float(np.linalg.norm(v[faces[0][2]] - v[faces[0][0]]))
    return Solid(
        kind="d10",
        vertices=v,
        faces=tuple(faces),
        normals=normals_a,
        marks=tuple(marks),
        centres=np.array(centres),
        ups=np.array(ups),
        rights=np.cross(-np.array(ups), normals_a),
        mark_size=np.full(10, 0.42 * kite),
        rounding=0.035,
        extent=float(np.abs(v).max()),
    )


def solid(kind: str) -> Solid:
    return cube() if kind == "d6" else trapezohedron()


def _rotation(axis: np.ndarray, angle: float) -> np.ndarray:
    """Rodrigues: a right-handed turn by ``angle`` radians about the unit ``axis``."""
    x, y, z = axis
    k = np.array([[0, -z, y], [z, 0, -x], [-y, x, 0]])
    return np.eye(3) + math.sin(angle) * k + (1 - math.cos(angle)) * (k @ k)


@lru_cache(maxsize=256)
def _rest(kind: str, mark: str) -> np.ndarray:
    """The turn that puts the face marked ``mark`` on top with its mark upright (top to -y)."""
    s = solid(kind)
    f = s.marks.index(mark)
    n, up = s.normals[f], s.ups[f]
    up = _unit(up - (up @ n) * n)
    right = np.cross(-up, n)  # x axis of the mark: with y = -up, x × y = n
    return np.array([right, -up, n])


def rotation(spec: DieSpec, pose: Pose) -> np.ndarray:
    """The die's orientation: face up, turned by ``angle``, then leant by ``tilt``."""
    r = _rest(spec.kind, spec.face)
    a = math.radians(pose.angle)
    c, s = math.cos(a), math.sin(a)
    r = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]]) @ r
    if pose.tilt:
        d = math.radians(pose.tilt_dir)
        axis = np.array([-math.sin(d), math.cos(d), 0.0])
        r = _rotation(axis, math.radians(pose.tilt)) @ r
    return r


@dataclass
class Projected:
    """A posed die in the photo: 2-D points, heights above the felt, what the camera sees.

    Vectors are in screen axes (x right, y down, z towards the camera); with a slanted
    camera the felt is not the screen plane, so ``ground``, ``depth`` and ``light`` say where
    it lies."""

    points: np.ndarray  # (V, 2) image coordinates of the vertices
    heights: np.ndarray  # (V,) height of each vertex above the felt, in pixels
    normals: np.ndarray  # (F, 3) face normals in screen axes
    view: np.ndarray  # (3,) unit vector towards the camera from the die
    shear: np.ndarray  # (2,) image shift per pixel of height (perspective)
    rotation: np.ndarray  # (3, 3)
    ground: np.ndarray  # (V, 2) image point of the felt right under each vertex
    depth: np.ndarray  # (V,) towards the camera from the farthest vertex (from above: heights)
    light: np.ndarray  # (3,) unit vector towards the lamp in screen axes
    felt_axes: np.ndarray  # (2, 2) image shift of one pixel along the felt's x and y (columns)


@cache
def camera_turn(slant: float) -> np.ndarray:
    """Felt axes to screen axes for a camera ``slant`` degrees from straight down, standing
    past the photo's bottom edge: the felt's y shortens by cos(slant) and what stands up
    from it leans up the photo."""
    t = math.radians(slant)
    c, s = math.cos(t), math.sin(t)
    return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])


def project(spec: DieSpec, pose: Pose, tray: Tray) -> Projected:
    s = solid(spec.kind)
    r = rotation(spec, pose)
    v = s.vertices @ r.T * pose.side
    lift = -v[:, 2].min()
    w, h = tray.size
    shear = (np.array([pose.cx, pose.cy]) - (w / 2, h / 2)) / tray.camera_height
    centre = np.array([pose.cx, pose.cy])
    heights = v[:, 2] + lift
    view = _unit(np.array([-shear[0], -shear[1], 1.0]))
    if not tray.slant:
        points = centre + v[:, :2] + np.outer(v[:, 2], shear)
        return Projected(
            points=points,
            heights=heights,
            normals=s.normals @ r.T,
            view=view,
            shear=shear,
            rotation=r,
            ground=points - np.outer(heights, shear),
            depth=heights,
            light=np.asarray(tray.light, np.float64),
            felt_axes=np.eye(2),
        )
    turn = camera_turn(tray.slant)
    seen = v @ turn.T
    under = v.copy()
    under[:, 2] = -lift
    under = under @ turn.T
    return Projected(
        points=centre + seen[:, :2] + np.outer(seen[:, 2], shear),
        heights=heights,
        normals=s.normals @ (turn @ r).T,
        view=view,
        shear=shear,
        rotation=turn @ r,
        ground=centre + under[:, :2] + np.outer(under[:, 2], shear),
        depth=seen[:, 2] - seen[:, 2].min(),
        light=turn @ np.asarray(tray.light, np.float64),
        felt_axes=turn[:2, :2] + np.outer(shear, turn[2, :2]),
    )


def posed(spec: DieSpec, pose: Pose) -> np.ndarray:
    """The die's vertices (V, 3) in pixels about its centre, turned and leant as posed."""
    return solid(spec.kind).vertices @ rotation(spec, pose).T * pose.side


def outline(vertices: np.ndarray, cx: float, cy: float, tray: Tray) -> np.ndarray:
    """The outline (N, 2) float32 of posed ``vertices`` centred at (cx, cy) in the photo."""
    if tray.slant:
        vertices = vertices @ camera_turn(tray.slant).T
    w, h = tray.size
    sx = (cx - w / 2) / tray.camera_height
    sy = (cy - h / 2) / tray.camera_height
    pts = np.empty((len(vertices), 2), np.float32)
    pts[:, 0] = cx + vertices[:, 0] + vertices[:, 2] * sx
    pts[:, 1] = cy + vertices[:, 1] + vertices[:, 2] * sy
    return cv2.convexHull(pts).reshape(-1, 2)


def hull(spec: DieSpec, pose: Pose, tray: Tray) -> np.ndarray:
    """The die's outline in the photo: a convex polygon (N, 2) float32."""
    return outline(posed(spec, pose), pose.cx, pose.cy, tray)
