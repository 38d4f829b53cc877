"""The die-face classifier: a small CNN from a 64x64 BGR crop to one set of logits per head
(kind, value, colour, finish, cocked; see ``spec.HEADS``).

Small on purpose: it runs on a Raspberry Pi 4 CPU once per die per throw. Pips and numerals
are high-contrast marks a few pixels wide, so six 3x3 convs are enough (about 33 M
multiply-adds a crop: wider ones broke the 10 ms budget for ten crops on one core); all heads
share them (one pass per die) and each head is a single linear layer on the pooled features.
Global average pooling at the end makes it indifferent to where the face sits in the crop.
The layers are those of 1.x, so a 1.x checkpoint can seed it (models/dieface/train.py load_model).
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from models.dieface.spec import CHANNELS, HEADS, MEAN, STD


def _conv(cin: int, cout: int, stride: int = 1) -> list[nn.Module]:
    """3x3 conv without bias (the batch norm after it has one), BN, ReLU."""
    return [
        nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False),
        nn.BatchNorm2d(cout),
        nn.ReLU(inplace=True),
    ]


class DieFaceNet(nn.Module):
    """(N, 3, 64, 64) standardised BGR crops → a tuple of logits, one per head in
    ``spec.HEADS`` order.

    A strided first conv brings 64x64 to 32x32 at once: marks are several pixels wide, and
    full-resolution layers would cost most of the compute (training runs on two CPU cores).
    """

    WIDTHS = (16, 32, 64, 128)  # the channels of the four widths; 2.x shipped these

    def __init__(self, widths: tuple[int, int, int, int] = WIDTHS):
        super().__init__()
        a, b, c, d = widths
        self.features = nn.Sequential(
            *_conv(CHANNELS, a, stride=2),  # 32x32
            *_conv(a, b),
            nn.MaxPool2d(2),  # 16x16
            *_conv(b, c),
            *_conv(c, c),
            nn.MaxPool2d(2),  # 8x8
            *_conv(c, d),
            *_conv(d, d),
            nn.MaxPool2d(2),  # 4x4
        )
        self.dropout = nn.Dropout(0.2)
        self.heads = nn.ModuleDict({name: nn.Linear(d, len(c)) for name, c in HEADS.items()})

    @staticmethod
    def widths_of(state: dict[str, torch.Tensor]) -> tuple[int, int, int, int]:
        """The widths of a net whose weights are ``state`` (its convs' output channels)."""
        a, b, c, _, d, _ = (
            int(v.shape[0]) for k, v in state.items() if k.startswith("features.") and v.ndim == 4
        )
        return a, b, c, d

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        pooled = self.dropout(self.features(x).mean(dim=(2, 3)))
        return tuple(head(pooled) for head in self.heads.values())


# The bias a head's added class starts at (a model from before ``spec.NO_DIE``): its
# probability starts near zero, so the net still computes what it did.
ADDED_CLASS_BIAS = -8.0


def grown_head(weight: torch.Tensor, bias: torch.Tensor, classes: int) -> tuple[torch.Tensor, ...]:
    """A head's weight and bias with rows added for the classes it lacks (zero weights,
    ``ADDED_CLASS_BIAS``); as they are when it has them all."""
    missing = classes - len(bias)
    if missing <= 0:
        return weight, bias
    rows = torch.zeros(missing, weight.shape[1], dtype=weight.dtype)
    added = torch.full((missing,), ADDED_CLASS_BIAS, dtype=bias.dtype)
    return torch.cat([weight, rows]), torch.cat([bias, added])


def grown_heads(state: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """A checkpoint's weights with every head grown to ``spec.HEADS``' classes."""
    state = dict(state)
    for name, classes in HEADS.items():
        weight, bias = f"heads.{name}.weight", f"heads.{name}.bias"
        if weight in state and bias in state:
            state[weight], state[bias] = grown_head(state[weight], state[bias], len(classes))
    return state


def to_bgr(images: np.ndarray) -> np.ndarray:
    """uint8 crops (N, S, S) grey or (N, S, S, 3) BGR → (N, S, S, 3): grey is repeated into
    the three channels, as OpenCV's COLOR_GRAY2BGR does (Rune55's photos are grey)."""
    return np.repeat(images[..., None], 3, axis=-1) if images.ndim == 3 else images


def normalise(images: np.ndarray | torch.Tensor) -> torch.Tensor:
    """uint8 crops (N, S, S) grey or (N, S, S, 3) BGR → float (N, 3, S, S) standardised."""
    x = torch.as_tensor(to_bgr(np.asarray(images)), dtype=torch.float32)
    return (x.permute(0, 3, 1, 2) / 255.0 - MEAN) / STD
