"""Every op declaration and its public function, by family (files of about 600 lines at most).

``core.py`` holds what declarations share (argument conversion, shape rules, ``quietly``,
``reexport``). Each family module declares its ops (OpDefs, see ``graph/registry.py``) next to
their public functions; a module imports only modules below it, never one of the re-export
modules listed last.

* ``math/``: ``elementwise.py`` (the ``Unary``/``Binary`` table rows, dtype-kind rules, kernel
  wrappers, ``declare``), ``comparison.py`` (comparisons, logic, bitwise, ``where``),
  ``cast.py``, ``unary.py`` (the UNARY table), ``binary.py`` (the BINARY table, ``AddN``,
  ``truediv``), ``complex.py`` (``Complex``, real/imag/abs), ``reduce.py`` (sum, mean, prod, max,
  min, any, all), ``reduce_stats.py`` (logsumexp, variance, std, argmax, norm, count_nonzero),
  ``scan.py`` (cumsum, cumprod), ``clip.py`` (clip_by_value/norm, global_norm).
* ``array/``: ``shape.py`` (identity, shape, reshape, broadcast_to, sum_to, shared argument
  helpers), ``layout.py`` (stack, transpose, expand_dims, squeeze, reverse, stop_gradient),
  ``join.py`` (concat, split, tile, pad), ``slicing.py`` (slice, strided_slice, ``t[...]``),
  ``gather.py`` (gather, scatter_nd, tensor_scatter_nd_*, boolean_mask), ``create.py``
  (one_hot, range, fill, zeros/ones, eye, linspace), ``sort.py`` (sort, top_k, unique, repeat),
  ``batch_space.py`` (space_to_batch_nd, batch_to_space_nd, dynamic_partition/stitch),
  ``bits.py`` (bitcast, fingerprint).
* ``nn/``: ``activations.py``, ``losses.py`` (softmax, cross entropies), ``geometry.py``
  (convolution/pooling windows and padding), ``conv.py`` (convolutions, bias_add), ``pool.py``,
  ``normalization.py`` (moments, batch_normalization, dropout, embeddings, in_top_k).
* ``random/``: ``seeds.py`` (TensorFlow's seed rules, streams), ``stateful.py``,
  ``stateless.py`` (stateless ops, ``Generator``).
* ``debugging/``: ``printing.py`` (``tw.print``), ``numerics.py`` (check_numerics),
  ``asserts.py`` (``Assert``, assert_*).
* One file each: ``linalg_ops.py`` (matmul, einsum, tensordot, inv, det, solve, cholesky...),
  ``segment_ops.py``, ``scatter_ops.py`` (IndexedSlices, tensor_scatter_nd_sub/max/min),
  ``string_ops.py``, ``variables.py``, ``optimizer_ops.py`` (Keras Adam's fused update),
  ``overloads.py`` (Tensor operators), ``quantization.py``
  (fake_quant_*), ``quantize_ops.py`` (quantize, dequantize, quantize_and_dequantize,
  quantized_concat), ``init_ops.py (TensorFlow 2's top-level initializers).
* Re-export modules, the former one-file modules kept so existing imports work: ``math_ops``,
  ``array_ops``, ``nn_ops``, ``reduction_ops``, ``random_ops``, ``debugging_ops`` (their
  ``__all__`` is what ``tw.*`` exports). New code imports the family module.

A new elementwise op is a row in the table of its family; any other op is a declaration class in
the family module it belongs to, with a case in ``tests/ops/cases_*.py``.
"""
