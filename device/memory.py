"""Giving memory back to the system: glibc keeps what Python and numpy freed, per thread.

Why: the appliance runs for evenings on a Pi with little memory. Each thread that
allocates (every web request's, the table worker's, the tray watcher's) gets its own
malloc arena, and freed blocks stay in them; a 1280x960 calibration or an advisor's first
turn frees tens of MB that the process keeps. Two arenas, and a trim after such work,
keep the resident memory near what is in use. Elsewhere than glibc both do nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging

log = logging.getLogger(__name__)
M_ARENA_MAX = -8  # glibc's mallopt parameter


def _libc() -> ctypes.CDLL | None:
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name) if name else None
    except OSError:
        return None
    return libc if libc is not None and hasattr(libc, "malloc_trim") else None


_LIBC = _libc()


def limit_arenas(arenas: int = 2) -> bool:
    """At most ``arenas`` malloc arenas for the threads started from now on."""
    return bool(_LIBC is not None and _LIBC.mallopt(M_ARENA_MAX, arenas))


def trim() -> bool:
    """Hand the memory freed so far back to the system (a few milliseconds)."""
    return bool(_LIBC is not None and _LIBC.malloc_trim(0))
