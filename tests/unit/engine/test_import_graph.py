"""No import cycles anywhere in ``libs/``, function-level imports included.

The graph is read from the source with :mod:`ast`, not from ``sys.modules``: an import inside
a function (or under ``TYPE_CHECKING``) is an edge like any other, since it is a dependency
the module has even if Python resolves it late. An edge goes to the module named, or to the
submodule when ``from package import name`` names one. Importing a submodule runs its
package's ``__init__``, but that implicit edge is not counted: a package that re-exports
its own submodules is not a cycle.
"""

from __future__ import annotations

import ast
from pathlib import Path

LIBS = Path(__file__).resolve().parents[3] / "libs"


def module_name(root: Path, path: Path) -> str:
    """The dotted name of the module at ``path`` under ``root``."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def import_graph(root: Path, *, skip: tuple[str, ...] = ()) -> dict[str, set[str]]:
    """Every module under ``root`` and the modules under ``root`` it imports, anywhere in
    its body (top level, functions, conditionals)."""
    paths = {
        module_name(root, p): p
        for p in sorted(root.rglob("*.py"))
        if not any(module_name(root, p).startswith(s) for s in skip)
    }
    graph: dict[str, set[str]] = {name: set() for name in paths}
    for name, path in paths.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")
                    anchor = anchor[: len(anchor) - (node.level - 1)]
                    base = ".".join([*anchor, base] if base else anchor)
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    targets.append(sub if sub in paths else base)
            for target in targets:
                # ``import a.b.c`` depends on the deepest module of ours it names.
                while target and target not in paths:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    graph[name].add(target)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle (``[a, b, ..., a]``), or None if the graph is acyclic."""
    white, grey, black = 0, 1, 2
    colour = dict.fromkeys(graph, white)
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        colour[node] = grey
        stack.append(node)
        for nxt in sorted(graph[node]):
            if colour[nxt] == grey:
                return [*stack[stack.index(nxt) :], nxt]
            if colour[nxt] == white and (found := visit(nxt)):
                return found
        stack.pop()
        colour[node] = black
        return None

    for node in sorted(graph):
        if colour[node] == white and (found := visit(node)):
            return found
    return None


def test_libs_have_no_import_cycles() -> None:
    # The generated protobuf code is not ours to shape (and has no imports of our modules
    # beyond its own package's).
    graph = import_graph(LIBS, skip=("riverboat.v1",))
    assert "riverboat.engine.state" in graph  # the walk found the sources
    assert find_cycle(graph) is None, " -> ".join(find_cycle(graph) or [])


def test_the_engine_imports_no_io() -> None:
    """The rules engine stays pure: none of its modules imports gRPC, NATS or SQL."""
    forbidden = ("grpc", "nats", "sqlalchemy", "socket", "asyncio", "random", "time")
    engine = LIBS / "riverboat" / "engine"
    for path in sorted(engine.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module or ""]
            for n in names:
                assert n.split(".")[0] not in forbidden, f"{path.name} imports {n}"


def _package(tmp: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        target = tmp / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    return tmp


def test_a_planted_function_level_cycle_is_found(tmp_path: Path) -> None:
    root = _package(
        tmp_path,
        {
            "pkg/__init__.py": "from pkg.a import f\n",
            "pkg/a.py": "from pkg.b import g\n\ndef f():\n    return g()\n",
            # The cycle hides in a function body, as state.py <-> gamestate.py once did.
            "pkg/b.py": "def g():\n    from pkg import a\n    return a\n",
        },
    )
    assert find_cycle(import_graph(root)) == ["pkg.a", "pkg.b", "pkg.a"]


def test_a_planted_relative_cycle_through_a_submodule_is_found(tmp_path: Path) -> None:
    root = _package(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/sub/__init__.py": "",
            "pkg/sub/x.py": "from .. import y\n",
            "pkg/y.py": "if False:\n    import pkg.sub.x\n",
        },
    )
    assert find_cycle(import_graph(root)) == ["pkg.sub.x", "pkg.y", "pkg.sub.x"]


def test_a_package_importing_its_own_submodules_is_not_a_cycle(tmp_path: Path) -> None:
    root = _package(
        tmp_path,
        {
            "pkg/__init__.py": "from pkg.a import f\nfrom pkg import b\n",
            "pkg/a.py": "def f():\n    return 1\n",
            "pkg/b.py": "from pkg.a import f\n",
        },
    )
    graph = import_graph(root)
    assert graph["pkg"] == {"pkg.a", "pkg.b"}
    assert find_cycle(graph) is None
