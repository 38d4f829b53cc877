"""Two die-face models read as one (models/dieface/pair.py): the partner speaks for a d6 only,
its share as the small net's kind head sees a d6; the features are both nets'; the small net
comes back out of the pair as it went in.

Needs the `train` extra, as tests/models/test_train.py (fails, not skips, without it).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
import torch
import torch.nn.functional as F

from models.dieface import evaluate, export, spec
from models.dieface.export import FEATURES, export_onnx
from models.dieface.net import DieFaceNet
from models.dieface.pair import main as pair_main
from models.dieface.pair import pair, partner_from, small_part

OUTPUTS = [*spec.HEADS, FEATURES]


def _net(tmp_path: Path, name: str, seed: int) -> Path:
    torch.manual_seed(seed)
    path = tmp_path / f"{name}.onnx"
    export_onnx(DieFaceNet().eval(), path)
    return path


def _read(path: Path, x: np.ndarray) -> dict[str, np.ndarray]:
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return dict(zip(OUTPUTS, session.run(OUTPUTS, {spec.INPUT_NAME: x}), strict=True))


@pytest.fixture
def parts(tmp_path: Path) -> tuple[Path, Path, Path]:
    small, partner = _net(tmp_path, "small", 0), _net(tmp_path, "partner", 1)
    both = tmp_path / "pair.onnx"
    pair(small, partner, both, share=0.4)
    return small, partner, both


def test_the_partner_speaks_for_a_d6_by_the_small_nets_kind(parts: tuple[Path, Path, Path]) -> None:
    small, partner, both = parts
    x = np.random.default_rng(0).normal(size=(6, 3, 64, 64)).astype(np.float32)
    a, b, read = _read(small, x), _read(partner, x), _read(both, x)
    kind = np.exp(a["kind"] - a["kind"].max(axis=1, keepdims=True))
    d6 = (kind / kind.sum(axis=1, keepdims=True))[:, [spec.HEADS["kind"].index("d6")]]
    assert d6.min() > 0.01 and d6.max() < 0.99  # the share varies: the kind matters here
    for head in spec.HEADS:
        expected = a[head] + 0.4 * d6 * (b[head] - a[head])
        np.testing.assert_allclose(read[head], expected, atol=1e-5)
        assert not np.allclose(read[head], a[head], atol=1e-3)  # the partner did speak
    np.testing.assert_allclose(read[FEATURES], np.hstack([a[FEATURES], b[FEATURES]]), atol=1e-6)


def test_the_small_net_comes_back_out_of_the_pair(parts: tuple[Path, Path, Path]) -> None:
    small, _, both = parts
    part = small_part(onnx.load(str(both)))
    assert part is not None
    out = both.with_name("back.onnx")
    onnx.save(part, str(out))
    x = np.random.default_rng(1).normal(size=(3, 3, 64, 64)).astype(np.float32)
    for name, values in _read(out, x).items():
        np.testing.assert_array_equal(values, _read(small, x)[name])
    assert small_part(onnx.load(str(small))) is None  # no pair: nothing to take out


def test_a_new_small_net_can_be_paired_with_the_partner_of_a_shipped_pair(
    parts: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    _, partner, both = parts
    entry = {"sha256": "ab" * 32, "weights": "float32", "parameters": 7, "training": {}}
    agreement = {"random_16": 1e-6}
    card = {
        "training": {"partner": entry},
        "export": {"max_abs_logit_difference_torch_vs_onnxruntime": {"partner": agreement}},
    }
    both.with_suffix(".json").write_text(json.dumps(card), "utf-8")
    work = tmp_path / "work"
    work.mkdir()
    taken, said = partner_from(both, work)
    assert taken.parent == work
    x = np.random.default_rng(2).normal(size=(3, 3, 64, 64)).astype(np.float32)
    for name, values in _read(taken, x).items():
        np.testing.assert_array_equal(values, _read(partner, x)[name])
    assert said == entry | {"agreement": agreement}


def test_a_pair_refuses_a_model_that_is_no_die_face_model_or_a_share_out_of_range(
    parts: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    small, partner, _ = parts
    bare = onnx.load(str(partner))
    kept = [o for o in bare.graph.output if o.name != FEATURES]
    del bare.graph.output[:]
    bare.graph.output.extend(kept)
    onnx.save(bare, str(tmp_path / "bare.onnx"))
    with pytest.raises(ValueError, match="not a die-face model with features"):
        pair(small, tmp_path / "bare.onnx", tmp_path / "out.onnx")
    with pytest.raises(ValueError, match="share"):
        pair(small, partner, tmp_path / "out.onnx", share=1.5)
    assert not (tmp_path / "out.onnx").exists()


def test_a_pair_is_not_exported_again_as_one_net(parts: tuple[Path, Path, Path]) -> None:
    _, _, both = parts
    both.with_suffix(".json").write_text(json.dumps({"training": {"pair": "two nets"}}), "utf-8")
    with pytest.raises(SystemExit, match=r"models\.dieface\.pair"):
        export._from_onnx(both, both.with_name("float.onnx"))
    assert not both.with_name("float.onnx").exists()


def test_the_pair_command_says_what_is_wrong_with_a_part_without_its_card(
    parts: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    small, partner, _ = parts
    out = tmp_path / "shipped.onnx"
    with pytest.raises(SystemExit, match="cards beside"):
        pair_main(["--small", str(small), "--partner", str(partner), "--out", str(out)])
    assert not out.exists()


def test_a_partner_that_reads_another_side_is_handed_the_crops_resized(tmp_path: Path) -> None:
    torch.manual_seed(0)
    small = tmp_path / "small96.onnx"
    export_onnx(DieFaceNet().eval(), small, 96)
    partner = _net(tmp_path, "partner", 1)  # 64 px crops
    both = tmp_path / "pair.onnx"
    pair(small, partner, both, share=0.4)
    x = np.random.default_rng(3).normal(size=(4, 3, 96, 96)).astype(np.float32)
    shrunk = F.interpolate(torch.from_numpy(x), size=(64, 64), mode="bilinear", align_corners=False)
    a, b, read = _read(small, x), _read(partner, shrunk.numpy()), _read(both, x)
    kind = np.exp(a["kind"] - a["kind"].max(axis=1, keepdims=True))
    d6 = (kind / kind.sum(axis=1, keepdims=True))[:, [spec.HEADS["kind"].index("d6")]]
    for head in spec.HEADS:
        np.testing.assert_allclose(read[head], a[head] + 0.4 * d6 * (b[head] - a[head]), atol=1e-4)
    np.testing.assert_allclose(read[FEATURES], np.hstack([a[FEATURES], b[FEATURES]]), atol=1e-4)
    assert evaluate.input_side(both) == 96  # the pair reads the small net's crops
    part = small_part(onnx.load(str(both)))
    assert part is not None and part.graph.input[0].type.tensor_type.shape.dim[-1].dim_value == 96
