"""No import cycles: every import in `coach` and `posture_rules` — at module level or inside a function — read
from the source, module by module; a cycle among them fails with the modules it runs through."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.support.paths import ROOT

PACKAGES = ("coach", "posture_rules")


def _modules() -> dict[str, tuple[Path, bool]]:
    out = {}
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            is_pkg = parts[-1] == "__init__"
            out[".".join(parts[:-1] if is_pkg else parts)] = (path, is_pkg)
    return out


def _known(name: str, modules) -> str | None:
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def _imports(module: str, path: Path, is_pkg: bool, modules) -> set[str]:
    here = module.split(".") if is_pkg else module.split(".")[:-1]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(t for a in node.names if (t := _known(a.name, modules)))
        elif isinstance(node, ast.ImportFrom):
            base = ".".join([*here[: len(here) - node.level + 1], *([node.module] if node.module else [])])
            base = base if node.level else node.module or ""
            for a in node.names:  # `from pkg import sub` imports the submodule
                sub = f"{base}.{a.name}"
                t = sub if sub in modules else _known(base, modules)
                if t:
                    out.add(t)
    out.discard(module)
    return out


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_walk_sees_imports_of_every_kind():
    modules = _modules()
    assert "coach.store.repository" in modules and "coach.cli" in modules
    graph = {m: _imports(m, p, is_pkg, modules) for m, (p, is_pkg) in modules.items()}
    assert "coach.store.schema" in graph["coach.store.repository"]  # from . import schema
    assert "coach.recording" in graph["coach.cli.analyze"]  # imported inside a function
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_every_relative_import_names_a_module():
    """A relative import inside a function runs only when called: one that names no module would fail late."""
    modules = _modules()
    missing = []
    for m, (path, is_pkg) in modules.items():
        here = m.split(".") if is_pkg else m.split(".")[:-1]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level:
                base = ".".join([*here[: len(here) - node.level + 1], *([node.module] if node.module else [])])
                if base not in modules:
                    missing.append(f"{m}: {'.' * node.level}{node.module or ''} ({base})")
    assert missing == []


def test_no_import_cycles():
    modules = _modules()
    graph = {m: _imports(m, p, is_pkg, modules) for m, (p, is_pkg) in modules.items()}
    assert _cycles(graph) == []


# The direction between the two packages: the rule pack (posture_rules: format, loader, the names it may use)
# imports nothing of coach; the analysis (coach: its metrics over a Body, engine, store, …) sits on it.
def test_the_rule_pack_imports_nothing_from_coach():
    modules = _modules()
    graph = {m: _imports(m, p, is_pkg, modules) for m, (p, is_pkg) in modules.items()}
    assert any(d.startswith("posture_rules") for d in graph["coach.engine"])  # the walk sees coach → posture_rules
    wrong = {m: sorted(d for d in deps if d.split(".")[0] == "coach") for m, deps in graph.items()}
    assert {m: d for m, d in wrong.items() if m.split(".")[0] == "posture_rules" and d} == {}
    for path in sorted((ROOT / "posture_rules").rglob("*.py")):  # nor by a name in a string, imported at run time
        text = path.read_text(encoding="utf-8")
        assert "import_module" not in text and "__import__" not in text, path


# The dashboard sits on top: the analysis, the store, the reports, live coaching and the CLI never import it. What
# they share with it — the wording of machine-written English, a store's media paths — lives below it
# (coach/wording, coach/store/media.py); the Live page that draws a live run is the dashboard's (live_page.py).
def outside_the_dashboard_importing_it(graph: dict[str, set[str]]) -> dict[str, list[str]]:
    inside = lambda m: m == "coach.dashboard" or m.startswith("coach.dashboard.")  # noqa: E731
    return {m: sorted(d for d in deps if inside(d)) for m, deps in graph.items() if not inside(m)}


def test_nothing_outside_the_dashboard_imports_it():
    modules = _modules()
    graph = {m: _imports(m, p, is_pkg, modules) for m, (p, is_pkg) in modules.items()}
    assert "coach.dashboard.i18n" in graph["coach.dashboard.live_page"]  # the walk sees imports of the dashboard
    assert outside_the_dashboard_importing_it({"coach.report.x": {"coach.dashboard.i18n"}}) == {
        "coach.report.x": ["coach.dashboard.i18n"]
    }
    assert {m: d for m, d in outside_the_dashboard_importing_it(graph).items() if d} == {}
