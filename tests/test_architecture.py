"""Design §2: the layer boundaries, checked by parsing imports with ``ast``."""

from __future__ import annotations

import ast
import sys
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
