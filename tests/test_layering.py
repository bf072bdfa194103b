"""The map of docs/architecture.md holds: each layer imports only layers below it, no import
cycle between files, no hook filled from above (file length: tests/test_file_sizes.py)."""
from __future__ import annotations

import ast
import pathlib
import re

PKG = pathlib.Path(__file__).resolve().parents[1] / "src" / "twinflow"
DOC = PKG.parents[1] / "docs" / "architecture.md"

# Bottom to top. Packages in one tuple are one layer and may not import each other.
LAYERS = [
    ("core",),
    ("framework",),
    ("graph",),
    ("eager",),
    ("compiler",),
    ("ops",),
    ("autodiff",),
    ("control",),
    ("autograph",),
    ("function",),
    ("io",),
    ("saved_model", "numpy_api"),
    ("keras", "data", "train", "summary", "compat", "onnx", "distribute"),
    ("cli", "bench"),
]
LEVEL = {name: i for i, group in enumerate(LAYERS) for name in group}

# Import cycles between files (module-level imports) that are known and being removed, as
# sets of module names. Empty: there is none.
ALLOWED_CYCLES: list = []

# Imports of twinflow modules inside functions (run on call, not at import) hide a dependency
# from this test; each must be listed here with its reason. Empty: there is none.
DEFERRED_IMPORTS: dict = {
    # AutoGraph (~25 modules) loads on the first trace: ``import twinflow`` stays fast (issue 10)
    "function/function.py:twinflow.autograph": "AutoGraph loads on the first trace",
    # the tfdbg2 dumper (and tw.io) load on first use: ``import twinflow`` stays fast
    "debugging.py:twinflow.io.debug_events": "the tfdbg2 dumper loads on first use",
}

def _files():
    return sorted(PKG.rglob("*.py"))


def _module_name(path: pathlib.Path) -> str:
    parts = list(path.relative_to(PKG.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


MODULES = {_module_name(p): p for p in _files()}


def _resolve(path: pathlib.Path, node: ast.ImportFrom | ast.Import) -> list:
    """The twinflow modules an import statement names (a package means its __init__)."""
    me = _module_name(path)
    package = me if path.name == "__init__.py" else me.rpartition(".")[0]
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name.split(".")[0] == "twinflow"]
    if node.level:
        base = package.split(".")
        base = base[:len(base) - (node.level - 1)]
        target = ".".join(base + ([node.module] if node.module else []))
    else:
        target = node.module or ""
    if target.split(".")[0] != "twinflow":
        return []
    out = []
    for alias in node.names:
        sub = f"{target}.{alias.name}"
        out.append(sub if sub in MODULES else target)
    return out


def _imports(path: pathlib.Path, deferred: bool):
    """(module, line) for each twinflow import at module level (or, if ``deferred``, inside
    functions only)."""
    tree = ast.parse(path.read_text())

    def walk(node, in_function: bool):
        for child in ast.iter_child_nodes(node):
            if (isinstance(child, ast.If) and isinstance(child.test, ast.Name)
                    and child.test.id == "TYPE_CHECKING"):
                continue  # imports for annotations only: never executed
            inside = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                       ast.Lambda))
            if isinstance(child, (ast.Import, ast.ImportFrom)) and in_function == deferred:
                for m in _resolve(path, child):
                    yield m, child.lineno
            yield from walk(child, inside)
    yield from walk(tree, False)


def _top(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "twinflow"


def test_layers_import_only_downwards():
    bad = []
    for path in _files():
        rel = path.relative_to(PKG).parts
        top = rel[0].removesuffix(".py")
        if top not in LEVEL:
            continue  # namespace modules (nn.py, math.py, __init__.py) only re-export
        for deferred in (False, True):
            for module, line in _imports(path, deferred):
                target = _top(module)
                if target in LEVEL and LEVEL[target] > LEVEL[top]:
                    bad.append(f"{path.relative_to(PKG)}:{line} imports layer {target!r}")
                elif target == "twinflow" and LEVEL[top] == len(LAYERS) - 1:
                    continue  # the command line and the bench use the public namespace
                elif target not in LEVEL and target != top:
                    bad.append(f"{path.relative_to(PKG)}:{line} imports namespace module "
                               f"{target!r}; import the implementing package instead")
    assert not bad, "\n".join(bad)


def test_every_package_has_a_layer():
    pkgs = {p.name for p in PKG.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert pkgs <= set(LEVEL), f"packages without a layer: {sorted(pkgs - set(LEVEL))}"


def _cycles(graph: dict) -> list:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict = {}
    low: dict = {}
    stack: list = []
    on_stack: set = set()
    found = []
    counter = 0
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, children = work[-1]
            for w in children:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = set()
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        comp.add(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        found.append(comp)
    return found


def _import_graph() -> dict:
    return {m: {t for t, _ in _imports(p, False) if t in MODULES and t != m}
            for m, p in MODULES.items()}


def test_no_import_cycles_between_files():
    cycles = [sorted(c) for c in _cycles(_import_graph()) if c not in ALLOWED_CYCLES]
    assert not cycles, "import cycles (module-level imports):\n" + "\n".join(
        " -> ".join(c) for c in cycles)


def test_cycle_finder_finds_a_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert _cycles(graph) == [{"a", "b", "c"}]


def test_imports_inside_functions_are_documented():
    found = {f"{p.relative_to(PKG)}:{m}" for p in _files() for m, _ in _imports(p, True)}
    undocumented = sorted(found - set(DEFERRED_IMPORTS))
    assert not undocumented, "imports inside functions (list them in DEFERRED_IMPORTS with " \
        "the reason, and in docs/architecture.md):\n" + "\n".join(undocumented)
    stale = sorted(set(DEFERRED_IMPORTS) - found)
    assert not stale, f"DEFERRED_IMPORTS lists imports that are gone: {stale}"


def _assigned_modules(path: pathlib.Path) -> list:
    """Attribute assignments (``mod.x = ...``, ``mod.x[0] = ...``, ``setattr(mod, ...)``) on
    twinflow modules (or module-level objects) imported by ``path``."""
    tree = ast.parse(path.read_text())
    modules: dict = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            for alias, target in zip(node.names, _resolve(path, node)):
                # A submodule, or a lower-case name (a module re-exported by a package, or a
                # module-level object). core/context.py holds the execution state (``ctx``,
                # per-process settings): meant to change, through its objects.
                if target == "twinflow.core.context" or alias.name in ("ctx", "process"):
                    continue
                if target.endswith("." + alias.name) or \
                        alias.name[0].islower() or alias.name[0] == "_":
                    modules[alias.asname or alias.name] = f"{target}:{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "twinflow":
                    modules[alias.asname or alias.name.split(".")[0]] = alias.name
    bad = []
    for node in ast.walk(tree):
        targets = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                node.func.id == "setattr" and node.args:
            targets = [ast.Attribute(value=node.args[0], attr="?")]
        for t in targets:
            base, under = t, None
            while isinstance(base, (ast.Attribute, ast.Subscript)):
                base, under = base.value, base
            # ``mod.x = ...``/``mod.x[0] = ...``/``obj.x = ...``; not ``table[key] = ...``
            # on a dict a module shares.
            if isinstance(under, ast.Attribute) and isinstance(base, ast.Name) and \
                    base.id in modules:
                bad.append(f"{path.relative_to(PKG)}:{node.lineno} sets an attribute of "
                           f"module {modules[base.id]}")
    return bad


def test_no_module_fills_another_modules_hooks():
    """A lower layer that must call up declares a typed ``register_*`` function instead."""
    bad = [b for p in _files() for b in _assigned_modules(p)]
    assert not bad, "\n".join(bad)


def test_no_importlib_reaching_into_twinflow():
    bad = []
    for path in _files():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and node.args and \
                    isinstance(node.args[0], ast.Constant) and \
                    str(node.args[0].value).split(".")[0] == "twinflow" and \
                    ast.unparse(node.func).split(".")[-1] in ("import_module", "__import__"):
                bad.append(f"{path.relative_to(PKG)}:{node.lineno}")
    assert not bad, "importlib used to reach a twinflow module:\n" + "\n".join(bad)


def test_architecture_doc_lists_the_layers_in_order():
    """The layer table of docs/architecture.md names the packages of LAYERS, bottom to top."""
    rows = re.findall(r"^\| *(\d+) *\| *(.+?) *\|", DOC.read_text(), re.M)
    doc = [tuple(re.findall(r"`([a-z_]+)(?:/|\.py)`", cell)) for _, cell in rows]
    assert doc == LAYERS, f"docs/architecture.md layer table: {doc}"
