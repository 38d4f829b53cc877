"""The cocked-die network (vision/cocked.py says why it exists) and its training
augmentation.

The trunk is the die-face net's (same layers, started from its weights): it already knows
dice, felt and light. The head also hears the slant at which the camera sees the die (the
tangent of its angle off the optical axis), since how much side a flat die shows grows with it.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

from models.dieface.net import DieFaceNet

# slants run 0..~0.9; this brings them near the features' scale (and, for the narrow lenses
# model 1.0.0 knew, near the offset x 4 it heard: a fine-tune from it starts sensible)
SLANT_GAIN = 8.0


class CockedNet(nn.Module):
    """(N, 3, S, S) standardised upright BGR crops and (N, 1) slants → (N, 2) logits
    (not cocked, cocked)."""

    def __init__(self, widths: tuple[int, int, int, int] = DieFaceNet.WIDTHS) -> None:
        super().__init__()
        self.features = DieFaceNet(widths).features
        width = self.features[-3].num_features  # the last batch norm's channels
        self.head = nn.Sequential(
            nn.Dropout(0.2), nn.Linear(width + 2, 64), nn.ReLU(inplace=True), nn.Linear(64, 2)
        )

    def forward(self, crops: torch.Tensor, slant: torch.Tensor) -> torch.Tensor:
        return self.head(self.heard(crops, slant))

    def heard(self, crops: torch.Tensor, slant: torch.Tensor) -> torch.Tensor:
        """What the head hears: the pooled features and the two slant terms."""
        pooled = self.features(crops).mean(dim=(2, 3))
        r = slant.reshape(-1, 1) * SLANT_GAIN
        return torch.cat([pooled, r, r * r], dim=1)


class WithHidden(CockedNet):
    """The net as exported: its logits and its head's hidden layer, on which a table's own
    last layer is fitted (vision/cocked.py). The head runs as one module, so its layers keep
    their names in the ONNX file (models/cocked/train.py from_onnx reads them by name)."""

    @classmethod
    def of(cls, net: CockedNet) -> WithHidden:
        copy = cls(DieFaceNet.widths_of(net.state_dict()))
        copy.load_state_dict(net.state_dict())
        return copy

    def forward(
        self, crops: torch.Tensor, slant: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:  # type: ignore[override]
        heard: list[torch.Tensor] = []  # the ReLU's output, caught as the head runs whole
        hook = self.head[2].register_forward_hook(lambda _m, _i, out: heard.append(out))
        try:
            logits = self.head(self.heard(crops, slant))
        finally:
            hook.remove()
        return logits, heard[0]


def augment(x: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
    """Small changes of a float (N, 3, S, S) batch in [0, 1] that keep what the model reads.

    Only mirrored about the upright axis and turned by up to ±8°: a larger turn would move
    the slant side away from the bottom of the crop, which is the point of cutting it upright.
    """
    n = x.shape[0]

    def uniform(low: float, high: float) -> torch.Tensor:
        return torch.rand(n, generator=generator) * (high - low) + low

    angle, scale = uniform(-0.14, 0.14), uniform(0.9, 1.1)
    flip = torch.where(torch.rand(n, generator=generator) < 0.5, -1.0, 1.0)
    cos, sin = torch.cos(angle) / scale, torch.sin(angle) / scale
    theta = torch.zeros(n, 2, 3)
    theta[:, 0, 0], theta[:, 0, 1] = cos * flip, -sin
    theta[:, 1, 0], theta[:, 1, 1] = sin * flip, cos
    theta[:, 0, 2], theta[:, 1, 2] = uniform(-0.1, 0.1), uniform(-0.1, 0.1)
    grid = F.affine_grid(theta, list(x.shape), align_corners=False)
    x = F.grid_sample(x, grid, padding_mode="reflection", align_corners=False)
    tint = 1 + (torch.rand(n, 3, 1, 1, generator=generator) * 2 - 1) * 0.1
    x = x * uniform(0.85, 1.15).view(n, 1, 1, 1) * tint
    grey = torch.rand(n, generator=generator) < 0.15
    if grey.any():
        weights = torch.tensor([0.114, 0.587, 0.299]).view(1, 3, 1, 1)
        x[grey] = (x[grey] * weights).sum(1, keepdim=True).expand(-1, 3, -1, -1)
    mean = x.mean(dim=(1, 2, 3), keepdim=True)
    contrast, brightness = uniform(0.8, 1.25).view(n, 1, 1, 1), uniform(-0.1, 0.1).view(n, 1, 1, 1)
    x = (x - mean) * contrast + mean + brightness
    noise = torch.randn(n, 1, *x.shape[2:], generator=generator)
    return (x + noise * uniform(0.0, 0.03).view(n, 1, 1, 1)).clamp(0.0, 1.0)
