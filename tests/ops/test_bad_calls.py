"""Eager/graph parity on bad calls: each call raises the same error class and message eagerly
and inside ``tw.function`` (the graph message may add the node and the user's source line).

Each row is ``(id, call, error class)``; the class is TensorFlow 2.21's where it was checked
with TensorFlow (eagerly: TensorFlow itself raises ValueError/TypeError in graphs where it raises
InvalidArgumentError eagerly; twinflow's InvalidArgumentError is a ValueError). The calls build
their inputs themselves, so in a graph they are constants and every check can see them.
"""
from __future__ import annotations

import numpy as np
import pytest

import twinflow as tf
from twinflow.errors import InvalidArgumentError as IAE
from twinflow.errors import ResourceExhaustedError as REE


def x23(dtype=tf.float32):
    return tf.constant(np.arange(6).reshape(2, 3), dtype)


def i23():
    return x23(tf.int32)


def img(dtype=tf.float32):
    return tf.zeros([1, 4, 4, 1], dtype)


def filt():
    return tf.zeros([2, 2, 1, 1])


def seq():
    return tf.zeros([1, 4, 1])


ROWS: list = []
# A dtype TensorFlow's op does not take: InvalidArgumentError eagerly, TypeError in its graphs.
DT = (IAE, TypeError)


def bad(name: str, fn, err) -> None:
    ROWS.append(pytest.param(fn, err, id=name))


# --- the issue-17 list ---------------------------------------------------------------------
bad("pad_paddings_rank", lambda: tf.pad(x23(), [[1, 1]]), IAE)
bad("gather_axis3", lambda: tf.gather(x23(), [0], axis=3), IAE)
bad("reshape_minus2", lambda: tf.reshape(tf.range(6), [-2, 3]), IAE)
bad("unstack_num5", lambda: tf.unstack(x23(), num=5), IAE)
bad("fill_value_not_scalar", lambda: tf.fill([2], [1., 2.]), IAE)
bad("inv_int_matrix", lambda: tf.linalg.inv(tf.constant([[1, 2], [3, 4]])), IAE)
bad("stateless_seed_shape", lambda: tf.random.stateless_uniform([2], seed=[1, 2, 3]), IAE)
bad("stateless_seed_float", lambda: tf.random.stateless_uniform([2], seed=[1.5, 2.]), IAE)
bad("stateless_normal_seed_shape", lambda: tf.random.stateless_normal([2], seed=[1]), IAE)
bad("stateless_trunc_seed_float",
    lambda: tf.random.stateless_truncated_normal([2], seed=[1., 2.]), IAE)
bad("expand_dims_float_axis", lambda: tf.expand_dims(x23(), 1.5), TypeError)
bad("transpose_float_perm", lambda: tf.transpose(x23(), [1.5, 0]), DT)
bad("concat_float_axis", lambda: tf.concat([x23(), x23()], 1.5), TypeError)
bad("argmax_float_axis", lambda: tf.argmax(x23(), 1.5), TypeError)
bad("argmin_float_axis", lambda: tf.argmin(x23(), 1.5), TypeError)
bad("cumsum_float_axis", lambda: tf.cumsum(x23(), 1.5), TypeError)
bad("cumprod_float_axis", lambda: tf.math.cumprod(x23(), 1.5), TypeError)
bad("reverse_float_axis", lambda: tf.reverse(x23(), [1.5]), DT)
bad("max_pool_ksize0", lambda: tf.nn.max_pool2d(img(), ksize=0, strides=1, padding="VALID"), IAE)
bad("max_pool_strides0", lambda: tf.nn.max_pool2d(img(), 2, strides=0, padding="VALID"), IAE)
bad("avg_pool_strides0", lambda: tf.nn.avg_pool2d(img(), 2, strides=0, padding="VALID"), IAE)
bad("avg_pool_ksize0", lambda: tf.nn.avg_pool2d(img(), 0, strides=1, padding="VALID"), IAE)
bad("conv2d_strides0", lambda: tf.nn.conv2d(img(), filt(), strides=0, padding="VALID"), IAE)
bad("conv1d_stride0", lambda: tf.nn.conv1d(seq(), tf.zeros([2, 1, 1]), 0, "VALID"), IAE)
bad("max_pool1d_strides0", lambda: tf.nn.max_pool1d(seq(), 2, 0, "VALID"), IAE)
# Keras 3 checks a Conv2D's strides when the layer is made (ValueError), its pools' in the op.
bad("keras_conv2d_strides0",
    lambda: tf.keras.layers.Conv2D(1, 2, strides=0)(tf.zeros([1, 4, 4, 1])), ValueError)
bad("keras_max_pool_strides0",
    lambda: tf.keras.layers.MaxPooling2D(2, strides=0)(tf.zeros([1, 4, 4, 1])), IAE)
bad("unstack_scalar", lambda: tf.unstack(tf.constant(1.)), ValueError)
bad("diag_part_vector", lambda: tf.linalg.diag_part(tf.constant([1., 2.])), IAE)
bad("reduce_sum_str_axis", lambda: tf.reduce_sum(x23(), "a"), DT)
bad("constant_inhomogeneous", lambda: tf.constant([[1, 2], [3]]), ValueError)
bad("reshape_float_shape", lambda: tf.reshape(x23(), [2.5, 2]), DT)
bad("zeros_2e40_squared", lambda: tf.zeros([2**40, 2**40]), IAE)
bad("fill_2e40", lambda: tf.fill([2**40], 1.), REE)
bad("random_uniform_2e40", lambda: tf.random.uniform([2**40]), REE)
bad("reshape_2e32", lambda: tf.reshape(tf.range(6), [2**32 + 6]), IAE)

# --- dtypes a kernel does not take (TensorFlow: "Value for attr 'T' of ... not in list") -----
FLOAT_UNARY = ["acos", "acosh", "asin", "asinh", "atan", "atanh", "cos", "cosh", "erf", "erfc",
               "exp", "expm1", "log", "log1p", "log_sigmoid", "rsqrt", "sigmoid", "sin",
               "sinh", "sqrt", "tan", "tanh", "softplus", "reciprocal"]
for _name in FLOAT_UNARY:
    bad(f"{_name}_int32", lambda f=getattr(tf.math, _name): f(i23()), IAE)
for _name in ["elu", "selu", "softsign", "softmax", "log_softmax"]:
    bad(f"nn_{_name}_int32", lambda f=getattr(tf.nn, _name): f(i23()), IAE)
for _name in ["floor", "ceil", "rint"]:
    bad(f"{_name}_int32", lambda f=getattr(tf.math, _name): f(i23()), IAE)
for _name in ["subtract", "maximum", "minimum", "squared_difference"]:
    bad(f"{_name}_bool", lambda f=getattr(tf.math, _name): f(tf.constant([True]),
                                                            tf.constant([False])), IAE)
bad("relu_bool", lambda: tf.nn.relu(tf.constant([True])), IAE)
bad("relu6_bool", lambda: tf.nn.relu6(tf.constant([True])), IAE)
bad("abs_bool", lambda: tf.abs(tf.constant([True])), IAE)
bad("negative_bool", lambda: tf.negative(tf.constant([True])), IAE)
bad("square_bool", lambda: tf.square(tf.constant([True])), IAE)
bad("sign_bool", lambda: tf.sign(tf.constant([True])), IAE)
bad("matmul_int8", lambda: tf.matmul(tf.constant([[1]], tf.int8), tf.constant([[1]], tf.int8)),
    IAE)
bad("matmul_bool", lambda: tf.matmul(tf.constant([[True]]), tf.constant([[True]])), DT)
bad("det_int", lambda: tf.linalg.det(tf.constant([[1, 2], [3, 4]])), IAE)
bad("cholesky_int", lambda: tf.linalg.cholesky(tf.constant([[1, 0], [0, 1]])), IAE)
bad("solve_int", lambda: tf.linalg.solve(tf.constant([[1, 0], [0, 1]]),
                                         tf.constant([[1], [1]])), IAE)
bad("logical_and_float", lambda: tf.logical_and(x23(), x23()), IAE)
bad("logical_or_int", lambda: tf.logical_or(i23(), i23()), IAE)
bad("logical_not_float", lambda: tf.logical_not(x23()), IAE)
bad("bitwise_and_float", lambda: tf.bitwise_and(x23(), x23()), IAE)
bad("bitwise_or_float", lambda: tf.bitwise_or(x23(), x23()), IAE)
bad("bitwise_xor_float", lambda: tf.bitwise_xor(x23(), x23()), IAE)
bad("invert_float", lambda: tf.invert(x23()), IAE)
bad("is_nan_int", lambda: tf.math.is_nan(i23()), IAE)
bad("is_inf_int", lambda: tf.math.is_inf(i23()), IAE)
bad("is_finite_int", lambda: tf.math.is_finite(i23()), IAE)
bad("floormod_complex", lambda: tf.math.floormod(tf.constant([1j]), tf.constant([1j])), IAE)
bad("reduce_all_float", lambda: tf.reduce_all(x23()), IAE)
bad("reduce_any_int", lambda: tf.reduce_any(i23()), IAE)
bad("range_bool", lambda: tf.range(tf.constant(True)), DT)

# --- inputs of different dtypes (TensorFlow never promotes) --------------------------------
BINARY = ["add", "subtract", "multiply", "truediv", "divide", "maximum", "minimum", "pow",
          "floordiv", "floormod", "equal", "not_equal", "less", "less_equal", "greater",
          "greater_equal", "squared_difference", "atan2", "xdivy", "xlogy", "div_no_nan",
          "mul_no_nan", "realdiv", "truncatediv", "truncatemod"]
for _name in BINARY:
    bad(f"{_name}_f32_i32", lambda f=getattr(tf.math, _name): f(x23(), i23()), IAE)
bad("matmul_f32_f64", lambda: tf.matmul(x23(), tf.zeros([3, 2], tf.float64)), IAE)
bad("concat_f32_i32", lambda: tf.concat([x23(), i23()], 0), IAE)
bad("stack_f32_i32", lambda: tf.stack([x23(), i23()]), IAE)
bad("add_n_f32_i32", lambda: tf.add_n([x23(), i23()]), IAE)
bad("clip_by_value_mixed", lambda: tf.clip_by_value(x23(), tf.constant(0), tf.constant(1)),
    IAE)
bad("where_mixed", lambda: tf.where(tf.constant([True]), tf.constant([1.]), tf.constant([1])),
    IAE)
bad("bias_add_mixed", lambda: tf.nn.bias_add(x23(), tf.constant([1, 2, 3])), IAE)
bad("conv2d_mixed", lambda: tf.nn.conv2d(img(), tf.zeros([2, 2, 1, 1], tf.float64), 1,
                                         "VALID"), IAE)
bad("tensordot_mixed", lambda: tf.tensordot(x23(), tf.zeros([3], tf.float64), 1), IAE)
bad("einsum_mixed", lambda: tf.einsum("ij,jk->ik", x23(), tf.zeros([3, 2], tf.float64)), IAE)
bad("complex_mixed", lambda: tf.complex(tf.constant(1.), tf.constant(1., tf.float64)), IAE)
bad("bitwise_and_mixed", lambda: tf.bitwise_and(i23(), tf.constant(1, tf.int64)), IAE)
bad("sigmoid_xent_mixed", lambda: tf.nn.sigmoid_cross_entropy_with_logits(
    labels=tf.constant([1.], tf.float64), logits=tf.constant([1.])), IAE)

# --- axes outside the rank -----------------------------------------------------------------
REDUCE = ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod",
          "reduce_logsumexp", "reduce_std", "reduce_variance", "reduce_euclidean_norm"]
for _name in REDUCE:
    bad(f"{_name}_axis3", lambda f=getattr(tf.math, _name): f(x23(), 3), IAE)
    bad(f"{_name}_axis_float", lambda f=getattr(tf.math, _name): f(x23(), 1.5), TypeError)
    bad(f"{_name}_axis_minus3", lambda f=getattr(tf.math, _name): f(x23(), -3), IAE)
bad("reduce_all_axis3", lambda: tf.reduce_all(tf.constant([[True]]), 3), IAE)
bad("reduce_any_axis_float", lambda: tf.reduce_any(tf.constant([[True]]), 0.5), TypeError)
bad("reduce_sum_axis_dup", lambda: tf.reduce_sum(x23(), [0, 0]), IAE)
bad("count_nonzero_axis3", lambda: tf.math.count_nonzero(x23(), 3), IAE)
bad("argmax_axis3", lambda: tf.argmax(x23(), 3), IAE)
bad("argmin_axis_minus3", lambda: tf.argmin(x23(), -3), IAE)
bad("argmax_scalar", lambda: tf.argmax(tf.constant(1.)), IAE)
bad("concat_axis3", lambda: tf.concat([x23(), x23()], 3), IAE)
bad("concat_axis_minus3", lambda: tf.concat([x23(), x23()], -3), IAE)
bad("stack_axis4", lambda: tf.stack([x23(), x23()], axis=4), IAE)
# (TensorFlow truncates a float axis of tf.stack and float pooling/conv windows and strides;
# twinflow refuses them all, see docs/tf_differences.md)
bad("stack_axis_float", lambda: tf.stack([x23(), x23()], axis=0.5), TypeError)
bad("unstack_axis3", lambda: tf.unstack(x23(), axis=3), IAE)
bad("unstack_axis_float", lambda: tf.unstack(x23(), axis=0.5), TypeError)
bad("expand_dims_axis4", lambda: tf.expand_dims(x23(), 4), IAE)
bad("expand_dims_axis_minus4", lambda: tf.expand_dims(x23(), -4), IAE)
bad("squeeze_axis3", lambda: tf.squeeze(x23(), 3), IAE)
bad("squeeze_axis_not1", lambda: tf.squeeze(x23(), 0), IAE)
bad("squeeze_axis_float", lambda: tf.squeeze(tf.zeros([1, 2]), 0.5), TypeError)
bad("cumsum_axis3", lambda: tf.cumsum(x23(), 3), IAE)
bad("cumprod_axis_minus3", lambda: tf.math.cumprod(x23(), -3), IAE)
bad("reverse_axis3", lambda: tf.reverse(x23(), [3]), IAE)
bad("reverse_axis_dup", lambda: tf.reverse(x23(), [0, 0]), IAE)
bad("gather_axis_float", lambda: tf.gather(x23(), [0], axis=0.5), TypeError)
bad("gather_axis_minus3", lambda: tf.gather(x23(), [0], axis=-3), IAE)
bad("softmax_axis3", lambda: tf.nn.softmax(x23(), axis=3), IAE)
bad("softmax_axis_float", lambda: tf.nn.softmax(x23(), axis=0.5), TypeError)
bad("log_softmax_axis3", lambda: tf.nn.log_softmax(x23(), axis=3), IAE)
bad("one_hot_axis3", lambda: tf.one_hot([1], 3, axis=3), IAE)
bad("one_hot_axis_float", lambda: tf.one_hot([1], 3, axis=0.5), TypeError)
bad("split_axis3", lambda: tf.split(x23(), 2, axis=3), IAE)
bad("split_axis_float", lambda: tf.split(x23(), 2, axis=0.5), TypeError)
bad("transpose_perm_out", lambda: tf.transpose(x23(), [0, 2]), IAE)
bad("transpose_perm_dup", lambda: tf.transpose(x23(), [0, 0]), IAE)
bad("transpose_perm_len", lambda: tf.transpose(x23(), [0]), IAE)
bad("l2_normalize_axis3", lambda: tf.math.l2_normalize(x23(), axis=3), IAE)
bad("moments_axis3", lambda: tf.nn.moments(x23(), [3]), IAE)
bad("norm_axis3", lambda: tf.norm(x23(), axis=3), IAE)
bad("boolean_mask_axis_float", lambda: tf.boolean_mask(x23(), [True, False], axis=0.5),
    TypeError)
bad("repeat_axis3", lambda: tf.repeat(x23(), 2, axis=3), IAE)
bad("linspace_axis_float", lambda: tf.linspace(0., 1., 3, axis=0.5), TypeError)

# --- attrs: sizes, strides, windows, paddings, formats -------------------------------------
bad("max_pool_ksize_neg", lambda: tf.nn.max_pool2d(img(), -1, 1, "VALID"), IAE)
bad("max_pool_padding_bad", lambda: tf.nn.max_pool2d(img(), 2, 1, "FOO"), ValueError)
bad("avg_pool_padding_bad", lambda: tf.nn.avg_pool2d(img(), 2, 1, "FOO"), ValueError)
bad("conv2d_padding_bad", lambda: tf.nn.conv2d(img(), filt(), 1, "FOO"), ValueError)
bad("conv2d_strides_neg", lambda: tf.nn.conv2d(img(), filt(), -1, "VALID"), IAE)
bad("conv2d_strides_float", lambda: tf.nn.conv2d(img(), filt(), 1.5, "VALID"), TypeError)
bad("max_pool_ksize_float", lambda: tf.nn.max_pool2d(img(), 1.5, 1, "VALID"), TypeError)
bad("max_pool_strides_float", lambda: tf.nn.max_pool2d(img(), 2, 1.5, "VALID"), TypeError)
bad("conv2d_format_bad", lambda: tf.nn.conv2d(img(), filt(), 1, "VALID", data_format="XYZ"),
    ValueError)
bad("max_pool_format_bad", lambda: tf.nn.max_pool2d(img(), 2, 1, "VALID", data_format="XYZ"),
    ValueError)
bad("bias_add_format_bad", lambda: tf.nn.bias_add(x23(), tf.zeros([3]), data_format="XYZ"),
    ValueError)
bad("conv2d_dilations0", lambda: tf.nn.conv2d(img(), filt(), 1, "VALID", dilations=0), IAE)
bad("conv2d_int", lambda: tf.nn.conv2d(img(tf.int32), tf.zeros([2, 2, 1, 1], tf.int32), 1,
                                       "VALID"), IAE)
bad("max_pool_rank3", lambda: tf.nn.max_pool2d(tf.zeros([4, 4, 1]), 2, 1, "VALID"), IAE)
bad("conv2d_rank3", lambda: tf.nn.conv2d(tf.zeros([4, 4, 1]), filt(), 1, "VALID"), IAE)
bad("conv2d_channels", lambda: tf.nn.conv2d(img(), tf.zeros([2, 2, 3, 1]), 1, "VALID"), IAE)
bad("conv2d_window_too_big", lambda: tf.nn.conv2d(img(), tf.zeros([5, 5, 1, 1]), 1, "VALID"),
    IAE)
bad("max_pool_window_too_big", lambda: tf.nn.max_pool2d(img(), 5, 1, "VALID"), IAE)
bad("top_k_negative", lambda: tf.math.top_k(x23(), k=-1), IAE)
bad("top_k_too_big", lambda: tf.math.top_k(x23(), k=4), IAE)
bad("top_k_float_k", lambda: tf.math.top_k(x23(), k=1.5), TypeError)
bad("one_hot_depth_neg", lambda: tf.one_hot([1], depth=-2), IAE)
bad("one_hot_depth_float", lambda: tf.one_hot([1], depth=2.5), TypeError)
bad("split_uneven", lambda: tf.split(x23(), 2, axis=1), IAE)
bad("split_zero", lambda: tf.split(x23(), 0), IAE)
bad("split_sizes_sum", lambda: tf.split(x23(), [1, 1], axis=1), IAE)
bad("tile_multiples_len", lambda: tf.tile(x23(), [2]), IAE)
bad("tile_multiples_neg", lambda: tf.tile(x23(), [1, -1]), IAE)
bad("tile_multiples_float", lambda: tf.tile(x23(), [1., 2.]), TypeError)
bad("band_part_float", lambda: tf.linalg.band_part(x23(), 0.5, 1), TypeError)
bad("eye_negative", lambda: tf.eye(-1), IAE)
bad("eye_float", lambda: tf.eye(2.5), TypeError)
bad("zeros_negative", lambda: tf.zeros([-1]), IAE)
bad("ones_negative", lambda: tf.ones([2, -3]), IAE)
bad("zeros_float_shape", lambda: tf.zeros([2.5]), TypeError)
bad("fill_dims_neg", lambda: tf.fill([-1], 1.), IAE)
bad("fill_dims_float", lambda: tf.fill([1.5], 1.), TypeError)
bad("fill_dims_matrix", lambda: tf.fill([[1]], 1.), IAE)
bad("random_uniform_neg_shape", lambda: tf.random.uniform([-1]), IAE)
bad("random_normal_float_shape", lambda: tf.random.normal([2.5]), DT)
bad("random_uniform_int_no_max", lambda: tf.random.uniform([2], dtype=tf.int32), ValueError)
bad("random_uniform_bad_dtype", lambda: tf.random.uniform([2], dtype=tf.string), ValueError)
bad("random_normal_int_dtype", lambda: tf.random.normal([2], dtype=tf.int32), ValueError)
bad("truncated_normal_int", lambda: tf.random.truncated_normal([2], dtype=tf.int32), ValueError)
bad("categorical_float_samples", lambda: tf.random.categorical([[0., 0.]], 1.5), TypeError)
bad("categorical_rank1", lambda: tf.random.categorical([0., 0.], 1), IAE)
bad("range_zero_delta", lambda: tf.range(0, 5, 0), IAE)
bad("range_wrong_sign", lambda: tf.range(5, 0, 1), IAE)
bad("linspace_num_float", lambda: tf.linspace(0., 1., 2.5), TypeError)
bad("shape_out_type_bad", lambda: tf.shape(x23(), out_type=tf.float32), IAE)
bad("argmax_output_type_bad", lambda: tf.argmax(x23(), 0, output_type=tf.float32), DT)
bad("unique_out_idx_bad", lambda: tf.unique([1, 2], out_idx=tf.float32), IAE)
bad("bincount_float_minlength", lambda: tf.math.bincount([1, 2], minlength=1.5), TypeError)
bad("cast_to_resource", lambda: tf.cast(x23(), tf.resource), tf.errors.UnimplementedError)

# --- shapes ----------------------------------------------------------------------------------
bad("matmul_inner", lambda: tf.matmul(x23(), x23()), IAE)
bad("matmul_rank1", lambda: tf.matmul(tf.zeros([3]), tf.zeros([3])), IAE)
bad("matmul_batch", lambda: tf.matmul(tf.zeros([2, 2, 3]), tf.zeros([3, 3, 2])), IAE)
bad("add_broadcast", lambda: tf.add(x23(), tf.zeros([2])), IAE)
bad("multiply_broadcast", lambda: tf.multiply(x23(), tf.zeros([4])), IAE)
bad("equal_broadcast", lambda: tf.equal(x23(), tf.zeros([4])), IAE)
bad("where_broadcast", lambda: tf.where(tf.constant([True, False]), x23(), x23()), IAE)
bad("reshape_size", lambda: tf.reshape(x23(), [4]), IAE)
bad("reshape_two_unknown", lambda: tf.reshape(x23(), [-1, -1]), IAE)
bad("reshape_not_divisible", lambda: tf.reshape(x23(), [-1, 4]), IAE)
bad("reshape_matrix_shape", lambda: tf.reshape(x23(), [[2, 3]]), IAE)
bad("broadcast_to_bad", lambda: tf.broadcast_to(x23(), [3, 3]), IAE)
bad("broadcast_to_rank", lambda: tf.broadcast_to(x23(), [3]), IAE)
bad("concat_shapes", lambda: tf.concat([x23(), tf.zeros([2, 2, 2])], 0), IAE)
bad("concat_dim", lambda: tf.concat([x23(), tf.zeros([2, 2])], 0), IAE)
bad("stack_shapes", lambda: tf.stack([x23(), tf.zeros([3, 2])]), IAE)
bad("add_n_shapes", lambda: tf.add_n([x23(), tf.zeros([3, 2])]), IAE)
bad("pad_negative", lambda: tf.pad(x23(), [[-3, 0], [0, 0]]), IAE)
bad("pad_paddings_cols", lambda: tf.pad(x23(), [[1, 1, 1], [0, 0, 0]]), IAE)
bad("pad_reflect_too_big", lambda: tf.pad(x23(), [[2, 2], [0, 0]], mode="REFLECT"), IAE)
bad("pad_mode_bad", lambda: tf.pad(x23(), [[1, 1], [0, 0]], mode="FOO"), ValueError)
bad("slice_out", lambda: tf.slice(x23(), [0, 0], [3, 1]), IAE)
bad("slice_len", lambda: tf.slice(x23(), [0], [1]), IAE)
bad("gather_nd_depth", lambda: tf.gather_nd(x23(), [[0, 0, 0]]), IAE)
bad("gather_nd_scalar_indices", lambda: tf.gather_nd(x23(), 0), IAE)
bad("gather_batch_dims", lambda: tf.gather(x23(), [0], batch_dims=3), IAE)
bad("scatter_nd_shape", lambda: tf.scatter_nd([[0]], [1., 2.], [3]), IAE)
bad("tensor_scatter_shape", lambda: tf.tensor_scatter_nd_update(tf.zeros([3]), [[0]],
                                                                tf.zeros([2])), IAE)
bad("tensor_scatter_mixed", lambda: tf.tensor_scatter_nd_add(tf.zeros([3]), [[0]],
                                                             tf.constant([1])), IAE)
bad("boolean_mask_shape", lambda: tf.boolean_mask(x23(), [True]), IAE)
bad("boolean_mask_not_bool", lambda: tf.boolean_mask(x23(), [1, 0]), DT)
bad("diag_part_scalar", lambda: tf.linalg.diag_part(tf.constant(1.)), IAE)
bad("trace_vector", lambda: tf.linalg.trace(tf.constant([1., 2.])), IAE)
bad("det_not_square", lambda: tf.linalg.det(x23()), IAE)
bad("inv_not_square", lambda: tf.linalg.inv(x23()), IAE)
bad("cholesky_not_square", lambda: tf.linalg.cholesky(x23()), IAE)
bad("solve_shapes", lambda: tf.linalg.solve(tf.eye(2), tf.zeros([3, 1])), IAE)
bad("band_part_vector", lambda: tf.linalg.band_part(tf.zeros([3]), 0, 0), IAE)
bad("matvec_shapes", lambda: tf.linalg.matvec(x23(), tf.zeros([2])), IAE)
bad("einsum_bad_eq", lambda: tf.einsum("ij,jk->ik", x23(), x23()), IAE)
bad("einsum_operands", lambda: tf.einsum("ij->ij", x23(), x23()), IAE)
bad("tensordot_axes", lambda: tf.tensordot(x23(), x23(), 1), IAE)
bad("bias_add_shape", lambda: tf.nn.bias_add(x23(), tf.zeros([2])), IAE)
bad("bias_add_rank", lambda: tf.nn.bias_add(x23(), tf.zeros([3, 1])), IAE)
bad("softmax_scalar", lambda: tf.nn.softmax(tf.constant(1.)), IAE)
bad("sparse_xent_rank", lambda: tf.nn.sparse_softmax_cross_entropy_with_logits(
    labels=tf.constant([[0]]), logits=x23()), IAE)
bad("sparse_xent_float_labels", lambda: tf.nn.sparse_softmax_cross_entropy_with_logits(
    labels=tf.constant([0., 1.]), logits=x23()), IAE)
bad("softmax_xent_shapes", lambda: tf.nn.softmax_cross_entropy_with_logits(
    labels=tf.zeros([2, 2]), logits=x23()), IAE)
bad("sigmoid_xent_shapes", lambda: tf.nn.sigmoid_cross_entropy_with_logits(
    labels=tf.zeros([2, 2]), logits=x23()), ValueError)
bad("in_top_k_shapes", lambda: tf.nn.in_top_k(tf.constant([0, 1, 2]), x23(), 1), IAE)
bad("segment_sum_ids_len", lambda: tf.math.segment_sum(x23(), [0]), IAE)
bad("segment_sum_float_ids", lambda: tf.math.segment_sum(x23(), [0., 0.]), DT)
bad("unsorted_segment_num_neg", lambda: tf.math.unsorted_segment_sum(x23(), [0, 0], -1), IAE)
bad("one_hot_float_indices", lambda: tf.one_hot([1.5], 3), DT)
bad("gather_float_indices", lambda: tf.gather(x23(), [0.5]), DT)
bad("gather_nd_float_indices", lambda: tf.gather_nd(x23(), [[0.5]]), DT)
bad("slice_float_begin", lambda: tf.slice(x23(), [0.5, 0.], [1, 1]), DT)
bad("unstack_unknown_num", lambda: tf.unstack(x23(), num=2, axis=1), IAE)
bad("sort_bad_direction", lambda: tf.sort(x23(), direction="UP"), ValueError)
bad("sort_axis3", lambda: tf.sort(x23(), axis=3), IAE)
bad("argsort_axis_float", lambda: tf.argsort(x23(), axis=0.5), TypeError)
bad("meshgrid_indexing", lambda: tf.meshgrid([1, 2], [3, 4], indexing="zz"), ValueError)
bad("clip_by_norm_int", lambda: tf.clip_by_norm(i23(), 1.), IAE)
bad("l2_loss_int", lambda: tf.nn.l2_loss(i23()), IAE)
bad("dropout_rate_1", lambda: tf.nn.dropout(x23(), rate=1.), ValueError)
bad("dropout_int", lambda: tf.nn.dropout(i23(), rate=0.5), ValueError)
bad("leaky_relu_int", lambda: tf.nn.leaky_relu(i23()), IAE)
bad("as_string_bad_type", lambda: tf.strings.as_string(tf.constant(["a"])), IAE)
bad("string_to_number_float", lambda: tf.strings.to_number(x23()), DT)
bad("string_length_int", lambda: tf.strings.length(i23()), DT)
bad("string_join_int", lambda: tf.strings.join([i23()]), DT)
bad("check_numerics_int", lambda: tf.debugging.check_numerics(i23(), "m"), IAE)

CALLS = ROWS


def _raise(fn):
    try:
        out = fn()
        if isinstance(out, (list, tuple)):
            [getattr(o, "shape", None) for o in out]
    except Exception as e:  # noqa: BLE001  (the table asserts which)
        return e
    return None


def _run_graph(fn):
    f = tf.function(fn, autograph=False)
    return _raise(f)


@pytest.mark.parametrize("fn, err", CALLS)
def test_bad_call_same_error_eager_and_graph(fn, err):
    eager = _raise(fn)
    graph = _run_graph(fn)
    assert eager is not None, "eager call did not raise"
    assert graph is not None, f"graph call did not raise (eager: {eager!r})"
    assert isinstance(eager, err), repr(eager)
    assert type(graph) is type(eager), f"eager {eager!r}\ngraph {graph!r}"
    assert str(graph).startswith(str(eager)), f"eager {eager}\ngraph {graph}"


def test_table_is_large():
    assert len(CALLS) >= 200
