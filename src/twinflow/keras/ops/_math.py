"""``keras.ops`` element-wise functions and reductions: the tables of ``numpy_api.elementwise``
under Keras' dtype rules (``_common.KERAS``); ``numpy.py`` publishes the rows.
"""
from __future__ import annotations

from ...numpy_api.elementwise import math_tables
from ._common import KERAS

UNARY, BINARY, REDUCTIONS = math_tables(KERAS)
