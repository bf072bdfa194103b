"""String hashing into buckets, with TensorFlow's exact hash functions, so bucket numbers
match TensorFlow's: ``to_hash_bucket`` (TensorFlow's ``Hash64``, a MurmurHash64A variant with
seed 0xDECAFCAFFE), ``to_hash_bucket_fast`` (FarmHash ``Fingerprint64``) and
``to_hash_bucket_strong`` (SipHash-2-4 keyed by two 64-bit integers)."""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..core import dtypes
from ..eager.execute import bind
from ..graph.registry import register_op
from ..graph.tensor import Tensor, TensorLike
from . import string_ops as STR
from .ragged.fingerprint import fingerprint64

_M = (1 << 64) - 1


def hash64(s: bytes, seed: int = 0xDECAFCAFFE) -> int:
    """TensorFlow's ``Hash64`` of ``s`` (tensorflow/core/platform/hash.cc)."""
    m, r = 0xC6A4A7935BD1E995, 47
    n = len(s)
    h = (seed ^ (n * m)) & _M
    full = n - n % 8
    for i in range(0, full, 8):
        k = (int.from_bytes(s[i:i + 8], "little") * m) & _M
        k = ((k ^ (k >> r)) * m) & _M
        h = ((h ^ k) * m) & _M
    rest = n % 8
    if rest:
        for j in range(rest - 1, -1, -1):
            h ^= s[full + j] << (8 * j)
        h = (h * m) & _M
    h = ((h ^ (h >> r)) * m) & _M
    return h ^ (h >> r)


def _rotl(x: int, b: int) -> int:
    return ((x << b) | (x >> (64 - b))) & _M


def siphash24(k0: int, k1: int, s: bytes) -> int:
    """SipHash-2-4 of ``s`` under the key ``(k0, k1)`` (64-bit output)."""
    v0, v1 = k0 ^ 0x736F6D6570736575, k1 ^ 0x646F72616E646F6D
    v2, v3 = k0 ^ 0x6C7967656E657261, k1 ^ 0x7465646279746573

    def rounds(v0, v1, v2, v3, n):
        for _ in range(n):
            v0 = (v0 + v1) & _M
            v1 = _rotl(v1, 13) ^ v0
            v0 = _rotl(v0, 32)
            v2 = (v2 + v3) & _M
            v3 = _rotl(v3, 16) ^ v2
            v0 = (v0 + v3) & _M
            v3 = _rotl(v3, 21) ^ v0
            v2 = (v2 + v1) & _M
            v1 = _rotl(v1, 17) ^ v2
            v2 = _rotl(v2, 32)
        return v0, v1, v2, v3

    n = len(s)
    tail = s[n - n % 8:] + bytes(7 - n % 8) + bytes([n & 0xFF])
    for block in [s[i:i + 8] for i in range(0, n - n % 8, 8)] + [tail]:
        m = int.from_bytes(block, "little")
        v3 ^= m
        v0, v1, v2, v3 = rounds(v0, v1, v2, v3, 2)
        v0 ^= m
    v2 ^= 0xFF
    v0, v1, v2, v3 = rounds(v0, v1, v2, v3, 4)
    return v0 ^ v1 ^ v2 ^ v3


def _hash_infer(x, **attrs):
    STR._check_string(x, "to_hash_bucket")
    return dtypes.int64, x.shape


def _buckets(x: np.ndarray, fn, num_buckets: int) -> np.ndarray:
    flat = [fn(STR._b(v)) % num_buckets for v in np.asarray(x).reshape(-1)]
    return np.asarray(flat, np.int64).reshape(np.shape(x))


def _declare(name: str, input_name: str, fn_of_attrs, doc: str, extra: str = ""):
    def kernel(x, **attrs):
        return _buckets(x, fn_of_attrs(attrs), attrs["num_buckets"])

    return register_op(name, schema=f"{input_name}:string -> output:int64 | "
                                    f"num_buckets:int >=1{extra}")(type(name, (), {
                                        "__doc__": doc, "infer": _hash_infer,
                                        "kernel": kernel, "grad": STR._no_grad}))


StringToHashBucket = _declare("StringToHashBucket", "string_tensor", lambda a: hash64,
                              "Hash64(s) mod num_buckets (TensorFlow's legacy hash).")
StringToHashBucketFast = _declare("StringToHashBucketFast", "x@input",
                                  lambda a: fingerprint64,
                                  "Fingerprint64(s) mod num_buckets (FarmHash).")
StringToHashBucketStrong = _declare(
    "StringToHashBucketStrong", "x@input",
    lambda a: (lambda s: siphash24(a["key"][0] & _M, a["key"][1] & _M, s)),
    "SipHash-2-4(key, s) mod num_buckets.", "; key:list(int)")


def _call(op, input, num_buckets, attrs=None, name=None) -> Tensor:
    x = STR._strings(input)
    return bind(op, [x], {"num_buckets": int(num_buckets), **(attrs or {})}, name=name)


def _to_bucket(fn_name: str, op, hash_name: str) -> Callable[..., Tensor]:
    """``tw.strings.<fn_name>(input, num_buckets, name=None)``: ``op``'s buckets."""
    def to_bucket(input: TensorLike, num_buckets: int, name: str | None = None) -> Tensor:
        return _call(op, input, num_buckets, name=name)
    to_bucket.__name__ = to_bucket.__qualname__ = fn_name
    to_bucket.__doc__ = (
        f"Hashes each string into ``[0, num_buckets)`` with {hash_name}.\n\n"
        "Args:\n    input: a string tensor.\n    num_buckets: the number of buckets.\n"
        "    name: op name.\n\nReturns:\n    int64 bucket ids, shaped like ``input``.\n")
    return to_bucket


to_hash_bucket = _to_bucket("to_hash_bucket", StringToHashBucket,
                            "TensorFlow's legacy ``Hash64`` (prefer ``to_hash_bucket_fast``)")
to_hash_bucket_fast = _to_bucket("to_hash_bucket_fast", StringToHashBucketFast,
                                 "FarmHash ``Fingerprint64``")


def to_hash_bucket_strong(input: TensorLike, num_buckets: int, key,
                          name: str | None = None) -> Tensor:
    """Hashes each string into ``[0, num_buckets)`` with keyed SipHash-2-4, which an
    adversary without the key cannot steer (``tw.strings.to_hash_bucket_strong``).

    Args:
        input: a string tensor.
        num_buckets: the number of buckets.
        key: two integers (64-bit each).
        name: op name.

    Returns:
        int64 bucket ids, shaped like ``input``.
    """
    key = [int(k) for k in key]
    if len(key) != 2:
        raise ValueError(f"key must have two elements, got {len(key)}")
    if any(not -(1 << 63) <= k < (1 << 63) for k in key):
        raise OverflowError("key elements must fit in 64 bits (int64)")
    return _call(StringToHashBucketStrong, input, num_buckets, {"key": key}, name=name)
