"""Helpers of the benches that compare two source trees in one run ("before and
after, side by side in one run") and count the CPU and memory of worker processes.

``in_tree(tree, script, args)`` runs *this* tree's bench script on another tree's code (a
``git worktree`` of an older commit): the child starts in ``tree`` with it first on
``sys.path``, so ``bot``, ``engines`` and ``render`` come from there, while the package
``bench`` (every measuring module: load, bot_latency, hops, trees, ...) is this tree's, so
both trees are measured by the same code. The scripts read whatever the older code lacks
through ``getattr`` (e.g. ``Settings.render_workers``).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

TICKS = os.sysconf("SC_CLK_TCK")


def boot_code(tree: Path, then: str) -> str:
    """Python source for ``python -c``: ``tree`` first on ``sys.path`` (its ``bot``, ``engines`` and
    ``render``), the package ``bench`` loaded from this tree (its ``__path__`` is this tree's bench/),
    then the statements ``then`` (``sys`` is imported)."""
    here = Path(__file__).resolve().parent
    return (f"import importlib.util, sys; sys.path.insert(0, {str(tree)!r}); "
            f"spec = importlib.util.spec_from_file_location('bench', {str(here / '__init__.py')!r}, "
            f"submodule_search_locations=[{str(here)!r}]); "
            "mod = importlib.util.module_from_spec(spec); sys.modules['bench'] = mod; spec.loader.exec_module(mod); "
            + then)


def tree_env(tree: Path) -> dict[str, str]:
    """The environment of a child running on ``tree``'s code (``PYTHONPATH``: its worker processes too)."""
    return {**os.environ, "PYTHONPATH": str(tree), "LOG_LEVEL": "WARNING"}


def in_tree(tree: Path, script: Path, args: list[str], *, timeout: float | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``script`` (a file of this tree) as ``__main__`` with ``args`` on the code of
    ``tree``; stdout and stderr captured as text. The package ``bench`` is loaded from this
    tree (``boot_code``), the rest from ``tree``."""
    code = boot_code(tree, f"import runpy; sys.argv = [{str(script)!r}, *sys.argv[1:]]; "
                           f"runpy.run_path({str(script)!r}, run_name='__main__')")
    return subprocess.run([sys.executable, "-c", code, *args], cwd=tree, env=tree_env(tree), capture_output=True,
                          text=True, timeout=timeout)


def children(pid: int | None = None) -> list[int]:
    """Every descendant process of ``pid`` (default this one), from ``/proc``."""
    found: list[int] = []
    todo = [pid or os.getpid()]
    while todo:
        parent = todo.pop()
        try:
            tasks = os.listdir(f"/proc/{parent}/task")
        except OSError:
            continue
        for tid in tasks:
            try:
                with open(f"/proc/{parent}/task/{tid}/children") as fh:
                    kids = [int(x) for x in fh.read().split()]
            except OSError:
                continue
            found += kids
            todo += kids
    return found


def cpu_s(pids: list[int]) -> dict[int, float]:
    """User + system CPU seconds of each live process of ``pids`` (``/proc/<pid>/stat``)."""
    out: dict[int, float] = {}
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        out[pid] = (int(fields[11]) + int(fields[12])) / TICKS
    return out


def _kib_field(path: str, key: str) -> float:
    """The ``key:`` line of a ``/proc`` file in MB (its value is in kB), or 0 when absent."""
    try:
        with open(path) as fh:
            for line in fh:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def rss_mb(pid: int | None = None) -> float:
    """Resident set size of ``pid`` (default this process) in MB (``VmRSS``)."""
    return _kib_field(f"/proc/{pid or 'self'}/status", "VmRSS")


def pss_mb(pid: int) -> float:
    """Proportional set size of ``pid`` in MB (its share of pages shared with others), or 0."""
    return _kib_field(f"/proc/{pid}/smaps_rollup", "Pss")


class TreeCpu:
    """CPU seconds of a process and its children since ``start()``: the bot's process with its
    render and AI workers. ``pid``: that process (default this one). A child that started
    meanwhile counts from zero; a process that ended meanwhile is no longer counted."""

    def __init__(self, pid: int | None = None) -> None:
        self.pid = pid
        self._own = 0.0
        self._kids: dict[int, float] = {}

    def start(self) -> None:
        self._own = self._process()
        self._kids = cpu_s(children(self.pid))

    def _process(self) -> float:
        if self.pid is None:
            import time

            return time.process_time()
        return cpu_s([self.pid]).get(self.pid, 0.0)

    def elapsed(self) -> tuple[float, float]:
        """(the process's CPU s, its children's CPU s) since ``start``."""
        kids = cpu_s(children(self.pid))
        return self._process() - self._own, sum(v - self._kids.get(pid, 0.0) for pid, v in kids.items())


def code_root() -> Path:
    """The root of the source tree this process's ``bot`` package comes from (another tree's under
    ``in_tree``)."""
    import bot

    return Path(bot.__file__).resolve().parent.parent


def tree_root() -> Path:
    """The root of this source tree."""
    return Path(__file__).resolve().parent.parent
