"""RaggedTensor (``tensor``), conversions (``convert``), indexing (``getitem``), construction and
elementwise dispatch (``ops``), and concat/stack/gather/tile/where/reductions (``array``)."""
