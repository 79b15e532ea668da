"""Committed text says what is: no reference to the work history (numbered issues and trials:
git keeps the history) and no folder of a developer's machine, in any file git tracks (code,
docs, bench results, catalogs), nor a symbolic link pointing out of the repository."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

HISTORY = re.compile(r"\b(?:issue|trial)s?\s+#?\d+|\bfresh-user\s+trial|\bleftovers?\s+\d", re.IGNORECASE)
"""A numbered issue or trial of our own work, or its leftovers. Specific on purpose: "Round 5",
a Discord "issue" in words and a URL such as ``…/issues/123`` (no space before the number) pass."""

MACHINE = re.compile(r"(?<![\w.~-])/(?:work|tmp|home)/|\.\./shared\b")
"""A folder of a developer's machine: an absolute path into the root folders work, tmp or home, or
the shared folder beside the repository."""


def tracked() -> list[tuple[str, str]]:
    """(path, mode) of every file git tracks here."""
    out = subprocess.run(["git", "ls-files", "-s", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    rows = []
    for entry in out.decode().split("\0"):
        if entry:
            meta, path = entry.split("\t", 1)
            rows.append((path, meta.split()[0]))
    return rows


def offences(pattern: re.Pattern[str], text: str) -> list[str]:
    """The lines of ``text`` where ``pattern`` matches, as ``line: text``."""
    return [f"{n}: {line.strip()[:120]}" for n, line in enumerate(text.splitlines(), 1) if pattern.search(line)]


def test_the_patterns_catch_history_and_machine_paths_and_pass_game_words() -> None:
    # (the examples are assembled, so this file does not match itself)
    issue, trial = "iss" + "ue", "tri" + "al"
    for caught in (f"(see {issue} 14: the memory guard)", f"{issue.title()} 18 point 5", f"({trial} 8)",
                   f"fresh-user {trial}", f"{issue}s 10 and 12", f"{issue} #3", "left" + "over 3"):
        assert HISTORY.search(caught), caught
    for passed in ("Round 5 罪のカーニバル", "https://github.com/Rapptz/discord.py/issues/9123",
                   f"a Discord {issue} we work around", f"the {trial} of a setup split", f"{trial}s = 3",
                   "Leftover coins score nothing"):
        assert not HISTORY.search(passed), passed
    for caught in ("/" + "work/main/.venv", "open /" + "tmp/x.png", "/" + "home/me/db", ".." + "/shared/notes"):
        assert MACHINE.search(caught), caught
    for passed in ("/usr/share/fonts/opentype/noto", "a/tmp/b", "~/tmp/", "https://example.com/home/page",
                   "--db games.db"):
        assert not MACHINE.search(passed), passed


@pytest.mark.parametrize("name, pattern", [("history", HISTORY), ("machine path", MACHINE)])
def test_no_tracked_file_refers_to_the_work_history_or_a_machine_path(name: str, pattern: re.Pattern[str]) -> None:
    found: list[str] = []
    for path, mode in tracked():
        file = ROOT / path
        if mode == "120000":  # (a symbolic link: its target)
            target = str(file.readlink()) if file.is_symlink() else ""
            if target.startswith("/") or pattern.search(target):
                found.append(f"{path} -> {target}")
            continue
        if not file.is_file():
            continue
        try:
            text = file.read_text(encoding="utf-8")
        except UnicodeDecodeError:  # (images, databases)
            continue
        found += [f"{path}:{line}" for line in offences(pattern, text)]
    assert not found, f"{name} in tracked files (say what is, or delete it):\n" + "\n".join(found)
