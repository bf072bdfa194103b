"""Variable construction checks, d(v)/d(v), and Modules that skip super().__init__()."""
from __future__ import annotations

import numpy as np
import pytest

import twinflow as tw


@pytest.mark.parametrize("make, message", [
    (lambda: tw.Variable([1, 2], shape=[3]), r"shape \(\(2,\)\) is not compatible .*\[3\]"),
    (lambda: tw.Variable([1, 2], shape=[3], validate_shape=False), "not compatible"),
    (lambda: tw.Variable(tw.constant([1.5]), dtype=tw.int32),
     "requested dtype int32 for Tensor with dtype float32"),
    (lambda: tw.Variable(tw.constant([1]), dtype=tw.float32),
     "requested dtype float32 for Tensor with dtype int32"),
])
@pytest.mark.parametrize("in_function", [False, True])
def test_variable_rejects_what_tensorflow_rejects(make, message, in_function):
    with pytest.raises(ValueError, match=message):
        tw.function(make)() if in_function else make()


def test_compatible_shapes_and_dtypes_still_work():
    assert tw.Variable([1, 2], shape=[None]).numpy().tolist() == [1, 2]
    assert tw.Variable([1, 2], shape=tw.TensorShape(None)).numpy().tolist() == [1, 2]
    assert tw.Variable(1, dtype=tw.float32).dtype is tw.float32
    assert tw.Variable(tw.constant([1.5]), dtype=tw.float32).numpy().tolist() == [1.5]


@pytest.mark.parametrize("in_function", [False, True])
def test_gradient_of_a_variable_with_respect_to_itself_is_one(in_function):
    v = tw.Variable([1., 2.])
    w = tw.Variable(3., trainable=False)

    def grads():
        with tw.GradientTape() as tape:
            y = v * 2.
        dv, dw, dy = tape.gradient([v, w, y], [v, w, tw.Variable(0.)])
        return dv, dw, dy

    dv, dw, dy = tw.function(grads)() if in_function else grads()
    np.testing.assert_array_equal(dv.numpy(), [3., 3.])  # d(v)/dv + d(2v)/dv
    assert float(dw.numpy()) == 1.
    assert dy is None
    with tw.GradientTape() as tape:
        pass
    assert float(tape.gradient(w, w, output_gradients=tw.constant(5.)).numpy()) == 5.


def test_module_whose_init_skips_super_init_works():
    class Count(tw.Module):
        def __init__(self):  # no super().__init__(), as in the guides
            self.v = tw.Variable(1.)

        @tw.Module.with_name_scope
        def __call__(self, x):
            return x * self.v

    c = Count()
    assert c.name == "count" and "count" in repr(c)
    assert [v.numpy() for v in c.trainable_variables] == [1.]
    assert float(c(2.)) == 2.
    assert float(tw.function(lambda x: c(x))(tw.constant(3.))) == 3.
    with pytest.raises(AttributeError, match="missing"):
        c.missing  # noqa: B018
