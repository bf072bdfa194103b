"""``tw.graph_util``: importing GraphDefs and freezing graphs (re-exports)."""
from .saved_model.graph_import import (
    convert_variables_to_constants,
    extract_sub_graph,
    import_graph_def,
)

__all__ = ["import_graph_def", "convert_variables_to_constants", "extract_sub_graph"]
