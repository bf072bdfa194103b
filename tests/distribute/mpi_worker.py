"""The program each MPI worker of tests/distribute/test_mpi.py runs (``mpiexec -n 2 python
mpi_worker.py SCENARIO OUT_DIR``); each scenario writes what it saw to OUT_DIR/rank<r>.npz."""
from __future__ import annotations

import os
import signal
import sys
import time

import numpy as np

from twinflow.distribute import mpi


def collectives(out: str) -> None:
    comm = mpi.world(timeout=20)
    r, n = comm.rank, comm.size
    grads = [np.full((2, 3), r + 1.0, np.float32), np.arange(4.0) * (r + 1),
             np.array([r, 10 * r], np.int64), np.float16(r + 0.5), np.array(r == 0)]
    s = comm.all_reduce(grads[:4], "sum")
    m = comm.all_reduce(grads[:3], "mean")
    lo = comm.all_reduce([grads[0], grads[4]], "min")
    hi = comm.all_reduce([grads[0], grads[4]], "max")
    gathered = comm.all_gather(np.full((r + 1, 2), r, np.int32))
    gathered_bool = comm.all_gather(np.array([r == 1]))
    b = comm.broadcast([np.full(3, r, np.float64), np.array([r], np.int8)], root=n - 1)
    comm.barrier()
    graph = _graph_collectives(comm)
    np.savez(os.path.join(out, f"rank{r}.npz"), size=n, **graph,
             s0=s[0], s1=s[1], s2=s[2], s3=s[3], m0=m[0], m1=m[1], m2=m[2],
             lo0=lo[0], lo1=lo[1], hi0=hi[0], hi1=hi[1], g=gathered, gb=gathered_bool,
             b0=b[0], b1=b[1], calls=comm.stats["calls"])


def _graph_collectives(comm) -> dict:
    """The collectives as ops in a tw.function, and their gradients."""
    import twinflow as tw
    from twinflow.distribute import mpi_ops

    x = tw.constant(np.arange(4.0, dtype=np.float32).reshape(2, 2) + comm.rank)

    @tw.function
    def step(x):
        with tw.GradientTape() as tape:
            tape.watch(x)
            total, = mpi_ops.all_reduce([x * x], "sum")
            rows = mpi_ops.all_gather(x[: comm.rank + 1] * (comm.rank + 1.0))
            loss = tw.reduce_sum(total) + tw.reduce_sum(rows * rows)
        return total, rows, tape.gradient(loss, x)

    total, rows, grad = step(x)
    return {"gt": total.numpy(), "grows": rows.numpy(), "ggrad": grad.numpy()}


def hang(out: str) -> None:
    """Worker 1 freezes (as a machine that stops answering); worker 0 must fail in time."""
    comm = mpi.world(timeout=3)
    comm.all_reduce([np.ones(4)])
    if comm.rank == 1:
        os.kill(os.getpid(), signal.SIGSTOP)
    start = time.monotonic()
    try:
        comm.all_reduce([np.ones(4)])
    except Exception as e:  # the error the test checks, then the job is aborted at exit
        with open(os.path.join(out, f"error{comm.rank}.txt"), "w") as f:
            f.write(f"{type(e).__name__}: {e}\n{time.monotonic() - start:.2f}\n")
        raise


def die(out: str) -> None:
    """Worker 1 exits in the middle of training; worker 0 is waiting in a collective."""
    comm = mpi.world(timeout=20)
    comm.all_reduce([np.ones(4)])
    if comm.rank == 1:
        os._exit(3)
    comm.all_reduce([np.ones(4)])


if __name__ == "__main__":
    {"collectives": collectives, "hang": hang, "die": die}[sys.argv[1]](sys.argv[2])
