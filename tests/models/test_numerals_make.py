"""models/numerals/make.py on a small recogniser of the same shape as PP-OCRv4's (a MatMul,
an Add and a Softmax over a dictionary in the model's metadata): the cut keeps the blank
and the ten digits, in order, and computes what the full model does over those."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

try:
    import onnx
    from onnx import TensorProto, helper, numpy_helper
except ImportError as exc:  # the train extra
    raise ImportError(
        "tests/models/test_numerals_make.py needs: pip install -e '.[dev,train]'"
    ) from exc

import onnxruntime as ort

from models.numerals.make import agreement, cut_to_digits, digit_rows, halved

CHARACTERS = ["a", "7", "b", "0", "1", "2", "3", "4", "5", "6", "c", "8", "9", "d"]


def recogniser(path: Path, hidden: int = 40) -> Path:
    """Views (N, 3, 4, 5) → (N, 5, classes) probabilities: each column of the view is a time
    step; weights are constants, as in the exported recogniser."""
    rng = np.random.default_rng(0)
    classes = len(CHARACTERS) + 1
    weights = rng.normal(size=(12, hidden)).astype(np.float32)
    out = rng.normal(size=(hidden, classes)).astype(np.float32)
    bias = rng.normal(size=classes).astype(np.float32)
    nodes = [
        helper.make_node("Constant", [], ["w1"], value=numpy_helper.from_array(weights, "w1")),
        helper.make_node(
            "Constant",
            [],
            ["shape"],
            value=numpy_helper.from_array(np.array([0, 12, 5], np.int64), "shape"),
        ),
        helper.make_node("Reshape", ["x", "shape"], ["columns"]),
        helper.make_node("Transpose", ["columns"], ["steps"], perm=[0, 2, 1]),
        helper.make_node("MatMul", ["steps", "w1"], ["hidden"]),
        helper.make_node("Constant", [], ["w2"], value=numpy_helper.from_array(out, "w2")),
        helper.make_node("Constant", [], ["b2"], value=numpy_helper.from_array(bias, "b2")),
        helper.make_node("MatMul", ["hidden", "w2"], ["logits"]),
        helper.make_node("Add", ["logits", "b2"], ["scores"]),
        helper.make_node("Softmax", ["scores"], ["probabilities"], axis=2),
    ]
    graph = helper.make_graph(
        nodes,
        "tiny",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 3, 4, 5])],
        [helper.make_tensor_value_info("probabilities", TensorProto.FLOAT, ["n", 5, classes])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 12)])
    model.metadata_props.add(key="character", value="\n".join(CHARACTERS))
    onnx.save(model, str(path))
    return path


def test_the_rows_kept_are_the_blank_and_the_digits_in_order(tmp_path: Path) -> None:
    model = onnx.load(str(recogniser(tmp_path / "full.onnx")))
    rows = digit_rows(model)
    assert rows[0] == 0
    assert [CHARACTERS[r - 1] for r in rows[1:]] == list("0123456789")


def test_the_cut_model_computes_the_full_ones_digits_renormalised(tmp_path: Path) -> None:
    full = recogniser(tmp_path / "full.onnx")
    cut = tmp_path / "cut.onnx"
    onnx.save(halved(cut_to_digits(onnx.load(str(full)))), str(cut))
    session = ort.InferenceSession(str(cut), providers=["CPUExecutionProvider"])
    assert [o.name for o in session.get_outputs()] == ["digits"]
    views = np.random.default_rng(1).uniform(-1, 1, (2, 3, 4, 5)).astype(np.float32)
    assert session.run(None, {"x": views})[0].shape == (2, 5, 11)
    assert agreement(full, cut, views=views) < 2e-3  # float16 weights


def test_only_large_constants_are_stored_in_half_floats(tmp_path: Path) -> None:
    model = halved(cut_to_digits(onnx.load(str(recogniser(tmp_path / "full.onnx", hidden=100)))))
    kinds = {
        n.output[0]: n.attribute[0].t.data_type for n in model.graph.node if n.op_type == "Constant"
    }
    assert kinds["w1.half"] == kinds["w2.half"] == TensorProto.FLOAT16  # 1,200 and 1,100
    assert kinds["b2"] == TensorProto.FLOAT and kinds["shape"] == TensorProto.INT64  # 11, 3
    assert "w1" not in kinds and "w2" not in kinds  # each cast back from its half


def test_a_model_that_is_not_a_recogniser_is_refused(tmp_path: Path) -> None:
    model = onnx.load(str(recogniser(tmp_path / "full.onnx")))
    model.graph.node[-1].op_type = "Relu"
    with pytest.raises(ValueError, match="not PP-OCRv4's recogniser"):
        cut_to_digits(model)
