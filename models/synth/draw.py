"""Drawing dice into the tray photo: contact shadows first, then each die's body with rounded
edges, per-pixel shading, its marks, and for transparent dice the felt seen through it."""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache

import cv2
import numpy as np

from models.synth import background
from models.synth.core import DieSpec, Pose, Scene, SceneDie, Tray
from models.synth.glyphs import tile_for
from models.synth.solids import Projected, Solid, project, solid

SQRT_2PI = math.sqrt(2 * math.pi)
F32 = np.float32


def _window(shape: tuple[int, ...], x0: int, y0: int, x1: int, y1: int):
    """The part of window (x0, y0, x1, y1) inside an image: (image slices, window slices)."""
    h, w = shape[:2]
    cx0, cy0, cx1, cy1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
    if cx0 >= cx1 or cy0 >= cy1:
        return None
    return (
        (slice(cy0, cy1), slice(cx0, cx1)),
        (slice(cy0 - y0, cy1 - y0), slice(cx0 - x0, cx1 - x0)),
    )


def _crop(img: background.Canvas, x0: int, y0: int, x1: int, y1: int) -> np.ndarray:
    """img[y0:y1, x0:x1] as a copy, edge-padded where the window leaves the image."""
    h, w = img.shape[:2]
    cx0, cy0, cx1, cy1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
    if cx0 >= cx1 or cy0 >= cy1:
        return np.zeros((y1 - y0, x1 - x0, *img.shape[2:]), img.dtype)
    part = img[cy0:cy1, cx0:cx1]
    pad = ((cy0 - y0, y1 - cy1), (cx0 - x0, x1 - cx1)) + ((0, 0),) * (img.ndim - 2)
    return np.pad(part, pad, mode="edge") if any(p for pp in pad for p in pp) else part.copy()


def _blur(a: np.ndarray, sigma: float) -> np.ndarray:
    return cv2.GaussianBlur(a, (0, 0), sigma) if sigma > 0.25 else a


def _fix(p: np.ndarray) -> np.ndarray:
    """Float points (N, 2) to the int32 shift-4 points OpenCV's drawing functions take."""
    return np.round(np.asarray(p, np.float64).reshape(-1, 2) * 16).astype(np.int32)


def _fix_pt(p: Sequence[float]) -> tuple[int, int]:
    return round(float(p[0]) * 16), round(float(p[1]) * 16)


def _motion_kernel(vec: np.ndarray) -> np.ndarray:
    """A line kernel along ``vec`` (pixels), normalised."""
    n = math.ceil(float(np.abs(vec).max())) * 2 + 1
    k = np.zeros((n, n), F32)
    c = n // 2
    cv2.line(
        k,
        _fix_pt((c - vec[0] / 2, c - vec[1] / 2)),
        _fix_pt((c + vec[0] / 2, c + vec[1] / 2)),
        1.0,
        1,
        cv2.LINE_AA,
        4,
    )
    return k / max(float(k.sum()), 1e-6)


def _unit(v: np.ndarray) -> np.ndarray:
    return v / max(float(np.linalg.norm(v)), 1e-9)


# --- looks of the two finishes -----------------------------------------------------------


@lru_cache(maxsize=64)
def _looks(
    body_bgr: tuple[int, int, int], ink_bgr: tuple[int, int, int], red: bool, finish: str
) -> dict:
    body = np.array(body_bgr, F32) / 255.0
    ink = np.array(ink_bgr, F32) / 255.0
    if finish == "frosted":
        return {
            "body": body,
            "ink": ink,
            "through": 0.1 if red else 0.14,  # how much of the (blurred) felt shows through
            "transmit": body * 1.4,  # colour filter of light passing through the body
            "ambient": 0.58,
            "spec": (0.16, 10.0, 0.0),  # broad sheen strength, its power; gloss
            "rim": 0.07,
            "glint": np.ones(3, F32),
            "shadow": np.array((0.55, 0.55, 0.42) if red else (0.5, 0.5, 0.5), F32),
            "caustic": 0.0,
        }
    transmit = np.array((0.3, 0.32, 1.0) if red else (0.93, 0.95, 0.95), F32)
    return {
        "body": body,
        "ink": ink,
        "through": 0.7 if red else 0.82,
        "transmit": transmit * 1.15,
        "ambient": 0.5,
        "spec": (0.12, 12.0, 1.0),
        "rim": 0.22,
        "glint": (0.5 + 0.5 * body) if red else np.ones(3, F32),
        "shadow": np.array((0.42, 0.42, 0.12) if red else (0.3, 0.3, 0.3), F32),
        "caustic": 0.35,
    }


def looks_of(tray: Tray, spec: DieSpec) -> dict:
    red = spec.colour == "red"
    return _looks(
        tray.red if red else tray.white,
        tray.ink_light if red else tray.ink_dark,
        red,
        spec.finish,
    )


# --- shadows -----------------------------------------------------------------------------


def _shadow(
    img: background.Canvas,
    tray: Tray,
    spec: DieSpec,
    pose: Pose,
    pr: Projected,
    motion: np.ndarray | None,
) -> None:
    """Darken the felt under and beside the die: the cast shadow (soft, away from the lamp)
    and the dark contact line where it sits; a transparent die focuses light into its shadow."""
    lx, ly, lz = tray.light
    side = pose.side
    ground = pr.ground
    cast = ground - np.outer(pr.heights / max(lz, 0.15), pr.felt_axes @ (lx, ly))
    pen = 0.07 * side + 0.04 * float(pr.heights.max())
    pad = int(3 * pen + 3 + (np.abs(motion).max() if motion is not None else 0))
    allp = np.vstack([ground, cast])
    x0, y0 = np.floor(allp.min(0)).astype(int) - pad
    x1, y1 = np.ceil(allp.max(0)).astype(int) + pad
    win = _window(img.shape, x0, y0, x1, y1)
    if win is None:
        return
    ph, pw = y1 - y0, x1 - x0
    off = np.array([x0, y0])
    sh = np.zeros((ph, pw), F32)
    ao = np.zeros((ph, pw), F32)
    both = np.vstack([cast, ground]) - off
    cv2.fillConvexPoly(sh, _fix(cv2.convexHull(both.astype(F32))), 1.0, cv2.LINE_AA, 4)
    low = pr.heights < 0.35 * side
    foot = ground[low] if low.sum() >= 3 else ground
    cv2.fillConvexPoly(ao, _fix(cv2.convexHull((foot - off).astype(F32))), 1.0, cv2.LINE_AA, 4)
    sh = _blur(sh, pen)
    ao = _blur(ao, 0.16 * side)
    if motion is not None:
        k = _motion_kernel(motion)
        sh = cv2.filter2D(sh, -1, k)
        ao = cv2.filter2D(ao, -1, k)
    looks = looks_of(tray, spec)
    iw, ww = win
    sh, ao = sh[ww], ao[ww]
    dark = 1.0 - cv2.merge([sh * float(a) for a in looks["shadow"]])
    dark -= (0.4 * ao)[..., None]
    if looks["caustic"]:
        mid = (cast.mean(0) * 0.6 + ground.mean(0) * 0.4) - off
        ca = np.zeros((ph, pw), F32)
        axes = (max(1, round(0.2 * side * 16)), max(1, round(0.14 * side * 16)))
        cv2.ellipse(ca, _fix_pt(mid), axes, pose.angle, 0, 360, 1.0, -1, cv2.LINE_AA, 4)
        ca = _blur(ca, 0.12 * side)[ww] * sh
        dark += ca[..., None] * (looks["caustic"] * looks["transmit"])
    np.clip(dark, 0.0, 1.6, out=dark)
    img[iw] *= dark


# --- the die itself ----------------------------------------------------------------------


def _lamp_spots(
    spec_map: np.ndarray,
    tray: Tray,
    pose: Pose,
    pr: Projected,
    sol: Solid,
    visible: np.ndarray,
    off: np.ndarray,
    strength: float,
    gloss: float,
) -> None:
    """The lamp mirrored in a flat face: a small soft spot where camera, face and lamp line
    up, found per face (a glossy die shows it on some faces of some dice, not everywhere)."""
    w, h = tray.size
    side = pose.side
    centre = np.array([w / 2, h / 2, 0.0])
    camera = centre + np.array([0.0, 0.0, tray.camera_height])
    lamp = centre + pr.light * (1.3 * tray.camera_height)
    radius = (0.07 + 0.12 * (1 - gloss)) * side
    for f in visible:
        n = pr.normals[f]
        i0 = sol.faces[f][0]
        p0 = np.array([*(pr.points[i0] - pr.depth[i0] * pr.shear), pr.depth[i0]])
        mirrored = camera - 2 * ((camera - p0) @ n) * n
        ray = lamp - mirrored
        denom = ray @ n
        if abs(denom) < 1e-9:
            continue
        m = mirrored + ((p0 - mirrored) @ n) / denom * ray
        spot = m[:2] + m[2] * pr.shear - off
        poly = (pr.points[list(sol.faces[f])] - off).astype(F32)
        if cv2.pointPolygonTest(poly, (float(spot[0]), float(spot[1])), True) < -radius:
            continue
        blob = np.zeros_like(spec_map)
        cv2.circle(blob, _fix_pt(spot), max(1, round(radius * 16)), 1.0, -1, cv2.LINE_AA, 4)
        fmask = np.zeros_like(spec_map)
        cv2.fillConvexPoly(fmask, _fix(poly), 1.0, cv2.LINE_AA, 4)
        spec_map += strength * _blur(blob, 0.5 * radius) * fmask


def _marks(
    spec: DieSpec,
    tray: Tray,
    pose: Pose,
    pr: Projected,
    sol: Solid,
    faces,
    size: tuple[int, int],
    off: np.ndarray,
) -> list[tuple[int, np.ndarray]]:
    """Each listed face's mark warped to where the face lies: [(face, alpha map)]."""
    pw, ph = size
    r = pr.rotation
    side = pose.side
    style = "d10" if tray.numbered else spec.kind  # a numbered d6 is marked as a d10 is
    out = []
    for f in faces:
        c3 = r @ sol.centres[f] * side
        right3 = r @ sol.rights[f]
        down3 = r @ -sol.ups[f]
        c2 = np.array([pose.cx, pose.cy]) + c3[:2] + c3[2] * pr.shear - off
        right2 = right3[:2] + right3[2] * pr.shear
        down2 = down3[:2] + down3[2] * pr.shear
        gs = sol.mark_size[f] * side
        drawn = gs * max(math.hypot(*right2), math.hypot(*down2))
        t = tile_for(style, sol.marks[f], tray.font, drawn, tray.lettering)
        k = gs / t.shape[0]
        m = np.empty((2, 3))
        m[:, 0] = right2 * k
        m[:, 1] = down2 * k
        m[:, 2] = c2 - (t.shape[0] / 2 + 0.5) * k * (right2 + down2)
        out.append((f, cv2.warpAffine(t, m, (pw, ph), flags=cv2.INTER_LINEAR, borderValue=0)))
    return out


def _marbled(
    tray: Tray, spec: DieSpec, index: int, body: np.ndarray, shape: tuple[int, int], side: float
) -> np.ndarray:
    """The body colour (H, W, 3) of a marbled die: bands of the second plastic, swirled by
    smooth noise, over clouds of it. Drawn on a stream of its own, so that a marbled set
    moves no other draw of the scene."""
    h, w = shape
    rng = np.random.default_rng([tray.seed, index, 11])
    swirl = background.smooth_noise(rng, (w, h), max(2, round(2.0 * w / side)))
    swirl += background.smooth_noise(rng, (w, h), max(2, round(5.0 * w / side))) * F32(0.4)
    cloud = background.smooth_noise(rng, (w, h), max(2, round(1.5 * w / side)))
    turn = rng.uniform(0, math.pi)
    yy, xx = np.mgrid[0:h, 0:w].astype(F32)
    phase = (xx * F32(math.cos(turn)) + yy * F32(math.sin(turn))) / F32(
        side * rng.uniform(0.7, 1.6)
    )
    phase += swirl * F32(rng.uniform(0.5, 1.5))
    veins = np.abs(np.sin(np.pi * phase)) ** F32(rng.uniform(1.5, 6))
    share = veins * F32(0.75) + np.clip(cloud, 0, 1) * F32(0.5)
    share = np.clip(share * F32(tray.marble), 0, 1)[..., None]
    vein = np.array(tray.marble_red if spec.colour == "red" else tray.marble_white, F32) / 255
    return body * (1 - share) + vein * share


def _die(
    img: background.Canvas,
    masks: np.ndarray,
    index: int,
    tray: Tray,
    spec: DieSpec,
    pose: Pose,
    pr: Projected,
    motion: np.ndarray | None,
) -> tuple[int, int, int, int]:
    """Draw one die; mark its visible pixels ``index`` in masks; return its drawing window.

    Long: one die drawn layer by layer on the scene's random stream (reordering it would
    change every scene)."""
    sol = solid(spec.kind)
    side = pose.side
    looks = looks_of(tray, spec)
    clear = spec.finish == "transparent"
    pad = 3 + (int(np.abs(motion).max()) + 2 if motion is not None else 0)
    x0, y0 = np.floor(pr.points.min(0)).astype(int) - pad
    x1, y1 = np.ceil(pr.points.max(0)).astype(int) + pad
    ph, pw = int(y1 - y0), int(x1 - x0)
    off = np.array([x0, y0], np.float64)
    q = pr.points - off
    view = pr.view
    facing = pr.normals @ view
    visible = np.flatnonzero(facing > 1e-3)

    # which face covers each pixel; the outline rounded by blurring it and cutting at half
    ids = np.zeros((ph, pw), np.uint8)
    for f in visible:
        cv2.fillConvexPoly(ids, _fix(q[list(sol.faces[f])]), int(f) + 1, cv2.LINE_8, 4)
    inside = (ids > 0).astype(F32)
    rr = max(0.5, sol.rounding * side)
    sb = cv2.GaussianBlur(inside, (0, 0), rr)
    alpha = sb - F32(0.5)
    alpha *= F32(max(1.5, SQRT_2PI * rr))
    alpha += F32(0.5)
    np.clip(alpha, 0.0, 1.0, out=alpha)

    # per-pixel normals: faces blended across edges (bevels), rolled outward at the outline
    lut = np.zeros((len(sol.faces) + 1, 3), F32)
    lut[1:] = pr.normals
    face_n = lut[ids]
    nmap = _blur(face_n, max(0.5, 0.6 * rr))
    roll = F32(2.5 * rr / 8.0)
    nmap[..., 0] -= cv2.Sobel(sb, cv2.CV_32F, 1, 0, ksize=3) * roll
    nmap[..., 1] -= cv2.Sobel(sb, cv2.CV_32F, 0, 1, ksize=3) * roll
    nmap /= np.sqrt(np.einsum("ijk,ijk->ij", nmap, nmap) + F32(1e-6))[..., None]
    light = pr.light.astype(F32)
    half = _unit(light + view)
    dots = cv2.transform(nmap, np.array([light, half, view], F32))
    np.clip(dots, 0.0, 1.0, out=dots)
    ndl, ndh, ndv = cv2.split(dots)
    amb = looks["ambient"]
    shade = ndl * F32(1 - amb)
    shade += F32(amb)
    shade3 = cv2.merge([shade, shade, shade])

    # a broad sheen, and the lamp's own small reflection: only bevels whose normal turns
    # exactly between lamp and camera catch it (flat faces get it as one spot, see above)
    ks, power, gloss = looks["spec"]
    spec_map = np.power(ndh, power) * F32(ks)
    bevel = F32(1.0) - np.einsum("ijk,ijk->ij", nmap, face_n)
    bevel *= F32(40.0)
    np.clip(bevel, 0.0, 1.0, out=bevel)
    bevel[ids == 0] = 1.0
    strength = 0.25 + 0.75 * gloss
    spec_map += np.power(ndh, 400) * bevel * F32(strength)
    _lamp_spots(spec_map, tray, pose, pr, sol, visible, off, strength, gloss)

    # the marks of the faces the camera sees well; faint bottom marks through a clear die
    ink = np.zeros((ph, pw), F32)
    readable = [f for f in visible if facing[f] > 0.12]
    for f, warped in _marks(spec, tray, pose, pr, sol, readable, (pw, ph), off):
        fade = min(1.0, (facing[f] - 0.12) / 0.25)
        warped *= ids == f + 1
        np.maximum(ink, warped * F32(fade) if fade < 1 else warped, out=ink)

    # creases and outline catch the light
    edges = np.zeros((ph, pw), F32)
    edges[:, 1:] += ids[:, 1:] != ids[:, :-1]
    edges[1:, :] += ids[1:, :] != ids[:-1, :]
    np.minimum(edges, 1.0, out=edges)

    body = looks["body"]
    bgp = _crop(img, x0, y0, x1, y1)
    tr = looks["through"]
    if not clear:
        if tray.marble > 0:
            body = _marbled(tray, spec, index, body, (ph, pw), side)
        colour = shade3 * (body * F32(1 - tr))
        felt = cv2.GaussianBlur(bgp, (0, 0), max(0.8, 0.25 * side))
        colour += felt * (looks["transmit"] * F32(tr))
        colour += (1 - ndv)[..., None] * (F32(0.1) * body)  # glow near the rim
        glint = _blur(edges, 0.5)
    else:
        xx = np.arange(pw, dtype=F32)[None, :]
        yy = np.arange(ph, dtype=F32)[:, None]
        cx, cy = F32(pose.cx - x0), F32(pose.cy - y0)
        bend = F32(0.28 * side)
        mx = cx - (xx - cx) * F32(0.45) + nmap[..., 0] * bend
        my = cy - (yy - cy) * F32(0.45) + nmap[..., 1] * bend
        seen = cv2.remap(bgp, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
        seen = cv2.GaussianBlur(seen, (0, 0), 0.6)
        colour = seen * (looks["transmit"] * F32(tr))
        colour += shade3 * (body * F32(1 - tr))
        fres = (1 - ndv) ** 3
        fres *= F32(0.6)
        fres += F32(0.05)
        fres3 = cv2.merge([fres, fres, fres])
        colour *= 1 - fres3
        colour += fres3 * F32(0.85)
        back = np.zeros((ph, pw), F32)  # the hidden faces' edges, seen through the body
        for f in np.flatnonzero(facing < -1e-3):
            cv2.polylines(back, [_fix(q[list(sol.faces[f])])], True, 1.0, 1, cv2.LINE_AA, 4)
        edges += 0.3 * back
        glint = _blur(edges, 0.5)
        bottom = int(np.argmin(facing))
        ghost = _marks(spec, tray, pose, pr, sol, [bottom], (pw, ph), off)[0][1]
        ghost *= inside
        ghost *= F32(0.15)
        colour = colour * (1 - cv2.merge([ghost] * 3)) + cv2.merge(
            [ghost * F32(c) for c in looks["ink"]]
        )
    glint *= ndl + F32(0.35)
    glint *= F32(looks["rim"])
    colour += cv2.merge([glint * F32(c) for c in looks["glint"]])
    ink3 = cv2.merge([ink, ink, ink])
    colour *= 1 - ink3
    colour += ink3 * shade3 * looks["ink"]
    colour += cv2.merge([spec_map, spec_map, spec_map])

    if motion is not None:
        k = _motion_kernel(motion)
        colour = cv2.filter2D(colour * alpha[..., None], -1, k)
        alpha = cv2.filter2D(alpha, -1, k)
    else:
        colour *= alpha[..., None]
    bgp *= (1 - alpha)[..., None]
    bgp += colour
    win = _window(img.shape, x0, y0, x1, y1)
    if win is not None:
        iw, ww = win
        img[iw] = bgp[ww]
        masks[iw][alpha[ww] >= 0.5] = index
    return int(x0), int(y0), int(x1), int(y1)


# --- the scene ---------------------------------------------------------------------------


def render(
    tray: Tray,
    specs: Sequence[DieSpec],
    poses: Sequence[Pose],
    rng: np.random.Generator,
    *,
    motion: float = 0.0,
) -> Scene:
    """Draw the dice on the tray. ``motion > 0`` smears each die (and its shadow) along a
    random direction by ``motion`` die sides, as if it were still rolling."""
    if len(specs) != len(poses):
        raise ValueError(f"{len(specs)} dice but {len(poses)} poses")
    if len(specs) > 255:
        raise ValueError("at most 255 dice in one scene")
    w, h = tray.size
    img = background.canvas(tray)
    masks = np.zeros((h, w), np.uint8)
    projected = [project(s, p, tray) for s, p in zip(specs, poses, strict=True)]
    moves: list[np.ndarray | None] = []
    for p in poses:
        if motion > 0:
            a = rng.uniform(0, 2 * math.pi)
            moves.append(np.array([math.cos(a), math.sin(a)]) * motion * p.side)
        else:
            moves.append(None)
    # flat dice first, cocked ones last: they lean on the others
    order = sorted(range(len(specs)), key=lambda i: (specs[i].cocked, i))
    for i in order:
        _shadow(img, tray, specs[i], poses[i], projected[i], moves[i])
    windows = {}
    for i in order:
        windows[i] = _die(img, masks, i + 1, tray, specs[i], poses[i], projected[i], moves[i])
    image = background.finish(tray, img, rng)
    dice = []
    for i, (s, p) in enumerate(zip(specs, poses, strict=True)):
        box = (0, 0, 0, 0)
        win = _window(masks.shape, *windows[i])
        if win is not None:
            (sy, sx), _ = win
            ys, xs = np.nonzero(masks[sy, sx] == i + 1)
            if len(xs):
                box = (
                    sx.start + int(xs.min()),
                    sy.start + int(ys.min()),
                    sx.start + int(xs.max()) + 1,
                    sy.start + int(ys.max()) + 1,
                )
        dice.append(SceneDie(spec=s, pose=p, box=box))
    return Scene(image=image, masks=masks, dice=dice, tray=tray)
