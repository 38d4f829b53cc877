"""Score the shipped ONNX die-face model on Rune55 crops, through onnxruntime as the Pi runs it.

Besides accuracy on the whole split it reports accuracy on the crops whose source photo never
appears in train: Rune55 repeats augmented copies of a photo across its splits, and only this
subset says how the model does on photos it has not seen. No torch here: this runs where the
appliance runs.
"""

from __future__ import annotations

import json
import statistics
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import onnxruntime as ort

from models import photos, spec

MODEL_PATH = Path(__file__).resolve().parent / "dieface.onnx"


def session(path: Path = MODEL_PATH, threads: int = 1) -> ort.InferenceSession:
    """An onnxruntime CPU session with ``threads`` threads (1: as one core of the Pi would)."""
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def to_input(images: np.ndarray) -> np.ndarray:
    """uint8 crops (N, S, S) → the float32 (N, 1, S, S) tensor the card describes."""
    x = images.astype(np.float32)[:, None] / 255.0
    return (x - spec.MEAN) / spec.STD


def logits(sess: ort.InferenceSession, images: np.ndarray, batch: int = 256) -> np.ndarray:
    """Logits (N, 6) for uint8 crops, in batches to bound memory."""
    parts = [
        sess.run(None, {spec.INPUT_NAME: to_input(images[i : i + batch])})[0]
        for i in range(0, len(images), batch)
    ]
    return np.concatenate(parts) if parts else np.zeros((0, len(spec.CLASSES)), np.float32)


def confusion(truth: np.ndarray, predicted: np.ndarray, n: int = 6) -> np.ndarray:
    """Counts, rows = true class, columns = predicted class."""
    matrix = np.zeros((n, n), dtype=np.int64)
    np.add.at(matrix, (truth, predicted), 1)
    return matrix


def format_confusion(matrix: np.ndarray, names: tuple[Any, ...] = spec.CLASSES) -> str:
    """A text table: one row per true face, one column per predicted face."""
    width = max(5, len(str(matrix.max())) + 1)
    lines = ["true\\pred" + "".join(f"{n:>{width}}" for n in names)]
    for name, row in zip(names, matrix, strict=True):
        lines.append(f"{name!s:>9}" + "".join(f"{v:>{width}}" for v in row))
    return "\n".join(lines)


def draw_confusion(matrix: np.ndarray, path: Path, title: str) -> None:
    """The confusion matrix as a PNG (row-normalised shading, counts written in each cell)."""
    n, cell, top, left = len(matrix), 60, 50, 50
    image = np.full((top + n * cell + 10, left + n * cell + 10, 3), 255, np.uint8)
    rows = matrix / np.maximum(matrix.sum(1, keepdims=True), 1)
    font = cv2.FONT_HERSHEY_SIMPLEX
    cv2.putText(image, title, (5, 20), font, 0.5, (0, 0, 0), 1, cv2.LINE_AA)
    for i in range(n):
        y = top + i * cell
        cv2.putText(image, str(spec.CLASSES[i]), (20, y + 35), font, 0.6, (0, 0, 0), 1)
        x = left + i * cell
        cv2.putText(image, str(spec.CLASSES[i]), (x + 25, top - 8), font, 0.6, (0, 0, 0), 1)
        for j in range(n):
            x = left + j * cell
            shade = int(255 - 200 * rows[i, j])
            cv2.rectangle(image, (x, y), (x + cell, y + cell), (255, shade, shade), -1)
            cv2.rectangle(image, (x, y), (x + cell, y + cell), (180, 180, 180), 1)
            colour = (255, 255, 255) if rows[i, j] > 0.6 else (0, 0, 0)
            text = str(int(matrix[i, j]))
            cv2.putText(image, text, (x + 8, y + 36), font, 0.5, colour, 1, cv2.LINE_AA)
    path.parent.mkdir(parents=True, exist_ok=True)
    if not cv2.imwrite(str(path), image):
        raise OSError(f"cannot write {path}")


def latency_ms(sess: ort.InferenceSession, images: np.ndarray, repeats: int = 50) -> dict:
    """Median milliseconds to classify ``images`` (e.g. 10 crops): in one batch, and one by one
    (how the runtime would call it if it did not batch)."""
    x = to_input(images)
    sess.run(None, {spec.INPUT_NAME: x})  # warm-up
    batch, single = [], []
    for _ in range(repeats):
        began = time.perf_counter()
        sess.run(None, {spec.INPUT_NAME: x})
        batch.append((time.perf_counter() - began) * 1000)
        began = time.perf_counter()
        for one in x:
            sess.run(None, {spec.INPUT_NAME: one[None]})
        single.append((time.perf_counter() - began) * 1000)
    return {
        "crops": len(images),
        "batched_ms": round(statistics.median(batch), 3),
        "one_by_one_ms": round(statistics.median(single), 3),
    }


def split_metrics(model: Path, crops: photos.Crops, train: photos.Crops) -> dict[str, Any]:
    """Accuracy on a split and on its crops whose source is not in train, with the counts."""
    predicted = logits(session(model), crops.images).argmax(1)
    right = predicted == crops.labels
    unseen = photos.unseen_mask(crops, train)
    return {
        "crops": len(crops),
        "accuracy": round(float(right.mean()), 4),
        "unseen_sources_crops": int(unseen.sum()),
        "unseen_sources_photos": len(set(crops.sources[unseen].tolist())),
        "unseen_sources_accuracy": round(float(right[unseen].mean()), 4) if unseen.any() else None,
        "confusion": confusion(crops.labels, predicted).tolist(),
    }


def evaluate_crops(
    split: str = "test",
    model: Path | None = None,
    data: Path | None = None,
    png: Path | None = None,
    as_json: bool = False,
) -> int:
    """Print accuracy (all, and unseen sources), the confusion matrix and 10-crop latency."""
    model = model or MODEL_PATH
    splits = photos.load_splits(data)
    crops = splits[split]
    result = split_metrics(model, crops, splits["train"])
    result["latency_one_thread"] = latency_ms(session(model, threads=1), crops.images[:10])
    result |= {"split": split, "model": str(model)}
    matrix = np.asarray(result["confusion"])
    if png is not None:
        title = f"rune55 {split}: accuracy {result['accuracy']:.4f} ({len(crops)} crops)"
        draw_confusion(matrix, png, title)
    if as_json:
        print(json.dumps(result))
        return 0
    unseen = result["unseen_sources_accuracy"]
    print(f"rune55 {split}: {len(crops)} crops, accuracy {result['accuracy']:.4f}")
    print(
        f"  on photos whose source is not in train: {result['unseen_sources_crops']} crops "
        f"from {result['unseen_sources_photos']} sources, accuracy "
        + (f"{unseen:.4f}" if unseen is not None else "n/a")
    )
    print(format_confusion(matrix))
    lat = result["latency_one_thread"]
    print(
        f"latency, {lat['crops']} crops, one thread: {lat['batched_ms']:.2f} ms in one batch, "
        f"{lat['one_by_one_ms']:.2f} ms one by one (pin a core with taskset -c 0)"
    )
    if png is not None:
        print(f"confusion matrix drawn in {png}")
    return 0
