"""What every model card (``models/NAME.json`` beside ``NAME.onnx``) says: which model, how
big, how it was exported and checked, and when; each model adds what it alone says."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import onnxruntime as ort
import torch
from torch import nn

from models.training.onnx_export import OPSET


def count_parameters(model: nn.Module) -> int:
    """How many weights the model has (the ONNX file is about four bytes each)."""
    return sum(p.numel() for p in model.parameters())


def header(name: str, version: str, task: str, path: Path, parameters: int) -> dict[str, Any]:
    """The card's first fields: the model, what it does, its file and its size."""
    return {
        "name": name,
        "version": version,
        "task": task,
        "file": path.name,
        "size_bytes": path.stat().st_size,
        "parameters": parameters,
    }


def export_fields(difference: float | Mapping[str, float], opset: int = OPSET) -> dict[str, Any]:
    """The card's ``export``: the exporter's versions and how closely onnxruntime agreed."""
    return {
        "opset": opset,
        "torch": torch.__version__,
        "onnxruntime": ort.__version__,
        "max_abs_logit_difference_torch_vs_onnxruntime": difference,
    }


def today() -> str:
    """The card's ``date``."""
    return dt.date.today().isoformat()


def write_card(model_path: Path, card: Mapping[str, Any]) -> Path:
    """Write ``card`` as JSON beside ``model_path`` (same name, ``.json``); its path."""
    path = model_path.with_suffix(".json")
    path.write_text(json.dumps(card, indent=2) + "\n", encoding="utf-8")
    return path
