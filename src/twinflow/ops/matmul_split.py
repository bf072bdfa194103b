"""Large matrix products of a compiled graph, split over threads.

A 2-D ``MatMul`` whose static shapes make it large (``SPLIT_MIN_FLOPS``) lowers to a kernel that
writes the product in blocks of output rows (or of columns, when there are more of them), one
BLAS call per block, the blocks computed at once on ``core.workers`` (NumPy releases the GIL
in BLAS). ``tw.config.threading.set_intra_op_parallelism_threads(1)`` makes it one ordinary
product again. Block edges fall on multiples of ``ALIGN`` so that each block runs the same
inner kernels as the whole product; the result usually equals the unsplit product bit for bit,
but BLAS may order a sum differently for a smaller problem (a few ulp; docs/tf_differences.md).
"""
from __future__ import annotations

import numpy as np

from ..core import blas
from ..core.parallel import intra_threads
from ..core.workers import machine_busy, run_calls

# Below this many flops (2*m*n*k) a thread hand-off (~10-20 µs) costs more than half the product
# saves: 8 MFLOP is ~85 µs of float32 work on one core.
SPLIT_MIN_FLOPS = 8 << 20
# Block edges fall on multiples of this many rows/columns (a multiple of BLAS's register tiles).
ALIGN = 32
_BLAS_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def _product(a, b, out) -> None:
    np.matmul(a, b, out=out)


def split_kernel(base, op):
    """The kernel of a ``MatMul`` op: ``base`` itself, or when the product is 2-D, of static
    shape, a BLAS dtype and large, a kernel splitting it over threads.

    Args:
        base: the unsplit kernel ``base(a, b)`` (with the op's transposes folded in).
        op: the ``MatMul`` operation.

    Returns:
        ``base``, or a callable of ``(a, b)`` returning a new array (``fresh_result``).
    """
    a, b = op.inputs
    ta, tb = bool(op.attrs.get("transpose_a")), bool(op.attrs.get("transpose_b"))
    if a.shape.rank != 2 or b.shape.rank != 2 or not op.outputs[0].shape.is_fully_defined():
        return base
    m, n = op.outputs[0].shape.as_list()
    k = a.shape.as_list()[0 if ta else 1]
    dtype = a.dtype.np
    by_rows = m >= n
    size = m if by_rows else n
    if k is None or dtype not in _BLAS_DTYPES or 2 * m * n * k < SPLIT_MIN_FLOPS \
            or size < 2 * ALIGN:
        return base

    def split_matmul(a, b):
        parts = min(intra_threads(), size // ALIGN)
        if parts <= 1 or blas.threads_itself():
            return base(a, b)
        x = a.T if ta else a
        y = b.T if tb else b
        out = np.empty((m, n), dtype)
        step = -(-size // parts)
        step = -(-step // ALIGN) * ALIGN
        calls = []
        for s in range(0, size, step):
            e = min(s + step, size)
            if by_rows:
                calls.append((_product, (x[s:e], y, out[s:e])))
            else:
                calls.append((_product, (x, y[:, s:e], out[:, s:e])))
        # (the same blocks in order on a busy machine: the bits never depend on the load)
        run_calls(calls, 1 if machine_busy() else parts)
        return out

    split_matmul.fresh_result = True
    return split_matmul
