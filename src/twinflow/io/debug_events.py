"""tfdbg2 dumps (``tw.debugging.experimental.enable_dump_debug_info``): every op run while
enabled becomes a ``DebugEvent`` in TensorFlow's files, which TensorBoard's Debugger V2 and
TensorFlow's ``DebugDataReader`` read.

Eager ops are ``Execution`` events, ops inside a ``tw.function`` ``GraphExecutionTrace`` events
(one per output), with the graph and its ops described once in ``.graphs``. The dumper listens
on the profiler's per-op hook (``core/profiler.py``): while it is off nothing here runs. The
messages are TensorFlow's (``debug_event.proto``: names and field numbers), built in twinflow's
own descriptor pool. Execution and trace events are kept in circular buffers of
``circular_buffer_size`` (<= 0: unbounded); all files are written, atomically, by
``disable_dump_debug_info`` (and at exit).
"""
from __future__ import annotations

import atexit
import collections
import os
import re
import socket
import threading
import time
import uuid

import numpy as np

from ..core import dtypes as _dtypes
from ..core import profiler
from ..graph import protos
from .tfrecord import TFRecordWriter

__all__ = ["enable_dump_debug_info", "disable_dump_debug_info", "MODES"]

MODES = {"NO_TENSOR": 1, "CURT_HEALTH": 2, "CONCISE_HEALTH": 3, "FULL_HEALTH": 4, "SHAPE": 5,
         "FULL_TENSOR": 7}
_M = "msg"
_MESSAGES = {
    "DebugEvent": [("wall_time", 1, "o", "double", None), ("step", 2, "o", "int64", None),
                   ("debug_metadata", 3, "o", _M, "DebugMetadata", "what"),
                   ("source_file", 4, "o", _M, "SourceFile", "what"),
                   ("graph_op_creation", 7, "o", _M, "GraphOpCreation", "what"),
                   ("debugged_graph", 8, "o", _M, "DebuggedGraph", "what"),
                   ("execution", 9, "o", _M, "Execution", "what"),
                   ("graph_execution_trace", 10, "o", _M, "GraphExecutionTrace", "what"),
                   ("graph_id", 11, "o", "string", None, "what"),
                   ("debugged_device", 12, "o", _M, "DebuggedDevice", "what")],
    "DebugMetadata": [("tensorflow_version", 1, "o", "string", None),
                      ("file_version", 2, "o", "string", None),
                      ("tfdbg_run_id", 3, "o", "string", None)],
    "SourceFile": [("file_path", 1, "o", "string", None), ("host_name", 2, "o", "string", None),
                   ("lines", 3, "r", "string", None)],
    "CodeLocation": [("host_name", 1, "o", "string", None),
                     ("stack_frame_ids", 2, "r", "string", None)],
    "GraphOpCreation": [("op_type", 1, "o", "string", None), ("op_name", 2, "o", "string", None),
                        ("graph_name", 3, "o", "string", None),
                        ("graph_id", 4, "o", "string", None),
                        ("device_name", 5, "o", "string", None),
                        ("input_names", 6, "r", "string", None),
                        ("num_outputs", 7, "o", "int32", None),
                        ("code_location", 8, "o", _M, "CodeLocation"),
                        ("output_tensor_ids", 9, "r", "int32", None)],
    "DebuggedGraph": [("graph_id", 1, "o", "string", None), ("graph_name", 2, "o", "string", None),
                      ("instrumented_ops", 3, "r", "string", None),
                      ("original_graph_def", 4, "o", "bytes", None),
                      ("instrumented_graph_def", 5, "o", "bytes", None),
                      ("outer_context_id", 6, "o", "string", None)],
    "DebuggedDevice": [("device_name", 1, "o", "string", None),
                       ("device_id", 2, "o", "int32", None)],
    "Execution": [("op_type", 1, "o", "string", None), ("num_outputs", 2, "o", "int32", None),
                  ("graph_id", 3, "o", "string", None),
                  ("input_tensor_ids", 4, "r", "int64", None),
                  ("output_tensor_ids", 5, "r", "int64", None),
                  ("tensor_debug_mode", 6, "o", "enum", "TensorDebugMode"),
                  ("tensor_protos", 7, "r", _M, "TensorProto"),
                  ("code_location", 8, "o", _M, "CodeLocation"),
                  ("output_tensor_device_ids", 9, "r", "int32", None)],
    "GraphExecutionTrace": [("tfdbg_context_id", 1, "o", "string", None),
                            ("op_name", 2, "o", "string", None),
                            ("output_slot", 3, "o", "int32", None),
                            ("tensor_debug_mode", 4, "o", "enum", "TensorDebugMode"),
                            ("tensor_proto", 5, "o", _M, "TensorProto"),
                            ("device_name", 6, "o", "string", None)],
}
_ENUMS = {"TensorDebugMode": [("UNSPECIFIED", 0), *MODES.items(), ("FULL_NUMERICS", 6),
                              ("REDUCE_INF_NAN_THREE_SLOTS", 8)]}
_DEVICE = "/job:localhost/replica:0/task:0/device:CPU:0"
_SUFFIXES = ("metadata", "source_files", "stack_frames", "graphs", "execution",
             "graph_execution_traces")


# ``message(name)``: the class of tfdbg2 message ``name`` (``DebugEvent``, ``Execution``...).
message = protos.file_message_class("twinflow/debug_event.proto", _MESSAGES, _ENUMS)


def _summary(mode: int, value: np.ndarray, tensor_id: int) -> list | None:
    """The debug values of one tensor as TensorFlow's DebugNumericSummaryV2 gives them."""
    if mode == 5:  # SHAPE: id, dtype, rank, size, the last 6 dims (zero padded)
        shape = list(value.shape)[-6:]
        return [tensor_id, _enum(value), value.ndim, value.size, *shape, *[0] * (6 - len(shape))]
    v = value.ravel()
    ninf, pinf = int(np.count_nonzero(np.isneginf(v))), int(np.count_nonzero(np.isposinf(v)))
    nan = int(np.count_nonzero(np.isnan(v)))
    if mode == 2:  # CURT_HEALTH: id, any inf or nan
        return [tensor_id, float(ninf + pinf + nan > 0)]
    if mode == 3:  # CONCISE_HEALTH: id, size, -inf, +inf, nan counts
        return [tensor_id, v.size, ninf, pinf, nan]
    finite = v[np.isfinite(v)]  # FULL_HEALTH
    neg, zero = int(np.count_nonzero(finite < 0)), int(np.count_nonzero(finite == 0))
    return [tensor_id, -1, _enum(value), value.ndim, v.size, ninf, pinf, nan, neg, zero,
            finite.size - neg - zero]


def _full_tensor(value: np.ndarray):
    """The TensorProto of a whole tensor (FULL_TENSOR)."""
    tp = message("TensorProto")(dtype=_enum(value))
    for n in value.shape:
        tp.tensor_shape.dim.add(size=n)
    if value.dtype == object:
        tp.string_val.extend(v if isinstance(v, bytes) else str(v).encode() for v in value.ravel())
    else:
        tp.tensor_content = np.ascontiguousarray(value).tobytes()
    return tp


def _enum(value: np.ndarray) -> int:
    try:
        return _dtypes.as_dtype(value.dtype).as_datatype_enum
    except (TypeError, ValueError, KeyError):
        return 0


class Dumper:
    """One enabled dump: the settings and the events not yet written."""

    def __init__(self, root: str, mode: str, size: int, op_regex, tensor_dtypes) -> None:
        self.root, self.mode_name, self.mode = root, mode, MODES[mode]
        self.regex = re.compile(op_regex) if op_regex is not None else None
        self.dtype_ok = _dtype_filter(tensor_dtypes)
        self.prefix = os.path.join(root, f"tfdbg_events.{int(time.time() * 1e6)}."
                                         f"{socket.gethostname()}")
        self.run_id = uuid.uuid4().hex
        limit = size if size > 0 else None
        self.executions: collections.deque = collections.deque(maxlen=limit)
        self.traces: collections.deque = collections.deque(maxlen=limit)
        self.graphs: list = []
        self.graph_ids: dict = {}  # graph name -> id
        self.ops: set = set()      # (graph id, op name) already described
        self.next_id = 1
        self.lock = threading.Lock()

    def event(self, **what):
        """A DebugEvent with the wall time and one ``what`` field."""
        return message("DebugEvent")(wall_time=time.time(), **what)

    def wanted(self, op_type: str) -> bool:
        return self.regex is None or self.regex.match(op_type) is not None

    def values(self, value, tensor_id: int):
        """The TensorProto of one output, or None when the mode leaves it out."""
        if value is None:
            return None
        value = np.asarray(value)
        if not self.dtype_ok(value.dtype):
            return None
        if self.mode == 7:
            return _full_tensor(value)
        numeric = value.dtype.kind in "fc" or str(value.dtype) == "bfloat16"
        if self.mode in (2, 3, 4) and not numeric:
            return None  # TensorFlow summarizes only floating-point tensors' health
        vals = _summary(self.mode, value if value.dtype.kind != "c" else np.abs(value),
                        tensor_id)
        tp = message("TensorProto")(dtype=2)
        tp.tensor_shape.dim.add(size=len(vals))
        tp.double_val.extend(float(x) for x in vals)
        return tp

    def eager(self, op_type: str, outputs) -> None:
        """Records one eager op."""
        if not self.wanted(op_type):
            return
        with self.lock:
            ids = list(range(self.next_id, self.next_id + len(outputs)))
            self.next_id += len(outputs)
        ex = message("Execution")(op_type=op_type, num_outputs=len(outputs),
                                  tensor_debug_mode=self.mode, output_tensor_device_ids=[0] *
                                  len(outputs))
        ex.code_location.host_name = socket.gethostname()
        if self.mode != 1:
            ex.output_tensor_ids.extend(ids)
            for value, tid in zip(outputs, ids):
                tp = self.values(value, tid)
                if tp is not None:
                    ex.tensor_protos.append(tp)
        self.executions.append(self.event(execution=ex).SerializeToString())

    def graph_op(self, graph: str, name: str, op_type: str, outputs) -> None:
        """Records one op run inside the function graph ``graph``."""
        if not self.wanted(op_type):
            return
        with self.lock:
            gid = self.graph_ids.get(graph)
            if gid is None:
                gid = self.graph_ids[graph] = uuid.uuid4().hex[:16]
                self.graphs.append(self.event(debugged_graph=message("DebuggedGraph")(
                    graph_id=gid, graph_name=graph)).SerializeToString())
            if (gid, name) not in self.ops:
                self.ops.add((gid, name))
                self.graphs.append(self.event(graph_op_creation=message("GraphOpCreation")(
                    op_type=op_type, op_name=name, graph_name=graph, graph_id=gid,
                    device_name=_DEVICE, num_outputs=len(outputs))).SerializeToString())
        if self.mode == 1:
            return  # NO_TENSOR: TensorFlow writes no trace for a graph op
        for slot, value in enumerate(outputs):
            tp = self.values(value, slot)
            if tp is None:
                continue
            tr = message("GraphExecutionTrace")(tfdbg_context_id=gid, op_name=name,
                                                output_slot=slot, tensor_debug_mode=self.mode,
                                                device_name=_DEVICE)
            tr.tensor_proto.CopyFrom(tp)
            self.traces.append(self.event(graph_execution_trace=tr).SerializeToString())

    def write(self) -> None:
        """Writes the six files (atomically) under the dump root."""
        os.makedirs(self.root, exist_ok=True)
        meta = self.event(debug_metadata=message("DebugMetadata")(
            tensorflow_version="twinflow", file_version="debug.Event:3",
            tfdbg_run_id=self.run_id)).SerializeToString()
        device = self.event(debugged_device=message("DebuggedDevice")(
            device_name=_DEVICE, device_id=0)).SerializeToString()
        contents = {"metadata": [meta], "source_files": [], "stack_frames": [],
                    "graphs": [device, *self.graphs], "execution": list(self.executions),
                    "graph_execution_traces": list(self.traces)}
        for suffix in _SUFFIXES:
            with TFRecordWriter(f"{self.prefix}.{suffix}") as w:
                for record in contents[suffix]:
                    w.write(record)


def _dtype_filter(tensor_dtypes):
    if tensor_dtypes is None:
        return lambda dt: True
    if callable(tensor_dtypes) and not isinstance(tensor_dtypes, (list, tuple)):
        return lambda dt: bool(tensor_dtypes(_dtypes.as_dtype(dt)))
    if not isinstance(tensor_dtypes, (list, tuple)):
        raise ValueError(f"tensor_dtypes must be None, a list or tuple of dtypes or a callable, "
                         f"got {tensor_dtypes!r}")
    wanted = {_dtypes.as_dtype(d) for d in tensor_dtypes}

    def ok(dt) -> bool:
        try:
            return _dtypes.as_dtype(dt) in wanted
        except (TypeError, ValueError, KeyError):
            return False
    return ok


_state: list = []  # [Dumper] while enabled


def _listener(graph, name: str, op_type: str, outputs) -> None:
    d = _state[0] if _state else None
    if d is not None:
        if graph is None:
            d.eager(op_type, outputs)
        else:
            d.graph_op(graph, name, op_type, outputs)


def enable_dump_debug_info(dump_root: str, tensor_debug_mode: str = "NO_TENSOR",
                           circular_buffer_size: int = 1000, op_regex=None, tensor_dtypes=None):
    """Starts dumping every executed op in tfdbg2 format under ``dump_root``.

    Args:
        dump_root: the folder of the dump files.
        tensor_debug_mode: NO_TENSOR, CURT_HEALTH, CONCISE_HEALTH, FULL_HEALTH, SHAPE or
            FULL_TENSOR.
        circular_buffer_size: how many of the latest Execution and GraphExecutionTrace events
            are kept (<= 0: all).
        op_regex: only ops whose type matches this regular expression are dumped.
        tensor_dtypes: only tensors of these dtypes (a list, or a callable dtype -> bool).

    Returns:
        A writer object with ``FlushExecutionFiles`` and ``FlushNonExecutionFiles``.

    Raises:
        ValueError: an unknown mode, or dumping already enabled with other settings.
    """
    if not isinstance(dump_root, (str, os.PathLike)) or not os.fspath(dump_root):
        raise ValueError(f"Empty or None dump root: {dump_root!r}")
    mode = str(tensor_debug_mode).upper()
    if mode not in MODES:
        raise ValueError(f"Invalid value in tensor_debug_mode ('{tensor_debug_mode}'). Valid "
                         f"options are: {', '.join(MODES)} (FULL_NUMERICS and "
                         f"REDUCE_INF_NAN_THREE_SLOTS are not supported by twinflow)")
    root = os.fspath(dump_root)
    with profiler._lock:
        if _state:
            d = _state[0]
            if (d.root, d.mode_name) != (root, mode):
                raise ValueError(f"Dumping is already enabled (dump_root={d.root!r}, "
                                 f"tensor_debug_mode={d.mode_name!r}): call "
                                 f"disable_dump_debug_info first")
            return _Writer(d)
        d = Dumper(root, mode, int(circular_buffer_size), op_regex, tensor_dtypes)
        _state.append(d)
    profiler.add_listener(_listener)
    return _Writer(d)


def disable_dump_debug_info() -> None:
    """Stops dumping and writes the files (nothing happens when dumping is off).

    Returns:
        None.
    """
    with profiler._lock:
        d = _state.pop() if _state else None
    if d is not None:
        profiler.remove_listener(_listener)
        d.write()


class _Writer:
    """What ``enable_dump_debug_info`` returns (TensorFlow's DebugEventsWriter's flushes)."""

    def __init__(self, dumper: Dumper) -> None:
        self._dumper = dumper

    def FlushNonExecutionFiles(self) -> None:  # noqa: N802  (TensorFlow's name)
        """Writes the files now (they are rewritten whole)."""
        self._dumper.write()

    FlushExecutionFiles = FlushNonExecutionFiles


atexit.register(disable_dump_debug_info)
