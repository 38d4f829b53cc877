"""The die-face model's training augmentation, on the batch in torch: turns, flips, colour and
light, blur and noise; red and white swapped on the crops whose colour label allows it."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import torch
import torch.nn.functional as F

if TYPE_CHECKING:
    from models.dieface.train import TrainConfig

# the six orders of the B, G, R channels; index 0 keeps them
_PERMUTATIONS = torch.tensor([[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]])


# A crop shown at a lower resolution is shown at this share of its side, at random: 24..44 px
# of a 64 px crop, as much of a crop of any other side (train --input-size).
BLUR_SHARES = (24 / 64, 44 / 64)


def blur_sides(side: int) -> tuple[int, int]:
    """The least and the most side a ``side`` px crop is shown at when blurred."""
    return round(side * BLUR_SHARES[0]), round(side * BLUR_SHARES[1])


def augment(
    images: torch.Tensor,
    mirror: torch.Tensor,
    generator: torch.Generator,
    cfg: TrainConfig,
    upright: torch.Tensor | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Geometry and colour changes of a batch: uint8 (N, H, W, 3) BGR → float (N, 3, H, W) in
    [0, 1], and a mask of the crops whose colours were changed (grey or channels swapped).

    ``mirror`` says which crops may be mirrored; ``upright`` which are turned by at most
    ``cfg.upright_turn`` degrees (a photo held upright: its top face is the one at the top),
    the others by any angle. The border is reflected so rotated corners look like table
    rather than black.
    """
    n, device = images.shape[0], images.device
    x = images.permute(0, 3, 1, 2).float() / 255.0  # channels-last in memory: faster convs

    def rand(*shape: int) -> torch.Tensor:
        return torch.rand(shape, generator=generator, device=device)

    def uniform(low: float, high: float) -> torch.Tensor:
        return rand(n) * (high - low) + low

    def chance(p: float) -> torch.Tensor:
        return rand(n) < p

    angle = uniform(0.0, 2 * math.pi)
    if upright is not None:
        lean = math.radians(cfg.upright_turn)
        angle = torch.where(upright, uniform(-lean, lean), angle)
    scale = uniform(1 - cfg.max_scale, 1 + cfg.max_scale)
    stretch = uniform(1 - cfg.max_stretch, 1 + cfg.max_stretch)
    flip = torch.where(mirror & chance(0.5), -1.0, 1.0)
    cos, sin = torch.cos(angle) / scale, torch.sin(angle) / scale
    theta = torch.zeros(n, 2, 3, device=device)
    theta[:, 0, 0], theta[:, 0, 1] = cos * flip * stretch, -sin * stretch
    theta[:, 1, 0], theta[:, 1, 1] = sin * flip, cos
    theta[:, 0, 2] = uniform(-2 * cfg.max_shift, 2 * cfg.max_shift)  # grid spans [-1, 1]
    theta[:, 1, 2] = uniform(-2 * cfg.max_shift, 2 * cfg.max_shift)
    grid = F.affine_grid(theta, list(x.shape), align_corners=False)
    x = F.grid_sample(x, grid, mode="bilinear", padding_mode="reflection", align_corners=False)
    low = chance(cfg.blur)
    if low.any():
        least, most = blur_sides(x.shape[-1])
        side = int(torch.randint(least, most + 1, (1,), generator=generator, device=device))
        small = F.interpolate(x[low], size=(side, side), mode="area")
        x[low] = F.interpolate(small, size=x.shape[2:], mode="bilinear", align_corners=False)
    swapped = chance(cfg.swap)
    if swapped.any():
        pick = torch.randint(1, 6, (int(swapped.sum()),), generator=generator, device=device)
        order = _PERMUTATIONS.to(device)[pick]
        x[swapped] = torch.gather(x[swapped], 1, order[:, :, None, None].expand_as(x[swapped]))
    gain = uniform(1 - cfg.tint, 1 + cfg.tint).view(n, 1, 1, 1)
    gain = gain * (1 + (rand(n, 3, 1, 1) * 2 - 1) * cfg.tint)
    x.mul_(gain)
    grey = chance(cfg.grey)
    if grey.any():
        weights = torch.tensor([0.114, 0.587, 0.299], device=device).view(1, 3, 1, 1)
        luma = (x[grey] * weights).sum(1, True)
        x[grey] = luma.expand(-1, 3, -1, -1)
    contrast = uniform(1 / cfg.contrast, cfg.contrast).view(n, 1, 1, 1)
    brightness = uniform(-cfg.brightness, cfg.brightness).view(n, 1, 1, 1)
    mean = x.mean(dim=(1, 2, 3), keepdim=True)
    x = (x - mean).mul_(contrast).add_(mean + brightness)
    # sensor noise, the same in the three channels: a third of the random numbers
    noise = torch.randn((n, 1, *x.shape[2:]), generator=generator, device=device)
    x.add_(noise.mul_(uniform(0.0, cfg.max_noise).view(n, 1, 1, 1)))
    return x.clamp_(0.0, 1.0), grey | swapped
