"""A narrower die-face net taught by the shipped one (knowledge distillation).

Why: on a machine without AVX-512 VNNI the int8 kernels saturate (README, "Speed"), so the
model ships as float32, and there ten crops of the full-width net take ~18 ms on one core,
not the 10 ms the card promises. A net with fewer channels costs less in proportion. It is
started from the shipped model's own filters (the strongest of each layer, as pruning
does) and taught to give the shipped model's probabilities as well as the labels. The
shipped model also learned from photoreal renders this machine may not hold, and its
probabilities carry some of that to the student on every crop it is shown.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from onnx import numpy_helper
from torch import nn

from models import spec
from models.net import DieFaceNet


def _convs(model: DieFaceNet) -> list[tuple[nn.Conv2d, nn.BatchNorm2d]]:
    layers = list(model.features)
    return [
        (layer, layers[i + 1]) for i, layer in enumerate(layers) if isinstance(layer, nn.Conv2d)
    ]


def from_onnx(path: Path) -> DieFaceNet:
    """The float die-face ONNX file as a torch net in eval mode (its batch norms folded into
    the convs by the export: here each one passes its conv's bias on unchanged), so that a
    model whose checkpoint is gone can still teach. Raises ValueError for a file whose
    layers are not the die-face net's."""
    try:
        graph = onnx.load(str(path)).graph
    except OSError:
        raise
    except Exception as exc:  # protobuf raises its own types for a file that is not ONNX
        raise ValueError(f"{path}: not an ONNX file ({exc})") from None
    stored = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    convs = [n for n in graph.node if n.op_type == "Conv"]
    gemms = {n.name.strip("/").split("/")[0]: n for n in graph.node if n.op_type == "Gemm"}
    try:
        weights = [stored[n.input[1]] for n in convs]
        a, b, c, _, d, _ = (int(w.shape[0]) for w in weights)
        model = DieFaceNet((a, b, c, d))
        for (conv, norm), node, weight in zip(_convs(model), convs, weights, strict=True):
            conv.weight.data = torch.from_numpy(np.array(weight, np.float32))
            norm.weight.data.fill_(1.0)
            norm.bias.data = torch.from_numpy(np.array(stored[node.input[2]], np.float32))
            norm.running_mean.zero_()
            norm.running_var.fill_(1.0 - norm.eps)
        for name, head in model.heads.items():
            node = gemms[name]
            head.weight.data = torch.from_numpy(np.array(stored[node.input[1]], np.float32))
            head.bias.data = torch.from_numpy(np.array(stored[node.input[2]], np.float32))
    except (KeyError, IndexError, RuntimeError, TypeError, ValueError) as exc:
        raise ValueError(f"{path}: not a float die-face model ({exc!r})") from None
    return model.eval()


def slimmed(teacher: DieFaceNet, widths: tuple[int, int, int, int]) -> DieFaceNet:
    """A net of ``widths`` whose every layer keeps the teacher's filters of largest L1 norm
    (scaled by their batch norm's gain) and the matching input channels of the next layer:
    a start that already reads dice, far closer to the teacher than random weights."""
    student = DieFaceNet(widths)
    kept = torch.arange(spec.CHANNELS)
    for (t_conv, t_norm), (s_conv, s_norm) in zip(_convs(teacher), _convs(student), strict=True):
        gain = (t_norm.weight / torch.sqrt(t_norm.running_var + t_norm.eps)).abs()
        strength = t_conv.weight.detach().abs().sum(dim=(1, 2, 3)) * gain.detach()
        chosen = torch.sort(strength.argsort(descending=True)[: s_conv.out_channels]).values
        s_conv.weight.data = t_conv.weight.data[chosen][:, kept].clone()
        for name in ("weight", "bias", "running_mean", "running_var"):
            getattr(s_norm, name).data = getattr(t_norm, name).data[chosen].clone()
        kept = chosen
    for name, head in student.heads.items():
        head.weight.data = teacher.heads[name].weight.data[:, kept].clone()
        head.bias.data = teacher.heads[name].bias.data.clone()
    return student


def distillation_loss(
    student: tuple[torch.Tensor, ...], teacher: tuple[torch.Tensor, ...], temperature: float
) -> torch.Tensor:
    """Summed over the heads: how far the student's softened probabilities are from the
    teacher's (KL divergence, times temperature squared so its gradients keep the scale of
    the labels' cross-entropy). Every crop counts, labelled or not."""
    terms = [
        F.kl_div(
            F.log_softmax(s / temperature, dim=1),
            F.log_softmax(t / temperature, dim=1),
            log_target=True,
            reduction="batchmean",
        )
        for s, t in zip(student, teacher, strict=True)
    ]
    return torch.stack(terms).sum() * temperature**2
