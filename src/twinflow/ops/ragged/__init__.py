"""RaggedTensor (``tensor``), conversions (``convert``), indexing (``getitem``), construction and
elementwise dispatch (``ops``), and concat/stack/gather/tile/where/reductions (``array``)."""

# convert and getitem register RaggedTensor's conversions and indexing when imported.
from . import convert, getitem  # noqa: F401,E402
