"""Measure the dice detector end to end (``vision.detect.DiceFinder`` on full frames).

    python -m models.detector.eval --split test [--model models/dicefind.onnx] [--json]

Reports detection precision / recall at IoU 0.5 (greedy one-to-one matching, best score
first) on:
- the Rune55 split as given (original 640x640 photos) and on its photos whose source photo
  (name before ``.rf.``) never appears in the train split;
- ``--synth`` fresh synthetic scenes (640x480) from ``SYNTH_TEST_SEED``, a seed range that
  training and validation never use (``--synth-size`` renders them larger, e.g. 1280x960);
- latency of ``find`` on a 1280x960 frame at one onnxruntime thread (run under
  ``taskset -c 0`` to pin it to one core).

Rune55 boxes hug the top face, synthetic boxes cover the whole visible die: each set is
measured against its own convention.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import cv2
import numpy as np

from models.common.photos import default_root, parse_labels, source_name, split_photos
from models.detector.data import SYNTH_TEST_SEED, scene_boxes, synth_frame
from models.detector.train import counts_to_scores, match
from vision.detect import DiceFinder, default_model


def photo_boxes(label_path: Path, width: int, height: int) -> np.ndarray:
    boxes = [
        ((b.cx - b.w / 2) * width, (b.cy - b.h / 2) * height, (b.cx + b.w / 2) * width,
         (b.cy + b.h / 2) * height)
        for b in parse_labels(label_path.read_text(encoding="utf-8"))
    ]  # fmt: skip
    return np.asarray(boxes, np.float32).reshape(-1, 4)


def found_boxes(finder: DiceFinder, frame: np.ndarray) -> np.ndarray:
    return np.asarray([b for b, _ in finder.find(frame)], np.float32).reshape(-1, 4)


def evaluate_photos(finder: DiceFinder, split: str, root: Path | None = None) -> dict:
    root = Path(root) if root is not None else default_root()
    train_sources = {source_name(p.name) for p, _ in split_photos(root, "train")}
    totals = {"all": [0, 0, 0], "unseen": [0, 0, 0]}
    photos = {"all": 0, "unseen": 0}
    for image_path, label_path in split_photos(root, split):
        frame = cv2.imread(str(image_path), cv2.IMREAD_COLOR)
        height, width = frame.shape[:2]
        truth = photo_boxes(label_path, width, height)
        pred = found_boxes(finder, frame)
        tp = match(pred, truth)
        groups = ["all"] + (["unseen"] if source_name(image_path.name) not in train_sources else [])
        for g in groups:
            totals[g][0] += tp
            totals[g][1] += len(pred)
            totals[g][2] += len(truth)
            photos[g] += 1
    return {g: {**counts_to_scores(*totals[g]), "photos": photos[g]} for g in totals}


def evaluate_synth(
    finder: DiceFinder, count: int, seed: int = SYNTH_TEST_SEED, size: tuple[int, int] = (640, 480)
) -> dict:
    tp = n_pred = n_true = 0
    cocked_true = cocked_found = 0
    for i in range(count):
        scene = synth_frame(seed + i, size)
        truth = scene_boxes(scene)
        pred = found_boxes(finder, scene.image)
        tp += match(pred, truth)
        n_pred += len(pred)
        n_true += len(truth)
        for die in scene.dice:
            if die.spec.cocked and die.box[2] > die.box[0]:
                cocked_true += 1
                cocked_found += match(pred, np.asarray([die.box], np.float32))
    result = counts_to_scores(tp, n_pred, n_true)
    result.update(scenes=count, seed=seed, size=list(size), cocked=cocked_true,
                  cocked_recall=cocked_found / cocked_true if cocked_true else None)  # fmt: skip
    return result


def latency_ms(finder: DiceFinder, repeats: int = 30) -> dict:
    scene = synth_frame(SYNTH_TEST_SEED, (1280, 960))
    frame = scene.image
    for _ in range(3):
        finder.find(frame)
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        finder.find(frame)
        times.append((time.perf_counter() - t) * 1000)
    return {"frame": [1280, 960], "median_ms": float(np.median(times)),
            "p90_ms": float(np.percentile(times, 90)), "threads": 1}  # fmt: skip


def evaluate(
    model: Path, split: str = "test", synth: int = 200, threshold: float | None = None,
    synth_size: tuple[int, int] = (640, 480), latency: bool = True,
) -> dict:  # fmt: skip
    finder = DiceFinder(model, threshold=threshold, threads=1)
    result = {"model": str(model), "threshold": finder.threshold, "split": split}
    result["rune55"] = evaluate_photos(finder, split)
    if synth:
        result["synthetic"] = evaluate_synth(finder, synth, size=synth_size)
    if latency:
        result["latency"] = latency_ms(finder)
    return result


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--split", default="test", choices=("train", "valid", "test"))
    parser.add_argument("--model", type=Path, default=default_model())
    parser.add_argument("--synth", type=int, default=200, help="fresh synthetic scenes")
    parser.add_argument("--synth-size", default="640x480")
    parser.add_argument("--threshold", type=float, default=None)
    parser.add_argument("--no-latency", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    size = tuple(int(v) for v in args.synth_size.split("x"))
    result = evaluate(args.model, args.split, args.synth, args.threshold, size,  # type: ignore[arg-type]
                      not args.no_latency)  # fmt: skip
    if args.json:
        print(json.dumps(result, indent=1))
        return
    print(f"model {result['model']}  threshold {result['threshold']}")
    for group, s in result["rune55"].items():
        print(f"rune55 {args.split} {group:6s} ({s['photos']} photos, {s['true']} dice): "
              f"P {s['precision']:.4f}  R {s['recall']:.4f}  F1 {s['f1']:.4f}")  # fmt: skip
    if "synthetic" in result:
        s = result["synthetic"]
        print(f"synthetic {s['scenes']} scenes {s['size']} ({s['true']} dice): "
              f"P {s['precision']:.4f}  R {s['recall']:.4f}  F1 {s['f1']:.4f}  "
              f"cocked recall {s['cocked_recall']}")  # fmt: skip
    if "latency" in result:
        lat = result["latency"]
        print(f"latency 1280x960, 1 thread: median {lat['median_ms']:.1f} ms, "
              f"p90 {lat['p90_ms']:.1f} ms")  # fmt: skip


if __name__ == "__main__":
    main()
