"""Batch norms for a net rebuilt from its ONNX file, whose export folded them into the convs.

Why: a folded conv carries the norm's scale and shift, so the rebuilt net's norms start as
identities, which is right in eval mode; in train mode they would normalise by the batch's
own statistics and rescale every layer at the first step, undoing what the net learned.
"""

from __future__ import annotations

import torch
from torch import nn


@torch.no_grad()
def restore_norms(model: nn.Module, inputs: list[torch.Tensor]) -> None:
    """Give a net rebuilt from its ONNX file batch norms that train as the original did: each
    norm learns the mean and spread its conv's output has on ``inputs`` (training batches),
    and is set to map them back to that output plus its bias. In eval mode the net computes
    what it did; in train mode, batch statistics near those leave it unchanged too, where
    norms left as identities would rescale every layer at the first step."""
    model.eval()
    stats: dict[nn.Conv2d, list[torch.Tensor]] = {}
    hooks = [
        conv.register_forward_hook(
            lambda module, _i, out: stats.setdefault(module, []).append(
                out.transpose(0, 1).flatten(1)
            )
        )
        for conv, _ in conv_norms(model)
    ]
    for x in inputs:
        model(x)
    for hook in hooks:
        hook.remove()
    for conv, norm in conv_norms(model):
        outputs = torch.cat(stats[conv], dim=1)
        mean, var = outputs.mean(dim=1), outputs.var(dim=1) + norm.eps
        norm.running_mean.copy_(mean)
        norm.running_var.copy_(var - norm.eps)
        bias = norm.bias.clone()  # the folded bias, passed on as it was
        norm.weight.copy_(torch.sqrt(var))
        norm.bias.copy_(mean + bias)


def conv_norms(model: nn.Module) -> list[tuple[nn.Conv2d, nn.BatchNorm2d]]:
    """Each conv of the net with the batch norm that follows it."""
    modules = dict(model.named_modules())
    pairs = []
    for name, module in modules.items():
        parent, _, index = name.rpartition(".")
        if isinstance(module, nn.Conv2d) and index.isdigit():
            norm = modules.get(f"{parent}.{int(index) + 1}")
            if isinstance(norm, nn.BatchNorm2d):
                pairs.append((module, norm))
    return pairs
