"""The MetaGraphDef's ``saver_def`` and the save/restore nodes it names.

TensorFlow's C++/TF1 loader (what TensorFlow Serving runs) never reads the object graph: it
feeds the checkpoint prefix ``variables/variables`` to ``saver_def.filename_tensor_name`` and
runs ``saver_def.restore_op_name``, which must assign every variable from the tensor bundle.
twinflow writes these as plain nodes of the GraphDef, the way ``tf.compat.v1.train.Saver``
(version V2, not sharded) does: a string ``saver_filename`` placeholder; ``SaveV2`` of every
variable (read with ``ReadVariableOp``) and of the ``_CHECKPOINTABLE_OBJECT_GRAPH``, whose
output tensor is the prefix after the save; ``RestoreV2`` of every variable's checkpoint key
(``<path>/.ATTRIBUTES/VARIABLE_VALUE``, the keys of the object graph), one
``AssignVariableOp`` per variable into the same ``VarHandleOp`` node the signatures call with,
and a ``NoOp`` that waits for all of them. TensorFlow's own SavedModels hold the same steps
inside two library functions called with ``StatefulPartitionedCall``; plain nodes keep the
library free of ops (``SaveV2``, ``RestoreV2``) that twinflow's loader has no kernel for.
"""
from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.shapes import TensorShape
from ..graph.graph_def import fill_attr

__all__ = ["add_saver", "SAVER_V2", "FILENAME_NODE"]

SAVER_V2 = 2          # SaverDef.CheckpointFormatVersion.V2
FILENAME_NODE = "saver_filename"


def add_saver(mg, variables: list, object_graph: tuple) -> None:
    """Adds the save/restore nodes to ``mg.graph_def`` and fills ``mg.saver_def``.

    Args:
        mg: the MetaGraphDef being written.
        variables: ``(checkpoint key, VarHandleOp node name, DType)`` per variable.
        object_graph: ``(key, serialized TrackableObjectGraph)``, which the save op writes
            too.
    """
    gd = mg.graph_def
    taken = {n.name for n in gd.node}

    def node(name: str, op: str, inputs=(), **attrs):
        base, i = name, 0
        while name in taken:
            i += 1
            name = f"{base}_{i}"
        taken.add(name)
        n = gd.node.add(name=name, op=op)
        n.input.extend(inputs)
        for k, v in attrs.items():
            fill_attr(n.attr[k], v)
        return n

    def strings(name: str, values: list):
        return node(name, "Const", dtype=dtypes.string,
                    value=np.array([v.encode() for v in values], dtype=object)).name

    prefix = node(FILENAME_NODE, "Placeholder", dtype=dtypes.string, shape=TensorShape([])).name
    keys = [k for k, _, _ in variables]
    reads = [node(f"saver/Read_{i}", "ReadVariableOp", [h], dtype=dt).name
             for i, (_, h, dt) in enumerate(variables)]
    graph_key, graph_bytes = object_graph
    graph = node("saver/object_graph", "Const", dtype=dtypes.string,
                 value=np.array(graph_bytes, dtype=object)).name
    save = node("saver/SaveV2", "SaveV2",
                [prefix, strings("saver/SaveV2/tensor_names", keys + [graph_key]),
                 strings("saver/SaveV2/shape_and_slices", [""] * (len(keys) + 1)),
                 *reads, graph],
                dtypes=[dt for _, _, dt in variables] + [dtypes.string])
    saved = node("saver/control_dependency", "Identity", [prefix, "^" + save.name],
                 T=dtypes.string)
    assigns = []
    if variables:
        restore = node("saver/RestoreV2", "RestoreV2",
                       [prefix, strings("saver/RestoreV2/tensor_names", keys),
                        strings("saver/RestoreV2/shape_and_slices", [""] * len(keys))],
                       dtypes=[dt for _, _, dt in variables])
        assigns = [node(f"saver/Assign_{i}", "AssignVariableOp",
                        [h, f"{restore.name}:{i}"], dtype=dt).name
                   for i, (_, h, dt) in enumerate(variables)]
    restore_all = node("saver/restore_all", "NoOp", ["^" + a for a in assigns])
    sd = mg.saver_def
    sd.filename_tensor_name = prefix + ":0"
    sd.save_tensor_name = saved.name + ":0"
    sd.restore_op_name = restore_all.name
    sd.version = SAVER_V2
    sd.sharded = False

