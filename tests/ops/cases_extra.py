"""Cases for the extra API: segment reductions, bincount, tensor scatter sub/max/min, strings.

Names start with ``extra_`` so that ``pytest -k extra_`` selects them. Segment ids, bincount
inputs and string tensors whose values decide an output's length are constants inside the case
function, so that every inferred shape is fully known (as for ``boolean_mask``).
"""
import numpy as np

import twinflow as tw

from .harness import Case, grad_of

rng = np.random.default_rng(11)
D = rng.normal(size=(6, 3))
D1 = rng.normal(size=(6,))
D3 = rng.normal(size=(2, 3, 2))
DI = rng.integers(-5, 6, size=(6, 3)).astype(np.int32)
IDS = np.array([0, 0, 1, 3, 3, 3], dtype=np.int32)       # sorted, segment 2 empty
UIDS = np.array([2, 0, -1, 2, 4, 0], dtype=np.int32)     # unsorted, -1 dropped, 1 and 3 empty
UIDS_FULL = np.array([2, 0, -1, 2, 1, 0], dtype=np.int32)
UIDS2 = np.array([[1, 0, 1], [-1, 2, 0]], dtype=np.int64)  # 2-D ids for D3
ZD = D.copy()
ZD[0, 1] = 0.0          # one zero in segment 0
ZD[3, 2] = ZD[4, 2] = 0.0  # two zeros in segment 3
ZD1 = D.copy()
ZD1[0, 1] = 0.0
EXTREME = {"max": np.maximum, "min": np.minimum, "sum": np.add, "prod": np.multiply}


def _np_segment(kind, data, ids, n=None, sorted_=True):
    ids = np.asarray(ids)
    n = (int(ids.max()) + 1 if ids.size else 0) if n is None else n
    flat = ids.reshape(-1)
    rows = data.reshape((flat.size,) + data.shape[ids.ndim:])
    out = []
    for s in range(n):
        sel = rows[flat == s]
        if len(sel) == 0:
            if kind in ("sum", "mean") or sorted_ and kind in ("max", "min"):
                v = 0
            elif kind == "prod":
                v = 1
            else:
                info = np.finfo(data.dtype) if data.dtype.kind == "f" else np.iinfo(data.dtype)
                v = info.min if kind == "max" else info.max
            out.append(np.full(rows.shape[1:], v, data.dtype))
        elif kind == "mean":
            if data.dtype.kind == "f":
                out.append(sel.mean(axis=0).astype(data.dtype))
            else:
                out.append(np.trunc(sel.sum(axis=0) / len(sel)).astype(data.dtype))
        else:
            out.append(EXTREME[kind].reduce(sel, axis=0).astype(data.dtype))
    return np.stack(out) if out else np.zeros((0,) + rows.shape[1:], data.dtype)


def _np_bincount(arr, weights=None, minlength=0, maxlength=None, binary=False, dtype=np.int32):
    n = max(int(arr.max()) + 1 if arr.size else 0, minlength)
    if maxlength is not None:
        n = min(n, maxlength)
    out = np.zeros(n, weights.dtype if weights is not None else dtype)
    for j, a in np.ndenumerate(arr):
        if a < n:
            out[a] = 1 if binary else out[a] + (1 if weights is None else weights[j])
    return out


def _segment_cases():
    cases = []
    sorted_fns = {"sum": tw.math.segment_sum, "mean": tw.math.segment_mean,
                  "max": tw.math.segment_max, "min": tw.math.segment_min,
                  "prod": tw.math.segment_prod}
    unsorted_fns = {"sum": tw.math.unsorted_segment_sum, "mean": tw.math.unsorted_segment_mean,
                    "max": tw.math.unsorted_segment_max, "min": tw.math.unsorted_segment_min,
                    "prod": tw.math.unsorted_segment_prod}
    for kind, fn in sorted_fns.items():
        cases.append(Case(lambda x, fn=fn: fn(x, IDS), [D],
                          lambda x, k=kind: _np_segment(k, x, IDS),
                          name=f"extra_segment_{kind}"))
        cases.append(Case(lambda x, fn=fn: fn(x, IDS), [DI],
                          lambda x, k=kind: _np_segment(k, x, IDS),
                          name=f"extra_segment_{kind}_int32"))
        cases.append(Case(lambda x, fn=fn: fn(x, tw.constant(IDS[:5].astype(np.int64))), [D1[:5]],
                          lambda x, k=kind: _np_segment(k, x, IDS[:5]),
                          name=f"extra_segment_{kind}_vector_int64"))
    for kind, fn in unsorted_fns.items():
        # Empty max/min segments hold the dtype's extremes: no finite differences through them.
        cases.append(Case(lambda x, fn=fn: fn(x, UIDS, 5), [D],
                          lambda x, k=kind: _np_segment(k, x, UIDS, 5, False),
                          grad=() if kind in ("max", "min") else None,
                          name=f"extra_unsorted_segment_{kind}"))
        cases.append(Case(lambda x, fn=fn: fn(x, UIDS_FULL, 3), [D],
                          lambda x, k=kind: _np_segment(k, x, UIDS_FULL, 3, False),
                          name=f"extra_unsorted_segment_{kind}_no_empty"))
        cases.append(Case(lambda x, fn=fn: fn(x, UIDS, 5), [DI],
                          lambda x, k=kind: _np_segment(k, x, UIDS, 5, False),
                          name=f"extra_unsorted_segment_{kind}_int32"))
        cases.append(Case(lambda x, fn=fn: fn(x, UIDS2, 3), [D3],
                          lambda x, k=kind: _np_segment(k, x, UIDS2, 3, False),
                          name=f"extra_unsorted_segment_{kind}_2d_ids"))
    cases += [
        Case(lambda x: tw.math.segment_prod(x, IDS), [ZD],
             lambda x: _np_segment("prod", x, IDS), name="extra_segment_prod_zeros"),
        Case(lambda x: tw.math.unsorted_segment_prod(x, UIDS, 5), [ZD],
             lambda x: _np_segment("prod", x, UIDS, 5, False),
             name="extra_unsorted_segment_prod_zeros"),
        Case(lambda x: tw.math.unsorted_segment_sqrt_n(x, UIDS, 5), [D],
             lambda x: _np_segment("sum", x, UIDS, 5, False)
             / np.sqrt(np.maximum(np.bincount(UIDS[UIDS >= 0], minlength=5), 1))[:, None],
             name="extra_unsorted_segment_sqrt_n"),
        # ties: the gradient is split between the tied maxima
        Case(lambda x: tw.math.segment_max(x, [0, 0, 1]), [np.array([2.0, 2.0, 1.0])],
             lambda x: np.array([2.0, 1.0]), grad=(), name="extra_segment_max_ties"),
        # gradients of the gradients (their ops are checked in turn, with second derivatives)
        # (with two zeros in a segment the first derivative's rule, TensorFlow's, is 0 by a
        # `where`, so its own derivative is not the true second derivative; one zero is exact)
        Case(grad_of(lambda x: tw.math.segment_prod(x, IDS)), [ZD1],
             name="extra_grad_of_segment_prod_one_zero"),
        Case(grad_of(lambda x: tw.math.unsorted_segment_prod(x, UIDS, 5) ** 2), [D],
             name="extra_grad_of_unsorted_segment_prod_squared"),
        Case(grad_of(lambda x: tw.math.unsorted_segment_mean(x, UIDS, 5) ** 2), [D],
             name="extra_grad_of_unsorted_segment_mean_squared"),
        Case(grad_of(lambda x: tw.math.segment_max(x, IDS) ** 2), [D],
             name="extra_grad_of_segment_max_squared"),
        Case(grad_of(lambda x: tw.math.unsorted_segment_min(x, UIDS_FULL, 3) ** 2), [D],
             name="extra_grad_of_unsorted_segment_min_squared"),
        Case(grad_of(lambda x: tw.tensor_scatter_nd_max(x, [[1], [1]], x[:2] * 0.5) ** 2), [D],
             name="extra_grad_of_tensor_scatter_nd_max"),
        Case(tw.function(lambda x: tw.math.segment_sum(x, IDS)), [D],
             lambda x: _np_segment("sum", x, IDS), name="extra_segment_sum_in_function"),
    ]
    return cases


def _bincount_cases():
    arr = np.array([[1, 1, 4], [0, 4, 4]], dtype=np.int32)
    w = rng.uniform(0.5, 1.5, size=arr.shape)
    return [
        Case(lambda: tw.math.bincount(tw.constant(arr)), [], lambda: _np_bincount(arr),
             name="extra_bincount"),
        Case(lambda x: tw.math.bincount(arr, weights=x), [w], lambda x: _np_bincount(arr, x),
             name="extra_bincount_weights"),
        Case(lambda x: tw.math.bincount(arr, weights=x, minlength=7), [w],
             lambda x: _np_bincount(arr, x, 7), name="extra_bincount_minlength"),
        Case(lambda x: tw.math.bincount(arr, weights=x, maxlength=3), [w],
             lambda x: _np_bincount(arr, x, 0, 3), name="extra_bincount_maxlength"),
        Case(lambda: tw.math.bincount(tw.constant(arr.astype(np.int64)), dtype=tw.float32,
                                      binary_output=True), [],
             lambda: _np_bincount(arr, binary=True, dtype=np.float32),
             name="extra_bincount_binary_float32"),
        Case(lambda x: tw.math.bincount(arr, weights=x, axis=-1), [w],
             lambda x: np.stack([_np_bincount(arr[r], x[r], 5) for r in range(2)]),
             name="extra_bincount_axis_last"),
    ]


def _s(*items) -> np.ndarray:
    """A string array as twinflow holds it: bytes in an object array."""
    out = np.empty(len(items), dtype=object)
    out[:] = [i.encode() for i in items]
    return out


def _smap(fn, x, out=object):
    res = np.empty(x.shape, dtype=out)
    res.reshape(-1)[:] = [fn(v) for v in x.reshape(-1)]
    return res


S = _s("Hello", " wOrld ", "caf\u00e9", "")
S2 = _s("a", "bc", "d", "ef")
NUMS = _s("1.5", "-2", " 3e2 ", "0")
INTS = _s("7", "-12", "0", "2147483647")
SM = S.reshape(2, 2)


def _string_cases():
    strs = tw.strings
    return [
        Case(strs.length, [S], lambda x: _smap(len, x, np.int32), name="extra_strings_length"),
        Case(lambda x: strs.length(x, unit="UTF8_CHAR"), [S],
             lambda x: _smap(lambda v: len(v.decode()), x, np.int32),
             name="extra_strings_length_utf8"),
        Case(strs.upper, [S], lambda x: _smap(bytes.upper, x), name="extra_strings_upper"),
        Case(lambda x: strs.lower(x, encoding="utf-8"), [S.reshape(2, 2)],
             lambda x: _smap(lambda v: v.decode().lower().encode(), x),
             name="extra_strings_lower_utf8"),
        Case(strs.strip, [S], lambda x: _smap(bytes.strip, x), name="extra_strings_strip"),
        Case(lambda x, y: strs.join([x, "-", y]), [S, S2],
             lambda x, y: _smap(lambda v: v, np.array([a + b"-" + b for a, b in zip(x, y)],
                                                      dtype=object)),
             name="extra_strings_join"),
        Case(lambda x: strs.reduce_join(x, axis=1, separator=","), [SM],
             lambda x: np.array([b",".join(r) for r in x], dtype=object),
             name="extra_strings_reduce_join_axis"),
        Case(lambda x: strs.reduce_join(x, keepdims=True), [SM],
             lambda x: np.array([[b"".join(x.reshape(-1))]], dtype=object),
             name="extra_strings_reduce_join_all_keepdims"),
        Case(lambda x: strs.regex_full_match(x, r"[a-z]+"), [S2],
             lambda x: np.array([True, True, True, True]), name="extra_strings_regex_match"),
        Case(lambda x: strs.regex_full_match(x, r"H.*o"), [S],
             lambda x: np.array([True, False, False, False]),
             name="extra_strings_regex_match_anchored"),
        Case(lambda x: strs.regex_replace(x, r"([lo])", r"<\1>", replace_global=False), [S],
             lambda x: _smap(lambda v: v.replace(b"l", b"<l>", 1) if b"l" in v else
                             v.replace(b"o", b"<o>", 1), x),
             name="extra_strings_regex_replace_first"),
        Case(lambda x: strs.substr(x, 1, 3), [S2],
             lambda x: _smap(lambda v: v[1:4], x), name="extra_strings_substr"),
        Case(lambda x, p: strs.substr(x, p, 2), [S2, np.array([0, -2, -1, 1], np.int32)],
             lambda x, p: _s("a", "bc", "d", "f"), name="extra_strings_substr_tensor_pos"),
        Case(strs.to_number, [NUMS], lambda x: np.array([1.5, -2, 300, 0], np.float32),
             name="extra_strings_to_number"),
        Case(lambda x: strs.to_number(x, tw.int32), [INTS],
             lambda x: np.array([7, -12, 0, 2147483647], np.int32),
             name="extra_strings_to_number_int32"),
        Case(strs.as_string, [D1], lambda x: _smap(lambda v: b"%f" % v, x),
             name="extra_strings_as_string_float64"),
        Case(lambda x: strs.as_string(x, precision=2, scientific=True), [D1.astype(np.float32)],
             lambda x: _smap(lambda v: b"%.2e" % v, x), name="extra_strings_as_string_sci"),
        Case(lambda x: tw.as_string(x, width=4, fill="0"), [DI[0]],
             lambda x: _smap(lambda v: b"%04d" % v, x), name="extra_as_string_int_width"),
        Case(lambda x: tw.as_string(x > 0), [DI[0]],
             lambda x: _smap(lambda v: b"true" if v > 0 else b"false", x),
             name="extra_as_string_bool"),
        Case(lambda x, y: strs.format("x={}, y={}!", [x, y]), [DI[:2, :2], S2],
             lambda x, y: np.array("x=[[{} {}]\n [{} {}]], y=[\"a\" \"bc\" \"d\" \"ef\"]!"
                                   .format(*x.reshape(-1)).encode(), dtype=object),
             name="extra_strings_format"),
        Case(lambda: strs.split(tw.constant(" a bc  d ")), [],
             lambda: _s("a", "bc", "d"), name="extra_strings_split_whitespace"),
        Case(lambda: strs.split(tw.constant("a,,b,c"), sep=",", maxsplit=2), [],
             lambda: _s("a", "", "b,c"), name="extra_strings_split_sep_maxsplit"),
    ]


def _scatter_cases():
    t = rng.normal(size=(4, 3))
    upd = rng.normal(size=(2, 3))
    ind = np.array([[3], [1]], dtype=np.int32)
    dup = np.array([[1], [1]], dtype=np.int32)

    def np_sub(x, u, i=ind):
        out = x.copy()
        np.subtract.at(out, i[:, 0], u)
        return out

    def np_ext(f, x, u, i=ind):
        out = x.copy()
        f.at(out, i[:, 0], u)
        return out
    return [
        Case(lambda x, u: tw.tensor_scatter_nd_sub(x, ind, u), [t, upd], np_sub,
             name="extra_tensor_scatter_nd_sub"),
        Case(lambda x, u: tw.tensor_scatter_nd_sub(x, dup, u), [t, upd],
             lambda x, u: np_sub(x, u, dup), name="extra_tensor_scatter_nd_sub_duplicates"),
        Case(lambda x, u: tw.tensor_scatter_nd_max(x, ind, u), [t, upd],
             lambda x, u: np_ext(np.maximum, x, u), name="extra_tensor_scatter_nd_max"),
        Case(lambda x, u: tw.tensor_scatter_nd_min(x, ind, u), [t, upd],
             lambda x, u: np_ext(np.minimum, x, u), name="extra_tensor_scatter_nd_min"),
        Case(lambda x, u: tw.tensor_scatter_nd_max(x, [[0, 1], [2, 2]], u), [DI, DI[0, :2]],
             lambda x, u: np_ext(np.maximum, x.reshape(-1), u, np.array([[1], [8]]))
             .reshape(x.shape), name="extra_tensor_scatter_nd_max_int32_elements"),
        # IndexedSlices made dense: rows at duplicate indices sum
        Case(lambda v: tw.convert_to_tensor(tw.IndexedSlices(v, [2, 0, 2], [4, 3])),
             [rng.normal(size=(3, 3))],
             lambda v: np.stack([v[1], np.zeros(3), v[0] + v[2], np.zeros(3)]),
             name="extra_indexed_slices_dense"),
    ]


CASES = _segment_cases() + _bincount_cases() + _string_cases() + _scatter_cases()

COVERED_ELSEWHERE = {
    name: "tests/ops/test_variable_updates.py (eagerly, in tw.function and in a TF1 graph)"
    for name in ("ResourceStridedSliceAssign", "ResourceScatterUpdate", "ResourceScatterAdd",
                 "ResourceScatterSub", "ResourceScatterMul", "ResourceScatterDiv",
                 "ResourceScatterMax", "ResourceScatterMin", "ResourceScatterNdUpdate",
                 "ResourceScatterNdAdd", "ResourceScatterNdSub", "ResourceScatterNdMax",
                 "ResourceScatterNdMin")
}
