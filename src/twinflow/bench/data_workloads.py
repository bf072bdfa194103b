"""``tw.data`` workloads: an input pipeline whose map costs about as much as the training step
that consumes it, run serially and with ``map(num_parallel_calls=2)`` + ``prefetch``.

Both rows time one epoch (16 elements of 400k float32 values; the map and the step are each
a few elementwise kernels, which release the GIL). Their ratio is the speed-up from overlapping
the pipeline with the step: at best 2x on two free cores.
"""
from __future__ import annotations

import numpy as np

import twinflow as tw

from .workloads import Step, Workload

_N, _SIZE = 16, 400_000


def _setup() -> dict:
    rng = np.random.default_rng(0)
    return {"x": rng.normal(size=(_N, _SIZE)).astype(np.float32)}


def _augment(x):
    # about as much work as _train_step
    return tw.tanh(x) * 0.5 + tw.sin(x) * 0.25


def _train_step(x) -> float:
    return float(tw.reduce_sum(tw.exp(tw.tanh(x)) * tw.cos(x)))


def _pipeline(inp: dict, parallel: bool) -> Step:
    ds = tw.data.Dataset.from_tensor_slices(inp["x"])
    if parallel:
        ds = ds.map(_augment, num_parallel_calls=2).prefetch(2)
    else:
        ds = ds.map(_augment)

    def epoch():
        total = 0.0
        for x in ds:
            total += _train_step(x)
        return total
    return epoch


DATA_WORKLOADS: list = [
    Workload("pipeline_serial", "tw.data epoch: map then step, one after the other",
             _setup, None, lambda inp, mode: _pipeline(inp, False)),
    Workload("pipeline_overlap", "same epoch, map(num_parallel_calls=2).prefetch(2) "
             "overlapping the step", _setup, None, lambda inp, mode: _pipeline(inp, True)),
]
