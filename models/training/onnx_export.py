"""The export every model shares: ONNX written by torch's TorchScript exporter, then trusted
only once onnxruntime computes what torch does on the same inputs (the appliance runs the
model through onnxruntime, never torch)."""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import onnxruntime as ort
import torch
from torch import nn

OPSET = 17
AGREEMENT = 1e-3  # the largest difference torch vs onnxruntime an export may show


def export_onnx(
    model: nn.Module,
    inputs: Mapping[str, torch.Tensor],
    outputs: Sequence[str],
    path: Path,
    free_axes: Mapping[int, str] | None = None,
    opset: int = OPSET,
) -> None:
    """Write ``model`` (in eval mode) as ONNX, its inputs and outputs named, with the axes
    of ``free_axes`` (default: the batch) left free in every one of them.

    The TorchScript exporter is used: it needs only the ``onnx`` package, not onnxscript, and
    gives a plain, small graph (batch norms folded into the convs) for nets this simple.
    """
    model.eval()
    free = dict(free_axes or {0: "batch"})
    path.parent.mkdir(parents=True, exist_ok=True)
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore", DeprecationWarning)  # the legacy exporter is chosen
        torch.onnx.export(
            model,
            tuple(inputs.values()),
            str(path),
            dynamo=False,
            opset_version=opset,
            input_names=list(inputs),
            output_names=list(outputs),
            dynamic_axes={name: free for name in [*inputs, *outputs]},
        )


def both_outputs(
    model: nn.Module,
    path: Path,
    inputs: Mapping[str, torch.Tensor],
    outputs: Sequence[str] | None = None,
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Torch's and onnxruntime's answer on the same inputs, output by output (``outputs``
    names the file's outputs the net gives, in its order; None: all of them)."""
    model.eval()
    with torch.no_grad():
        expected = model(*inputs.values())
    if isinstance(expected, torch.Tensor):
        expected = (expected,)
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    names = None if outputs is None else list(outputs)
    got = session.run(names, {k: v.numpy() for k, v in inputs.items()})
    return [(e.numpy(), g) for e, g in zip(expected, got, strict=True)]


def max_difference(
    model: nn.Module,
    path: Path,
    inputs: Mapping[str, torch.Tensor],
    outputs: Sequence[str] | None = None,
) -> float:
    """Largest absolute difference between torch's and onnxruntime's outputs on ``inputs``."""
    pairs = both_outputs(model, path, inputs, outputs)
    return max(float(np.abs(e - g).max()) for e, g in pairs)


def require_agreement(difference: float | Mapping[str, float]) -> None:
    """SystemExit when torch and onnxruntime differ by more than ``AGREEMENT`` anywhere."""
    worst = max(difference.values()) if isinstance(difference, Mapping) else difference
    if worst > AGREEMENT:
        raise SystemExit(f"torch and onnxruntime disagree: {difference}")
