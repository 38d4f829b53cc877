"""Write the small committed sample of Rune55 test crops that the tests score the model on.

CI has no copy of the photos in every setup, and the whole crop cache is ~70 MB; a balanced
sample of a few hundred KB lets a test check that the shipped ONNX still reads real dice.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from models.common import photos

SAMPLE_PATH = Path(__file__).resolve().parents[2] / "tests/models/data/d6-test-sample.npz"


def balanced_sample(crops: photos.Crops, per_class: int, seed: int = 0) -> photos.Crops:
    """``per_class`` crops of each face, drawn without replacement, in a fixed order."""
    rng = np.random.default_rng(seed)
    chosen = [
        rng.choice(np.flatnonzero(crops.labels == c), per_class, replace=False) for c in range(6)
    ]
    return crops.subset(np.sort(np.concatenate(chosen)))


def main(argv: list[str] | None = None) -> int:
    """``python -m models.dieface.sample``: rewrite tests/models/data/d6-test-sample.npz."""
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--per-class", type=int, default=30)
    parser.add_argument("--out", type=Path, default=SAMPLE_PATH)
    parser.add_argument("--data", type=Path, default=None, help="the rune55-d6 folder")
    args = parser.parse_args(argv)
    sample = balanced_sample(photos.load_splits(args.data)["test"], args.per_class)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(
        args.out, images=sample.images, labels=sample.labels, sources=sample.sources
    )
    print(f"wrote {len(sample)} crops to {args.out} ({args.out.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
