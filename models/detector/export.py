"""Export the trained dice detector to ONNX with its model card.

    python -m models.detector.export [--checkpoint data/runs/detector/best.pt] [--no-eval]

Writes ``models/dicefind.onnx`` (input ``image`` (1, 3, H, W), H and W multiples of 32;
outputs ``heatmap``, ``size``, ``offset``) and ``models/dicefind.json``; checks that
onnxruntime agrees with torch, then (unless ``--no-eval``) measures the shipped file with
``models.detector.eval`` and writes the numbers into the card.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np
import torch

from models.detector.data import SYNTH_TEST_SEED, SYNTH_TRAIN_SEED, SYNTH_VALID_SEED
from models.detector.net import SIZE_UNIT, DiceNet
from models.detector.train import RUN_DIR
from models.training import onnx_export
from models.training.card import count_parameters, header, write_card
from vision.detect import INPUT_SIZE, MEAN, MULTIPLE, NMS_IOU, PAD_VALUE, SCALE, STRIDE

MODELS = Path(__file__).resolve().parents[1]
ONNX_PATH = MODELS / "dicefind.onnx"
OUTPUTS = ["heatmap", "size", "offset"]
VERSION = "1.7.0"
CREDIT = (
    "Rune55 v3 dataset by a Roboflow user (universe.roboflow.com/rune-zkmvl/rune55), CC BY 4.0; "
    '"Dice" v3 public dataset from Roboflow Universe (GitHub Epanemu/GameDiceRecognition, '
    "Dice-3), CC BY 4.0"
)


def export_onnx(model: DiceNet, path: Path) -> None:
    """Write the model as ONNX through the chain's exporter (models/training): input
    ``image``, its batch, height and width free in every input and output."""
    dummy = {"image": torch.zeros(1, 3, INPUT_SIZE, INPUT_SIZE)}
    free = {0: "batch", 2: "height", 3: "width"}
    onnx_export.export_onnx(model, dummy, OUTPUTS, path, free)


def max_difference(model: DiceNet, path: Path, inputs: torch.Tensor) -> float:
    """The largest difference between torch and onnxruntime over the three outputs, the
    sizes' relative to their unit."""
    worst = 0.0
    for e, g in onnx_export.both_outputs(model, path, {"image": inputs}):
        scale = 1.0 / SIZE_UNIT if e.shape[1] == 2 and e.max() > 2 else 1.0  # sizes: relative
        worst = max(worst, float(np.abs(e - g).max() * scale))
    return worst


def best_row(state: dict[str, Any]) -> dict[str, Any]:
    """The history row of a best.pt's epoch (a checkpoint from before the chain: the last
    row of the history it carries)."""
    return state["row"] if "row" in state else state["history"][-1]


def card(
    model: DiceNet,
    epoch: int,
    row: dict,
    path: Path,
    threshold: float,
    metrics: dict | None,
    mirrored_threshold: float | None = None,
) -> dict:
    """The detector's card as a dict (written next to the .onnx as JSON), from the best
    epoch and its history ``row``.

    Long: the card written out as data."""
    rendered = "rendered" in row
    task = "find every die (d6, d10) in a frame: one box per die, CenterNet-style"
    return header("dicefind", VERSION, task, path, count_parameters(model)) | {
        "input": {
            "name": "image",
            "shape": [1, 3, "height", "width"],
            "dtype": "float32",
            "colour": "BGR (OpenCV order), 3 channels; a grey frame is repeated to 3 channels",
            "letterbox": (
                f"scale the frame so its longer side is {INPUT_SIZE} (INTER_AREA when shrinking),"
                f" keep it at the top-left and pad right/bottom with grey {PAD_VALUE} up to a "
                f"multiple of {MULTIPLE} (1280x960 -> 256x192, 640x640 -> 256x256); "
                "frame pixel = input pixel / scale; see vision/detect.py letterbox"
            ),
            "long_side": INPUT_SIZE,
            "multiple": MULTIPLE,
            "normalisation": {"formula": "(pixel - mean) * scale", "mean": MEAN, "scale": SCALE},
        },
        "outputs": {
            "heatmap": "(1, 1, H/4, W/4) centre probability (sigmoid applied)",
            "size": "(1, 2, H/4, W/4) box width, height in input pixels",
            "offset": "(1, 2, H/4, W/4) centre position inside its cell, x then y, 0..1",
        },
        "decoding": {
            "stride": STRIDE,
            "threshold": threshold,
            "peak": "cells equal to the max of their 3x3 neighbourhood (3x3 max-pool NMS) "
            "and >= threshold",
            "mirrored_threshold": threshold if mirrored_threshold is None else mirrored_threshold,
            "mirrored": "a photo without a calibration is read in four images (as it is, "
            "mirrored left-right, up-down and both) in one batch; the heatmaps, turned back, "
            "are averaged and peaks kept from mirrored_threshold; size and offset from the "
            "photo as it is",
            "centre": "((col + offset_x) * stride, (row + offset_y) * stride) in input pixels",
            "box": "centre +- size / 2, divided by the letterbox scale, clipped to the frame",
            "box_nms_iou": NMS_IOU,
            "code": "vision/detect.py decode / DiceFinder",
        },
        "training": {
            "data": [
                "Rune55 v3 d6 photos, train split (4163 photos incl. Roboflow augmentations); "
                "boxes hug the die's top face",
                "roboflow-dice-d6 colour photos, train split (160 photos, one per source), "
                "a share of the photo half of each batch (models/detector/train.py COLOUR_SHARE)",
                "hard negatives drawn into half the pictures: game tokens, screws, specks, "
                "tiles, edges, dice's hard shadows (models/detector/distractors.py)",
                f"synthetic trays (models.synth.random_scene, 640x480, d6/d10/both), seeds "
                f"{SYNTH_TRAIN_SEED}.. (train), {SYNTH_VALID_SEED}.. (valid); boxes cover the "
                "whole visible die",
                *(
                    [
                        "photoreal renders (models/blender, `--scenes`), `--scene-share` of the "
                        "synthetic half of each batch (1.7.0: 0.25, an eighth); "
                        "one scene in ten held out (models/dieface/scene_crops.py VALID_EVERY); "
                        "boxes cover the whole visible die"
                    ]
                    if rendered
                    else []
                ),
            ],
            "credit": CREDIT,
            "epochs": epoch,
            "selected_by": "mean F1 (IoU 0.5) of Rune55 valid (first 200 photos), "
            "roboflow-dice-d6 valid (52 photos) and 100 synthetic valid scenes"
            + (" and the rendered scenes held out" if rendered else "")
            + "; since 1.7.0 the run's last epoch, its candidates compared through the "
            "whole pipeline on the valid sets (docs/finding-dice.md)",
            "history": [row],
            "command": "python -m models.detector.train (resumes data/runs/detector/last.pt; "
            "1.0.0: 15 epochs, ~28 CPU minutes on 2 shared cores: epoch 1 of 60 steps x 12 at "
            "256, epoch 2 of 80 x 12, epochs 3-15 of 100 x 16 on 192x192 windows, cosine LR "
            "re-planned to end at epoch 15; selected epoch 13. 1.1.0: resumed with "
            "`python -m models.detector.train --epochs 35 --steps 100 --batch 16 --crop 192 "
            "--minutes 22` (20 more epochs, ~13 minutes on 2 idle cores), best epoch by F1. "
            "1.2.0: resumed again with `--epochs 55 ... --minutes 14` (20 more epochs). "
            "1.3.0: from 1.2.0's best.pt on one H200 (models/gpu/run.sh: `python -m "
            "models.detector.train --device cuda --workers 7 --batch 64 --crop 256 --steps 600 "
            "--epochs 200 --synth 3000 --lr 3e-3 --minutes 6.67 --weights .gpu/detector.pt`; "
            "13 epochs of 600 batches of 64, the photos carried as grey JPEG q88). 1.4.0: "
            "1.3.0's last.pt, 8 more epochs (`SCENES=0 BUDGET=250 DET_MINUTES=3.5 "
            "DET_SYNTH=6000 DET_WORKERS=14 DET_LR=2e-3 bash models/gpu/run.sh`), best epoch by F1. "
            "1.5.0: `python -m models.detector.train --from-onnx models/dicefind.onnx --lr 1e-3` "
            "with the colour photos and the hard negatives (14 epochs, ~30 minutes on 2 shared "
            "cores), then one more epoch from those weights (`--weights`) with fewer, larger "
            "negatives; selected by the mean F1 of Rune55 valid, the colour photos' valid "
            "split and the synthetic valid scenes (docs/finding-dice.md). 1.6.0: from "
            "1.5.0 on one H200 with the colour photos carried too (`python -m models.gpu.pack`,"
            ' then `BUDGET=510 SCENES=0 DET_LRS="1e-3 3e-3" DET_WORKERS=14 bash '
            "models/gpu/run.sh`: `--from-onnx models/dicefind.onnx --batch 64 --crop 256 "
            "--steps 600 --synth 3000 --minutes 6.83`), the learning rate 3e-3's run, 12 "
            "epochs, best epoch 10 by the same mean F1; threshold kept at 0.4; read in its "
            "mirror images without a calibration, peaks from 0.35 (export `--threshold 0.4 "
            "--mirrored-threshold 0.35`; docs/finding-dice.md). 1.7.0: from 1.6.0 on 2 "
            "CPU cores with photoreal renders of the house and varied dice sets (`python -m "
            "models.detector.train --from-onnx models/dicefind.onnx --scenes "
            "data/blender-train12 --scenes data/blender-varied --scene-share 0.25 --lr 2e-4 "
            "--epochs 20 --steps 100 --batch 32 --crop 256 --threads 2 --workers 2`, 30 "
            "minutes), its last epoch; thresholds kept (docs/finding-dice.md)",
        },
        "metrics": metrics or {},
        "metrics_command": "taskset -c 0 python -m models.detector.eval --split test --json "
        f"(synthetic scenes from seed {SYNTH_TEST_SEED}, never used in training)",
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--checkpoint", type=Path, default=RUN_DIR / "best.pt")
    parser.add_argument("--out", type=Path, default=ONNX_PATH)
    parser.add_argument("--threshold", type=float, default=None)
    parser.add_argument(
        "--mirrored-threshold",
        type=float,
        default=None,
        help="peaks kept from this when a photo is read in its mirror images too "
        "(default: --threshold)",
    )
    parser.add_argument("--no-eval", action="store_true")
    args = parser.parse_args(argv)
    torch.set_num_threads(2)
    state = torch.load(args.checkpoint, map_location="cpu", weights_only=False)
    model = DiceNet()
    model.load_state_dict(state["model"])
    model.eval()
    export_onnx(model, args.out)
    inputs = torch.from_numpy(np.random.default_rng(0).normal(0, 1, (1, 3, 192, 256))).float()
    diff = max_difference(model, args.out, inputs)
    print(f"wrote {args.out} ({args.out.stat().st_size} bytes); torch vs onnxruntime {diff:.2e}")
    onnx_export.require_agreement(diff)
    row = best_row(state)
    threshold = args.threshold if args.threshold is not None else float(row.get("threshold", 0.3))
    mirrored = args.mirrored_threshold
    info = card(model, state["epoch"], row, args.out, threshold, None, mirrored)
    card_path = write_card(args.out, info)
    if not args.no_eval:
        from models.detector.eval import evaluate

        metrics = evaluate(args.out, "test", 200)
        metrics["torch_vs_onnxruntime_max_diff"] = diff
        info = card(model, state["epoch"], row, args.out, threshold, metrics, mirrored)
        write_card(args.out, info)
        print(json.dumps(metrics, indent=1))
    print(f"wrote {card_path}")


if __name__ == "__main__":
    main()
