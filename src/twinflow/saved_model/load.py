"""``tw.saved_model.load``: a SavedModel (twinflow's or TensorFlow's) without its Python source.

Everything comes from ``saved_model.pb`` and ``variables/``: objects of the SavedObjectGraph
become ``Loaded`` objects (attributes named as the children), variables ``tw.Variable`` s with
the checkpoint's values (trainable as saved), functions ``RestoredFunction`` s whose concrete
functions are rebuilt from the FunctionDefs (``function_import.py``) and captured the restored
variables, so GradientTape differentiates through them. The SavedModel is checked before any
object is built: an unreadable file raises ``DataLossError``, a function using an op twinflow
lacks ``NotFoundError`` naming it. Nothing is unpickled or evaluated.
"""
from __future__ import annotations

import os

import numpy as np

from ..core import dtypes, errors, nest
from ..core.context import graph_mode
from ..core.files import recover
from ..eager.execute import constant
from ..eager.func_graph import FuncGraph, TensorSpec
from ..eager.tensor import EagerTensor
from ..function.function import ConcreteFunction
from ..graph.graph_def import shape_of_proto
from ..ops.variables import Variable
from . import options as opts
from .bundle import BundleReader
from .function_import import FunctionImporter
from .graph_import import tensor_of_proto
from .protos import saved_model_message
from .save import OBJECT_GRAPH_KEY
from .structure import decode_structure

__all__ = ["load", "Loaded", "RestoredFunction", "read_saved_model", "contains_saved_model"]


class Loaded:
    """An object restored from a SavedModel; its tracked children are attributes."""

    def _trackable_children(self) -> dict:
        return {k: v for k, v in vars(self).items()
                if not k.startswith("_") and (isinstance(v, Variable) or
                                              hasattr(v, "_trackable_children"))}

    def __call__(self, *args, **kwargs):
        fn = vars(self).get("__call__")
        if fn is None:
            raise TypeError("this restored object was saved without a __call__ function")
        return fn(*args, **kwargs)

    def _flatten(self, trainable: bool | None) -> tuple:
        seen, out = set(), []

        def visit(obj) -> None:
            for child in (obj.values() if isinstance(obj, dict) else
                          obj if isinstance(obj, list) else vars(obj).values()):
                if id(child) in seen:
                    continue
                seen.add(id(child))
                if isinstance(child, Variable):
                    if trainable is None or child.trainable == trainable:
                        out.append(child)
                elif isinstance(child, (Loaded, list, dict)):
                    visit(child)

        visit(self)
        return tuple(out)

    def __getattr__(self, name: str):
        # ``variables``/``trainable_variables``/``non_trainable_variables``, unless the
        # SavedModel had children of those names (then they are plain attributes).
        which = {"variables": None, "trainable_variables": True,
                 "non_trainable_variables": False}
        if name in which:
            return self._flatten(which[name])
        raise AttributeError(f"this restored object has no attribute {name!r}")

    def __repr__(self) -> str:
        return f"<tw.saved_model Loaded object with {sorted(self._trackable_children())}>"


class RestoredFunction:
    """A ``tw.function`` restored from a SavedModel: calls the concrete function whose input
    signature the arguments match."""

    def __init__(self, name: str, concretes: list, argspec: dict | None = None) -> None:
        self.name = name
        self.concrete_functions = list(concretes)
        self._argspec = argspec or {}

    def _canonical(self, args: tuple, kwargs: dict) -> tuple:
        """Arguments as the concrete functions were traced: named arguments (given by
        keyword or left at their default) in position."""
        names = list(self._argspec.get("args") or [])
        if not names or self._argspec.get("varargs"):
            return args, kwargs
        defaults = list(self._argspec.get("defaults") or [])
        first_default = len(names) - len(defaults)
        kwargs = dict(kwargs)
        out = list(args)
        for i in range(len(args), len(names)):
            if names[i] in kwargs:
                out.append(kwargs.pop(names[i]))
            elif i >= first_default:
                out.append(defaults[i - first_default])
            else:
                break
        return tuple(out), kwargs

    def __call__(self, *args, **kwargs):
        """Runs the first concrete function whose signature the arguments fit.

        Args:
            *args: positional arguments.
            **kwargs: keyword arguments.

        Returns:
            The function's outputs.
        """
        args, kwargs = self._canonical(args, kwargs)
        for cf in self.concrete_functions:
            if _fits(cf, args, kwargs):
                return cf(*args, **kwargs)
        sigs = [cf.structured_input_signature for cf in self.concrete_functions]
        raise ValueError(f"restored function {self.name!r}: the arguments {args!r} {kwargs!r} "
                         f"match none of its saved input signatures {sigs}")

    def get_concrete_function(self, *args, **kwargs) -> ConcreteFunction:
        """The concrete function these arguments (tensors or TensorSpecs) select.

        Args:
            *args: positional arguments.
            **kwargs: keyword arguments.

        Returns:
            The ConcreteFunction.
        """
        if not args and not kwargs and len(self.concrete_functions) == 1:
            return self.concrete_functions[0]
        args, kwargs = self._canonical(args, kwargs)
        for cf in self.concrete_functions:
            if _fits(cf, args, kwargs):
                return cf
        raise ValueError(f"restored function {self.name!r} has no concrete function for "
                         f"{args!r} {kwargs!r}")

    def __repr__(self) -> str:
        return f"<tw.saved_model RestoredFunction {self.name} " \
               f"({len(self.concrete_functions)} concrete)>"


def _fits(cf, args: tuple, kwargs: dict) -> bool:
    sargs, skw = cf.structured_input_signature
    if len(args) != len(sargs) or set(kwargs) != set(skw):
        return False
    try:
        pairs = list(zip(nest.flatten(list(args), True), nest.flatten(list(sargs), True)))
        pairs += list(zip(nest.flatten(kwargs, True), nest.flatten(skw, True)))
    except (TypeError, ValueError):
        return False
    for value, spec in pairs:
        if isinstance(spec, TensorSpec):
            dt = getattr(value, "dtype", None)
            shape = getattr(value, "shape", np.shape(value))
            if dt is not None and dtypes.as_dtype(dt) is not spec.dtype:
                return False
            if not spec.shape.is_compatible_with(shape):
                return False
        elif value != spec:
            return False
    return True


def contains_saved_model(export_dir) -> bool:
    """Whether ``export_dir`` holds a SavedModel (``saved_model.pb`` or ``.pbtxt``).

    Args:
        export_dir: a directory.

    Returns:
        True if it does.
    """
    d = os.fspath(export_dir)
    return os.path.isfile(os.path.join(d, opts.SAVED_MODEL_FILENAME_PB)) or \
        os.path.isfile(os.path.join(d, opts.SAVED_MODEL_FILENAME_PBTXT))


def read_saved_model(export_dir: str):
    """The ``SavedModel`` message of a directory.

    Args:
        export_dir: the SavedModel directory.

    Returns:
        The parsed message.

    Raises:
        OSError: there is no saved_model.pb.
        DataLossError: the file is not a valid SavedModel.
    """
    d = os.fspath(export_dir)
    if os.path.isdir(d):
        recover(d)
    path = os.path.join(d, opts.SAVED_MODEL_FILENAME_PB)
    text = os.path.join(d, opts.SAVED_MODEL_FILENAME_PBTXT)
    if not os.path.isfile(path) and os.path.isfile(text):
        path = text
    if not os.path.isfile(path):
        raise OSError(f"SavedModel file does not exist at: {d}{os.sep}"
                      f"{{{opts.SAVED_MODEL_FILENAME_PBTXT}|{opts.SAVED_MODEL_FILENAME_PB}}}")
    with open(path, "rb") as f:
        data = f.read()
    sm = saved_model_message("SavedModel")()
    try:
        if path == text:   # the text format (protobuf's parser: no code runs)
            from google.protobuf import text_format  # noqa: PLC0415  (protobuf, lazily)
            text_format.Parse(data.decode("utf-8"), sm)
        else:
            sm.ParseFromString(data)
    except Exception as e:  # noqa: BLE001  (protobuf's DecodeError/ParseError: data loss)
        raise errors.DataLossError(None, None, f"{path} is not a valid SavedModel (corrupt or "
                                               f"truncated): {e}") from None
    if not sm.meta_graphs:
        raise errors.DataLossError(None, None, f"{path} holds no MetaGraph (corrupt or "
                                               "truncated)")
    return sm


def _meta_graph(sm, tags):
    if tags is None:
        return sm.meta_graphs[0]
    want = {tags} if isinstance(tags, str) else set(tags)
    for mg in sm.meta_graphs:
        if set(mg.meta_info_def.tags) == want:
            return mg
    have = [list(mg.meta_info_def.tags) for mg in sm.meta_graphs]
    raise RuntimeError(f"MetaGraphDef associated with tags {sorted(want)} could not be found "
                       f"in SavedModel, with available tags '{have}'")


def _checkpoint_values(export_dir: str, og, options) -> dict:
    """node id -> array for every variable node, matched through the checkpoint's object
    graph by child names (as TensorFlow matches them)."""
    if options.experimental_skip_checkpoint:
        return {}
    prefix = os.path.join(export_dir, opts.VARIABLES_DIRECTORY, opts.VARIABLES_FILENAME)
    var_ids = [i for i, n in enumerate(og.nodes) if n.WhichOneof("kind") == "variable"]
    if not os.path.isfile(prefix + ".index"):
        if var_ids and not options.allow_partial_checkpoint:
            raise errors.NotFoundError(None, None, f"{prefix}.index: the SavedModel's "
                                                   "variables are missing")
        return {}
    reader = BundleReader(prefix)
    tog = saved_model_message("TrackableObjectGraph")()
    try:
        tog.ParseFromString(bytes(reader.get_tensor(OBJECT_GRAPH_KEY).item()))
    except Exception as e:  # noqa: BLE001  (a corrupt object graph)
        raise errors.DataLossError(None, None, f"{prefix}: unreadable object graph: "
                                               f"{e}") from None
    match = {0: 0}
    queue = [0]
    while queue:
        sid = queue.pop(0)
        cid = match[sid]
        if cid >= len(tog.nodes):
            continue
        by_name = {c.local_name: c.node_id for c in tog.nodes[cid].children}
        for c in og.nodes[sid].children:
            if c.local_name in by_name and c.node_id not in match:
                match[c.node_id] = by_name[c.local_name]
                queue.append(c.node_id)
    values = {}
    for vid in var_ids:
        cid = match.get(vid)
        attrs = tog.nodes[cid].attributes if cid is not None and cid < len(tog.nodes) else []
        key = next((a.checkpoint_key for a in attrs if a.name == "VARIABLE_VALUE"), None)
        if key is None:
            if options.allow_partial_checkpoint:
                continue
            raise errors.NotFoundError(None, None, f"variable node {vid} of the SavedModel has "
                                                   "no value in its checkpoint")
        values[vid] = reader.get_tensor(key)
    return values


class _Loader:
    def __init__(self, export_dir: str, mg, options) -> None:
        self.dir, self.mg, self.options = export_dir, mg, options
        self.og = mg.object_graph_def
        self.importer = FunctionImporter(mg.graph_def.library)
        self.objects: dict = {}
        self.concretes: dict = {}

    def gradients(self) -> None:
        """Tells the importer the registered gradient functions and what they capture."""
        for rg in self.mg.graph_def.library.registered_gradients:
            scf = self.og.concrete_functions.get(rg.gradient_func)
            caps = []
            for nid in scf.bound_inputs if scf is not None else ():
                node = self.og.nodes[nid]
                if node.WhichOneof("kind") == "captured_tensor":
                    caps.append(("tensor", node.captured_tensor.name))
                elif isinstance(self.objects.get(nid), Variable):
                    caps.append(("variable", self.objects[nid]))
                else:
                    raise errors.UnimplementedError(
                        None, None, f"gradient function {rg.gradient_func!r} captures node "
                                    f"{nid} ({node.WhichOneof('kind')}), which twinflow does "
                                    "not restore")
            self.importer.gradients[rg.registered_op_type] = (rg.gradient_func, caps)

    def check(self) -> None:
        names = list(self.og.concrete_functions)
        missing = self.importer.missing_ops(names)
        if missing:
            raise errors.NotFoundError(
                None, None, f"Op type not registered '{missing[0]}': the SavedModel's functions "
                            f"use ops twinflow does not have: {missing}")

    def build(self, values: dict):
        nodes = self.og.nodes
        for i, node in enumerate(nodes):  # variables and plain objects first
            kind = node.WhichOneof("kind")
            if kind == "variable":
                self.objects[i] = self._variable(i, node.variable, values)
            elif kind == "asset":
                af = self.mg.asset_file_def[node.asset.asset_file_def_index]
                path = os.path.join(self.dir, opts.ASSETS_DIRECTORY, af.filename)
                if os.path.dirname(os.path.normpath(os.path.abspath(path))) != os.path.abspath(
                        os.path.join(self.dir, opts.ASSETS_DIRECTORY)):
                    raise errors.InvalidArgumentError(None, None, f"asset file name "
                                                                  f"{af.filename!r} leaves "
                                                                  "assets/")
                self.objects[i] = opts.Asset(path)
            elif kind == "constant":   # a tensor captured by functions: a Const of the graph
                self.objects[i] = self._constant(node.constant.operation)
            elif kind in ("function", "bare_concrete_function", "captured_tensor"):
                continue
            else:
                self.objects[i] = self._container(node)
        self.gradients()
        for i, node in enumerate(nodes):
            kind = node.WhichOneof("kind")
            if kind == "function":
                cfs = [self._concrete(n) for n in node.function.concrete_functions]
                spec = decode_structure(node.function.function_spec.fullargspec)
                self.objects[i] = RestoredFunction(self._child_name(i), cfs,
                                                   spec._asdict() if spec else None)
            elif kind == "bare_concrete_function":
                self.objects[i] = self._concrete(node.bare_concrete_function
                                                 .concrete_function_name)
        for i, node in enumerate(nodes):
            obj = self.objects.get(i)
            for c in node.children:
                child = self.objects.get(c.node_id)
                if child is None:
                    continue
                if isinstance(obj, list):
                    obj.append(child)
                elif isinstance(obj, dict):
                    obj[c.local_name] = child
                elif isinstance(obj, Loaded):
                    setattr(obj, c.local_name, child)
        root = self.objects[0]
        if isinstance(root, Loaded) and "signatures" not in vars(root):
            root.signatures = {}
        return root

    def _constant(self, name: str):
        for n in self.mg.graph_def.node:
            if n.name == name and n.op == "Const":
                return constant(tensor_of_proto(n.attr["value"].tensor))
        raise errors.NotFoundError(None, None, f"the SavedModel's constant {name!r} is not a "
                                               "Const node of its graph")

    def _child_name(self, nid: int) -> str:
        for node in self.og.nodes:
            for c in node.children:
                if c.node_id == nid:
                    return c.local_name
        return f"function_{nid}"

    @staticmethod
    def _container(node):
        ident = node.user_object.identifier if node.WhichOneof("kind") == "user_object" else ""
        if ident == "trackable_list_wrapper":
            return []
        if ident in ("trackable_dict_wrapper", "signature_map"):
            return {}
        return Loaded()

    def _variable(self, nid: int, sv, values: dict) -> Variable:
        dt = dtypes.as_dtype(sv.dtype)
        shape = shape_of_proto(sv.shape)
        if nid in values:
            value = np.asarray(values[nid])
            if value.dtype != np.dtype(dt.as_numpy_dtype) or not shape.is_compatible_with(
                    value.shape):
                raise errors.InvalidArgumentError(
                    None, None, f"variable {sv.name!r}: the checkpoint holds "
                                f"{value.dtype}{list(value.shape)}, the SavedModel declares "
                                f"{dt.name}{shape}")
        else:
            value = np.zeros([d or 0 for d in shape.as_list()] if shape.rank is not None
                             else [], dt.as_numpy_dtype)
        return Variable(value, trainable=bool(sv.trainable), name=sv.name or None, dtype=dt)

    def _concrete(self, name: str) -> ConcreteFunction:
        if name in self.concretes:
            return self.concretes[name]
        if name not in self.og.concrete_functions:
            raise errors.NotFoundError(None, None, f"concrete function {name!r} is not in the "
                                                   "SavedModel's object graph")
        scf = self.og.concrete_functions[name]
        args, kwargs = decode_structure(scf.canonicalized_input_signature) or ((), {})
        out_structure = decode_structure(scf.output_signature)
        bound = []
        for nid in scf.bound_inputs:
            obj = self.objects.get(nid)
            if not isinstance(obj, (Variable, EagerTensor)):
                raise errors.UnimplementedError(
                    None, None, f"function {name!r} captures object node {nid} "
                                f"({self.og.nodes[nid].WhichOneof('kind')}), which twinflow "
                                "does not restore (only variables and constants)")
            bound.append(obj)
        fg = FuncGraph(name)
        flat_specs = [s for s in nest.flatten(list(args), True) + nest.flatten(kwargs, True)
                      if isinstance(s, TensorSpec)]   # Python values were traced in
        arg_names = _arg_names(flat_specs, self.importer.fdef(name))
        with graph_mode(fg):
            phs = [fg.add_input(s, n) for s, n in zip(flat_specs, arg_names)]
            caps = [fg.capture(v.handle if isinstance(v, Variable) else v) for v in bound]
            shapes = {id(c): (v.dtype, v.shape) for c, v in zip(caps, bound)
                      if isinstance(v, Variable)}
            outs = self.importer.call(name, phs + caps, shapes)
        fg.structured_input_signature = (tuple(args), dict(kwargs))
        fg.python_signature = [getattr(a, "name", None) or f"arg{i}"
                               for i, a in enumerate(args)] if args else sorted(kwargs)
        flat_out = nest.flatten(out_structure, True)
        it = iter(outs)
        packed = [next(it) if isinstance(s, TensorSpec) else s for s in flat_out]
        fg.structured_outputs = nest.pack_sequence_as(out_structure, packed, True) \
            if out_structure is not None and not isinstance(out_structure, TensorSpec) \
            else (outs[0] if outs else None)
        fg.outputs = list(outs)
        cf = ConcreteFunction(fg, name)
        self.concretes[name] = cf
        return cf


def _arg_names(specs: list, fdef) -> list:
    """A placeholder name per tensor argument: its spec's name, else the FunctionDef's."""
    args = fdef.signature.input_arg
    return [s.name or (args[i].name if i < len(args) else f"arg{i}")
            for i, s in enumerate(specs)]


def load(export_dir, tags=None, options=None):
    """Loads a SavedModel written by ``tw.saved_model.save`` or by TensorFlow.

    Args:
        export_dir: the SavedModel directory.
        tags: the MetaGraph's tags (default: the first MetaGraph).
        options: a ``tw.saved_model.LoadOptions``.

    Returns:
        The root object: its attributes are the saved children, functions and variables;
        ``.signatures`` maps signature keys to concrete functions.

    Raises:
        OSError: no SavedModel in ``export_dir``.
        DataLossError: a corrupt or truncated ``saved_model.pb`` or variables bundle.
        NotFoundError: a function uses an op twinflow lacks (named in the message).
    """
    options = options or opts.LoadOptions()
    export_dir = os.fspath(export_dir)
    sm = read_saved_model(export_dir)
    mg = _meta_graph(sm, tags)
    loader = _Loader(export_dir, mg, options)
    loader.check()
    values = _checkpoint_values(export_dir, mg.object_graph_def, options)
    root = loader.build(values)
    if options.experimental_load_function_aliases and isinstance(root, Loaded):
        aliases = {}
        for fname, alias in mg.meta_info_def.function_aliases.items():
            if fname in loader.concretes:
                aliases.setdefault(alias, []).append(loader.concretes[fname])
        root.function_aliases = {k: v[0] if len(v) == 1 else v for k, v in aliases.items()}
    return root
