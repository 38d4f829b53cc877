"""Fixtures of the vision tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from drawn_dice import RUNE55


@pytest.fixture
def rune55() -> Path:
    """The real Rune55 photos beside the repository; the test is skipped without them."""
    if not RUNE55.is_dir():
        pytest.skip(f"{RUNE55} is absent")
    return RUNE55
