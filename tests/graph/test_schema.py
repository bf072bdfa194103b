"""Op schemas: the notation, the generated validator, and the declarations of the ops."""
from __future__ import annotations

import inspect

import numpy as np
import pytest

import twinflow as tf
from twinflow.graph.checks import check_dtypes_match, normalize_axis
from twinflow.graph.registry import REGISTRY, load_all_op_families
from twinflow.graph.schema import parse_schema
from twinflow.graph.validator import validator
from twinflow.ops.schemas import SCHEMAS

IAE = tf.errors.InvalidArgumentError


def test_parse_reads_tensorflow_notation():
    s = parse_schema("x@input:T, k:int32 -> y:T | T:type in [half,float,double]; "
                     "axis:int axis(x)+1; ksize:list(int)=[1] >=2 each>=1; "
                     "padding:string in [SAME,VALID]; keepdims@keep_dims:bool=False")
    x, k = s.inputs
    assert (x.name, x.tf_name, x.type_attr) == ("x", "input", "T")
    assert k.fixed is tf.int32
    assert s.attrs["T"].allowed == {tf.float16, tf.float32, tf.float64}
    assert (s.attrs["axis"].axis_of, s.attrs["axis"].axis_extra) == (0, 1)
    ks = s.attrs["ksize"]
    assert (ks.kind, ks.default, ks.minimum, ks.each_min) == ("list(int)", [1], 2, 1)
    assert s.attrs["padding"].allowed == {"SAME", "VALID"}
    assert s.attrs["keepdims"].tf_name == "keep_dims"


@pytest.mark.parametrize("text", ["x:T | T:type", "x:T -> y:T | T:nonsense",
                                  "x:T -> y:T | a:int foo", "x:T -> y | a:int axis(z)"])
def test_parse_refuses_bad_schemas(text):
    with pytest.raises((ValueError, TypeError)):
        parse_schema(text)


class _T:
    """A stand-in input: a dtype and a rank."""

    def __init__(self, dtype, rank=2):
        self.dtype, self.shape = dtype, tf.TensorShape([1] * rank)


def test_generated_validator_checks_dtypes_and_attrs():
    v = validator(parse_schema("a:T, b:T -> c:T | T:type in [float]; flag:bool; n:int >=1; "
                               "axis:int axis(a); pad:string in [SAME]"), "Op")
    f32 = _T(tf.float32)
    v([f32, f32], {"flag": True, "n": 1, "axis": -2, "pad": "SAME"})
    with pytest.raises(IAE, match=r"attr 'T' of int32 .* \[Op:Op\]"):
        v([_T(tf.int32), _T(tf.int32)], {})
    with pytest.raises(IAE, match=r"input #1\(zero-based\) was expected to be a float32"):
        v([f32, _T(tf.float64)], {})
    with pytest.raises(TypeError, match="'flag' must be a bool"):
        v([f32, f32], {"flag": 1})
    with pytest.raises(IAE, match="at least minimum 1"):
        v([f32, f32], {"n": 0})
    with pytest.raises(TypeError, match="'n' must be an int"):
        v([f32, f32], {"n": 1.0})
    with pytest.raises(IAE, match="axis 2 is out of range for an input with 2 dimensions"):
        v([f32, f32], {"axis": 2})
    with pytest.raises(IAE, match="not in the list of allowed values: SAME"):
        v([f32, f32], {"pad": "VALID"})


def test_variadic_inputs_share_their_type_attr():
    v = validator(parse_schema("xs:N*T, y:int32 -> z:T | T:type in [float,double]"), "Op")
    v([_T(tf.float64), _T(tf.float64), _T(tf.int32)], {})
    with pytest.raises(IAE, match="input #1"):
        v([_T(tf.float64), _T(tf.float32), _T(tf.int32)], {})
    with pytest.raises(IAE, match="input #2"):
        v([_T(tf.float64), _T(tf.float64), _T(tf.int64)], {})


def test_normalize_axis_refuses_floats_and_bools_and_names_the_op():
    assert normalize_axis(-1, 3, "Op") == 2
    assert normalize_axis([0, -1], 3, "Op") == (0, 2)
    assert normalize_axis(5, None, "Op") == 5
    for bad in (1.5, True, "a", [0, 1.0]):
        with pytest.raises(TypeError, match="must be an int"):
            normalize_axis(bad, 3, "Op")
    with pytest.raises(IAE, match=r"axis 3 .* 3 dimensions.*\[-3, 3\) \[Op:Op\]"):
        normalize_axis(3, 3, "Op")
    with pytest.raises(IAE, match=r"^concat: axis -4"):
        normalize_axis(-4, 3, "concat")


def test_check_dtypes_match():
    check_dtypes_match("Op", [_T(tf.int32), _T(tf.int32)])
    with pytest.raises(IAE, match="does not promote"):
        check_dtypes_match("Op", [_T(tf.int32), _T(tf.float32)])


def test_every_declared_schema_names_a_registered_op_and_its_attrs():
    load_all_op_families()  # (tw.signal's, tw.io's... register on first use)
    for name in SCHEMAS:
        opdef = REGISTRY[name]
        assert opdef.schema is not None, name
        params = inspect.signature(opdef.infer).parameters
        has_kwargs = any(p.kind is p.VAR_KEYWORD for p in params.values())
        for attr, spec in opdef.schema.attrs.items():
            if spec.kind == "type" and any(i.type_attr == attr for i in opdef.schema.inputs):
                continue  # a type attr of inputs, not a Python attr
            assert has_kwargs or attr in params, (name, attr)


def test_schemas_cover_many_ops():
    assert sum(op.schema is not None for op in REGISTRY.values()) >= 150


def test_eager_fast_paths_still_check_dtypes():
    with pytest.raises(IAE, match="attr 'T' of int8"):
        tf.matmul(tf.constant([[1]], tf.int8), tf.constant([[1]], tf.int8))
    with pytest.raises(IAE, match="attr 'T' of bool"):
        tf.subtract(tf.constant([True]), tf.constant([True]))
    assert (tf.constant([True]) * tf.constant([False])).numpy().tolist() == [False]
    assert tf.add(tf.constant(["a"]), tf.constant(["b"])).numpy().tolist() == [b"ab"]


def test_fast_paths_identity_dtype_is_allowed_by_their_ops():
    # bind_binary and matmul's hot path let float32 through by identity, before the schema's set
    from twinflow.eager.execute import F32
    from twinflow.ops.math.binary import BINARY
    fast = [REGISTRY[row.op] for row in BINARY if row.fast] + [REGISTRY["MatMul"]]
    assert len(fast) == 4 and all(F32 in op.np_dtypes for op in fast)


# --- sizes are int64 and never wrap ----------------------------------------------------------

def test_sizes_beyond_int32_are_kept():
    assert tf.range(2**31 - 2, 2**31 + 1).numpy().tolist() == [2**31 - 2, 2**31 - 1, 2**31]
    assert tf.range(2**31 - 2, 2**31 + 1).dtype is tf.int64
    with tf.Graph().as_default():  # shapes only: nothing is allocated
        assert tf.zeros([2**32 + 3]).shape == (2**32 + 3,)
        assert tf.random.uniform([2**32 + 3]).shape == (2**32 + 3,)
        assert tf.reshape(tf.zeros([2**32 + 6]), [2**32 + 6]).shape == (2**32 + 6,)
    with pytest.raises(IAE, match="4294967302"):
        tf.reshape(tf.range(6), [2**32 + 6])


def test_too_large_allocations_raise_resource_exhausted_naming_the_size(monkeypatch):
    from twinflow.ops import core
    monkeypatch.setattr(core, "_MEMORY_BYTES", 2**20)
    for make in (lambda: tf.zeros([2**32 + 3]), lambda: tf.random.uniform([2**32 + 3]),
                 lambda: tf.fill([2**32 + 3], 1.), lambda: tf.random.normal([2**32 + 3])):
        with pytest.raises(tf.errors.ResourceExhaustedError, match="4294967299"):
            make()
        with pytest.raises(tf.errors.ResourceExhaustedError, match="4294967299"):
            tf.function(make, autograph=False)()


# --- NaN semantics as TensorFlow's ---------------------------------------------------------------

@pytest.mark.parametrize("mode", ["eager", "graph"])
def test_nan_semantics(mode):
    def run(fn):
        return (fn() if mode == "eager" else tf.function(fn, autograph=False)())

    nan, inf = np.nan, np.inf
    assert int(run(lambda: tf.argmax([1., nan, 2.]))) == 2
    assert int(run(lambda: tf.argmin([1., nan, 2.]))) == 0
    y, idx = run(lambda: tf.unique([nan, 1., nan]))
    assert np.isnan(y.numpy()[[0, 2]]).all() and idx.numpy().tolist() == [0, 1, 2]
    np.testing.assert_array_equal(run(lambda: tf.nn.softmax([inf, 1.])).numpy(), [nan, 0.])
    np.testing.assert_array_equal(run(lambda: tf.sort([3., nan, 1.])).numpy(), [1., 3., nan])


def test_register_op_takes_a_schema_and_bind_checks_it_in_both_modes():
    from twinflow.eager.execute import bind
    from twinflow.graph.registry import register_op

    @register_op("TestSchemaScale", schema="x:T -> y:T | T:type in [float,double]; k:int >=1")
    class TestSchemaScale:
        def infer(x, *, k):
            return x.dtype, x.shape

        def kernel(x, *, k):
            return x * x.dtype.type(k)

    try:
        assert bind(TestSchemaScale, [tf.constant([1.5])], {"k": 2}).numpy().tolist() == [3.0]
        for mode in ("eager", "graph"):
            def call(attrs, x=None, mode=mode):
                x = tf.constant([1.5]) if x is None else x
                fn = lambda: bind(TestSchemaScale, [x], attrs)  # noqa: E731
                return fn() if mode == "eager" else tf.function(fn, autograph=False)()
            with pytest.raises(IAE, match=r"'k' of 0 must be at least minimum 1 \[Op:TestSch"):
                call({"k": 0})
            with pytest.raises(TypeError, match="'k' must be an int"):
                call({"k": 2.0})
            with pytest.raises(IAE, match="attr 'T' of int32"):
                call({"k": 1}, tf.constant([1]))
    finally:
        REGISTRY.pop("TestSchemaScale")
