"""Design §4, small rooms and the one door: the classes of storage, the game service and the
offline Discord stay under 400 lines, and the handlers (bot/ui, the cogs) never call the
repository: only the game service does, and Delivery, the outbox's drain, for the calls
DESIGN names."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ROOM_LINES = 400
ROOMS = [*sorted((ROOT / "bot" / "storage").glob("*.py")), ROOT / "bot" / "service.py",
         ROOT / "bot" / "sandbox" / "fakecord.py"]
DELIVERY_CALLS = {"pending", "pending_of", "delivered", "boards_delivered", "board_shown", "delivery_failed",
                  "game_with_log", "log", "set_fields"}
"""The repository methods DESIGN §4 lets ``Delivery`` call."""


def classes(path: Path) -> list[tuple[str, int]]:
    """(name, body lines: ``end_lineno - lineno``) of every class in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [(n.name, (n.end_lineno or n.lineno) - n.lineno) for n in ast.walk(tree) if isinstance(n, ast.ClassDef)]


def repo_calls(path: Path) -> list[str]:
    """The methods called on something named ``repo`` (``x.repo.m(…)``, ``repo.m(…)``) in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value
            name = owner.attr if isinstance(owner, ast.Attribute) else owner.id if isinstance(owner, ast.Name) else ""
            if name == "repo":
                out.append(node.func.attr)
    return out


@pytest.mark.parametrize("path", ROOMS, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_class_over_400_lines(path: Path) -> None:
    big = [(name, lines) for name, lines in classes(path) if lines >= ROOM_LINES]
    assert big == []


def test_the_rooms_are_measured() -> None:
    found = {name for path in ROOMS for name, _ in classes(path)}
    assert {"Repository", "Database", "GameStore", "LogStore", "GameService", "ServiceCore", "Play",
            "FakeDiscord", "FakeInteractions", "FakeMessages"} <= found


UI = sorted((ROOT / "bot" / "ui").glob("*.py"))
COGS = sorted((ROOT / "cogs").glob("*.py"))


@pytest.mark.parametrize("path", COGS, ids=lambda p: str(p.relative_to(ROOT)))
def test_cogs_reach_storage_through_the_service(path: Path) -> None:
    assert repo_calls(path) == []


@pytest.mark.parametrize("path", UI, ids=lambda p: str(p.relative_to(ROOT)))
def test_ui_calls_the_repository_only_for_the_outbox(path: Path) -> None:
    assert sorted(set(repo_calls(path)) - DELIVERY_CALLS) == []


def test_handlers_get_no_repository() -> None:
    from bot.ui.context import HostContext

    assert "repo" not in HostContext.__dataclass_fields__
    assert "service" in HostContext.__dataclass_fields__


def test_repo_calls_are_found() -> None:
    path = ROOT / "bot" / "service.py"
    assert {"append", "appended", "get_game", "log"} <= set(repo_calls(path))
