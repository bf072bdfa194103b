"""TensorFlow's deployment formats: GraphDef import and freezing (``graph_import.py``) and
the tensor-bundle checkpoint format (``bundle.py``)."""
