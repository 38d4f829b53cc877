"""The empty tray: table, wall, felt with its grain, the light over it; and the camera's
finishing touches (glare, blur, sensor noise, JPEG) applied to every photo."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import lru_cache

import cv2
import numpy as np

from models.synth.core import Tray

_POOL_SIZE = 1 << 20
NOISE_ROWS = 128  # the sensor noise is drawn this many rows at a time
WORK_ROWS = 32  # and the picture lit, blurred and noised this many (a band: 0.5 MB)


@lru_cache(maxsize=1)
def _pool() -> np.ndarray:
    """A fixed pool of standard normal numbers (4 MB, kept by a simulated tray for its whole
    life). Drawing fresh normals for every pixel costs more than the whole rest of a scene;
    a random window into this pool is as good."""
    return np.random.default_rng(20240607).standard_normal(_POOL_SIZE, dtype=np.float32)


def normals(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """Standard normal noise of ``shape`` (read-only when it fits in the pool)."""
    n = int(np.prod(shape))
    pool = _pool()
    if n <= _POOL_SIZE:
        start = int(rng.integers(0, _POOL_SIZE - n + 1))
        return pool[start : start + n].reshape(shape)
    parts, left = [], n
    while left > 0:
        k = min(left, _POOL_SIZE)
        start = int(rng.integers(0, _POOL_SIZE - k + 1))
        parts.append(pool[start : start + k])
        left -= k
    return np.concatenate(parts).reshape(shape)


def smooth_noise(rng: np.random.Generator, size: tuple[int, int], cells: int) -> np.ndarray:
    """Low-frequency noise (H, W) float32 of about unit amplitude, ``cells`` across."""
    w, h = size
    gw = max(2, cells)
    gh = max(2, round(cells * h / max(w, 1)))
    small = rng.standard_normal((gh, gw), dtype=np.float32)
    mid = cv2.resize(small, (max(2, w // 8), max(2, h // 8)), interpolation=cv2.INTER_CUBIC)
    return cv2.resize(mid, (w, h), interpolation=cv2.INTER_LINEAR)


def _fill(img: np.ndarray, rect: tuple[int, int, int, int], bgr: np.ndarray) -> None:
    """Paint img[y0:y1, x0:x1] one colour (cv2 does it far faster than numpy broadcasting)."""
    x0, y0, x1, y1 = rect
    if x0 < x1 and y0 < y1:
        cv2.rectangle(img, (x0, y0), (x1 - 1, y1 - 1), tuple(float(c) for c in bgr), -1)


def _ramp(d: np.ndarray, width: float) -> np.ndarray:
    """1 at d <= 0 falling smoothly to 0 at d >= width."""
    t = np.clip(d / max(width, 1e-3), 0.0, 1.0)
    return 1.0 - t * t * (3 - 2 * t)


def _clip_rect(r: np.ndarray, w: int, h: int) -> tuple[int, int, int, int]:
    x0, y0, x1, y1 = np.round(r).astype(int)
    return max(0, x0), max(0, y0), min(w, x1), min(h, y1)


def wall_rects(tray: Tray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The felt rectangle, the top inner edge and the outer edge of the wall, as (x0, y0, x1,
    y1) float arrays; the wall's inner face shows between the first two (perspective)."""
    w, h = tray.size
    felt = np.array(tray.area, np.float64)
    centre = np.array([w / 2, h / 2, w / 2, h / 2])
    grow = tray.camera_height / max(tray.camera_height - tray.wall_height, 1.0)
    inner = centre + (felt - centre) * grow
    outer = inner + np.array([-1, -1, 1, 1]) * tray.wall_width * grow
    return felt, inner, outer


@lru_cache(maxsize=2)  # ~8 MB each at 1280x960; a table keeps one tray
def _static(tray: Tray) -> tuple[np.ndarray, np.ndarray]:
    """(background BGR float16 0..1, light gain (H/8, W/8, 3) float32) of the tray; cached,
    the background in half floats (a simulated tray keeps it all evening; 1/2000 is far
    below a pixel step).

    Long: each layer of the felt drawn in turn, on the one random stream the scene's seed
    fixes (reordering it would change every scene)."""
    rng = np.random.default_rng(tray.seed)
    w, h = tray.size
    felt_r, inner, outer = wall_rects(tray)
    lx, ly, lz = tray.light
    scale = tray.die_side

    # flat colours of table, wall and felt in one image, their textures in another
    table = np.array(tray.table, np.float32) / 255.0
    bg = np.empty((h, w, 3), np.float32)
    _fill(bg, (0, 0, w, h), table)
    streak = cv2.resize(  # the table: a wood-like streaky texture
        rng.standard_normal((max(2, h // 3), 6), dtype=np.float32),
        (w, h),
        interpolation=cv2.INTER_LINEAR,
    )
    tex = streak * np.float32(0.07)
    tex += smooth_noise(rng, (w, h), 5) * np.float32(0.04)
    tex += np.float32(1.0)

    # wall: top band, and the inner faces between the felt and the top's inner edge
    wall = np.array(tray.wall, np.float32) / 255.0
    ox0, oy0, ox1, oy1 = _clip_rect(outer, w, h)
    if ox0 < ox1 and oy0 < oy1:
        _fill(bg, (ox0, oy0, ox1, oy1), wall * (tray.ambient + (1 - tray.ambient) * lz))
        wall_tex = smooth_noise(rng, (ox1 - ox0, oy1 - oy0), 12)
        wall_tex *= np.float32(0.05)
        wall_tex += np.float32(1.0)
        tex[oy0:oy1, ox0:ox1] = wall_tex
    fx0, fy0, fx1, fy1 = felt_r
    ix0, iy0, ix1, iy1 = inner
    quads = (  # left, top, right, bottom inner faces; their normals point into the tray
        ([(ix0, iy0), (fx0, fy0), (fx0, fy1), (ix0, iy1)], lx),
        ([(ix0, iy0), (ix1, iy0), (fx1, fy0), (fx0, fy0)], ly),
        ([(ix1, iy0), (ix1, iy1), (fx1, fy1), (fx1, fy0)], -lx),
        ([(ix0, iy1), (fx0, fy1), (fx1, fy1), (ix1, iy1)], -ly),
    )
    for quad, facing in quads:
        shade = 0.85 * (tray.ambient * 0.8 + (1 - tray.ambient) * max(0.0, facing))
        pts = np.round(np.array(quad) * 16).astype(np.int32)
        cv2.fillConvexPoly(bg, pts, tuple(float(c) for c in wall * shade), cv2.LINE_AA, 4)

    # felt: base colour, slow mottling, fibre grain, a few specks of lint
    x0, y0, x1, y1 = _clip_rect(felt_r, w, h)
    fw, fh = x1 - x0, y1 - y0
    felt = np.array(tray.felt, np.float32) / 255.0
    grain = cv2.GaussianBlur(normals(rng, (fh, fw)), (0, 0), 0.7)
    fibre = cv2.resize(
        rng.standard_normal((fh // 4 + 2, fw // 4 + 2), dtype=np.float32),
        (fw, fh),
        interpolation=cv2.INTER_LINEAR,
    )
    mottle = grain * np.float32(1.6 * tray.felt_grain)
    mottle += fibre * np.float32(0.5 * tray.felt_grain)
    mottle += smooth_noise(rng, (fw, fh), 6) * np.float32(0.04)
    mottle += np.float32(1.0)
    # shadow of the wall on the lamp's side, and darker corners along every wall
    reach = tray.wall_height / max(lz, 0.2)
    dx = np.arange(x0, x1, dtype=np.float32) + 0.5
    dy = np.arange(y0, y1, dtype=np.float32) + 0.5
    lit_x = np.ones(fw, np.float32)
    lit_y = np.ones(fh, np.float32)
    for d, toward, lit in (
        (dx - fx0, -lx, lit_x),
        (fx1 - dx, lx, lit_x),
        (dy - fy0, -ly, lit_y),
        (fy1 - dy, ly, lit_y),
    ):
        if toward > 0:  # the lamp is beyond this wall: it shades the felt next to it
            width = reach * toward
            lit *= 1.0 - 0.55 * _ramp(d - 0.6 * width, 0.8 * width + 0.2 * scale)
        lit *= 1.0 - 0.18 * _ramp(d, 0.5 * scale)
    mottle *= lit_y[:, None]
    mottle *= lit_x[None, :]
    tint = felt * (1.0 + 0.02 * rng.standard_normal(3)).astype(np.float32)
    _fill(bg, (x0, y0, x1, y1), tint)
    tex[y0:y1, x0:x1] = mottle
    bg *= tex[..., None]  # the texture on all three channels, without a 3-channel copy
    for _ in range(int(rng.integers(0, 12))):
        c = (x0 + int(rng.integers(0, fw)), y0 + int(rng.integers(0, fh)))
        col = tuple(float(v) for v in np.clip(tint * rng.uniform(1.3, 2.5), 0, 1))
        cv2.circle(bg, c, int(rng.integers(0, 2)), col, -1, cv2.LINE_AA)

    # the light over everything: exposure, gradient, vignetting, a hot spot, white balance
    gw, gh = max(2, w // 8), max(2, h // 8)
    u = (np.arange(gw, dtype=np.float32) + 0.5) / gw - 0.5
    v = (np.arange(gh, dtype=np.float32) + 0.5) / gh - 0.5
    uu, vv = u[None, :], v[:, None]
    gain = 1.0 + 2 * tray.gradient[0] * uu + 2 * tray.gradient[1] * vv
    gain = gain * (1.0 - 2 * tray.vignette * (uu * uu + vv * vv))
    hx, hy, hr, hg = tray.hotspot
    if hg:
        gain = gain + hg * np.exp(-((uu + 0.5 - hx) ** 2 + (vv + 0.5 - hy) ** 2) / (2 * hr * hr))
    gain = np.clip(gain * tray.exposure, 0.05, None).astype(np.float32)
    return bg.astype(np.float16), gain[..., None] * np.array(tray.white_balance, np.float32)


class Canvas:
    """The photo being drawn, in float BGR 0..1: the tray's cached half-float background,
    with a float32 tile wherever something was drawn. Indexing with two slices reads a
    float32 copy and assigns into the tiles, so ``canvas[rows, cols] *= shade`` works as on
    an array. Why: a whole float32 frame is 14 MB at 1280x960, a simulated tray draws one
    every few frames of a throw, and the dice and their shadows cover a tenth of it."""

    TILE = 64
    dtype = np.dtype(np.float32)
    ndim = 3

    def __init__(self, background: np.ndarray) -> None:
        self._base = background
        self._tiles: dict[tuple[int, int], np.ndarray] = {}
        self.shape = background.shape

    def _span(self, key: tuple[slice, slice]) -> tuple[int, int, int, int]:
        rows, cols = key
        y0, y1, _ = rows.indices(self.shape[0])
        x0, x1, _ = cols.indices(self.shape[1])
        return y0, max(y0, y1), x0, max(x0, x1)

    def _tiles_over(
        self, y0: int, y1: int, x0: int, x1: int
    ) -> Iterator[tuple[tuple[int, int], tuple[int, int, int, int]]]:
        """(tile key, the part of the span in frame coordinates) of each tile it touches."""
        t = self.TILE
        for ty in range(y0 // t, (y1 - 1) // t + 1):
            for tx in range(x0 // t, (x1 - 1) // t + 1):
                part = (max(y0, ty * t), min(y1, ty * t + t), max(x0, tx * t), min(x1, tx * t + t))
                yield (ty, tx), part

    def __getitem__(self, key: tuple[slice, slice]) -> np.ndarray:
        y0, y1, x0, x1 = self._span(key)
        out = self._base[y0:y1, x0:x1].astype(np.float32)
        if y1 > y0 and x1 > x0:
            for (ty, tx), (a, b, c, d) in self._tiles_over(y0, y1, x0, x1):
                tile = self._tiles.get((ty, tx))
                if tile is not None:
                    oy, ox = ty * self.TILE, tx * self.TILE
                    out[a - y0 : b - y0, c - x0 : d - x0] = tile[a - oy : b - oy, c - ox : d - ox]
        return out

    def __setitem__(self, key: tuple[slice, slice], value: np.ndarray) -> None:
        y0, y1, x0, x1 = self._span(key)
        if y1 <= y0 or x1 <= x0:
            return
        t = self.TILE
        for (ty, tx), (a, b, c, d) in self._tiles_over(y0, y1, x0, x1):
            tile = self._tiles.get((ty, tx))
            if tile is None:
                tile = self._base[ty * t : ty * t + t, tx * t : tx * t + t].astype(np.float32)
                self._tiles[ty, tx] = tile
            oy, ox = ty * t, tx * t
            tile[a - oy : b - oy, c - ox : d - ox] = value[a - y0 : b - y0, c - x0 : d - x0]

    def rows(self, start: int, stop: int) -> np.ndarray:
        """Rows ``start:stop`` as float32 (a fresh array)."""
        return self[start:stop, :]


def canvas(tray: Tray) -> Canvas:
    """A fresh canvas of the unlit background."""
    return Canvas(_static(tray)[0])


def _light_rows(small: np.ndarray, size: tuple[int, int]) -> Callable[[int, int], np.ndarray]:
    """The light, kept at an eighth of the size because it is smooth, spread out a band of
    rows at a time: widened once, then each band's rows blended between the two nearest of
    its rows, as a bilinear resize would."""
    w, h = size
    wide = cv2.resize(small, (w, small.shape[0]), interpolation=cv2.INTER_LINEAR)
    step = small.shape[0] / h

    def rows(start: int, stop: int) -> np.ndarray:
        y = np.clip((np.arange(start, stop, dtype=np.float32) + 0.5) * step - 0.5, 0, None)
        below = np.minimum(y.astype(np.int32), len(wide) - 1)
        above = np.minimum(below + 1, len(wide) - 1)
        t = (y - below)[:, None, None]
        return wide[below] * (1 - t) + wide[above] * t

    return rows


def finish(tray: Tray, img: Canvas, rng: np.random.Generator) -> np.ndarray:
    """Light, glare, blur, noise and JPEG: the drawn scene as the camera delivers it (uint8).

    A band of rows at a time, lit as it is read, so that no full-size float image is made
    (a simulated tray draws one every few frames of a throw, all evening)."""
    exposure = np.float32(255.0 * (1.0 + 0.02 * rng.standard_normal()))  # auto-exposure wobble
    light = _light_rows(_static(tray)[1], tray.size)
    veil = np.float32(tray.glare * 0.25)  # veiling glare: stray light lifts the blacks
    gain, lift = exposure * (1 - veil), veil * np.float32(230.0)

    def lit(start: int, stop: int) -> np.ndarray:
        part = img.rows(start, stop)
        part *= light(start, start + len(part))
        part *= gain
        part += lift
        return part

    height = img.shape[0]
    out = np.empty(img.shape, np.uint8)
    for rows in range(0, height, NOISE_ROWS):
        noise = normals(rng, (min(NOISE_ROWS, height - rows), *img.shape[1:]))
        for start in range(rows, rows + len(noise), WORK_ROWS):
            part = _blurred_rows(
                lit, height, start, min(start + WORK_ROWS, rows + len(noise)), tray.blur
            )
            sigma = part * np.float32(tray.shot)
            np.maximum(sigma, 0.0, out=sigma)
            sigma += np.float32(tray.noise**2)
            np.sqrt(sigma, out=sigma)
            sigma *= noise[start - rows : start - rows + len(part)]
            part += sigma
            np.clip(part, 0, 255, out=part)
            out[start : start + len(part)] = part
    if tray.jpeg:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(tray.jpeg)])
        if ok:
            del out  # not both the raw picture and the decoded one at once
            out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out


def _blurred_rows(
    lit: Callable[[int, int], np.ndarray], height: int, start: int, stop: int, blur: float
) -> np.ndarray:
    """Rows ``start:stop`` of the lit picture (``lit(a, b)`` gives rows a..b), lens-blurred:
    blurred with the rows around them that the kernel reaches, so the band is what a
    whole-image blur gives."""
    stop = min(stop, height)
    if blur <= 0.05:
        return lit(start, stop)
    reach = int(np.ceil(4 * blur)) + 1  # OpenCV's float kernel spans 4 sigma each side
    top, bottom = max(0, start - reach), min(height, stop + reach)
    band = cv2.GaussianBlur(lit(top, bottom), (0, 0), blur)
    return band[start - top : stop - top]


def empty_tray(tray: Tray, rng: np.random.Generator) -> np.ndarray:
    """The photo of the empty tray (as taken for calibration): same felt, fresh noise."""
    return finish(tray, canvas(tray), rng)
