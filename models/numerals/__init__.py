"""The numeral reader's model (models/numerals.onnx): PP-OCRv4's text recogniser, cut to
the ten digits (make.py)."""
