"""A functional model lists its layers in Keras 3's order (by depth from the outputs, then by
first meeting in a depth-first walk): the order of weights in .weights.h5 and legacy .h5
files. The expected lists are what Keras 3.15 gives for the same models."""
import twinflow as tw

keras = tw.keras
L = keras.layers


def names(model) -> list:
    return [layer.name for layer in model.layers]


def test_shared_layer_and_several_inputs_outputs():
    a, b = keras.Input((4,), name="a"), keras.Input((4,), name="b")
    shared = L.Dense(3, name="shared")
    x = L.Concatenate(name="cat")([shared(a), shared(b)])
    y = L.Dense(2, name="head1")(x)
    z = L.Dense(1, name="head2")(L.Dense(5, name="mid")(b))
    model = keras.Model([a, b], [y, z])
    assert names(model) == ["a", "b", "shared", "cat", "mid", "head1", "head2"]


def test_nested_model_and_branch():
    i = keras.Input((4,), name="i")
    inner_in = keras.Input((4,), name="inner_in")
    inner = keras.Model(inner_in, L.Dense(4, name="inner_d")(inner_in), name="inner")
    h = L.Add(name="add")([inner(i), L.Dense(4, name="skip")(i)])
    assert names(keras.Model(i, L.Dense(1, name="o")(h))) == ["i", "inner", "skip", "add", "o"]


def test_inputs_ordered_by_depth_not_as_given():
    c, d = keras.Input((4,), name="c"), keras.Input((4,), name="d")
    model = keras.Model([d, c], L.Add(name="s")([L.Dense(4, name="dc")(c), d]))
    assert names(model) == ["c", "dc", "d", "s"]
    assert [t.name for t in model.inputs] == ["d", "c"]  # the inputs keep their order


def test_residual_block_order():
    """A ResNet block: the shortcut convolution sits with the main path's layers of its depth
    (conv2_block1_0_conv after conv2_block1_2_relu), as in Keras."""
    x = keras.Input((8, 8, 3), name="x")
    s = L.Conv2D(4, 1, name="short")(x)
    m = L.Conv2D(4, 1, name="m1")(x)
    m = L.Activation("relu", name="m1_relu")(m)
    m = L.Conv2D(4, 1, name="m2")(m)
    out = L.Add(name="add")([s, m])
    assert names(keras.Model(x, out)) == ["x", "m1", "m1_relu", "short", "m2", "add"]
