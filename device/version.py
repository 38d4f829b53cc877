"""The installed yamscope's version, as the package metadata says."""

from __future__ import annotations

from importlib import metadata


def version() -> str:
    try:
        return metadata.version("yamscope")
    except metadata.PackageNotFoundError:  # run from a checkout that was never installed
        return "unknown"
