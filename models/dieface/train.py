"""Train the die-face CNN on synthetic crops (all heads) and Rune55's real d6 (kind, value).

Every crop carries a label per head, or -1 where its source cannot say (Rune55 photos are
grey d6 of unknown finish): each head's loss is the mean over the crops that have its label.
Dice lie at any angle and the camera sees them at varying size, offset and light, so every
batch is augmented on the fly with one vectorised ``grid_sample`` (rotation by any angle,
scale, stretch, shift; a mirror only for d6, whose pips read the same mirrored, never for a
d10's numerals) and colour changes (grey, channel swaps, tints) that keep the value head
from leaning on colour; a crop made grey or swapped loses its colour label for that step.
The loop, its schedule and its checkpoints are the chain's (models/training): a stopped run
resumes where it stopped, and ``best.pt`` keeps the weights of the epoch with the best score.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from models.common.norms import restore_norms
from models.dieface import distil, spec, synth_crops
from models.dieface.augment import augment
from models.dieface.evaluate import input_side
from models.dieface.net import DieFaceNet, grown_heads, normalise, to_bgr
from models.dieface.pretrained import Lite0FaceNet, is_lite0
from models.dieface.scene_crops import describe_folders, folders_crops
from models.dieface.spec import MEAN, STD
from models.dieface.synth_crops import CropSet
from models.synth.glyphs import font_count
from models.synth.layout import (
    LETTERED_SHARE,
    MARBLED_SHARE,
    NUMBERED_SHARE,
    SLANTED_CAMERA,
    lettered,
    marbled,
    numbered,
)
from models.training import loop
from models.training.loop import Pick, Plan
from models.training.schedule import Schedule

SCENE_SHARE = 0.25  # the part of each epoch that rendered scenes' dice make, when given


@dataclass
class TrainConfig:
    """The knobs of one run; stored in its summary, which the card reads."""

    epochs: int = 12
    batch_size: int = 128
    lr: float = 3e-3
    weight_decay: float = 1e-4
    label_smoothing: float = 0.05
    seed: int = 0
    threads: int = 2
    synthetic: int = 6000  # synthetic training scenes (about 7 dice each)
    epoch_crops: int = 0  # crops drawn at random for each epoch; 0: all of them
    max_scale: float = 0.15  # crops are scaled by 1 ± this
    max_stretch: float = 0.08  # and one axis by 1 ± this more (a die seen at a slant)
    max_shift: float = 0.06  # and shifted by up to this fraction of the crop
    contrast: float = 1.3  # contrast is multiplied by a factor in [1 / this, this]
    brightness: float = 0.12  # brightness is shifted by up to ± this (pixels in [0, 1])
    max_noise: float = 0.03  # Gaussian noise with a standard deviation up to this
    tint: float = 0.15  # each channel is multiplied by 1 ± this
    grey: float = 0.15  # the chance a crop is shown grey (Rune55 is grey anyway)
    swap: float = 0.15  # the chance its channels are shuffled (a red die turns blue or green)
    blur: float = 0.2  # the chance a crop is shown at a lower resolution (24..44 of 64 px)
    scenes: tuple[str, ...] = ()  # rendered scene folders trained on too (train_dieface)
    # > 0: synthetic crops cut as a calibrated appliance cuts them, this share of the scenes
    # seen by a camera as wide as a Pi camera module's (synth_crops.overhead_crops)
    wide_share: float = 0.0
    rune55_repeats: int = 1  # Rune55's train crops appear this many times in each epoch
    colour_repeats: int = 0  # and roboflow-dice-d6's colour photos this many (0: not used)
    # the net's channels (net.py); None: the start's own (--weights), else DieFaceNet.WIDTHS
    widths: tuple[int, int, int, int] | None = None
    # a die-face ONNX file (float or int8) that teaches (distil.py): with no --weights the net
    # starts from its strongest filters, and learns its probabilities beside the labels
    teacher: str = ""
    temperature: float = 2.0  # the softening of the teacher's and the student's logits
    # "small": net.DieFaceNet from scratch; "lite0": pretrained.Lite0FaceNet, ImageNet start
    backbone: str = "small"
    frozen: int = 8  # lite0: its first layers that keep their ImageNet weights (stride 8)
    # scenes seen at a slant, as phone photos are (synth_crops.slanted_crops); with them the
    # photos' crops are kept upright too: both turned by at most upright_turn degrees
    slanted: int = 0
    upright_turn: float = 20.0
    # > 0: what the detector finds on the real photos' train splits, cut as the runtime cuts
    # it, this many times in each epoch: its boxes on no die teach the kind head "none"
    # (found_crops.py); their valid splits are scored as "found_valid"
    found_repeats: int = 0
    # True: a d6's value loss is taken over 1..6 only (value_loss), so the d6 crops, about
    # seven times as many as the d10 ones, no longer push every d10's 7..10 down
    value_over_kind: bool = False
    # the crops' side in pixels: every source is cut at it and the exported model reads it;
    # a larger side keeps more of a slanted d10's small top face, at a cost per crop
    input_size: int = spec.INPUT_SIZE
    # True: the scene folders' dice alone, the epoch picked on their held-out tenth: a
    # reader of one renderer's camera view (tried for slanted photos: docs/lab-notes.md)
    scenes_only: bool = False


def rune55_set(images: np.ndarray, labels: np.ndarray) -> CropSet:
    """Rune55 crops (grey, face index 0..5) as a CropSet: BGR, kind d6, other heads unknown."""
    unknown = np.full(len(labels), spec.UNKNOWN, np.int64)
    heads = {name: unknown for name in spec.HEADS}
    heads |= {"kind": np.zeros(len(labels), np.int64), "value": labels.astype(np.int64)}
    return CropSet(to_bgr(images), heads)


def head_losses(
    outputs: Sequence[torch.Tensor],
    labels: dict[str, torch.Tensor],
    smoothing: float,
    value_over_kind: bool = False,
) -> dict[str, torch.Tensor]:
    """Cross-entropy of each head over the crops that carry its label (none: no term).

    The value head is cross-entropy over all ten values for d6 and d10 alike, unless
    ``value_over_kind``: then a crop labelled d6 is scored over its own six values only
    (:func:`value_loss`), as the runtime reads it.
    """
    losses = {}
    for name, logits in zip(spec.HEADS, outputs, strict=True):
        known = labels[name] != spec.UNKNOWN
        if not known.any():
            continue
        if name == "value" and value_over_kind:
            d6 = labels["kind"][known] == spec.KINDS.index("d6")
            losses[name] = value_loss(logits[known], labels[name][known], d6, smoothing)
        else:
            losses[name] = F.cross_entropy(
                logits[known], labels[name][known], label_smoothing=smoothing
            )
    return losses


def value_loss(
    logits: torch.Tensor, target: torch.Tensor, d6: torch.Tensor, smoothing: float
) -> torch.Tensor:
    """Label-smoothed cross-entropy of the value head where each ``d6`` row is a softmax over
    values 1..6 only: its logits of 7..10 get no gradient from it."""
    faces = torch.where(d6, 6, len(spec.VALUES))
    allowed = torch.arange(logits.shape[1], device=logits.device)[None, :] < faces[:, None]
    log_p = torch.log_softmax(logits.masked_fill(~allowed, -torch.inf), dim=1)
    nll = -log_p.gather(1, target[:, None]).squeeze(1)
    spread = -torch.where(allowed, log_p, 0.0).sum(1) / faces
    return ((1 - smoothing) * nll + smoothing * spread).mean()


def batch_loss(
    model: nn.Module,
    images: torch.Tensor,
    labels: dict[str, torch.Tensor],
    generator: torch.Generator,
    cfg: TrainConfig,
    teacher: nn.Module | None = None,
    upright: torch.Tensor | None = None,
) -> torch.Tensor:
    """The summed loss of the heads (and of the teacher's probabilities, when one teaches)
    on an augmented batch. The teacher teaches only the crops it reads as labelled, and not
    those ``upright`` marks (turned only a little): it learned dice seen from straight
    above, and reads a slanted die by its front face."""
    x, recoloured = augment(images, labels["kind"] == 0, generator, cfg, upright)
    labels = labels | {"colour": torch.where(recoloured, spec.UNKNOWN, labels["colour"])}
    x = (x - MEAN) / STD
    outputs = model(x)
    losses = head_losses(outputs, labels, cfg.label_smoothing, cfg.value_over_kind)
    if teacher is not None:
        with torch.no_grad():
            taught = teacher(x)
        right = distil.agrees(taught, labels)
        right = right if upright is None else right & ~upright
        losses["teacher"] = distil.distillation_loss(outputs, taught, cfg.temperature, right)
    return torch.stack(list(losses.values())).sum()


@torch.no_grad()
def predict(model: nn.Module, images: np.ndarray, batch_size: int = 512) -> dict[str, np.ndarray]:
    """Each head's class index for uint8 crops (N, S, S[, 3]), in eval mode."""
    model.eval()
    device = next(model.parameters()).device
    parts: dict[str, list[np.ndarray]] = {name: [] for name in spec.HEADS}
    for i in range(0, len(images), batch_size):
        outputs = model(normalise(images[i : i + batch_size]).to(device))
        for name, logits in zip(spec.HEADS, outputs, strict=True):
            parts[name].append(logits.argmax(1).cpu().numpy())
    return {k: np.concatenate(v) if v else np.zeros(0, np.int64) for k, v in parts.items()}


def accuracies(model: nn.Module, crops: CropSet) -> dict[str, float]:
    """Accuracy of each head over the crops that carry its label (heads without any: left out)."""
    predicted = predict(model, crops.images)
    result = {}
    for name in spec.HEADS:
        known = crops.labels[name] != spec.UNKNOWN
        if known.any():
            result[name] = float((predicted[name][known] == crops.labels[name][known]).mean())
    return result


def _from_grey(state: dict[str, torch.Tensor], model: DieFaceNet) -> dict[str, torch.Tensor]:
    """The weights of a 1.x checkpoint (grey input, one head of six values) for this net: the
    first conv is spread over B, G and R (a grey crop then gives the same features), the six
    logits become values 1..6 of the value head, and the heads 1.x lacked keep their fresh
    initialisation."""
    state = dict(state)
    first = "features.0.weight"
    if state[first].shape[1] == 1:
        state[first] = state[first].repeat(1, spec.CHANNELS, 1, 1) / spec.CHANNELS
    fresh = model.state_dict()
    if "head.1.weight" in state:
        weight, bias = state.pop("head.1.weight"), state.pop("head.1.bias")
        state["heads.value.weight"] = fresh["heads.value.weight"].clone()
        state["heads.value.bias"] = fresh["heads.value.bias"].clone()
        state["heads.value.weight"][: len(bias)] = weight
        state["heads.value.bias"][: len(bias)] = bias
    return {k: state.get(k, v) for k, v in fresh.items()}


def load_model(path: Path) -> nn.Module:
    """The die-face net with the weights of ``best.pt`` or an epoch checkpoint, in eval mode:
    a Lite0FaceNet for its weights, else a DieFaceNet of the weights' widths; a 1.x checkpoint
    (grey, six values) is carried over by :func:`_from_grey`, and heads lacking classes
    added since (``spec.NO_DIE``) are grown to them."""
    state = torch.load(path, map_location="cpu", weights_only=False)
    if is_lite0(state["model"]):
        model = Lite0FaceNet(pretrained=False)
        model.load_state_dict(grown_heads(state["model"]))
        return model.eval()
    model = DieFaceNet(DieFaceNet.widths_of(state["model"]))
    model.load_state_dict(grown_heads(_from_grey(state["model"], model)))
    return model.eval()


WARM_UP = Schedule(warm_share=1 / 33)  # linear over 3 % of the run, then the cosine


class DieFaceTask:
    """The die-face net's part of the training chain (models/training): crops held on
    ``device``, a random ``cfg.epoch_crops`` of them each epoch, every set of ``valid``
    scored per head; the epoch's score is the mean over the sets named in ``pick`` of
    their mean head accuracy."""

    def __init__(
        self,
        model: nn.Module,
        train: CropSet,
        valid: dict[str, CropSet],
        cfg: TrainConfig,
        pick: Sequence[str],
        teacher: nn.Module | None,
        device: str,
    ) -> None:
        self.model, self.valid, self.cfg, self.teacher = model, valid, cfg, teacher
        self.picked, self.device = list(pick), device
        self.pick = Pick("score")
        self.images = torch.as_tensor(train.images, device=device)
        self.labels = {
            k: torch.as_tensor(v, dtype=torch.int64, device=device) for k, v in train.labels.items()
        }
        self.upright = (
            None if train.upright is None else torch.as_tensor(train.upright, device=device)
        )
        self.per_epoch = min(len(train), cfg.epoch_crops or len(train))
        self.steps_per_epoch = math.ceil(self.per_epoch / cfg.batch_size)
        self.generator = torch.Generator(device=device).manual_seed(cfg.seed)

    def batches(self, epoch: int) -> tuple[torch.Tensor, ...]:
        order = torch.randperm(len(self.images), generator=self.generator, device=self.device)
        return order[: self.per_epoch].split(self.cfg.batch_size)

    def loss(self, index: torch.Tensor) -> tuple[torch.Tensor, dict[str, float]]:
        labels = {k: v[index] for k, v in self.labels.items()}
        images = self.images[index]
        upright = None if self.upright is None else self.upright[index]
        loss = batch_loss(
            self.model, images, labels, self.generator, self.cfg, self.teacher, upright
        )
        return loss, {}

    def scores(self, losses: list[float]) -> tuple[dict[str, Any], float]:
        size = self.cfg.batch_size
        sizes = [min(size, self.per_epoch - i * size) for i in range(len(losses))]
        total = sum(loss * n for loss, n in zip(losses, sizes, strict=True))
        row: dict[str, Any] = {"train_loss": total / max(1, self.per_epoch)}
        for name, crops in self.valid.items():
            row[name] = accuracies(self.model, crops)
        means = [float(np.mean(list(row[name].values()))) for name in self.picked if row[name]]
        row["score"] = float(np.mean(means)) if means else 0.0
        return row, row["score"]

    def shown(self, row: dict[str, Any]) -> str:
        sets = "; ".join(
            f"{name} " + " ".join(f"{h} {a:.4f}" for h, a in row[name].items())
            for name in self.valid
        )
        return f"score {row['score']:.4f}; {sets}"

    def state(self) -> dict[str, Any]:
        return {"generator": self.generator.get_state(), "device": self.device}

    def restore(self, state: dict[str, Any]) -> None:
        if state.get("device", "cpu") == self.device:  # a generator's state fits its device
            self.generator.set_state(state["generator"].cpu())


def initial_model(
    train: CropSet, cfg: TrainConfig, weights: Path | None, teacher: nn.Module | None
) -> nn.Module:
    """The net a run starts from: ``weights`` (a checkpoint, or an exported model whose
    checkpoint is gone, its norms restored on the train crops), else Lite0's ImageNet weights
    (``cfg.backbone``), else the teacher slimmed to ``cfg.widths``, else a fresh net. A start
    from ``weights`` at other ``cfg.widths`` is widened or slimmed to them (distil.resized).
    A Lite0 net's first ``cfg.frozen`` layers are not trained: generic strokes, and half the
    time."""
    if weights is not None and weights.suffix == ".onnx":
        model = distil.from_onnx(weights)
        sample = torch.randperm(len(train), generator=torch.Generator().manual_seed(cfg.seed))
        restore_norms(model, [normalise(train.images[i.numpy()]) for i in sample[:1024].split(256)])
        return model if cfg.widths is None else distil.resized(model, cfg.widths)
    if weights is not None:
        model = load_model(weights)
        if cfg.widths is not None and isinstance(model, DieFaceNet):
            return distil.resized(model, cfg.widths)
    elif cfg.backbone == "lite0":
        model = Lite0FaceNet(pretrained=True)
    elif teacher is not None:
        return distil.slimmed(teacher, cfg.widths or DieFaceNet.WIDTHS)
    else:
        return DieFaceNet(cfg.widths or DieFaceNet.WIDTHS)
    if isinstance(model, Lite0FaceNet):
        for layer in model.trunk[: cfg.frozen]:
            layer.requires_grad_(False)
    return model


def card_version(model: Path) -> str | None:
    """The version on the card beside an ONNX model (None: no card, or none said)."""
    card = model.with_suffix(".json")
    if not card.is_file():
        return None
    return json.loads(card.read_text(encoding="utf-8")).get("version")


def fit(
    train: CropSet,
    valid: dict[str, CropSet],
    out: Path,
    cfg: TrainConfig,
    pick: Sequence[str] | None = None,
    weights: Path | None = None,
    resume: bool = False,
    progress: bool = True,
    device: str = "cpu",
    minutes: float = 0.0,
) -> dict[str, Any]:
    """Train through the chain (models/training) into ``out``, the best epoch in ``best.pt``.

    Every set of ``valid`` is scored per head after each epoch and logged; the epoch's score
    is the mean over the sets named in ``pick`` (default: all) of their mean head accuracy.
    ``weights`` starts from a checkpoint's weights (or an exported model's, an ``.onnx``
    file whose checkpoint is gone) instead of random ones (fine-tuning).
    ``device`` is where the crops, the augmentation and the net live ("cuda" on a GPU);
    ``minutes`` > 0 ends the run when that time is spent, the schedule decaying to it.
    Returns the summary also written to ``summary.json``.
    """
    torch.set_num_threads(cfg.threads)
    torch.manual_seed(cfg.seed)
    teacher = distil.from_onnx(Path(cfg.teacher)).to(device) if cfg.teacher else None
    model = initial_model(train, cfg, weights, teacher)
    model = model.to(device=device, memory_format=torch.channels_last)
    if teacher is not None:  # it reads the crops at the side it learned
        teacher = distil.AtSide(teacher, input_side(Path(cfg.teacher)))
    task = DieFaceTask(model, train, valid, cfg, pick or list(valid), teacher, device)
    plan = Plan(cfg.epochs, cfg.lr, cfg.weight_decay, minutes, WARM_UP)
    about = {
        "train_crops": len(train),
        "config": cfg.__dict__,
        "weights": str(weights) if weights is not None else None,
        "rendered_scenes": describe_folders(cfg.scenes),
        "teacher_version": card_version(Path(cfg.teacher)) if cfg.teacher else None,
        "numeral_styles": font_count(),  # more than the stroke ones: --typefaces
        "marbled_share": MARBLED_SHARE if marbled() else 0.0,  # --marbled
        "numbered_share": NUMBERED_SHARE if numbered() else 0.0,  # --numbered
        "lettered_share": LETTERED_SHARE if lettered() else 0.0,  # --lettered
    }
    return loop.train(task, out, plan, about, resume, progress, device)


def _synthetic(cfg: TrainConfig, workers: int, progress: bool) -> tuple[CropSet, CropSet]:
    """Synthetic train crops (``cfg.synthetic`` scenes of the train seed) and valid crops (a
    fifteenth as many scenes of the valid seed, at most 400), cut by the recipe
    ``cfg.wide_share`` names at ``cfg.input_size``."""
    recipe: dict[str, Any] = {"size": cfg.input_size}
    if cfg.wide_share > 0:
        recipe |= {
            "make": partial(synth_crops.overhead_crops, wide_share=cfg.wide_share),
            "recipe": f"overhead-wide{cfg.wide_share:g}",
        }
    load = partial(synth_crops.load_synthetic, workers=workers, progress=progress, **recipe)
    scenes = max(1, min(400, cfg.synthetic // 15))
    return load(synth_crops.TRAIN_SEED, cfg.synthetic), load(synth_crops.VALID_SEED, scenes)


def _slanted(scenes: int, size: int, workers: int, progress: bool) -> tuple[CropSet, CropSet]:
    """Train crops of ``scenes`` slanted scenes, marked upright, and valid crops of a
    fifteenth as many (at most 400), ``size`` px."""
    load = partial(
        synth_crops.load_synthetic,
        size=size,
        workers=workers,
        progress=progress,
        make=synth_crops.slanted_crops,
        recipe=f"slanted{SLANTED_CAMERA[0]:g}-{SLANTED_CAMERA[1]:g}",
    )
    held = max(1, min(400, scenes // 15))
    return load(synth_crops.TRAIN_SEED, scenes).held_upright(), load(synth_crops.VALID_SEED, held)


def _found(roots: Sequence[Path], size: int, progress: bool) -> tuple[CropSet, CropSet]:
    """What the detector finds on the train and the valid photos of these photo sets (those
    here), the boxes on no die labelled "none" (found_crops.py), ``size`` px."""
    from models.dieface.found_crops import load_found

    here = [root for root in roots if (root / "train").is_dir()]
    if not here:
        raise FileNotFoundError(f"no photo set to mine: {', '.join(map(str, roots))}")
    train = [load_found(root / "train", progress, size) for root in here]
    valid = [load_found(root / "valid", progress, size) for root in here]
    return synth_crops.concat(train, size), synth_crops.concat(valid, size)


def share_repeats(base: CropSet, extra: CropSet, share: float = SCENE_SHARE) -> int:
    """How many times ``extra`` is repeated beside ``base`` to make about ``share`` of the
    whole (at least once; augmentation makes each repeat different)."""
    return max(1, round(share * len(base) / ((1 - share) * max(1, len(extra)))))


def with_scenes(
    train: CropSet,
    valid: dict[str, CropSet],
    pick: list[str],
    scenes: Sequence[Path],
    seed: int,
    progress: bool = True,
    size: int = spec.INPUT_SIZE,
) -> CropSet:
    """``train`` with the dice of rendered scene folders repeated to make about
    ``SCENE_SHARE`` of it (rendered dice are few and dear); their held-out tenth goes into
    ``valid`` as "scenes_valid" and into ``pick``. No folders: ``train`` as it is."""
    if not scenes:
        return train
    scene_train, scene_valid = folders_crops(scenes, seed=seed, progress=progress, size=size)
    if not len(scene_train):
        raise ValueError(f"no dice in the scenes of {', '.join(map(str, scenes))}")
    if len(scene_valid):
        valid["scenes_valid"] = scene_valid
        pick.append("scenes_valid")
    return synth_crops.concat([train, *[scene_train] * share_repeats(train, scene_train)], size)


def scenes_alone(
    scenes: Sequence[Path], seed: int, progress: bool = True, size: int = spec.INPUT_SIZE
) -> tuple[CropSet, dict[str, CropSet]]:
    """The dice of rendered scene folders as the whole training set, and their held-out
    tenth as "scenes_valid" (ValueError when there are none to train or to pick on)."""
    train, valid = folders_crops(scenes, seed=seed, progress=progress, size=size)
    if not len(train) or not len(valid):
        raise ValueError(f"too few dice in the scenes of {', '.join(map(str, scenes))}")
    return train, {"scenes_valid": valid}


def train_dieface(
    out: Path,
    data: Path | None = None,
    cfg: TrainConfig | None = None,
    resume: bool = False,
    progress: bool = True,
    workers: int = 2,
    weights: Path | None = None,
    device: str = "cpu",
    minutes: float = 0.0,
    scenes: Sequence[Path] = (),
) -> dict[str, Any]:
    """Train on synthetic crops and Rune55's train split, from ``weights`` if given; score
    Rune55 valid (all, and sources unseen in train) and synthetic valid per epoch, pick the
    epoch on Rune55 valid and synthetic valid together.

    ``scenes``: folders of rendered scenes (Blender's) whose dice are cut into the training
    set too, repeated to make about ``SCENE_SHARE`` of it (rendered dice are few and dear);
    their held-out tenth is scored each epoch and counts in the pick; with
    ``cfg.scenes_only`` they are the whole training set and the pick (:func:`scenes_alone`)."""
    from models.common.photos import default_root, load_splits, unseen_mask

    cfg = cfg or TrainConfig()
    cfg.scenes = tuple(str(folder) for folder in scenes)
    if cfg.scenes_only:
        train, valid = scenes_alone(scenes, cfg.seed, progress, cfg.input_size)
        fitted = {"weights": weights, "resume": resume, "progress": progress, "device": device}
        return fit(train, valid, out, cfg, pick=list(valid), minutes=minutes, **fitted)
    splits = load_splits(data, size=cfg.input_size, splits=("train", "valid"))
    rune_train, rune_valid = splits["train"], splits["valid"]
    unseen = rune_valid.subset(unseen_mask(rune_valid, rune_train))
    synth_train, synth_valid = _synthetic(cfg, workers, progress)
    rune55 = rune55_set(rune_train.images, rune_train.labels)
    photos = [rune55] * cfg.rune55_repeats
    valid = {
        "rune55_valid": rune55_set(rune_valid.images, rune_valid.labels),
        "rune55_valid_unseen": rune55_set(unseen.images, unseen.labels),
        "synth_valid": synth_valid,
    }
    colour_root = (data or default_root()).parent / "roboflow-dice-d6"
    if cfg.colour_repeats and colour_root.is_dir():  # a board game's colour d6 (CC BY 4.0)
        colour = load_splits(colour_root, size=cfg.input_size, splits=("train", "valid"))
        photos += [rune55_set(colour["train"].images, colour["train"].labels)] * cfg.colour_repeats
        valid["colour_valid"] = rune55_set(colour["valid"].images, colour["valid"].labels)
    pick = ["rune55_valid", "synth_valid"]
    if cfg.found_repeats:
        roots = [data or default_root(), colour_root]
        found, valid["found_valid"] = _found(roots, cfg.input_size, progress)
        photos += [found] * cfg.found_repeats
        pick.append("found_valid")
    if cfg.slanted:
        slanted, valid["slant_valid"] = _slanted(cfg.slanted, cfg.input_size, workers, progress)
        photos = [crops.held_upright() for crops in photos] + [slanted]
    train = synth_crops.concat([synth_train, *photos], cfg.input_size)
    train = with_scenes(train, valid, pick, scenes, cfg.seed, progress, cfg.input_size)
    return fit(
        train,
        valid,
        out,
        cfg,
        pick=pick,
        weights=weights,
        resume=resume,
        progress=progress,
        device=device,
        minutes=minutes,
    )


def finetune_corrections(
    folder: Path,
    weights: Path,
    out: Path,
    cfg: TrainConfig,
    resume: bool = False,
    progress: bool = True,
    workers: int = 2,
) -> dict[str, Any]:
    """Fine-tune ``weights`` on a corrections folder (see models/dieface/corrections.py), mixed with
    ``cfg.synthetic`` scenes of synthetic crops so the model does not forget the rest.

    The corrections are repeated to make about a quarter of each epoch (augmentation makes
    each repeat different); the epoch is picked on the corrections and synthetic valid crops.
    """
    from models.dieface.corrections import load_corrections

    corrections = load_corrections(folder, cfg.input_size)
    if not len(corrections):
        raise ValueError(f"{folder}: no corrected crops")
    synth_train, synth_valid = _synthetic(cfg, workers, progress)
    repeats = max(1, round(len(synth_train) / (3 * len(corrections))))
    mixed = synth_crops.concat([synth_train, *[corrections] * repeats], cfg.input_size)
    return fit(
        mixed,
        {"corrections": corrections, "synth_valid": synth_valid},
        out,
        cfg,
        weights=weights,
        resume=resume,
        progress=progress,
    )
