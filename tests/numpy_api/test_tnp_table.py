"""Every call of ``tnp_cases.CASES`` through ``tw.experimental.numpy``: values against NumPy,
dtypes (and shapes) against what TensorFlow 2.21's tnp returns (the fixture made by
``tests/fixtures/experimental_numpy/make_fixtures.py``), eagerly and inside ``tw.function``,
and with ``prefer_float32``."""
from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

import twinflow as tw
from twinflow.numpy_api import behavior

from .tnp_cases import CASES

tnp = tw.experimental.numpy
FIXTURE = json.loads((pathlib.Path(__file__).parents[1] / "fixtures" / "experimental_numpy"
                      / "tnp_dtypes.json").read_text())
FIXTURE["f32"] = {**FIXTURE["np"], **FIXTURE["f32"]}  # the file keeps only the differences

# NumPy references where np.<name> is not the same function.
REFS = {
    "flatten": lambda a, order="C": np.ravel(a, order),
    "reciprocal": lambda x: 1.0 / x,  # NumPy divides integers as integers; tnp as floats
}
# Where twinflow deliberately differs from TensorFlow 2.21's tnp (NumPy's answer instead).
DEVIATIONS = {
    "linspace:1": "TensorFlow ignores dtype=float32 (float64); twinflow honours it as NumPy",
    "linspace:2": "TensorFlow ignores dtype=int32 (float64); twinflow honours it as NumPy",
    "logspace:1": "TensorFlow ignores dtype=float32 (float64); twinflow honours it as NumPy",
}


def _build(spec, module):
    if isinstance(spec, tuple) and spec and spec[0] == "A":
        arr = np.array(spec[2], dtype=spec[1])
        return arr if module is np else tw.constant(arr)
    if isinstance(spec, tuple) and spec and spec[0] == "T":
        return getattr(module, spec[1], None) or getattr(np, spec[1])
    if isinstance(spec, list):
        return [_build(s, module) for s in spec]
    return spec


def _call(name, args, kwargs, module):
    fn = getattr(module, name) if module is tnp else REFS.get(name, getattr(np, name, None))
    return fn(*[_build(a, module) for a in args],
              **{k: _build(v, module) for k, v in kwargs.items()})


def _plain(value):
    """A result as NumPy values (tensors to arrays, shapes and dtypes to lists and names)."""
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, tw.TensorShape):
        return list(value.as_list())
    if isinstance(value, tw.DType):
        return value.name
    if isinstance(value, np.dtype):
        return value.name
    if hasattr(value, "numpy"):
        return np.asarray(value.numpy())
    return value


def _check_values(got, want, cid: str) -> None:
    if isinstance(want, (list, tuple)) and not isinstance(got, np.ndarray):
        assert isinstance(got, list) and len(got) == len(want), f"{cid}: {got} vs {want}"
        for g, w in zip(got, want):
            _check_values(g, w, cid)
        return
    if isinstance(want, np.dtype):
        want = want.name
    if isinstance(want, (str, bool)) or want is None:
        assert got == want, f"{cid}: {got!r} vs NumPy {want!r}"
        return
    want = np.asarray(want)
    got = np.asarray(got)
    assert got.shape == want.shape, f"{cid}: shape {got.shape} vs NumPy {want.shape}"
    if want.dtype.kind in "fc" or got.dtype.kind in "fc":
        rtol = 2e-3 if np.float16 in (got.dtype, want.dtype) else 1e-5
        np.testing.assert_allclose(got.astype(np.complex128), want.astype(np.complex128),
                                   rtol=rtol, atol=1e-6, equal_nan=True, err_msg=cid)
    else:
        np.testing.assert_array_equal(got, want, err_msg=cid)


def _describe(value):
    if isinstance(value, (list, tuple)):
        return [_describe(v) for v in value]
    if isinstance(value, tw.Tensor):  # as the fixture writes it: "float32[2, 3]"
        return f"{value.dtype.name}{value.shape.as_list()}"
    return {"py": _plain(value)}


def _check_dtype(value, expected, cid: str) -> None:
    got = _describe(value)
    if isinstance(expected, dict) and "error" in expected or cid.split()[0] in DEVIATIONS:
        return  # TensorFlow refuses this call (twinflow answers as NumPy) or differs on purpose
    if isinstance(expected, dict) and isinstance(expected.get("py"), bool) and \
            isinstance(got, str) and got.startswith("bool["):
        return  # TensorFlow answers isinf(int) with a Python bool; twinflow with a tensor
    assert got == expected, f"{cid}: twinflow {got} vs TensorFlow {expected}"


IDS = [c[0] for c in CASES]


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_case_eager_and_in_function(case):
    cid, name, args, kwargs, opts = case
    got = _call(name, args, kwargs, tnp)
    _check_dtype(got, FIXTURE["np"][cid], cid)
    if opts.get("values", True):
        _check_values(_plain(got), _call(name, args, kwargs, np), cid)
    tensors_out = isinstance(got, tw.Tensor) or (
        isinstance(got, (list, tuple)) and all(isinstance(g, tw.Tensor) for g in got))
    if not opts.get("graph", True) or not tensors_out:
        return
    built = [_build(a, tnp) for a in args]
    positions = [i for i, a in enumerate(built) if isinstance(a, tw.Tensor)]
    kw = {k: _build(v, tnp) for k, v in kwargs.items()}

    def traced(*ts):
        call = list(built)
        for i, t in zip(positions, ts):
            call[i] = t
        return getattr(tnp, name)(*call, **kw)

    in_fn = tw.function(traced, autograph=False)(*[built[i] for i in positions])
    _check_dtype(in_fn, FIXTURE["np"][cid], cid + " (tw.function)")
    if opts.get("values", True):
        _check_values(_plain(in_fn), _plain(got), cid + " (tw.function vs eager)")


@pytest.fixture
def prefer_float32():
    tnp.experimental_enable_numpy_behavior(prefer_float32=True)
    yield
    behavior.disable_numpy_behavior()


def test_prefer_float32_dtypes(prefer_float32):
    bad = []
    for cid, name, args, kwargs, _ in CASES:
        if cid in DEVIATIONS:
            continue
        try:
            _check_dtype(_call(name, args, kwargs, tnp), FIXTURE["f32"][cid], cid)
        except AssertionError as e:
            bad.append(str(e))
    assert not bad, "\n".join(bad)


def test_every_function_has_a_case():
    functions = {n for n in tnp.__all__ if callable(getattr(tnp, n))
                 and not isinstance(getattr(tnp, n), type) and n not in ("finfo",)}
    missing = functions - {c[1] for c in CASES} - {"experimental_enable_numpy_behavior"}
    assert not missing, f"tnp functions without a table case: {sorted(missing)}"
