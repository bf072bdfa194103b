"""Transformations that stop, drop or annotate: take_while, scan, ignore_errors, unique,
assert_cardinality, with_options."""
from __future__ import annotations

import copy
import logging
from collections.abc import Callable

import numpy as np

from ..core import dtypes, errors
from ..eager.func_graph import TensorSpec
from .dataset import UNKNOWN_CARDINALITY, Dataset
from .options import Options
from .registry import register_node
from .structure import normalize, spec_of, trace_with_state
from .transforms import Counted, Filter, Unary, unknown_unless_infinite


@register_node
class TakeWhile(Filter):
    """A filter that ends the pass at the first element it drops."""

    _what = "take_while"
    _stops = True

    def _cardinality(self) -> int:
        return UNKNOWN_CARDINALITY


@register_node
class Scan(Unary):
    def __init__(self, input_dataset: Dataset, initial_state, fn: Callable) -> None:
        super().__init__(input_dataset)
        self._state = normalize(initial_state)
        def new_state(out):
            if not (isinstance(out, tuple) and len(out) == 2):
                raise TypeError(f"Invalid `scan_func`: it must return a pair (new_state, "
                                f"output), got {out}")
            return out[0]
        self._fn = trace_with_state(fn, spec_of(self._state), input_dataset._spec(), "scan",
                                    new_state)

    def _gen(self):
        state = self._state
        for e in self._input._gen():
            state, out = self._fn((state, e))
            yield out

    def _spec(self):
        return self._fn.output_spec[1]


@register_node
class IgnoreErrors(Unary):
    """Drops elements whose map/filter function raised; the element-wise nodes below it
    are copied in a tolerant mode (a Python generator cannot go on after raising)."""

    def __init__(self, input_dataset: Dataset, log_warning: bool) -> None:
        super().__init__(input_dataset)
        self._log = log_warning
        self._tolerant_input = _tolerant_copy(input_dataset)

    def _gen(self):
        it = self._tolerant_input._gen()
        while True:
            try:
                e = next(it)
            except StopIteration:
                return
            except errors.OpError as err:
                # An error in a source ends its pass (it cannot resume); as TF, drop it.
                if self._log:
                    logging.getLogger("twinflow.data").warning("ignore_errors: %s", err)
                return
            yield e

    def _cardinality(self) -> int:
        return UNKNOWN_CARDINALITY


def _tolerant_copy(node: Dataset) -> Dataset:
    if not hasattr(node, "_tolerant"):
        return node
    out = copy.copy(node)
    out._tolerant = True
    out._input = _tolerant_copy(node._input)
    return out


@register_node
class Unique(Unary):
    def __init__(self, input_dataset: Dataset) -> None:
        super().__init__(input_dataset)
        s = input_dataset._spec()
        if not isinstance(s, TensorSpec) or s.dtype not in (
                dtypes.int32, dtypes.int64, dtypes.string):
            raise TypeError(f"unique: elements must be int32, int64 or string tensors, got {s}")

    def _gen(self):
        seen = set()
        for e in self._input._gen():
            k = np.asarray(e).tobytes() if np.asarray(e).dtype != object else e.item()
            if k not in seen:
                seen.add(k)
                yield e

    def _cardinality(self) -> int:
        return unknown_unless_infinite(self._input._cardinality())


@register_node
class AssertCardinality(Counted):
    """Counts the elements; an error when there are more or fewer than ``_count``."""

    def _gen(self):
        n = 0
        for e in self._input._gen():
            n += 1
            if n > self._count:
                raise errors.FailedPreconditionError(
                    None, None, f"Input dataset was expected to contain {self._count} "
                    "elements but contained at least one more.")
            yield e
        if n < self._count:
            raise errors.FailedPreconditionError(
                None, None, f"Input dataset was expected to contain {self._count} elements "
                f"but contained only {n} elements.")

    def _cardinality(self) -> int:
        return self._count


@register_node
class WithOptions(Unary):
    def __init__(self, input_dataset: Dataset, options) -> None:
        super().__init__(input_dataset)
        if not isinstance(options, Options):
            raise TypeError(f"with_options needs a tw.data.Options, got {options!r}")
        self._options = options.merge(input_dataset.options())

    def _gen(self):
        yield from self._input._gen()
