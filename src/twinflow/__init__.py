"""twinflow: a small deep-learning framework on NumPy with TensorFlow 2's API.

Ops run eagerly by default; ``tw.function`` traces Python into an optimized, compiled graph.
This module only re-exports; each op module lists its public names in ``__all__``.
"""
import importlib as _importlib

from .core import allocator as _allocator  # noqa: F401  (freed arrays stay in the process)
from .core import dtypes as _dtypes
from .core.context import executing_eagerly
from .core.devices import DeviceSpec, device
from .core.dtypes import (DType, as_dtype, bfloat16, bool_ as bool,
                          complex64, complex128, double, float16, float32, float64, half, int8,
                          int16, int32, int64, qint8, qint16, qint32, quint8, quint16, resource,
                          string, uint8, uint16, uint32, uint64, variant)
from .core.shapes import TensorShape
from .eager.execute import constant, is_tensor
from .ops.core import convert_to_tensor_packed as convert_to_tensor
from .graph.graph import Graph, control_dependencies, get_default_graph, name_scope
from .graph.tensor import Tensor
from .ops import overloads as _overloads  # noqa: F401  (installs Tensor operators)
from .ops import schemas as _schemas  # noqa: F401  (what each op accepts)
from .ops.array_ops import *  # noqa: F401,F403
from .ops.linalg_ops import *  # noqa: F401,F403
from .ops.math_ops import *  # noqa: F401,F403
from .ops.reduction_ops import *  # noqa: F401,F403
from .ops.variables import (Variable, VariableAggregation, VariableSynchronization,
                            variable_creator_scope)
from .autodiff.tape import GradientTape, UnconnectedGradients
from . import bitwise, config, debugging, errors, linalg, math, nest, nn, random  # noqa: E402

newaxis = None

# Each section below belongs to one area; extend only your own (keeps parallel edits apart).
# [exports: autodiff, debugging, config]
from .autodiff.custom_gradient import custom_gradient
from .autodiff.gradients import gradients
from .ops.debugging_ops import Assert, print_v2 as print
from .ops.debugging_ops import (assert_equal, assert_greater, assert_less, assert_rank,
                                check_numerics)
# [exports: graph mode]
from . import dtypes  # noqa: E402  (tf.dtypes: dtypes and casts)
from .eager.func_graph import TensorSpec
from .function import ConcreteFunction, Function, function
from .compat.v1 import Session
from . import compat
# [exports: control flow and autograph]
from .control.cond import case, cond, switch_case
from .control.map_fn import foldl, foldr, map_fn, scan
from .control.tensor_array import TensorArray
from .control.while_loop import while_loop
# (tw.autograph loads on first use: see _LAZY below)
# [exports: training] (loaded on first use: see _LAZY below)
# [exports: data and io]
from .ops import script_ops as _script_ops
from .ops.script_ops import numpy_function, py_function
from .ops.ensure_shape import ensure_shape
_script_ops.register_tape_class(GradientTape)
# [exports: extra API]
from .ops.scatter_ops import (IndexedSlices, tensor_scatter_nd_max, tensor_scatter_nd_min,
                              tensor_scatter_nd_sub)
from .ops.string_ops import as_string
# [exports: composite tensors]
from .framework.specs import NoneTensorSpec, TensorArraySpec
from .framework.type_spec import BatchableTypeSpec, TypeSpec
from .ops.ragged.tensor import RaggedTensor, RaggedTensorSpec
from .ops.sparse.tensor import SparseTensor, SparseTensorSpec
from .ops.composite_ops import type_spec_from_value
from .ops.indexed_slices import IndexedSlicesSpec
from . import experimental, ragged, sparse
# [exports: surface (issue 16)]
from . import version
from .version import VERSION as __version__
from .function.runtime_options import check_pinned
from .control.vectorize import vectorized_map
from .ops.scopes import (get_current_name_scope, get_logger, get_static_value, group,  # noqa
                         guarantee_const,
                         identity_n, init_scope, inside_function, is_symbolic_tensor, no_op,
                         tuple)
from .autodiff.extras import (AggregationMethod, RegisterGradient, grad_pass_through,
                              hessians, no_gradient, recompute_grad)
from .eager.execute import register_tensor_conversion_function
from .graph.graph import Operation
from .ops.init_ops import (constant_initializer, ones_initializer, random_normal_initializer,
                           random_uniform_initializer, zeros_initializer)
from .ops.linalg_lu import eig, eigvals
from .ops.linalg_matfun import sqrtm as matrix_square_root  # noqa: E402
from .ops.nn.isotonic_approx import approx_top_k  # noqa: E402
from .ops.misc16 import (  # noqa: E402
    conv,
    conv2d_backprop_filter_v2,
    conv2d_backprop_input_v2,
    extract_volume_patches,
    ragged_fill_empty_rows,
    ragged_fill_empty_rows_grad,
    random_index_shuffle,
)
from .ops.array.bits import bitcast, fingerprint
from .ops.array.batch_space import (batch_to_space, dynamic_partition, dynamic_stitch,
                                    required_space_to_batch_paddings, space_to_batch,
                                    space_to_batch_nd)

# Heavy areas load on first use (``tw.keras``, ``tw.data``...): ``import twinflow`` stays fast.
# name -> (module, attribute or None for the module itself)
_LAZY = {
    "keras": (".keras", None), "data": (".data", None), "summary": (".summary", None),
    "train": (".train", None), "strings": (".strings", None), "io": (".io", None),
    "Module": (".train.module", "Module"), "image": (".image", None),
    "signal": (".signal", None), "graph_util": (".graph_util", None),
    "distribute": (".distribute", None), "onnx": (".onnx", None),
    "saved_model": (".saved_model", None), "autograph": (".autograph", None),
    "import_graph_def": (".saved_model.graph_import", "import_graph_def"),
    "make_ndarray": (".io.tensor_proto", "make_ndarray"),
    "edit_distance": (".ops.sets", "edit_distance"),
    "quantization": (".quantization", None), "test": (".testing", None),
    "sysconfig": (".sysconfig", None), "types": (".types", None), "sets": (".sets", None),
    "lookup": (".lookup", None), "audio": (".audio", None),
    "fftnd": (".ops.signal.fftnd", "fftnd"), "ifftnd": (".ops.signal.fftnd", "ifftnd"),
    "rfftnd": (".ops.signal.fftnd", "rfftnd"), "irfftnd": (".ops.signal.fftnd", "irfftnd"),
    "queue": (".queue", None), "raw_ops": (".raw_ops", None),
    "CriticalSection": (".control.critical_section", "CriticalSection"),
    "nondifferentiable_batch_function": (".function.batching",
                                         "nondifferentiable_batch_function"),
    "profiler": (".profiler", None), "OptionalSpec": (".data.optional_ops", "OptionalSpec"),
    "make_tensor_proto": (".io.tensor_proto", "make_tensor_proto"),
    # tf.optimizers = tf.keras.optimizers, and likewise
    "initializers": (".keras.initializers", None), "losses": (".keras.losses", None),
    "metrics": (".keras.metrics", None), "optimizers": (".keras.optimizers", None),
}


def __getattr__(name: str):
    entry = _LAZY.get(name)
    if entry is None:
        raise AttributeError(f"module 'twinflow' has no attribute {name!r}")
    mod = _importlib.import_module(entry[0], __name__)
    value = mod if entry[1] is None else getattr(mod, entry[1])
    globals()[name] = value
    return value


def __dir__() -> list:
    return sorted(set(globals()) | set(_LAZY))

# tw.compat.v1 resolves the TF2 names it does not define here (declared, not looked up).
import sys as _sys  # noqa: E402
from .compat.v1 import register_fallback_namespace as _register_compat_v1  # noqa: E402
from .graph.registry import register_op_family_loader as _register_op_families  # noqa: E402
from .core.lazy import register_loader as _register_loader  # noqa: E402

_register_compat_v1(_sys.modules[__name__])


def _load_op_families() -> None:
    # Every lazily loaded area that registers ops (tw.saved_model.load looks ops up by name).
    for _name in ("keras", "data", "io", "summary", "strings", "image", "signal", "distribute",
                  "quantization", "sets", "audio", "fftnd", "queue", "CriticalSection"):
        if _name in _LAZY:
            __getattr__(_name)


_register_op_families(_load_op_families)
# tw.lookup declares tw.data.experimental's table functions when it loads.
_register_loader("lookup", lambda: __getattr__("lookup"))
# tw.experimental.Optional is tw.data's (loaded on first use).
_register_loader("Optional", lambda: __getattr__("data").iterator_ops.Optional)
