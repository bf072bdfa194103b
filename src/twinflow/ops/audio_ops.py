"""``tw.audio``: 16-bit PCM WAV decoding and encoding (``DecodeWav``/``EncodeWav``).

Samples map to floats as TensorFlow's: ``int16 / 32768`` when decoding, and
``clip(round(x * 32768), -32768, 32767)`` when encoding. Decoding reads the RIFF chunks
(``fmt `` must be PCM or WAVE_FORMAT_EXTENSIBLE holding PCM, 16 bits per sample), skips
others, and adapts to ``desired_channels``/``desired_samples`` (extra channels dropped, a mono
file repeated, samples cut or zero-padded).
"""
from __future__ import annotations

import struct

import numpy as np

from ..core import dtypes
from ..core.shapes import TensorShape
from ..eager.execute import bind, constant_value
from ..graph.registry import register_op
from ..graph.tensor import Tensor, TensorLike
from .core import convert
from .core import invalid_argument as _err


def parse_wav(data: bytes) -> tuple[np.ndarray, int]:
    """``(int16 samples [frames, channels], sample_rate)`` of a 16-bit PCM WAV file."""
    if len(data) < 12 or data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        raise _err("Header mismatch: a WAV file starts with 'RIFF' ... 'WAVE'")
    pos, fmt, samples = 12, None, None
    while pos + 8 <= len(data):
        cid, size = data[pos:pos + 4], struct.unpack("<I", data[pos + 4:pos + 8])[0]
        body = data[pos + 8:pos + 8 + size]
        if len(body) < size:
            raise _err(f"Chunk '{cid.decode('latin-1')}' is truncated")
        if cid == b"fmt ":
            if size < 16:
                raise _err("The fmt chunk is too short")
            fmt = struct.unpack("<HHIIHH", body[:16])
            if fmt[0] == 0xFFFE and size >= 26:
                fmt = (struct.unpack("<H", body[24:26])[0],) + fmt[1:]
        elif cid == b"data":
            samples = body
        pos += 8 + size + (size & 1)
    if fmt is None or samples is None:
        raise _err("A WAV file needs a 'fmt ' and a 'data' chunk")
    audio_format, channels, rate, _, _, bits = fmt
    if audio_format != 1:
        raise _err(f"Unsupported WAV format {audio_format}: only PCM is supported")
    if bits != 16:
        raise _err(f"Can only read 16-bit WAV files, but received {bits}")
    if channels < 1:
        raise _err("A WAV file needs at least one channel")
    frames = len(samples) // (2 * channels)
    pcm = np.frombuffer(samples[:frames * 2 * channels], "<i2").reshape(frames, channels)
    return pcm, rate


def write_wav(pcm: np.ndarray, rate: int) -> bytes:
    """A 16-bit PCM WAV file of int16 samples ``[frames, channels]``."""
    frames, channels = pcm.shape
    data = pcm.astype("<i2").tobytes()
    header = struct.pack("<4sI4s4sIHHIIHH4sI", b"RIFF", 36 + len(data), b"WAVE", b"fmt ", 16,
                         1, channels, rate, rate * channels * 2, channels * 2, 16, b"data",
                         len(data))
    return header + data


@register_op("DecodeWav", multi_output=True, schema=(
    "contents:string -> audio:float, sample_rate:int32 | desired_channels:int=-1; "
    "desired_samples:int=-1"))
class DecodeWav:
    """A WAV file's samples as float32 ``[samples, channels]`` in [-1, 1), and its rate."""

    def infer(contents, *, desired_channels=-1, desired_samples=-1):
        if contents.shape.rank not in (None, 0):
            raise _err(f"contents must be a scalar string, got shape {contents.shape}")
        return [(dtypes.float32, TensorShape([None if desired_samples < 0 else desired_samples,
                                              None if desired_channels < 0
                                              else desired_channels])),
                (dtypes.int32, TensorShape([]))]

    def kernel(contents, *, desired_channels=-1, desired_samples=-1):
        raw = contents.item() if isinstance(contents, np.ndarray) else contents
        pcm, rate = parse_wav(raw if isinstance(raw, bytes) else bytes(raw, "latin-1"))
        audio = pcm.astype(np.float32) / 32768.0
        if desired_channels > 0 and desired_channels != audio.shape[1]:
            if audio.shape[1] == 1:
                audio = np.repeat(audio, desired_channels, axis=1)
            elif desired_channels < audio.shape[1]:
                audio = audio[:, :desired_channels]
            else:
                raise _err(f"Bad audio format: the file has {audio.shape[1]} channels, "
                           f"{desired_channels} were requested")
        if desired_samples >= 0:
            n = audio.shape[0]
            audio = audio[:desired_samples] if n >= desired_samples else np.pad(
                audio, ((0, desired_samples - n), (0, 0)))
        return np.ascontiguousarray(audio, np.float32), np.int32(rate)


@register_op("EncodeWav", schema="audio:float, sample_rate:int32 -> contents:string")
class EncodeWav:
    """float32 ``[samples, channels]`` (in [-1, 1]) as a 16-bit PCM WAV file."""

    def infer(audio, sample_rate):
        if audio.shape.rank not in (None, 2):
            raise _err(f"audio must be 2-D [samples, channels], got shape {audio.shape}")
        if sample_rate.shape.rank not in (None, 0):
            raise _err(f"sample_rate must be a scalar, got shape {sample_rate.shape}")
        return dtypes.string, TensorShape([])

    def kernel(audio, sample_rate):
        if audio.ndim != 2:
            raise _err(f"audio must be 2-D [samples, channels], got {list(audio.shape)}")
        pcm = np.clip(np.round(audio.astype(np.float64) * 32768.0), -32768, 32767)
        return np.array(write_wav(pcm.astype(np.int16), int(sample_rate)), object)


def decode_wav(contents: TensorLike, desired_channels: int = -1, desired_samples: int = -1,
               name: str | None = None) -> tuple:
    """Decodes a 16-bit PCM WAV file (``tw.audio.decode_wav``).

    Args:
        contents: a scalar string holding the file.
        desired_channels: the channels wanted (-1: the file's).
        desired_samples: the samples wanted (-1: all; fewer cut, more zero-padded).
        name: op name.

    Returns:
        ``(audio float32 [samples, channels] in [-1, 1), sample_rate int32)``.
    """
    c = convert(contents)
    if not c.dtype.is_string:
        raise TypeError(f"contents must be a string tensor, got {c.dtype.name}")
    out = bind(DecodeWav, [c], {"desired_channels": int(desired_channels),
                                "desired_samples": int(desired_samples)}, name=name)
    return out[0], out[1]


def encode_wav(audio: TensorLike, sample_rate: TensorLike, name: str | None = None) -> Tensor:
    """Encodes float32 ``[samples, channels]`` as a 16-bit PCM WAV file
    (``tw.audio.encode_wav``).

    Args:
        audio: float32 in [-1, 1] (clipped).
        sample_rate: int32 scalar.
        name: op name.

    Returns:
        A scalar string.
    """
    rate = convert(sample_rate, dtype=dtypes.int32)
    if constant_value(rate) is not None and int(constant_value(rate)) <= 0:
        raise ValueError(f"sample_rate must be positive, got {int(constant_value(rate))}")
    return bind(EncodeWav, [convert(audio, dtype_hint=dtypes.float32), rate], name=name)
