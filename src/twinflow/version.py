"""``tw.version``: twinflow's version, under TensorFlow's names (``tw.version.VERSION``)."""
from __future__ import annotations

import platform as _platform

from .graph.graph_def import GRAPH_DEF_VERSION

# twinflow's own release; ``tw.__version__`` is the same string.
VERSION = "0.1.0"
GIT_VERSION = f"v{VERSION}"
# The Python that runs the kernels (TensorFlow names the C++ compiler that built it).
COMPILER_VERSION = _platform.python_compiler()
# The GraphDef versions twinflow writes and reads (TensorFlow 2.21's numbering).
GRAPH_DEF_VERSION_MIN_CONSUMER = 0
GRAPH_DEF_VERSION_MIN_PRODUCER = 0

__all__ = ["VERSION", "GIT_VERSION", "COMPILER_VERSION", "GRAPH_DEF_VERSION",
           "GRAPH_DEF_VERSION_MIN_CONSUMER", "GRAPH_DEF_VERSION_MIN_PRODUCER"]
