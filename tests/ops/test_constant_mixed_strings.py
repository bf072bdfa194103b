"""tw.constant of str mixed with bytes (non-ASCII included): UTF-8 bytes, as TensorFlow gives."""
from __future__ import annotations

import pytest

import twinflow as tw


@pytest.mark.parametrize("value,expected", [
    (["\u00e9", b"\xff"], [b"\xc3\xa9", b"\xff"]),
    ([b"\xff", "\u00e9"], [b"\xff", b"\xc3\xa9"]),
    ([["a"], [b"\xff"]], [[b"a"], [b"\xff"]]),
])
def test_mixed_str_and_bytes(value, expected):
    for make in (lambda: tw.constant(value), tw.function(lambda: tw.constant(value))):
        t = make()
        assert t.dtype == tw.string and t.numpy().tolist() == expected
    assert tw.constant(value, dtype=tw.string).numpy().tolist() == expected
    assert tw.ragged.constant([value]).to_list() == [expected]


def test_mixed_str_and_bytes_errors():
    with pytest.raises(ValueError, match="non-rectangular"):
        tw.constant([[b"\xff"], ["a", "b"]])
    with pytest.raises(ValueError, match="mixed types"):
        tw.constant([b"\xff", 1])
