"""Two exported die-face models read as one: the small net and a partner from another start.

Why: nets trained from one another make the same mistakes, so reading two of them reads no
better; a partner that started from ImageNet's layers (pretrained.Lite0FaceNet) makes other
mistakes on real pips. It learned the d10's numerals less well than the small net, so it
speaks only for the dice the small net reads as d6: each head's logits are
``small + share × P(d6) × (partner − small)``, P(d6) from the small net's kind head. The
``features`` output is the two nets' features side by side (a table's enrolment fits its
head on them). The runtime reads the file as any die-face model: nothing in vision changes.

``python -m models.dieface.pair --small S.onnx --partner P.onnx``: write the pair, measure it,
write its card (both parts' training, credits and commands) and its check crops.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import tempfile
from pathlib import Path
from typing import Any

import onnx
from onnx import compose, helper

from models.common import photos
from models.dieface import evaluate, export, spec
from models.training.card import write_card
from vision.faces import FaceReader
from vision.model_check import write_check

# The partner's share of a d6's logits: chosen on the valid splits and the renders
# (docs/lab-notes.md, "Die-face 2.11.0")
SHARE = 0.35
D6 = spec.HEADS["kind"].index("d6")


def _opset(model: onnx.ModelProto) -> int:
    return next(o.version for o in model.opset_import if o.domain in ("", "ai.onnx"))


def _side(model: onnx.ModelProto) -> int:
    """The side of the square crops a die-face model reads."""
    return int(model.graph.input[0].type.tensor_type.shape.dim[-1].dim_value)


def _resized(crops: str, scale: float, out: str) -> tuple[onnx.NodeProto, onnx.TensorProto]:
    """A Resize of the crops by ``scale`` (linear, half-pixel centres: at a scale of 2/3 each
    pixel nearly the average of the area it covers) and its scales' initialiser."""
    scales = helper.make_tensor(f"{out}_scales", onnx.TensorProto.FLOAT, [4], [1, 1, scale, scale])
    node = helper.make_node(
        "Resize",
        [crops, "", scales.name],
        [out],
        mode="linear",
        coordinate_transformation_mode="half_pixel",
        name=out,
    )
    return node, scales


def pair(small: Path, partner: Path, out: Path, share: float = SHARE) -> None:
    """Write to ``out`` one model that reads a crop with both (see the module's docstring);
    the pair reads the small net's crops, resized for a partner that reads another side.
    ValueError when the two differ in heads or opset."""
    if not 0 < share <= 1:
        raise ValueError(f"the partner's share is in (0, 1]; not {share}")
    a, b = onnx.load(str(small)), onnx.load(str(partner))
    if _opset(a) != _opset(b):
        raise ValueError(f"{small} and {partner} differ in opset: export both with one chain")
    for model, path in ((a, small), (b, partner)):
        names = {o.name for o in model.graph.output}
        if names != {*spec.HEADS, export.FEATURES} or len(model.graph.input) != 1:
            raise ValueError(f"{path}: not a die-face model with features")
    a.ir_version = b.ir_version = max(a.ir_version, b.ir_version)
    merged = compose.merge_models(
        compose.add_prefix(a, "small/"), compose.add_prefix(b, "partner/"), io_map=[]
    )
    graph = merged.graph
    crops = spec.INPUT_NAME
    fed = {"small/" + crops: crops, "partner/" + crops: crops}  # one input feeds both nets
    if _side(b) != _side(a):
        fed["partner/" + crops] = "pair/partner_crops"
        resize, scales = _resized(crops, _side(b) / _side(a), fed["partner/" + crops])
        nodes = [resize, *graph.node]
        del graph.node[:]
        graph.node.extend(nodes)
        graph.initializer.append(scales)
    for node in graph.node:
        node.input[:] = [fed.get(name, name) for name in node.input]
    shape = graph.input[0].type
    del graph.input[:]
    graph.input.append(helper.make_value_info(crops, shape))
    graph.initializer.extend(
        [
            helper.make_tensor("pair/share", onnx.TensorProto.FLOAT, [], [share]),
            helper.make_tensor("pair/d6", onnx.TensorProto.INT64, [1], [D6]),
            helper.make_tensor("pair/d6_end", onnx.TensorProto.INT64, [1], [D6 + 1]),
            helper.make_tensor("pair/axis", onnx.TensorProto.INT64, [1], [1]),
        ]
    )
    graph.node.extend(
        [
            helper.make_node("Softmax", ["small/kind"], ["pair/kind_p"], axis=1),
            helper.make_node(
                "Slice", ["pair/kind_p", "pair/d6", "pair/d6_end", "pair/axis"], ["pair/p_d6"]
            ),
            helper.make_node("Mul", ["pair/p_d6", "pair/share"], ["pair/weight"]),
        ]
    )
    for head in spec.HEADS:
        graph.node.extend(
            [
                helper.make_node("Sub", [f"partner/{head}", f"small/{head}"], [f"pair/{head}_d"]),
                helper.make_node("Mul", [f"pair/{head}_d", "pair/weight"], [f"pair/{head}_w"]),
                helper.make_node("Add", [f"small/{head}", f"pair/{head}_w"], [head]),
            ]
        )
    graph.node.append(
        helper.make_node(
            "Concat",
            [f"small/{export.FEATURES}", f"partner/{export.FEATURES}"],
            [export.FEATURES],
            axis=1,
        )
    )
    graph.value_info.extend(graph.output)  # the parts' outputs: what small_part takes out
    del graph.output[:]
    for head, classes in spec.HEADS.items():
        graph.output.append(
            helper.make_tensor_value_info(head, onnx.TensorProto.FLOAT, ["batch", len(classes)])
        )
    graph.output.append(
        helper.make_tensor_value_info(
            export.FEATURES, onnx.TensorProto.FLOAT, ["batch", "features"]
        )
    )
    onnx.checker.check_model(merged)
    out.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(merged, str(out))


def part(model: onnx.ModelProto, name: str) -> onnx.ModelProto | None:
    """One net of a pair, ``name`` "small" or "partner", as it was before pairing (None when
    ``model`` is no pair)."""
    prefix = f"{name}/"
    made = {output for node in model.graph.node for output in node.output}
    if f"{prefix}{export.FEATURES}" not in made:
        return None
    extracted = onnx.utils.Extractor(model).extract_model(
        [spec.INPUT_NAME], [prefix + output for output in (*spec.HEADS, export.FEATURES)]
    )

    def bare(tensor: str) -> str:
        return tensor.removeprefix(prefix)

    for node in extracted.graph.node:
        node.name = bare(node.name)
        node.input[:] = [bare(n) for n in node.input]
        node.output[:] = [bare(n) for n in node.output]
    for tensor in extracted.graph.initializer:
        tensor.name = bare(tensor.name)
    for info in (*extracted.graph.output, *extracted.graph.value_info):
        info.name = bare(info.name)
    return extracted


def small_part(model: onnx.ModelProto) -> onnx.ModelProto | None:
    """The small net of a pair (None when ``model`` is no pair): what teaches or starts a
    training, since the partner is no small net."""
    return part(model, "small")


def _part(path: Path) -> dict[str, Any]:
    """What the pair's card says of one part: its card's version, weights, training and
    commands, and the digest of the file it was taken from."""
    card = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
    return {
        "version": card["version"],
        "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
        "weights": card["weights"],
        "parameters": card["parameters"],
        "agreement": card["export"]["max_abs_logit_difference_torch_vs_onnxruntime"],
        "training": card["training"],
        "reproduce": {k: card["metrics"]["reproduce"][k] for k in ("train", "export")},
        "metrics": {k: card["metrics"][k]["accuracy"] for k in ("rune55_valid", "rune55_test")},
    }


def partner_from(path: Path, folder: Path) -> tuple[Path, dict[str, Any]]:
    """The partner's file and what its card says of it: ``path`` itself, or, when ``path``
    is a pair (a shipped model), its partner written into ``folder`` and the pair's card's
    word on it: so a new small net can be paired with the partner already shipped."""
    inside = part(onnx.load(str(path)), "partner")
    if inside is None:
        return path, _part(path)
    card = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
    said = dict(card["training"]["partner"])
    said["agreement"] = card["export"]["max_abs_logit_difference_torch_vs_onnxruntime"]["partner"]
    taken = folder / "partner.onnx"
    onnx.save(inside, str(taken))
    return taken, said


def main(argv: list[str] | None = None) -> int:
    """``python -m models.dieface.pair --small S.onnx --partner P.onnx [--share X]``: write the
    pair to ``--out`` (default the shipped model), its card and its check crops."""
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--small", type=Path, required=True, help="the small net (its card beside)")
    parser.add_argument(
        "--partner",
        type=Path,
        required=True,
        help="the partner (its card beside), or a pair whose partner is taken",
    )
    parser.add_argument("--share", type=float, default=SHARE, help="the partner's share of a d6")
    parser.add_argument("--out", type=Path, default=export.ONNX_PATH)
    parser.add_argument("--data", type=Path, default=None, help="the rune55-d6 folder")
    export.add_card_options(parser)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        try:
            small = _part(args.small)
            partner_file, partner = partner_from(args.partner, Path(tmp))
        except (OSError, KeyError, ValueError) as exc:
            raise SystemExit(
                f"--small and --partner are exported die-face models, cards beside: {exc!r}"
            ) from None
        partner.pop("version", None)  # never shipped alone: the pair's version is the model's
        side = evaluate.input_side(args.small)
        splits = photos.load_splits(args.data, size=side)
        synthetic = evaluate.held_out(evaluate.SYNTHETIC_SCENES, size=side)
        staged = Path(tmp) / "pair.onnx"
        pair(args.small, partner_file, staged, args.share)
        metrics = export.measure(staged, splits, synthetic)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_bytes(staged.read_bytes())
    command = (
        f"python -m models.dieface.pair --small {args.small} --partner {args.partner} "
        f"--share {args.share} --out {args.out} --name {args.name} --version {args.version}"
    )
    metrics["reproduce"] = {
        "small": small["reproduce"],
        "partner": partner["reproduce"],
        "pair": command,
    } | {
        k: v
        for k, v in export._commands([], command, evaluate.SYNTHETIC_SCENES).items()
        if k not in ("train", "export")
    }
    training = partner["training"]
    agreement = {"small": small.pop("agreement"), "partner": partner.pop("agreement")}
    described = export.card(
        args.out,
        small["parameters"] + partner["parameters"],
        agreement,
        metrics,
        training,
        photos.leakage(splits),
        args.name,
        args.version,
    )
    described["weights"] = (
        f"{small['weights']} in the small net, {partner['weights']} in the partner"
    )
    described["training"] = {
        "pair": (
            f"two die-face models read as one (models/dieface/pair.py): each head's logits "
            f"are the small net's plus {args.share} x P(d6) x (the partner's - the small "
            "net's), P(d6) from the small net's kind head; features: both, side by side"
        ),
        "share": args.share,
        "small": small,
        "partner": partner,
    }
    write_card(args.out, described)
    check = write_check(FaceReader(args.out), export.check_crops(splits, synthetic))
    print(f"wrote {args.out} ({args.out.stat().st_size} bytes) and its card; check crops {check}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
