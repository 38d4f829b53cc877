"""Frames in, a read throw out (calibration, settle detection, segmentation, reading)."""
