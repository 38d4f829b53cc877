"""Pack what a GPU run needs into a folder (default ``.gpu/``, git-ignored), small enough to
travel: the detector's Rune55 photo caches (letterboxed 256x256, grey JPEG q88), the Rune55
train and valid die crops (grey JPEG q90; the source photo of each as a number, for the
"unseen" score) and the weights both runs start from.

    python -m models.gpu.pack --detector data/runs/detector/best.pt \\
        --dieface data/runs/dieface2/best.pt
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

import cv2
import numpy as np

from models.detector_train import load_photos
from models.photos import load_splits

VALID_PHOTOS = 200  # the detector picks its epoch on the first 200 valid photos


def jpegs(images: np.ndarray, quality: int) -> tuple[np.ndarray, np.ndarray]:
    """Images as one byte array of concatenated JPEGs and the length of each."""
    encoded = [
        cv2.imencode(".jpg", im, [cv2.IMWRITE_JPEG_QUALITY, quality])[1].tobytes() for im in images
    ]
    lengths = np.asarray([len(b) for b in encoded], np.int64)
    return np.frombuffer(b"".join(encoded), np.uint8), lengths


def pack_photos(out: Path) -> None:
    for split, limit in (("train", None), ("valid", VALID_PHOTOS)):
        data = load_photos(split, limit=limit)
        grey = [cv2.cvtColor(im, cv2.COLOR_BGR2GRAY) for im in data.images]  # Rune55 is grey
        jpeg, lengths = jpegs(np.asarray(grey), 88)
        counts = np.asarray([len(b) for b in data.boxes], np.int64)
        np.savez(out / f"det-{split}.npz", jpeg=jpeg, lengths=lengths,
                 boxes=np.concatenate(data.boxes), counts=counts, names=data.names)  # fmt: skip


def pack_crops(out: Path) -> None:
    splits = load_splits(splits=("train", "valid"))
    names = np.unique(np.concatenate([c.sources for c in splits.values()]))
    arrays = {}
    for split, crops in splits.items():
        jpeg, lengths = jpegs(crops.images, 90)
        arrays |= {
            f"{split}_jpeg": jpeg,
            f"{split}_lengths": lengths,
            f"{split}_labels": crops.labels,
            f"{split}_sources": np.searchsorted(names, crops.sources),
        }
    np.savez(out / "crops.npz", **arrays)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=Path(".gpu"))
    parser.add_argument("--detector", type=Path, required=True, help="detector checkpoint")
    parser.add_argument("--dieface", type=Path, required=True, help="die-face checkpoint")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    pack_photos(args.out)
    pack_crops(args.out)
    shutil.copyfile(args.detector, args.out / "detector.pt")
    shutil.copyfile(args.dieface, args.out / "dieface.pt")
    total = sum(p.stat().st_size for p in args.out.iterdir())
    print(f"{args.out}: {total / 2**20:.1f} MiB")


if __name__ == "__main__":
    main()
