"""Every TensorFlow function/class twinflow implements takes TF's parameters: the same names in
the same order, the same defaults (compared where simple: None/bool/int/float/str). Differences
must be listed, with a reason, in tests/fixtures/signature_differences.txt."""
import inspect
import pathlib

import twinflow as tw

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
SIMPLE = (type(None), bool, int, float, str)


def _tf_signatures() -> dict:
    rows = (line.split("\t") for line in (FIXTURES / "tf_all_signatures.tsv").read_text()
            .splitlines() if line and not line.startswith("#"))
    return {row[0]: row[1:] for row in rows}


def _allowed() -> set:
    lines = (FIXTURES / "signature_differences.txt").read_text().splitlines()
    return {line.split("#")[0].strip() for line in lines} - {""}


def _resolve(name: str):
    obj = tw
    for part in name.split(".")[1:]:
        try:
            obj = getattr(obj, part)
        except Exception:  # not implemented (or refuses on access): nothing to compare
            return None
    return obj


def _ours(obj) -> list:
    out = []
    for p in inspect.signature(obj).parameters.values():
        if p.kind == p.VAR_POSITIONAL:
            out.append(f"*{p.name}")
        elif p.kind == p.VAR_KEYWORD:
            out.append(f"**{p.name}")
        elif p.default is p.empty:
            out.append(p.name)
        else:
            d = p.default
            out.append(f"{p.name}={repr(d) if isinstance(d, SIMPLE) else '?'}")
    return out


def _same(tf_param: str, our_param: str) -> bool:
    tf_name, _, tf_default = tf_param.partition("=")
    our_name, _, our_default = our_param.partition("=")
    if tf_name != our_name or bool(tf_default) != bool(our_default):
        return False
    return "?" in (tf_default, our_default) or tf_default == our_default or \
        _equal_numbers(tf_default, our_default)


def _equal_numbers(a: str, b: str) -> bool:
    """``0`` and ``0.0`` are the same default; ``True`` and ``1`` are not."""
    try:
        x, y = float(a), float(b)
    except ValueError:
        return False
    return x == y


def _mismatches() -> dict:
    out = {}
    for name, tf_params in _tf_signatures().items():
        obj = _resolve(name)
        if obj is None or not callable(obj):
            continue
        try:
            ours = _ours(obj)
        except (TypeError, ValueError):
            ours = ["<no signature>"]
        if len(ours) != len(tf_params) or not all(map(_same, tf_params, ours)):
            out[name] = (tf_params, ours)
    return out


def test_every_implemented_name_has_tensorflows_signature():
    mismatches = _mismatches()
    allowed = _allowed()
    new = {n: v for n, v in mismatches.items() if n not in allowed}
    fixed = sorted(n for n in allowed if n not in mismatches)
    report = [f"{n}: TF ({', '.join(t)}) twinflow ({', '.join(o)})" for n, (t, o) in
              sorted(new.items())]
    assert not report, f"{len(report)} signatures differ from TensorFlow's:\n" + "\n".join(report)
    assert not fixed, ("these now match TensorFlow; remove them from "
                       "tests/fixtures/signature_differences.txt:\n" + "\n".join(fixed))
