"""Pack what a GPU run needs into a folder (default ``.gpu/``, git-ignored), small enough to
travel: the detector's photo caches (letterboxed 256x256; Rune55 as grey JPEG q88, the
colour photos of roboflow-dice-d6 as colour JPEG q90), with ``--dieface`` the Rune55 train
and valid die crops (grey JPEG q90; the source photo of each as a number, for the "unseen"
score), the weights the runs start from (without ``--detector`` the detector starts from
``models/dicefind.onnx``), and with ``--scenes`` rendered scene folders (their photos as
colour JPEG q85 and their labels; Blender needs Python 3.11, which the GPU machine lacks, so
scenes are rendered here).

    python -m models.gpu.pack                       # the detector alone (37 MiB)
    python -m models.gpu.pack --detector data/runs/detector/best.pt \\
        --dieface data/runs/dieface2/best.pt [--scenes data/blender-train12]

The device tool carries 64 MiB, the repository's 10 MiB included: the detector's pack (37
MiB) leaves room for about 300 rendered 640x480 scenes (about 40 KB each); with the die-face
crops (22 MiB more) there is none. The pack says its size, and warns past ``CARRY_MIB``.
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

import cv2
import numpy as np

from models.common.datasets import DatasetError, open_dataset
from models.common.photos import load_splits
from models.detector.data import Set, load_photos, roboflow_root

VALID_PHOTOS = 200  # the detector picks its epoch on the first 200 valid photos
SCENE_QUALITY = 85  # rendered photos' JPEG quality: q90 takes half as much room again
CARRY_MIB = 52  # what the pack may weigh beside the repository in the device tool's 64 MiB


def jpegs(images: np.ndarray, quality: int) -> tuple[np.ndarray, np.ndarray]:
    """Images as one byte array of concatenated JPEGs and the length of each."""
    encoded = [
        cv2.imencode(".jpg", im, [cv2.IMWRITE_JPEG_QUALITY, quality])[1].tobytes() for im in images
    ]
    lengths = np.asarray([len(b) for b in encoded], np.int64)
    return np.frombuffer(b"".join(encoded), np.uint8), lengths


def pack_photos(out: Path) -> None:
    """The detector's photo caches: Rune55 as grey JPEG (``det-SPLIT.npz``; Rune55 is grey),
    roboflow-dice-d6's colour photos as colour JPEG (``det-colour-SPLIT.npz``)."""
    for split, limit in (("train", None), ("valid", VALID_PHOTOS)):
        data = load_photos(split, limit=limit)
        grey = [cv2.cvtColor(im, cv2.COLOR_BGR2GRAY) for im in data.images]
        save_photos(out / f"det-{split}.npz", data, jpegs(np.asarray(grey), 88))
        colour = load_photos(split, roboflow_root(), name="roboflow")
        save_photos(out / f"det-colour-{split}.npz", colour, jpegs(colour.images, 90))


def save_photos(path: Path, data: Set, encoded: tuple[np.ndarray, np.ndarray]) -> None:
    """A photo set's JPEGs (``encoded``: bytes and lengths) with its boxes and names."""
    counts = np.asarray([len(b) for b in data.boxes], np.int64)
    np.savez(path, jpeg=encoded[0], lengths=encoded[1], boxes=np.concatenate(data.boxes),
             counts=counts, names=data.names)  # fmt: skip


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


def pack_scenes(out: Path, root: Path, limit: int | None = None) -> Path:
    """A rendered scene folder (its first ``limit`` scenes) as ``scenes-<name>.npz``: its
    dataset.json, each scene's label (without the empty tray's photo, which stays here) and
    its photo as JPEG."""
    dataset = open_dataset(root)
    if dataset.format != "synthetic":
        raise DatasetError(f"{root}: not a rendered scene folder (no dataset.json)")
    chosen = dataset.photos[:limit]
    labels = []
    for path in chosen:
        label = json.loads(path.read_text(encoding="utf-8"))
        label.pop("empty", None)
        labels.append(label)
    photos = [cv2.imread(str(root / "images" / f"{p.stem}.png")) for p in chosen]
    jpeg, lengths = jpegs(photos, SCENE_QUALITY)
    path = out / f"scenes-{root.name}.npz"
    np.savez(
        path,
        meta=np.asarray((root / "dataset.json").read_text(encoding="utf-8")),
        labels=np.asarray(json.dumps(labels)),
        stems=np.asarray([p.stem for p in chosen]),
        jpeg=jpeg,
        lengths=lengths,
    )
    return path


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=Path(".gpu"))
    parser.add_argument(
        "--detector",
        type=Path,
        help="detector checkpoint (none: the run starts from models/dicefind.onnx)",
    )
    parser.add_argument(
        "--dieface", type=Path, help="die-face checkpoint (none: the detector alone, SCENES=0)"
    )
    parser.add_argument(
        "--scenes",
        type=Path,
        action="append",
        default=[],
        metavar="DIR",
        help="a rendered scene folder both runs also train on; repeat for more",
    )
    parser.add_argument(
        "--max-scenes", type=int, default=None, metavar="N", help="pack each folder's first N"
    )
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for stale in args.out.glob("scenes-*.npz"):  # only the folders named this time travel
        stale.unlink()
    for root in args.scenes:
        pack_scenes(args.out, root, args.max_scenes)
    pack_photos(args.out)
    for stale in ("crops.npz", "detector.pt", "dieface.pt"):
        (args.out / stale).unlink(missing_ok=True)
    if args.detector:
        shutil.copyfile(args.detector, args.out / "detector.pt")
    if args.dieface:
        pack_crops(args.out)
        shutil.copyfile(args.dieface, args.out / "dieface.pt")
    total = sum(p.stat().st_size for p in args.out.iterdir()) / 2**20
    print(f"{args.out}: {total:.1f} MiB")
    if total > CARRY_MIB:
        print(
            f"warning: over {CARRY_MIB} MiB, it will not travel beside the repository in the "
            "device tool's 64 MiB: pack fewer rendered scenes (--max-scenes)"
        )


if __name__ == "__main__":
    main()
