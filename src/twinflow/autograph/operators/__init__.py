"""Runtime operators that converted code calls (``ag__``, with ``converted_call``)."""
from .conditional_expressions import if_exp
from .control_flow import for_stmt, if_stmt, while_stmt
from .data_structures import GraphList, list_append
from .exceptions import assert_stmt
from .logical import and_, not_, or_
from .variables import Undefined, UndefinedReturnValue, UndefinedVariableError, is_undefined, retval

__all__ = ["if_exp", "for_stmt", "if_stmt", "while_stmt", "GraphList",
           "list_append", "assert_stmt", "and_", "not_", "or_", "Undefined",
           "UndefinedReturnValue", "UndefinedVariableError", "is_undefined", "retval"]
