"""The detector's data: Rune55's and roboflow-dice-d6's photos, synthetic trays and rendered
scenes, letterboxed and cached in ``data/detector/``, and the augmented batches drawn from
them (models/detector/train.py says what each holds)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import torch

from models.common.photos import default_root, parse_labels, split_photos
from models.detector.net import (
    make_targets,
)
from vision.detect import INPUT_SIZE, PAD_VALUE, letterbox, to_tensor

REPO = Path(__file__).resolve().parents[2]


CACHE = REPO / "data" / "detector"


SYNTH_TRAIN_SEED = 7_100_000


SYNTH_VALID_SEED = 7_200_000


SYNTH_TEST_SEED = 7_300_000


KINDS = (("d6",), ("d10",), ("d6", "d10"))


# zoom ranges of the augmentation: the photos' dice are large, the synthetic trays' small
# (10-15 input pixels), and shrinking those further leaves a die two output cells wide
PHOTO_SCALES = (0.5, 1.5)


SYNTH_SCALES = (0.8, 2.0)


SCENE_SCALES = (0.7, 1.5)  # rendered 640x480 scenes: dice ~21 input pixels, 15-31 zoomed


SCENE_SHARE = 0.5  # of the synthetic half of a batch, when rendered scenes are given


COLOUR_SHARE = 0.35  # of the photo half of a batch: the colour photos (roboflow-dice-d6)


DISTRACTED = 0.35  # share of samples given things that are not dice (distractors.py)


def square(image: np.ndarray, size: int = INPUT_SIZE) -> np.ndarray:
    """Pad a letterboxed image right/bottom with grey to ``size`` x ``size``."""
    h, w = image.shape[:2]
    return cv2.copyMakeBorder(
        image, 0, size - h, 0, size - w, cv2.BORDER_CONSTANT, value=(PAD_VALUE,) * 3
    )


def photo_sample(image_path: Path, label_path: Path) -> tuple[np.ndarray, np.ndarray]:
    """One Rune55 photo letterboxed to the input square and its boxes in input pixels."""
    frame = cv2.imread(str(image_path), cv2.IMREAD_COLOR)
    if frame is None:
        raise OSError(f"cannot read {image_path}")
    height, width = frame.shape[:2]
    image, scale = letterbox(frame)
    boxes = [
        ((b.cx - b.w / 2) * width, (b.cy - b.h / 2) * height, (b.cx + b.w / 2) * width,
         (b.cy + b.h / 2) * height)
        for b in parse_labels(label_path.read_text(encoding="utf-8"))
    ]  # fmt: skip
    return square(image), np.asarray(boxes, np.float32).reshape(-1, 4) * scale


def synth_frame(seed: int, size: tuple[int, int] = (640, 480)):
    """The synthetic scene of one seed (kinds and layout drawn from the seed)."""
    from models.synth import random_scene

    rng = np.random.default_rng(seed)
    kinds = KINDS[int(rng.integers(len(KINDS)))]
    impossible = "d10" in kinds and len(kinds) == 1 and rng.random() < 0.3
    if impossible:
        return random_scene(rng, size=size, n=10, kinds=kinds, impossible=True)
    return random_scene(rng, size=size, kinds=kinds)


def scene_boxes(scene) -> np.ndarray:
    boxes = [d.box for d in scene.dice if d.box[2] > d.box[0] and d.box[3] > d.box[1]]
    return np.asarray(boxes, np.float32).reshape(-1, 4)


def synth_sample(seed: int) -> tuple[np.ndarray, np.ndarray]:
    scene = synth_frame(seed)
    image, scale = letterbox(scene.image)
    return square(image), scene_boxes(scene) * scale


def _pack(images, boxes, names) -> dict[str, np.ndarray]:
    counts = np.asarray([len(b) for b in boxes], np.int64)
    flat = np.concatenate(boxes) if boxes else np.zeros((0, 4), np.float32)
    return {
        "images": np.asarray(images, np.uint8),
        "boxes": flat.astype(np.float32),
        "counts": counts,
        "names": np.asarray(names, dtype=str),
    }


class Set:
    """Cached samples: images (N, S, S, 3) uint8 and per-image boxes in input pixels."""

    def __init__(self, stored: dict[str, np.ndarray]) -> None:
        self.images = stored["images"]
        self.names = stored["names"]
        ends = np.cumsum(stored["counts"])
        starts = ends - stored["counts"]
        self.boxes = [stored["boxes"][a:b] for a, b in zip(starts, ends, strict=True)]

    def __len__(self) -> int:
        return len(self.images)


def roboflow_root() -> Path:
    """The colour d6 photos beside the repository: ``../shared/data/roboflow-dice-d6``."""
    return default_root().parent / "roboflow-dice-d6"


def load_photos(
    split: str, root: Path | None = None, limit: int | None = None, name: str = "rune55"
) -> Set:
    """A split of a YOLO photo set (default Rune55) letterboxed, cached by ``name``."""
    root = Path(root) if root is not None else default_root()
    path = CACHE / f"{name}-{split}-{INPUT_SIZE}.npz"
    if not path.exists():
        from tqdm import tqdm

        pairs = split_photos(root, split)
        images, boxes, names = [], [], []
        for image_path, label_path in tqdm(pairs, desc=f"{name} {split}"):
            image, b = photo_sample(image_path, label_path)
            images.append(image)
            boxes.append(b)
            names.append(image_path.name)
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez(path, **_pack(images, boxes, names))
    with np.load(path) as stored:
        data = {k: stored[k] for k in stored.files}
    stored = Set(data)
    if limit is not None and limit < len(stored):
        # spread over the split: its photos come in series by name (one set of large dice
        # first), and the first ones alone said little of the small dice
        chosen = np.linspace(0, len(stored) - 1, limit).round().astype(int)
        stored.images, stored.names = stored.images[chosen], stored.names[chosen]
        stored.boxes = [stored.boxes[i] for i in chosen]
    return stored


def load_scenes(roots: list[Path], part: str) -> Set:
    """The photos of rendered scene folders (``yamscope render``, Blender's) letterboxed as
    the synthetic trays are, with their dice's boxes; ``part`` "valid" is the tenth that
    ``models.dieface.scene_crops`` keeps apart, "train" the rest (not cached: a few hundred
    files)."""
    from models.common.datasets import open_dataset
    from models.dieface.scene_crops import VALID_EVERY

    images, boxes, names = [], [], []
    for root in roots:
        dataset = open_dataset(root)
        for index in range(len(dataset)):
            if (index % VALID_EVERY == VALID_EVERY - 1) != (part == "valid"):
                continue
            photo = dataset.load(index)
            image, scale = letterbox(photo.image)
            images.append(square(image))
            boxes.append(np.asarray([d.box for d in photo.dice], np.float32).reshape(-1, 4) * scale)
            names.append(f"{root.name}/{photo.path.name}")
    return Set(_pack(images, boxes, names))


def load_synth(name: str, seed: int, count: int, workers: int = 1) -> Set:
    path = CACHE / f"synth-{name}-{seed}-{count}-{INPUT_SIZE}.npz"
    if not path.exists():
        from concurrent.futures import ProcessPoolExecutor

        from tqdm import tqdm

        seeds = range(seed, seed + count)
        with ProcessPoolExecutor(max(1, workers)) as pool:
            made = list(tqdm(pool.map(synth_sample, seeds, chunksize=16), total=count,
                             desc=f"synth {name}"))  # fmt: skip
        images = [image for image, _ in made]
        boxes = [b for _, b in made]
        names = [str(s) for s in seeds]
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez(path, **_pack(images, boxes, names))
    with np.load(path) as stored:
        return Set({k: stored[k] for k in stored.files})


def augment(
    image: np.ndarray,
    boxes: np.ndarray,
    rng: np.random.Generator,
    scales: tuple[float, float] = (0.55, 1.6),
) -> tuple[np.ndarray, np.ndarray]:
    """A random variation of one input square and its boxes (same size out); the zoom is
    drawn log-uniformly from ``scales``."""
    size = image.shape[0]
    boxes = boxes.copy()
    # 90° turns and a mirror
    k = int(rng.integers(4))
    for _ in range(k):  # counter-clockwise: (x, y) -> (y, size - x)
        image = np.rot90(image)
        x0, y0, x1, y1 = boxes.T.copy()
        boxes = np.stack([y0, size - x1, y1, size - x0], axis=1)
    if rng.random() < 0.5:
        image = image[:, ::-1]
        boxes = np.stack([size - boxes[:, 2], boxes[:, 1], size - boxes[:, 0], boxes[:, 3]], 1)
    # scale and shift
    s = float(np.exp(rng.uniform(np.log(scales[0]), np.log(scales[1]))))
    span = size - size * s
    tx = float(rng.uniform(min(0.0, span), max(0.0, span)))
    ty = float(rng.uniform(min(0.0, span), max(0.0, span)))
    matrix = np.float32([[s, 0, tx], [0, s, ty]])
    interpolation = cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR
    image = cv2.warpAffine(
        np.ascontiguousarray(image), matrix, (size, size), flags=interpolation,
        borderMode=cv2.BORDER_CONSTANT, borderValue=(PAD_VALUE,) * 3,
    )  # fmt: skip
    boxes = boxes * s + np.float32([tx, ty, tx, ty])
    if len(boxes):
        area = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
        clipped = np.clip(boxes, 0, size)
        inside = (clipped[:, 2] - clipped[:, 0]) * (clipped[:, 3] - clipped[:, 1])
        boxes = clipped[inside >= 0.5 * np.maximum(area, 1e-6)]
    # colour
    img = image.astype(np.float32)
    if rng.random() < 0.8:
        img = img * rng.uniform(0.6, 1.4) + rng.uniform(-40, 40)
        img = img * rng.uniform(0.85, 1.15, size=3).astype(np.float32)
    if rng.random() < 0.3:  # other dice and tables: turn every hue
        hsv = cv2.cvtColor(np.clip(img, 0, 255).astype(np.uint8), cv2.COLOR_BGR2HSV)
        hsv[..., 0] = ((hsv[..., 0].astype(np.int16) + int(rng.integers(180))) % 180).astype(
            np.uint8
        )
        img = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR).astype(np.float32)
    if rng.random() < 0.2:
        grey = img @ np.float32([0.114, 0.587, 0.299])
        img = np.repeat(grey[..., None], 3, axis=2)
    if rng.random() < 0.2:
        sigma = float(rng.uniform(0.5, 1.5))
        img = cv2.GaussianBlur(img, (0, 0), sigma)
    if rng.random() < 0.3:
        img = img + rng.normal(0, rng.uniform(2, 10), img.shape).astype(np.float32)
    return np.clip(img, 0, 255).astype(np.uint8), boxes.astype(np.float32)


def crop(
    image: np.ndarray, boxes: np.ndarray, size: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """A random ``size`` x ``size`` window (training is cheaper on smaller windows; the net is
    fully convolutional); boxes cut to less than half their area are dropped."""
    full = image.shape[0]
    if size >= full:
        return image, boxes
    x, y = (int(v) for v in rng.integers(0, full - size + 1, size=2))
    out = image[y : y + size, x : x + size]
    if not len(boxes):
        return out, boxes
    moved = boxes - np.float32([x, y, x, y])
    area = (moved[:, 2] - moved[:, 0]) * (moved[:, 3] - moved[:, 1])
    clipped = np.clip(moved, 0, size)
    inside = (clipped[:, 2] - clipped[:, 0]) * (clipped[:, 3] - clipped[:, 1])
    return out, clipped[inside >= 0.5 * np.maximum(area, 1e-6)]


def batch(
    samples: list[tuple[np.ndarray, np.ndarray]],
) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    images = np.concatenate([to_tensor(im) for im, _ in samples])
    size = samples[0][0].shape[0]
    targets = [make_targets(b, size, size) for _, b in samples]
    stacked = {k: torch.from_numpy(np.stack([t[k] for t in targets])) for k in targets[0]}
    return torch.from_numpy(images), stacked


def draw_batch(
    photos: Set,
    synth: Set,
    size: int,
    crop_size: int,
    rng: np.random.Generator,
    scenes: Set | None = None,
    scene_share: float = SCENE_SHARE,
    colour: Set | None = None,
) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """One augmented training batch, half photos (``COLOUR_SHARE`` of them the colour
    photos, when given) and half synthetic trays (``scene_share`` of them rendered scenes,
    when given); ``DISTRACTED`` of the samples get things that are not dice drawn in."""
    from models.detector.distractors import add_distractors

    samples = []
    for i in range(size):
        data, scales = (photos, PHOTO_SCALES) if i % 2 == 0 else (synth, SYNTH_SCALES)
        if i % 2 == 0 and colour is not None and len(colour) and rng.random() < COLOUR_SHARE:
            data = colour
        if i % 2 and scenes is not None and len(scenes) and rng.random() < scene_share:
            data, scales = scenes, SCENE_SCALES
        j = int(rng.integers(len(data)))
        image, boxes = data.images[j], data.boxes[j]
        if rng.random() < DISTRACTED:
            image = add_distractors(image.copy(), boxes, rng, int(rng.integers(1, 7)))
        sample = augment(image, boxes, rng, scales)
        samples.append(crop(*sample, crop_size, rng))
    return batch(samples)


class Batches(torch.utils.data.IterableDataset):
    """Endless augmented batches for a DataLoader: each worker process draws its own, from a
    seed of its own, so a GPU is fed by several CPU cores."""

    def __init__(
        self,
        photos: Set,
        synth: Set,
        size: int,
        crop_size: int,
        seed: int,
        scenes: Set | None,
        scene_share: float = SCENE_SHARE,
        colour: Set | None = None,
    ) -> None:
        self.photos, self.synth, self.scenes = photos, synth, scenes
        self.size, self.crop_size, self.seed = size, crop_size, seed
        self.scene_share, self.colour = scene_share, colour

    def __iter__(self):
        info = torch.utils.data.get_worker_info()
        rng = np.random.default_rng([self.seed, info.id if info else 0])
        while True:
            yield draw_batch(
                self.photos, self.synth, self.size, self.crop_size, rng, self.scenes,
                self.scene_share, self.colour,
            )  # fmt: skip
