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

What an op accepts (input dtypes, attr kinds and constraints) is its *schema*
(``graph/schema.py``), given as ``register_op(..., schema="x:T -> y:T | T:type in [float]")`` or
by ``declare_schema`` (a table of schemas for ops declared elsewhere). The validator built from
it runs in ``bind`` in both modes; ``same_dtype=True`` is the schema "all inputs share one dtype".
"""
from __future__ import annotations

from collections.abc import Callable

from .checks import shape_error
from .schema import OpSchema, allowed_np_dtypes, parse_schema
from .validator import validator

REGISTRY: dict = {}


class _Anything:
    def __contains__(self, item) -> bool:
        return True


_ANY = _Anything()
_SAME_DTYPE = "xs:N*T -> y:any | T:type"  # the schema ``same_dtype=True`` stands for


class _LazyNpDtypes:
    # ``OpDef.np_dtypes`` until the schema is parsed: the first lookup parses it and installs
    # the real set, so the eager fast paths pay nothing after the op's first call.
    __slots__ = ("opdef",)

    def __init__(self, opdef) -> None:
        self.opdef = opdef

    def __contains__(self, item) -> bool:
        self.opdef.schema  # noqa: B018  (parses, installing the real ``np_dtypes``)
        return item in self.opdef.np_dtypes


# Schemas declared (by ``declare_schema``) for ops not registered yet.
_PENDING_SCHEMAS: dict = {}


class OpDef:
    """Everything twinflow knows about one op type."""

    __slots__ = ("name", "infer", "kernel", "grad", "stateful", "same_dtype", "multi_output",
                 "doc", "_schema", "_schema_text", "validate", "validate_eager", "np_dtypes",
                 "__dict__")
    # Declared by ops that read a variable (see the module docstring); looked up per recorded op.
    accessed_variable = None

    def __init__(self, name: str, infer: Callable, kernel: Callable | None,
                 grad: Callable | None, stateful: bool, same_dtype: bool,
                 multi_output: bool, doc: str) -> None:
        self.name, self.infer, self.kernel, self.grad = name, infer, kernel, grad
        self.stateful, self.same_dtype, self.multi_output = stateful, same_dtype, multi_output
        self.doc = doc
        if same_dtype:
            self._set_schema_text(_SAME_DTYPE, False)
        else:
            self.set_schema(None)

    @property
    def schema(self) -> OpSchema | None:
        """The op's OpSchema (parsed on first use: parsing ~400 schemas at import would cost
        ``import twinflow`` ~15 ms), or None for an op without one."""
        if self._schema_text is not None:
            self._set_parsed(parse_schema(*self._schema_text))
        return self._schema

    def _set_schema_text(self, text: str, check_shapes: bool) -> None:
        # The schema as written: parsed by the first ``schema`` or ``np_dtypes`` lookup.
        self._schema, self._schema_text = None, (text, check_shapes)
        self.np_dtypes = _LazyNpDtypes(self)
        self.validate, self.validate_eager = self._first_validate, self._first_validate_eager

    def _set_parsed(self, schema: OpSchema) -> None:
        # (two threads may both parse: the results are equal and assignments atomic)
        allowed = allowed_np_dtypes(schema)
        self.np_dtypes = _ANY if allowed is None else allowed
        self._schema, self._schema_text = schema, None

    def set_schema(self, schema: OpSchema | None) -> None:
        """Sets the op's schema and the validators ``bind`` runs.

        ``validate(inputs, attrs)`` checks dtypes and attrs (graph mode); ``validate_eager``
        also runs ``infer`` when the schema says ``check_shapes`` (ops whose kernel would accept
        shapes that ``infer`` refuses). Both are generated on the op's first use (compiling
        ~300 validators at import would cost ``import twinflow`` ~20 ms): until then they are
        stubs that build them, install them and run them.
        """
        self._schema_text = None
        if schema is None:
            self._schema, self.np_dtypes = None, _ANY
        else:  # ``np_dtypes``: what ``bind_binary`` lets through without calling ``validate``
            self._set_parsed(schema)
        if schema is None:
            self.validate = self.validate_eager = None
        else:
            self.validate, self.validate_eager = self._first_validate, self._first_validate_eager

    def _first_validate(self, inputs, attrs) -> None:
        self._build_validators()
        if self.validate is not None:
            self.validate(inputs, attrs)

    def _first_validate_eager(self, inputs, attrs) -> None:
        self._build_validators()
        if self.validate_eager is not None:
            self.validate_eager(inputs, attrs)

    def _build_validators(self) -> None:
        # (two threads may both build: the results are equal and assignments atomic)
        schema = self.schema
        check = validator(schema, self.name)
        if schema.check_shapes:
            infer = self.infer

            def validate_eager(inputs, attrs):
                if check is not None:
                    check(inputs, attrs)
                try:
                    infer(*inputs, **attrs)
                except (ValueError, TypeError) as e:  # InvalidArgumentError is a ValueError
                    raise shape_error(self.name, e) from e
            self.validate, self.validate_eager = check, validate_eager
        else:
            self.validate, self.validate_eager = check, check

    def __repr__(self) -> str:
        return f"<OpDef {self.name}>"


def declare_schema(name: str, text: str, check_shapes: bool = False) -> None:
    """Declares the schema of op ``name`` (now, or when it is registered).

    Args:
        name: the op type name.
        text: the schema (see ``graph/schema.py``).
        check_shapes: run ``infer`` eagerly too (see ``OpSchema.check_shapes``).
    """
    opdef = REGISTRY.get(name)
    if opdef is None:
        _PENDING_SCHEMAS[name] = (text, check_shapes)
    else:
        opdef._set_schema_text(text, check_shapes)


def register_op(name: str, *, stateful: bool = False, same_dtype: bool = False,
                multi_output: bool = False, schema: str | None = None,
                check_shapes: bool = False):
    """Class decorator declaring op ``name``; returns its OpDef.

    Args:
        name: the TensorFlow op type name (``MatMul``, ``AddV2``...).
        stateful: the op reads or writes state (variables, random, I/O): passes never fold,
            merge or prune it, and it runs in program order once per call.
        same_dtype: all tensor inputs must share one dtype (checked in eager and graph mode).
        multi_output: ``infer`` returns a list and ``kernel`` a tuple, one per output.
        schema: what the op accepts, in TensorFlow's op-definition notation
            (``graph/schema.py``); checked by ``bind`` in both modes.
        check_shapes: also run ``infer`` eagerly (the kernel would accept what it refuses).

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
                      same_dtype, multi_output, cls.__doc__ or "")
        for k, v in ns.items():  # extra helpers (e.g. a lowering hint) stay reachable
            if not k.startswith("__") and k not in ("infer", "kernel", "grad"):
                setattr(opdef, k, v)
        pending = _PENDING_SCHEMAS.pop(name, None)
        if schema is not None or pending is not None:
            opdef._set_schema_text(*(pending or (schema, check_shapes)))
        REGISTRY[name] = opdef
        return opdef
    return deco


def register_stateful_pair(name: str, doc: str, **rules) -> tuple[OpDef, OpDef]:
    """Declares op ``name`` (stateful: its sub-graphs may have side effects) and
    ``Stateless<name>`` with the same rules, as TensorFlow pairs If/StatelessIf, While/...

    Args:
        name: the stateful op's type name.
        doc: what both ops do.
        **rules: the declaration (``infer=``, ``kernel=``, ``grad=``, ``lower=``...) and
            ``register_op``'s keyword arguments (``multi_output=``...).

    Returns:
        (the stateful OpDef, the stateless OpDef).
    """
    options = {k: rules.pop(k) for k in ("same_dtype", "multi_output", "schema", "check_shapes")
               if k in rules}
    stateful = register_op(name, stateful=True, **options)(
        type(name, (), {**rules, "__doc__": doc + " Has side effects."}))
    stateless = register_op("Stateless" + name, **options)(
        type("Stateless" + name, (), {**rules, "__doc__": doc}))
    return stateful, stateless


def get_op(name: str) -> OpDef:
    """The registered OpDef called ``name`` (KeyError if none)."""
    try:
        return REGISTRY[name]
    except KeyError:
        raise KeyError(f"No op named {name!r} is registered") from None


# Op families that the public namespace imports on first use (tw.keras, tw.data...) register
# their ops only then; a loader that looks ops up by name (a SavedModel, a GraphDef) first
# makes them all known, whatever happens to be imported. Registration point:
# ``register_op_family_loader`` (called by ``twinflow/__init__.py``).
_FAMILY_LOADERS: list = []


def register_op_family_loader(loader: Callable[[], None]) -> None:
    """Declares how to import the op families loaded lazily (called once by the public
    namespace).

    Args:
        loader: imports every package that registers ops.
    """
    _FAMILY_LOADERS.append(loader)


def load_all_op_families() -> None:
    """Imports every package that registers ops, so ``REGISTRY`` holds them all."""
    for loader in list(_FAMILY_LOADERS):
        loader()
