"""``twinflow bench --mpi``: data-parallel training of the MLP step (784-256-128-10) on N MPI
workers against one worker, with the same global batch and one BLAS thread per worker.

``run_mpi_bench`` starts ``mpiexec -n 1`` and ``mpiexec -n N`` running ``worker_main``; each
worker trains on its shard of every global batch: one ``tw.function`` computes the shard's loss
and gradients, averages the gradients over the workers with one fused ``MpiAllReduce`` op and
applies them. Worker 0 prints one JSON line: seconds per step (best of
``repeat`` runs), the part spent in the all-reduce, and the all-reduce alone.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence

import numpy as np

import twinflow as tw
from twinflow.distribute import mpi, mpi_ops

from .workloads import mlp_loss

__all__ = ["run_mpi_bench", "format_mpi_report", "worker_main"]

_SIZES = (784, 256, 128, 10)
# What each worker runs (not ``-m``: this module is imported by ``twinflow.bench`` already).
_WORKER = ("import sys; from twinflow.bench.mpi_workload import worker_main; "
           "sys.exit(worker_main(sys.argv[1:]))")


def _train_step(global_batch: int, comm):
    """This worker's shard of the data, the parameters and one ``tw.function`` that computes
    the shard's gradients, averages them over the workers (one fused ``MpiAllReduce`` op) and
    applies them."""
    rng = np.random.default_rng(3)
    x = rng.normal(size=(global_batch, 784)).astype(np.float32)
    labels = rng.integers(0, 10, size=global_batch).astype(np.int32)
    params = []
    for m, n in zip(_SIZES[:-1], _SIZES[1:]):
        params.append(tw.Variable((rng.normal(size=(m, n)) * np.sqrt(2.0 / m))
                                  .astype(np.float32)))
        params.append(tw.Variable(np.zeros(n, np.float32)))
    shard = global_batch // comm.size
    xs = tw.constant(x[comm.rank * shard:(comm.rank + 1) * shard])
    ys = tw.constant(labels[comm.rank * shard:(comm.rank + 1) * shard])

    @tw.function
    def train_step(x, labels):
        with tw.GradientTape() as tape:
            loss = mlp_loss(params, x, labels)
        grads = mpi_ops.all_reduce(tape.gradient(loss, params), "mean", comm)
        for p, g in zip(params, grads):
            p.assign_sub(0.01 * g)
        return loss

    return params, lambda: train_step(xs, ys)


def worker_main(argv: Sequence[str] | None = None) -> int:
    """One worker of the benchmark (run by ``mpiexec``); worker 0 prints a JSON line.

    Args:
        argv: ``--global-batch B --steps S --repeat R``.

    Returns:
        The exit status (0).
    """
    p = argparse.ArgumentParser(prog="twinflow.bench.mpi_workload.worker_main")
    p.add_argument("--global-batch", type=int, default=256)
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args(argv)
    comm = mpi.world(timeout=120)
    if args.global_batch % comm.size:
        raise ValueError(f"--global-batch {args.global_batch} is not divisible by the "
                         f"{comm.size} workers")
    params, step = _train_step(args.global_batch, comm)
    step()  # trace and compile
    best, reduce_s, compute = float("inf"), 0.0, float("inf")
    for _ in range(args.repeat):
        comm.barrier()
        waited, waited_cpu = comm.stats["seconds"], comm.stats["cpu_seconds"]
        start, cpu = time.perf_counter(), time.process_time()
        for _ in range(args.steps):
            step()
        elapsed = (time.perf_counter() - start) / args.steps
        spent = (comm.stats["seconds"] - waited) / args.steps
        # this worker's own computation: its CPU time less the CPU it spent polling MPI
        used = (time.process_time() - cpu - (comm.stats["cpu_seconds"] - waited_cpu)) \
            / args.steps
        # the slowest worker sets the pace: take the max over the workers
        elapsed, spent, used = (float(v) for v in comm.all_reduce(
            [np.float64(elapsed), np.float64(spent), np.float64(used)], "max"))
        compute = min(compute, used)
        if elapsed < best:
            best, reduce_s = elapsed, spent
    # the all-reduce alone, the workers already in step (a barrier first): its pure cost
    # (the fastest of many calls: on a busy machine most calls also wait for the other
    # worker to be scheduled)
    payload = [v.numpy() for v in params]
    pure = float("inf")
    for _ in range(args.repeat * args.steps):
        comm.barrier()
        start = time.perf_counter()
        comm.all_reduce(payload, "mean")
        pure = min(pure, time.perf_counter() - start)
    pure = float(comm.all_reduce([np.float64(pure)], "max")[0])
    checksum = float(sum(float(np.abs(v.numpy()).sum()) for v in params))
    if comm.rank == 0:
        print(json.dumps({"workers": comm.size, "global_batch": args.global_batch,
                          "step_s": best, "allreduce_s": reduce_s, "pure_allreduce_s": pure,
                          "compute_cpu_s": compute,
                          "allreduce_bytes": sum(int(v.numpy().nbytes) for v in params),
                          "checksum": checksum}), flush=True)
    return 0


def _mpiexec(n: int, args: Sequence[str], timeout: float) -> dict:
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    if hasattr(os, "geteuid") and os.geteuid() == 0:  # Open MPI refuses root without these
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    cmd = ["mpiexec", "-n", str(n), "--oversubscribe", sys.executable, "-c", _WORKER, *args]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def run_mpi_bench(workers: int = 2, global_batch: int = 256, steps: int = 30, repeat: int = 3,
                  timeout: float = 300) -> list:
    """Runs the benchmark on 1 worker and on ``workers`` workers.

    Args:
        workers: the number of MPI workers to compare with one.
        global_batch: samples per step, over all workers.
        steps: steps per timed run.
        repeat: best of this many timed runs.
        timeout: seconds allowed per ``mpiexec``.

    Returns:
        Two dicts (1 worker, ``workers`` workers) with ``step_s``, ``allreduce_s``...
    """
    if shutil.which("mpiexec") is None:
        raise RuntimeError("twinflow bench --mpi needs `mpiexec`: pip install "
                           "'twinflow[distributed]'")
    mpi.load_mpi()
    args = ["--global-batch", str(global_batch), "--steps", str(steps), "--repeat", str(repeat)]
    return [_mpiexec(n, args, timeout) for n in (1, workers)]


def _busy(result: dict) -> float:
    return result["compute_cpu_s"] + result["pure_allreduce_s"]


def format_mpi_report(results: Sequence[dict]) -> str:
    """The benchmark's report.

    Args:
        results: from ``run_mpi_bench``.

    Returns:
        The text.
    """
    one, many = results
    lines = [f"data-parallel MLP 784-256-128-10 step, global batch {one['global_batch']}, "
             "OPENBLAS_NUM_THREADS=1 per worker",
             f"{'workers':>7} {'step':>10} {'in all-reduce':>14} {'share':>6} "
             f"{'all-reduce alone':>16} {'speed-up':>8} {'compute CPU':>12} {'ideal':>6}"]
    for r in (one, many):
        lines.append(f"{r['workers']:>7} {r['step_s'] * 1e3:>8.2f}ms "
                     f"{r['allreduce_s'] * 1e3:>12.3f}ms {r['allreduce_s'] / r['step_s']:>6.1%} "
                     f"{r['pure_allreduce_s'] * 1e3:>14.3f}ms "
                     f"{one['step_s'] / r['step_s']:>7.2f}x "
                     f"{r['compute_cpu_s'] * 1e3:>10.2f}ms "
                     f"{_busy(one) / _busy(r):>5.2f}x")
    lines.append(f"all-reduce payload: {many['allreduce_bytes'] / 1e6:.2f} MB of float32 "
                 "gradients per step, one fused MpiAllReduce op ('in all-reduce' includes "
                 "waiting for the slower worker; 'alone' is the collective with the workers in "
                 "step)")
    lines.append("compute CPU: the slowest worker's CPU time per step less its CPU time polling "
                 "MPI; "
                 "ideal: (compute CPU + all-reduce alone) of 1 worker over that of N, the "
                 "speed-up when every worker has a core of its own")
    lines.append(f"weights after training agree: |1-worker - {many['workers']}-worker| checksum "
                 f"difference {abs(one['checksum'] - many['checksum']):.2g}")
    return "\n".join(lines)
