"""vision.watershed gives scikit-image's labels, and reading a frame does not import scipy."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from skimage.segmentation import watershed as skimage_watershed

from vision.watershed import watershed


@pytest.mark.parametrize("seed", range(20))
def test_the_same_labels_as_scikit_image(seed: int) -> None:
    rng = np.random.default_rng(seed)
    h, w = rng.integers(5, 60, size=2)
    image = -rng.random((h, w)).astype(np.float32)
    if seed % 2:  # plateaus: ties are settled by the neighbours' order
        image = np.round(image * 3)
    mask = rng.random((h, w)) > 0.2
    markers = np.zeros((h, w), np.int32)
    for k in range(int(rng.integers(1, 6))):
        markers[rng.integers(h), rng.integers(w)] = k + 1
    markers *= mask
    expected = skimage_watershed(image, markers, mask=mask)
    got = watershed(image, markers, mask)
    assert got.dtype == expected.dtype and np.array_equal(got, expected)


def test_segmenting_does_not_import_scipy() -> None:
    """scipy and skimage.morphology cost the appliance 40 MB resident (docs/speed.md)."""
    code = "import sys, vision.segment, vision.recognise; print('scipy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
