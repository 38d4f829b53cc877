"""Where yamscope keeps its files: the user's folders, unless the environment says otherwise."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs


def cache_dir() -> Path:
    """Solved strategies and other things that can be rebuilt (``YAMSCOPE_CACHE_DIR``)."""
    override = os.environ.get("YAMSCOPE_CACHE_DIR")
    return Path(override) if override else platformdirs.user_cache_path("yamscope")


def data_dir() -> Path:
    """The table's records (``YAMSCOPE_DATA_DIR``): kept, unlike the cache, across upgrades."""
    override = os.environ.get("YAMSCOPE_DATA_DIR")
    return Path(override) if override else platformdirs.user_data_path("yamscope")
