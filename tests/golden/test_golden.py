"""Golden playthroughs (tests/golden/<game_id>-<seed>.txt): today's engines must
replay each fixed game exactly as the committed file says. A mismatch shows the first
differing lines as a unified diff; after a deliberate rules change run ``make golden``
and review the diff of the files."""

from __future__ import annotations

import difflib

import pytest

from tests.golden.cases import Case, cases
from tests.golden.generate import TEXT_DIR, text_path
from tests.golden.playthrough import playthrough

DIFF_LINES = 40
"""Lines of unified diff shown on a mismatch."""


def first_differences(expected: str, actual: str, name: str) -> str:
    """The first ``DIFF_LINES`` lines of the unified diff from ``expected`` to ``actual``,
    long lines cut to 300 characters."""
    diff = difflib.unified_diff(expected.splitlines(), actual.splitlines(),
                                f"{name} (golden)", f"{name} (now)", n=2, lineterm="")
    lines = [line if len(line) <= 300 else line[:300] + " …" for line in diff]
    more = len(lines) - DIFF_LINES
    return "\n".join(lines[:DIFF_LINES] + ([f"… {more} more diff lines"] if more > 0 else []))


@pytest.mark.parametrize("case", cases(), ids=lambda c: c.stem)
def test_playthrough_matches_golden_file(case: Case) -> None:
    path = text_path(case.stem)
    assert path.exists(), f"{path.name} is missing: run `make golden` and commit it"
    expected = path.read_text(encoding="utf-8")
    actual = playthrough(case)
    if actual != expected:
        pytest.fail(f"{path.name} differs from today's playthrough (after a deliberate change run "
                    f"`make golden` and review the diff):\n"
                    + first_differences(expected, actual, path.name), pytrace=False)


def test_golden_files_are_small_and_belong_to_a_case() -> None:
    stems = {c.stem for c in cases()}
    for path in TEXT_DIR.glob("*.txt"):
        assert path.stem in stems, f"{path.name} belongs to no case: run `make golden`"
        assert path.stat().st_size < 300_000, f"{path.name} is over 300 KB"


def test_playthrough_is_deterministic() -> None:
    case = cases()[0]
    assert playthrough(case) == playthrough(case)


def test_diff_names_the_first_changed_line() -> None:
    old = "".join(f"line {i}\n" for i in range(100))
    new = old.replace("line 50\n", "line fifty\n")
    shown = first_differences(old, new, "x.txt").splitlines()
    assert shown[:3] == ["--- x.txt (golden)", "+++ x.txt (now)", "@@ -49,5 +49,5 @@"]
    assert "-line 50" in shown and "+line fifty" in shown
