"""CTC against TensorFlow 2.21's numbers (tests/fixtures/ctc/ctc.npz) and its error rules."""
import pathlib

import numpy as np
import pytest

import twinflow as tw
from twinflow.ops.nn.ctc import ctc_beam_search_decoder_v1, ctc_loss_v1

F = np.load(pathlib.Path(__file__).parents[1] / "fixtures" / "ctc" / "ctc.npz")


def _dense(sp, fill=-1):
    return tw.sparse.to_dense(sp, default_value=fill).numpy()


@pytest.mark.parametrize("blank", [0, 4, -1])
def test_dense_loss_and_gradient_match_tensorflow(blank):
    x = tw.constant(F["logits"])
    with tw.GradientTape() as tape:
        tape.watch(x)
        loss = tw.nn.ctc_loss(F[f"dense_labels_{blank}"], x, F["label_length"],
                              F["logit_length"], blank_index=blank)
    np.testing.assert_allclose(loss.numpy(), F[f"dense_loss_{blank}"], rtol=1e-5)
    np.testing.assert_allclose(tape.gradient(loss, x).numpy(), F[f"dense_grad_{blank}"],
                               atol=1e-5)


def test_sparse_batch_major_matches_tensorflow():
    sp = tw.sparse.from_dense(F["labels"][1:])
    x = tw.constant(np.transpose(F["logits"][:, 1:], [1, 0, 2]))
    with tw.GradientTape() as tape:
        tape.watch(x)
        loss = tw.nn.ctc_loss(sp, x, None, F["logit_length"][1:], logits_time_major=False,
                              blank_index=1)
    np.testing.assert_allclose(loss.numpy(), F["sparse_loss"], rtol=1e-5)
    np.testing.assert_allclose(tape.gradient(loss, x).numpy(), F["sparse_grad"], atol=1e-5)


@pytest.mark.parametrize("name,kw", [("merge_false", {"ctc_merge_repeated": False}),
                                     ("collapse", {"preprocess_collapse_repeated": True})])
def test_raw_op_options_match_tensorflow(name, kw):
    idx = np.array([[0, 0], [0, 1], [0, 2], [1, 0], [1, 1]], np.int64)
    vals = np.array([1, 1, 2, 3, 3], np.int32)
    loss = ctc_loss_v1(tw.SparseTensor(idx, vals, [2, 3]), F["logits"][:, :2],
                       F["logit_length"][:2], **kw)
    np.testing.assert_allclose(loss.numpy(), F[f"raw_{name}_loss"], rtol=1e-5)


@pytest.mark.parametrize("merge", [True, False])
def test_decoders_match_tensorflow(merge):
    x, n = F["dec_logits"], np.array([8, 6, 7], np.int32)
    (d,), lp = tw.nn.ctc_greedy_decoder(x, n, merge_repeated=merge)
    np.testing.assert_array_equal(_dense(d), F[f"greedy_{merge}"])
    np.testing.assert_allclose(lp.numpy(), F[f"greedy_{merge}_lp"], rtol=1e-6)
    ds, lp = ctc_beam_search_decoder_v1(x, n, beam_width=4, top_paths=3,
                                        merge_repeated=merge)
    for k, d in enumerate(ds):
        np.testing.assert_array_equal(_dense(d), F[f"beam_{merge}_{k}"])
    np.testing.assert_allclose(lp.numpy(), F[f"beam_{merge}_lp"], rtol=1e-5)


def test_graph_matches_eager_and_unique_labels_reproduce_labels():
    labels, ll, lgl = F["labels"], F["label_length"], F["logit_length"]
    eager = tw.nn.ctc_loss(labels, F["logits"], ll, lgl)
    f = tw.function(lambda x: tw.nn.ctc_loss(labels, x, ll, lgl,
                                             unique=tw.nn.ctc_unique_labels(labels)))
    np.testing.assert_allclose(f(F["logits"]).numpy(), eager.numpy(), rtol=1e-6)


def test_errors():
    x = F["logits"][:3, :1]
    too_long = tw.SparseTensor([[0, 0], [0, 1], [0, 2], [0, 3]], [1, 2, 0, 1], [1, 4])
    with pytest.raises(tw.errors.InvalidArgumentError, match="Not enough time"):
        ctc_loss_v1(too_long, x, [3])
    ignored = ctc_loss_v1(too_long, x, [3], ignore_longer_outputs_than_inputs=True)
    assert ignored.numpy().tolist() == [0.0]
    with pytest.raises(tw.errors.InvalidArgumentError, match="sequence_length"):
        tw.nn.ctc_loss([[1]], x, [1], [4])
    with pytest.raises(tw.errors.InvalidArgumentError, match=r"in \[0, 5\)"):
        tw.nn.ctc_loss([[7]], x, [1], [3])
    with pytest.raises(ValueError, match="blank_index"):
        tw.nn.ctc_loss(tw.sparse.from_dense([[1]]), x, None, [3])
    with pytest.raises(tw.errors.InvalidArgumentError, match="top_paths"):
        tw.nn.ctc_beam_search_decoder(x, [3], beam_width=2, top_paths=3)
    xv = tw.Variable(x)
    with tw.GradientTape() as outer:
        with tw.GradientTape() as inner:
            loss = tw.nn.ctc_loss([[1]], xv, [1], [3])
        g = inner.gradient(loss, xv)
    with pytest.raises(LookupError, match="second derivative"):
        outer.gradient(g, xv)


def test_decoders_in_a_function_match_eager():
    x, n = F["dec_logits"], np.array([8, 6, 7], np.int32)

    @tw.function
    def decode(x):
        (g,), _ = tw.nn.ctc_greedy_decoder(x, n)
        (b,), lp = tw.nn.ctc_beam_search_decoder(x, n, beam_width=4)
        c, _ = tw.nn.collapse_repeated(tw.sparse.to_dense(g), [3, 3, 3])
        return tw.sparse.to_dense(g), tw.sparse.to_dense(b), lp, c

    (g,), _ = tw.nn.ctc_greedy_decoder(x, n)
    (b,), lp = tw.nn.ctc_beam_search_decoder(x, n, beam_width=4)
    got = decode(x)
    np.testing.assert_array_equal(got[0].numpy(), _dense(g, 0))
    np.testing.assert_array_equal(got[1].numpy(), _dense(b, 0))
    np.testing.assert_allclose(got[2].numpy(), lp.numpy())
    assert got[3].shape[0] == 3
