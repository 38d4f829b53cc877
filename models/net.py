"""The die-face classifier: a small CNN from a 64x64 grey crop to the six faces of a d6.

Small on purpose: it runs on a Raspberry Pi 4 CPU once per die per throw, so six 3x3 convs
(about 280 k weights, ~1.1 MB as float32) are enough for pips, which are high-contrast blobs.
Global average pooling at the end makes it indifferent to where the face sits in the crop.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from models.spec import MEAN, STD


def _conv(cin: int, cout: int, stride: int = 1) -> list[nn.Module]:
    """3x3 conv without bias (the batch norm after it has one), BN, ReLU."""
    return [
        nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False),
        nn.BatchNorm2d(cout),
        nn.ReLU(inplace=True),
    ]


class DieFaceNet(nn.Module):
    """(N, 1, 64, 64) standardised crops → (N, 6) logits for faces 1..6.

    A strided first conv brings 64x64 to 32x32 at once: pips are several pixels wide, and the
    full-resolution layers would cost most of the compute (training runs on two CPU cores).
    """

    def __init__(self, widths: tuple[int, int, int, int] = (16, 32, 64, 128), classes: int = 6):
        super().__init__()
        a, b, c, d = widths
        self.features = nn.Sequential(
            *_conv(1, a, stride=2),  # 32x32
            *_conv(a, b),
            nn.MaxPool2d(2),  # 16x16
            *_conv(b, c),
            *_conv(c, c),
            nn.MaxPool2d(2),  # 8x8
            *_conv(c, d),
            *_conv(d, d),
            nn.MaxPool2d(2),  # 4x4
        )
        self.head = nn.Sequential(nn.Dropout(0.2), nn.Linear(d, classes))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.features(x)
        return self.head(x.mean(dim=(2, 3)))


def normalise(images: np.ndarray | torch.Tensor) -> torch.Tensor:
    """uint8 crops (N, H, W) → float (N, 1, H, W) standardised as the model expects."""
    x = torch.as_tensor(images, dtype=torch.float32)
    if x.ndim == 3:
        x = x.unsqueeze(1)
    return (x / 255.0 - MEAN) / STD


def count_parameters(model: nn.Module) -> int:
    """How many weights the model has (the ONNX file is about four bytes each)."""
    return sum(p.numel() for p in model.parameters())
