"""``keras.utils.model_to_dot`` / ``plot_model``: a model's layer graph as Graphviz DOT text,
written without pydot; rendering it to an image runs Graphviz's ``dot`` program (a clear
error when it is not installed). ``plot_model(..., to_file="model.dot")`` needs nothing."""
from __future__ import annotations

import html
import os
import shutil
import subprocess

from ...core.files import atomic_write


class DotGraph:
    """A DOT graph (the part of ``pydot.Dot`` that Keras users call).

    Args:
        name: the graph name.
        attrs: graph attributes.
    """

    def __init__(self, name: str = "G", attrs: dict | None = None) -> None:
        self.name = name
        self.attrs = dict(attrs or {})
        self.nodes: list = []  # (id, attrs)
        self.edges: list = []  # (src, dst)
        self.subgraphs: list = []

    def add_node(self, node_id: str, **attrs) -> None:
        """Adds a node.

        Args:
            node_id: its id.
            **attrs: DOT attributes (label, shape...).

        Returns:
            None.
        """
        self.nodes.append((node_id, attrs))

    def add_edge(self, src: str, dst: str) -> None:
        """Adds an edge.

        Args:
            src: the source node id.
            dst: the destination node id.

        Returns:
            None.
        """
        self.edges.append((src, dst))

    def to_string(self) -> str:
        """The DOT source.

        Returns:
            The text.
        """
        return "\n".join(self._lines("digraph")) + "\n"

    def _lines(self, kind: str) -> list:
        out = [f'{kind} "{self.name}" {{']
        out += [f"  {k}={_quote(v)};" for k, v in self.attrs.items()]
        out.append('  node [shape="record"];')
        for sub in self.subgraphs:
            out += ["  " + line for line in sub._lines("subgraph")]
        for nid, attrs in self.nodes:
            a = ", ".join(f"{k}={_quote(v)}" for k, v in attrs.items())
            out.append(f'  "{nid}" [{a}];')
        out += [f'  "{s}" -> "{d}";' for s, d in self.edges]
        out.append("}")
        return out

    def create(self, prog: str = "dot", format: str = "png") -> bytes:  # noqa: A002
        """The graph rendered by Graphviz (``prog`` must be on the PATH).

        Args:
            prog: the Graphviz program.
            format: the output format (png, svg, pdf...).

        Returns:
            The rendered bytes.
        """
        exe = shutil.which(prog)
        if exe is None:
            raise ImportError(f"You must install graphviz (see instructions at "
                              f"https://graphviz.gitlab.io/download/) for `plot_model` to "
                              f"render a {format!r} image: the `{prog}` program was not found. "
                              "Save to a '.dot' file to get the graph without graphviz.")
        done = subprocess.run([exe, f"-T{format}"], input=self.to_string().encode(),
                              capture_output=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"{prog} failed: {done.stderr.decode(errors='replace')}")
        return done.stdout

    def write(self, path: str, format: str = "raw") -> None:  # noqa: A002
        """Writes the DOT text ("raw"/"dot") or a rendered image, atomically.

        Args:
            path: the file.
            format: "raw" or "dot" for the text, else a Graphviz output format.

        Returns:
            None.
        """
        data = self.to_string().encode() if format in ("raw", "dot") else \
            self.create(format=format)
        atomic_write(path, data)


def _quote(v) -> str:
    s = str(v)
    if s.startswith("<") and s.endswith(">"):
        return s  # an HTML-like label
    return '"' + s.replace('"', '\\"') + '"'


def _shape_text(shape) -> str:
    if shape is None:
        return "?"
    if isinstance(shape, list) and shape and isinstance(shape[0], (tuple, list)):
        return ", ".join(_shape_text(s) for s in shape)
    return str(tuple(shape)) if isinstance(shape, (tuple, list)) else str(shape)


def _label(layer, show_shapes, show_dtype, show_layer_names, show_layer_activations,
           show_trainable) -> str:
    title = f"{layer.name} ({type(layer).__name__})" if show_layer_names else \
        type(layer).__name__
    rows = [f"<b>{html.escape(title)}</b>"]
    if show_layer_activations and hasattr(layer, "activation"):
        act = getattr(layer.activation, "__name__", str(layer.activation))
        rows.append(f"Activation: {html.escape(act)}")
    if show_dtype:
        rows.append(f"dtype: {html.escape(str(getattr(layer, 'dtype', '?')))}")
    if show_shapes:
        out = getattr(layer, "_tw_output_shape", None)
        if out is None and hasattr(layer, "_tw_keras_tensor"):
            out = tuple(layer._tw_keras_tensor.shape.as_list())
        rows.append(f"Output shape: {html.escape(_shape_text(out))}")
    if show_trainable:
        rows.append(f"Trainable: {'Yes' if layer.trainable else 'No'}")
    cells = "".join(f"<tr><td>{r}</td></tr>" for r in rows)
    return f'<<table border="0" cellborder="1" cellspacing="0">{cells}</table>>'


def _edges(model) -> tuple:
    """(layers, [(src_layer, dst_layer)]) of a functional or Sequential model."""
    nodes = getattr(model, "_tw_nodes_order", None)
    layers = list(getattr(model, "_tw_layer_list", None) or model.layers)
    if nodes:
        pairs = []
        for node in nodes:
            for p in node.parents:
                if p._layer is not None:
                    pairs.append((p._layer, node.layer))
        return layers, pairs
    return layers, list(zip(layers, layers[1:]))


def model_to_dot(model, show_shapes: bool = False, show_dtype: bool = False,
                 show_layer_names: bool = True, rankdir: str = "TB",
                 expand_nested: bool = False, dpi: int = 200, subgraph: bool = False,
                 show_layer_activations: bool = False, show_trainable: bool = False,
                 **kwargs) -> DotGraph:
    """The model's layer graph as a ``DotGraph`` (``to_string()`` gives the DOT text).

    Args:
        model: a functional or Sequential model (built).
        show_shapes: show output shapes.
        show_dtype: show layer dtypes.
        show_layer_names: show layer names.
        rankdir: "TB" (vertical) or "LR" (horizontal).
        expand_nested: draw nested models' layers inside a cluster.
        dpi: the image resolution.
        subgraph: return a cluster subgraph (used for nesting).
        show_layer_activations: show activations.
        show_trainable: show whether each layer is trainable.
        **kwargs: none are accepted.

    Returns:
        The DotGraph.
    """
    if kwargs:
        raise ValueError(f"Unrecognized keyword arguments: {sorted(kwargs)}")
    if not getattr(model, "built", False):
        raise ValueError("This model has not yet been built. Build the model first by "
                         "calling `build()` or by calling the model on a batch of data.")
    name = f"cluster_{model.name}" if subgraph else model.name
    attrs = {"label": model.name, "style": "dashed"} if subgraph else \
        {"rankdir": rankdir, "concentrate": "true", "dpi": dpi}
    dot = DotGraph(name, attrs)
    flags = (show_shapes, show_dtype, show_layer_names, show_layer_activations,
             show_trainable)
    layers, pairs = _edges(model)
    entry: dict = {}
    exit_: dict = {}
    nid = lambda owner, layer: f"{owner.name}/{layer.name}"  # noqa: E731  (stable ids)
    for layer in layers:
        lid = nid(model, layer)
        if expand_nested and hasattr(layer, "layers") and layer.layers and \
                getattr(layer, "built", False):
            sub = model_to_dot(layer, *flags[:3], rankdir, True, dpi, True, *flags[3:])
            dot.subgraphs.append(sub)
            inner, _ = _edges(layer)
            entry[lid] = nid(layer, inner[0])
            exit_[lid] = nid(layer, inner[-1])
            continue
        dot.add_node(lid, label=_label(layer, *flags), shape="plaintext")
    for src, dst in pairs:
        s, d = nid(model, src), nid(model, dst)
        dot.add_edge(exit_.get(s, s), entry.get(d, d))
    return dot


def plot_model(model, to_file: str = "model.png", show_shapes: bool = False,
               show_dtype: bool = False, show_layer_names: bool = False,
               rankdir: str = "TB", expand_nested: bool = False, dpi: int = 200,
               show_layer_activations: bool = False, show_trainable: bool = False,
               **kwargs) -> None:
    """Writes the model's layer graph to ``to_file``: DOT text for ".dot", otherwise an
    image rendered by Graphviz's ``dot`` program (format from the extension).

    Args:
        model: a functional or Sequential model (built).
        to_file: the output file.
        show_shapes: show output shapes.
        show_dtype: show layer dtypes.
        show_layer_names: show layer names.
        rankdir: "TB" or "LR".
        expand_nested: draw nested models' layers.
        dpi: the image resolution.
        show_layer_activations: show activations.
        show_trainable: show trainability.
        **kwargs: none are accepted.

    Returns:
        None.
    """
    dot = model_to_dot(model, show_shapes=show_shapes, show_dtype=show_dtype,
                       show_layer_names=show_layer_names, rankdir=rankdir,
                       expand_nested=expand_nested, dpi=dpi,
                       show_layer_activations=show_layer_activations,
                       show_trainable=show_trainable, **kwargs)
    ext = os.path.splitext(os.fspath(to_file))[1].lstrip(".").lower() or "png"
    dot.write(os.fspath(to_file), format="raw" if ext in ("dot", "gv") else ext)
