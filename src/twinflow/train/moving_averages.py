"""``tw.train.ExponentialMovingAverage``: shadow variables tracking moving averages."""
from __future__ import annotations

from ..core import dtypes
from ..eager.execute import convert_to_tensor
from ..graph.tensor import Tensor
from ..ops.math_ops import cast, minimum
from ..ops.scopes import init_scope
from ..ops.variables import Variable

_FLOATS = (dtypes.float16, dtypes.float32, dtypes.float64)


class ExponentialMovingAverage:
    """Keeps a moving average of variables: ``shadow -= (1 - decay) * (shadow - variable)``.

    ``apply(vars)`` creates a shadow variable per variable (starting at its value) on first
    use and updates them; ``average(var)`` is the shadow. Works eagerly and inside
    ``tw.function`` (shadows are created outside the function, updates run per call). The
    object is trackable: a ``tw.train.Checkpoint(ema=ema)`` saves the shadows by name.
    """

    def __init__(self, decay, num_updates=None, zero_debias: bool = False,
                 name: str = "ExponentialMovingAverage") -> None:
        """Creates the averager.

        Args:
            decay: the decay (a float or scalar tensor), typically close to 1.
            num_updates: an optional step count (int, tensor or variable): the decay used is
                then ``min(decay, (1 + num_updates) / (10 + num_updates))``.
            zero_debias: as TensorFlow's, it debiases averages initialized from non-variable
                tensors; ``apply`` takes variables only (as TensorFlow's eager ``apply``), so
                it does not change results.
            name: the suffix of the shadow variables' names.
        """
        self._decay = decay
        self._num_updates = num_updates
        self._zero_debias = zero_debias
        self._name = name
        self._averages: dict = {}   # id(var) -> (var, shadow)

    @property
    def name(self) -> str:
        """The name of this averager."""
        return self._name

    def _decay_tensor(self):
        decay = convert_to_tensor(self._decay, dtype=dtypes.float32) \
            if not isinstance(self._decay, Tensor) else cast(self._decay, dtypes.float32)
        if self._num_updates is not None:
            n = self._num_updates
            n = cast(n.read_value() if isinstance(n, Variable) else convert_to_tensor(n),
                     dtypes.float32)
            decay = minimum(decay, (1.0 + n) / (10.0 + n))
        return decay

    def apply(self, var_list=None) -> object:
        """Creates shadows for new variables of ``var_list`` and updates every shadow.

        Args:
            var_list: float variables (default: none).

        Returns:
            None eagerly; the last update Operation in a graph.

        Raises:
            TypeError: an element is not a float Variable.
            ValueError: a variable is listed twice.
        """
        var_list = list(var_list or [])
        seen: set = set()
        for v in var_list:
            if not isinstance(v, Variable):
                raise TypeError("tw.train.ExponentialMovingAverage does not support non-"
                                f"Variable tensors: got {v!r}")
            if v.dtype not in _FLOATS:
                raise TypeError(f"The variables must be half, float, or double: {v.name}")
            if id(v) in seen:
                raise ValueError(f"Moving average already computed for: {v.name}")
            seen.add(id(v))
            if id(v) not in self._averages:
                with init_scope():
                    shadow = Variable(v.read_value(), trainable=False,
                                      name=self.average_name(v))
                self._averages[id(v)] = (v, shadow)
        decay = self._decay_tensor()
        op = None
        for v in var_list:
            shadow = self._averages[id(v)][1]
            rate = cast(1.0 - decay, shadow.dtype)
            op = shadow.assign_sub((shadow.read_value() - v.read_value()) * rate)
        return op if isinstance(op, Tensor) and not hasattr(op, "numpy") else None

    def average(self, var) -> Variable | None:
        """The shadow variable of ``var``.

        Args:
            var: a variable passed to ``apply``.

        Returns:
            Its shadow Variable, or None if ``apply`` never saw it.
        """
        hit = self._averages.get(id(var))
        return hit[1] if hit is not None else None

    def average_name(self, var) -> str:
        """The name of ``var``'s shadow: ``<var name>/<this averager's name>``.

        Args:
            var: a variable.

        Returns:
            The name.
        """
        base = var.name[:-2] if var.name.endswith(":0") else var.name
        return f"{base}/{self._name}"

    def variables_to_restore(self, moving_avg_variables=None) -> dict:
        """The name -> variable map that restores shadows into the variables themselves.

        Args:
            moving_avg_variables: variables whose averages to restore (default: every variable
                passed to ``apply``).

        Returns:
            ``{average_name(v): v}``.
        """
        if moving_avg_variables is None:
            moving_avg_variables = [v for v, _ in self._averages.values()]
        return {self.average_name(v): v for v in moving_avg_variables}

    def _trackable_children(self) -> dict:
        return {self.average_name(v): shadow for v, shadow in self._averages.values()}
