"""Each layer of twinflow imports only layers below it (docs/architecture.md)."""
from __future__ import annotations

import ast
import pathlib

PKG = pathlib.Path(__file__).resolve().parents[1] / "src" / "twinflow"

# Bottom to top. Packages in one tuple are one layer and may not import each other.
LAYERS = [
    ("core",),
    ("framework",),
    ("graph",),
    ("eager",),
    ("ops",),
    ("autodiff",),
    ("control",),
    ("compiler",),
    ("function",),
    ("autograph",),
    ("keras", "data", "train", "summary", "saved_model", "compat"),
    ("cli", "bench"),
]
LEVEL = {name: i for i, group in enumerate(LAYERS) for name in group}


def _imports(path: pathlib.Path):
    tree = ast.parse(path.read_text())
    rel = path.relative_to(PKG).parts
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level == 0:
                if node.module and node.module.startswith("twinflow."):
                    yield node.module.split(".")[1], node.lineno
                continue
            base = list(rel[:-1])[: len(rel) - 1 - (node.level - 1)]
            target = base + (node.module.split(".") if node.module else [])
            if target:
                yield target[0], node.lineno
            else:  # "from .. import x" at the package root: x is the top-level module
                for alias in node.names:
                    yield alias.name, node.lineno
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("twinflow."):
                    yield alias.name.split(".")[1], node.lineno


def test_layers_import_only_downwards():
    bad = []
    for path in PKG.rglob("*.py"):
        rel = path.relative_to(PKG).parts
        top = rel[0].removesuffix(".py")
        if top not in LEVEL:
            continue  # namespace modules (nn.py, math.py, __init__.py) only re-export
        for target, line in _imports(path):
            if target in LEVEL and LEVEL[target] > LEVEL[top]:
                bad.append(f"{path.relative_to(PKG)}:{line} imports layer {target!r}")
            elif target not in LEVEL and target != top:
                bad.append(f"{path.relative_to(PKG)}:{line} imports namespace module "
                           f"{target!r}; import the implementing package instead")
    assert not bad, "\n".join(bad)


def test_every_package_has_a_layer():
    pkgs = {p.name for p in PKG.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert pkgs <= set(LEVEL), f"packages without a layer: {sorted(pkgs - set(LEVEL))}"
