"""``tw.io.write_graph``: a GraphDef to a file, in the text or the binary format."""
from __future__ import annotations

import os

from ..graph.graph import Graph
from .atomic import write_atomic


def write_graph(graph_or_graph_def, logdir: str, name: str, as_text: bool = True) -> str:
    """Writes a graph's GraphDef to ``logdir/name``, atomically.

    Args:
        graph_or_graph_def: a ``tw.Graph`` or a GraphDef message (twinflow's or
            TensorFlow's).
        logdir: the folder (created if needed).
        name: the file name.
        as_text: TensorFlow's text format if True, else the binary protobuf.

    Returns:
        The path written.
    """
    gd = graph_or_graph_def.as_graph_def() if isinstance(graph_or_graph_def, Graph) \
        else graph_or_graph_def
    if not hasattr(gd, "SerializeToString"):
        raise TypeError(f"write_graph needs a Graph or a GraphDef, got {type(gd).__name__}")
    os.makedirs(os.fspath(logdir), exist_ok=True)
    path = os.path.join(os.fspath(logdir), name)
    write_atomic(path, str(gd).encode() if as_text else gd.SerializeToString())
    return path
