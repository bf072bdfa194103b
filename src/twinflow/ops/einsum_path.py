"""``tw.einsum``'s equations (``normalize_einsum_equation``) and the contraction order of
three or more operands (its ``optimize``).

TensorFlow's ``tf.einsum`` asks opt_einsum for a path and emits one two-operand ``Einsum`` op
per step; twinflow asks NumPy's ``np.einsum_path`` (only ``'greedy'`` and ``'optimal'``
searches), so opt_einsum's strategy names are mapped onto those two (see
docs/tf_differences.md). The steps are ordinary ops, so a traced function holds the same
contractions as eager execution. The order changes only the rounding and the cost.
"""
from __future__ import annotations

import string
from collections.abc import Callable, Sequence

import numpy as np

from ..core.errors import InvalidArgumentError

_LETTERS = string.ascii_letters

# opt_einsum's strategies -> NumPy's search; "auto" depends on the operand count.
_NUMPY_SEARCH = {
    "optimal": "optimal", "branch-all": "optimal", "dp": "optimal",
    "dynamic-programming": "optimal", "greedy": "greedy", "branch-2": "greedy",
    "branch-1": "greedy", "eager": "greedy", "opportunistic": "greedy",
    "random-greedy": "greedy", "random-greedy-128": "greedy", "auto": "auto",
    "auto-hq": "auto-hq",
}
# opt_einsum's "auto" searches exhaustively up to 6 operands, "auto-hq" up to 15 (dynamic
# programming, which NumPy lacks: its exhaustive search is used up to 8).
_AUTO_LIMIT = {"auto": 6, "auto-hq": 8}


def check_optimize(optimize) -> None:
    """Raises unless ``optimize`` is one of ``tf.einsum``'s values.

    Args:
        optimize: an opt_einsum strategy name, True/None (``'auto'``), False (one n-ary op)
            or an explicit path (a sequence of tuples of operand positions).
    """
    if optimize is None or isinstance(optimize, bool):
        return
    if isinstance(optimize, str):
        if optimize not in _NUMPY_SEARCH:
            raise KeyError(f"einsum: path optimizer {optimize!r} not found, valid options are "
                           f"{sorted(_NUMPY_SEARCH)} (or True, False, None, an explicit path)")
        return
    if not (isinstance(optimize, (list, tuple)) and all(
            isinstance(step, (list, tuple)) and step for step in optimize)):
        raise TypeError(f"einsum: optimize must be a strategy name, a bool, None or a path "
                        f"(a sequence of tuples of operand positions), got {optimize!r}")


def contraction_path(equation: str, shapes: Sequence, optimize) -> list:
    """The steps contracting the operands of ``equation``, as ``np.einsum_path`` numbers
    them (each step's operands are removed and its result appended).

    Args:
        equation: an explicit equation without '...'.
        shapes: the operands' shapes (None for an unknown dimension, taken as 1 as
            TensorFlow does).
        optimize: a value ``check_optimize`` accepts.

    Returns:
        A list of tuples of operand positions.
    """
    n = len(shapes)
    if optimize is False:
        return [tuple(range(n))]
    if isinstance(optimize, (list, tuple)):
        return _checked_path([tuple(int(i) for i in step) for step in optimize], n)
    if optimize is None or optimize is True:
        optimize = "auto"
    search = _NUMPY_SEARCH[optimize]
    if search in _AUTO_LIMIT:
        search = "optimal" if n <= _AUTO_LIMIT[search] else "greedy"
    ins = equation.split("->")[0].split(",")
    size: dict = {}
    for labels, shape in zip(ins, shapes):
        for c, d in zip(labels, shape):
            size[c] = max(size.get(c, 1), 1 if d is None else int(d))
    dummies = [np.broadcast_to(np.zeros((), np.float32), [size[c] for c in labels])
               for labels in ins]
    return list(np.einsum_path(equation, *dummies, optimize=search)[0][1:])


def _checked_path(path: list, n: int) -> list:
    for step in path:
        if len(set(step)) != len(step) or not all(0 <= i < n for i in step):
            raise ValueError(f"einsum: optimize path step {step} does not name distinct "
                             f"operands among the {n} left")
        n -= len(step) - 1
    if n != 1:
        raise ValueError(f"einsum: the optimize path leaves {n} operands, not one")
    return path


def contract(equation: str, operands: list, path: list, make: Callable) -> object:
    """Contracts ``operands`` step by step along ``path``.

    Args:
        equation: the explicit equation.
        operands: the tensors, one per input subscript.
        path: the steps (``contraction_path``).
        make: ``make(step_equation, step_operands)`` -> the step's result.

    Returns:
        The result of the last step.
    """
    ins, out = equation.split("->")
    subs, ops = ins.split(","), list(operands)
    for k, step in enumerate(path):
        take = sorted(step, reverse=True)
        step_subs = [subs.pop(i) for i in take][::-1]
        step_ops = [ops.pop(i) for i in take][::-1]
        if k == len(path) - 1:
            result = out
        else:  # keep the labels the other operands or the output still need
            needed = set(out).union(*subs)
            result = "".join(dict.fromkeys(c for c in "".join(step_subs) if c in needed))
        subs.append(result)
        ops.append(make(",".join(step_subs) + "->" + result, step_ops))
    return ops[0]


def _split_equation(equation: str, n_inputs: int):
    """Splits an einsum equation into (input subscripts, output subscript or None)."""
    eq = equation.replace(" ", "")
    if eq.count("->") > 1:
        raise InvalidArgumentError(None, None, f"Invalid einsum equation '{equation}': "
                                               "more than one '->'")
    lhs, out = eq.split("->") if "->" in eq else (eq, None)
    ins = lhs.split(",")
    if len(ins) != n_inputs:
        raise InvalidArgumentError(
            None, None, f"Expected {len(ins)} input tensors for einsum equation "
            f"'{equation}', got {n_inputs}")
    for s in ins + ([out] if out is not None else []):
        rest = s.replace("...", "", 1)
        if any(c not in _LETTERS for c in rest):
            raise InvalidArgumentError(None, None, f"Invalid einsum subscript '{s}' in "
                                                   f"'{equation}': only letters and one '...'")
    return ins, out


def normalize_einsum_equation(equation: str, ranks) -> str:
    """Rewrites ``equation`` in explicit form with every '...' spelt out as letters.

    Args:
        equation: an einsum equation, explicit (``'ij,jk->ik'``) or implicit (``'ij,jk'``),
            possibly with broadcasting ellipses.
        ranks: the rank of each input (None where unknown).

    Returns:
        An equivalent explicit equation without '...', or with it kept when a rank that an
        ellipsis depends on is unknown.
    """
    ins, out = _split_equation(equation, len(ranks))
    used = set("".join(ins) + (out or ""))
    ell_ranks = []
    for s, r in zip(ins, ranks):
        n_named = len(s.replace("...", ""))
        if "..." in s:
            if r is None:
                # Unknown rank behind an ellipsis: leave the equation to NumPy.
                named = "".join(ins).replace(".", "")
                implicit = "".join(sorted(c for c in set(named) if named.count(c) == 1))
                return ",".join(ins) + "->" + (out if out is not None else "..." + implicit)
            if r < n_named:
                raise InvalidArgumentError(
                    None, None, f"Einsum input subscript '{s}' needs rank >= {n_named}, "
                    f"got rank {r}")
            ell_ranks.append(r - n_named)
        elif r is not None and r != n_named:
            raise InvalidArgumentError(
                None, None, f"Einsum input subscript '{s}' has {n_named} labels but the input "
                f"has rank {r} (equation '{equation}')")
        else:
            ell_ranks.append(0)
    n_ell = max(ell_ranks, default=0)
    free = [c for c in _LETTERS if c not in used]
    if n_ell > len(free):
        raise InvalidArgumentError(None, None, f"einsum '{equation}': too many dimensions")
    ell = "".join(free[:n_ell])
    new_ins = [s.replace("...", ell[n_ell - k:] if k else "") for s, k in zip(ins, ell_ranks)]
    if out is None:
        joined = "".join(new_ins)
        # NumPy's implicit mode sorts by code point (uppercase first): follow it.
        once = sorted(c for c in set(joined) if joined.count(c) == 1 and c not in ell)
        new_out = ell + "".join(once)
    else:
        if "..." not in out and n_ell and any(ell_ranks):
            new_out = out  # ellipsis dims are summed away
        else:
            new_out = out.replace("...", ell)
        if len(set(new_out)) != len(new_out):
            raise InvalidArgumentError(None, None, f"einsum '{equation}': output subscript "
                                                   "repeats a label")
        joined = "".join(new_ins)
        for c in new_out:
            if c not in joined:
                raise InvalidArgumentError(
                    None, None, f"einsum '{equation}': output label '{c}' does not appear in "
                    "any input")
    return ",".join(new_ins) + "->" + new_out
