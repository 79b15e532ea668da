"""Regenerate every golden file: ``make golden`` (``python -m tests.golden.generate``).

Writes tests/golden/<game_id>-<seed>.txt (``tests.golden.playthrough``) and
tests/render/golden/<game_id>-<kind>.png (``tests.golden.images``) for every registered
game, and deletes golden files no case produces any more. Running it twice gives the
same bytes. Arguments, if any, are game ids to regenerate (default: all).
"""

from __future__ import annotations

import sys
from pathlib import Path

from tests.golden.cases import cases
from tests.golden.images import GOLDEN_DIR, all_images, golden_path, write_png
from tests.golden.playthrough import playthrough

TEXT_DIR = Path(__file__).resolve().parent
"""Where the golden playthroughs live."""


def text_path(stem: str) -> Path:
    """The golden playthrough file of a case stem (``"carnival-1"``)."""
    return TEXT_DIR / f"{stem}.txt"


def main(argv: list[str]) -> int:
    """Write the golden files of the games named in ``argv`` (all when empty); print
    each file written or removed. Returns the exit status."""
    wanted = set(argv) or {c.game_id for c in cases()}
    keep: set[Path] = set()
    for case in cases():
        path = text_path(case.stem)
        keep.add(path)
        if case.game_id in wanted:
            path.write_text(playthrough(case), encoding="utf-8")
            print(f"wrote {path.relative_to(Path.cwd())}")
    GOLDEN_DIR.mkdir(parents=True, exist_ok=True)
    for game_id, kind, image in all_images(wanted):
        path = golden_path(game_id, kind)
        if image is None:
            continue
        keep.add(path)
        write_png(image, path)
        print(f"wrote {path.relative_to(Path.cwd())}")
    produced_games = {c.game_id for c in cases()}
    for path in sorted([*TEXT_DIR.glob("*.txt"), *GOLDEN_DIR.glob("*.png")]):
        game_id = path.stem.rsplit("-", 1)[0]
        stale = game_id not in produced_games or (game_id in wanted and path not in keep)
        if stale:
            path.unlink()
            print(f"removed {path.relative_to(Path.cwd())}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
