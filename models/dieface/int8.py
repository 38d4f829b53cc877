"""The die-face model's int8 copy: onnxruntime's static quantisation calibrated on real and
synthetic crops, the float model multiplied back out of an int8 file, and the verdict on
whether the copy ships (no accuracy lower by more than ``TOLERANCE``, and faster)."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx import helper, numpy_helper
from onnxruntime import quantization

from models.dieface import evaluate, spec

TOLERANCE = 0.002  # int8 ships only if no accuracy drops by more than this


class _Calibration(quantization.CalibrationDataReader):
    """Batches of normalised crops for onnxruntime's static quantisation."""

    def __init__(self, images: np.ndarray, batch: int = 64) -> None:
        self.batches = iter(
            evaluate.to_input(images[i : i + batch]) for i in range(0, len(images), batch)
        )

    def get_next(self) -> dict[str, np.ndarray] | None:
        x = next(self.batches, None)
        return None if x is None else {spec.INPUT_NAME: x}


def quantise(source: Path, target: Path, calibration: np.ndarray) -> None:
    """An int8 copy of ``source`` (QDQ, per-channel weights), calibrated on ``calibration``.

    Weights get 7 bits (``reduce_range``): an x86 CPU without VNNI (AVX2 alone, as on this
    project's machines since 2026-11-30) multiplies uint8 by int8 in pairs summed into 16
    bits, which saturate with 8-bit weights. Die-face 2.3.0, quantised with 8-bit weights on a
    VNNI machine, read 93.6 % of Rune55's test crops there and 79.0 % on an AVX2 one; with 7
    bits it reads 93.3 % on both (the float model: 93.35 %). ARM and VNNI never saturate."""
    with tempfile.TemporaryDirectory() as tmp:
        prepared = Path(tmp) / "prepared.onnx"
        quantization.quant_pre_process(str(source), str(prepared))
        quantization.quantize_static(
            str(prepared),
            str(target),
            _Calibration(calibration),
            quant_format=quantization.QuantFormat.QDQ,
            per_channel=True,
            activation_type=quantization.QuantType.QUInt8,
            weight_type=quantization.QuantType.QInt8,
            reduce_range=True,
        )


def dequantise(source: Path, target: Path) -> None:
    """A float copy of an ONNX file: a QDQ model's weights multiplied out of their int8
    form, its activations' quantise/dequantise pairs taken away (a file with none is copied).

    Why: the shipped file may be all that is left of a model (training runs live on one
    machine), and a float copy lets it be measured, quantised again and shipped again.
    onnxruntime's quantiser drops a Relu whose output is quantised from 0 up, since the
    uint8 range clamps there; a Relu is put back wherever a uint8 zero point is 0 (after a
    max-pool of Relu outputs it changes nothing)."""
    model = onnx.load(str(source))
    graph = model.graph
    stored = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    weights: dict[str, np.ndarray] = {}
    alias: dict[str, str] = {}  # a quantised activation's name -> the float tensor it stood for
    nodes = []
    for node in graph.node:
        if node.op_type == "DequantizeLinear" and node.input[0] in stored:
            weights[node.output[0]] = _dequantised(node, stored)
        elif node.op_type == "QuantizeLinear":
            zero = stored.get(node.input[2]) if len(node.input) > 2 else None
            if zero is not None and zero.dtype == np.uint8 and not zero.any():
                nodes.append(helper.make_node("Relu", [node.input[0]], [node.output[0] + "_relu"]))
                alias[node.output[0]] = node.output[0] + "_relu"
            else:
                alias[node.output[0]] = node.input[0]
        elif node.op_type == "DequantizeLinear":
            alias[node.output[0]] = node.input[0]
        else:
            nodes.append(node)

    def resolve(name: str) -> str:
        while name in alias:
            name = alias[name]
        return name

    for node in nodes:
        node.input[:] = [resolve(name) for name in node.input]
    nodes += [
        helper.make_node("Identity", [resolve(out.name)], [out.name])
        for out in graph.output
        if resolve(out.name) != out.name
    ]
    used = {name for node in nodes for name in node.input}
    kept = [t for t in graph.initializer if t.name in used and t.name not in weights]
    kept += [numpy_helper.from_array(w, name) for name, w in weights.items() if name in used]
    del graph.node[:]
    graph.node.extend(nodes)
    del graph.initializer[:]
    graph.initializer.extend(kept)
    onnx.checker.check_model(model)
    onnx.save(model, str(target))


def _dequantised(node: onnx.NodeProto, stored: dict[str, np.ndarray]) -> np.ndarray:
    """The float tensor a DequantizeLinear of stored integers gives: (q - zero) x scale,
    per channel along its axis when the scale is a vector."""
    q = stored[node.input[0]].astype(np.float32)
    scale = stored[node.input[1]].astype(np.float32)
    zero = (
        stored[node.input[2]].astype(np.float32)
        if len(node.input) > 2 and node.input[2]
        else np.zeros_like(scale)
    )
    if scale.ndim == 1 and q.ndim > 1:
        axis = next((a.i for a in node.attribute if a.name == "axis"), 1)
        shape = [1] * q.ndim
        shape[axis] = -1
        scale, zero = scale.reshape(shape), zero.reshape(shape)
    return ((q - zero) * scale).astype(np.float32)


def _accuracies(metrics: dict[str, Any]) -> list[float]:
    """The accuracies the int8 copy must keep: Rune55 value and every synthetic head."""
    synthetic = [metrics["synthetic_test"][name]["accuracy"] for name in spec.HEADS]
    return [metrics["rune55_valid"]["accuracy"], metrics["rune55_test"]["accuracy"], *synthetic]


def int8_verdict(float_metrics: dict[str, Any], int8_metrics: dict[str, Any]) -> dict[str, Any]:
    """Whether the int8 copy ships: no accuracy lower by more than TOLERANCE, and faster."""
    pairs = zip(_accuracies(float_metrics), _accuracies(int8_metrics), strict=True)
    drops = [a - b for a, b in pairs]
    key = "latency_10_crops_one_thread"
    fast, slow = int8_metrics[key]["batched_ms"], float_metrics[key]["batched_ms"]
    return {
        "largest_accuracy_drop": round(max(drops), 4),
        "batched_ms_int8": fast,
        "batched_ms_float32": slow,
        "shipped": bool(max(drops) <= TOLERANCE and fast < slow),
    }
