"""The op registry: one declaration per op carries all of its rules.

An op is declared as a class whose functions are its rules::

    @register_op("AddV2", same_dtype=True)
    class AddV2:
        def infer(x, y):            # symbolic inputs (.dtype, .shape) -> (dtype, TensorShape)
            ...
        kernel = np.add             # arrays in, array(s) out
        def grad(op, dy):           # built from tw ops: works eagerly, in graphs, to any order
            ...

A ``grad`` rule may read ``op.needs_grad`` (one bool per input, set by ``backprop``: False
when no source reaches the input) and return None for those inputs instead of computing it.

Optional declarations an op may add: ``lower(op)`` / ``lower_consume(op)`` (codegen, see
``compiler/codegen.py``), ``constant_value(op)`` (what ``infer`` of consumers may see), and
``accessed_variable(op) -> Variable | None`` for an op that reads a variable: a GradientTape
that watches accessed variables watches that variable when it records the op.

The class is replaced by its ``OpDef``. ``infer`` returns one ``(dtype, shape)`` pair, or a list
of pairs for an op with several outputs (then ``kernel`` returns a tuple of arrays).
"""
from __future__ import annotations

from collections.abc import Callable

REGISTRY: dict = {}


class OpDef:
    """Everything twinflow knows about one op type."""

    __slots__ = ("name", "infer", "kernel", "grad", "stateful", "same_dtype", "multi_output",
                 "check", "doc", "__dict__")

    def __init__(self, name: str, infer: Callable, kernel: Callable | None,
                 grad: Callable | None, stateful: bool, same_dtype: bool,
                 multi_output: bool, check: Callable | None, doc: str) -> None:
        self.name = name
        self.infer = infer
        self.kernel = kernel
        self.grad = grad
        self.stateful = stateful
        self.same_dtype = same_dtype
        self.multi_output = multi_output
        self.check = check
        self.doc = doc

    def __repr__(self) -> str:
        return f"<OpDef {self.name}>"


def register_op(name: str, *, stateful: bool = False, same_dtype: bool = False,
                multi_output: bool = False):
    """Class decorator declaring op ``name``; returns its OpDef.

    Args:
        name: the TensorFlow op type name (``MatMul``, ``AddV2``...).
        stateful: the op reads or writes state (variables, random, I/O): passes never fold,
            merge or prune it, and it runs in program order once per call.
        same_dtype: all tensor inputs must share one dtype (checked in eager and graph mode).
        multi_output: ``infer`` returns a list and ``kernel`` a tuple, one per output.

    Returns:
        A decorator turning the declaration class into the registered OpDef.
    """
    def deco(cls) -> OpDef:
        if name in REGISTRY:
            raise ValueError(f"Op {name!r} is already registered")
        ns = cls.__dict__
        if "infer" not in ns:
            raise TypeError(f"Op {name} must declare infer()")
        opdef = OpDef(name, ns["infer"], ns.get("kernel"), ns.get("grad"), stateful,
                      same_dtype, multi_output, ns.get("check"), cls.__doc__ or "")
        for k, v in ns.items():  # extra helpers (e.g. a lowering hint) stay reachable
            if not k.startswith("__") and k not in ("infer", "kernel", "grad", "check"):
                setattr(opdef, k, v)
        REGISTRY[name] = opdef
        return opdef
    return deco


def get_op(name: str) -> OpDef:
    try:
        return REGISTRY[name]
    except KeyError:
        raise KeyError(f"No op named {name!r} is registered") from None
