"""scikit-image's watershed for one case, the one ``vision.segment`` needs, without the
40 MB that importing ``skimage.segmentation.watershed`` costs.

Why: its module imports scipy.ndimage and skimage.morphology (about 200 modules) only to
validate arguments; on the appliance that was 40 MB resident of the 250 MB it may use
(docs/speed.md). Here the same Cython core is called with the same arguments for a 2-D
float image, int32 markers, a mask and connectivity 1, so the labels are the same
(tests/vision/test_watershed.py compares them); where that core cannot be found (another
scikit-image), the public function is used.
"""

from __future__ import annotations

import numpy as np

try:
    from skimage.segmentation import _watershed_cy
except ImportError:  # pragma: no cover - another scikit-image layout
    _watershed_cy = None


def watershed(image: np.ndarray, markers: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """``skimage.segmentation.watershed(image, markers, mask=mask)`` for 2-D arrays."""
    if _watershed_cy is None or image.ndim != 2:  # pragma: no cover
        from skimage.segmentation import watershed as public

        return public(image, markers, mask=mask)
    if markers.shape != image.shape or mask.shape != image.shape:
        raise ValueError("image, markers and mask must have the same shape")
    mask = np.asanyarray(mask, dtype=bool)
    markers = np.asanyarray(markers) * mask
    padded = np.pad(image.astype(np.float64), 1, mode="constant")
    flat_mask = np.pad(mask.astype(np.int8), 1, mode="constant").ravel()
    output = np.pad(markers, 1, mode="constant")
    width = padded.shape[1]
    neighbours = np.array([-width, -1, 1, width], dtype=np.intp)  # connectivity 1, as skimage
    strides = np.array(padded.strides, dtype=np.intp) // padded.itemsize
    _watershed_cy.watershed_raveled(
        padded.ravel(),
        np.flatnonzero(output),
        neighbours,
        flat_mask,
        strides,
        0.0,
        output.ravel(),
        False,
    )
    return output[1:-1, 1:-1].copy()
