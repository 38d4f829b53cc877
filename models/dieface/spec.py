"""What the die-face model expects and returns, without torch: the runtime and the evaluation
read these (and the model card) and must not need the training stack."""

from __future__ import annotations

from vision.reading import NO_DIE

# The crops' side a training run cuts unless told (--input-size); a model's own is on its card.
INPUT_SIZE = 64
CHANNELS = 3  # BGR, as OpenCV reads the camera; grey crops are repeated into all three
KINDS = ("d6", "d10")
# The kind head's last class, NO_DIE: a box on no die (a shadow, a game token, a screw), so
# that a photo's phantom boxes can be told apart from dice without a calibration.
VALUES = tuple(range(1, 11))  # output i of the value head is the value i + 1 (a d6 uses 1..6)
COLOURS = ("red", "white")
FINISHES = ("frosted", "transparent")
COCKED = ("no", "yes")
UNKNOWN = -1  # the class index of a label a crop's source cannot give (no loss, no score)
# One ONNX output per head, named after the attribute it reads, in this order; the values
# are the classes of its logits in order.
HEADS: dict[str, tuple] = {
    "kind": (*KINDS, NO_DIE),
    "value": VALUES,
    "colour": COLOURS,
    "finish": FINISHES,
    "cocked": COCKED,
}
# Pixels are scaled to [0, 1] and then standardised with these: fixed numbers (not dataset
# statistics) so the runtime can apply them without knowing the training data.
MEAN = 0.5
STD = 0.25
VERSION = "2.13.0"
INPUT_NAME = "crops"
