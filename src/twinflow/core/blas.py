"""The thread count of the BLAS library under NumPy's matrix products.

NumPy's wheels bundle OpenBLAS, which runs its own thread pool; its size is set through
``ctypes`` (as ``threadpoolctl`` does) when ``tw.config.threading.
set_intra_op_parallelism_threads`` is called. Loaded lazily: ``import twinflow`` does not pay
for finding the library.
"""
from __future__ import annotations

import glob
import os
import threading

import numpy as np

_lock = threading.Lock()
_state: dict = {}   # "lib", "set", "get", "default"

_SETTERS = ("scipy_openblas_set_num_threads64_", "scipy_openblas_set_num_threads",
            "openblas_set_num_threads64_", "openblas_set_num_threads")
_GETTERS = ("scipy_openblas_get_num_threads64_", "scipy_openblas_get_num_threads",
            "openblas_get_num_threads64_", "openblas_get_num_threads")


def _load() -> dict:
    with _lock:
        if _state:
            return _state
        import ctypes  # noqa: PLC0415  (only when a thread count is set)
        base = os.path.dirname(os.path.dirname(np.__file__))
        paths = glob.glob(os.path.join(base, "numpy.libs", "*openblas*")) + \
            glob.glob(os.path.join(os.path.dirname(np.__file__), ".dylibs", "*openblas*"))
        for path in paths:
            try:
                lib = ctypes.CDLL(path)
            except OSError:
                continue
            setter = next((getattr(lib, n) for n in _SETTERS if hasattr(lib, n)), None)
            getter = next((getattr(lib, n) for n in _GETTERS if hasattr(lib, n)), None)
            if setter is not None and getter is not None:
                _state.update(lib=lib, set=setter, get=getter, default=int(getter()))
                return _state
        _state["lib"] = None
        return _state


def available() -> bool:
    """Whether the BLAS thread count can be controlled (NumPy on a bundled OpenBLAS).

    Returns:
        True when it can.
    """
    return _load()["lib"] is not None


def get_threads() -> int | None:
    """The BLAS library's current thread count.

    Returns:
        The count, or None when it cannot be read.
    """
    st = _load()
    return int(st["get"]()) if st["lib"] is not None else None


def set_threads(n: int) -> bool:
    """Sets the BLAS thread count; 0 restores the count it had when twinflow first looked.

    Args:
        n: threads (0: the library's own default).

    Returns:
        Whether the library could be told.
    """
    st = _load()
    if st["lib"] is None:
        return False
    st["set"](int(n) if n > 0 else st["default"])
    return True


_single = {"depth": 0, "saved": None}
_single_lock = threading.Lock()


class single_threaded:
    """Context: BLAS runs one thread per call while twinflow's own threads share the work
    (nested or concurrent uses keep it single until the last one leaves).

    Both levels of threads at once oversubscribe the cores; with BLAS threads busy-waiting for
    a descheduled sibling, a product can take ten times longer on a loaded machine.
    """

    def __enter__(self):
        if not available():   # (loads the library outside the lock below)
            return self
        with _single_lock:
            if _single["depth"] == 0:
                _single["saved"] = int(_state["get"]())
                if _single["saved"] != 1:
                    _state["set"](1)
            _single["depth"] += 1
        return self

    def __exit__(self, *exc) -> None:
        if not available():
            return
        with _single_lock:
            _single["depth"] -= 1
            if _single["depth"] == 0 and _single["saved"] not in (None, 1):
                _state["set"](_single["saved"])
