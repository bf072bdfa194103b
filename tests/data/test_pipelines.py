"""tw.data transformations against plain-Python references, eagerly and inside tw.function;
argument checks with TensorFlow's error classes; element_spec without running the pipeline."""
from __future__ import annotations

import io
import itertools
import json
import os
import zipfile

import numpy as np
import pytest

import twinflow as tw

Dataset = tw.data.Dataset


def _np(ds):
    return [_plain(e) for e in ds.as_numpy_iterator()]


def _plain(e):
    if isinstance(e, tuple):
        return tuple(_plain(x) for x in e)
    if isinstance(e, dict):
        return {k: _plain(v) for k, v in e.items()}
    return e.tolist() if isinstance(e, np.ndarray) else (e.item() if hasattr(e, "item") else e)


def _in_function(ds):
    """The elements (flat list of int64 scalars or vectors) collected by a loop in tw.function."""
    @tw.function
    def collect():
        ta = tw.TensorArray(tw.int64, size=0, dynamic_size=True, infer_shape=False)
        i = tw.constant(0)
        for x in ds:
            parts = x if isinstance(x, tuple) else (x,)
            for p in parts:
                ta = ta.write(i, tw.reshape(tw.cast(p, tw.int64), [-1]))
                i += 1
        return ta.concat()
    return collect().numpy().tolist()


def _flat(items):
    out = []
    for x in items:
        for p in (x if isinstance(x, tuple) else (x,)):
            out.extend(np.asarray(p).reshape(-1).tolist())
    return out


# Each case: a dataset builder and the plain-Python reference of its elements.
CASES = {
    "window_flat_map": (lambda: Dataset.range(7).window(3, shift=2).flat_map(
        lambda w: w.batch(3)), [[0, 1, 2], [2, 3, 4], [4, 5, 6], [6]]),
    "window_stride_drop": (lambda: Dataset.range(10).window(2, shift=3, stride=2,
                                                             drop_remainder=True)
                           .flat_map(lambda w: w.batch(2)), [[0, 2], [3, 5], [6, 8]]),
    "interleave": (lambda: Dataset.range(1, 4).interleave(
        lambda x: Dataset.from_tensors(x).repeat(x), cycle_length=2, block_length=2),
        [1, 2, 2, 3, 3, 3]),
    "interleave_parallel": (lambda: Dataset.range(1, 4).interleave(
        lambda x: Dataset.from_tensors(x).repeat(x), cycle_length=2, block_length=1,
        num_parallel_calls=2), [1, 2, 2, 3, 3, 3]),
    "scan": (lambda: Dataset.range(5).scan(np.int64(0), lambda s, x: (s + x, s * 10)),
             [0, 0, 10, 30, 60]),
    "group_by_window": (lambda: Dataset.range(10).group_by_window(
        lambda x: x % 2, lambda k, w: w.batch(3), window_size=3),
        [[0, 2, 4], [1, 3, 5], [6, 8], [7, 9]]),
    "unbatch": (lambda: Dataset.range(5).batch(2).unbatch(), [0, 1, 2, 3, 4]),
    "rebatch": (lambda: Dataset.range(6).batch(4).rebatch(3), [[0, 1, 2], [3, 4, 5]]),
    "concatenate": (lambda: Dataset.range(2).concatenate(Dataset.range(5, 7)), [0, 1, 5, 6]),
    "shard": (lambda: Dataset.range(10).shard(3, 1), [1, 4, 7]),
    "choose": (lambda: Dataset.choose_from_datasets(
        [Dataset.range(3), Dataset.range(10, 13)],
        Dataset.from_tensor_slices(np.array([0, 1, 1, 0], np.int64))), [0, 10, 11, 1]),
    "counter_take": (lambda: tw.data.experimental.Counter(5, 2).take(3), [5, 7, 9]),
    "take_while": (lambda: Dataset.range(10).take_while(lambda x: x < 3), [0, 1, 2]),
    "unique": (lambda: Dataset.from_tensor_slices(np.array([1, 1, 2, 1, 3], np.int64))
               .unique(), [1, 2, 3]),
    "parallel_map": (lambda: Dataset.range(20).map(lambda x: x * x, num_parallel_calls=4),
                     [i * i for i in range(20)]),
    "prefetch": (lambda: Dataset.range(6).map(lambda x: x + 1).prefetch(2),
                 [1, 2, 3, 4, 5, 6]),
    "padded_batch": (lambda: Dataset.range(1, 4).map(lambda n: tw.range(n))
                     .padded_batch(2, padded_shapes=[4]),
                     [[[0, 0, 0, 0], [0, 1, 0, 0]], [[0, 1, 2, 0]]]),
    "map": (lambda: Dataset.range(4).map(lambda x: x * 3 + 1), [1, 4, 7, 10]),
    "filter": (lambda: Dataset.range(6).filter(lambda x: x % 3 == 0), [0, 3]),
    "batch_drop": (lambda: Dataset.range(7).batch(3, drop_remainder=True),
                   [[0, 1, 2], [3, 4, 5]]),
    "repeat_take_skip": (lambda: Dataset.range(3).repeat(3).skip(2).take(5), [2, 0, 1, 2, 0]),
    "cache": (lambda: Dataset.range(3).map(lambda x: x + 5).cache(), [5, 6, 7]),
    "zip_enumerate": (lambda: Dataset.zip((Dataset.range(3), Dataset.range(10, 13)))
                      .enumerate(start=1), [(1, (0, 10)), (2, (1, 11)), (3, (2, 12))]),
    "shuffle_seeded": (lambda: Dataset.range(6).shuffle(6, seed=5).batch(6).map(
        lambda b: tw.sort(b)), [[0, 1, 2, 3, 4, 5]]),
    "sample_single": (lambda: Dataset.sample_from_datasets([Dataset.range(3)], seed=1),
                      [0, 1, 2]),
    "ignore_errors": (lambda: Dataset.from_tensor_slices(np.array([1, 0, 2], np.int64)).map(
        lambda x: tw.py_function(lambda v: 10 // v, [x], tw.int64)).ignore_errors(), [10, 5]),
    "apply": (lambda: Dataset.range(4).apply(tw.data.experimental.scan(
        np.int64(1), lambda s, x: (s * 2, s + x))), [1, 3, 6, 11]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_transformation_matches_reference_eagerly_and_in_function(name):
    build, ref = CASES[name]
    assert _np(build()) == ref
    assert _in_function(build()) == _flat(ref)


def test_bucket_by_sequence_length_groups_and_pads():
    lengths = [1, 5, 2, 6, 3, 7]
    ds = Dataset.from_generator(lambda: (np.arange(n) + 1 for n in lengths),
                                output_signature=tw.TensorSpec([None], tw.int64))
    out = _np(ds.bucket_by_sequence_length(lambda x: tw.shape(x)[0], [4], [2, 2]))
    # reference: bucket 0 (< 4) and bucket 1, batches of 2 padded to their longest
    short = [[1, 0], [1, 2]]
    assert out[0] == short
    assert out[1] == [[1, 2, 3, 4, 5, 0], [1, 2, 3, 4, 5, 6]]
    assert out[2] == [[1, 2, 3]] and out[3] == [[1, 2, 3, 4, 5, 6, 7]]


def test_sample_from_datasets_is_seeded_and_checks_weights():
    a, b = Dataset.range(0, 50), Dataset.range(100, 150)
    s1 = _np(Dataset.sample_from_datasets([a, b], [0.5, 0.5], seed=3))
    s2 = _np(Dataset.sample_from_datasets([a, b], [0.5, 0.5], seed=3))
    assert s1 == s2 and sorted(s1) == list(range(50)) + list(range(100, 150))
    with pytest.raises(ValueError, match="same length"):
        Dataset.sample_from_datasets([a, b], weights=[0.5])
    with pytest.raises(ValueError, match="same length"):
        Dataset.sample_from_datasets([a, b], weights=[0.2, 0.3, 0.5])


def test_padded_batch_shapes_values_and_errors():
    x = Dataset.from_tensor_slices(([[1, 2, 3]], [[1., 2.]]))
    out = _np(x.padded_batch(2, padded_shapes=([4], [3]), padding_values=(-1, 9.)))
    assert out == [([[1, 2, 3, -1]], [[1., 2., 9.]])]
    spec = x.padded_batch(2, padded_shapes=([4], [None])).element_spec
    assert spec[0].shape.as_list() == [None, 4] and spec[1].shape.as_list() == [None, None]
    with pytest.raises(ValueError, match="not compatible"):
        Dataset.from_tensor_slices([[1, 2, 3]]).padded_batch(2, padded_shapes=[2])
    with pytest.raises(TypeError, match="padding_values"):
        Dataset.from_tensor_slices([[1, 2, 3]]).padded_batch(2, padding_values=1.5)
    with pytest.raises(ValueError, match="unknown rank"):
        Dataset.from_generator(lambda: iter([[1]]), output_types=tw.int32).padded_batch(2)


def test_from_generator_spec_and_checks():
    def g():
        yield [1.0, 2.0]
        yield [1.0, 2.0, 3.0]
    ds = Dataset.from_generator(g, output_signature=tw.TensorSpec([None], tw.float32))
    assert ds.element_spec.shape.as_list() == [None]
    assert ds.batch(1).element_spec.shape.as_list() == [None, None]
    assert Dataset.from_generator(g, output_types=tw.float32).element_spec.shape.rank is None
    bad = Dataset.from_generator(g, output_signature=tw.TensorSpec([2], tw.float32))
    with pytest.raises(tw.errors.InvalidArgumentError, match="shape"):
        _np(bad)
    strs = Dataset.from_generator(lambda: iter(["a"]),
                                  output_signature=tw.TensorSpec([], tw.float32))
    with pytest.raises(tw.errors.InvalidArgumentError, match="converted"):
        _np(strs)
    pair = Dataset.from_generator(lambda: iter([(1, 2)]),
                                  output_signature=tw.TensorSpec([], tw.int32))
    with pytest.raises(tw.errors.InvalidArgumentError):
        _np(pair)

    @tw.function
    def total():
        s = tw.constant(0.0)
        for x in bad:
            s += tw.reduce_sum(x)
        return s
    with pytest.raises(tw.errors.InvalidArgumentError):
        total()


BAD_CALLS = {
    "filter_int": (lambda: Dataset.range(3).filter(lambda x: x), ValueError),
    "filter_vector": (lambda: Dataset.range(3).filter(lambda x: tw.stack([x > 1, x > 2])),
                      ValueError),
    "concat_dtypes": (lambda: Dataset.range(3).concatenate(
        Dataset.from_tensor_slices([1.0])), TypeError),
    "prefetch_-5": (lambda: Dataset.range(3).prefetch(-5), tw.errors.InvalidArgumentError),
    "batch_2.5": (lambda: Dataset.range(3).batch(2.5), TypeError),
    "batch_0": (lambda: Dataset.range(3).batch(0), tw.errors.InvalidArgumentError),
    "shuffle_0": (lambda: Dataset.range(3).shuffle(0), tw.errors.InvalidArgumentError),
    "shard_index": (lambda: Dataset.range(3).shard(2, 3), tw.errors.InvalidArgumentError),
    "map_parallel_-3": (lambda: Dataset.range(3).map(lambda x: x, num_parallel_calls=-3),
                        tw.errors.InvalidArgumentError),
    "window_0": (lambda: Dataset.range(3).window(0), tw.errors.InvalidArgumentError),
    "choose_float": (lambda: Dataset.choose_from_datasets(
        [Dataset.range(3)], Dataset.from_tensor_slices([0.0])), TypeError),
    "group_key_int32": (lambda: Dataset.range(3).group_by_window(
        lambda x: tw.cast(x, tw.int32), lambda k, w: w, 2), ValueError),
}


@pytest.mark.parametrize("name", sorted(BAD_CALLS))
def test_invalid_calls_raise_as_tensorflow(name):
    call, err = BAD_CALLS[name]
    with pytest.raises(err):
        call()

    @tw.function
    def in_function():
        return call()
    with pytest.raises(err):
        in_function()


def test_filter_accepts_a_python_bool_and_repr_shows_spec():
    assert _np(Dataset.range(3).filter(lambda x: True)) == [0, 1, 2]
    r = repr(Dataset.from_tensor_slices(([1, 2], [3., 4.])).batch(2))
    assert r.startswith("<BatchDataset element_spec=(TensorSpec(shape=(None,), dtype=tw.int32")
    m = Dataset.range(3).map(lambda x: {"a": x})
    assert "MapDataset element_spec={'a': TensorSpec(shape=()" in repr(m)
    assert int(Dataset.range(5).filter(lambda x: True).cardinality()) == -2
    assert tw.data.AUTOTUNE == -1


_TRACE_COUNT: list = []


def test_map_spec_comes_from_one_trace_not_from_running_the_pipeline():
    ran = []

    def gen():
        ran.append(1)
        yield np.zeros(3, np.float32)

    def f(x):
        _TRACE_COUNT.append(1)
        return tw.concat([x, x], 0)
    ds = Dataset.from_generator(gen, output_signature=tw.TensorSpec([None], tw.float32)).map(f)
    assert ds.element_spec.shape.as_list() == [None] and not ran
    assert len(_TRACE_COUNT) == 1
    assert _np(ds) == [[0.0] * 6] and len(_TRACE_COUNT) == 1


def test_ignore_errors_drops_failing_elements():
    ds = Dataset.from_tensor_slices(np.array([1., 0., 2.], np.float32)).map(
        lambda x: tw.debugging.check_numerics(1.0 / x, "inf")).ignore_errors()
    assert _np(ds) == [1.0, 0.5]


def test_ignore_errors_goes_on_past_take_while():
    # As TensorFlow 2.21: a failing element below (or in) take_while is dropped and the pass
    # goes on; the first False of the predicate still ends it.
    inverse = Dataset.from_tensor_slices(np.array([1., 0., 2., 4., 8.], np.float32)).map(
        lambda x: tw.debugging.check_numerics(1.0 / x, "inf"))
    assert _np(inverse.take_while(lambda y: y > 0.2).ignore_errors()) == [1.0, 0.5, 0.25]
    checked = Dataset.from_tensor_slices(np.array([1., 0., 2., 1e-3], np.float32)).take_while(
        lambda x: tw.debugging.check_numerics(1.0 / x, "inf") < 100.0)
    assert _np(checked.ignore_errors()) == [1.0, 2.0]
    with pytest.raises(tw.errors.InvalidArgumentError):
        _np(checked)


def test_with_options_and_deterministic_parallel_map():
    opts = tw.data.Options()
    opts.deterministic = False
    ds = Dataset.range(30).map(lambda x: x + 1, num_parallel_calls=3).with_options(opts)
    assert ds.options().deterministic is False
    assert sorted(_np(ds)) == list(range(1, 31))
    with pytest.raises(AttributeError):
        opts.no_such_option = 1


def test_iterator_position_is_saved_in_a_checkpoint(tmp_path):
    ds = Dataset.range(10).map(lambda x: x * 2)
    it = iter(ds)
    ckpt = tw.train.Checkpoint(iterator=it)
    [next(it) for _ in range(3)]
    path = ckpt.save(str(tmp_path / "ckpt"))
    assert int(next(it)) == 6 and int(next(it)) == 8
    ckpt.restore(path)
    assert int(next(it)) == 6


def test_save_load_and_snapshot(tmp_path):
    ds = Dataset.from_tensor_slices((np.arange(6).reshape(3, 2),
                                     np.array([b"a", b"bc", b""], dtype=object)))
    ds.save(str(tmp_path / "saved"))
    back = Dataset.load(str(tmp_path / "saved"))
    assert back.element_spec == ds.element_spec and _np(back) == _np(ds)
    Dataset.range(3).save(str(tmp_path / "saved"))  # replaces the folder as a whole
    assert _np(Dataset.load(str(tmp_path / "saved"))) == [0, 1, 2]
    assert sorted(os.listdir(tmp_path)) == ["saved"]
    with pytest.raises(tw.errors.NotFoundError):
        Dataset.load(str(tmp_path / "nothing"))
    count = []

    def f(x):
        return x + 1
    src = Dataset.range(4).map(f).apply(lambda d: d.filter(lambda x: True))
    snap = src.snapshot(str(tmp_path / "snap"))
    assert _np(snap) == [1, 2, 3, 4]
    assert _np(Dataset.range(0).snapshot(str(tmp_path / "snap"))) == [1, 2, 3, 4]
    del count


def test_window_elements_are_datasets_and_cardinalities():
    w = Dataset.range(5).window(2)
    assert isinstance(w.element_spec, tw.data.DatasetSpec)
    assert [list(x) for x in w.as_numpy_iterator()] == [[0, 1], [2, 3], [4]]
    assert int(w.cardinality()) == 3
    assert int(Dataset.range(5).window(2, drop_remainder=True).cardinality()) == 2
    assert int(Dataset.range(4).batch(2).unbatch().cardinality()) == -2
    assert list(itertools.islice(Dataset.range(3).repeat().as_numpy_iterator(), 4)) == \
        [0, 1, 2, 0]


def test_next_of_an_iterator_inside_a_function_takes_a_new_element_per_call():
    it = iter(Dataset.range(5).map(lambda x: x * 10))

    @tw.function
    def step(iterator):
        return next(iterator) + 1
    assert [int(step(it)) for _ in range(3)] == [1, 11, 21]
    assert int(next(it)) == 30  # the eager iterator continues where the graph left it
    assert int(step(it)) == 41
    with pytest.raises(tw.errors.OutOfRangeError):
        step(it)


def test_reduce_and_scan_relax_a_growing_state_and_check_dtypes():
    grown = Dataset.range(3).reduce(np.zeros([0], np.int64),
                                    lambda s, x: tw.concat([s, tw.reshape(x, [1])], 0))
    assert grown.numpy().tolist() == [0, 1, 2]
    sc = Dataset.range(3).scan(np.zeros([0], np.int64),
                               lambda s, x: (tw.concat([s, tw.reshape(x, [1])], 0), tw.size(s)))
    assert [int(v) for v in sc.as_numpy_iterator()] == [0, 1, 2]
    with pytest.raises(TypeError, match="element types for the new state"):
        Dataset.range(3).reduce(np.int64(0), lambda s, x: tw.cast(s, tw.float32))
    with pytest.raises(TypeError, match="pair"):
        Dataset.range(3).scan(np.int64(0), lambda s, x: s + x)
    with pytest.raises(ValueError, match="callable"):
        Dataset.range(3).map(123)


def test_generator_of_unknown_shape_in_function_loops():
    def gen():
        return (np.ones(3, np.float32) * i for i in range(5))
    ds = Dataset.from_generator(gen, output_types=tw.float32)
    assert ds.element_spec.shape.rank is None

    @tw.function
    def total(d):
        s = tw.constant(0.0)
        for x in d:
            s += tw.reduce_sum(x)
        return s
    assert float(total(ds.batch(2))) == 30.0
    assert float(total(ds.filter(lambda x: x[0] > 1))) == 27.0
    with pytest.raises(tw.errors.InvalidArgumentError, match="scalar"):
        list(ds.filter(lambda x: x > 1))


def test_iter_and_next_inside_a_function():
    ds = Dataset.range(10).map(lambda x: x * 2)

    @tw.function
    def first_two_then_rest():
        it = iter(ds)
        a = next(it)
        b = it.get_next()
        rest = tw.constant(0, tw.int64)
        for x in it:
            rest += x
        return a, b, rest
    for _ in range(2):  # each call is a new pass
        a, b, rest = first_two_then_rest()
        assert (int(a), int(b), int(rest)) == (0, 2, 2 * sum(range(2, 10)))

    @tw.function
    def too_far():
        it = iter(Dataset.range(1))
        next(it)
        return next(it)
    with pytest.raises(tw.errors.OutOfRangeError):
        too_far()


@pytest.mark.parametrize("meta", ['{"count": 1, "shard": 1, "spec": {"t": "leaf", "dtype": '
                                  '"bogus", "shape": []}}', '{"count": 1}', "[1, 2]",
                                  '{"count": 1, "shard": 1, "spec": ' + "[" * 5000 + "]" * 5000
                                  + "}", "not json"])
def test_hostile_saved_dataset_is_a_clear_error(tmp_path, meta):
    Dataset.range(2).save(str(tmp_path / "s"))
    (tmp_path / "s" / "spec.json").write_text(meta)
    with pytest.raises(tw.errors.DataLossError, match="spec.json"):
        list(Dataset.load(str(tmp_path / "s")))


def _huge_npy() -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        buf, {"descr": "<i8", "fortran_order": False, "shape": (2 ** 40,)})
    return buf.getvalue() + b"\0" * 16


def _edit_meta(folder, change) -> None:
    meta = json.loads((folder / "spec.json").read_text())
    change(meta)
    (folder / "spec.json").write_text(json.dumps(meta))


def _rewrite_shard(folder, data: bytes) -> None:
    shard = folder / "elements-00000.npz"
    with zipfile.ZipFile(shard) as z:
        names = z.namelist()
    with zipfile.ZipFile(shard, "w") as z:
        for n in names:
            z.writestr(n, data)


HOSTILE_SAVES = [  # (what, change, the file the error names, words)
    ("count 2**40", lambda d: _edit_meta(d, lambda m: m.update(count=2 ** 40)), "spec.json",
     "declares 1099511627776 elements"),
    ("count -1", lambda d: _edit_meta(d, lambda m: m.update(count=-1)), "spec.json", "-1"),
    ("spec shape [2**40] for scalars",
     lambda d: _edit_meta(d, lambda m: m["spec"].update(shape=[2 ** 40])),
     "elements-00000.npz", "does not match the saved spec"),
    ("spec dtype float32 for int64",
     lambda d: _edit_meta(d, lambda m: m["spec"].update(dtype="float32")),
     "elements-00000.npz", "does not match the saved spec"),
    ("shard header declares 2**40 elements", lambda d: _rewrite_shard(d, _huge_npy()),
     "elements-00000.npz", ""),
]


@pytest.mark.parametrize("what,change,name,words", HOSTILE_SAVES,
                         ids=[h[0] for h in HOSTILE_SAVES])
def test_hostile_saved_dataset_files_are_clear_errors(tmp_path, what, change, name, words):
    Dataset.range(3).save(str(tmp_path / "s"))
    change(tmp_path / "s")
    with pytest.raises(tw.errors.DataLossError, match=name) as info:
        list(Dataset.load(str(tmp_path / "s")))
    assert words in str(info.value)


def test_truncated_shard_is_a_clear_error(tmp_path):
    Dataset.range(5).save(str(tmp_path / "s"))
    shard = tmp_path / "s" / "elements-00000.npz"
    shard.write_bytes(shard.read_bytes()[:50])
    with pytest.raises(tw.errors.DataLossError, match="elements-00000.npz"):
        list(Dataset.load(str(tmp_path / "s")))


def test_dict_elements_keep_their_keys_apart_whatever_their_order():
    ds = Dataset.range(3).map(lambda x: {"z": x * 10, "a": (tw.cast(x, tw.float32), "s")})
    assert _np(ds)[1] == {"z": 10, "a": (1.0, b"s")}
    sig = {"y": tw.TensorSpec([], tw.int64), "b": tw.TensorSpec([2], tw.float32)}
    gen = Dataset.from_generator(lambda: iter([{"b": [1.0, 2.0], "y": 7}]),
                                 output_signature=sig)
    assert _np(gen) == [{"y": 7, "b": [1.0, 2.0]}]
    mapped = gen.map(lambda d: {"sum": tw.reduce_sum(d["b"]), "y": d["y"] + 1})
    assert _np(mapped) == [{"sum": 3.0, "y": 8}]

    @tw.function
    def total(d):
        s = tw.constant(0.0)
        for e in d:
            s += e["sum"] + tw.cast(e["y"], tw.float32)
        return s
    assert float(total(mapped)) == 11.0


def test_joined_datasets_with_dicts_in_another_key_order():
    a = Dataset.from_tensors({"x": np.int64(1), "y": np.float32(2.0)})
    b = Dataset.from_tensors({"y": np.float32(4.0), "x": np.int64(3)})
    joined = a.concatenate(b).batch(2)
    assert _np(joined) == [{"x": [1, 3], "y": [2.0, 4.0]}]
    mixed = Dataset.choose_from_datasets([a, b], Dataset.from_tensor_slices(
        np.array([1, 0], np.int64))).batch(2)
    assert _np(mixed) == [{"x": [3, 1], "y": [4.0, 2.0]}]
    sampled = Dataset.sample_from_datasets([a, b], seed=2).batch(2)
    assert sorted(_np(sampled)[0]["x"]) == [1, 3]
