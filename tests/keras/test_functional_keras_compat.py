"""Functional models as Keras 3 builds them: layers listed in Keras' order (by depth from the
outputs, then by first meeting in a depth-first walk: the order of weights in .weights.h5 and
legacy .h5 files; the expected lists are what Keras 3.15 gives for the same models), and a
``mask`` argument given only to layers whose ``call`` takes one (Keras 3 configs write
``"mask": null`` for every layer that supports masking, BatchNormalization included)."""
import numpy as np

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


def test_mask_argument_only_for_calls_that_take_it():
    x = np.ones((2, 3), np.float32)
    bn = L.BatchNormalization()
    np.testing.assert_allclose(bn(x, mask=None).numpy(), bn(x).numpy())
    inp = keras.Input((3,))
    out = L.Dense(2, name="d")(L.BatchNormalization(name="bn")(inp, mask=None), mask=None)
    model = keras.Model(inp, out)
    rebuilt = keras.Model.from_config(model.get_config())
    assert names(rebuilt)[1:] == ["bn", "d"]
    # the config Keras 3 writes: "mask": null in the node's kwargs
    cfg = model.get_config()
    for entry in cfg["layers"][1:]:
        for node in entry["inbound_nodes"]:
            node["kwargs"] = {"mask": None}
    assert keras.Model.from_config(cfg)(x).shape == (2, 2)
    # a real mask still reaches a layer that takes one
    ids = keras.Input((4,), dtype="int32")
    embedding = L.Embedding(10, 3, mask_zero=True)
    pooled = L.GlobalAveragePooling1D()(embedding(ids))
    got = keras.Model(ids, pooled)(np.array([[1, 2, 0, 0]])).numpy()
    table = embedding.embeddings.numpy()
    np.testing.assert_allclose(got[0], table[1:3].mean(axis=0), rtol=1e-6)
