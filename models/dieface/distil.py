"""A narrower die-face net taught by the shipped one (knowledge distillation), and a wider
one started from a checkpoint so that it computes what the checkpoint does (:func:`widened`).

Why: on a machine without AVX-512 VNNI the int8 kernels saturate (docs/speed.md), so the
model ships as float32, and there ten crops of the full-width net take ~18 ms on one core,
not the 10 ms issue #4 asks for. A net with fewer channels costs less in proportion. It is
started from the shipped model's own filters (the strongest of each layer, as pruning
does) and taught to give the shipped model's probabilities as well as the labels. The
shipped model also learned from photoreal renders this machine may not hold, and its
probabilities carry some of that to the student on every crop it is shown.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from onnx import numpy_helper
from torch import nn

from models.dieface import spec
from models.dieface.net import DieFaceNet, grown_head


def _convs_of(features: nn.Sequential) -> list[tuple[nn.Conv2d, nn.BatchNorm2d]]:
    """Each conv of a trunk with the batch norm that follows it."""
    layers = list(features)
    return [
        (layer, layers[i + 1]) for i, layer in enumerate(layers) if isinstance(layer, nn.Conv2d)
    ]


def onnx_layers(
    path: Path,
) -> tuple[list[tuple[np.ndarray, np.ndarray]], dict[str, tuple[np.ndarray, np.ndarray]]]:
    """The (weight, bias) of every Conv of an exported model, in order, and of every Gemm by
    its module path ("kind", "head/head.1"): what is needed to rebuild a model whose
    checkpoint is gone; an int8 file is read through its float copy (``int8.dequantise``),
    a pair (models/dieface/pair.py) as its small net. ValueError for a file that is not ONNX."""
    try:
        model = onnx.load(str(path))
    except OSError:
        raise
    except Exception as exc:  # protobuf raises its own types for a file that is not ONNX
        raise ValueError(f"{path}: not an ONNX file ({exc})") from None
    from models.dieface.pair import small_part  # pair.py imports this module's users

    small = small_part(model)
    if small is not None:  # its partner is no small net
        with tempfile.TemporaryDirectory() as folder:
            part = Path(folder) / path.name
            onnx.save(small, str(part))
            return onnx_layers(part)
    graph = model.graph
    if any(node.op_type == "DequantizeLinear" for node in graph.node):
        from models.dieface.int8 import dequantise

        with tempfile.TemporaryDirectory() as folder:
            float_copy = Path(folder) / path.name
            dequantise(path, float_copy)
            return onnx_layers(float_copy)
    stored = {t.name: numpy_helper.to_array(t) for t in graph.initializer}

    def pair(node: onnx.NodeProto) -> tuple[np.ndarray, np.ndarray]:
        return np.array(stored[node.input[1]], np.float32), np.array(
            stored[node.input[2]], np.float32
        )

    try:
        convs = [pair(n) for n in graph.node if n.op_type == "Conv"]
        gemms = {
            n.name.strip("/").removesuffix("/Gemm"): pair(n)
            for n in graph.node
            if n.op_type == "Gemm"
        }
    except (KeyError, IndexError) as exc:
        raise ValueError(f"{path}: weights not stored as initialisers ({exc!r})") from None
    return convs, gemms


def trunk_widths(convs: list[tuple[np.ndarray, np.ndarray]]) -> tuple[int, int, int, int]:
    """The widths (``net.py``) of the trunk whose six convs these are; ValueError else."""
    if len(convs) != 6:
        raise ValueError(f"{len(convs)} convs, not the trunk's six")
    a, b, c, _, d, _ = (int(w.shape[0]) for w, _ in convs)
    return a, b, c, d


class AtSide(nn.Module):
    """A net that learned on ``side`` px crops, handed crops of another side: they are resized
    to ``side`` first (averaged down, or stretched up), so a teacher reads dice at the scale
    it learned them."""

    def __init__(self, net: nn.Module, side: int) -> None:
        super().__init__()
        self.net, self.side = net, side

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        if x.shape[-1] > self.side:
            x = F.interpolate(x, size=(self.side, self.side), mode="area")
        elif x.shape[-1] < self.side:
            x = F.interpolate(x, size=(self.side, self.side), mode="bilinear", align_corners=False)
        return self.net(x)


def load_trunk(features: nn.Sequential, convs: list[tuple[np.ndarray, np.ndarray]]) -> None:
    """Put exported convs (batch norms folded in by the export) into a die-face trunk: each
    batch norm then passes its conv's bias on unchanged. ValueError when the shapes differ."""
    layers = _convs_of(features)
    if len(layers) != len(convs):
        raise ValueError(f"{len(convs)} convs where the trunk has {len(layers)}")
    for (conv, norm), (weight, bias) in zip(layers, convs, strict=True):
        if conv.weight.shape != weight.shape:
            raise ValueError(f"a conv of shape {weight.shape}, not {tuple(conv.weight.shape)}")
        conv.weight.data = torch.from_numpy(weight)
        norm.weight.data.fill_(1.0)
        norm.bias.data = torch.from_numpy(bias)
        norm.running_mean.zero_()
        norm.running_var.fill_(1.0 - norm.eps)


def load_linear(layer: nn.Linear, weights: tuple[np.ndarray | torch.Tensor, ...]) -> None:
    """An exported Gemm's weight and bias into ``layer``; ValueError when the shapes differ."""
    weight, bias = (torch.as_tensor(w) for w in weights)
    if layer.weight.shape != weight.shape:
        raise ValueError(f"a layer of shape {tuple(weight.shape)}, not {tuple(layer.weight.shape)}")
    layer.weight.data, layer.bias.data = weight, bias


def from_onnx(path: Path) -> DieFaceNet:
    """The float die-face ONNX file as a torch net in eval mode, so that a model whose
    checkpoint is gone can still teach. ValueError for a file whose layers are not the
    die-face net's."""
    convs, gemms = onnx_layers(path)
    try:
        model = DieFaceNet(trunk_widths(convs))
        load_trunk(model.features, convs)
        for name, head in model.heads.items():
            weight, bias = (torch.from_numpy(w) for w in gemms[name])
            load_linear(head, grown_head(weight, bias, head.out_features))
    except (KeyError, ValueError) as exc:
        raise ValueError(f"{path}: not a float die-face model ({exc!r})") from None
    return model.eval()


def slim_trunk(teacher: nn.Sequential, student: nn.Sequential) -> torch.Tensor:
    """Fill a narrower trunk from a wider one: every layer keeps the teacher's filters of
    largest L1 norm (scaled by their batch norm's gain) and the matching input channels of
    the next layer. Returns the teacher channels the last layer kept, for the head."""
    kept = torch.arange(spec.CHANNELS)
    for (t_conv, t_norm), (s_conv, s_norm) in zip(
        _convs_of(teacher), _convs_of(student), strict=True
    ):
        gain = (t_norm.weight / torch.sqrt(t_norm.running_var + t_norm.eps)).abs()
        strength = t_conv.weight.detach().abs().sum(dim=(1, 2, 3)) * gain.detach()
        chosen = torch.sort(strength.argsort(descending=True)[: s_conv.out_channels]).values
        s_conv.weight.data = t_conv.weight.data[chosen][:, kept].clone()
        for name in ("weight", "bias", "running_mean", "running_var"):
            getattr(s_norm, name).data = getattr(t_norm, name).data[chosen].clone()
        kept = chosen
    return kept


def slimmed(teacher: DieFaceNet, widths: tuple[int, int, int, int]) -> DieFaceNet:
    """A die-face net of ``widths`` started from the teacher's strongest filters
    (:func:`slim_trunk`), its heads reading the kept features: a start far closer to the
    teacher than random weights."""
    student = DieFaceNet(widths)
    kept = slim_trunk(teacher.features, student.features)
    for name, head in student.heads.items():
        head.weight.data = teacher.heads[name].weight.data[:, kept].clone()
        head.bias.data = teacher.heads[name].bias.data.clone()
    return student


def widened(
    net: DieFaceNet, widths: tuple[int, int, int, int], noise: float = 0.02, seed: int = 0
) -> DieFaceNet:
    """A wider die-face net that computes what ``net`` does (Net2WiderNet, Chen et al.
    2016): each added channel copies one of the layer's own, filter and batch norm, and the
    next layer reads every copy of a channel at an equal share of its weight. Convs, norms,
    ReLU and max pooling act channel by channel, so the copies stay equal unless their
    outgoing weights differ: ``noise`` (relative, Gaussian) on the shares lets them learn
    apart while the start keeps the narrow net's answers."""
    wider = DieFaceNet(widths)
    generator = torch.Generator().manual_seed(seed)

    def shares(weight: torch.Tensor, copies: torch.Tensor, of: torch.Tensor) -> torch.Tensor:
        """``weight``'s input channels ``of`` (dim 1), each divided among its copies."""
        taken = weight[:, of] / copies[of].view(1, -1, *[1] * (weight.ndim - 2))
        shared = (copies[of] > 1).view(1, -1, *[1] * (weight.ndim - 2))
        jitter = 1 + noise * torch.randn(taken.shape, generator=generator)
        return torch.where(shared, taken * jitter, taken).clone()

    of = torch.arange(spec.CHANNELS)
    copies = torch.ones(spec.CHANNELS)
    for (conv, norm), (w_conv, w_norm) in zip(
        _convs_of(net.features), _convs_of(wider.features), strict=True
    ):
        n, m = conv.out_channels, w_conv.out_channels
        pick = torch.cat([torch.arange(n), torch.randint(n, (m - n,), generator=generator)])
        w_conv.weight.data = shares(conv.weight.data, copies, of)[pick]
        for name in ("weight", "bias", "running_mean", "running_var"):
            getattr(w_norm, name).data = getattr(norm, name).data[pick].clone()
        of, copies = pick, torch.bincount(pick, minlength=n).float()
    for name, head in wider.heads.items():
        head.weight.data = shares(net.heads[name].weight.data, copies, of)
        head.bias.data = net.heads[name].bias.data.clone()
    return wider


def resized(net: DieFaceNet, widths: tuple[int, int, int, int]) -> DieFaceNet:
    """``net`` at other ``widths``: the same net, :func:`widened` where every width is at
    least its own, :func:`slimmed` where every width is at most; ValueError otherwise."""
    own = DieFaceNet.widths_of(net.state_dict())
    if tuple(widths) == own:
        return net
    if all(w >= o for w, o in zip(widths, own, strict=True)):
        return widened(net, widths)
    if all(w <= o for w, o in zip(widths, own, strict=True)):
        return slimmed(net, widths)
    raise ValueError(
        f"widths {' '.join(map(str, widths))} are neither all wider nor all narrower than "
        f"the start's {' '.join(map(str, own))}"
    )


def agrees(teacher: tuple[torch.Tensor, ...], labels: dict[str, torch.Tensor]) -> torch.Tensor:
    """Which crops (N,) the teacher reads as their labels say, on every head labelled: it
    teaches only those, so it cannot hold the student to its mistakes on a new look."""
    right = torch.ones(len(teacher[0]), dtype=torch.bool, device=teacher[0].device)
    for name, logits in zip(spec.HEADS, teacher, strict=True):
        label = labels[name]
        right &= (label == spec.UNKNOWN) | (logits.argmax(1) == label)
    return right


def distillation_loss(
    student: tuple[torch.Tensor, ...],
    teacher: tuple[torch.Tensor, ...],
    temperature: float,
    taught: torch.Tensor | None = None,
) -> torch.Tensor:
    """Summed over the heads: how far the student's softened probabilities are from the
    teacher's (KL divergence, times temperature squared so its gradients keep the scale of
    the labels' cross-entropy). Every crop counts, labelled or not, or only those ``taught``
    marks (none marked: zero)."""
    if taught is not None:
        if not taught.any():
            return student[0].sum() * 0.0
        student = tuple(s[taught] for s in student)
        teacher = tuple(t[taught] for t in teacher)
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
