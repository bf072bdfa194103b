"""SparseTensor (``tensor``), its conversions and restructuring (``ops``) and arithmetic
(``math``)."""
