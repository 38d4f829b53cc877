"""Make ``models/numerals.onnx`` and its card from PP-OCRv4's text recogniser.

The recogniser ships inside the ``rapidocr-onnxruntime`` wheel (Apache-2.0; PaddleOCR's
weights). It reads a line of text in any of 6,623 characters; a die shows one digit, so its
last layer is cut to the CTC blank and the ten digits, and its weights are stored in float16
with a cast back to float32 that onnxruntime folds when it loads the file (11 MB → 4 MB,
the same readings to within float16's rounding). No torch: ``onnx`` and numpy only.

    pip download --no-deps rapidocr-onnxruntime==1.4.4 -d /tmp/ocr
    unzip -o /tmp/ocr/*.whl -d /tmp/ocr
    python -m models.numerals.make \
        --source /tmp/ocr/rapidocr_onnxruntime/models/ch_PP-OCRv4_rec_infer.onnx
"""

from __future__ import annotations

import argparse
import json
from datetime import date
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import helper, numpy_helper

from vision.numerals import DEFAULT_NUMERALS_MODEL, DIGITS, OUTPUT_NAME

SOURCE = "PP-OCRv4 text recognition (ch_PP-OCRv4_rec_infer.onnx) from rapidocr-onnxruntime 1.4.4"
VERSION = "1.0.0"
HALF_FROM = 1024  # constants with at least this many numbers are stored in float16
HEIGHT, WIDTH = 48, 60  # the recogniser's line height; a digit and its margins across


def digit_rows(model: onnx.ModelProto) -> list[int]:
    """The output rows of the CTC blank and of '0'..'9' (the dictionary is in the model's
    metadata, one character a line; output row 0 is the blank, row i + 1 character i)."""
    meta = {p.key: p.value for p in model.metadata_props}
    characters = meta["character"].splitlines()
    return [0] + [characters.index(d) + 1 for d in DIGITS]


def cut_to_digits(model: onnx.ModelProto) -> onnx.ModelProto:
    """The recogniser with its last linear layer cut to the blank and the ten digits, its
    softmax then over those eleven, and its output named ``OUTPUT_NAME``."""
    graph = model.graph
    *_, matmul, add, softmax = graph.node
    if (matmul.op_type, add.op_type, softmax.op_type) != ("MatMul", "Add", "Softmax"):
        raise ValueError("not PP-OCRv4's recogniser: its last layers are not MatMul, Add, Softmax")
    rows = digit_rows(model)
    constants = {n.output[0]: n for n in graph.node if n.op_type == "Constant"}
    for name, axis in ((matmul.input[1], 1), (add.input[1], 0)):
        node = constants[name]
        full = numpy_helper.to_array(node.attribute[0].t)
        node.attribute[0].t.CopyFrom(numpy_helper.from_array(np.take(full, rows, axis), name))
    graph.output[0].name = OUTPUT_NAME
    softmax.output[0] = OUTPUT_NAME
    graph.output[0].type.tensor_type.shape.dim[2].dim_value = len(rows)
    del model.metadata_props[:]
    model.metadata_props.add(key="classes", value=",".join(["blank", *DIGITS]))
    return model


def halved(model: onnx.ModelProto) -> onnx.ModelProto:
    """Every large float32 constant stored in float16 and cast back to float32 where read."""
    graph = model.graph
    nodes = []
    for node in graph.node:
        tensor = node.attribute[0].t if node.op_type == "Constant" and node.attribute else None
        if tensor is None or tensor.data_type != onnx.TensorProto.FLOAT:
            nodes.append(node)
            continue
        array = numpy_helper.to_array(tensor)
        if array.size < HALF_FROM:
            nodes.append(node)
            continue
        half = f"{node.output[0]}.half"
        nodes.append(
            helper.make_node(
                "Constant", [], [half], value=numpy_helper.from_array(array.astype(np.float16))
            )
        )
        nodes.append(helper.make_node("Cast", [half], [node.output[0]], to=onnx.TensorProto.FLOAT))
    del graph.node[:]
    graph.node.extend(nodes)
    return model


def agreement(source: Path, made: Path, views: np.ndarray | None = None) -> float:
    """The largest difference between the source's digit probabilities (renormalised over
    the blank and the digits) and the made model's, on ``views`` (default: random ones)."""
    if views is None:
        views = np.random.default_rng(0).uniform(-1, 1, (8, 3, HEIGHT, WIDTH)).astype(np.float32)
    full = ort.InferenceSession(str(source), providers=["CPUExecutionProvider"])
    cut = ort.InferenceSession(str(made), providers=["CPUExecutionProvider"])
    rows = digit_rows(onnx.load(str(source)))
    want = full.run(None, {full.get_inputs()[0].name: views})[0][:, :, rows]
    want /= want.sum(axis=2, keepdims=True)
    got = cut.run(None, {cut.get_inputs()[0].name: views})[0]
    return float(np.abs(want - got).max())


def card(made: Path, difference: float) -> dict:
    """The card the runtime reads (vision/numerals.py NumeralCard), and the credits."""
    model = onnx.load(str(made))
    return {
        "name": "numerals",
        "version": VERSION,
        "task": "the digit a d10 shows, read as text: a second look at a d10 whose value the "
        "die-face model is unsure of (vision/numerals.py)",
        "file": made.name,
        "size_bytes": made.stat().st_size,
        "weights": "float16, cast to float32 when loaded",
        "source": SOURCE,
        "licence": "Apache-2.0 (PaddleOCR's PP-OCRv4 weights, as packaged by RapidOCR)",
        "credit": "PaddlePaddle/PaddleOCR (PP-OCRv4), RapidAI/RapidOCR (its ONNX export)",
        "changes": "last linear layer cut to the CTC blank and '0'..'9' (its softmax then over "
        "those eleven); constants stored in float16",
        "input": {
            "name": model.graph.input[0].name,
            "shape": ["views", 3, HEIGHT, WIDTH],
            "colour": "BGR channel order",
            "normalisation": {"formula": "(pixel / 255 - mean) / std", "mean": 0.5, "std": 0.5},
            "window": {
                "height_share": 0.30,
                "width_share": 0.37,
                "about": "a window centred on the die's box, this share of its longer side "
                "high and wide, scaled to the input's size; one view per turn",
            },
            "turns": 6,
        },
        "output": {
            "name": OUTPUT_NAME,
            "classes": ["blank", *DIGITS],
            "kind": "probabilities (views, time steps, classes)",
        },
        "check": {"largest_difference_from_source": round(difference, 5)},
        "date": date.today().isoformat(),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", type=Path, required=True, help="ch_PP-OCRv4_rec_infer.onnx")
    parser.add_argument("--out", type=Path, default=DEFAULT_NUMERALS_MODEL)
    args = parser.parse_args(argv)
    model = halved(cut_to_digits(onnx.load(str(args.source))))
    onnx.checker.check_model(model)
    onnx.save(model, str(args.out))
    difference = agreement(args.source, args.out)
    path = args.out.with_suffix(".json")
    made = card(args.out, difference)
    if path.exists():  # what was measured with it stays (the file is made the same each time)
        made["metrics"] = json.loads(path.read_text(encoding="utf-8")).get("metrics", {})
    path.write_text(json.dumps(made, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(
        f"{args.out}: {args.out.stat().st_size / 1e6:.1f} MB, largest difference {difference:.5f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
