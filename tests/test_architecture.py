"""Design §2: the layer boundaries, checked by parsing imports with ``ast``; and no import
circle anywhere in the project (docs/DESIGN.md "Layers")."""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
STDLIB = set(sys.stdlib_module_names)


def imports(path: Path) -> set[str]:
    """Top-level module names imported by ``path`` (relative imports excluded)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
    return out


def files(folder: str) -> list[Path]:
    return sorted((ROOT / folder).rglob("*.py"))


@pytest.mark.parametrize("path", files("engines"), ids=lambda p: str(p.relative_to(ROOT)))
def test_engines_import_only_the_standard_library(path: Path) -> None:
    for name in imports(path):
        top = name.split(".")[0]
        assert top in STDLIB or top == "engines", f"{path.name} imports {name}"


@pytest.mark.parametrize("path", files("render"), ids=lambda p: str(p.relative_to(ROOT)))
def test_render_imports_engines_and_pil_only(path: Path) -> None:
    for name in imports(path):
        top = name.split(".")[0]
        assert top in STDLIB or top in ("engines", "render", "PIL", "noto_cjk_sans_otc", "manimgx_fonts", "manimgx_fonts_cjk", "fontTools"), f"{path.name}: {name}"


@pytest.mark.parametrize("path", files("cogs"), ids=lambda p: str(p.relative_to(ROOT)))
def test_cogs_use_no_sql_and_no_pil(path: Path) -> None:
    names = imports(path)
    assert not any(n.split(".")[0] in ("aiosqlite", "sqlite3", "PIL", "render") for n in names), names
    text = path.read_text(encoding="utf-8")
    assert "SELECT " not in text and "INSERT " not in text


def test_sql_lives_only_in_storage() -> None:
    for path in files("bot"):
        if "storage" in path.parts:
            continue
        names = imports(path)
        assert not any(n.split(".")[0] in ("aiosqlite", "sqlite3") for n in names), path


def test_only_settings_reads_the_environment() -> None:
    for folder in ("bot", "cogs", "engines", "render"):
        for path in files(folder):
            if path.name == "settings.py" or "sandbox" in path.parts:
                continue
            text = path.read_text(encoding="utf-8")
            assert "os.environ" not in text and "getenv" not in text, path


@pytest.mark.parametrize("path", files("bot/ui"), ids=lambda p: str(p.relative_to(ROOT)))
def test_the_ui_never_imports_the_bot_class(path: Path) -> None:
    """docs/TEMPLATE.md "The host, by role": bot/ui/ takes the service, repository,
    delivery and settings as arguments (``bot.ui.context.HostContext``), so ``bot.app``
    → ``bot.ui`` is the only direction (type-checking imports included)."""
    names = imports(path)
    assert not any(n == "bot.app" or n.startswith("bot.app.") for n in names), f"{path.name} imports bot.app"


PACKAGES = ("bot", "cogs", "engines", "render", "bench", "tests")
"""The project's packages whose imports must form no circle."""


def module_files(root: Path, packages: Iterable[str]) -> dict[str, Path]:
    """Every module of ``packages`` under ``root`` by dotted name (a package by its ``__init__``)."""
    out: dict[str, Path] = {}
    for package in packages:
        for path in (root / package).rglob("*.py"):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


def import_graph(modules: Mapping[str, Path]) -> dict[str, set[str]]:
    """Which of ``modules`` each one imports: every ``import`` and ``from … import`` in the
    file, wherever it stands (module level, inside a function, under ``if TYPE_CHECKING``),
    relative ones resolved. ``from a import b`` counts ``a`` and, when it is a module, ``a.b``;
    importing ``a.b.c`` also runs ``a`` and ``a.b``, so those count too, except the importer's
    own packages (already being imported when it runs)."""
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        named: list[str] = []
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                named += [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = ".".join(package[:len(package) - node.level + 1] + ([base] if base else []))
                named += [base, *(f"{base}.{a.name}" for a in node.names)]
        targets: set[str] = set()
        for full in named:
            parts = full.split(".")
            for i in range(1, len(parts) + 1):
                target = ".".join(parts[:i])
                if target in modules and target != name and not name.startswith(target + "."):
                    targets.add(target)
        graph[name] = targets
    return graph


def circles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The import circles of ``graph``: its strongly connected components of more than one
    module (and any module importing itself), each sorted (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1 or node in graph.get(node, ()):
                    found.append(sorted(component))
    return found


def test_no_import_circle_in_the_project() -> None:
    """No module of the project imports, directly or through others, a module that imports
    it back. Imports inside functions count (they only hide a circle), and so do
    ``TYPE_CHECKING`` imports: a layer that names an upper layer's type depends on it, and
    the lower layer names a ``Protocol`` of its own instead (``bot/ui/dispatch.py``,
    ``bot.ui.outbox_drain.Composer``)."""
    assert circles(import_graph(module_files(ROOT, PACKAGES))) == []


def test_the_circle_check_finds_a_circle(tmp_path: Path) -> None:
    """The check itself: a tiny package whose circle runs through a function-level import,
    a ``TYPE_CHECKING`` import and a relative one is found, and the module outside it is not."""
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "a.py").write_text("def f():\n    from pkg.sub import b\n")
    (pkg / "sub" / "b.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import c\n")
    (pkg / "sub" / "c.py").write_text("from ..a import f\n")
    (pkg / "d.py").write_text("import pkg.a\n")
    graph = import_graph(module_files(tmp_path, ["pkg"]))
    assert circles(graph) == [["pkg.a", "pkg.sub.b", "pkg.sub.c"]]
    (pkg / "sub" / "c.py").write_text("")
    assert circles(import_graph(module_files(tmp_path, ["pkg"]))) == []


LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("base", ("bot", "bot.logsafe", "bot.locks", "bot.loops", "bot.text", "bot.text.extract", "bot.workers")),
    ("storage", ("bot.storage", "bot.storage.*", "bot.settings")),
    ("service", ("bot.service", "bot.typed_moves", "bot.render_pool", "bot.check", "bot.migrate", "bot.backup",
                 "bot.gateway")),
    ("outbox", ("bot.outbox",)),
    ("transport", ("bot.ui", "bot.ui.limits", "bot.ui.answers", "bot.ui.payloads", "bot.ui.transport",
                   "bot.ui.presence", "bot.ui.tokens", "bot.ui.retries", "bot.ui.locales", "bot.ui.table_text",
                   "bot.ui.commands")),
    ("views", ("bot.ui.dispatch", "bot.ui.checks", "bot.ui.permissions", "bot.ui.errors", "bot.ui.components",
               "bot.ui.lobby_options", "bot.ui.panels", "bot.ui.look_menu", "bot.ui.table_items", "bot.ui.arguments")),
    ("delivery", ("bot.ui.boards", "bot.ui.delivery", "bot.ui.outbox_drain")),
    ("handlers", ("bot.ui.context", "bot.ui.deadlines", "bot.ui.dm", "bot.ui.parked", "bot.ui.notices", "bot.ui.clock",
                  "bot.ui.moderation", "bot.ui.lobby", "bot.ui.moves", "bot.ui.table", "bot.ui.ai", "bot.ui.looks",
                  "bot.ui.language", "bot.ui.operator", "bot.ui.flow")),
    ("app", ("bot.app", "bot.sync", "bot.__main__")),
    ("cogs", ("cogs", "cogs.*")),
    ("sandbox", ("bot.sandbox", "bot.sandbox.*")),
)
"""The layers of the host, bottom up (docs/DESIGN.md "Layers"): each module of ``bot/`` and
``cogs/`` in exactly one; a name ending in ``.*`` takes a package's modules."""


def layer_of(module: str) -> int | None:
    """The index in ``LAYERS`` of ``module``, or None when no layer names it."""
    for index, (_, names) in enumerate(LAYERS):
        if any(module == n or (n.endswith(".*") and module.startswith(n[:-1])) for n in names):
            return index
    return None


def host_graph() -> dict[str, set[str]]:
    return import_graph(module_files(ROOT, ("bot", "cogs")))


def layer_table(graph: Mapping[str, set[str]]) -> str:
    """The Markdown table of which layer imports which (docs/DESIGN.md "Layers" holds it)."""
    uses: dict[int, set[int]] = {}
    for module, targets in graph.items():
        here = layer_of(module)
        assert here is not None
        uses.setdefault(here, set()).update(
            t for t in (layer_of(target) for target in targets) if t is not None and t != here)
    rows = ["| layer | modules | imports |", "|---|---|---|"]
    for index, (name, names) in enumerate(LAYERS):
        shown = ", ".join(f"`{n}`" for n in names)
        below = ", ".join(LAYERS[i][0] for i in sorted(uses.get(index, ()))) or "—"
        rows.append(f"| {index + 1}. {name} | {shown} | {below} |")
    return "\n".join(rows)


def test_every_host_module_has_one_layer_and_imports_only_downward() -> None:
    """A module imports its own layer or lower ones only: a button reaches its handler through
    its route (bot/ui/dispatch.py), the outbox its composer through a ``Protocol``
    (``bot.ui.outbox_drain.Composer``), never by importing them."""
    graph = host_graph()
    assert [m for m in graph if layer_of(m) is None] == []
    upward = [(m, t) for m, targets in graph.items() for t in targets
              if (layer_of(t) or 0) > (layer_of(m) or 0)]
    assert upward == []


def test_design_shows_the_layer_table_of_the_code() -> None:
    """docs/DESIGN.md "Layers" carries the table this code makes (``layer_table``):
    ``python -m tests.test_architecture`` prints it."""
    assert layer_table(host_graph()) in (ROOT / "docs" / "DESIGN.md").read_text(encoding="utf-8")


if __name__ == "__main__":
    print(layer_table(host_graph()))
