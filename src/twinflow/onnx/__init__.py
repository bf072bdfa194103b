"""``twinflow.onnx``: exports a function's optimized graph to ONNX (the optional ``onnx``
package; ``pip install 'twinflow[onnx]'``).

``export(fn_or_model, input_signature, path, opset=17)`` converts the graph ``tw.function``
runs (after the compiler's passes) into an ``onnx.ModelProto``: one converter per TensorFlow op
(``converter.py``; math, array, nn and control-flow families in their files), variables as
initializers, ``None`` dims of the signature as symbolic dims.
"""
from __future__ import annotations

from .export import DEFAULT_OPSET, export, supported_ops

__all__ = ["export", "supported_ops", "DEFAULT_OPSET"]
