"""TensorFlow's string fingerprint (FarmHash ``Fingerprint64``, farmhashna) and
``FingerprintCat64``, so that ``cross_hashed`` gives TensorFlow's bucket numbers."""
from __future__ import annotations

_M = (1 << 64) - 1
K0 = 0xC3A5C85C97CB3127
K1 = 0xB492B66FBE98F273
K2 = 0x9AE16A3B2F90404F


def _fetch(s: bytes, i: int) -> int:
    return int.from_bytes(s[i:i + 8], "little")


def _fetch32(s: bytes, i: int) -> int:
    return int.from_bytes(s[i:i + 4], "little")


def _rot(v: int, k: int) -> int:
    return v if k == 0 else ((v >> k) | (v << (64 - k))) & _M


def _mix(v: int) -> int:
    return v ^ (v >> 47)


def _len16(u: int, v: int, mul: int) -> int:
    a = ((u ^ v) * mul) & _M
    a ^= a >> 47
    b = ((v ^ a) * mul) & _M
    b ^= b >> 47
    return (b * mul) & _M


def _len0to16(s: bytes) -> int:
    n = len(s)
    if n >= 8:
        mul = K2 + n * 2
        a = (_fetch(s, 0) + K2) & _M
        b = _fetch(s, n - 8)
        c = (_rot(b, 37) * mul + a) & _M
        d = ((_rot(a, 25) + b) * mul) & _M
        return _len16(c, d, mul)
    if n >= 4:
        mul = K2 + n * 2
        a = _fetch32(s, 0)
        return _len16((n + (a << 3)) & _M, _fetch32(s, n - 4), mul)
    if n > 0:
        y = s[0] + (s[n >> 1] << 8)
        z = n + (s[n - 1] << 2)
        return (_mix(((y * K2) ^ (z * K0)) & _M) * K2) & _M
    return K2


def _ends(s: bytes, k: int) -> tuple:
    """The multiplier and four words mixed from both ends that 17-64 byte hashes start from."""
    n = len(s)
    mul = K2 + n * 2
    return (mul, (_fetch(s, 0) * k) & _M, _fetch(s, 8), (_fetch(s, n - 8) * mul) & _M,
            (_fetch(s, n - 16) * K2) & _M)


def _len17to32(s: bytes) -> int:
    mul, a, b, c, d = _ends(s, K1)
    return _len16((_rot((a + b) & _M, 43) + _rot(c, 30) + d) & _M,
                  (a + _rot((b + K2) & _M, 18) + c) & _M, mul)


def _len33to64(s: bytes) -> int:
    n = len(s)
    mul, a, b, c, d = _ends(s, K2)
    y = (_rot((a + b) & _M, 43) + _rot(c, 30) + d) & _M
    z = _len16(y, (a + _rot((b + K2) & _M, 18) + c) & _M, mul)
    e = (_fetch(s, 16) * mul) & _M
    f = _fetch(s, 24)
    g = ((y + _fetch(s, n - 32)) * mul) & _M
    h = ((z + _fetch(s, n - 24)) * mul) & _M
    return _len16((_rot((e + f) & _M, 43) + _rot(g, 30) + h) & _M,
                  (e + _rot((f + a) & _M, 18) + g) & _M, mul)


def _weak32(s: bytes, i: int, a: int, b: int) -> tuple:
    w, x, y, z = _fetch(s, i), _fetch(s, i + 8), _fetch(s, i + 16), _fetch(s, i + 24)
    a = (a + w) & _M
    b = _rot((b + a + z) & _M, 21)
    c = a
    a = (a + x + y) & _M
    b = (b + _rot(a, 44)) & _M
    return (a + z) & _M, (b + c) & _M


def fingerprint64(s: bytes) -> int:
    """FarmHash Fingerprint64 of ``s`` (TensorFlow's ``Fingerprint64``).

    Args:
        s: the bytes.

    Returns:
        The unsigned 64-bit fingerprint.
    """
    n = len(s)
    if n <= 16:
        return _len0to16(s)
    if n <= 32:
        return _len17to32(s)
    if n <= 64:
        return _len33to64(s)
    seed = 81
    x = seed
    y = (seed * K1 + 113) & _M
    z = (_mix((y * K2 + 113) & _M) * K2) & _M
    v, w = (0, 0), (0, 0)
    x = (x * K2 + _fetch(s, 0)) & _M
    end = ((n - 1) // 64) * 64
    last64 = end + ((n - 1) & 63) - 63
    i = 0
    while True:
        x = (_rot((x + y + v[0] + _fetch(s, i + 8)) & _M, 37) * K1) & _M
        y = (_rot((y + v[1] + _fetch(s, i + 48)) & _M, 42) * K1) & _M
        x ^= w[1]
        y = (y + v[0] + _fetch(s, i + 40)) & _M
        z = (_rot((z + w[0]) & _M, 33) * K1) & _M
        v = _weak32(s, i, (v[1] * K1) & _M, (x + w[0]) & _M)
        w = _weak32(s, i + 32, (z + w[1]) & _M, (y + _fetch(s, i + 16)) & _M)
        z, x = x, z
        i += 64
        if i == end:
            break
    mul = K1 + ((z & 0xFF) << 1)
    i = last64
    w = ((w[0] + ((n - 1) & 63)) & _M, w[1])
    v = ((v[0] + w[0]) & _M, v[1])
    w = ((w[0] + v[0]) & _M, w[1])
    x = (_rot((x + y + v[0] + _fetch(s, i + 8)) & _M, 37) * mul) & _M
    y = (_rot((y + v[1] + _fetch(s, i + 48)) & _M, 42) * mul) & _M
    x ^= (w[1] * 9) & _M
    y = (y + v[0] * 9 + _fetch(s, i + 40)) & _M
    z = (_rot((z + w[0]) & _M, 33) * mul) & _M
    v = _weak32(s, i, (v[1] * mul) & _M, (x + w[0]) & _M)
    w = _weak32(s, i + 32, (z + w[1]) & _M, (y + _fetch(s, i + 16)) & _M)
    z, x = x, z
    return _len16((_len16(v[0], w[0], mul) + _mix(y) * K0 + z) & _M,
                  (_len16(v[1], w[1], mul) + x) & _M, mul)


def fingerprint_cat64(fp1: int, fp2: int) -> int:
    """TensorFlow's ``FingerprintCat64``: combines two fingerprints.

    Args:
        fp1: the running fingerprint.
        fp2: the next one.

    Returns:
        The combined unsigned 64-bit fingerprint.
    """
    mul = 0xC6A4A7935BD1E995
    r = fp1 ^ mul
    r ^= (_mix((fp2 * mul) & _M) * mul) & _M
    r = (r * mul) & _M
    r = (_mix(r) * mul) & _M
    return _mix(r)
