"""The package's shape: folders by role, small modules, imports one way and without cycles.

``service/`` holds at most ten modules of its own; everything else lives in a package named after its
role (games, storage, api, web, ops). The games are pure: they import neither storage nor HTTP; the
storage layer knows nothing of HTTP. No module imports itself back through others (an import under
``if TYPE_CHECKING:`` counts: a part that needs its whole's type to run is a part of a cycle), and none
is longer than 500 lines.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SERVICE = Path(__file__).resolve().parent.parent / "service"
MAX_LINES = 500
MAX_ROOT_MODULES = 10


def _modules() -> dict[str, Path]:
    found = {}
    for path in SERVICE.rglob("*.py"):
        if "docs_ui" in path.parts:
            continue
        parts = list(path.relative_to(SERVICE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def _imports(name: str, path: Path) -> set[str]:
    """The service modules ``name`` imports, anywhere in it (under ``if TYPE_CHECKING:`` too)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(parent + ([node.module] if node.module else []))
            for alias in node.names:  # `from pkg import module` imports the module
                found.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return {module for module in found if module in MODULES and module != name}


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def test_the_root_holds_at_most_ten_modules():
    root = sorted(p.name for p in SERVICE.glob("*.py"))
    assert len(root) <= MAX_ROOT_MODULES, root


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_module_is_longer_than_500_lines(name):
    lines = len(MODULES[name].read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{MODULES[name].relative_to(SERVICE.parent)}: {lines} lines"


def test_no_import_cycle():
    """Tarjan's strongly connected components of the import graph: each must be one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in GRAPH[node]:
            if other not in index:
                connect(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for name in sorted(GRAPH):
        if name not in index:
            connect(name)
    assert cycles == []


# What each role may not import: the games are pure, storage knows nothing of HTTP.
FORBIDDEN = {
    "service.games": ("service.storage", "service.api", "service.web", "service.ops", "service.config"),
    "service.storage": ("service.api", "service.web"),
    "service.api": ("service.web",),
}


@pytest.mark.parametrize("role", sorted(FORBIDDEN))
def test_dependencies_go_one_way(role):
    wrong = sorted(f"{name} -> {imported}" for name, imports in GRAPH.items()
                   if name == role or name.startswith(role + ".")
                   for imported in imports if imported.startswith(FORBIDDEN[role]))
    assert wrong == []


def test_the_graph_is_read():
    """The checks above read real imports (a guard against a parser that finds none)."""
    assert "service.storage.store" in GRAPH["service.api.moves"]
    assert "service.games.contract" in GRAPH["service.games.registry"]


def test_an_import_under_type_checking_counts(tmp_path):
    """A module that imports another only for its types still depends on it (a mixin importing its
    whole under ``TYPE_CHECKING`` closed a cycle the old graph did not see)."""
    part = tmp_path / "part.py"
    part.write_text("from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n"
                    "    from service.games.gops.state import Gops\n", encoding="utf-8")
    assert _imports("service.games.gops.part", part) == {"service.games.gops.state"}
