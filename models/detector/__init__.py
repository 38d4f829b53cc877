"""The dice detector (``models/dicefind.onnx``, read by vision/detect.py): its net, the
distractors it learns to ignore, training, export and evaluation."""
