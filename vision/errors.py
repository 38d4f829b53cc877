"""What can go wrong before the pipeline reads a single die, each with one clear message.

Why a family of errors: the CLI reports a bad image on one line and goes on with the next,
the appliance refuses a bad model at start-up; both catch :class:`VisionError` and print it.
"""

from __future__ import annotations


class VisionError(Exception):
    """A problem with an input of the vision pipeline; ``str()`` is the message to show."""


class BadImageError(VisionError):
    """An image file or camera frame that cannot be read as a picture (missing, empty,
    truncated, not an image, wrong shape or type)."""


class BadModelError(VisionError):
    """A model file or its card that is missing, corrupt or does not match each other."""


class BadCalibrationError(VisionError):
    """A calibration file that is missing, not JSON, of another version or incomplete."""
