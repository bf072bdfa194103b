"""Cache keys for ``tw.function``: which calls can share one traced graph.

Keys follow TensorFlow's rules: tensors and NumPy arrays by dtype and shape, Python scalars,
strings and None by type and value, lists/tuples/dicts/namedtuples structurally, variables and
other objects by identity. A tensor leaf's key is ``(numpy dtype, shape tuple)`` so that the
call fast path can build it straight from ``tensor._value``; a TensorSpec's shape may hold
``None`` dims, and such a key *accepts* every tensor whose shape fits (``key_accepts``).
A composite value (RaggedTensor, SparseTensor...) or a TypeSpec is keyed by its spec, so a
RaggedTensor argument traces once for every row length its spec allows.
"""
from __future__ import annotations

import numpy as np

from ..core.shapes import TensorShape
from ..eager.func_graph import TensorSpec
from ..eager.tensor import EagerTensor
from ..framework.type_spec import CompositeTensor, TypeSpec
from ..graph.tensor import SymbolicTensor
from ..ops.variables import Variable

_SCALARS = (int, float, bool, str, bytes, complex, type(None))


def np_dtype(dtype) -> np.dtype:
    """The NumPy dtype a twinflow dtype's arrays carry (object for strings/resources)."""
    try:
        return np.dtype(dtype.np)
    except TypeError:
        return np.dtype(object)


def is_tensor_leaf(x) -> bool:
    """True for leaves that become graph inputs (tensors, NumPy arrays, TensorSpecs)."""
    t = type(x)
    return t is EagerTensor or t is np.ndarray or t is TensorSpec or t is SymbolicTensor or \
        _tensor_subclass(x)


def _tensor_subclass(x) -> bool:
    """A tensor of a subclass (a variable's slice ``v[0]``, which has ``.assign``), not a
    resource handle (those are keyed by identity)."""
    return isinstance(x, (EagerTensor, SymbolicTensor)) and x.dtype.name != "resource"


def leaf_key(x, refs: list | None = None):
    """The cache key of one argument (recursing into containers).

    Args:
        x: the argument.
        refs: objects keyed by identity are appended here, to keep them (and their ids) alive.

    Returns:
        A hashable key.
    """
    t = type(x)
    if t is EagerTensor:
        v = x._value
        return (v.dtype, v.shape)
    if t is np.ndarray:
        return (x.dtype, x.shape)
    if t is TensorSpec:
        return (np_dtype(x.dtype), x.shape.as_tuple())
    if t is SymbolicTensor:
        return (np_dtype(x.dtype), x.shape.as_tuple())
    if t in _SCALARS:
        return (t, x)
    if isinstance(x, (np.generic,)):
        return (t, x.item())
    if isinstance(x, dict):
        return ("dict", tuple((k, leaf_key(x[k], refs)) for k in _sorted(x)))
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return (t, tuple(leaf_key(c, refs) for c in x))
    if isinstance(x, (list, tuple)):
        return (t.__name__, tuple(leaf_key(c, refs) for c in x))
    if _tensor_subclass(x):
        return (np_dtype(x.dtype), x.shape.as_tuple())
    if isinstance(x, (CompositeTensor, TypeSpec)):
        # The spec itself (hashed and compared by its trace key), so that reduce_retracing
        # can generalize it and a traced spec can accept the values it covers.
        return ("spec", x if isinstance(x, TypeSpec) else x._type_spec)
    tracing_type = getattr(t, "__tf_tracing_type__", None)
    if tracing_type is not None:
        # tw.types.experimental.SupportsTracingProtocol: the object's own (hashable) TraceType
        return ("trace_type", x.__tf_tracing_type__(None))
    if refs is not None:
        refs.append(x)
    kind = "variable" if isinstance(x, Variable) else "object"
    return (kind, id(x))


def _sorted(d: dict) -> list:
    try:
        return sorted(d)
    except TypeError:
        return sorted(d, key=repr)


def make_key(args: tuple, kwargs: dict, refs: list | None = None) -> tuple:
    """The key of a canonical call: one entry per positional argument, then the kwargs."""
    key = tuple(leaf_key(a, refs) for a in args)
    if kwargs:
        key += (("**", tuple((k, leaf_key(kwargs[k], refs)) for k in sorted(kwargs))),)
    return key


def is_tensor_key(k) -> bool:
    """True if ``k`` is the cache key of a tensor leaf: ``(numpy dtype, dims or None)``."""
    return type(k) is tuple and len(k) == 2 and isinstance(k[0], np.dtype)


def _is_spec_key(k) -> bool:
    return type(k) is tuple and len(k) == 2 and k[0] == "spec" and isinstance(k[1], TypeSpec)


def key_accepts(general, specific) -> bool:
    """True if a graph traced for key ``general`` can run a call with key ``specific``."""
    if _is_spec_key(general):
        if not _is_spec_key(specific):
            return False
        common = general[1].most_specific_common_supertype([specific[1]])
        return common is not None and common == general[1]
    if is_tensor_key(general):
        if not is_tensor_key(specific) or general[0] != specific[0]:
            return False
        gs, ss = general[1], specific[1]
        if gs is None:
            return True
        if ss is None or len(gs) != len(ss):
            return False
        return all(g is None or g == s for g, s in zip(gs, ss))
    if type(general) is tuple and type(specific) is tuple and len(general) == len(specific):
        return all(key_accepts(g, s) for g, s in zip(general, specific))
    return general == specific


def relaxed(key):
    """``key`` with every tensor shape replaced by its rank (the reduce_retracing family)."""
    if is_tensor_key(key):
        return (key[0], None if key[1] is None else len(key[1]))
    if _is_spec_key(key):  # a composite's family: its spec with shapes reduced to ranks
        return ("spec-family", type(key[1]), _ranks(key[1]._serialize()))
    if type(key) is tuple:
        return tuple(relaxed(k) for k in key)
    return key


def _ranks(p):
    if isinstance(p, TensorShape):
        return ("rank", p.rank)
    if isinstance(p, TypeSpec):
        return (type(p), _ranks(p._serialize()))
    if isinstance(p, (list, tuple)):
        return tuple(_ranks(x) for x in p)
    if isinstance(p, dict):
        return tuple(sorted((k, _ranks(v)) for k, v in p.items()))
    return p


def generalize(a, b):
    """The most specific key accepting both ``a`` and ``b`` (same relaxed key)."""
    if is_tensor_key(a):
        if a[1] is None or b[1] is None:
            return (a[0], None)
        return (a[0], tuple(x if x == y else None for x, y in zip(a[1], b[1])))
    if _is_spec_key(a):
        common = a[1].most_specific_common_supertype([b[1]]) if _is_spec_key(b) else None
        return b if common is None else ("spec", common)
    if type(a) is tuple:
        return tuple(generalize(x, y) for x, y in zip(a, b))
    return a
