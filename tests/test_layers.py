"""The layering contract: which package of attncli may import which (docs/development.md).

Every import of every module is read with `ast`, those inside functions and under
`if TYPE_CHECKING:` included: an import deferred to run time, or made for the type checker only,
still makes the lower module know the higher one. For the layers, so does a string that names a
module of the package in full (`"attncli.spec.block"`): a registry that imports its entries by
name when one is needed (importlib.import_module) depends on them as an import statement would.
Such a name closes no circle of imports (the entry is imported after the registry's module, when
it is asked for, as a format of render/ is), so the circles are sought among import statements.
Two rules hold:
- a package imports only the packages below it in LAYERS (never one beside it in the same layer);
- no module is in a circle of imports (a strongly connected component of more than one module).
The checker is run on a small package made here too, so that the test is seen to fail.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "attncli"

# Top to bottom. A name is a subpackage or a module at the root of attncli; "attncli" is the
# package's own __init__ (the library API). Entries of one layer may not import each other.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("__main__", "attncli"),
    ("library",),
    ("cli",),
    ("snippets", "fill"),
    ("check", "render"),
    ("steps",),
    ("arithmetic",),
    ("compute",),
    ("spec",),
    ("model", "files", "workers"),
    ("errors",),
    ("i18n",),
    ("records",),
)


def module_names(package: Path) -> dict[str, Path]:
    """Every module below `package`, by its dotted name (`attncli.spec.parse`)."""
    found = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def imports_of(name: str, path: Path, modules: dict[str, Path]) -> Iterator[str]:
    """The modules of the package that `name` imports, wherever the import stands."""
    is_package = path.name == "__init__.py"
    here = name.split(".") if is_package else name.split(".")[:-1]
    root = name.split(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names if a.name.split(".")[0] == root)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[:len(here) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            if source.split(".")[0] != root:
                continue
            for alias in node.names:
                child = f"{source}.{alias.name}"
                yield child if child in modules else source


def named_in(path: Path, modules: dict[str, Path]) -> Iterator[str]:
    """The modules of the package a module names in full in a string: a registry's entries,
    imported by name (importlib.import_module) when one is needed."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and node.value in modules:
            yield node.value


def graph(package: Path, by_name: bool = False) -> dict[str, set[str]]:
    """Who imports whom; `by_name`: a registry's entries named in strings too."""
    modules = module_names(package)
    edges = {}
    for name, path in modules.items():
        found = set(imports_of(name, path, modules))
        if by_name:
            found |= set(named_in(path, modules))
        edges[name] = {m for m in found if m != name and m in modules}
    return edges


def unit(module: str) -> str:
    """The entry of LAYERS a module belongs to: its subpackage, or itself at the root."""
    parts = module.split(".")
    return parts[0] if len(parts) == 1 else parts[1]


def layer_violations(edges: dict[str, set[str]],
                     layers: tuple[tuple[str, ...], ...]) -> list[str]:
    rank = {entry: i for i, layer in enumerate(layers) for entry in layer}
    wrong = []
    for source, targets in sorted(edges.items()):
        for target in sorted(targets):
            a, b = unit(source), unit(target)
            if a == b:
                continue
            if a not in rank or b not in rank:
                wrong.append(f"{source} -> {target}: {a if a not in rank else b} has no layer")
            elif rank[b] <= rank[a]:
                where = "beside it" if rank[b] == rank[a] else "above it"
                wrong.append(f"{source} -> {target}: {b} is {where}")
    return wrong


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_every_package_imports_only_the_layers_below_it() -> None:
    assert layer_violations(graph(PACKAGE, by_name=True), LAYERS) == []


def test_no_module_is_in_a_circle_of_imports() -> None:
    assert circles(graph(PACKAGE)) == []


def test_the_root_holds_packages_and_four_modules() -> None:
    modules = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert modules == ["__init__.py", "__main__.py", "errors.py", "library.py"]
    for package in PACKAGE.iterdir():
        if package.is_dir() and (package / "__init__.py").exists():
            doc = ast.get_docstring(ast.parse((package / "__init__.py").read_text("utf-8")))
            assert doc, f"{package.name}/__init__.py says what the package holds"


def test_every_package_has_a_layer() -> None:
    entries = {entry for layer in LAYERS for entry in layer}
    units = {unit(m) for m in module_names(PACKAGE)}
    assert units <= entries, units - entries


@pytest.fixture()
def tiny(tmp_path: Path) -> Path:
    """A package laid out like attncli: `low` below `high`, and a module of `low` made to reach
    back up."""
    pkg = tmp_path / "attncli"
    for folder in ("high", "low"):
        (pkg / folder).mkdir(parents=True)
        (pkg / folder / "__init__.py").write_text('"""A layer."""\n')
    (pkg / "__init__.py").write_text("")
    (pkg / "high" / "top.py").write_text("from attncli.low.base import f\n")
    (pkg / "low" / "base.py").write_text("def f():\n    from attncli.high import top\n")
    (pkg / "low" / "helper.py").write_text("from . import base\n")
    (pkg / "low" / "registry.py").write_text('SECTIONS = {"top": "attncli.high.top"}\n')
    return pkg


def test_the_checker_sees_an_import_back_up_and_the_circle_it_makes(tiny: Path) -> None:
    edges = graph(tiny, by_name=True)
    assert edges["attncli.low.helper"] == {"attncli.low.base"}  # a relative import, resolved
    layers = (("attncli",), ("high",), ("low",))
    assert edges["attncli.low.registry"] == {"attncli.high.top"}  # a module named in a string
    assert graph(tiny)["attncli.low.registry"] == set()
    assert layer_violations(edges, layers) == [
        "attncli.low.base -> attncli.high.top: high is above it",
        "attncli.low.registry -> attncli.high.top: high is above it"]
    assert circles(edges) == [["attncli.high.top", "attncli.low.base"]]
