"""The dice as solids, in numpy (no Blender): vertices, faces, which value each face shows
and the rotation that puts a given value on top. The Blender scenes build their meshes from
these, and CI tests them without rendering anything.

A d10 is a pentagonal trapezohedron: two apexes and a zigzag ring of ten vertices, ten kite
faces; opposite faces are parallel (a die at rest shows one face straight up) and, as on
real dice, their values add up to 11 (ten is printed "0"). A d6 is a unit cube whose
opposite faces add up to 7.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

#: ring radius 1; the ring's zigzag half-height; the apex height follows from flat kites
D10_RING_Z = 0.105


def _d10_apex(ring_z: float) -> float:
    """The apex height that makes (apex, ring 0, ring 1, ring 2) coplanar: the kites flat."""
    a = np.array([1.0, 0.0, ring_z])
    b = np.array([math.cos(math.radians(36)), math.sin(math.radians(36)), -ring_z])
    c = np.array([math.cos(math.radians(72)), math.sin(math.radians(72)), ring_z])
    # the plane through a, b, c meets the z axis at the apex
    normal = np.cross(b - a, c - a)
    return float(normal @ a / normal[2])


@dataclass(frozen=True)
class Solid:
    """A convex die: ``vertices`` (V, 3), ``faces`` (lists of vertex indices, counter-clockwise
    seen from outside), ``values`` shown by each face, and for each face an ``up`` direction in
    its plane along which its numeral or pip layout stands upright."""

    vertices: np.ndarray
    faces: tuple[tuple[int, ...], ...]
    values: tuple[int, ...]
    up: np.ndarray

    def normal(self, face: int) -> np.ndarray:
        p = self.vertices[list(self.faces[face])]
        n = np.cross(p[1] - p[0], p[2] - p[0])
        return n / np.linalg.norm(n)

    def centre(self, face: int) -> np.ndarray:
        return self.vertices[list(self.faces[face])].mean(axis=0)

    def face_of(self, value: int) -> int:
        return self.values.index(value)


def d10() -> Solid:
    """A d10 of ring radius 1 (its kites' long diagonal is about 1.3)."""
    apex = _d10_apex(D10_RING_Z)
    ring = [
        (math.cos(math.radians(36 * k)), math.sin(math.radians(36 * k)),
         D10_RING_Z if k % 2 == 0 else -D10_RING_Z)
        for k in range(10)
    ]  # fmt: skip
    vertices = np.array([(0.0, 0.0, apex), (0.0, 0.0, -apex), *ring])
    top, bottom = 0, 1
    faces, up = [], []
    for j in range(5):  # upper kites: apex, even ring vertex, odd, next even
        a, b, c = 2 + 2 * j, 2 + (2 * j + 1) % 10, 2 + (2 * j + 2) % 10
        faces.append((top, a, b, c))
    for j in range(5):  # lower kites: bottom apex, odd ring vertex, even, next odd
        a, b, c = 2 + (2 * j + 1) % 10, 2 + (2 * j + 2) % 10, 2 + (2 * j + 3) % 10
        faces.append((bottom, c, b, a))
    solid_faces = tuple(faces)
    # values: upper kite j shows 1 + 2j's partner scheme; each lower kite is the one opposite
    # an upper kite (normal reversed), and opposite values add up to 11
    upper_values = (1, 3, 5, 7, 9)
    values = [0] * 10
    provisional = Solid(vertices, solid_faces, tuple(range(10)), np.zeros((10, 3)))
    normals = [provisional.normal(f) for f in range(10)]
    for j, value in enumerate(upper_values):
        values[j] = value
        opposite = min(range(5, 10), key=lambda f, n=normals[j]: float(normals[f] @ n))
        values[opposite] = 11 - value
    for f in range(10):  # upright towards the face's apex
        toward = vertices[solid_faces[f][0]] - provisional.centre(f)
        n = normals[f]
        toward = toward - (toward @ n) * n
        up.append(toward / np.linalg.norm(toward))
    return Solid(vertices, solid_faces, tuple(values), np.array(up))


def d6() -> Solid:
    """A cube of side 1 centred on the origin; +z shows 1, opposite faces add up to 7."""
    v = np.array([(x, y, z) for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (-0.5, 0.5)])

    def index(x: float, y: float, z: float) -> int:
        return int(np.flatnonzero((v == (x, y, z)).all(axis=1))[0])

    h = 0.5
    faces = (
        (index(-h, -h, h), index(h, -h, h), index(h, h, h), index(-h, h, h)),  # +z: 1
        (index(-h, -h, -h), index(-h, h, -h), index(h, h, -h), index(h, -h, -h)),  # -z: 6
        (index(h, -h, -h), index(h, h, -h), index(h, h, h), index(h, -h, h)),  # +x: 2
        (index(-h, -h, -h), index(-h, -h, h), index(-h, h, h), index(-h, h, -h)),  # -x: 5
        (index(-h, h, -h), index(-h, h, h), index(h, h, h), index(h, h, -h)),  # +y: 3
        (index(-h, -h, -h), index(h, -h, -h), index(h, -h, h), index(-h, -h, h)),  # -y: 4
    )
    up = np.array([(0, 1, 0), (0, 1, 0), (0, 0, 1), (0, 0, 1), (0, 0, 1), (0, 0, 1)], float)
    return Solid(v.astype(float), faces, (1, 6, 2, 5, 3, 4), up)


#: where the pips of each d6 value sit on a face, in units of the side, from its centre
#: (x along the face's right, y along its up)
PIPS = {
    1: [(0, 0)],
    2: [(-0.25, -0.25), (0.25, 0.25)],
    3: [(-0.25, -0.25), (0, 0), (0.25, 0.25)],
    4: [(-0.25, -0.25), (0.25, -0.25), (-0.25, 0.25), (0.25, 0.25)],
    5: [(-0.25, -0.25), (0.25, -0.25), (0, 0), (-0.25, 0.25), (0.25, 0.25)],
    6: [(-0.25, -0.25), (0.25, -0.25), (-0.25, 0), (0.25, 0), (-0.25, 0.25), (0.25, 0.25)],
}


def rotation_between(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The 3x3 rotation taking unit vector ``a`` onto unit vector ``b`` (Rodrigues)."""
    a, b = a / np.linalg.norm(a), b / np.linalg.norm(b)
    axis = np.cross(a, b)
    s, c = float(np.linalg.norm(axis)), float(a @ b)
    if s < 1e-9:
        if c > 0:
            return np.eye(3)
        # half a turn about any axis perpendicular to a
        other = np.array([1.0, 0, 0]) if abs(a[0]) < 0.9 else np.array([0, 1.0, 0])
        k = np.cross(a, other)
        k /= np.linalg.norm(k)
        return 2 * np.outer(k, k) - np.eye(3)
    k = axis / s
    kx = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + s * kx + (1 - c) * kx @ kx


def rotation_z(angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]])


def showing(solid: Solid, value: int, turn: float, tilt: float = 0.0, tilt_dir: float = 0.0):
    """The rotation that rests ``solid`` with ``value`` straight up, turned by ``turn``
    radians about the vertical, then leaned ``tilt`` radians towards ``tilt_dir`` (a cocked
    die)."""
    face = solid.face_of(value)
    rest = rotation_between(solid.normal(face), np.array([0.0, 0.0, 1.0]))
    lean_axis = np.array([-math.sin(tilt_dir), math.cos(tilt_dir), 0.0])
    lean = _axis_angle(lean_axis, tilt)
    return lean @ rotation_z(turn) @ rest


def _axis_angle(axis: np.ndarray, angle: float) -> np.ndarray:
    k = axis / np.linalg.norm(axis)
    kx = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + math.sin(angle) * kx + (1 - math.cos(angle)) * kx @ kx


def top_value(solid: Solid, rotation: np.ndarray) -> int:
    """The value of the face that points most nearly up after ``rotation``."""
    ups = [float((rotation @ solid.normal(f))[2]) for f in range(len(solid.faces))]
    return solid.values[int(np.argmax(ups))]
