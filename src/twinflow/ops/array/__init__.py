"""Array ops: shapes, reshaping, joining, slicing, gathering."""
