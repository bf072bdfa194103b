"""``twinflow inspect DIR``: a SavedModel's signatures and functions, printed as TensorFlow's
``saved_model_cli show --all`` prints them (read from the protobuf only: nothing is loaded or
run)."""
from __future__ import annotations

import os
from collections.abc import Callable

from ..core import dtypes
from ..graph.graph_def import dt_name, shape_of_proto
from .load import read_saved_model
from .structure import decode_structure

__all__ = ["show_all"]


def _shape(proto) -> str:
    shape = shape_of_proto(proto)
    if shape.rank is None:
        return "unknown_rank"
    dims = [-1 if d is None else d for d in shape.as_list()]
    return "(" + ", ".join(str(d) for d in dims) + ("," if len(dims) == 1 else "") + ")"


def _tensor_info(out, kind: str, key: str, info) -> None:
    out(f"    {kind}['{key}'] tensor_info:")
    out(f"        dtype: {dt_name(dtypes.as_dtype(info.dtype)) if info.dtype else 'DT_INVALID'}")
    out(f"        shape: {_shape(info.tensor_shape)}")
    out(f"        name: {info.name}")


def _spec_text(s) -> str:
    if hasattr(s, "shape") and hasattr(s, "dtype"):
        dims = s.shape.as_list() if s.shape.rank is not None else None
        shape = "None" if dims is None else "(" + ", ".join(str(d) for d in dims) + \
            ("," if len(dims) == 1 else "") + ")"
        return f"TensorSpec(shape={shape}, dtype=tf.{s.dtype.name}, name={s.name!r})"
    return repr(s)


def show_all(export_dir: str, out: Callable[[str], None] = print) -> None:
    """Prints every MetaGraph's SignatureDefs, its ops and the saved functions' signatures.

    Args:
        export_dir: the SavedModel directory.
        out: where each line goes.
    """
    sm = read_saved_model(os.fspath(export_dir))
    for mg in sm.meta_graphs:
        tags = ", ".join(mg.meta_info_def.tags)
        out("")
        out(f"MetaGraphDef with tag-set: '{tags}' contains the following SignatureDefs:")
        for key in sorted(mg.signature_def):
            sd = mg.signature_def[key]
            out("")
            out(f"signature_def['{key}']:")
            out("  The given SavedModel SignatureDef contains the following input(s):")
            for k in sorted(sd.inputs):
                _tensor_info(out, "inputs", k, sd.inputs[k])
            out("  The given SavedModel SignatureDef contains the following output(s):")
            for k in sorted(sd.outputs):
                _tensor_info(out, "outputs", k, sd.outputs[k])
            out(f"  Method name is: {sd.method_name}")
        ops = sorted({n.op for n in mg.graph_def.node} |
                     {n.op for f in mg.graph_def.library.function for n in f.node_def})
        out(f"The MetaGraph with tag set {list(mg.meta_info_def.tags)} contains the "
            f"following ops: {set(ops) if ops else '{}'}")
        _functions(mg, out)


def _functions(mg, out) -> None:
    og = mg.object_graph_def
    names = {c.node_id: c.local_name for n in og.nodes for c in n.children}
    listed = False
    for nid, node in enumerate(og.nodes):
        if node.WhichOneof("kind") != "function" or not node.function.concrete_functions:
            continue
        if not listed:
            out("")
            out("Concrete Functions:")
            listed = True
        out(f"  Function Name: '{names.get(nid, nid)}'")
        for i, cname in enumerate(node.function.concrete_functions):
            scf = og.concrete_functions[cname]
            args, kwargs = decode_structure(scf.canonicalized_input_signature) or ((), {})
            out(f"    Option #{i + 1}")
            out("      Callable with:")
            for j, a in enumerate(args):
                out(f"        Argument #{j + 1}")
                text = _spec_text(a)
                name = getattr(a, "name", None)
                out(f"          {name}: {text}" if name else f"          {text}")
            for k in sorted(kwargs):
                out(f"        Named Argument #{k}")
                out(f"          {k}: {_spec_text(kwargs[k])}")
