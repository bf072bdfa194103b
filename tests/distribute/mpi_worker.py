"""The program each MPI worker of tests/distribute/test_mpi.py runs (``mpiexec -n 2 python
mpi_worker.py SCENARIO OUT_DIR``); each scenario writes what it saw to OUT_DIR/rank<r>.npz."""
from __future__ import annotations

import os
import signal
import sys
import time

import numpy as np

from twinflow.distribute import mpi

try:  # the model and data of the one-process strategy tests
    from .test_keras import _data, _model
except ImportError:  # run as a script by mpiexec
    from test_keras import _data, _model


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
    b = comm.broadcast([np.full(3, r, np.float64), np.array([r], np.int8), np.int64(r)],
                       root=n - 1)
    comm.barrier()
    graph = _graph_collectives(comm)
    np.savez(os.path.join(out, f"rank{r}.npz"), size=n, **graph,
             s0=s[0], s1=s[1], s2=s[2], s3=s[3], m0=m[0], m1=m[1], m2=m[2],
             lo0=lo[0], lo1=lo[1], hi0=hi[0], hi1=hi[1], g=gathered, gb=gathered_bool,
             b0=b[0], b1=b[1], b2=b[2], calls=comm.stats["calls"])


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


def train_data():
    """32 samples of 5 features, 3 regression targets, and the initial weights of worker r."""
    rng = np.random.default_rng(7)
    x = rng.normal(size=(32, 5)).astype(np.float32)
    y = (x @ rng.normal(size=(5, 3)) + 0.1).astype(np.float32)
    return x, y


def initial_weights(seed: int):
    rng = np.random.default_rng(100 + seed)
    return rng.normal(size=(5, 3)).astype(np.float32), rng.normal(size=3).astype(np.float32)


def custom_loop(out: str) -> None:
    """A custom training loop (strategy.run, ReplicaContext.all_reduce, a distributed dataset)
    with global batch 8 for 2 epochs; worker r initializes its variables with seed r, so the
    result only matches one process's if worker 0's values were broadcast."""
    import twinflow as tw
    from twinflow.distribute.mpi_strategy import MultiWorkerMirroredStrategy

    strategy = MultiWorkerMirroredStrategy()
    rank = strategy.cluster_resolver.task_id
    w0, b0 = initial_weights(rank)
    with strategy.scope():
        w, b = tw.Variable(w0), tw.Variable(b0)
    x, y = train_data()
    dist = strategy.experimental_distribute_dataset(
        tw.data.Dataset.from_tensor_slices((x, y)).batch(8))

    def replica_step(batch):
        xb, yb = batch
        with tw.GradientTape() as tape:
            err = tw.matmul(xb, w) + b - yb
            loss = tw.reduce_sum(err * err) / 8.0  # the global batch size
        grads = tape.gradient(loss, [w, b])
        grads = tw.distribute.get_replica_context().all_reduce("SUM", grads)
        w.assign_sub(0.05 * grads[0])
        b.assign_sub(0.05 * grads[1])
        return loss

    @tw.function
    def step(batch):
        return strategy.reduce("SUM", strategy.run(replica_step, args=(batch,)), axis=None)

    losses = [float(step(batch)) for _ in range(2) for batch in dist]
    np.random.seed(rank)  # the workers' generators differ, until fit(shuffle=True) syncs them
    strategy.extended._prepare_fit_input(x, True)
    np.savez(os.path.join(out, f"rank{rank}.npz"), w=w.numpy(), b=b.numpy(),
             order=np.random.permutation(32),
             losses=np.array(losses), replicas=strategy.num_replicas_in_sync,
             chief=strategy.extended.should_checkpoint)


def keras_fit(out: str) -> None:
    """Keras fit for 3 epochs (global batch 8) with BackupAndRestore in OUT/backup. With
    ``crash`` as the third argument, worker 1 dies once epoch 2's backup is written (the
    workers wait for each other first, so the backup is complete)."""
    import twinflow as tw
    from twinflow.distribute.mpi_strategy import MultiWorkerMirroredStrategy

    crash = len(sys.argv) > 3 and sys.argv[3] == "crash"
    strategy = MultiWorkerMirroredStrategy()
    rank = strategy.cluster_resolver.task_id
    with strategy.scope():
        model = _model()
    epochs_run = []

    class Crash(tw.keras.callbacks.Callback):
        def on_epoch_begin(self, epoch, logs=None):
            epochs_run.append(epoch)

        def on_epoch_end(self, epoch, logs=None):
            if crash and epoch == 1:
                mpi.world().barrier()
                if rank == 1:
                    os._exit(3)

    backup = tw.keras.callbacks.BackupAndRestore(os.path.join(out, "backup"),
                                                 delete_checkpoint=False)
    x, y = _data()
    history = model.fit(x, y, batch_size=8, epochs=3, shuffle=False, verbose=0,
                        callbacks=[backup, Crash()])
    np.savez(os.path.join(out, f"fit{rank}.npz"), *model.get_weights(),
             epochs=np.array(epochs_run), loss=np.array(history.history["loss"]),
             evaluated=np.array(model.evaluate(x, y, batch_size=8, verbose=0)),
             predicted=model.predict(x, batch_size=8, verbose=0))


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
    {"collectives": collectives, "hang": hang, "die": die,
     "custom_loop": custom_loop, "keras_fit": keras_fit}[sys.argv[1]](sys.argv[2])
