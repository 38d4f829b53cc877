"""On the GPU machine: train the die-face net from the packed start weights on synthetic
crops rendered there (all its cores), the packed Rune55 crops and the rendered scene folders
unpacked from the pack (``--rendered``), until a wall-clock deadline; the same sets and
scores as ``yamscope train`` (models/dieface/train.py train_dieface).

    python -m models.gpu.dieface --deadline EPOCH_SECONDS --scenes 14000 --workers 12 \\
        --out /tmp/runs/dieface --epochs 60 --lr 2e-3 --batch 512 --device cuda \\
        [--rendered data/scenes/blender-train12]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from models.dieface import synth_crops
from models.dieface.train import TrainConfig, fit, rune55_set, with_scenes
from models.gpu.unpack import decode


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deadline", type=float, required=True, help="time.time() to stop at")
    parser.add_argument("--scenes", type=int, default=14000, help="synthetic training scenes")
    parser.add_argument("--workers", type=int, default=12, help="processes rendering scenes")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--epochs", type=int, default=60)
    parser.add_argument("--lr", type=float, default=2e-3)
    parser.add_argument("--batch", type=int, default=512)
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--packed", type=Path, default=Path(".gpu"))
    parser.add_argument(
        "--rendered", dest="folders", type=Path, action="append", default=[], metavar="DIR",
        help="a rendered scene folder (unpacked into data/scenes/) trained on too; repeat",
    )  # fmt: skip
    args = parser.parse_args(argv)
    with np.load(args.packed / "crops.npz") as packed:
        rune = {
            s: (decode(packed[f"{s}_jpeg"], packed[f"{s}_lengths"]), packed[f"{s}_labels"],
                packed[f"{s}_sources"])
            for s in ("train", "valid")
        }  # fmt: skip
    unseen = ~np.isin(rune["valid"][2], np.unique(rune["train"][2]))
    began = time.time()
    train = synth_crops.load_synthetic(
        synth_crops.TRAIN_SEED, args.scenes, workers=args.workers, progress=False
    )
    valid = synth_crops.load_synthetic(
        synth_crops.VALID_SEED, 400, workers=args.workers, progress=False
    )
    print(f"synthetic crops: {len(train)} train, {len(valid)} valid in {time.time() - began:.0f} s")
    cfg = TrainConfig(epochs=args.epochs, batch_size=args.batch, lr=args.lr,
                      synthetic=args.scenes, threads=4)  # fmt: skip
    cfg.scenes = tuple(str(folder) for folder in args.folders)
    checks = {
        "rune55_valid": rune55_set(*rune["valid"][:2]),
        "rune55_valid_unseen": rune55_set(rune["valid"][0][unseen], rune["valid"][1][unseen]),
        "synth_valid": valid,
    }
    pick = ["rune55_valid", "synth_valid"]
    mixed = with_scenes(
        synth_crops.concat([train, rune55_set(*rune["train"][:2])]),
        checks, pick, args.folders, cfg.seed, progress=False,
    )  # fmt: skip
    minutes = (args.deadline - time.time()) / 60
    print(f"training for at most {minutes:.1f} min", flush=True)
    summary = fit(
        mixed,
        checks,
        args.out,
        cfg,
        pick=pick,
        weights=args.packed / "dieface.pt",
        progress=False,
        device=args.device,
        minutes=minutes,
    )
    print(f"best epoch: {summary['best']}", flush=True)


if __name__ == "__main__":
    main()
