"""The die-face model (``models/dieface.onnx``): its net and spec, the crops it learns from
(synthetic, rendered, corrected), training, export with its card, and its own evaluation."""
