"""``model.summary()``: the table of layers, output shapes and parameter counts."""
from __future__ import annotations

import numpy as np

from ..layers.input_layer import InputLayer


def _shape_text(shape):
    if isinstance(shape, list) and shape and all(isinstance(s, (list, tuple)) or s is None
                                                 for s in shape):
        return [tuple(s) if s is not None else None for s in shape]
    return tuple(shape) if isinstance(shape, (list, tuple)) else shape



class SummaryMixin:
    """Adds ``summary()`` to Model."""

    def summary(self, line_length: int | None = None, positions=None, print_fn=None,
                expand_nested: bool = False, show_trainable: bool = False) -> None:
        """Prints the layers, their output shapes and parameter counts.

        Args:
            line_length: the table width (65 by default).
            positions: accepted for compatibility.
            print_fn: called with each line (default ``print``).
            expand_nested: accepted for compatibility.
            show_trainable: accepted for compatibility.
        """
        if not self.built:
            raise ValueError("This model has not yet been built. Build the model first by "
                             "calling `build()` or by calling the model on a batch of data.")
        out = print_fn or print
        width = line_length or 80
        cols = [int(width * 0.45), int(width * 0.8)]

        def row(a: str, b: str, c: str) -> str:
            line = a[: cols[0] - 1].ljust(cols[0]) + b[: cols[1] - cols[0] - 1].ljust(
                cols[1] - cols[0]) + c
            return " " + line
        out(f'Model: "{self.name}"')
        out("_" * width)
        out(row("Layer (type)", "Output Shape", "Param #"))
        out("=" * width)
        layers = self.layers
        for i, layer in enumerate(layers):
            shape = layer._tw_output_shape
            text = "multiple" if shape is None or (not self._tw_functional and
                                                   not self._tw_sequential) \
                else str(_shape_text(shape))
            if isinstance(layer, InputLayer):
                text = str([tuple(layer._tw_batch_input_shape)])
            out(row(f"{layer.name} ({type(layer).__name__})", text,
                    f"{layer.count_params():,}"))
            if i < len(layers) - 1:
                out("")
        out("=" * width)
        trainable = int(sum(int(np.prod(v.shape.as_list())) for v in self.trainable_weights))
        total = self.count_params()
        out(f"Total params: {total:,}")
        out(f"Trainable params: {trainable:,}")
        out(f"Non-trainable params: {total - trainable:,}")
        out("_" * width)
