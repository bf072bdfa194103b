"""``tw.saved_model.save``: TensorFlow's SavedModel directory.

``saved_model.pb`` holds one MetaGraphDef (tag ``serve``): its GraphDef's library has one
FunctionDef per concrete function (``function_def.py``), its SavedObjectGraph the tracked
objects found from ``obj`` (``tw.Module`` children, variables, ``tw.function`` s with their
concrete functions, the ``signatures`` map, assets), its SignatureDefs the signatures as
TensorFlow Serving reads them (placeholders and a ``StatefulPartitionedCall`` per signature in
the GraphDef). ``variables/`` is a tensor-bundle checkpoint keyed by object path, with the
``_CHECKPOINTABLE_OBJECT_GRAPH``. The whole directory is written atomically.
"""
from __future__ import annotations

import hashlib
import inspect
import os
import shutil
import uuid

import numpy as np

from ..core import nest
from ..core.context import graph_mode
from ..core.files import atomic_dir, atomic_write
from ..eager.execute import bind
from ..eager.func_graph import FuncGraph, TensorSpec
from ..eager.tensor import EagerTensor
from ..function.function import ConcreteFunction, Function
from ..graph.graph_def import GRAPH_DEF_VERSION, fill_attr, fill_shape
from ..graph.tensor import Tensor
from ..ops.core import ZerosLike
from ..ops.variables import Variable, variable_of
from . import options as opts
from .bundle import write_bundle
from .function_def import Library, unique_name
from .protos import saved_model_message
from .saver_def import add_saver
from .structure import encode_structure

__all__ = ["save", "find_signatures"]

VALUE_SUFFIX = "/.ATTRIBUTES/VARIABLE_VALUE"
OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"
_SKIPPED_FUNCTIONS = {"train_function", "test_function", "predict_function",
                      "train_step", "test_step", "predict_step"}


def _functions_of(obj) -> dict:
    """The ``tw.function`` s and ConcreteFunctions reachable as attributes of ``obj``."""
    out: dict = {}
    for cls in reversed(type(obj).__mro__):
        for name, value in vars(cls).items():
            if isinstance(value, Function) and name not in _SKIPPED_FUNCTIONS:
                out[name] = getattr(obj, name)
    for name, value in vars(obj).items() if hasattr(obj, "__dict__") else ():
        if name.startswith("_") or name in _SKIPPED_FUNCTIONS:
            continue
        if isinstance(value, (Function, ConcreteFunction)):
            out[name] = value
    return out


def _children(obj) -> dict:
    """name -> child for one object (paths ``a/0`` become nested containers)."""
    out: dict = {}
    if isinstance(obj, (Variable, opts.Asset)):
        return out
    if isinstance(obj, _Container):
        return dict(obj.items)
    if isinstance(obj, opts.TrackableResource):
        raise ValueError(f"{type(obj).__name__}: saving a TrackableResource in a SavedModel "
                         "is not supported by twinflow")
    tree: dict = {}
    for path, child in (obj._trackable_children() if hasattr(obj, "_trackable_children")
                        else {}).items():
        parts = str(path).split("/")
        node = tree
        for p in parts[:-1]:
            node = node.setdefault(p, {})
        node[parts[-1]] = child
    for k, v in tree.items():
        out[k] = _Container.of(v) if isinstance(v, dict) else v
    for k, f in _functions_of(obj).items():
        out.setdefault(k, f)
    return out



def _saved_variable(var):
    """The variable a captured handle saves as: a tw.distribute copy saves as its mirrored
    variable (the tracked object; its value is the copies' common value)."""
    container = getattr(var, "_tw_container", None)
    return var if container is None else container

class _Container:
    """A list or dict on the path to tracked objects (TensorFlow's list/dict wrappers)."""

    def __init__(self, items: dict, kind: str) -> None:
        self.items, self.kind = items, kind

    @classmethod
    def of(cls, tree: dict):
        items = {k: cls.of(v) if isinstance(v, dict) else v for k, v in tree.items()}
        is_list = all(k.isdigit() for k in items)
        return cls(items, "trackable_list_wrapper" if is_list else "trackable_dict_wrapper")


class _Saver:
    def __init__(self, root, signatures, options: opts.SaveOptions) -> None:
        self.root, self.options = root, options
        self.sm = saved_model_message("SavedModel")()
        self.mg = self.sm.meta_graphs.add()
        self.og = self.mg.object_graph_def
        self.library = Library(self.mg.graph_def.library, self._custom_gradient)
        self.objects: list = []      # node id -> object
        self.ids: dict = {}          # id(object) -> node id
        self.paths: dict = {}        # node id -> checkpoint path
        self.concrete_names: dict = {}  # id(ConcreteFunction) -> function name
        self.assets: list = []       # (source path, file name)
        self.signatures = signatures
        self.extra: dict = {}     # more children of the root
        self.var_nodes: dict = {}  # id(variable) -> its VarHandleOp node's name

    # ----- the object graph -----
    def walk(self) -> None:
        self._node(self.root, "")
        i = 0
        while i < len(self.objects):
            obj = self.objects[i]
            if isinstance(obj, (Function, ConcreteFunction)):
                i += 1
                continue
            children = _children(obj)
            if i == 0:
                children.update(self.extra)
            for name, child in children.items():
                if not isinstance(child, (Variable, Function, ConcreteFunction, _Container,
                                          opts.Asset)) and \
                        not hasattr(child, "_trackable_children"):
                    continue
                cid = self._node(child, f"{self.paths[i]}/{name}" if self.paths[i] else name)
                self.og.nodes[i].children.add(node_id=cid, local_name=str(name))
            i += 1

    def _node(self, obj, path: str) -> int:
        if id(obj) in self.ids:
            return self.ids[id(obj)]
        nid = len(self.objects)
        self.ids[id(obj)] = nid
        self.objects.append(obj)
        self.paths[nid] = path
        self.og.nodes.add()
        return nid

    def fill_nodes(self) -> None:
        for nid, obj in enumerate(list(self.objects)):
            node = self.og.nodes[nid]
            if isinstance(obj, Variable):
                v = node.variable
                v.dtype = obj.dtype.as_datatype_enum
                fill_shape(v.shape, obj.shape)
                v.trainable = bool(obj.trainable)
                v.name = str(obj.name).split(":")[0]
            elif isinstance(obj, Function):
                self._function(node, obj)
            elif isinstance(obj, ConcreteFunction):
                self._bare(node, obj, self._concrete(obj))
            elif isinstance(obj, opts.Asset):
                node.asset.asset_file_def_index = self._asset(obj)
            else:
                ident = obj.kind if isinstance(obj, _Container) else "_generic_user_object"
                node.user_object.identifier = ident
                node.user_object.version.producer = 1
                node.user_object.version.min_consumer = 1

    def _asset(self, asset) -> int:
        name = os.path.basename(asset._path)
        if not os.path.isfile(asset._path):
            raise ValueError(f"tw.saved_model.Asset: {asset._path!r} is not a file")
        taken = {n for _, n in self.assets}
        base, i = name, 0
        while name in taken:
            i += 1
            name = f"{i}_{base}"
        self.assets.append((asset._path, name))
        af = self.mg.asset_file_def.add(filename=name)
        af.tensor_info.name = f"asset_path_{len(self.assets) - 1}:0"
        return len(self.mg.asset_file_def) - 1

    def _function(self, node, fn: Function) -> None:
        f = node.function
        concretes = [cf for _, cf in fn._concretes]
        if not concretes and fn.input_signature is not None:
            concretes = [fn.get_concrete_function()]
        for cf in concretes:
            f.concrete_functions.append(self._concrete(cf))
        self._spec(f.function_spec, concretes[0] if concretes else None, fn.input_signature,
                   python_function=fn.python_function)

    def _spec(self, spec, cf, input_signature, kw_only: bool = False,
              python_function=None) -> None:
        names = [] if cf is None else _signature_names(cf) if kw_only else \
            list(cf.graph.python_signature or [])
        fields = {"args": [] if kw_only else names, "varargs": None, "varkw": None,
                  "defaults": None, "kwonlyargs": names if kw_only else [],
                  "kwonlydefaults": None, "annotations": {}}
        if python_function is not None:
            fields.update(_argspec(python_function))
        fa = spec.fullargspec.named_tuple_value
        fa.name = "FullArgSpec"
        for key, value in fields.items():
            encode_structure(value, fa.values.add(key=key).value)
        encode_structure(tuple(input_signature) if input_signature is not None else None,
                         spec.input_signature)

    def _bare(self, node, cf, name: str, kw_only: bool = False) -> None:
        b = node.bare_concrete_function
        b.concrete_function_name = name
        names = _signature_names(cf) if kw_only else list(cf.graph.python_signature or [])
        b.argument_keywords.extend(names)
        b.allowed_positional_arguments = 0 if kw_only else len(names)
        self._spec(b.function_spec, cf, None, kw_only)

    def _concrete(self, cf: ConcreteFunction, signature_outputs: list | None = None,
                  key: str | None = None) -> str:
        cache = (id(cf), key)
        if cache in self.concrete_names:
            return self.concrete_names[cache]
        fg = cf.graph
        n_args = len(fg.inputs) - len(fg.captures)
        bound, handle_data, constants = [], [None] * n_args, {}
        for outer, ph in fg.captures:
            var = _saved_variable(getattr(outer, "_value", None))
            if isinstance(var, Variable):
                if id(var) not in self.ids:
                    raise ValueError(
                        f"tw.saved_model.save: function {cf.name!r} uses variable "
                        f"{var.name!r}, which is not tracked by the object being saved; "
                        "assign it to an attribute of a tracked tw.Module")
                bound.append(self.ids[id(var)])
                handle_data.append((var.dtype, var.shape))
            elif isinstance(outer, EagerTensor) and outer.dtype.name != "resource":
                constants[ph.op.name] = np.asarray(outer._value)
                handle_data.append(None)
            else:
                raise ValueError(f"tw.saved_model.save: function {cf.name!r} captures "
                                 f"{outer!r}, which a SavedModel cannot hold")
        base = f"__inference_{key}_signature_wrapper" if key else f"__inference_{cf.name}"
        order = _signature_order(cf) if key else None
        name = self.library.add(fg, self.library.unique(base), handle_data,
                                outputs=signature_outputs, constants=constants,
                                role=key, input_order=order)
        self.concrete_names[cache] = name
        c = self.og.concrete_functions[name]
        c.bound_inputs.extend(bound)
        args, kwargs = fg.structured_input_signature
        if key:
            names = list(fg.python_signature or [])
            flat = [s for s in nest.flatten(list(args), True) + nest.flatten(kwargs, True)
                    if isinstance(s, TensorSpec)]
            kw = {n: TensorSpec(s.shape, s.dtype, n) for n, s in zip(_flat_names(names, flat),
                                                                    flat)}
            encode_structure(((), kw), c.canonicalized_input_signature)
            keys, outs = _signature_dict(cf)
            encode_structure({k: TensorSpec(t.shape, t.dtype, k) for k, t in zip(keys, outs)},
                             c.output_signature)
        else:
            encode_structure((tuple(args), dict(kwargs)), c.canonicalized_input_signature)
            encode_structure(nest.map_structure(
                lambda t: TensorSpec(t.shape, t.dtype) if isinstance(t, Tensor) else t,
                fg.structured_outputs), c.output_signature)
        return name

    def _custom_gradient(self, op, forward: str, args: dict) -> str | None:
        """Traces the gradient of a ``tw.custom_gradient`` op as TensorFlow saves one: a
        function of the output gradients whose captures are tensors of the forward function
        (``captured_tensor`` nodes) or variables, registered under a new op type."""
        if not self.options.experimental_custom_gradients:
            return None
        kind = self.library.unique("CustomGradient")
        ins = op.inputs
        gg = FuncGraph(f"{kind}_grad")
        with graph_mode(gg):
            specs = [TensorSpec(variable_of(t).shape, variable_of(t).dtype)
                     if t.dtype.name == "resource" else TensorSpec(t.shape, t.dtype) for t in ins]
            dys = [gg.add_input(sp, f"dy_{i}") for i, sp in enumerate(specs)]
            grads = op.attrs["grad_fn"](op, dys[:op.attrs["n_out"]])
            outs = [bind(ZerosLike, [dys[i]]) if g is None else
                    g if getattr(g, "graph", None) is gg else gg.capture(g)
                    for i, g in enumerate(grads)]
        gg.outputs = outs
        gg.structured_outputs = tuple(outs)
        bound, handle_data, constants = [], [None] * len(dys), {}
        for outer, ph in gg.captures:
            var = _saved_variable(variable_of(outer) if outer.dtype.name == "resource"
                                  else None)
            if isinstance(var, Variable) and id(var) in self.ids:
                bound.append(self.ids[id(var)])
                handle_data.append((var.dtype, var.shape))
            elif isinstance(outer, EagerTensor) and outer.dtype.name != "resource":
                constants[ph.op.name] = np.asarray(outer._value)
                handle_data.append(None)
            elif isinstance(outer, Tensor) and not isinstance(outer, EagerTensor):
                nid = self._node(_Captured(), "")
                ct = self.og.nodes[nid].captured_tensor
                src = outer.op.name
                index = outer.value_index + (2 if outer.op.type.endswith("While") else 0)
                ct.name = f"{args.get(src, src)}:{index}"
                ct.concrete_function = forward
                bound.append(nid)
                handle_data.append(None)
            else:
                raise ValueError(f"the gradient of {op.name} (tw.custom_gradient) captures "
                                 f"{outer!r}, which a SavedModel cannot hold")
        name = self.library.add(gg, self.library.unique(f"__inference_{kind}_grad"),
                                handle_data, constants=constants)
        c = self.og.concrete_functions[name]
        c.bound_inputs.extend(bound)
        encode_structure((tuple(specs), {}), c.canonicalized_input_signature)
        encode_structure(tuple(TensorSpec(t.shape, t.dtype) for t in outs), c.output_signature)
        self.mg.graph_def.library.registered_gradients.add(gradient_func=name,
                                                          registered_op_type=kind)
        return kind

    # ----- signatures -----
    def add_signatures(self) -> None:
        sig_map_id = self._node(_SignatureMap(), "")
        node = self.og.nodes[sig_map_id]
        node.user_object.identifier = "signature_map"
        node.user_object.version.producer = 1
        node.user_object.version.min_consumer = 1
        self.og.nodes[0].children.add(node_id=sig_map_id, local_name="signatures")
        gd = self.mg.graph_def
        described: set = set()   # one function under two keys is one node, described once
        for key, cf in sorted(self.signatures.items()):
            keys, outs = _signature_dict(cf)
            name = self._concrete(cf, outs, key)
            nid = self._node(cf, "")
            if nid not in described:
                described.add(nid)
                self._bare(self.og.nodes[nid], cf, name, kw_only=True)
            node.children.add(node_id=nid, local_name=key)
            self._signature_def(gd, key, cf, name, keys, outs)

    def _var_node(self, var) -> str:
        """The name of the graph's ``VarHandleOp`` node of ``var`` (added on first use): the
        signatures' calls and the restore op share it."""
        if id(var) not in self.var_nodes:
            gd = self.mg.graph_def
            taken = {n.name for n in gd.node}
            name = base = self.paths[self.ids[id(var)]].replace("/", "_") or "var"
            while name in taken:
                name = f"{base}_{len(taken)}"
                taken.add(name)
            vn = gd.node.add(name=name, op="VarHandleOp")
            fill_attr(vn.attr["dtype"], var.dtype)
            fill_attr(vn.attr["shape"], var.shape)
            vn.attr["shared_name"].s = vn.name.encode()
            self.var_nodes[id(var)] = vn.name
        return self.var_nodes[id(var)]

    def add_saver(self, tensors: dict) -> None:
        """The ``saver_def`` and its save/restore nodes (``saver_def.py``)."""
        variables = [(_escape(self.paths[nid]) + VALUE_SUFFIX, self._var_node(obj), obj.dtype)
                     for nid, obj in enumerate(self.objects) if isinstance(obj, Variable)]
        add_saver(self.mg, variables, (OBJECT_GRAPH_KEY, tensors[OBJECT_GRAPH_KEY].item()))

    def _signature_def(self, gd, key, cf, fname, keys, outs) -> None:
        fg = cf.graph
        sd = self.mg.signature_def[key]
        sd.method_name = opts.PREDICT_METHOD_NAME
        n_args = len(fg.inputs) - len(fg.captures)
        names = _flat_names(list(fg.python_signature or []), fg.inputs[:n_args])
        call_inputs = []
        order = _signature_order(cf)[:n_args]
        for n, t in [(names[i], fg.inputs[i]) for i in order]:
            ph = gd.node.add(name=f"{key}_{n}", op="Placeholder")
            fill_attr(ph.attr["dtype"], t.dtype)
            fill_attr(ph.attr["shape"], t.shape)
            info = sd.inputs[n]
            info.name, info.dtype = ph.name + ":0", t.dtype.as_datatype_enum
            fill_shape(info.tensor_shape, t.shape)
            call_inputs.append(ph.name)
        tin = [fg.inputs[i].dtype for i in order]
        for outer, ph in fg.captures:   # constants are Const nodes of the function
            var = _saved_variable(getattr(outer, "_value", None))
            if isinstance(var, Variable):
                call_inputs.append(self._var_node(var))
                tin.append(ph.dtype)
        call = gd.node.add(name=f"StatefulPartitionedCall_{key}" if key !=
                           opts.DEFAULT_SERVING_SIGNATURE_DEF_KEY else "StatefulPartitionedCall",
                           op="StatefulPartitionedCall")
        call.input.extend(call_inputs)
        fill_attr(call.attr["Tin"], tin)
        fill_attr(call.attr["Tout"], [t.dtype for t in outs])
        call.attr["f"].func.name = fname
        for i, (k, t) in enumerate(zip(keys, outs)):
            info = sd.outputs[k]
            info.name, info.dtype = f"{call.name}:{i}", t.dtype.as_datatype_enum
            fill_shape(info.tensor_shape, t.shape)

    # ----- writing -----
    def variables(self) -> dict:
        tog = saved_model_message("TrackableObjectGraph")()
        tensors = {}
        for nid, obj in enumerate(self.objects):
            tnode = tog.nodes.add()
            if isinstance(obj, _Captured):
                continue
            for ref in self.og.nodes[nid].children:
                tnode.children.add(node_id=ref.node_id, local_name=ref.local_name)
            if isinstance(obj, Variable):
                key = _escape(self.paths[nid]) + VALUE_SUFFIX
                tnode.attributes.add(name="VARIABLE_VALUE", checkpoint_key=key,
                                     full_name=str(obj.name).split(":")[0])
                tensors[key] = np.asarray(obj.numpy())
        tensors[OBJECT_GRAPH_KEY] = np.array(tog.SerializeToString(), dtype=object)
        return tensors

    def finish(self, tags: list) -> bytes:
        info = self.mg.meta_info_def
        info.tags.extend(tags)
        info.tensorflow_version = "2.21.0"
        info.tensorflow_git_version = "twinflow"  # who wrote it
        info.meta_graph_version = "twinflow"
        for alias, fn in self.options.function_aliases.items():
            cfs = [cf for _, cf in fn._concretes] if isinstance(fn, Function) else [fn]
            for cf in cfs:
                for (cid, key), name in self.concrete_names.items():
                    if cid == id(cf) and key is None:
                        info.function_aliases[name] = alias
        self.mg.graph_def.versions.producer = GRAPH_DEF_VERSION
        self.mg.graph_def.versions.min_consumer = 12
        self.sm.saved_model_schema_version = opts.SAVED_MODEL_SCHEMA_VERSION
        return self.sm.SerializeToString()


def _argspec(fn) -> dict:
    """The FullArgSpec fields of a Python function (``self`` left out of a method); defaults
    that a SavedModel cannot hold are left out."""
    try:
        spec = inspect.getfullargspec(fn)
    except TypeError:
        return {}
    args = list(spec.args[1:] if inspect.ismethod(fn) else spec.args)
    out = {"args": args, "varargs": spec.varargs, "varkw": spec.varkw,
           "kwonlyargs": list(spec.kwonlyargs)}
    simple = (type(None), bool, int, float, str)
    if spec.defaults and all(isinstance(d, simple) for d in spec.defaults):
        out["defaults"] = tuple(spec.defaults)
    if spec.kwonlydefaults and all(isinstance(d, simple) for d in spec.kwonlydefaults.values()):
        out["kwonlydefaults"] = dict(spec.kwonlydefaults)
    return out


class _SignatureMap:
    """The ``signatures`` node of the object graph."""


class _Captured:
    """A ``captured_tensor`` node: a forward tensor that a gradient function uses."""


def _escape(path: str) -> str:
    # TensorFlow escapes '.' in object names; '/' separates them.
    return "/".join(p.replace(".", "..") for p in path.split("/"))


def _flat_names(names: list, flat: list) -> list:
    """The keyword names of a signature's tensor inputs (TensorSpecs or placeholders): the
    name each was given (its TensorSpec's), else its parameter's, else ``input_i``; unique."""
    out: list = []
    for i, t in enumerate(flat):
        given = t.name if isinstance(t, TensorSpec) else \
            t.op.attrs.get("_user_specified_name") if hasattr(t, "op") else None
        out.append(unique_name(str(given or (names[i] if i < len(names) else "")
                                   or f"input_{i}"), out))
    return out


def _signature_names(cf) -> list:
    """The keyword names of a signature's inputs, in the order of the graph's inputs."""
    fg = cf.graph
    n_args = len(fg.inputs) - len(fg.captures)
    return _flat_names(list(fg.python_signature or []), fg.inputs[:n_args])


def _signature_order(cf) -> list:
    """A signature takes its inputs as keyword arguments, in sorted order; then the
    captures."""
    fg = cf.graph
    n_args = len(fg.inputs) - len(fg.captures)
    names = _flat_names(list(fg.python_signature or []), fg.inputs[:n_args])
    return sorted(range(n_args), key=lambda i: names[i]) + list(range(n_args, len(fg.inputs)))


def _signature_dict(cf) -> tuple:
    """(sorted output keys, output tensors) of a signature: a dict is kept, a tensor is
    ``output_0``, a tuple/list ``output_i``."""
    so = cf.graph.structured_outputs
    if isinstance(so, dict):
        items = {str(k): v for k, v in so.items()}
    elif isinstance(so, (list, tuple)):
        items = {f"output_{i}": v for i, v in enumerate(so)}
    else:
        items = {"output_0": so}
    for k, v in items.items():
        if not isinstance(v, Tensor):
            raise ValueError(f"a signature's outputs must be tensors (a dict of them); "
                             f"output {k!r} is {v!r}")
    keys = sorted(items)
    return keys, [items[k] for k in keys]


def find_signatures(obj, signatures) -> dict:
    """The signatures to save: key -> ConcreteFunction.

    Args:
        obj: the object being saved.
        signatures: None (the one ``tw.function`` of ``obj`` with an input_signature, if
            exactly one), a tw.function/ConcreteFunction (``serving_default``), or a dict.

    Returns:
        key -> ConcreteFunction.
    """
    if signatures is None:
        found = [f for f in _functions_of(obj).values()
                 if isinstance(f, Function) and f.input_signature is not None]
        return {opts.DEFAULT_SERVING_SIGNATURE_DEF_KEY: found[0].get_concrete_function()} \
            if len(found) == 1 else {}
    if not isinstance(signatures, dict):
        signatures = {opts.DEFAULT_SERVING_SIGNATURE_DEF_KEY: signatures}
    out = {}
    for key, fn in signatures.items():
        if isinstance(fn, Function):
            if fn.input_signature is None and not fn._concretes:
                raise ValueError(f"signature {key!r}: a tw.function given as a signature needs "
                                 "an input_signature (or pass fn.get_concrete_function(...))")
            fn = fn.get_concrete_function()
        if not isinstance(fn, ConcreteFunction):
            raise ValueError(f"signature {key!r} must be a tw.function or a ConcreteFunction, "
                             f"got {type(fn).__name__}")
        out[str(key)] = fn
    return out


def save(obj, export_dir: str, signatures=None, options=None) -> None:
    """Writes ``obj`` as a SavedModel (TensorFlow's format) to the directory ``export_dir``.

    Args:
        obj: a trackable object (``tw.Module``, a Keras model, or any object with
            ``_trackable_children``).
        export_dir: the directory; it is replaced as a whole, atomically.
        signatures: the serving signatures: a tw.function with an input_signature, a
            ConcreteFunction, or a dict key -> either (default: see ``find_signatures``).
        options: a ``tw.saved_model.SaveOptions``.

    Raises:
        ValueError: something reachable cannot be saved (an untracked variable, a Python
            object in a signature).
    """
    options = options or opts.SaveOptions()
    if not hasattr(obj, "_trackable_children"):
        raise ValueError(f"Expected an object of type `Trackable`, such as `tw.Module` or a "
                         f"subclass of the `Trackable` class, for export. Got {obj!r} with "
                         f"type {type(obj)}.")
    hook = getattr(obj, "_default_save_signature", None)
    extra = {}
    if signatures is None and callable(hook):   # a Keras model: its serving function
        extra["serve"] = signatures = hook()
    s = _Saver(obj, find_signatures(obj, signatures), options)
    s.extra = extra
    s.walk()
    s.fill_nodes()
    s.add_signatures()
    tensors = s.variables()
    s.add_saver(tensors)
    data = s.finish([opts.SERVING] + list(options.extra_tags))
    fp = saved_model_message("FingerprintDef")()
    fp.saved_model_checksum = _hash(data)
    fp.graph_def_program_hash = _hash(s.mg.graph_def.SerializeToString(deterministic=True))
    fp.signature_def_hash = _hash(b"".join(
        k.encode() + v.SerializeToString(deterministic=True)
        for k, v in sorted(s.mg.signature_def.items())))
    fp.saved_object_graph_hash = _hash(s.og.SerializeToString(deterministic=True))
    fp.uuid = str(uuid.uuid4())
    fp.version.producer = 1
    with atomic_dir(export_dir) as tmp:
        os.makedirs(os.path.join(tmp, opts.VARIABLES_DIRECTORY))
        os.makedirs(os.path.join(tmp, opts.ASSETS_DIRECTORY))
        prefix = os.path.join(tmp, opts.VARIABLES_DIRECTORY, opts.VARIABLES_FILENAME)
        write_bundle(prefix, tensors)
        with open(prefix + ".index", "rb") as f:
            fp.checkpoint_hash = _hash(f.read())
        for src, name in s.assets:
            shutil.copyfile(src, os.path.join(tmp, opts.ASSETS_DIRECTORY, name))
        atomic_write(os.path.join(tmp, opts.SAVED_MODEL_FILENAME_PB), data)
        atomic_write(os.path.join(tmp, opts.FINGERPRINT_FILENAME), fp.SerializeToString())


def _hash(data: bytes) -> int:
    return int.from_bytes(hashlib.sha256(data).digest()[:8], "little")

