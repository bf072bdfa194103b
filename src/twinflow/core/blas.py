"""The BLAS library under NumPy's matrix products: its thread count, and ``gemm``.

NumPy's wheels bundle OpenBLAS, which runs its own thread pool; its size is set through
``ctypes`` (as ``threadpoolctl`` does) when ``tw.config.threading.
set_intra_op_parallelism_threads`` is called. Loaded lazily: ``import twinflow`` does not pay
for finding the library.

``shifted_gemms`` calls the library's ``cblas_?gemm`` directly for what ``np.matmul`` cannot
say: accumulate (``beta=1``) into blocks of rows of a larger array. The stride-1 convolutions
sum nine products that way instead of nine temporaries and eight additions.
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
    if _state:   # (filled once, under the lock; read without it afterwards)
        return _state
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
                _state.update(lib=lib, set=setter, get=getter, default=int(getter()),
                              gemm=_gemm_functions(lib, ctypes))
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


def threads_itself() -> bool:
    """Whether the BLAS library runs a product on several threads of its own.

    OpenBLAS's threads wait for work spinning, so one product on them (1.8x on two cores
    for the bench MLP's 64x784x256) beats the same product cut in two on twinflow's workers
    with BLAS single-threaded (1.0-1.4x, the hand-off and wake-up costing more than the
    product's half): twinflow splits products itself only when BLAS runs on one thread
    (``OPENBLAS_NUM_THREADS=1``). An unknown library (None) is assumed to thread itself, as
    MKL and Accelerate do.

    Returns:
        False only when the library is known to run on one thread.
    """
    return get_threads() != 1


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


class _Gemm:
    """A cblas gemm of the 64-bit-integer interface NumPy's OpenBLAS exports, called with
    ctypes objects made ahead (``c``: the argument types): without ``argtypes`` a call costs
    ~1.2 µs of Python instead of ~1.6 µs, and a convolution step makes hundreds of them."""

    def __init__(self, fn, ctypes, scalar) -> None:
        fn.restype = None   # (no argtypes: every argument is passed as a ctypes object)
        self.fn, self.i64, self.ptr, self.scalar = fn, ctypes.c_int64, ctypes.c_void_p, scalar
        i32 = ctypes.c_int
        self.row_major, self.no_trans, self.trans = i32(101), i32(111), i32(112)


def _gemm_functions(lib, ctypes) -> dict:
    """{NumPy dtype: ``_Gemm``} for the gemms NumPy's OpenBLAS exports."""
    out = {}
    for dt, name, scalar in ((np.dtype(np.float32), "scipy_cblas_sgemm64_", ctypes.c_float),
                             (np.dtype(np.float64), "scipy_cblas_dgemm64_", ctypes.c_double)):
        if hasattr(lib, name):
            out[dt] = _Gemm(lib[name], ctypes, scalar)   # (lib[name]: a function of our own)
    return out


def _rows(a: np.ndarray) -> int | None:
    """The leading dimension of a 2-D array whose rows are contiguous, else None."""
    if a.ndim != 2 or a.strides[1] != a.itemsize or a.strides[0] % a.itemsize:
        return None
    ld = a.strides[0] // a.itemsize
    return ld if ld >= max(a.shape[1], 1) else None


def shifted_gemms(a: np.ndarray, a_offs, w: np.ndarray, c: np.ndarray, c_offs, m: int,
                  beta0: float, chunk: int = 0) -> bool:
    """For each k, ``c[c_offs[k]:][:m] = a[a_offs[k]:][:m] @ w[k] + beta * c[c_offs[k]:][:m]``,
    in place, ``beta`` being ``beta0`` for the first product and 1 for the others.

    With ``chunk``, the rows go in groups of ``chunk``: every product over rows ``[s, s +
    chunk)`` of its blocks (``beta0`` again for the first) before the next group, so that a
    group of ``a`` and ``c`` is read from cache by every product (for equal ``c_offs`` the
    result is the same; 25% faster for the thin products of a convolution).

    ``a`` and ``c`` are 2-D with contiguous rows (any row stride), ``w`` is a C-contiguous
    ``[K, a.shape[1], c.shape[1]]``, all of one dtype, float32 or float64, and ``c`` shares no
    memory with ``a`` or ``w``. The row blocks are passed to BLAS as pointers into ``a`` and
    ``c``, after one check of their bounds (a product costs ~2 us of Python, not ~7 as through
    NumPy's ``ctypes`` views). Nothing happens when the library or a condition is missing:
    the caller then computes it with NumPy.

    Args:
        a: the rows the products read.
        a_offs: the first row of each product's block of ``a``.
        w: one ``[k, n]`` matrix per product.
        c: the rows the products write.
        c_offs: the first row of each product's block of ``c``.
        m: rows per block.
        beta0: 0 to overwrite the first block of ``c``, 1 to add to it.
        chunk: rows per group (0: all ``m`` at once).

    Returns:
        Whether it was computed.
    """
    got = _operands(a, c, w, c)
    if got is None:
        return False
    fn, lda, ldc = got
    nk, kdim, n = w.shape
    if a.shape[1] != kdim or c.shape[1] != n or not kdim or len(c_offs) != nk \
            or not _fits(a_offs, m, a, nk) or not _fits(c_offs, m, c, nk):
        return False
    if not (m and n):
        return True
    isz = a.itemsize
    pa, pc = a.ctypes.data, c.ctypes.data
    i64, ptr, scalar, call = fn.i64, fn.ptr, fn.scalar, fn.fn
    ws = [ptr(w.ctypes.data + k * kdim * n * isz) for k in range(nk)]
    nn, kk, la, lc, one, first = i64(n), i64(kdim), i64(lda), i64(ldc), scalar(1.0), \
        scalar(beta0)
    step = chunk if chunk > 0 else m
    for s in range(0, m, step):
        rows, beta = i64(min(step, m - s)), first
        for k in range(nk):
            call(fn.row_major, fn.no_trans, fn.no_trans, rows, nn, kk, one,
                 ptr(pa + (a_offs[k] + s) * lda * isz), la, ws[k], nn, beta,
                 ptr(pc + (c_offs[k] + s) * ldc * isz), lc)
            beta = one
    return True


def shifted_gemms_t(a: np.ndarray, a_offs, b: np.ndarray, c: np.ndarray, m: int,
                    chunk: int = 0) -> bool:
    """For each k, ``c[k] = a[a_offs[k]:][:m].T @ b[:m]``: the filter gradient of a stride-1
    convolution (``a`` the input rows, ``b`` the output gradient's rows), summed over groups
    of ``chunk`` rows (0: all at once) so that a group of ``a`` and ``b`` is read from cache
    by every product (35% faster than whole blocks, whose operands BLAS packs nine times).

    ``a`` and ``b`` are 2-D with contiguous rows, ``c`` a C-contiguous ``[K, a.shape[1],
    b.shape[1]]`` sharing no memory with them, one dtype (float32 or float64). Nothing happens
    when the library or a condition is missing: the caller then computes it with NumPy.

    Args:
        a: the rows whose shifted blocks are transposed.
        a_offs: the first row of each product's block of ``a``.
        b: the rows every product reads from row 0.
        c: the ``K`` results.
        m: rows of each block, and of ``b`` read.
        chunk: the rows summed per group of products (0: ``m``).

    Returns:
        False when nothing was done (the caller then uses NumPy).
    """
    got = _operands(a, b, c, c)
    if got is None:
        return False
    fn, lda, ldb = got
    nk, p, n = c.shape
    if a.shape[1] != p or b.shape[1] != n or not _fits(a_offs, m, a, nk) \
            or not _fits([0], m, b, 1):
        return False
    if not (p and n):
        return True
    if not m:
        c[...] = 0
        return True
    isz = a.itemsize
    pa, pb = a.ctypes.data, b.ctypes.data
    i64, ptr, scalar, call = fn.i64, fn.ptr, fn.scalar, fn.fn
    cs = [ptr(c.ctypes.data + k * p * n * isz) for k in range(nk)]
    pp, nn, la, lb, one, beta = i64(p), i64(n), i64(lda), i64(ldb), scalar(1.0), scalar(0.0)
    step = chunk if chunk > 0 else m
    for s in range(0, m, step):
        rows, bs = i64(min(step, m - s)), ptr(pb + s * ldb * isz)
        for k in range(nk):   # (a transposed)
            call(fn.row_major, fn.trans, fn.no_trans, pp, nn, rows, one,
                 ptr(pa + (a_offs[k] + s) * lda * isz), la, bs, lb, beta, cs[k], nn)
        beta = one
    return True


def _operands(a: np.ndarray, b: np.ndarray, w: np.ndarray, out: np.ndarray):
    """(cblas gemm, a's and b's leading dimensions) when ``a`` and ``b`` are 2-D with contiguous
    rows, ``w`` a C-contiguous 3-D array, all of one dtype BLAS has, and ``out`` writable; else
    None."""
    fn = _load().get("gemm", {}).get(a.dtype)
    if fn is None or not (a.dtype == b.dtype == w.dtype) or not out.flags.writeable \
            or w.ndim != 3 or not w.flags.c_contiguous:
        return None
    lda, ldb = _rows(a), _rows(b)
    return None if lda is None or ldb is None else (fn, lda, ldb)


def _fits(offs, m: int, x: np.ndarray, count: int) -> bool:
    """Whether there are ``count`` offsets and every block ``x[o:o + m]`` lies inside ``x``."""
    return len(offs) == count and m >= 0 and all(0 <= o <= x.shape[0] - m for o in offs)


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
