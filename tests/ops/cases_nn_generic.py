"""Cases for tw.nn's rank-generic entry points (max_pool/avg_pool/pool, convolution,
conv_transpose, conv1d_transpose) at ranks 3, 4 and 5, against N-D NumPy references."""
from __future__ import annotations

import numpy as np

import twinflow as tw

from .cases_conv_nd import np_conv, np_conv_input_grad, np_pool
from .harness import Case

rng = np.random.default_rng(11)

SEQ = rng.permutation(2 * 7 * 3).reshape(2, 7, 3) / 5.0  # distinct values: no max ties
IMG = rng.permutation(2 * 5 * 4 * 2).reshape(2, 5, 4, 2) / 9.0
VOL = rng.permutation(2 * 4 * 3 * 4 * 2).reshape(2, 4, 3, 4, 2) / 11.0
F1, F3 = rng.normal(size=(3, 3, 2)), rng.normal(size=(2, 2, 2, 2, 3))
DY1 = rng.normal(size=(2, 4, 2))  # conv1d(x [2, 8, 3], F1, stride 2)'s output shape
DY3 = rng.normal(size=(2, 2, 2, 2, 3))


def _first(x):  # channels-last -> channels-first
    return np.moveaxis(x, -1, 1)


def _last(x):
    return np.moveaxis(x, 1, -1)


CASES = [
    Case(lambda x: tw.nn.max_pool(x, 2, 2, "SAME"), [VOL],
         lambda x: np_pool(x, (2, 2, 2), (2, 2, 2), "SAME", np.max), name="max_pool_3d_route"),
    Case(lambda x: tw.nn.avg_pool(x, [2, 1, 2], 1, "VALID"), [VOL],
         lambda x: np_pool(x, (2, 1, 2), (1, 1, 1), "VALID", np.mean),
         name="avg_pool_3d_route"),
    Case(lambda x: tw.nn.avg_pool(x, 2, 2, "VALID", data_format="NCDHW"), [_first(VOL)],
         lambda x: _first(np_pool(_last(x), (2, 2, 2), (2, 2, 2), "VALID", np.mean)),
         name="avg_pool_ncdhw_route"),
    Case(lambda x: tw.nn.max_pool(x, 3, 2, "SAME", data_format="NCW"), [_first(SEQ)],
         lambda x: _first(np_pool(_last(x), (3,), (2,), "SAME", np.max)),
         name="max_pool_ncw_route"),
    Case(lambda x: tw.nn.max_pool(x, [1, 1, 2, 2], [1, 1, 2, 1], "VALID", data_format="NCHW"),
         [_first(IMG)], lambda x: _first(np_pool(_last(x), (2, 2), (2, 1), "VALID", np.max)),
         name="max_pool_nchw_route"),
    Case(lambda x: tw.nn.pool(x, [2, 2], "AVG", strides=[2, 1], padding="SAME"), [IMG],
         lambda x: np_pool(x, (2, 2), (2, 1), "SAME", np.mean), name="pool_avg_2d"),
    Case(lambda x: tw.nn.pool(x, [2], "MAX", dilations=[3]), [SEQ],
         lambda x: np.maximum(x[:, 0:4], x[:, 3:7]), name="pool_max_dilated"),
    Case(lambda x: tw.nn.pool(x, [2, 2], "AVG", data_format="NCHW", dilations=[2, 1]),
         [_first(IMG)],
         lambda x: (x[:, :, 0:3, 0:3] + x[:, :, 0:3, 1:4] + x[:, :, 2:5, 0:3]
                    + x[:, :, 2:5, 1:4]) / 4, name="pool_avg_dilated_nchw"),
    Case(lambda x, f: tw.nn.convolution(x, f, strides=[1, 2, 1], padding="SAME"), [VOL, F3],
         lambda x, f: np_conv(x, f, (1, 2, 1), "SAME"), name="convolution_3d"),
    Case(lambda x, f: tw.nn.convolution(x, f, padding="VALID", data_format="NCDHW"),
         [_first(VOL), F3], lambda x, f: _first(np_conv(_last(x), f, (1, 1, 1), "VALID")),
         name="convolution_ncdhw"),
    Case(lambda x, f: tw.nn.convolution(x, f, 2, "SAME", data_format="NCW"), [_first(SEQ), F1],
         lambda x, f: _first(np_conv(_last(x), f, (2,), "SAME")), name="convolution_ncw"),
    Case(lambda dy, f: tw.nn.conv_transpose(dy, f, [2, 8, 3], 2), [DY1, F1],
         lambda dy, f: np_conv_input_grad(dy, f, (2, 8, 3), (2,), "SAME"),
         name="conv_transpose_1d"),
    Case(lambda dy, f: tw.nn.conv1d_transpose(dy, f, [2, 3, 8], [1, 1, 2], "SAME", "NCW"),
         [_first(DY1), F1],
         lambda dy, f: _first(np_conv_input_grad(_last(dy), f, (2, 8, 3), (2,), "SAME")),
         name="conv1d_transpose_ncw"),
    Case(lambda dy, f: tw.nn.conv_transpose(dy, f, [2, 4, 3, 4, 2], [2, 2, 2], "SAME"),
         [DY3, F3],
         lambda dy, f: np_conv_input_grad(dy, f, (2, 4, 3, 4, 2), (2, 2, 2), "SAME"),
         name="conv_transpose_3d"),
]
