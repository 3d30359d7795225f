"""Keeping the daemon's memory bounded where the C library decides it.

glibc's malloc gives a thread that allocates while another holds the main heap a heap (an
arena) of its own, up to eight per core, and keeps what is freed in each for later. The daemon
has a loop thread, a writer, a recorder and 16 or more web threads: after 2,000 fuzzed requests
(large bodies parsed in many threads) the process held about 10 MB more than with two arenas,
and never gave it back (66 against 57 MB, `sowboard bench fuzz`). Python takes its interpreter
lock around nearly every allocation anyway, so more arenas buy the daemon almost nothing.
"""

from __future__ import annotations

import ctypes
import sys

M_ARENA_MAX = -8  # glibc's malloc.h
ARENAS = 2


def limit_malloc_arenas(count: int = ARENAS) -> bool:
    """At most `count` malloc arenas, from now on (call it before threads start); False where
    the C library has no such setting (not glibc, not Linux)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return bool(mallopt(M_ARENA_MAX, count))
