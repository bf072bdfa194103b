"""bfloat16 end to end: values TensorFlow 2.21 gives, variables, gradients, tw.function, and
every registry case run again in bfloat16 (values and gradients against the float case on
bfloat16-rounded inputs); the storage-only float8/int4 types and the quantized types."""
from __future__ import annotations

import importlib
import pathlib

import ml_dtypes
import numpy as np
import pytest

import twinflow as tw

from . import harness

BF = np.dtype(ml_dtypes.bfloat16)
_HERE = pathlib.Path(__file__).parent
CASES = [c for m in sorted(p.stem for p in _HERE.glob("cases_*.py"))
         for c in importlib.import_module(f"{__package__}.{m}").CASES]
# Cases whose bfloat16 run is expected to differ from the float run (each with why).
DIFFERENT = {
    "cast": "casts to float32 on purpose",
    "img_resize_bilinear": "image resizing returns float32, as TensorFlow's",
    "img_crop_and_resize": "crop_and_resize returns float32, as TensorFlow's",
    "zero_fraction": "returns float32, as TensorFlow's",
    "confusion_matrix_weighted": "its dtype argument is float64",
    "sampled_softmax_loss_accidental_hits": "the accidental-hit penalty overflows bfloat16",
    "surf_vectorized_map": "the case mixes in a float64 constant",
    "img_hsv_round_trip": "bfloat16 rounding between the colour spaces",
    "img_adjust_saturation": "bfloat16 rounding between the colour spaces",
    "img_standardize": "bfloat16 rounding of the standard deviation",
}
REFUSED = ("not in the list of allowed values", "does not accept bfloat16", "must be float32",
           "must be a float64 tensor", "must be a float32 tensor", "expected to be a float")


def _floats(args, dtype=None):
    return [(a.astype(BF) if dtype is None else a.astype(BF).astype(a.dtype))
            if a.dtype in (np.float32, np.float64) else a for a in args]


def _bf_cases():
    return [c for c in CASES if not c.stateful_random and c.id not in DIFFERENT
            and any(a.dtype in (np.float32, np.float64) for a in c.args)]


def _scale(a) -> float:
    finite = np.abs(a[np.isfinite(a)])
    return max(float(finite.max()) if finite.size else 1.0, 1.0)


def _limits(a):
    """Values at a float type's limits (an empty segment's max) as infinities: bfloat16's
    lowest is not float64's."""
    with np.errstate(invalid="ignore"):  # (sign(0) * inf where the value is not used)
        return np.where(np.abs(a) >= 3.3e38, np.sign(a) * np.inf, a)


def _run(fn, *args):
    try:
        return fn(*args), None
    except Exception as e:  # noqa: BLE001  (classified by the caller)
        return None, e


def test_values_of_every_case_in_bfloat16():
    ran, problems = 0, []
    for c in _bf_cases():
        ref, err = _run(lambda c=c: harness.as_list(
            c.fn(*[tw.constant(a) for a in _floats(c.args, "same")])))
        if err is not None:
            continue
        got, err = _run(lambda c=c: harness.as_list(c.fn(*[tw.constant(a)
                                                           for a in _floats(c.args)])))
        if err is not None:
            if not any(s in str(err) for s in REFUSED):  # a schema refusal is TensorFlow's
                problems.append(f"{c.id}: {type(err).__name__} {err}")
            continue
        ran += 1
        for r, g in zip(ref, got):
            rv = np.asarray(r)
            if rv.dtype in (np.float32, np.float64):
                assert g.dtype is tw.bfloat16, c.id
            if rv.dtype.kind == "f":
                a, b = _limits(rv.astype(np.float64)), _limits(np.asarray(g).astype(np.float64))
                scale = _scale(a)
                np.testing.assert_allclose(b, a, rtol=5e-2, atol=5e-2 * scale, err_msg=c.id)
    assert not problems, "\n".join(problems)
    assert ran > 400


def _grads(c, args):
    ts = [tw.constant(a) for a in args]
    with tw.GradientTape() as tape:
        for i in c.grad:
            tape.watch(ts[i])
        outs = [o for o in harness.as_list(c.fn(*ts)) if o.dtype.is_floating]
        loss = tw.add_n([tw.reduce_sum(tw.cast(o, tw.float32)) for o in outs])
    return tape.gradient(loss, [ts[i] for i in c.grad])


def test_gradients_of_every_case_in_bfloat16():
    ran, problems = 0, []
    for c in _bf_cases():
        if not c.grad or not all(c.args[i].dtype in (np.float32, np.float64) for i in c.grad):
            continue
        ref, err = _run(_grads, c, _floats(c.args, "same"))
        if err is not None:
            continue
        got, err = _run(_grads, c, _floats(c.args))
        if err is not None:
            if not any(s in str(err) for s in REFUSED):
                problems.append(f"{c.id}: {type(err).__name__} {err}")
            continue
        ran += 1
        for r, g in zip(ref, got):
            assert (r is None) == (g is None), c.id
            if r is not None:
                assert g.dtype is tw.bfloat16, c.id
                a = np.asarray(r).astype(np.float64)
                b = np.asarray(tw.cast(g, tw.float32)).astype(np.float64)
                scale = _scale(a)
                np.testing.assert_allclose(b, a, rtol=1e-1, atol=1e-1 * scale, err_msg=c.id)
    assert not problems, "\n".join(problems)
    assert ran > 400


def test_values_tensorflow_gives():
    # Recorded from TensorFlow 2.21 (CPU).
    b = tw.constant([1.0, 2.0, 3.0], tw.bfloat16)
    assert b.dtype is tw.bfloat16 and b.numpy().dtype == BF
    np.testing.assert_array_equal((b + b / 3).numpy().astype(np.float32),
                                  np.array([1.33594, 2.67188, 4], BF).astype(np.float32))
    np.testing.assert_array_equal(tw.exp(b).numpy().astype(np.float32), [2.71875, 7.375, 20.125])
    m = tw.matmul(tw.reshape(b, [1, 3]), tw.reshape(b, [3, 1]))
    assert m.dtype is tw.bfloat16 and float(m.numpy()[0, 0]) == 14.0
    assert float(tw.reduce_sum(b / 3).numpy()) == 2.0
    assert float(tw.reduce_mean(b / 3).numpy()) == 0.66796875
    np.testing.assert_array_equal(tw.sqrt(b).numpy().astype(np.float32),
                                  np.array([1, 1.41406, 1.73438], BF).astype(np.float32))
    np.testing.assert_array_equal((b + 0.1).numpy().astype(np.float32),
                                  np.array([1.10156, 2.09375, 3.09375], BF).astype(np.float32))
    assert tw.argmax(b).numpy() == 2 and tw.cumsum(b).numpy().tolist() == [1, 3, 6]
    with pytest.raises(tw.errors.InvalidArgumentError):
        tw.constant(1.0, tw.float16) + b  # no promotion, as TensorFlow


def test_variable_gradient_function_and_optimizer():
    v = tw.Variable(tw.constant([1.0, 2.0, 3.0], tw.bfloat16))
    with tw.GradientTape() as tape:
        y = tw.reduce_sum(v * v)
    g = tape.gradient(y, v)
    assert g.dtype is tw.bfloat16 and g.numpy().astype(np.float32).tolist() == [2, 4, 6]
    f = tw.function(lambda x: tw.nn.softmax(tw.matmul(x, x)))
    x = tw.constant(np.eye(2, dtype=np.float32) * 2, tw.bfloat16)
    got = f(x)
    assert got.dtype is tw.bfloat16
    np.testing.assert_allclose(got.numpy().astype(np.float32), tw.nn.softmax(
        tw.constant(np.eye(2, dtype=np.float32) * 4)).numpy(), atol=1e-2)
    tw.keras.optimizers.SGD(0.5).apply([g], [v])
    assert v.dtype is tw.bfloat16 and v.numpy().astype(np.float32).tolist() == [0, 0, 0]


def test_storage_only_types_cast_and_move_but_do_not_compute():
    f8 = tw.cast(tw.constant([1.5, 2.25, -3.0]), tw.experimental.float8_e4m3fn)
    assert f8.dtype is tw.experimental.float8_e4m3fn
    assert tw.reshape(f8, [3, 1]).shape == (3, 1)
    assert tw.concat([f8, f8], 0).shape == (6,)
    np.testing.assert_array_equal(tw.cast(f8, tw.float32).numpy(), [1.5, 2.25, -3.0])
    with pytest.raises(tw.errors.InvalidArgumentError, match="float8_e4m3fn"):
        f8 + f8  # TensorFlow has no arithmetic kernels for float8
    with pytest.raises(tw.errors.InvalidArgumentError, match="float8_e4m3fn"):
        tw.exp(f8)
    # TensorFlow's overflow rules: float8_e4m3fn has no infinity (NaN), int4 wraps.
    big = tw.cast(tw.constant([1000.0, np.nan]), tw.experimental.float8_e4m3fn)
    assert np.isnan(tw.cast(big, tw.float32).numpy()).all()
    assert tw.dtypes.saturate_cast(tw.constant([1000.0]), tw.experimental.float8_e4m3fn) \
        .numpy().astype(np.float32).tolist() == [448]
    i4 = tw.cast(tw.constant([1, -3, 7, 9, 100, -100]), tw.dtypes.experimental.int4)
    assert tw.cast(i4, tw.int32).numpy().tolist() == [1, -3, 7, -7, 4, -4]
    assert tw.constant([1, 2], tw.dtypes.experimental.uint2).dtype.name == "uint2"


def test_quantized_types_store_and_cast():
    q = tw.constant([1, 2, -3], tw.qint8)
    assert q.dtype is tw.qint8
    got = q.numpy()
    assert got.dtype == np.int8 and got.tolist() == [1, 2, -3]  # TensorFlow gives the ints
    assert tw.reshape(q, [3, 1]).dtype is tw.qint8
    assert tw.cast(q, tw.float32).numpy().tolist() == [1, 2, -3]
    assert tw.cast(tw.constant([1.0, 2.0]), tw.quint8).numpy().tolist() == [1, 2]
    with pytest.raises(tw.errors.InvalidArgumentError, match="qint8"):
        q + q
    assert "qint8" in repr(q) and "[ 1,  2, -3]" in repr(q)
