"""On the GPU machine: decode what :mod:`models.gpu.pack` packed; rebuild the detector's
photo caches where ``models.detector_train`` looks for them."""

from __future__ import annotations

import sys
from pathlib import Path

import cv2
import numpy as np

from models.detector_train import CACHE, INPUT_SIZE


def decode(jpeg: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Grey images (N, H, W) from concatenated JPEG bytes and their lengths."""
    ends = np.cumsum(lengths)
    starts = ends - lengths
    return np.stack(
        [cv2.imdecode(jpeg[a:b], cv2.IMREAD_GRAYSCALE) for a, b in zip(starts, ends, strict=True)]
    )


def main(folder: Path = Path(".gpu")) -> None:
    CACHE.mkdir(parents=True, exist_ok=True)
    for split in ("train", "valid"):
        with np.load(folder / f"det-{split}.npz") as packed:
            grey = decode(packed["jpeg"], packed["lengths"])
            images = np.repeat(grey[..., None], 3, axis=3)
            arrays = {k: packed[k] for k in ("boxes", "counts", "names")}
            np.savez(CACHE / f"rune55-{split}-{INPUT_SIZE}.npz", images=images, **arrays)
        print(f"{split}: {images.shape}", flush=True)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(".gpu"))
