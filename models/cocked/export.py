"""Export the trained cocked-die model to ONNX, check it against torch, and write its card
with the numbers it reads through the whole pipeline."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import torch

from models.cocked.crops import (
    ANCHOR_SCENES,
    ANCHOR_SEED,
    COCKED_SHARE,
    CUTS,
    RENDERED_CUTS,
    TRAIN_SEED,
    VALID_SEED,
    load_crops,
)
from models.cocked.net import CockedNet, WithHidden
from models.cocked.train import MISSED_WEIGHT, VERSION, load_net, mistakes, standardise, to_input
from models.common.datasets import open_dataset
from models.dieface import spec
from models.dieface.net import DieFaceNet
from models.dieface.scene_crops import describe_folders
from models.dieface.synth_crops import CropSet
from models.synth.layout import NARROW_CAMERA, WIDE_CAMERA
from models.training import onnx_export
from models.training.card import count_parameters, export_fields, header, today, write_card
from vision.cocked import ANCHORS_SUFFIX, CROP_SCALE, HIDDEN, CockedReader, save_anchors
from vision.errors import BadModelError


def export_onnx(model: CockedNet, path: Path, size: int = spec.INPUT_SIZE) -> None:
    """Write the model as ONNX through the chain's exporter (models/training): inputs
    ``crops`` (side ``size``) and ``slant``, outputs ``cocked`` and ``hidden`` (the head's
    hidden layer, for a table's own last layer), a free batch size."""
    crops, slant = CockedReader.INPUTS
    dummy = {crops: torch.zeros(1, 3, size, size), slant: torch.zeros(1, 1)}
    onnx_export.export_onnx(WithHidden.of(model), dummy, [CockedReader.OUTPUT, HIDDEN], path)


def write_anchors(model: Path, crops: CropSet | None = None, progress: bool = True) -> Path:
    """The anchors of an exported model, written beside it: the hidden layer, label and
    cocked-minus-flat logit of every die of the anchor trays (synthetic, a seed of their own),
    which a table's refit of the last layer keeps beside the table's flat dice."""
    if crops is None:
        crops = load_crops(ANCHOR_SEED, ANCHOR_SCENES, progress=progress)
    reader = CockedReader(model)
    if not reader.has_hidden:
        raise BadModelError(f"{model}: no {HIDDEN!r} output (exported before model 2.2.0)")
    slants = crops.labels["slant"]
    logits, hidden = reader.outputs_of(crops.images, slants, [CockedReader.OUTPUT, HIDDEN])
    return save_anchors(model, hidden, crops.labels["cocked"], logits[:, 1] - logits[:, 0])


def card(path: Path, model: CockedNet, run: Path) -> dict[str, Any]:
    """The card as a dict, its measured metrics left for ``export`` to add.

    Long: the card written out as data."""
    summary = json.loads((run / "summary.json").read_text(encoding="utf-8"))
    cfg = summary["config"]
    size = cfg.get("input_size", spec.INPUT_SIZE)
    task = "whether a die seen from overhead is cocked (leaning, its top face tilted)"
    return header("cocked", VERSION, task, path, count_parameters(model)) | {
        "weights": "float32",
        "input": {
            "name": "crops",
            "shape": ["batch", 3, size, size],
            "dtype": "float32",
            "colour": "BGR channel order",
            "crop": (
                "square centred on the die's box, side = longer box side x 1.20, turned so "
                "that the frame's centre lies straight below the die, edge pixels repeated "
                f"past the frame, bilinear, {spec.INPUT_SIZE} px; see vision/cocked.py "
                f"upright_crop; then averaged down to {size} px (cv2.INTER_AREA)"
            ),
            "crop_scale": CROP_SCALE,
            "cut_size": spec.INPUT_SIZE,
            "normalisation": {
                "formula": "(pixel / 255 - mean) / std",
                "mean": spec.MEAN,
                "std": spec.STD,
            },
        },
        "inputs": {
            "slant": "(batch, 1) float32: the tangent of the angle between the optical axis "
            "and the line of sight to the box's centre: its distance from the frame's centre "
            "over the focal length, both in frame widths (vision/perspective.py slant; the focal "
            "length comes from the calibration's field of view)"
        },
        "output": {"name": CockedReader.OUTPUT, "classes": ["no", "yes"], "kind": "logits"},
        "hidden": {
            "name": HIDDEN,
            "shape": ["batch", model.head[3].in_features],
            "what": "the head's hidden layer (after its ReLU), which the last layer reads: a "
            "table's own last layer is fitted on it (vision/cocked.py, vision/enrolment.py)",
        },
        "anchors": {
            "file": path.stem + ANCHORS_SUFFIX,
            "what": "the hidden layer, label and cocked-minus-flat logit of every die of "
            f"{ANCHOR_SCENES} synthetic anchor trays (seed {ANCHOR_SEED}), with this file's "
            "SHA-256: a table's refit of the last layer keeps them beside the table's flat "
            f"dice (python -m models.cocked.train --anchors {path})",
        },
        "training": {
            "rendered": describe_folders(cfg.get("rendered", [])),
            "data": (
                f"synthetic trays of models.synth, seed {TRAIN_SEED} scenes 0..{cfg['scenes'] - 1}"
                f" ({CUTS} jittered cuts per die, "
                f"{COCKED_SHARE:.0%} of dice cocked, {cfg['wide_share']:.0%} of scenes "
                f"seen by a camera {WIDE_CAMERA[0]}-{WIDE_CAMERA[1]} frame widths above the "
                f"felt (75-42° across, as a Pi camera module), the others "
                f"{NARROW_CAMERA[0]}-{NARROW_CAMERA[1]} (42-22°))"
                + (
                    f"; and the dice of the rendered folders below, {RENDERED_CUTS} jittered "
                    f"cuts each, the cocked ones repeated to make {COCKED_SHARE:.0%} of them, "
                    "all repeated to make about a quarter of each epoch (one scene in ten kept "
                    "for valid)"
                    if cfg.get("rendered")
                    else ""
                )
                + f"; {summary['train_crops']} crops an epoch"
            ),
            "trunk_from": summary["trunk"]
            or (
                "the fine-tuned model's"
                if summary.get("weights") or summary.get("exported")
                else "random weights"
            ),
            "fine_tuned_from": summary.get("weights") or summary.get("exported"),
            "widths": list(cfg.get("widths", DieFaceNet.WIDTHS)),
            "taught_by": cfg.get("teacher") or None,
            "best_epoch": summary["best"]["epoch"],
            "epochs_run": len(summary["history"]),
            "train_seconds": round(summary["train_seconds"]),
            "machine": "2 shared CPU cores, torch CPU, 2 threads",
            "augmentation": (
                "mirror about the upright axis, turn ±8°, scale ±10 %, shift ±5 %, "
                "brightness ±15 %, channel tint ±10 %, grey 15 %, contrast x0.8-1.25, "
                "noise up to 0.03"
            ),
            "loss": f"cross-entropy, cocked weighted {MISSED_WEIGHT}:1, label smoothing "
            f"{cfg['label_smoothing']}",
        },
        "metrics": {
            "valid_crops": {"set": f"seed {VALID_SEED}, scenes 0..{cfg['valid_scenes'] - 1}"},
            "reproduce": {
                "train": f"python -m models.cocked.train --out {run} "
                + (
                    f"--from-onnx {summary['exported']} "
                    if summary.get("exported")
                    else f"--weights {summary['weights']} "
                    if summary.get("weights")
                    else f"--trunk {summary['trunk']} "
                )
                + (f"--input-size {size} " if size != spec.INPUT_SIZE else "")
                + (f"--teacher {cfg['teacher']} " if cfg.get("teacher") else "")
                + (
                    "--widths " + " ".join(map(str, cfg["widths"])) + " "
                    if tuple(cfg.get("widths", DieFaceNet.WIDTHS)) != DieFaceNet.WIDTHS
                    else ""
                )
                + f"--scenes {cfg['scenes']} --valid-scenes {cfg['valid_scenes']} "
                + f"--wide-share {cfg['wide_share']:g} "
                + "".join(f"--rendered {f} " for f in cfg.get("rendered", []))
                + f"--epochs {cfg['epochs']} --lr {cfg['lr']} --minutes {summary['minutes']}",
                "export": f"python -m models.cocked.train --out {run} --valid-scenes "
                f"{cfg['valid_scenes']} --export models/cocked.onnx --evaluate DIR ...",
                "pipeline": "yamscope evaluate DIR (the sets are made as docs/cocked-dice.md says)",
            },
        },
        "date": today(),
    }


def pipeline_metrics(folder: Path, model: Path, progress: bool = True) -> dict[str, Any]:
    """What ``yamscope evaluate`` says of a labelled synthetic folder with ``model`` as the
    cocked-die model: trays read entirely right, cocked dice flagged, flat dice flagged."""
    from models.common.evaluate_scenes import evaluate

    tally, _ = evaluate(open_dataset(folder), progress=progress, cocked=model)
    summary = tally.summary()
    flags, cocked = summary["flags"], summary["cocked"]
    return {
        "photos": summary["photos"],
        "entirely_right": summary["entirely_right"],
        "cocked_labelled": cocked["labelled"],
        "cocked_found": cocked["found"],
        "cocked_flagged": cocked["flagged_cocked"],
        "needless_cocked_flags": flags["by_flag"].get("cocked", 0) - cocked["flagged_cocked"],
        "silent_errors": flags["silent_errors"],
        "command": f"yamscope evaluate {folder}",
    }


def export(
    run: Path,
    target: Path,
    valid: CropSet,
    threshold: float,
    evaluate_on: list[Path] | None = None,
    progress: bool = True,
    anchors: CropSet | None = None,
) -> dict[str, Any]:
    """Write ``run``'s best epoch as ONNX at ``target`` with its card and its anchors (of
    ``anchors``, default the anchor trays); the card's metrics are measured on the written
    file through the runtime's reader, and through the whole pipeline on each folder of
    ``evaluate_on``."""
    model = load_net(run / "best.pt")
    summary = json.loads((run / "summary.json").read_text(encoding="utf-8"))
    size = summary["config"].get("input_size", spec.INPUT_SIZE)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "cocked.onnx"
        export_onnx(model, path, size)
        sample = valid.subset(np.arange(min(256, len(valid))))
        x = standardise(to_input(sample.images, size))
        slants = torch.as_tensor(sample.labels["slant"]).reshape(-1, 1)
        difference = onnx_export.max_difference(
            WithHidden.of(model), path, {"crops": x, "slant": slants}
        )
        onnx_export.require_agreement(difference)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
    info = card(target, model, run)
    write_card(target, info)
    reader = CockedReader(target)
    probability = reader.probabilities_of(valid.images, valid.labels["slant"])
    info["metrics"]["valid_crops"] |= mistakes(probability, valid.labels["cocked"], threshold)
    info["metrics"]["pipeline"] = {
        folder.name: pipeline_metrics(folder, target, progress) for folder in evaluate_on or []
    }
    info["export"] = export_fields(difference)
    write_card(target, info)
    write_anchors(target, anchors, progress)
    return info
