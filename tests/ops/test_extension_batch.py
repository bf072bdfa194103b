"""tw.experimental.ExtensionTypeBatchEncoder: batch/unbatch/encode/decode/encoding_specs and
tw.data batching of ExtensionType values through ``__batch_encoder__``."""
import numpy as np
import pytest

import twinflow as tw


class Pair(tw.experimental.BatchableExtensionType):
    x: tw.Tensor
    r: tw.RaggedTensor
    n: int = 3


def _pair():
    return Pair(tw.constant([1.0, 2.0]), tw.ragged.constant([[1], [2, 3]]))


def test_default_encoder_specs_match_tensorflow():
    enc = tw.experimental.ExtensionTypeBatchEncoder()
    p = _pair()
    s = p._type_spec
    b = enc.batch(s, 4)
    assert b._fields[0][1] == tw.TensorSpec([4, 2], tw.float32)
    assert b._fields[1][1].shape.as_list() == [4, 2, None] and b._fields[1][1].ragged_rank == 2
    assert b._fields[2] == ("n", 3)
    assert enc.batch(s, None)._fields[0][1].shape.as_list() == [None, 2]
    assert enc.unbatch(b) == s
    x, r = enc.encode(s, p)
    assert x is p.x and r is p.r
    assert enc.encoding_specs(s) == (s._fields[0][1], s._fields[1][1])
    d = enc.decode(s, enc.encode(s, p))
    assert isinstance(d, Pair) and d.x is p.x and d.n == 3


def test_bad_arguments_raise():
    enc = tw.experimental.ExtensionTypeBatchEncoder()
    s = _pair()._type_spec
    with pytest.raises(TypeError, match="ExtensionType spec"):
        enc.batch(tw.TensorSpec([2]), 3)
    with pytest.raises(ValueError, match="batch_size"):
        enc.batch(s, -1)
    with pytest.raises(ValueError, match="minimum_rank"):
        enc.encode(s, _pair(), minimum_rank=-1)
    with pytest.raises(ValueError, match="2 encoded components"):
        enc.decode(s, [tw.constant(1.0)])
    with pytest.raises(ValueError, match="scalar"):
        enc.unbatch(tw.experimental.ExtensionTypeSpec(Pair, (("x", tw.TensorSpec([])),)))


def test_dataset_batch_and_unbatch():
    ds = tw.data.Dataset.from_tensors(_pair()).repeat(3).batch(2)
    assert ds.element_spec._fields[0][1].shape.as_list() == [None, 2]
    first, last = list(ds)
    np.testing.assert_array_equal(first.x.numpy(), [[1, 2], [1, 2]])
    assert first.r.to_list() == [[[1], [2, 3]], [[1], [2, 3]]]
    assert last.x.shape.as_list() == [1, 2]
    rows = list(ds.unbatch())
    assert len(rows) == 3 and rows[2].r.to_list() == [[1], [2, 3]] and rows[0].n == 3


class Counts(tw.experimental.BatchableExtensionType):
    """Encoded as one tensor [a, b] (a custom encoder), so a batch is one [n, 2] matrix."""
    a: tw.Tensor
    b: tw.Tensor


class CountsEncoder(tw.experimental.ExtensionTypeBatchEncoder):
    def encode(self, spec, value, minimum_rank=0):
        return (tw.stack([value.a, value.b], axis=-1),)

    def decode(self, spec, encoded_value):
        (ab,) = encoded_value
        return Counts(ab[..., 0], ab[..., 1])

    def encoding_specs(self, spec):
        a = spec._fields[0][1]
        return (tw.TensorSpec(a.shape.concatenate([2]), a.dtype),)


Counts.__batch_encoder__ = CountsEncoder()


def test_custom_batch_encoder_is_honoured():
    ds = tw.data.Dataset.range(5).map(lambda i: Counts(i, i * 10)).batch(2)
    batches = list(ds)
    np.testing.assert_array_equal(batches[0].b.numpy(), [0, 10])
    np.testing.assert_array_equal(batches[2].a.numpy(), [4])
    rows = list(ds.unbatch())
    assert [int(r.b) for r in rows] == [0, 10, 20, 30, 40]
