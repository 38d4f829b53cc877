"""Score the shipped ONNX die-face model through onnxruntime, as the Pi runs it: on Rune55 crops
(the value head on real d6) and on held-out synthetic crops (every head).

Rune55 accuracy is reported on the whole split and on the crops whose source photo never
appears in train: Rune55 repeats augmented copies of a photo across its splits, and only this
subset says how the model does on photos it has not seen. Synthetic crops come from scenes of
a seed training never uses. The value is read as the runtime reads it: the best value within
the range of the kind the model sees (1..6 for a d6). No torch here: this runs where the
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

from models.common import photos
from models.common.mistakes import montage
from models.dieface import spec, synth_crops
from models.dieface.synth_crops import CropSet
from vision.model import open_session

MODEL_PATH = Path(__file__).resolve().parents[1] / "dieface.onnx"
SYNTHETIC_SCENES = 600  # held-out scenes scored by default (about 4,000 crops)


def session(path: Path = MODEL_PATH, threads: int = 1) -> ort.InferenceSession:
    """The die-face model's onnxruntime session, opened as the appliance opens it (1 thread:
    one core of the Pi)."""
    return open_session(path, threads)


def input_side(path: Path) -> int:
    """The side of the square crops an exported die-face model reads (its input's last axis)."""
    return int(session(path).get_inputs()[0].shape[-1])


def to_input(images: np.ndarray) -> np.ndarray:
    """uint8 crops (N, S, S) grey or (N, S, S, 3) BGR → the float32 (N, 3, S, S) tensor the
    card describes; grey is repeated into the three channels (COLOR_GRAY2BGR)."""
    x = images.astype(np.float32) / 255.0
    x = np.repeat(x[:, None], 3, axis=1) if x.ndim == 3 else x.transpose(0, 3, 1, 2)
    return np.ascontiguousarray((x - spec.MEAN) / spec.STD)


def outputs(sess: ort.InferenceSession, images: np.ndarray, batch: int = 256) -> dict:
    """Each head's logits (N, classes) for uint8 crops, in batches to bound memory."""
    parts: dict[str, list[np.ndarray]] = {name: [] for name in spec.HEADS}
    for i in range(0, len(images), batch):
        got = sess.run(list(spec.HEADS), {spec.INPUT_NAME: to_input(images[i : i + batch])})
        for name, logits in zip(spec.HEADS, got, strict=True):
            parts[name].append(logits)
    return {
        name: np.concatenate(p) if p else np.zeros((0, len(spec.HEADS[name])), np.float32)
        for name, p in parts.items()
    }


def predictions(logits: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Each head's class index; the value only among the faces of the predicted kind."""
    result = {name: z.argmax(1) for name, z in logits.items()}
    faces = np.where(result["kind"] == spec.KINDS.index("d6"), 6, 10)
    allowed = np.arange(len(spec.VALUES))[None, :] < faces[:, None]
    result["value"] = np.where(allowed, logits["value"], -np.inf).argmax(1)
    return result


def confusion(truth: np.ndarray, predicted: np.ndarray, n: int) -> np.ndarray:
    """Counts, rows = true class, columns = predicted class."""
    matrix = np.zeros((n, n), dtype=np.int64)
    np.add.at(matrix, (truth, predicted), 1)
    return matrix


def format_confusion(matrix: np.ndarray, names: tuple[Any, ...]) -> str:
    """A text table: one row per true class, one column per predicted class (``names`` names
    the columns; rows take the first names, as a d6 split's six rows of ten values do)."""
    width = max(6, len(str(matrix.max())) + 1, *(len(str(n)) + 1 for n in names))
    first = max(9, *(len(str(n)) for n in names))
    corner = "true\\pred"
    lines = [f"{corner:<{first}}" + "".join(f"{n!s:>{width}}" for n in names)]
    for name, row in zip(names, matrix, strict=False):
        lines.append(f"{name!s:>{first}}" + "".join(f"{v:>{width}}" for v in row))
    return "\n".join(lines)


def draw_confusion(matrix: np.ndarray, path: Path, title: str, names: tuple[Any, ...]) -> None:
    """The confusion matrix as a PNG (row-normalised shading, counts written in each cell)."""
    n, cell, top, left = len(matrix), 60, 50, 90
    image = np.full((top + n * cell + 10, max(left + n * cell + 10, 420), 3), 255, np.uint8)
    rows = matrix / np.maximum(matrix.sum(1, keepdims=True), 1)
    font = cv2.FONT_HERSHEY_SIMPLEX
    cv2.putText(image, title, (5, 20), font, 0.5, (0, 0, 0), 1, cv2.LINE_AA)
    for i in range(n):
        y = top + i * cell
        cv2.putText(image, str(names[i])[:8], (5, y + 35), font, 0.5, (0, 0, 0), 1)
        x = left + i * cell
        cv2.putText(image, str(names[i])[:5], (x + 5, top - 8), font, 0.45, (0, 0, 0), 1)
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


def draw_mistakes(
    images: np.ndarray,
    truth: np.ndarray,
    read: np.ndarray,
    path: Path,
    names: np.ndarray | None = None,
    tile: int = 128,
    columns: int = 10,
) -> int:
    """A contact sheet of the crops whose value was misread, each with "label>read" (values,
    not indices) and, when given, its photo's name: for a person to tell the model's mistakes
    from the labels' (Rune55 has dice labelled with a face they do not show). Returns how
    many it drew; an empty sheet says so in its one tile."""
    wrong = np.flatnonzero(truth != read)
    tiles = []
    font = cv2.FONT_HERSHEY_SIMPLEX
    for i in wrong:
        image = images[i] if images.ndim == 4 else cv2.cvtColor(images[i], cv2.COLOR_GRAY2BGR)
        t = cv2.resize(image, (tile, tile), interpolation=cv2.INTER_CUBIC)
        cv2.rectangle(t, (0, 0), (tile - 1, 14), (0, 0, 0), -1)
        text = f"{spec.VALUES[truth[i]]}>{spec.VALUES[read[i]]}"
        cv2.putText(t, text, (2, 11), font, 0.4, (255, 255, 255), 1, cv2.LINE_AA)
        if names is not None:
            cv2.rectangle(t, (0, tile - 14), (tile - 1, tile - 1), (0, 0, 0), -1)
            label = str(names[i])[: tile // 7]
            cv2.putText(t, label, (2, tile - 3), font, 0.3, (255, 255, 255), 1, cv2.LINE_AA)
        tiles.append(t)
    if not tiles:
        blank = np.full((tile, tile, 3), 255, np.uint8)
        cv2.putText(blank, "none wrong", (5, tile // 2), font, 0.45, (0, 0, 0), 1)
        tiles.append(blank)
    path.parent.mkdir(parents=True, exist_ok=True)
    if not cv2.imwrite(str(path), montage(tiles, min(columns, len(tiles)))):
        raise OSError(f"cannot write {path}")
    return len(wrong)


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
    """Value accuracy on a Rune55 split and on its crops whose source is not in train, the
    share read as a d6, and the value confusion (rows: faces 1..6)."""
    predicted = predictions(outputs(session(model), crops.images))
    right = predicted["value"] == crops.labels
    unseen = photos.unseen_mask(crops, train)
    n = max(6, int(predicted["value"].max(initial=0)) + 1)
    return {
        "crops": len(crops),
        "accuracy": round(float(right.mean()), 4),
        "kind_d6": round(float((predicted["kind"] == 0).mean()), 4),
        "unseen_sources_crops": int(unseen.sum()),
        "unseen_sources_photos": len(set(crops.sources[unseen].tolist())),
        "unseen_sources_accuracy": round(float(right[unseen].mean()), 4) if unseen.any() else None,
        "confusion": confusion(crops.labels, predicted["value"], n)[:6].tolist(),
    }


def synthetic_metrics(model: Path, crops: CropSet) -> dict[str, Any]:
    """Accuracy and confusion of every head on synthetic crops, and the value accuracy of d6
    and d10 apart, and of the flat dice alone.

    Why flat dice apart: a cocked die has no top face (the player throws it again, or the
    appliance flags it), so its value label is only the face nearest the top. The pipeline's
    evaluation (models/common/evaluate_scenes.py) scores values on flat dice only; ``accuracy_flat``
    is the same measure on crops, beside the plain accuracy over every die."""
    predicted = predictions(outputs(session(model), crops.images))
    result: dict[str, Any] = {"crops": len(crops)}
    for name, classes in spec.HEADS.items():
        truth = crops.labels[name]
        result[name] = {
            "accuracy": round(float((predicted[name] == truth).mean()), 4),
            "confusion": confusion(truth, predicted[name], len(classes)).tolist(),
        }
    for index, kind in enumerate(spec.KINDS):
        mine = crops.labels["kind"] == index
        hits = predicted["value"][mine] == crops.labels["value"][mine]
        result["value"][f"accuracy_{kind}"] = round(float(hits.mean()), 4) if mine.any() else None
    flat = crops.labels["cocked"] == 0
    hits = predicted["value"][flat] == crops.labels["value"][flat]
    result["value"]["accuracy_flat"] = round(float(hits.mean()), 4) if flat.any() else None
    result["value"]["flat_dice"] = int(flat.sum())
    return result


def held_out(
    scenes: int = SYNTHETIC_SCENES, progress: bool = True, size: int = spec.INPUT_SIZE
) -> CropSet:
    """``size`` px crops of the held-out synthetic scenes (the test seed), rendered once and
    cached."""
    return synth_crops.load_synthetic(synth_crops.TEST_SEED, scenes, size, progress=progress)


def _print_rune55(result: dict[str, Any], split: str) -> None:
    unseen = result["unseen_sources_accuracy"]
    print(f"rune55 {split}: {result['crops']} crops, value accuracy {result['accuracy']:.4f}")
    print(
        f"  on photos whose source is not in train: {result['unseen_sources_crops']} crops "
        f"from {result['unseen_sources_photos']} sources, accuracy "
        + (f"{unseen:.4f}" if unseen is not None else "n/a")
    )
    matrix = np.asarray(result["confusion"])
    print(format_confusion(matrix, spec.VALUES[: matrix.shape[1]]))


def evaluate_crops(
    split: str = "test",
    model: Path | None = None,
    data: Path | None = None,
    png: Path | None = None,
    as_json: bool = False,
    synthetic: int | None = None,
    mistakes: Path | None = None,
) -> int:
    """Print accuracy, confusion and 10-crop latency: of the value on a Rune55 split (all, and
    unseen sources), or with ``synthetic`` scenes, of every head on held-out synthetic crops.
    ``png`` draws the confusion (one PNG per head for synthetic, ``NAME-head.png``);
    ``mistakes`` the crops whose value was misread."""
    model = model or MODEL_PATH
    size = input_side(model)
    if synthetic is not None:
        crops = held_out(synthetic, progress=not as_json, size=size)
        result = synthetic_metrics(model, crops) | {"scenes": synthetic}
    else:
        splits = photos.load_splits(data, size=size)
        crops = splits[split]
        result = split_metrics(model, crops, splits["train"]) | {"split": split}
    result["latency_one_thread"] = latency_ms(session(model, threads=1), crops.images[:10])
    result["model"] = str(model)
    if png is not None:
        _draw(result, png, synthetic is not None)
    if mistakes is not None:
        read = predictions(outputs(session(model), crops.images))["value"]
        if synthetic is not None:
            truth, names = crops.labels["value"], None
        else:
            truth, names = crops.labels, crops.files  # type: ignore[assignment]
        result["mistakes_drawn"] = draw_mistakes(crops.images, truth, read, mistakes, names)
    if as_json:
        print(json.dumps(result))
        return 0
    if synthetic is not None:
        print(
            f"synthetic held-out (seed {synth_crops.TEST_SEED}): {synthetic} scenes, "
            f"{len(crops)} crops"
        )
        for name, classes in spec.HEADS.items():
            head = result[name]
            extra = "".join(
                f", {k.removeprefix('accuracy_')} {v:.4f}"
                for k, v in head.items()
                if k.startswith("accuracy_") and v is not None
            )
            print(f"{name}: accuracy {head['accuracy']:.4f}{extra}")
            print(format_confusion(np.asarray(head["confusion"]), classes))
    else:
        _print_rune55(result, split)
    lat = result["latency_one_thread"]
    print(
        f"latency, {lat['crops']} crops, one thread: {lat['batched_ms']:.2f} ms in one batch, "
        f"{lat['one_by_one_ms']:.2f} ms one by one (pin a core with taskset -c 0)"
    )
    if png is not None:
        print(f"confusion drawn in {png.parent / (png.stem + '*' + png.suffix)}")
    if mistakes is not None:
        print(f"{result['mistakes_drawn']} misread crops drawn in {mistakes}")
    return 0


def _draw(result: dict[str, Any], png: Path, synthetic: bool) -> None:
    """The confusion PNG(s) of a result."""
    if not synthetic:
        matrix = np.asarray(result["confusion"])
        square = np.zeros((matrix.shape[1],) * 2, np.int64)
        square[:6] = matrix
        title = f"rune55 {result['split']}: accuracy {result['accuracy']:.4f} ({result['crops']})"
        draw_confusion(square, png, title, spec.VALUES[: len(square)])
        return
    for name, classes in spec.HEADS.items():
        head = result[name]
        title = f"synthetic {name}: accuracy {head['accuracy']:.4f} ({result['crops']})"
        path = png.with_name(f"{png.stem}-{name}{png.suffix}")
        draw_confusion(np.asarray(head["confusion"]), path, title, classes)
