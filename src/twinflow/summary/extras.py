"""``tw.summary.audio``, ``tw.summary.write`` (any tensor, with metadata),
``experimental.write_raw_pb`` and ``experimental.summary_scope``: encoders for the
``WriteSummary`` op of ``writer.py`` (so they work eagerly and inside ``tw.function``)."""
from __future__ import annotations

import contextlib
import struct
from collections.abc import Iterator

import numpy as np

from ..graph.graph import name_scope
from ..io.tensor_proto import make_tensor_proto
from ..ops.scopes import get_current_name_scope
from . import proto
from .writer import ENCODERS, _metadata, _summary


def encode_wav(samples: np.ndarray, sample_rate: int) -> bytes:
    """A 16-bit PCM WAV file of ``samples`` ``[t, c]`` in [-1, 1] (clipped), as TensorFlow's
    ``audio.encode_wav``.

    Args:
        samples: float samples, one column per channel.
        sample_rate: samples per second.

    Returns:
        The file's bytes.
    """
    pcm = np.round(np.clip(samples, -1.0, 1.0) * 32767.0).astype("<i2")
    t, c = pcm.shape
    data = pcm.tobytes()
    header = b"RIFF" + struct.pack("<I", 36 + len(data)) + b"WAVE"
    fmt = b"fmt " + struct.pack("<IHHIIHH", 16, 1, c, sample_rate, sample_rate * c * 2, c * 2,
                                16)
    return header + fmt + b"data" + struct.pack("<I", len(data)) + data


def _tensor_value(tag: str, tensor_proto: bytes, metadata: bytes) -> bytes:
    return proto.msg(proto.f_bytes(1, tag), proto.f_bytes(9, metadata) if metadata else b"",
                     proto.f_bytes(8, tensor_proto))


def _audio(tag: str, data, extra: dict) -> list:
    arr = np.asarray(data, dtype=np.float32)
    if arr.ndim != 3:
        raise ValueError(f"tw.summary.audio needs [k, t, c] audio, got shape {arr.shape}")
    rate = int(np.asarray(extra["sample_rate"]))
    clips = [encode_wav(a, rate) for a in arr[:extra.get("max_outputs", 3)]]
    table = np.array([[c, b""] for c in clips], dtype=object).reshape(len(clips), 2)
    # TensorBoard's AudioPluginData: version 0, encoding WAV (11)
    meta = _metadata("audio", extra.get("description"), proto.f_int64(2, 11))
    return [_tensor_value(tag, make_tensor_proto(table).SerializeToString(), meta)]


def _tensor(tag: str, data, extra: dict) -> list:
    meta = extra.get("metadata", b"")
    return [_tensor_value(tag, make_tensor_proto(np.asarray(data)).SerializeToString(), meta)]


def _raw(tag: str, data, extra: dict) -> dict:
    return {"raw": [x if isinstance(x, bytes) else str(x).encode()
                    for x in np.asarray(data, dtype=object).reshape(-1)]}


ENCODERS.update(audio=_audio, tensor=_tensor, raw=_raw)


def _scoped(name: str) -> str:
    scope = get_current_name_scope()
    return f"{scope}/{name}" if scope else name


def audio(name: str, data, sample_rate, step=None, max_outputs: int = 3, encoding=None,
          description: str | None = None) -> bool:
    """Writes audio clips ``[k, t, c]`` (floats in [-1, 1]) as WAV for TensorBoard's audio tab.

    Args:
        name: the tag.
        data: the clips.
        sample_rate: samples per second (an int or scalar tensor).
        step: the step (default: ``experimental.get_step()``).
        max_outputs: at most this many clips are written.
        encoding: ``"wav"`` or None (the only encoding).
        description: an optional description.

    Returns:
        True if written, False when there is no default writer.
    """
    if encoding not in (None, "wav"):
        raise ValueError(f"Unknown encoding: {encoding!r} (only 'wav')")
    rate = sample_rate.numpy() if hasattr(sample_rate, "numpy") else sample_rate
    return _summary("audio", _scoped(name), data, step, sample_rate=int(np.asarray(rate)),
                    max_outputs=int(max_outputs), description=description)


def write(tag: str, tensor, step=None, metadata=None, name=None) -> bool:
    """Writes any tensor with optional ``SummaryMetadata`` (the primitive under the others).

    Args:
        tag: the tag.
        tensor: the value (a tensor, or a callable returning one).
        step: the step.
        metadata: a SummaryMetadata message or its serialized bytes, or None.
        name: a name scope for the op.

    Returns:
        True if written.
    """
    if callable(tensor):
        tensor = tensor()
    if metadata is not None and not isinstance(metadata, bytes):
        metadata = metadata.SerializeToString()
    with name_scope(name or "write_summary"):
        return _summary("tensor", tag, tensor, step, metadata=metadata)


def write_raw_pb(tensor, step=None, name=None) -> bool:
    """Writes serialized ``Summary`` messages (a string tensor) as they are.

    Args:
        tensor: bytes, or a string tensor of serialized Summary protos.
        step: the step.
        name: a name scope for the op.

    Returns:
        True if written.
    """
    if isinstance(tensor, bytes):
        tensor = np.asarray(tensor, dtype=object)
    with name_scope(name or "write_raw_pb"):
        return _summary("raw", "", tensor, step)


@contextlib.contextmanager
def summary_scope(name, default_name: str = "summary", values=None) -> Iterator[tuple]:
    """A name scope for a summary op; yields ``(tag, scope)``: the tag is the scoped name.

    Args:
        name: the summary's name (or None: ``default_name``).
        default_name: used when ``name`` is empty.
        values: accepted for TensorFlow's signature (inputs of the scope; unused by name
            scopes in TensorFlow 2 too).

    Yields:
        ``(tag, scope)``.
    """
    name = name or default_name
    tag = _scoped(name)
    with name_scope(name) as scope:
        yield tag, scope
