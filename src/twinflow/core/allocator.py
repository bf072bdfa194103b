"""Keeps the memory of freed arrays in the process instead of handing it back to the kernel.

Kernels make fresh output arrays of megabytes on every call. With glibc's default settings an
array that large is its own ``mmap`` (or lands at the top of the heap, which is trimmed when it
is freed): the next call maps fresh pages again, and the kernel zeroes each page on first
touch. For the seed 004 convnet step that page-fault work was half the CPU time of the
convolution gradients. ``tune()`` raises glibc's mmap threshold and trim threshold (``mallopt``)
so that freed blocks are reused, as TensorFlow's and PyTorch's caching allocators do; the price
is that the process keeps up to ``TRIM_BYTES`` of freed memory instead of returning it.

It runs once, when twinflow is imported; the environment variable
``TWINFLOW_KEEP_FREED_MEMORY=0`` turns it off. Elsewhere than glibc it does nothing.
"""
from __future__ import annotations

import ctypes
import os
import sys

_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
MMAP_BYTES = 64 << 20    # blocks below this come from the heap (and go back to it)
TRIM_BYTES = 256 << 20   # free memory at the heap's top kept before trimming
_done: list = []


def tune() -> bool:
    """Sets glibc's thresholds (once per process) unless the environment says not to.

    Returns:
        Whether the thresholds are set.
    """
    if _done:
        return _done[0]
    ok = False
    if sys.platform.startswith("linux") and \
            os.environ.get("TWINFLOW_KEEP_FREED_MEMORY", "1") != "0":
        try:
            libc = ctypes.CDLL("libc.so.6")
            mallopt = libc.mallopt
        except (OSError, AttributeError):  # not glibc (musl...): leave malloc alone
            mallopt = None
        if mallopt is not None:
            ok = bool(mallopt(_M_MMAP_THRESHOLD, MMAP_BYTES)) and \
                bool(mallopt(_M_TRIM_THRESHOLD, TRIM_BYTES))
    _done.append(ok)
    return ok


tune()
