"""What can go wrong with the records, in words the page and the command line can say."""

from __future__ import annotations


class StoreError(RuntimeError):
    """The records cannot be used as asked (newer version, corrupt, out of step)."""


class StoreFull(StoreError):
    """The disk (or the file's allowed size) is full: nothing was written, play can go on
    once space is freed."""


class StoreDamaged(StoreError):
    """SQLite's integrity check found the file damaged."""


class StoreUnavailable(StoreError):
    """The records database cannot be reached (a club's PostgreSQL server went away):
    nothing was written, play resumes where it was once it is back."""
