"""What the die-face model expects and returns, without torch: the runtime and the evaluation
read these (and the model card) and must not need the training stack."""

from __future__ import annotations

INPUT_SIZE = 64
CLASSES = (1, 2, 3, 4, 5, 6)  # output index i is face CLASSES[i] of a d6
# Pixels are scaled to [0, 1] and then standardised with these: fixed numbers (not dataset
# statistics) so the runtime can apply them without knowing the training data.
MEAN = 0.5
STD = 0.25
OPSET = 17
VERSION = "1.1.0"
INPUT_NAME = "crops"
OUTPUT_NAME = "logits"
