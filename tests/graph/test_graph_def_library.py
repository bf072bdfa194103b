"""GraphDef ``library``: the sub-graphs control-flow ops refer to, under unique names."""
from __future__ import annotations

import re

import twinflow as tw


def _graph(fn, *specs):
    return tw.function(fn).get_concrete_function(*specs).graph


def _func_refs(text: str) -> list:
    return re.findall(r'func \{\n\s*name: "([^"]+)"', text)


def _library_names(text: str) -> list:
    lib = text[text.index("library {"):]
    return re.findall(r'signature \{\n\s*name: "([^"]+)"', lib)


def two_ifs(x):
    if tw.reduce_sum(x) > 0:
        x = tw.nn.relu(x)
    if tw.reduce_max(x) > 1:
        x = x / 2.0
    return x


def test_every_referenced_function_is_in_the_library():
    gd = _graph(two_ifs, tw.TensorSpec([3])).as_graph_def()
    text = str(gd)
    refs = _func_refs(text)
    assert len(refs) == 4 and len(set(refs)) == 4   # one name per branch, none shared
    assert all(re.fullmatch(r"cond_(true|false)_\d+", r) for r in refs), refs
    assert sorted(_library_names(text)) == sorted(refs)
    # The text is laid out like TensorFlow's: nodes, then the library, then the versions.
    assert text.index("node {") < text.index("library {") < text.index("versions {")
    assert text.endswith("versions {\n  producer: 1645\n}\n")
    # and the objects mirror the proto's fields
    names = [f.signature.name for f in gd.library.function]
    assert sorted(names) == sorted(refs)  # map entries print in protobuf's order
    then_name = re.search(r'key: "then_branch"\n\s*value \{\n\s*func \{\n\s*name: "([^"]+)"',
                          text).group(1)
    then = next(f for f in gd.library.function if f.signature.name == then_name)
    assert [n.op for n in then.node_def] == ["Relu"]
    assert [a.type for a in then.signature.input_arg] == [tw.float32]
    assert list(then.ret.values()) == ["Relu"]


def test_function_def_text():
    text = str(_graph(two_ifs, tw.TensorSpec([3])).as_graph_def())
    name = re.search(r'key: "then_branch"\n\s*value \{\n\s*func \{\n\s*name: "([^"]+)"',
                     text).group(1)
    expected = (
        "  function {\n"
        "    signature {\n"
        f'      name: "{name}"\n'
        "      input_arg {\n"
        '        name: "capture"\n'
        "        type: DT_FLOAT\n"
        "      }\n"
        "      output_arg {\n"
        '        name: "output_0"\n'
        "        type: DT_FLOAT\n"
        "      }\n"
        "    }\n"
        "    node_def {\n"
        '      name: "Relu"\n'
        '      op: "Relu"\n'
        '      input: "capture"\n')
    assert expected in text
    assert '    ret {\n      key: "output_0"\n      value: "Relu"\n    }\n' in text


def loop_with_if(n):
    i = tw.constant(0)
    s = tw.constant(0.0)
    while i < n:
        if i % 2 == 0:
            s = s + 1.0
        i += 1
    return s


def test_nested_sub_graphs_are_listed_too():
    text = str(_graph(loop_with_if, tw.TensorSpec([], tw.int32)).as_graph_def())
    refs = _func_refs(text)
    names = _library_names(text)
    assert len(names) == len(set(names)) == 4
    assert sorted(names) == sorted(set(refs))
    assert sorted(n for n in names if n.startswith("while_")) == \
        sorted(n for n in refs if n.startswith("while_"))
    assert any(re.fullmatch(r"while_cond_\d+", n) for n in names)
    assert any(re.fullmatch(r"while_body_\d+", n) for n in names)
    # the If op sits in the loop body's function, its branches in the library
    assert sum(bool(re.fullmatch(r"cond_(true|false)_\d+", n)) for n in names) == 2


def test_names_are_unique_per_op_and_stable_per_trace():
    def f(x):
        a = tw.cond(x > 0, lambda: x * 2.0, lambda: x)
        b = tw.cond(x < 5, lambda: a + 1.0, lambda: a)
        return tw.while_loop(lambda v: v < 10.0, lambda v: v + 1.0, [b])[0]

    g1 = _graph(f, tw.TensorSpec([]))
    g2 = _graph(f, tw.TensorSpec([], tw.float32, name="y"))
    n1 = [f.signature.name for f in g1.as_graph_def().library.function]
    n2 = [f.signature.name for f in g2.as_graph_def().library.function]
    assert len(set(n1)) == 6 and n1 == n2   # numbered per graph, not per process
    assert not any(n in ("if_true", "if_false", "cond_true", "while_body") for n in n1)


def test_a_graph_without_control_flow_has_no_library():
    text = str(_graph(lambda x: x * 2.0, tw.TensorSpec([])).as_graph_def())
    assert "library" not in text
    assert len(_graph(lambda x: x, tw.TensorSpec([])).as_graph_def().library.function) == 0
