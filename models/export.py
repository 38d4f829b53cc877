"""Export trained weights to ``models/dieface.onnx`` and write its card ``models/dieface.json``.

The appliance runs the model through onnxruntime, never torch, so the export is only trusted
once both give the same logits on the same inputs (:func:`max_logit_difference`). The card
holds everything a runtime needs to feed the model (crop, size, normalisation, classes) and
what a reader needs to trust it (training data with its credit, metrics with the commands that
reproduce them).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import onnxruntime as ort
import torch

from models import photos, spec
from models.net import DieFaceNet, count_parameters, normalise

MODELS_DIR = Path(__file__).resolve().parent
ONNX_PATH = MODELS_DIR / "dieface.onnx"
CARD_PATH = MODELS_DIR / "dieface.json"
RUNE55_CREDIT = (
    "Rune55 v3 dataset by a Roboflow user (universe.roboflow.com/rune-zkmvl/rune55), "
    "CC BY 4.0, via github.com/N3VERS4YDIE/dice-recognition"
)


def load_weights(path: Path) -> DieFaceNet:
    """A DieFaceNet in eval mode from ``best.pt`` or an epoch checkpoint."""
    state = torch.load(path, map_location="cpu", weights_only=False)
    model = DieFaceNet()
    model.load_state_dict(state["model"])
    return model.eval()


def export_onnx(model: torch.nn.Module, path: Path, opset: int = spec.OPSET) -> None:
    """Write the model as ONNX with a free batch size (the runtime sends all dice at once).

    The TorchScript exporter is used: it needs only the ``onnx`` package, not onnxscript, and
    gives a plain, small graph for a CNN this simple.
    """
    model.eval()
    dummy = torch.zeros(1, 1, spec.INPUT_SIZE, spec.INPUT_SIZE)
    path.parent.mkdir(parents=True, exist_ok=True)
    with warnings.catch_warnings():  # the legacy exporter warns on every call; it is chosen
        warnings.simplefilter("ignore", DeprecationWarning)
        torch.onnx.export(
            model,
            (dummy,),
            str(path),
            dynamo=False,
            opset_version=opset,
            input_names=[spec.INPUT_NAME],
            output_names=[spec.OUTPUT_NAME],
            dynamic_axes={spec.INPUT_NAME: {0: "batch"}, spec.OUTPUT_NAME: {0: "batch"}},
        )


def onnx_session(path: Path, threads: int = 1) -> ort.InferenceSession:
    """A CPU session with a fixed thread count (the Pi's cores are shared with the camera)."""
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def max_logit_difference(model: torch.nn.Module, path: Path, inputs: torch.Tensor) -> float:
    """Largest absolute difference between torch's and onnxruntime's logits on ``inputs``."""
    model.eval()
    with torch.no_grad():
        expected = model(inputs).numpy()
    got = onnx_session(path).run(None, {spec.INPUT_NAME: inputs.numpy()})[0]
    return float(np.abs(expected - got).max())


def augmentation(config: dict[str, Any]) -> str:
    """The augmentation of a run, in words, from the config its summary stores."""
    contrast = config["contrast"]
    return (
        f"rotation any angle, mirror, scale ±{config['max_scale']:.0%}, "
        f"shift ±{config['max_shift']:.0%}, contrast {1 / contrast:.2f}-{contrast:.2f}, "
        f"brightness ±{config['brightness']}, noise up to {config['max_noise']}"
    )


def card(
    model: torch.nn.Module,
    onnx_path: Path,
    agreement: dict[str, float],
    metrics: dict[str, Any],
    training: dict[str, Any],
) -> dict[str, Any]:
    """The model card as a dict (written next to the .onnx as JSON)."""
    return {
        "name": "dieface",
        "version": spec.VERSION,
        "task": "top face value of one d6 (pips) from a grey crop centred on the die",
        "file": onnx_path.name,
        "size_bytes": onnx_path.stat().st_size,
        "parameters": count_parameters(model),
        "input": {
            "name": spec.INPUT_NAME,
            "shape": ["batch", 1, spec.INPUT_SIZE, spec.INPUT_SIZE],
            "dtype": "float32",
            "colour": "grey (OpenCV IMREAD_GRAYSCALE / COLOR_BGR2GRAY)",
            "crop": (
                f"square centred on the die's box, side = longer box side x "
                f"{1 + 2 * photos.MARGIN:.2f}, edge pixels repeated past the image border, "
                f"resized to {spec.INPUT_SIZE}x{spec.INPUT_SIZE} (INTER_AREA when shrinking); "
                "see models/photos.py crop_die"
            ),
            "normalisation": {
                "formula": "(pixel / 255 - mean) / std",
                "scale": 1 / 255,
                "mean": spec.MEAN,
                "std": spec.STD,
            },
        },
        "output": {
            "name": spec.OUTPUT_NAME,
            "shape": ["batch", len(spec.CLASSES)],
            "meaning": "logits; softmax gives the confidence",
        },
        "classes": {"d6": list(spec.CLASSES)},
        # What the runtime reads (vision/faces.py): one entry per output, the attribute it
        # tells and its classes in output order.
        "heads": [
            {"output": spec.OUTPUT_NAME, "attribute": "value", "classes": list(spec.CLASSES)}
        ],
        "training_data": [
            {
                "name": "Rune55 v3 (d6 with pips, 5,909 photos, YOLO boxes)",
                "credit": RUNE55_CREDIT,
                "licence": "CC BY 4.0",
                "used": "train split for weights, valid split to pick the epoch; test held out",
                "leakage": training.get("leakage"),
            }
        ],
        "training": {k: v for k, v in training.items() if k != "leakage"},
        "metrics": metrics,
        "export": {
            "opset": spec.OPSET,
            "torch": torch.__version__,
            "onnxruntime": ort.__version__,
            "max_abs_logit_difference_torch_vs_onnxruntime": agreement,
        },
        "date": dt.date.today().isoformat(),
    }


def main(argv: list[str] | None = None) -> int:
    """``python -m models.export --weights RUN/best.pt``: write the .onnx, check it, write the
    card with metrics measured on the exported file."""
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--weights", required=True, type=Path, help="best.pt from yamscope train")
    parser.add_argument("--out", type=Path, default=ONNX_PATH)
    parser.add_argument("--data", type=Path, default=None, help="the rune55-d6 folder")
    parser.add_argument(
        "--train-command",
        action="append",
        default=None,
        help="how the weights were trained, for the card (repeat for a resumed run)",
    )
    args = parser.parse_args(argv)
    args.train_command = args.train_command or [
        "yamscope train --out data/runs/dieface --epochs 14"
    ]
    from models.evaluate import split_metrics  # onnxruntime only; kept apart from torch

    torch.manual_seed(0)
    model = load_weights(args.weights)
    export_onnx(model, args.out)
    splits = photos.load_splits(args.data)
    random_input = torch.randn(16, 1, spec.INPUT_SIZE, spec.INPUT_SIZE)
    agreement = {
        "random_16": max_logit_difference(model, args.out, random_input),
        "test_crops": max_logit_difference(model, args.out, normalise(splits["test"].images)),
    }
    if max(agreement.values()) > 1e-3:
        raise SystemExit(f"torch and onnxruntime disagree: {agreement}")
    metrics = {
        name: split_metrics(args.out, splits[name], splits["train"]) for name in ("valid", "test")
    }
    metrics["reproduce"] = [
        *args.train_command,
        "python -m models.export --weights data/runs/dieface/best.pt",
        "yamscope evaluate-crops --split test",
        "yamscope evaluate-crops --split valid",
    ]
    summary_path = args.weights.parent / "summary.json"
    training: dict[str, Any] = {"leakage": photos.leakage(splits)}
    if summary_path.exists():
        summary = json.loads(summary_path.read_text(encoding="utf-8"))
        training |= {
            "best_epoch": summary["best"]["epoch"],
            "epochs": summary["config"]["epochs"],
            "train_seconds": round(summary["train_seconds"]),
            "machine": "2 shared CPU cores, torch CPU, 2 threads",
            "augmentation": augmentation(summary["config"]),
        }
    text = json.dumps(card(model, args.out, agreement, metrics, training), indent=2)
    args.out.with_suffix(".json").write_text(text + "\n", encoding="utf-8")
    print(f"wrote {args.out} ({args.out.stat().st_size} bytes) and its card; {agreement}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
