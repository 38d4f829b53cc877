"""A tiny CenterNet-style dice detector: a fully convolutional net, stride-4 output maps.

Outputs (for an input of H x W, both multiples of 32):
- ``heatmap`` (N, 1, H/4, W/4): sigmoid of the centre logit, one Gaussian peak per die;
- ``size`` (N, 2, H/4, W/4): the box width and height in input pixels (``16 * exp(raw)``);
- ``offset`` (N, 2, H/4, W/4): where in its cell the centre lies (0..1, sigmoid).

Training targets follow CenterNet: a Gaussian around each centre (radius from the box size),
a penalty-reduced focal loss on the heatmap and L1 losses for size (in log space) and offset
at the centre cells only. The runtime decoding lives in :mod:`vision.detect`.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from vision.detect import STRIDE

SIZE_UNIT = 16.0


def conv(cin: int, cout: int, stride: int = 1, groups: int = 1, dilation: int = 1) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, stride, dilation, dilation=dilation, groups=groups, bias=False),
        nn.BatchNorm2d(cout),
        nn.ReLU(inplace=True),
    )


def pw(cin: int, cout: int) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(True))


class SepBlock(nn.Module):
    """Depthwise 3x3 + pointwise 1x1, residual when the shapes allow."""

    def __init__(self, cin: int, cout: int, stride: int = 1, dilation: int = 1) -> None:
        super().__init__()
        self.dw = conv(cin, cin, stride, groups=cin, dilation=dilation)
        self.pw = pw(cin, cout)
        self.residual = stride == 1 and cin == cout

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.pw(self.dw(x))
        return x + y if self.residual else y


class DiceNet(nn.Module):
    def __init__(self, width: int = 1) -> None:
        super().__init__()
        c2, c4, c8, c16, c32 = (16 * width, 24 * width, 48 * width, 64 * width, 96 * width)
        self.stem = conv(3, c2, 2)  # /2
        self.s4 = nn.Sequential(conv(c2, c4, 2), SepBlock(c4, c4))  # /4
        self.s8 = nn.Sequential(SepBlock(c4, c8, 2), SepBlock(c8, c8))  # /8
        self.s16 = nn.Sequential(
            SepBlock(c8, c16, 2), SepBlock(c16, c16), SepBlock(c16, c16, dilation=2)
        )  # /16
        self.s32 = nn.Sequential(
            SepBlock(c16, c32, 2), SepBlock(c32, c32), SepBlock(c32, c32, dilation=2)
        )  # /32
        d = 32 * width
        d4 = 24 * width
        self.lat32 = pw(c32, d)
        self.lat16 = pw(c16, d)
        self.lat8 = pw(c8, d)
        self.fuse16 = SepBlock(d, d)
        self.fuse8 = SepBlock(d, d)
        self.lat4 = pw(c4, d4)
        self.up4 = pw(d, d4)
        self.fuse4 = SepBlock(d4, d4)
        self.head = SepBlock(d4, d4)
        self.out = nn.Conv2d(d4, 5, 1)
        nn.init.constant_(self.out.bias, 0.0)
        with torch.no_grad():
            self.out.bias[0] = -math.log((1 - 0.01) / 0.01)  # prior: few centres

    def raw(self, x: torch.Tensor) -> torch.Tensor:
        f4 = self.s4(self.stem(x))
        f8 = self.s8(f4)
        f16 = self.s16(f8)
        f32 = self.s32(f16)
        y = self.lat32(f32)
        y = self.fuse16(self.lat16(f16) + F.interpolate(y, scale_factor=2.0, mode="nearest"))
        y = self.fuse8(self.lat8(f8) + F.interpolate(y, scale_factor=2.0, mode="nearest"))
        y = self.up4(F.interpolate(y, scale_factor=2.0, mode="nearest"))
        y = self.fuse4(self.lat4(f4) + y)
        return self.out(self.head(y))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        raw = self.raw(x)
        heatmap = torch.sigmoid(raw[:, :1])
        size = SIZE_UNIT * torch.exp(raw[:, 1:3].clamp(-6.0, 6.0))
        offset = torch.sigmoid(raw[:, 3:5])
        return heatmap, size, offset


# ---------------------------------------------------------------------------- targets + loss


def gaussian_radius(w: float, h: float, min_overlap: float = 0.7) -> float:
    """CenterNet's radius: how far a corner may move and the box keep ``min_overlap`` IoU."""
    a1 = 1
    b1 = h + w
    c1 = w * h * (1 - min_overlap) / (1 + min_overlap)
    r1 = (b1 + math.sqrt(b1**2 - 4 * a1 * c1)) / 2
    a2 = 4
    b2 = 2 * (h + w)
    c2 = (1 - min_overlap) * w * h
    r2 = (b2 + math.sqrt(b2**2 - 4 * a2 * c2)) / 2
    a3 = 4 * min_overlap
    b3 = -2 * min_overlap * (h + w)
    c3 = (min_overlap - 1) * w * h
    r3 = (b3 + math.sqrt(b3**2 - 4 * a3 * c3)) / 2
    return min(r1, r2, r3)


def make_targets(
    boxes: np.ndarray, height: int, width: int, stride: int = STRIDE, max_objects: int = 64
) -> dict[str, np.ndarray]:
    """Targets of one image of ``height`` x ``width`` input pixels from (n, 4) boxes
    (x0, y0, x1, y1 in input pixels)."""
    oh, ow = height // stride, width // stride
    heat = np.zeros((oh, ow), np.float32)
    index = np.zeros(max_objects, np.int64)
    size = np.zeros((max_objects, 2), np.float32)
    offset = np.zeros((max_objects, 2), np.float32)
    mask = np.zeros(max_objects, np.float32)
    ys, xs = np.mgrid[0:oh, 0:ow].astype(np.float32)
    k = 0
    for x0, y0, x1, y1 in boxes[:max_objects]:
        w, h = x1 - x0, y1 - y0
        if w < 2 or h < 2:
            continue
        cx, cy = (x0 + x1) / 2 / stride, (y0 + y1) / 2 / stride
        ix, iy = int(cx), int(cy)
        if not (0 <= ix < ow and 0 <= iy < oh):
            continue
        radius = max(0.0, gaussian_radius(w / stride, h / stride))
        sigma = (2 * radius + 1) / 6
        g = np.exp(-((xs - ix) ** 2 + (ys - iy) ** 2) / (2 * sigma**2))
        np.maximum(heat, g, out=heat)
        heat[iy, ix] = 1.0
        index[k] = iy * ow + ix
        size[k] = (w, h)
        offset[k] = (cx - ix, cy - iy)
        mask[k] = 1
        k += 1
    return {"heat": heat, "index": index, "size": size, "offset": offset, "mask": mask}


def focal_loss(pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """CenterNet's penalty-reduced focal loss (alpha 2, beta 4), per object."""
    pred = pred.clamp(1e-4, 1 - 1e-4)
    pos = target.eq(1).float()
    neg = 1 - pos
    pos_loss = torch.log(pred) * (1 - pred) ** 2 * pos
    neg_loss = torch.log(1 - pred) * pred**2 * (1 - target) ** 4 * neg
    n = pos.sum()
    return -(pos_loss.sum() + neg_loss.sum()) / n.clamp(min=1.0)


def detector_loss(
    outputs: tuple[torch.Tensor, torch.Tensor, torch.Tensor],
    targets: dict[str, torch.Tensor],
    size_weight: float = 1.0,
    offset_weight: float = 1.0,
) -> tuple[torch.Tensor, dict[str, float]]:
    heatmap, size, offset = outputs
    n, _, oh, ow = heatmap.shape
    hm = focal_loss(heatmap[:, 0], targets["heat"])
    idx = targets["index"]
    mask = targets["mask"].unsqueeze(-1)
    count = mask.sum().clamp(min=1.0)

    def gather(t: torch.Tensor) -> torch.Tensor:
        flat = t.reshape(n, t.shape[1], oh * ow)
        return flat.gather(2, idx.unsqueeze(1).expand(-1, t.shape[1], -1)).transpose(1, 2)

    pred_size = gather(size)
    true_size = targets["size"].clamp(min=1.0)
    size_loss = (torch.abs(torch.log(pred_size) - torch.log(true_size)) * mask).sum() / count
    off_loss = (torch.abs(gather(offset) - targets["offset"]) * mask).sum() / count
    total = hm + size_weight * size_loss + offset_weight * off_loss
    return total, {
        "heat": float(hm.detach()),
        "size": float(size_loss.detach()),
        "offset": float(off_loss.detach()),
    }


def module_scope(path: str) -> str:
    """The ONNX node-name scope torch gives a module's conv: ``s4.1.dw.0`` becomes
    ``/s4/s4.1/dw/dw.0/Conv`` (a Sequential's child is named after its parent)."""
    parts: list[str] = []
    for token in path.split("."):
        parts.append(f"{parts[-1]}.{token}" if token.isdigit() and parts else token)
    return "/" + "/".join(parts) + "/Conv"


def from_onnx(path: Path) -> DiceNet:
    """An exported detector (batch norms folded into its convs) as a torch net to
    fine-tune: each conv's weight and bias by its node's name, each batch norm after it
    passing the bias on unchanged. ValueError for a file whose convs are not the net's."""
    import onnx
    from onnx import numpy_helper

    try:
        graph = onnx.load(str(path)).graph
    except Exception as exc:  # protobuf raises its own types for a file that is not ONNX
        raise ValueError(f"{path}: not an ONNX file ({exc})") from None
    stored = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    convs = {n.name: n for n in graph.node if n.op_type == "Conv"}
    model = DiceNet()
    modules = dict(model.named_modules())
    for name, module in modules.items():
        if not isinstance(module, nn.Conv2d):
            continue
        node = convs.pop(module_scope(name), None)
        if node is None or len(node.input) < 3:
            raise ValueError(f"{path}: no conv with its bias for {name}")
        weight = np.array(stored[node.input[1]], np.float32)
        bias = np.array(stored[node.input[2]], np.float32)
        if tuple(module.weight.shape) != weight.shape:
            raise ValueError(f"{path}: {name} is {weight.shape}, not {tuple(module.weight.shape)}")
        module.weight.data = torch.from_numpy(weight)
        parent, _, index = name.rpartition(".")
        norm = modules.get(f"{parent}.{int(index) + 1}") if index.isdigit() else None
        if isinstance(norm, nn.BatchNorm2d):
            norm.weight.data.fill_(1.0)
            norm.bias.data = torch.from_numpy(bias)
            norm.running_mean.zero_()
            norm.running_var.fill_(1.0 - norm.eps)
        else:
            module.bias.data = torch.from_numpy(bias)
    if convs:
        raise ValueError(f"{path}: convs the net does not have: {sorted(convs)[:3]}")
    return model
