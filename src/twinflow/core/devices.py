"""Logical devices: device specs, the process's device list, per-device executors, rendezvous.

* ``DeviceSpec`` parses and merges device strings as TensorFlow does (``'/cpu:1'``,
  ``'/job:localhost/replica:0/task:0/device:CPU:1'``); nested ``tw.device`` scopes merge.
* ``runtime`` holds the logical device configuration. It is fixed when the runtime starts (the
  first op, the first ``tw.device`` scope, the first ``list_logical_devices``), as in
  TensorFlow; until then ``tw.config.set_logical_device_configuration`` may split the CPU into N
  logical CPUs.
* Each ``Device`` owns an ``Executor``: worker threads that run the device's partitions of a
  graph. Kernels are device-agnostic NumPy functions; a device only decides *where* (which
  thread) they run, so another kind of device (a CuPy GPU) would plug in as another Executor.
* ``Rendezvous``: the mailbox through which the ``_Send``/``_Recv`` ops of one partitioned
  graph call hand tensors from one device's partition to another's.

Until the runtime starts, ``process.quiet`` is False (``runtime`` counts as one busy thread), so
the first eager op leaves the fast path once and starts it; afterwards placement costs nothing
while no thread is inside a ``tw.device`` scope.
"""
from __future__ import annotations

import contextlib
import queue
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

from .context import ctx, process
from .errors import InvalidArgumentError

_TYPES = ("CPU", "GPU", "TPU", "CUSTOM", "EPU")
LOCAL = "/job:localhost/replica:0/task:0"


class DeviceSpec:
    """A (partial) device name, as ``tf.DeviceSpec``.

    Args:
        job: the job name, or None.
        replica: the replica index, or None.
        task: the task index, or None.
        device_type: ``'CPU'``, ``'GPU'``... or None.
        device_index: the device index, or None (any).
    """

    __slots__ = ("job", "replica", "task", "device_type", "device_index")

    def __init__(self, job: str | None = None, replica: int | None = None,
                 task: int | None = None, device_type: str | None = None,
                 device_index: int | None = None) -> None:
        self.job = job
        self.replica = None if replica is None else int(replica)
        self.task = None if task is None else int(task)
        upper = device_type.upper() if device_type else None
        self.device_type = upper if upper in _TYPES else device_type
        self.device_index = None if device_index is None else int(device_index)

    @classmethod
    def from_string(cls, spec: str) -> DeviceSpec:
        """Parses a device string.

        Args:
            spec: e.g. ``'/cpu:1'``, ``'GPU:0'``, ``'/job:w/task:1/device:CPU:0'``.

        Returns:
            The DeviceSpec.

        Raises:
            ValueError: a part of the string is not a device attribute.
        """
        out = cls()
        for part in (spec or "").split("/"):
            y = part.split(":")
            n = len(y)
            key = y[0]
            if not part:
                continue
            if n == 2 and key in ("job", "replica", "task"):
                setattr(out, key, y[1] if key == "job" else _int(y[1], spec))
            elif n in (1, 2) and key.upper() in _TYPES:
                out.device_type = key.upper()
                out.device_index = None if n == 1 or y[1] == "*" else _int(y[1], spec)
            elif n in (2, 3) and key == "device":
                t = y[1].upper()
                out.device_type = t if t in _TYPES else y[1]
                out.device_index = None if n == 2 or y[2] == "*" else _int(y[2], spec)
            else:
                raise ValueError(f"Unknown attribute '{key}' is encountered while parsing the "
                                 f"device spec: '{spec}'.")
        return out

    def make_merged_spec(self, dev: DeviceSpec) -> DeviceSpec:
        """This spec with the fields ``dev`` sets replaced by ``dev``'s.

        Args:
            dev: the spec whose set fields win.

        Returns:
            A new DeviceSpec.
        """
        out = DeviceSpec(*(getattr(self, f) for f in self.__slots__))
        for f in self.__slots__:
            v = getattr(dev, f)
            if v is not None:
                setattr(out, f, v)
        return out

    def replace(self, **kwargs: Any) -> DeviceSpec:
        """A copy with some fields changed.

        Args:
            **kwargs: job, replica, task, device_type, device_index.

        Returns:
            A new DeviceSpec.
        """
        fields = {f: getattr(self, f) for f in self.__slots__}
        fields.update(kwargs)
        return DeviceSpec(**fields)

    def to_string(self) -> str:
        """The device string (only the fields that are set).

        Returns:
            e.g. ``'/job:localhost/device:CPU:1'``.
        """
        s = ""
        for f in ("job", "replica", "task"):
            v = getattr(self, f)
            if v is not None:
                s += f"/{f}:{v}"
        if self.device_type is not None:
            index = "*" if self.device_index is None else self.device_index
            s += f"/device:{self.device_type}:{index}"
        return s

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DeviceSpec) and self.to_string() == other.to_string()

    def __hash__(self) -> int:
        return hash(self.to_string())

    def __repr__(self) -> str:
        return (f"<DeviceSpec(job={self.job}, replica={self.replica}, task={self.task}, "
                f"device_type={self.device_type}, device_index={self.device_index})>")


def _int(text: str, spec: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"Invalid device index '{text}' in the device spec: '{spec}'.") from None


def merge(outer: str, inner: str | None) -> str:
    """The device string of a ``tw.device(inner)`` scope nested in one of ``outer``.

    Args:
        outer: the enclosing merged spec ('' for none).
        inner: the new scope's string; None clears the scope, '' keeps ``outer``.

    Returns:
        The merged string ('' when nothing is set).
    """
    if inner is None:
        return ""
    if isinstance(inner, DeviceSpec):
        inner = inner.to_string()
    if not isinstance(inner, str):
        raise TypeError(f"tw.device: expected a device string, a DeviceSpec or None, got "
                        f"{inner!r}")
    key = (outer, inner)
    got = _MERGED.get(key)
    if got is None:
        spec = DeviceSpec.from_string(inner)
        if outer:
            spec = DeviceSpec.from_string(outer).make_merged_spec(spec)
        got = spec.to_string()
        if len(_MERGED) < 4096:  # (a program names few devices; never grow without bound)
            _MERGED[key] = got
    return got


_MERGED: dict = {}   # (outer, inner) -> merged string: entering a scope parses nothing


class LogicalDeviceConfiguration(NamedTuple):
    """One logical device to create from a physical one (``tf.config.LogicalDeviceConfiguration``).

    ``memory_limit`` is refused for CPUs, as in TensorFlow; the other fields are accepted.
    """

    memory_limit: int | None = None
    experimental_priority: int | None = None
    experimental_device_ordinal: int | None = None


class _Job:
    """A function submitted to an Executor: its result or exception, and when it is done."""

    __slots__ = ("fn", "args", "result", "error", "done")

    def __init__(self, fn: Callable, args: tuple) -> None:
        self.fn, self.args = fn, args
        self.result: Any = None
        self.error: BaseException | None = None
        self.done = threading.Event()

    def wait(self) -> Any:
        self.done.wait()
        if self.error is not None:
            raise self.error
        return self.result


class Executor:
    """The threads of one device. A job runs on an idle worker, or on a new one when all are
    busy (a partition waiting on a ``_Recv`` must never keep another call's partition of the
    same device from running: one thread per device could deadlock two concurrent calls).

    Args:
        device: the Device whose work this executor runs.
    """

    def __init__(self, device: Device) -> None:
        self.device = device
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._idle = 0
        self.threads: list = []

    def submit(self, fn: Callable, *args: Any) -> _Job:
        """Runs ``fn(*args)`` on one of this device's threads.

        Args:
            fn: the function.
            *args: its arguments.

        Returns:
            A job; ``job.wait()`` returns the result or raises the exception.
        """
        job = _Job(fn, args)
        with self._lock:
            if self._idle:
                self._idle -= 1
            else:
                t = threading.Thread(target=self._work, daemon=True,
                                     name=f"twinflow-{self.device.short_name}-"
                                          f"{len(self.threads)}")
                self.threads.append(t)
                t.start()
        self._queue.put(job)
        return job

    def shutdown(self) -> None:
        """Ends the idle threads once the queued jobs are done (the device is gone)."""
        for _ in self.threads:
            self._queue.put(None)

    def _work(self) -> None:
        c = ctx
        while True:
            job = self._queue.get()
            if job is None:
                return
            # Eager ops run by a job (a py_function in a partition) are placed on this device;
            # only while it runs, so that an idle thread keeps no thread off the fast path.
            c.device_stack.append(self.device.spec)
            c.refresh()
            try:
                job.result = job.fn(*job.args)
            except BaseException as e:  # noqa: BLE001  (handed to the waiting caller)
                job.error = e
            finally:
                c.device_stack.pop()
                c.refresh()
            job.fn = job.args = None
            with self._lock:
                self._idle += 1
            job.done.set()


class Device:
    """A logical device: its names and its executor (started on first use).

    Args:
        device_type: ``'CPU'``.
        index: the logical index.
    """

    def __init__(self, device_type: str, index: int) -> None:
        self.device_type = device_type
        self.index = index
        self.short_name = f"{device_type}:{index}"
        self.logical_name = f"/device:{device_type}:{index}"
        self.name = f"{LOCAL}/device:{device_type}:{index}"
        self.spec = self.name
        self._executor: Executor | None = None
        self._lock = threading.Lock()

    @property
    def executor(self) -> Executor:
        """The device's executor (its threads start when the first job is submitted)."""
        if self._executor is None:
            with self._lock:
                if self._executor is None:
                    self._executor = Executor(self)
        return self._executor

    def __repr__(self) -> str:
        return f"<Device {self.name}>"


class Runtime:
    """The process's logical devices; configurable until started."""

    def __init__(self) -> None:
        self.configs: list | None = None   # logical CPU configurations, None: one CPU
        self.started = False
        self.devices: list = []
        self.default: Device | None = None
        self.soft_placement = True
        self.log_placement = False
        # Bumped by ``reset``: caches of placements made for older devices are stale.
        self.generation = 0
        self._resolved: dict = {}
        self._lock = threading.Lock()

    def start(self) -> None:
        """Creates the logical devices (once); later configuration raises RuntimeError."""
        with self._lock:
            if self.started:
                return
            n = len(self.configs) if self.configs else 1
            self.devices = [Device("CPU", i) for i in range(n)]
            self.default = self.devices[0]
            self.started = True
        _set_hook(False)

    def configure(self, configs: list) -> None:
        """Sets the logical CPUs (``set_logical_device_configuration``)."""
        with self._lock:
            if self.started:
                raise RuntimeError("Virtual devices cannot be modified after being initialized")
            self.configs = list(configs) or None

    def reset(self, configs: list | None = None, start: bool = True) -> None:
        """Forgets the started devices so that a test can configure others (as TensorFlow's
        private ``context._reset_context``); tensors keep the names they were placed on.

        Args:
            configs: the logical CPU configurations (None: one CPU).
            start: start the new devices now; if False, the runtime may be configured again
                until its next use, as in a new process.
        """
        with self._lock:
            for d in self.devices:
                if d._executor is not None:
                    d._executor.shutdown()
            self.started = False
            self.configs = list(configs) if configs else None
            self._resolved.clear()
            self.generation += 1
        if start:
            self.start()
        else:
            _set_hook(True)

    def resolve(self, spec: str, op_name: str = "") -> Device:
        """The device an op placed by ``spec`` runs on (soft placement falls back to CPU:0).

        Args:
            spec: a merged device string ('' for the default device).
            op_name: the op, for the error message.

        Returns:
            The Device.

        Raises:
            InvalidArgumentError: no such device and soft placement is off.
        """
        key = (spec, self.soft_placement)
        dev = self._resolved.get(key)
        if dev is None:
            if not self.started:
                self.start()
            dev = self._match(spec)
            if dev is None:
                if not self.soft_placement:
                    full = DeviceSpec.from_string(LOCAL).make_merged_spec(
                        DeviceSpec.from_string(spec)).to_string()
                    names = ", ".join(d.name for d in self.devices)
                    raise InvalidArgumentError(
                        None, None, f"Could not satisfy device specification '{full}'. "
                        f"enable_soft_placement=0. Supported device types [CPU]. All "
                        f"available devices [{names}]. [Op:{op_name}]")
                dev = self.default
            self._resolved[key] = dev
        return dev

    def _match(self, spec: str) -> Device | None:
        if not spec:
            return self.default
        s = DeviceSpec.from_string(spec)
        if s.job not in (None, "localhost") or s.replica not in (None, 0) or \
                s.task not in (None, 0):
            return None
        kind = s.device_type or "CPU"
        for d in self.devices:
            if d.device_type == kind and s.device_index in (None, d.index):
                return d
        return None

    def set_soft_placement(self, enabled: bool) -> None:
        """Sets whether a missing device falls back to CPU:0 (resolutions are cached per
        setting)."""
        self.soft_placement = bool(enabled)

    def log(self, text: str) -> None:
        """Writes one placement line (``tw.debugging.set_log_device_placement``)."""
        print(text, file=sys.stderr)


def _set_hook(on: bool) -> None:
    """Counts (or stops counting) the process-wide reason for eager ops to leave the fast
    path: the runtime not started yet, placement being logged, or a profiler recording."""
    want = (not runtime.started) or runtime.log_placement or process.profiling
    with process.lock:
        if want != process.eager_hook:
            process.eager_hook = want
            process.busy_threads += 1 if want else -1
            process.quiet = process.busy_threads == 0


runtime = Runtime()
_set_hook(True)


def refresh_eager_hook() -> None:
    """Recomputes whether eager ops must leave the fast path (after ``process.profiling``
    changed)."""
    _set_hook(True)


@contextlib.contextmanager
def device(device_name) -> Iterator[None]:
    """Places the ops created in the block on a device (``tf.device``).

    Nested scopes merge (``'/cpu:1'`` inside ``'/job:localhost'``); None clears the scope, ''
    keeps the enclosing one. Eager ops run on the device (their tensors' ``.device`` names it);
    graph ops record the string as their ``op.device``, resolved when the graph runs. A device
    that does not exist falls back to CPU:0 under soft placement (the default) and raises
    InvalidArgumentError when an op runs on it otherwise, as in TensorFlow.

    Args:
        device_name: e.g. ``'/cpu:1'``, ``'/device:CPU:0'``, ``'GPU:0'``, a DeviceSpec, or None.

    Returns:
        A context manager (``with tw.device(name):``).

    Raises:
        ValueError: the string is not a device name.
    """
    if callable(device_name) and not isinstance(device_name, (str, DeviceSpec)):
        raise NotImplementedError("tw.device: device functions (TF1 graph placement "
                                  "callbacks) are not supported; pass a device string")
    c = ctx
    spec = merge(c.device_stack[-1], device_name)
    if c.graph is None and not runtime.started:
        runtime.start()  # entering a device scope starts the runtime, as in TensorFlow
    c.device_stack.append(spec)
    c.refresh()
    try:
        yield
    finally:
        c.device_stack.pop()
        c.refresh()


def placed_device(op_name: str):
    """The Device an eager op of the calling thread runs on (its scope's, else CPU:0).

    Args:
        op_name: the op, for the error message of a device that does not exist.

    Returns:
        The Device.
    """
    return runtime.resolve(ctx.device_stack[-1], op_name)


def set_log_placement(enabled: bool) -> None:
    """Turns placement logging on or off (for every thread).

    Args:
        enabled: whether each eager op and each placed graph node logs its device.
    """
    runtime.log_placement = bool(enabled)
    _set_hook(True)


class Rendezvous:
    """Where the partitions of one graph call exchange tensors: ``send(key, value)`` once,
    ``recv(key)`` blocks until it is sent. ``abort`` wakes every waiter with the error."""

    def __init__(self) -> None:
        self._values: dict = {}
        self._cond = threading.Condition()
        self.error: BaseException | None = None

    def send(self, key: str, value: Any) -> None:
        """Delivers ``value`` under ``key``."""
        with self._cond:
            self._values[key] = value
            self._cond.notify_all()

    def recv(self, key: str) -> Any:
        """The value sent under ``key`` (waits for it)."""
        with self._cond:
            while key not in self._values:
                if self.error is not None:
                    raise _Aborted(f"_Recv of {key!r} cancelled: another partition failed")
                self._cond.wait()
            return self._values.pop(key)

    def abort(self, error: BaseException) -> None:
        """Fails every pending and later ``recv`` (a partition raised ``error``)."""
        with self._cond:
            if self.error is None:
                self.error = error
            self._cond.notify_all()


class _Aborted(RuntimeError):
    """A partition stopped because another partition of the same call failed."""


_local = threading.local()


def current_rendezvous() -> Rendezvous:
    """The rendezvous of the partition the calling thread runs (read by ``_Send``/``_Recv``).

    Returns:
        The Rendezvous.

    Raises:
        RuntimeError: no partitioned graph is running on this thread.
    """
    rv = getattr(_local, "rendezvous", None)
    if rv is None:
        raise RuntimeError("_Send/_Recv ran outside a partitioned graph call")
    return rv


def run_with_rendezvous(rv: Rendezvous, fn: Callable, *args: Any) -> Any:
    """Runs ``fn(*args)`` with ``rv`` as this thread's rendezvous; on an error, aborts ``rv``.

    Args:
        rv: the call's rendezvous.
        fn: a partition's compiled function.
        *args: its input arrays.

    Returns:
        ``fn``'s result.
    """
    saved = getattr(_local, "rendezvous", None)
    _local.rendezvous = rv
    try:
        return fn(*args)
    except BaseException as e:
        rv.abort(e)
        raise
    finally:
        _local.rendezvous = saved


def is_aborted(e: BaseException) -> bool:
    """True for the error of a partition cancelled because another one failed."""
    return isinstance(e, _Aborted)
