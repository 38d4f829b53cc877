"""Train the dice detector (``models/detector/net.py``) on real photos + synthetic scenes.

    python -m models.detector.train --minutes 30          # train (resumes data/runs/detector)
    python -m models.detector.train --from-onnx models/dicefind.onnx --lr 1e-3   # fine-tune
    python -m models.detector.train --prepare-only        # only build the data caches

Data, cached letterboxed (``vision.detect.letterbox``, long side 256, padded to 256x256) in the
git-ignored ``data/detector/``:
- Rune55 v3 d6 photos (train split for training, valid for picking the epoch); their boxes hug
  the top face of each die;
- the colour photos of ``roboflow-dice-d6`` (train; valid for picking the epoch), a board
  game's dice among its pieces and tiles, ``COLOUR_SHARE`` of the photos drawn;
- synthetic trays from ``models.synth.random_scene`` (d6, d10 or both, 640x480), boxes of the
  whole visible die. Training scenes use seeds from ``SYNTH_TRAIN_SEED``, validation from
  ``SYNTH_VALID_SEED``; the evaluation (``models.detector.eval``) uses ``SYNTH_TEST_SEED``.

Each epoch is ``--steps`` batches, half photos and half synthetic (a quarter of the batch
from rendered scene folders when ``--scenes`` names some: Blender's photoreal dice; another
share with ``--scene-share``), augmented (90° turns, flips, scale and shift,
brightness/contrast/colour, hue, grey, blur, noise), and half of them given hard negatives:
game tokens, screws, specks, tiles, edges and dice's hard shadows (models/detector/distractors.py).
After each epoch the model is checked on the validation sets (F1 at IoU 0.5; the rendered
scenes' tenth too) and ``last.pt`` / ``best.pt`` are written to ``data/runs/detector/``
(``--out``); a new run resumes from ``last.pt``, or starts from another
run's weights with ``--weights``. On a GPU: ``--device cuda --workers N`` (N processes draw
the augmented batches) and ``--minutes M`` (the learning rate's cosine ends with the time);
``models/gpu/run.sh`` is how 1.3 and 1.4 were trained.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path

import cv2
import numpy as np
import torch

from models.common.norms import restore_norms
from models.common.photos import default_root, parse_labels, split_photos
from models.detector.net import (
    DiceNet,
    count_parameters,
    detector_loss,
    from_onnx,
    make_targets,
)
from models.dieface.train import cpu_weights
from vision.detect import INPUT_SIZE, PAD_VALUE, decode, letterbox, to_tensor

REPO = Path(__file__).resolve().parents[2]
CACHE = REPO / "data" / "detector"
RUN_DIR = REPO / "data" / "runs" / "detector"
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


# ------------------------------------------------------------------------------------ data


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


# ------------------------------------------------------------------------------ augmentation


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


# -------------------------------------------------------------------------------- metrics


def iou_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if len(a) == 0 or len(b) == 0:
        return np.zeros((len(a), len(b)), np.float32)
    x0 = np.maximum(a[:, None, 0], b[None, :, 0])
    y0 = np.maximum(a[:, None, 1], b[None, :, 1])
    x1 = np.minimum(a[:, None, 2], b[None, :, 2])
    y1 = np.minimum(a[:, None, 3], b[None, :, 3])
    inter = np.clip(x1 - x0, 0, None) * np.clip(y1 - y0, 0, None)
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    return inter / np.maximum(area_a[:, None] + area_b[None] - inter, 1e-9)


def match(pred: np.ndarray, truth: np.ndarray, iou: float = 0.5) -> int:
    """True positives: greedy one-to-one matching of predictions (best score first) to truth."""
    m = iou_matrix(pred, truth)
    used = np.zeros(len(truth), bool)
    tp = 0
    for i in range(len(pred)):
        if not len(truth):
            break
        row = np.where(used, -1.0, m[i])
        j = int(np.argmax(row))
        if row[j] >= iou:
            used[j] = True
            tp += 1
    return tp


def counts_to_scores(tp: int, n_pred: int, n_true: int) -> dict[str, float]:
    precision = tp / n_pred if n_pred else 1.0
    recall = tp / n_true if n_true else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": precision, "recall": recall, "f1": f1, "tp": tp, "pred": n_pred,
            "true": n_true}  # fmt: skip


@torch.no_grad()
def predict_set(model: DiceNet, data: Set, batch_size: int = 16) -> list[tuple]:
    """The raw maps of every cached image (heatmap, size, offset) as numpy."""
    model.eval()
    device = next(model.parameters()).device
    out = []
    for start in range(0, len(data), batch_size):
        x = np.concatenate([to_tensor(im) for im in data.images[start : start + batch_size]])
        heat, size, offset = (t.cpu() for t in model(torch.from_numpy(x).to(device)))
        for i in range(len(heat)):
            out.append((heat[i, 0].numpy(), size[i].numpy(), offset[i].numpy()))
    return out


def score_maps(maps: list[tuple], data: Set, threshold: float) -> dict[str, float]:
    tp = n_pred = n_true = 0
    for (heat, size, offset), truth in zip(maps, data.boxes, strict=True):
        found = decode(heat, size, offset, 1.0, threshold)
        pred = np.asarray([b for b, _ in found], np.float32).reshape(-1, 4)
        tp += match(pred, truth)
        n_pred += len(pred)
        n_true += len(truth)
    return counts_to_scores(tp, n_pred, n_true)


# ------------------------------------------------------------------------------- training


def train(args: argparse.Namespace) -> None:
    """Train the detector into ``out`` (resuming there); long: the training loop, its
    checkpoints and its validation in one piece."""
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    device = torch.device(args.device)
    photos = load_photos("train")
    colour = load_photos("train", roboflow_root(), name="roboflow")
    synth = load_synth("train", SYNTH_TRAIN_SEED, args.synth, args.workers)
    valid_photos = load_photos("valid", limit=args.valid_photos)
    valid_colour = load_photos("valid", roboflow_root(), name="roboflow")
    valid_synth = load_synth("valid", SYNTH_VALID_SEED, args.valid_synth, args.workers)
    roots = [Path(r) for r in args.scenes]
    scenes = load_scenes(roots, "train") if roots else None
    valid_scenes = load_scenes(roots, "valid") if roots else None
    print(f"train: {len(photos)} + {len(colour)} photos, {len(synth)} synthetic, "
          f"{len(scenes or ())} rendered; valid: {len(valid_photos)} + {len(valid_colour)} "
          f"photos, {len(valid_synth)} synthetic, {len(valid_scenes or ())} rendered")  # fmt: skip
    model = DiceNet()
    print(f"parameters: {count_parameters(model)}")
    run_dir = Path(args.out)
    run_dir.mkdir(parents=True, exist_ok=True)
    last = run_dir / "last.pt"
    epoch, best, history = 0, -1.0, []
    optimiser_state = None
    if last.exists() and not args.fresh:
        state = torch.load(last, map_location="cpu", weights_only=False)
        model.load_state_dict(state["model"])
        optimiser_state = state["optimiser"]
        epoch, best, history = state["epoch"], state["best"], state["history"]
        print(f"resumed after epoch {epoch} (best F1 {best:.4f})")
    elif args.weights:
        model.load_state_dict(
            torch.load(args.weights, map_location="cpu", weights_only=False)["model"]
        )
        print(f"starting from the weights of {args.weights}")
    elif args.from_onnx:
        model = from_onnx(Path(args.from_onnx))
        rng = np.random.default_rng(999)
        samples = [draw_batch(photos, synth, args.batch, args.crop, rng, scenes, args.scene_share,
                              colour)[0] for _ in range(8)]  # fmt: skip
        restore_norms(model, samples)
        print(f"starting from the exported model {args.from_onnx}")
    model.to(device)
    optimiser = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    if optimiser_state is not None:
        optimiser.load_state_dict(optimiser_state)
    total_steps = args.epochs * args.steps
    started = time.monotonic()

    def progress(done: int) -> float:
        """How far through the run: its steps or, with --minutes, its time (the further)."""
        spent = (time.monotonic() - started) / (args.minutes * 60) if args.minutes else 0.0
        return min(1.0, max(done / total_steps, spent))

    stream = Batches(
        photos, synth, args.batch, args.crop, seed=1000 + epoch, scenes=scenes,
        scene_share=args.scene_share, colour=colour,
    )  # fmt: skip
    batches = iter(
        torch.utils.data.DataLoader(
            stream, batch_size=None, num_workers=args.workers, pin_memory=device.type == "cuda",
            persistent_workers=args.workers > 0,
        )
    )  # fmt: skip
    from tqdm import tqdm

    while epoch < args.epochs:
        if args.minutes and time.monotonic() - started > args.minutes * 60:
            print("time budget spent")
            break
        model.train()
        losses = []
        bar = tqdm(range(args.steps), desc=f"epoch {epoch + 1}", leave=False)
        for step in bar:
            done = epoch * args.steps + step
            warm = min(1.0, (done + 1) / 50)
            lr = args.lr * warm * 0.5 * (1 + math.cos(math.pi * progress(done)))
            for group in optimiser.param_groups:
                group["lr"] = lr
            x, targets = next(batches)
            x = x.to(device, non_blocking=True)
            targets = {k: v.to(device, non_blocking=True) for k, v in targets.items()}
            loss, parts = detector_loss(model(x), targets)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            losses.append(float(loss.detach()))
            bar.set_postfix(
                loss=f"{np.mean(losses[-20:]):.3f}", **{k: f"{v:.3f}" for k, v in parts.items()}
            )
            if progress(done + 1) >= 1.0:
                break  # the time is up: check and save what was learned
        epoch += 1
        checks = {"photos": valid_photos, "colour": valid_colour, "synth": valid_synth}
        if valid_scenes is not None and len(valid_scenes):
            checks["rendered"] = valid_scenes
        maps = {name: predict_set(model, data) for name, data in checks.items()}
        scores = {
            t: {name: score_maps(maps[name], data, t) for name, data in checks.items()}
            for t in (0.2, 0.3, 0.4, 0.5)
        }
        t_best = max(scores, key=lambda t: sum(s["f1"] for s in scores[t].values()))
        f1 = float(np.mean([s["f1"] for s in scores[t_best].values()]))
        record = {
            "epoch": epoch, "loss": float(np.mean(losses)), "threshold": t_best,
            **scores[t_best], "f1": f1, "minutes": (time.monotonic() - started) / 60,
        }  # fmt: skip
        history.append(record)
        shown = "  ".join(
            f"{name} P {s['precision']:.3f} R {s['recall']:.3f}"
            for name, s in scores[t_best].items()
        )
        print(f"epoch {epoch}: loss {record['loss']:.3f}  t={t_best}  {shown}", flush=True)
        state = {"model": cpu_weights(model), "optimiser": optimiser.state_dict(), "epoch": epoch,
                 "best": max(best, f1), "history": history, "threshold": t_best}  # fmt: skip
        if f1 > best:
            best = f1
            torch.save(state, run_dir / "best.pt")
        torch.save(state, last)
        (run_dir / "history.json").write_text(json.dumps(history, indent=1), encoding="utf-8")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--epochs", type=int, default=15, help="planned epochs (LR schedule)")
    parser.add_argument("--steps", type=int, default=100, help="batches per epoch")
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--crop", type=int, default=192, help="training window (multiple of 32)")
    parser.add_argument("--synth", type=int, default=600, help="synthetic training scenes")
    parser.add_argument("--valid-photos", type=int, default=300)
    parser.add_argument("--valid-synth", type=int, default=100)
    parser.add_argument("--minutes", type=float, default=0, help="stop after this (0: no limit)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--device", default="cpu", help="torch device: cpu, or cuda on a GPU")
    parser.add_argument(
        "--workers",
        type=int,
        default=0,
        help="processes drawing batches and synthetic scenes (0: inline)",
    )
    parser.add_argument(
        "--scenes",
        action="append",
        default=[],
        metavar="DIR",
        help="a folder of rendered scenes (yamscope render --engine blender): a quarter of "
        "each batch, its held-out tenth checked each epoch; repeat for more folders",
    )
    parser.add_argument(
        "--scene-share",
        type=float,
        default=SCENE_SHARE,
        help="share of the synthetic half of each batch drawn from --scenes (default "
        f"{SCENE_SHARE}: a quarter of the batch; 0.25 kept a real tray's corner from being "
        "taken for a die, docs/photoreal.md)",
    )
    parser.add_argument("--out", default=str(RUN_DIR), help="run folder (last.pt, best.pt)")
    parser.add_argument("--weights", help="start from this checkpoint's weights (new schedule)")
    parser.add_argument(
        "--from-onnx", metavar="ONNX", help="start from an exported detector (its checkpoint gone)"
    )
    parser.add_argument("--fresh", action="store_true", help="ignore last.pt")
    parser.add_argument("--prepare-only", action="store_true")
    args = parser.parse_args(argv)
    if args.prepare_only:
        load_photos("train")
        load_photos("valid")
        load_photos("test")
        load_photos("train", roboflow_root(), name="roboflow")
        load_photos("valid", roboflow_root(), name="roboflow")
        load_synth("train", SYNTH_TRAIN_SEED, args.synth, args.workers)
        load_synth("valid", SYNTH_VALID_SEED, args.valid_synth, args.workers)
        return
    train(args)


if __name__ == "__main__":
    main()
