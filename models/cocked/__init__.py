"""The cocked-die model (``models/cocked.onnx``; vision/cocked.py says why it exists): its
net, training and export."""
