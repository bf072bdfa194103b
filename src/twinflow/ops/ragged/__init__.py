"""RaggedTensor (``tensor``), conversions (``convert``), indexing (``getitem``), construction and
elementwise dispatch (``ops``), and concat/stack/gather/tile/where/reductions (``array``)."""

# tensor first: it pulls in convert and getitem, which build on RaggedTensor.
from . import tensor  # noqa: F401,E402
