"""Behaviour observed in real TensorFlow, pinned without TensorFlow.

Each expectation below was observed with TensorFlow 2.21.0 (tensorflow-cpu, NumPy 2.4) by running
the same snippet under ``import tensorflow as tf`` and ``import twinflow as tf``. Deliberate
differences are listed in docs/tf_differences.md instead.
"""
import subprocess
import sys
import warnings

import numpy as np
import pytest

import twinflow as tf

# ----- dtypes -----------------------------------------------------------------------------------


def test_dtype_str_and_repr():
    # TF 2.21: str(tf.float32) == "<dtype: 'float32'>"; repr(tf.float32) == "tf.float32"
    assert str(tf.float32) == "<dtype: 'float32'>"
    assert str(tf.constant([1]).dtype) == "<dtype: 'int32'>"
    assert repr(tf.float32) == "tw.float32"


def test_as_dtype_none_raises():
    # TF 2.21: tf.as_dtype(None) raises TypeError
    with pytest.raises(TypeError):
        tf.as_dtype(None)


# ----- conversion of Python and NumPy values ----------------------------------------------------


@pytest.mark.parametrize("value", [[True, 1], [1, "a"], [True, 1.5], None, 2**64])
def test_unconvertible_python_values_raise_value_error(value):
    # TF 2.21: "Can't convert Python sequence with mixed types to Tensor." (ValueError),
    # None: "Attempt to convert a value (None) with an unsupported type ..." (ValueError)
    with pytest.raises(ValueError):
        tf.constant(value)


@pytest.mark.parametrize("value, dtype", [
    (1.0, tf.int32), ([1.0, 2.0], tf.int32), (1.5, tf.int32), (1, tf.bool), ([1, 2], tf.string),
    ([1, 2], tf.bool),
])
def test_python_value_of_incompatible_kind_raises_type_error(value, dtype):
    # TF 2.21: TypeError "Cannot convert 1.0 to EagerTensor of dtype int32" (even when integral)
    with pytest.raises(TypeError, match="Cannot convert"):
        tf.constant(value, dtype=dtype)
    with pytest.raises(TypeError, match="Cannot convert"):
        tf.convert_to_tensor(value, dtype=dtype)


@pytest.mark.parametrize("value, dtype, expected", [
    (300, tf.uint8, 44), (-1, tf.uint8, 255), (2**40, tf.int32, 0), (True, tf.int32, 1),
])
def test_python_ints_wrap_to_small_dtypes(value, dtype, expected):
    # TF 2.21: tf.constant(300, dtype=tf.uint8) is 44, tf.constant(-1, dtype=tf.uint8) is 255
    t = tf.constant(value, dtype=dtype)
    assert t.dtype == dtype and int(t) == expected


def test_float_overflow_is_silent_inf():
    # TF 2.21: tf.constant(1e40, dtype=tf.float32) is inf, with no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isinf(tf.constant(1e40, dtype=tf.float32).numpy())
        assert np.isinf((tf.constant(1, dtype=tf.float16) + 70000).numpy())
        r = tf.cast(tf.constant([1e10]), tf.int32)
    assert r.dtype == tf.int32


def test_empty_list_takes_any_dtype():
    # TF 2.21: tf.reduce_min(tf.constant([], dtype=tf.int32)) is 2147483647
    assert tf.constant([], dtype=tf.int32).dtype == tf.int32
    assert int(tf.reduce_min(tf.constant([], dtype=tf.int32))) == 2147483647
    assert bool(tf.reduce_all(tf.constant([], dtype=tf.bool)))


def test_numpy_values_are_cast_to_a_requested_dtype():
    # TF 2.21: tf.convert_to_tensor(np.array([1.5]), dtype=tf.int32) is [1]
    t = tf.convert_to_tensor(np.array([1.5]), dtype=tf.int32)
    assert t.dtype == tf.int32 and t.numpy().tolist() == [1]
    assert tf.convert_to_tensor(np.float64(2.5), dtype=tf.float32).dtype == tf.float32
    b = tf.convert_to_tensor(np.array([1, 2]), dtype=tf.bool)
    assert b.numpy().tolist() == [True, True]
    # ...but a Tensor is not: ValueError "Tensor conversion requested dtype int32 for Tensor..."
    with pytest.raises(ValueError):
        tf.convert_to_tensor(tf.constant(1.0), dtype=tf.int32)


def test_numpy_operand_takes_the_tensor_dtype():
    # TF 2.21: tf.constant([1., 2.]) + np.array([1, 2]) is float32 [2. 4.];
    # tf.constant([1, 2]) + np.array([1, 2]) (int64) is int32
    r = tf.constant([1., 2.]) + np.array([1, 2])
    assert r.dtype == tf.float32 and r.numpy().tolist() == [2., 4.]
    r = np.array([1, 2]) + tf.constant([1, 2])
    assert r.dtype == tf.int32 and r.numpy().tolist() == [2, 4]


def test_python_scalar_wraps_to_tensor_dtype():
    # TF 2.21: tf.constant([1, 2], dtype=tf.uint8) + -1 is [0 1]; int8 [1, 2] + 300 is [45 46]
    assert (tf.constant([1, 2], dtype=tf.uint8) + -1).numpy().tolist() == [0, 1]
    assert (tf.constant([1, 2], dtype=tf.int8) + 300).numpy().tolist() == [45, 46]
    assert (tf.constant([True]) * 1).numpy().tolist() == [True]


def test_integral_python_float_does_not_become_int():
    # TF 2.21: tf.constant([1, 2]) + 2.0 raises InvalidArgumentError (no silent int result)
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.constant([1, 2]) + 2.0


# ----- strings ----------------------------------------------------------------------------------


def test_strings_are_bytes():
    # TF 2.21: tf.constant(['a', 'bc']) prints tf.Tensor([b'a' b'bc'], shape=(2,), dtype=string)
    t = tf.constant(["a", "bc"])
    assert str(t) == "tw.Tensor([b'a' b'bc'], shape=(2,), dtype=string)"
    assert repr(t) == ("<tw.Tensor: shape=(2,), dtype=string, "
                       "numpy=array([b'a', b'bc'], dtype=object)>")
    assert t.numpy().tolist() == [b"a", b"bc"]
    assert tf.constant("x").numpy() == b"x"
    assert str(tf.constant([["a", "b"], ["c", "d"]])) == (
        "tw.Tensor(\n[[b'a' b'b']\n [b'c' b'd']], shape=(2, 2), dtype=string)")
    n = tf.constant(np.array(["a", "b"]))
    assert n.numpy().dtype == object and n.numpy().tolist() == [b"a", b"b"]
    assert (tf.constant(["a", "b"]) + "c").numpy().tolist() == [b"ac", b"bc"]


def test_cast_between_strings_and_numbers_is_unimplemented():
    # TF 2.21: UnimplementedError "Cast string to int32 is not supported [Op:Cast]"
    with pytest.raises(tf.errors.UnimplementedError):
        tf.cast(tf.constant(["1"]), tf.int32)
    with pytest.raises(tf.errors.UnimplementedError):
        tf.cast(tf.constant([1.5]), tf.string)


# ----- printing ---------------------------------------------------------------------------------


def test_scalar_repr_uses_python_value():
    # TF 2.21: repr(tf.constant(0.1)) == "<tf.Tensor: shape=(), dtype=float32,
    # numpy=0.10000000149011612>" (NumPy scalar .item()); str() keeps NumPy's text
    assert repr(tf.constant(0.1)) == (
        "<tw.Tensor: shape=(), dtype=float32, numpy=0.10000000149011612>")
    assert str(tf.constant(0.1)) == "tw.Tensor(0.1, shape=(), dtype=float32)"
    assert repr(tf.constant(1, dtype=tf.int8)) == "<tw.Tensor: shape=(), dtype=int8, numpy=1>"
    assert repr(tf.constant(True)).endswith("numpy=True>")
    assert repr(tf.constant("abc")) == "<tw.Tensor: shape=(), dtype=string, numpy=b'abc'>"


def test_symbolic_tensor_str_while_tracing(capsys):
    # TF 2.21: print(x) inside tf.function shows Tensor("x:0", shape=(2,), dtype=int32)
    @tf.function
    def f(x):
        print(x)
        return x

    f(tf.constant([1, 2]))
    assert capsys.readouterr().out == 'Tensor("x:0", shape=(2,), dtype=int32)\n'


# ----- scalars, truth values --------------------------------------------------------------------


def test_numpy_of_scalar_is_numpy_scalar():
    # TF 2.21: type(tf.constant(1.).numpy()) is np.float32; tf.Variable(1.).numpy() too
    v = tf.constant(1.0).numpy()
    assert type(v) is np.float32 and not isinstance(v, np.ndarray)
    assert type(tf.constant(1).numpy()) is np.int32
    assert type(tf.constant(True).numpy()) is np.bool_
    assert type(tf.Variable(1.0).numpy()) is np.float32
    assert isinstance(tf.constant([1.0]).numpy(), np.ndarray)


def test_bool_int_float_of_tensors():
    # TF 2.21: bool(tf.constant([])) is False; int(tf.constant([3.7])) raises TypeError
    # ("only 0-dimensional arrays can be converted to Python scalars"); bool of many: ValueError
    assert bool(tf.constant([])) is False
    assert bool(tf.constant([1])) is True
    with pytest.raises(TypeError):
        int(tf.constant([3.7]))
    with pytest.raises(TypeError):
        float(tf.constant([[3]]))
    with pytest.raises(ValueError):
        bool(tf.constant([1, 2]))


# ----- comparisons ------------------------------------------------------------------------------


def test_equality_of_unbroadcastable_shapes_is_a_scalar():
    # TF 2.21: tf.constant([1, 2]) == tf.constant([1, 2, 3]) is <tf.Tensor: shape=(),
    # dtype=bool, numpy=False>; != gives True; == None is Python False
    a, b = tf.constant([1, 2]), tf.constant([1, 2, 3])
    eq = a == b
    assert isinstance(eq, tf.Tensor) and eq.shape == () and not bool(eq)
    ne = a != b
    assert isinstance(ne, tf.Tensor) and bool(ne)
    assert (a == None) is False  # noqa: E711
    assert (a == 1).numpy().tolist() == [True, False]


def test_equality_of_mixed_dtypes_raises():
    # TF 2.21: InvalidArgumentError "cannot compute Equal as input #1(zero-based) was expected
    # to be a int32 tensor but is a float tensor [Op:Equal]"
    with pytest.raises(tf.errors.InvalidArgumentError):
        _ = tf.constant([1, 2]) == tf.constant([1., 2.])


# ----- ops --------------------------------------------------------------------------------------


def test_integer_mean_accumulates_wide():
    # TF 2.21: reduce_mean(uint8 [200, 200]) is 200; int32 [2**30]*3 is 1073741824;
    # int8 [-100, -100, 3] is -65; the mean of an empty float tensor is nan, silently
    assert int(tf.reduce_mean(tf.constant([200, 200], dtype=tf.uint8))) == 200
    assert int(tf.reduce_mean(tf.constant([2**30] * 3))) == 2**30
    assert int(tf.reduce_mean(tf.constant([-100, -100, 3], dtype=tf.int8))) == -65
    assert int(tf.reduce_mean(tf.constant([-3, 0]))) == -1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isnan(tf.reduce_mean(tf.constant([], dtype=tf.float32)).numpy())
        assert tf.keras.losses.MeanSquaredError()(tf.zeros([0]), tf.zeros([0])).shape == ()


def test_reduction_duplicate_axes_raise():
    # TF 2.21: InvalidArgumentError "Invalid reduction arguments: Axes contains duplicate
    # dimension: 0 [Op:Sum]"
    with pytest.raises(tf.errors.InvalidArgumentError, match="duplicate dimension: 0"):
        tf.reduce_sum(tf.constant([[1, 2], [3, 4]]), axis=[0, 0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="duplicate"):
        tf.reduce_sum(tf.constant([[1, 2], [3, 4]]), axis=[1, -1])


def test_linspace_of_ints_and_zero_num():
    # TF 2.21: tf.linspace(0, 1, 5) is float64 [0. 0.25 0.5 0.75 1.];
    # tf.linspace(0., 1., 0) is an empty float32 tensor
    r = tf.linspace(0, 1, 5)
    assert r.dtype == tf.float64 and r.numpy().tolist() == [0., .25, .5, .75, 1.]
    e = tf.linspace(0., 1., 0)
    assert e.dtype == tf.float32 and e.shape == (0,)

    @tf.function
    def f():
        return tf.linspace(0, 1, 3)

    assert f().dtype == tf.float64


def test_tensor_shape_dims_must_be_integers():
    # TF 2.21: tf.TensorShape([1.5]) raises TypeError "Dimension value must be integer or None
    # or have an __index__ method, got value '1.5' with type '<class 'float'>'"
    with pytest.raises(TypeError, match="Dimension value must be integer"):
        tf.TensorShape([1.5])
    assert tf.TensorShape([np.int64(2), None]).as_list() == [2, None]


# ----- gradients, errors ------------------------------------------------------------------------


def test_gradient_of_none_target_raises():
    # TF 2.21: TypeError "Argument `target` should be a list or nested structure of Tensors,
    # Variables or CompositeTensors to be differentiated, but received None."
    x = tf.constant(2.0)
    with tf.GradientTape() as t:
        t.watch(x)
    with pytest.raises(TypeError, match="received None"):
        t.gradient(None, x)


def test_error_codes():
    # TF 2.21: tf.errors.OK, INVALID_ARGUMENT, OUT_OF_RANGE, NOT_FOUND == 0, 3, 11, 5
    assert (tf.errors.OK, tf.errors.INVALID_ARGUMENT, tf.errors.OUT_OF_RANGE,
            tf.errors.NOT_FOUND) == (0, 3, 11, 5)
    assert tf.errors.InvalidArgumentError(None, None, "m").error_code == tf.errors.INVALID_ARGUMENT


def test_print_strings_bytes_in_assert():
    # TF 2.21: "Summarized data: b'bad'" for a Python string in tf.debugging.Assert data
    with pytest.raises(tf.errors.InvalidArgumentError, match="b'bad'"):
        tf.debugging.Assert(tf.constant(False), ["bad"])


def test_tf_print_of_strings(capsys):
    # TF 2.21: tf.print(tf.constant(['a', 'b'])) prints ["a" "b"]; a scalar string bare
    tf.print(tf.constant(["a", "b"]), output_stream=sys.stdout)
    tf.print(tf.constant("abc"), output_stream=sys.stdout)
    assert capsys.readouterr().out == '["a" "b"]\nabc\n'


# ----- keras ------------------------------------------------------------------------------------


def test_loss_sample_weight_broadcasts():
    # TF 2.21 (Keras 3): MeanSquaredError()([1., 2.], [1.5, 2.5], sample_weight=[1., 0.]) is
    # 0.125; with y of shape (2, 1) and sample_weight [[1.], [0.]] too
    mse = tf.keras.losses.MeanSquaredError()
    assert float(mse([1., 2.], [1.5, 2.5], sample_weight=[1., 0.])) == 0.125
    assert float(mse([[1.], [2.]], [[1.5], [2.5]], sample_weight=[[1.], [0.]])) == 0.125
    assert float(mse([[1.], [2.]], [[1.5], [2.5]], sample_weight=[1., 0.])) == 0.125


def test_metric_default_names_are_not_uniquified():
    # TF 2.21: tf.keras.metrics.Mean().name is "mean" for every instance
    assert [tf.keras.metrics.Mean().name for _ in range(2)] == ["mean", "mean"]
    assert tf.keras.metrics.Sum().name == "sum"


def test_dense_casts_inputs_to_its_dtype():
    # TF 2.21: Dense(2, kernel_initializer='ones')(tf.ones([1, 3], dtype=tf.int32)) is float32
    # [[3. 3.]]; float64 inputs give float32 too
    for dt in (tf.int32, tf.float64):
        r = tf.keras.layers.Dense(2, kernel_initializer="ones")(tf.ones([1, 3], dtype=dt))
        assert r.dtype == tf.float32 and r.numpy().tolist() == [[3., 3.]]


# ----- tf.function, tf.data ---------------------------------------------------------------------


def test_function_returns_python_values_as_tensors():
    # TF 2.21: a tf.function returning (1, 2.5, 'a', None) gives (<int32 1>, <float32 2.5>,
    # <string b'a'>, None)
    @tf.function
    def f():
        return 1, 2.5, "a", None

    a, b, c, d = f()
    assert (a.dtype, b.dtype, c.dtype, d) == (tf.int32, tf.float32, tf.string, None)
    assert c.numpy() == b"a"


def test_dataset_strings_are_bytes():
    # TF 2.21: list(Dataset.from_tensor_slices(['a', 'bb']).as_numpy_iterator()) == [b'a', b'bb']
    out = list(tf.data.Dataset.from_tensor_slices(["a", "bb"]).as_numpy_iterator())
    assert out == [b"a", b"bb"] and all(type(x) is bytes for x in out)


# ----- packing and shape arguments --------------------------------------------------------------


def test_stack_of_python_values_finds_one_dtype():
    # TF 2.21: tf.stack([1, 2.5]) is float32 [1. 2.5]; tf.stack([tf.constant(1), 2.5]) raises
    # TypeError "Cannot convert 2.5 to EagerTensor of dtype int32"
    r = tf.stack([1, 2.5])
    assert r.dtype == tf.float32 and r.numpy().tolist() == [1., 2.5]
    assert tf.stack([tf.constant(1.), 2]).dtype == tf.float32
    with pytest.raises(TypeError, match="Cannot convert 2.5"):
        tf.stack([tf.constant(1), 2.5])


def test_constant_of_a_tensor_does_not_cast():
    # TF 2.21: tf.constant(tf.constant(1.5), dtype=tf.int32) raises TypeError "Expected tensor
    # 1.5 with dtype tf.int32, but got dtype tf.float32."
    with pytest.raises(TypeError, match="Expected tensor 1.5"):
        tf.constant(tf.constant(1.5), dtype=tf.int32)
    assert tf.constant(tf.constant(1.5), dtype=tf.float32).dtype == tf.float32


def test_float_shapes_are_refused():
    # TF 2.21: tf.zeros([2.5]) raises TypeError "Cannot convert [2.5] to EagerTensor of dtype
    # int32"; tf.linspace(0., 1., 2.5) raises TypeError
    with pytest.raises(TypeError):
        tf.zeros([2.5])
    with pytest.raises(TypeError):
        tf.linspace(0., 1., 2.5)
    assert tf.zeros([]).shape == ()


def test_symbolic_tensor_has_no_numpy():
    # TF 2.21: x.numpy() inside tf.function raises AttributeError ("'SymbolicTensor' object has
    # no attribute 'numpy'"), so hasattr(x, 'numpy') tells eager from symbolic tensors
    seen = []

    @tf.function
    def f(x):
        seen.append(hasattr(x, "numpy"))
        with pytest.raises(AttributeError):
            x.numpy()
        return x

    f(tf.constant(1))
    assert seen == [False] and hasattr(tf.constant(1), "numpy")


# ----- named results, names, control flow -------------------------------------------------------


def test_top_k_and_unique_return_named_tuples():
    # TF 2.21: tf.math.top_k(x, k=2).values / .indices; tf.unique(x) is Unique(y=..., idx=...)
    r = tf.math.top_k(tf.constant([1., 3., 2.]), k=2)
    assert r.values.numpy().tolist() == [3., 2.] and r.indices.numpy().tolist() == [1, 2]
    assert repr(r).startswith("TopKV2(values=")
    values, indices = r
    u = tf.unique(tf.constant([1, 1, 2]))
    assert u.y.numpy().tolist() == [1, 2] and u.idx.numpy().tolist() == [0, 0, 1]
    assert repr(u).startswith("Unique(y=")


def test_variable_names_take_the_name_scope():
    # TF 2.21: with tf.name_scope('s'): tf.Variable(1., name='v').name == 's/v:0'; a tf.Module's
    # `with self.name_scope:` gives 'm/v:0'
    with tf.name_scope("s"):
        v = tf.Variable(1., name="v")
        with tf.name_scope("t"):
            w = tf.Variable(1.)
    assert (v.name, w.name, tf.Variable(1.).name) == ("s/v:0", "s/t/Variable:0", "Variable:0")

    class M(tf.Module):
        def __init__(self):
            super().__init__(name="m")
            with self.name_scope:
                self.v = tf.Variable(1., name="v")

    assert M().v.name == "m/v:0"


def test_eager_while_loop_returns_tensors():
    # TF 2.21: tf.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s + i), (0, 0)) is
    # (<tf.Tensor: shape=(), dtype=int32, numpy=3>, <tf.Tensor: ... numpy=3>)
    i, s = tf.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s + i), (0, 0))
    assert isinstance(i, tf.Tensor) and (int(i), int(s)) == (3, 3) and i.dtype == tf.int32


def test_sign_gradient_is_zeros():
    # TF 2.21: the gradient of tf.sign is tf.Tensor([0.], shape=(1,), dtype=float32)
    x = tf.constant([3.5])
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.sign(x)
    assert t.gradient(y, x).numpy().tolist() == [0.0]


def test_eager_tensor_array_out_of_range():
    # TF 2.21: OutOfRangeError "Tried to read from index 5 but array size is: 2"
    ta = tf.TensorArray(tf.float32, size=2)
    with pytest.raises(tf.errors.OutOfRangeError, match="size is: 2"):
        ta.read(5)


def test_as_dtype_of_a_datatype_enum():
    # TF 2.21: tf.as_dtype(1) is tf.float32 and tf.float32 == 1 is True (DataType enum values)
    assert tf.as_dtype(1) is tf.float32 and tf.as_dtype(3) is tf.int32
    assert tf.float32 == 1 and tf.float32 != 2


def test_kernel_overflow_is_silent():
    # TF 2.21: tf.cast(tf.constant([65504.]), tf.float16) * 2 prints [inf] and no warning, also
    # inside tf.function; the user's own NumPy warnings are left alone
    code = ("import numpy as np, twinflow as tf\n"
            "x = tf.cast(tf.constant([65504.]), tf.float16)\n"
            "f = tf.function(lambda v: v * 2, autograph=False)\n"
            "print((x * 2).numpy()[0], f(x).numpy()[0])\n"
            "np.float16(65504) * np.float16(2)\n")
    out = subprocess.run([sys.executable, "-W", "default", "-c", code], capture_output=True,
                         text=True, check=True)
    assert out.stdout == "inf inf\n"
    assert out.stderr.count("RuntimeWarning") == 1 and "<string>" in out.stderr


def test_format_uses_the_numpy_value():
    # TF 2.21: f'{tf.constant(1.23456)}' is 1.2345600128173828 (np.float32's format),
    # f'{x:.2f}' is 1.23, 'v={}'.format(tf.constant([[1., 2.]])) is v=[[1. 2.]]
    x = tf.constant(1.23456)
    assert f"{x}" == "1.2345600128173828" and f"{x:.2f} {x:8.3f}" == "1.23    1.235"
    assert f"{tf.constant(5):03d}" == "005"
    assert "v={}".format(tf.constant([[1., 2.]])) == "v=[[1. 2.]]"  # noqa: UP032
    with pytest.raises(TypeError):
        f"{tf.constant([1.5]):.2f}"


def test_is_tensor_of_a_variable():
    # TF 2.21: tf.is_tensor(tf.Variable(1.)) is True; of a NumPy array False
    assert tf.is_tensor(tf.Variable(1.)) and not tf.is_tensor(np.zeros(2))


def test_zeros_and_padding_of_bools_and_strings():
    # TF 2.21: tf.zeros([2], tf.string) is [b'' b'']; tf.pad(tf.constant([True]), [[1, 1]]) is
    # [False True False]; tf.ones([2], dtype=tf.bool) is [True True]
    assert tf.zeros([2], dtype=tf.string).numpy().tolist() == [b"", b""]
    assert tf.zeros_like(tf.constant(["a"])).numpy().tolist() == [b""]
    assert tf.pad(tf.constant([True]), [[1, 1]]).numpy().tolist() == [False, True, False]
    assert tf.pad(tf.constant(["a"]), [[1, 0]]).numpy().tolist() == [b"", b"a"]
    assert tf.ones([2], dtype=tf.bool).numpy().tolist() == [True, True]
    # ...but Python 1 is no bool: TypeError "Cannot convert 1 to EagerTensor of dtype bool"
    with pytest.raises(TypeError, match="Cannot convert 1"):
        tf.one_hot([0, 1], 2, dtype=tf.bool)
