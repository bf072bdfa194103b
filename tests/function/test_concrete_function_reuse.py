"""get_concrete_function reuses the graph of an input_signature (or of an existing trace that
accepts the arguments) instead of tracing again, as TensorFlow does."""
from __future__ import annotations

import pytest

import twinflow as tw


def _signature_function():
    @tw.function(input_signature=[tw.TensorSpec([None, None, 4]), tw.TensorSpec([], tw.bool)])
    def f(x, training=True):
        return x * 2.0
    return f


def test_specs_equal_to_input_signature_reuse_the_trace():
    f = _signature_function()
    x = tw.zeros([2, 3, 4])
    f(x, training=True)
    f(x, training=False)
    assert f.experimental_get_tracing_count() == 1
    cf = f.get_concrete_function(tw.TensorSpec([None, None, 4]), tw.TensorSpec([], tw.bool))
    assert f.experimental_get_tracing_count() == 1
    f(tw.zeros([3, 2, 4]), training=False)
    assert f.get_concrete_function() is cf
    assert f.experimental_get_tracing_count() == 1


def test_get_concrete_function_first_then_calls():
    f = _signature_function()
    cf = f.get_concrete_function(tw.TensorSpec([None, None, 4]), tw.TensorSpec([], tw.bool))
    assert f.experimental_get_tracing_count() == 1
    f(tw.zeros([2, 3, 4]), training=True)
    assert f.get_concrete_function() is cf
    # More specific specs and tensors that fit the signature get the same graph.
    assert f.get_concrete_function(tw.TensorSpec([5, 1, 4]), tw.TensorSpec([], tw.bool)) is cf
    assert f.get_concrete_function(tw.zeros([1, 1, 4]), False) is cf
    assert f.get_concrete_function(tw.TensorSpec([5, 1, 4])) is cf   # default for training
    assert f.experimental_get_tracing_count() == 1


@pytest.mark.parametrize("spec", [tw.TensorSpec([None, None, 3]), tw.TensorSpec([None, 4]),
                                  tw.TensorSpec([None, None, 4], tw.int32),
                                  tw.TensorSpec(None)])
def test_specs_incompatible_with_input_signature_raise(spec):
    f = _signature_function()
    with pytest.raises(ValueError, match="incompatible with input_signature"):
        f.get_concrete_function(spec, tw.TensorSpec([], tw.bool))
    assert f.experimental_get_tracing_count() == 0


def test_specs_matching_an_existing_trace_reuse_it():
    @tw.function
    def f(x):
        return x + 1.0
    f(tw.zeros([2, 3]))
    cf = f.get_concrete_function(tw.TensorSpec([2, 3]))
    assert f.experimental_get_tracing_count() == 1
    # A more general spec needs a graph of its own; after that, calls and specs it accepts
    # reuse it.
    general = f.get_concrete_function(tw.TensorSpec([None, 3]))
    assert general is not cf
    assert f.experimental_get_tracing_count() == 2
    assert f.get_concrete_function(tw.TensorSpec([None, 3])) is general
    assert f.get_concrete_function(tw.zeros([7, 3])) is general
    f(tw.zeros([9, 3]))
    assert f.experimental_get_tracing_count() == 2
