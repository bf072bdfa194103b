"""``tw.saved_model`` and TensorFlow's deployment formats: SavedModel save/load (``save.py``,
``load.py``, functions as FunctionDefs in ``function_def.py``/``function_import.py``, messages
in ``protos.py``), GraphDef import and freezing (``graph_import.py``) and the tensor-bundle
checkpoint format (``bundle.py``)."""
from . import experimental
from .load import Loaded, RestoredFunction, contains_saved_model, load
from .options import (
    ASSETS_DIRECTORY,
    ASSETS_KEY,
    CLASSIFY_INPUTS,
    CLASSIFY_METHOD_NAME,
    CLASSIFY_OUTPUT_CLASSES,
    CLASSIFY_OUTPUT_SCORES,
    DEBUG_DIRECTORY,
    DEBUG_INFO_FILENAME_PB,
    DEFAULT_SERVING_SIGNATURE_DEF_KEY,
    GPU,
    PREDICT_INPUTS,
    PREDICT_METHOD_NAME,
    PREDICT_OUTPUTS,
    REGRESS_INPUTS,
    REGRESS_METHOD_NAME,
    REGRESS_OUTPUTS,
    SAVED_MODEL_FILENAME_PB,
    SAVED_MODEL_FILENAME_PBTXT,
    SAVED_MODEL_SCHEMA_VERSION,
    SERVING,
    TPU,
    TRAINING,
    VARIABLES_DIRECTORY,
    VARIABLES_FILENAME,
    Asset,
    LoadOptions,
    SaveOptions,
)
from .save import save

__all__ = ["save", "load", "SaveOptions", "LoadOptions", "Asset", "contains_saved_model",
           "experimental", "Loaded", "RestoredFunction", "ASSETS_DIRECTORY", "ASSETS_KEY",
           "CLASSIFY_INPUTS", "CLASSIFY_METHOD_NAME", "CLASSIFY_OUTPUT_CLASSES",
           "CLASSIFY_OUTPUT_SCORES", "DEBUG_DIRECTORY", "DEBUG_INFO_FILENAME_PB",
           "DEFAULT_SERVING_SIGNATURE_DEF_KEY", "GPU", "PREDICT_INPUTS", "PREDICT_METHOD_NAME",
           "PREDICT_OUTPUTS", "REGRESS_INPUTS", "REGRESS_METHOD_NAME", "REGRESS_OUTPUTS",
           "SAVED_MODEL_FILENAME_PB", "SAVED_MODEL_FILENAME_PBTXT", "SAVED_MODEL_SCHEMA_VERSION",
           "SERVING", "TPU", "TRAINING", "VARIABLES_DIRECTORY", "VARIABLES_FILENAME"]
