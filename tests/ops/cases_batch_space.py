"""Cases for space_to_batch_nd / batch_to_space_nd and dynamic_partition / dynamic_stitch.

The references are written independently of the kernels: block offsets as strided slices."""
import itertools

import numpy as np

import twinflow as tw

from .harness import Case

rng = np.random.default_rng(11)
X = rng.normal(size=(2, 4, 5, 3))
Y = rng.normal(size=(12, 2, 3, 2))
D = rng.normal(size=(4, 3))
P = np.array([1, 0, 2, 1], np.int32)


def _np_s2b(x, block, pads):
    m = len(block)
    xp = np.pad(x, [(0, 0)] + pads + [(0, 0)] * (x.ndim - m - 1))
    parts = [xp[(slice(None),) + tuple(slice(o, None, b) for o, b in zip(offs, block))]
             for offs in itertools.product(*[range(b) for b in block])]
    return np.concatenate(parts, 0)


def _np_b2s(x, block, crops):
    m = len(block)
    n = x.shape[0] // int(np.prod(block))
    out = np.zeros((n,) + tuple(d * b for d, b in zip(x.shape[1:m + 1], block)) + x.shape[m + 1:])
    for k, offs in enumerate(itertools.product(*[range(b) for b in block])):
        out[(slice(None),) + tuple(slice(o, None, b) for o, b in zip(offs, block))] = \
            x[k * n:(k + 1) * n]
    return out[(slice(None),) + tuple(slice(c0, out.shape[i + 1] - c1)
                                      for i, (c0, c1) in enumerate(crops))]


def _np_stitch(i0, i1, d0, d1):
    out = np.zeros((max(i0.max(), i1.max()) + 1,) + d0.shape[1:])
    out[i0] = d0
    out[i1] = d1
    return out


CASES = [
    Case(lambda x: tw.space_to_batch_nd(x, [2, 3], [[0, 2], [1, 0]]), [X],
         lambda x: _np_s2b(x, [2, 3], [(0, 2), (1, 0)]), name="space_to_batch_nd"),
    Case(lambda x: tw.space_to_batch(x, [2], [[1, 1]]), [X[:, :, 0]],
         lambda x: _np_s2b(x, [2], [(1, 1)]), name="space_to_batch_1d"),
    Case(lambda x: tw.batch_to_space(x, [2, 3], [[1, 0], [0, 2]]), [Y],
         lambda x: _np_b2s(x, [2, 3], [(1, 0), (0, 2)]), name="batch_to_space"),
    Case(lambda d, p: tuple(tw.dynamic_partition(d, p, 3)), [D, P],
         lambda d, p: tuple(d[p == i] for i in range(3)), graph=False, name="dynamic_partition"),
    Case(lambda d, p: tuple(tw.dynamic_partition(d, p, 2)), [D, np.array([[1, 0, 1]] * 4,
         np.int32)], lambda d, p: (d[p == 0], d[p == 1]), graph=False,
         name="dynamic_partition_2d"),
    Case(lambda i0, i1, d0, d1: tw.dynamic_stitch([i0, i1], [d0, d1]),
         [np.array([0, 3], np.int32), np.array([1, 2, 4], np.int32), D[:2], rng.normal(
             size=(3, 3))], _np_stitch, graph=False, name="dynamic_stitch"),
]

# Output lengths depend on the values, which the registry's static-shape rule cannot check.
COVERED_ELSEWHERE = {
    "DynamicPartition": "dynamic_partition* (eager) and tests/ops/test_batch_space.py",
    "DynamicStitch": "dynamic_stitch (eager) and tests/ops/test_batch_space.py",
}
