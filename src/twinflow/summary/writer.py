"""``tw.summary``: TensorBoard event files written without TensorFlow.

An event file is a TFRecord file of ``Event`` protos: first ``file_version: "brain.Event:2"``,
then one Event per summary (``wall_time``, ``step``, ``summary { value { tag ... } }``).
Scalars are written as ``simple_value``, histograms as ``HistogramProto``, images as PNG in
``Summary.Image`` and text as a string tensor for the text plugin, all of which TensorBoard
reads. Writes inside a ``tw.function`` become a stateful ``WriteSummary`` op that writes each
time the graph runs.
"""
from __future__ import annotations

import contextlib
import gc
import itertools
import os
import socket
import struct
import time
import weakref
import zlib
from collections.abc import Iterator

import numpy as np

from ..core.context import ctx
from ..eager.execute import bind, convert_to_tensor
from ..eager.func_graph import FuncGraph
from ..graph.graph import name_scoped
from ..graph.registry import register_op
from ..graph.tensor import Tensor
from ..ops.variables import Variable
from . import proto
from .record import encode_record

_WRITERS: dict = {}
_IDS = itertools.count(1)
_FILE_COUNTER = itertools.count()


class _State:
    writer = None
    step = None
    record_if = True
    trace_known = None  # a WeakSet of the FuncGraphs that existed at trace_on


_STATE = _State()


class SummaryWriter:
    """Writes summaries to one event file in ``logdir`` (``tw.summary.create_file_writer``).

    Args:
        logdir: the directory (created if missing).
        max_queue: records buffered before a flush.
        flush_millis: the longest time between flushes, checked at each write (flushes
            also happen on ``flush``/``close``, on leaving ``as_default`` and every
            ``max_queue`` records; there is no background thread).
        filename_suffix: appended to the file name.
    """

    def __init__(self, logdir: str, max_queue: int = 10, flush_millis: int = 120000,
                 filename_suffix: str = ".v2") -> None:
        self.logdir = os.fspath(logdir)
        os.makedirs(self.logdir, exist_ok=True)
        name = (f"events.out.tfevents.{int(time.time())}.{socket.gethostname()}."
                f"{os.getpid()}.{next(_FILE_COUNTER)}{filename_suffix or ''}")
        self.path = os.path.join(self.logdir, name)
        self._file = open(self.path, "wb")  # noqa: SIM115  (kept open until close())
        self._max_queue = max(1, int(max_queue or 10))
        self._pending = 0
        self._flush_secs = (120000 if flush_millis is None else flush_millis) / 1000.0
        self._last_flush = time.monotonic()
        self._closed = False
        self._id = next(_IDS)
        _WRITERS[self._id] = self
        self.write_event(proto.msg(proto.f_double(1, time.time()),
                                   proto.f_bytes(3, "brain.Event:2")))
        self.flush()

    def write_event(self, event: bytes) -> None:
        """Appends one encoded Event.

        Args:
            event: the Event proto bytes.
        """
        if self._closed:
            raise RuntimeError(f"SummaryWriter for {self.logdir!r} is closed")
        self._file.write(encode_record(event))
        self._pending += 1
        if self._pending >= self._max_queue or \
                time.monotonic() - self._last_flush >= self._flush_secs:
            self.flush()

    def write_value(self, value: bytes, step: int) -> None:
        """Writes a ``Summary.Value`` as an Event at ``step``.

        Args:
            value: the encoded Summary.Value.
            step: the step.
        """
        summary = proto.f_bytes(1, value)
        self.write_event(proto.msg(proto.f_double(1, time.time()), proto.f_int64(2, step),
                                   proto.f_bytes(5, summary)))

    @contextlib.contextmanager
    def as_default(self, step=None) -> Iterator[SummaryWriter]:
        """Makes this the writer that ``scalar``/``histogram``... write to, in the block.

        Args:
            step: a default step for the block.

        Yields:
            The writer.
        """
        old, old_step = _STATE.writer, _STATE.step
        _STATE.writer = self
        if step is not None:
            _STATE.step = step
        try:
            yield self
        finally:
            _STATE.writer = old
            if step is not None:
                _STATE.step = old_step
            if not self._closed:
                self.flush()

    def set_as_default(self, step=None) -> None:
        """Makes this the default writer from now on.

        Args:
            step: a default step.
        """
        _STATE.writer = self
        if step is not None:
            _STATE.step = step

    def init(self) -> None:
        """The file is created with the writer; kept for TensorFlow compatibility."""

    def flush(self) -> None:
        """Writes buffered records to disk."""
        if not self._closed:
            self._file.flush()
            self._pending = 0
            self._last_flush = time.monotonic()

    def close(self) -> None:
        """Flushes and closes the file; the writer can no longer be used."""
        if not self._closed:
            self.flush()
            self._file.close()
            self._closed = True
            _WRITERS.pop(self._id, None)
            if _STATE.writer is self:
                _STATE.writer = None

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001  (interpreter shutdown: nothing useful to do)
            pass


@name_scoped
def create_file_writer(logdir: str, max_queue: int | None = None, flush_millis=None,
                       filename_suffix: str | None = None, name: str | None = None,
                       experimental_trackable: bool = False) -> SummaryWriter:
    """Creates a summary writer for ``logdir`` (``tw.summary.create_file_writer``).

    Args:
        logdir: the log directory.
        max_queue: records buffered before a flush.
        flush_millis: the longest time between flushes (120000 by default; checked at
            each write).
        filename_suffix: the event file's suffix (``.v2`` by default).
        experimental_trackable: True (a writer a SavedModel can track) raises
            NotImplementedError.

    Returns:
        A SummaryWriter.
    """
    if experimental_trackable:
        raise NotImplementedError("create_file_writer(experimental_trackable=True): twinflow's "
                                  "summary writers cannot be tracked by a SavedModel")
    return SummaryWriter(logdir, max_queue or 10,
                         120000 if flush_millis is None else flush_millis,
                         ".v2" if filename_suffix is None else filename_suffix)


def create_noop_writer() -> SummaryWriter | None:
    """A writer that writes nothing (None works as one in twinflow).

    Returns:
        None.
    """
    return None


@name_scoped
def flush(writer: SummaryWriter | None = None, name: str | None = None) -> None:
    """Flushes ``writer`` (default: the current default writer).

    Args:
        writer: the writer.
    """
    w = writer or _STATE.writer
    if w is not None:
        w.flush()


@contextlib.contextmanager
def record_if(condition) -> Iterator[None]:
    """Summaries in the block are written only when ``condition`` (bool or callable) holds.

    Args:
        condition: a bool, tensor or zero-argument callable.

    Yields:
        None.
    """
    old = _STATE.record_if
    _STATE.record_if = condition
    try:
        yield
    finally:
        _STATE.record_if = old


def should_record_summaries() -> bool:
    """Whether a summary written now would be recorded.

    Returns:
        True if there is a default writer and ``record_if`` holds.
    """
    cond = _STATE.record_if
    if callable(cond):
        cond = cond()
    return _STATE.writer is not None and bool(cond)


def set_step(step) -> None:
    """Sets the default step (``tw.summary.experimental.set_step``).

    Args:
        step: an int, tensor or variable (read when a summary is written).
    """
    _STATE.step = step


def get_step() -> int | Tensor | None:
    """The default step, or None (``tw.summary.experimental.get_step``).

    Returns:
        The step.
    """
    return _STATE.step


# ---------------------------------------------------------------------------------------------
# Values

def _metadata(plugin: str, description: str | None = None, content: bytes = b"") -> bytes:
    plugin_data = proto.msg(proto.f_bytes(1, plugin), proto.f_bytes(2, content) if content
                            else b"")
    return proto.msg(proto.f_bytes(1, plugin_data),
                     proto.f_bytes(3, description) if description else b"")


def _scalar_value(tag: str, value: np.ndarray, description) -> bytes:
    return proto.msg(proto.f_bytes(1, tag), proto.f_float(2, float(np.asarray(value))),
                     proto.f_bytes(9, _metadata("scalars", description)) if description
                     else b"")


def _histogram_value(tag: str, data: np.ndarray, description, buckets: int | None) -> bytes:
    data = np.asarray(data, dtype=np.float64).reshape(-1)
    data = data[np.isfinite(data)]
    if data.size == 0:
        histo = proto.msg(proto.f_double(1, 0.0), proto.f_double(2, 0.0))
    else:
        counts, edges = np.histogram(data, bins=buckets or 30)
        histo = proto.msg(
            proto.f_double(1, float(data.min())), proto.f_double(2, float(data.max())),
            proto.f_double(3, float(data.size)), proto.f_double(4, float(data.sum())),
            proto.f_double(5, float(np.square(data).sum())),
            proto.f_packed_doubles(6, edges[1:]), proto.f_packed_doubles(7, counts))
    return proto.msg(proto.f_bytes(1, tag), proto.f_bytes(5, histo),
                     proto.f_bytes(9, _metadata("histograms", description)) if description
                     else b"")


def _string_tensor(strings: list, shape: tuple) -> bytes:
    dims = proto.msg(*[proto.f_bytes(2, proto.f_int64(1, d)) for d in shape])
    return proto.msg(proto.f_int64(1, 7), proto.f_bytes(2, dims),
                     *[proto.f_bytes(8, s) for s in strings])


def _text_value(tag: str, data: np.ndarray, description) -> bytes:
    arr = np.asarray(data)
    flat = [x if isinstance(x, bytes) else str(x).encode("utf-8") for x in arr.reshape(-1)]
    return proto.msg(proto.f_bytes(1, tag),
                     proto.f_bytes(9, _metadata("text", description)),
                     proto.f_bytes(8, _string_tensor(flat, arr.shape)))


def encode_png(image: np.ndarray) -> bytes:
    """Encodes an HxWxC uint8 image (C = 1, 2, 3 or 4) as PNG.

    Args:
        image: the pixels.

    Returns:
        The PNG file bytes.
    """
    h, w, c = image.shape
    color = {1: 0, 2: 4, 3: 2, 4: 6}[c]
    raw = b"".join(b"\x00" + image[y].tobytes() for y in range(h))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, color, 0,
                                                              0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def _image_values(tag: str, data: np.ndarray, max_outputs: int, description) -> list:
    arr = np.asarray(data)
    if arr.ndim != 4 or arr.shape[-1] not in (1, 2, 3, 4):
        raise ValueError(f"tw.summary.image needs a [k, h, w, c] tensor with c in 1..4, got "
                         f"shape {arr.shape}")
    if arr.dtype != np.uint8:
        arr = (np.clip(arr.astype(np.float64), 0.0, 1.0) * 255.0 + 0.5).astype(np.uint8)
    values = []
    for i, img in enumerate(arr[:max_outputs]):
        h, w, c = img.shape
        image = proto.msg(proto.f_int64(1, h), proto.f_int64(2, w), proto.f_int64(3, c),
                          proto.f_bytes(4, encode_png(img)))
        values.append(proto.msg(proto.f_bytes(1, f"{tag}/image/{i}" if arr.shape[0] > 1 or
                                              max_outputs > 1 else f"{tag}/image"),
                                proto.f_bytes(4, image)))
    return values


# Encoders of the summaries defined in summary/extras.py (kind -> fn(tag, data, extra) ->
# list of Summary.Value bytes, or a dict {"raw": Summary bytes}).
ENCODERS: dict = {}


def _encode(kind: str, tag: str, data: np.ndarray, extra: dict) -> list:
    if kind in ENCODERS:
        return ENCODERS[kind](tag, data, extra)
    description = extra.get("description")
    if kind == "scalar":
        return [_scalar_value(tag, data, description)]
    if kind == "histogram":
        return [_histogram_value(tag, data, description, extra.get("buckets"))]
    if kind == "text":
        return [_text_value(tag, data, description)]
    if kind == "image":
        return _image_values(tag, data, extra.get("max_outputs", 3), description)
    raise ValueError(f"unknown summary kind {kind!r}")


def _write_now(writer: SummaryWriter, kind: str, tag: str, data, step, extra: dict) -> None:
    values = _encode(kind, tag, data, extra)
    if isinstance(values, dict):  # whole Summary messages (write_raw_pb)
        for summary in values["raw"]:
            writer.write_event(proto.msg(proto.f_double(1, time.time()),
                                         proto.f_int64(2, int(np.asarray(step))),
                                         proto.f_bytes(5, summary)))
        return
    for value in values:
        writer.write_value(value, int(np.asarray(step)))


@register_op("WriteSummary", stateful=True, multi_output=True)
class WriteSummary:
    """Writes ``data`` at ``step`` to the summary writer ``writer_id`` each time it runs."""

    def infer(data, step, *, writer_id, kind, tag, extra):
        return []

    def kernel(data, step, *, writer_id, kind, tag, extra):
        writer = _WRITERS.get(writer_id)
        if writer is not None:
            _write_now(writer, kind, tag, data, step, dict(extra))
        return ()


def _resolve_step(step):
    if step is None:
        step = _STATE.step
    if step is None:
        raise ValueError("No step set. Please specify one either through the `step` argument "
                         "or through tw.summary.experimental.set_step()")
    return step


def _summary(kind: str, name: str, data, step, **extra) -> bool:
    if not should_record_summaries():
        return False
    writer = _STATE.writer
    step = _resolve_step(step)
    extra = {k: v for k, v in extra.items() if v is not None}
    if ctx.graph is None:
        value = data.numpy() if isinstance(data, (Tensor, Variable)) else data
        _write_now(writer, kind, name, value, step.numpy() if isinstance(
            step, (Tensor, Variable)) else step, extra)
        return True
    d = data.read_value() if isinstance(data, Variable) else convert_to_tensor(data)
    s = step.read_value() if isinstance(step, Variable) else convert_to_tensor(step)
    bind(WriteSummary, [d, s], {"writer_id": writer._id, "kind": kind, "tag": name,
                                "extra": tuple(sorted(extra.items()))})
    return True


def scalar(name: str, data, step=None, description: str | None = None) -> bool:
    """Writes a scalar summary (``tw.summary.scalar``).

    Args:
        name: the tag.
        data: a number or scalar tensor.
        step: the step (default: ``experimental.get_step()``).
        description: an optional description.

    Returns:
        True if written, False when there is no default writer.
    """
    return _summary("scalar", name, data, step, description=description)


def histogram(name: str, data, step=None, buckets: int | None = None,
              description: str | None = None) -> bool:
    """Writes a histogram of ``data``'s values (``tw.summary.histogram``).

    Args:
        name: the tag.
        data: a tensor of numbers.
        step: the step.
        buckets: the number of buckets (30 by default).
        description: an optional description.

    Returns:
        True if written.
    """
    return _summary("histogram", name, data, step, buckets=buckets, description=description)


def text(name: str, data, step=None, description: str | None = None) -> bool:
    """Writes a string (or string tensor) for TensorBoard's text tab (``tw.summary.text``).

    Args:
        name: the tag.
        data: a string or string tensor.
        step: the step.
        description: an optional description.

    Returns:
        True if written.
    """
    if isinstance(data, str):
        data = np.asarray(data.encode("utf-8"), dtype=object)
    return _summary("text", name, data, step, description=description)


def image(name: str, data, step=None, max_outputs: int = 3,
          description: str | None = None) -> bool:
    """Writes images ``[k, h, w, c]`` (floats in [0, 1] or uint8) as PNG (``tw.summary.image``).

    Args:
        name: the tag.
        data: the images.
        step: the step.
        max_outputs: at most this many images are written.
        description: an optional description.

    Returns:
        True if written.
    """
    return _summary("image", name, data, step, max_outputs=max_outputs, description=description)


def graph(graph_data) -> bool:
    """Writes a graph for TensorBoard's graph tab (``tw.summary.graph``).

    Args:
        graph_data: a ``tw.Graph``, a ConcreteFunction (its ``.graph``), or GraphDef bytes.

    Returns:
        True if written.
    """
    if not should_record_summaries():
        return False
    if isinstance(graph_data, bytes):
        data = graph_data
    else:
        g = getattr(graph_data, "graph", graph_data)
        data = graph_def_bytes(g)
    _STATE.writer.write_event(proto.msg(proto.f_double(1, time.time()), proto.f_bytes(4, data)))
    return True


def _attr_bytes(value) -> bytes:
    """An AttrValue proto for the attribute kinds a graph view needs (others are left out)."""
    from_dtype = getattr(value, "as_datatype_enum", None)
    if from_dtype is not None:
        return proto.f_int64(6, int(from_dtype))
    if isinstance(value, bool):
        return proto.f_int64(5, int(value))
    if isinstance(value, (int, np.integer)):
        return proto.f_int64(3, int(value))
    if isinstance(value, (float, np.floating)):
        return proto.f_float(4, float(value))
    if isinstance(value, str):
        return proto.f_bytes(2, value)
    dims = getattr(value, "dims", None)
    if hasattr(value, "rank") and hasattr(value, "as_list"):
        if value.rank is None:
            return proto.f_bytes(7, proto.f_int64(3, 1))
        return proto.f_bytes(7, proto.msg(*[proto.f_bytes(2, proto.f_int64(
            1, -1 if d is None else int(d))) for d in (dims or [])]))
    return b""


def graph_def_bytes(g) -> bytes:
    """Encodes a twinflow Graph as a binary ``GraphDef`` proto (nodes, inputs, simple attrs).

    Args:
        g: the graph.

    Returns:
        The GraphDef bytes.
    """
    nodes = []
    for op in g.get_operations():
        fields = [proto.f_bytes(1, op.name), proto.f_bytes(2, op.type)]
        for t in op.inputs:
            idx = getattr(t, "value_index", 0)
            fields.append(proto.f_bytes(3, t.op.name if not idx else f"{t.op.name}:{idx}"))
        for c in getattr(op, "control_inputs", []) or []:
            fields.append(proto.f_bytes(3, f"^{c.name}"))
        for k in sorted(op.attrs):
            attr = _attr_bytes(op.attrs[k])
            if attr:
                fields.append(proto.f_bytes(5, proto.msg(proto.f_bytes(1, k),
                                                         proto.f_bytes(2, attr))))
        nodes.append(proto.f_bytes(1, proto.msg(*fields)))
    return proto.msg(*nodes, proto.f_bytes(4, proto.f_int64(1, 1645)))


def _func_graphs() -> list:
    return [o for o in gc.get_objects() if isinstance(o, FuncGraph)]


def _graphs_since_trace_on() -> list:
    known = _STATE.trace_known
    return [g for g in _func_graphs() if g not in known]


def trace_on(graph: bool = True, profiler: bool = False, profiler_outdir=None) -> None:
    """Starts recording the graphs of functions traced from now on (``trace_export`` writes
    them).

    Args:
        graph: record graphs (the only kind of trace twinflow records).
        profiler: True raises NotImplementedError (twinflow has no profiler trace; see
            ``tw.profiler``).
        profiler_outdir: the profiler's folder: only with ``profiler=True``.
    """
    if profiler:
        raise NotImplementedError("trace_on(profiler=True): twinflow records graphs only, "
                                  "no profiler trace")
    # Weak references, not ids: a graph collected after trace_on may leave its id to one
    # traced later, which would then be taken for an old one and not exported.
    _STATE.trace_known = weakref.WeakSet(_func_graphs()) if graph else None


def trace_off() -> None:
    """Stops recording without writing anything."""
    _STATE.trace_known = None


def trace_export(name: str, step=None, profiler_outdir=None) -> bool:
    """Writes the graph of a function traced since ``trace_on`` (the largest, when several
    were: branch and loop bodies are graphs too).

    Args:
        name: the run tag (kept for TensorFlow compatibility).
        step: the step.
        profiler_outdir: TensorFlow's folder for the profiler trace, which twinflow does not
            record (``trace_on(profiler=True)`` raises): nothing is written there.

    Returns:
        True if a graph was written.
    """
    if _STATE.trace_known is None or not should_record_summaries():
        _STATE.trace_known = None
        return False
    new = _graphs_since_trace_on()
    _STATE.trace_known = None
    if not new:
        return False
    return graph(max(new, key=lambda g: len(g.get_operations())))
