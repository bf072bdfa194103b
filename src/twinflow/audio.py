"""``tw.audio``: WAV decoding and encoding (re-exports)."""
from .ops.audio_ops import decode_wav, encode_wav  # noqa: F401

__all__ = ["decode_wav", "encode_wav"]
