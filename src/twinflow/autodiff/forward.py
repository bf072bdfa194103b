"""``tw.autodiff.ForwardAccumulator``: Jacobian-vector products (forward-mode derivatives).

Computed from the reverse-mode rules, as the "double backward" trick: inside the accumulator a
persistent tape records the computation; ``jvp(y)`` takes the vector-Jacobian product
``g(u) = J^T u`` for a placeholder cotangent ``u`` (recorded by a second tape, since every
gradient rule is written with twinflow ops) and differentiates ``<g(u), tangents>`` with
respect to ``u``, which is ``J @ tangents``. Every op with a gradient rule therefore has a
forward derivative, eagerly and inside ``tw.function``.
"""
from __future__ import annotations

from ..core import nest
from ..ops.array_ops import zeros_like
from ..ops.math_ops import multiply
from ..ops.reduction_ops import reduce_sum
from ..ops.variables import Variable
from .tape import GradientTape, UnconnectedGradients


class ForwardAccumulator:
    """Computes Jacobian-vector products of what runs inside ``with acc:``.

    ``primals`` (tensors or variables) are the inputs, ``tangents`` the direction (same
    structure, shapes and dtypes); ``acc.jvp(y)`` is ``dy/dprimals @ tangents``.
    """

    def __init__(self, primals, tangents) -> None:
        """Sets the inputs and the direction.

        Args:
            primals: a tensor, variable, or nested structure of them.
            tangents: the same structure: one tangent per primal.

        Raises:
            ValueError: the structures, shapes or dtypes differ.
        """
        flat_p = nest.flatten(primals)
        flat_t = nest.flatten(tangents)
        if len(flat_p) != len(flat_t):
            raise ValueError(f"primals and tangents must have the same structure: "
                             f"{len(flat_p)} primals, {len(flat_t)} tangents")
        from_p = []
        for p, t in zip(flat_p, flat_t):
            shape = p.shape
            if hasattr(t, "shape") and not shape.is_compatible_with(t.shape):
                raise ValueError(f"Tangent {t} has shape {t.shape}, incompatible with its "
                                 f"primal's shape {shape}")
            if getattr(t, "dtype", p.dtype) != p.dtype:
                raise ValueError(f"Tangent dtype {t.dtype.name} differs from its primal's "
                                 f"{p.dtype.name}")
            from_p.append(p)
        self._primals = from_p
        self._tangents = flat_t
        self._tape = GradientTape(persistent=True, watch_accessed_variables=False)
        self._entered = False

    def __enter__(self) -> ForwardAccumulator:
        self._tape.__enter__()
        for p in self._primals:
            self._tape.watch(p)
        self._entered = True
        return self

    def __exit__(self, *exc) -> None:
        self._tape.__exit__(*exc)
        self._entered = False

    def jvp(self, primals, unconnected_gradients=UnconnectedGradients.NONE):
        """The Jacobian-vector product of ``primals`` (computed in the block) with the
        tangents.

        Args:
            primals: a tensor or nested structure of tensors computed from the inputs.
            unconnected_gradients: for outputs not depending on the inputs: ``NONE`` (None)
                or ``ZERO`` (zeros).

        Returns:
            The same structure of tangents (or None for unconnected outputs).
        """
        unconnected = UnconnectedGradients(unconnected_gradients)
        flat = nest.flatten(primals)
        out = [self._jvp_one(y, unconnected) for y in flat]
        return nest.pack_sequence_as(primals, out)

    def _jvp_one(self, y, unconnected):
        if isinstance(y, Variable):
            y = y.read_value()
        u = zeros_like(y)
        with GradientTape() as outer:
            outer.watch(u)
            # J^T u: written with twinflow ops, so the outer tape records it (linear in u)
            vjps = self._tape.gradient(y, self._primals, output_gradients=u)
            terms = [reduce_sum(multiply(g, t)) for g, t in zip(vjps, self._tangents)
                     if g is not None]
            if not terms:
                total = None
            else:
                total = terms[0]
                for t in terms[1:]:
                    total = total + t
        if total is None:
            return zeros_like(y) if unconnected is UnconnectedGradients.ZERO else None
        j = outer.gradient(total, u, unconnected_gradients=unconnected)
        return j
