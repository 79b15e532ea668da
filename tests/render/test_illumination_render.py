"""Render tests for Illumination (spec docs/rules/illumination.md §11): the board at the start,
mid-game with staged tiles, conflicts, an Exilium waiting and a battle fought, the final board,
and a private view. Images go to ``tmp_path``."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from PIL import Image

from bot.text import Texts
from engines.base import CHANCE
from engines.illumination import ENGINE as E
from render.illumination import (
    BOARD_H,
    BOARD_W,
    ZOOM_W,
    draws_decision,
    render_board,
    render_decision,
    render_private,
    render_zoom,
    zoom_regions,
)

NAMES = ["Alice", "小明"]
TX = Texts("illumination", NAMES, strict=True)


def greedy(st: dict[str, Any], seat: int, rng: random.Random) -> dict[str, Any]:
    """Placements and exchanges first, sometimes a card or a purchase; never a pass."""
    acts = list(E.legal_actions(st, seat))
    for kind in ("exchange", "exile", "place", "discard"):
        found = [a for a in acts if a["type"] == kind]
        if found:
            return rng.choice(found)
    for kind in ("play", "buy"):
        found = [a for a in acts if a["type"] == kind]
        if found and rng.random() < 0.5:
            return rng.choice(found)
    return E.timeout_action(st, seat)


def run(seed: int, until: Any = None) -> dict[str, Any]:
    rng = random.Random(seed)
    st = E.new_game(2, seed, None)
    while E.to_move(st):
        if until is not None and until(st):
            return st
        seat = min(E.to_move(st))
        action = E.sample_chance(st, rng) if seat == CHANCE else greedy(st, seat, rng)
        st, _ = E.apply(st, seat, action)
    return st


def _wanted(s: dict[str, Any]) -> bool:
    return (s["phase"] == "main" and len(s["staged"]) >= 2 and sum(map(sum, s["markers"].values())) >= 1
            and any(g["bounded"] is False for g in E.player_view(s, None)["conflicts"]))


def mid_game() -> dict[str, Any]:
    """The first greedy game (by seed) reaching a MAIN with two staged tiles after a battle and
    with an open conflict on the board."""
    for seed in range(60):
        st = run(seed, _wanted)
        if st["phase"] != "over":
            return st
    raise AssertionError("no seed reaches the mid-game position")


def _check(img: Image.Image, path: Path) -> None:
    """A board: always ``BOARD_W`` × ``BOARD_H``, so its message keeps its size in the chat."""
    assert img.size == (BOARD_W, BOARD_H)
    img.save(path)


def test_board_at_start_renders(tmp_path: Path) -> None:
    st = run(1, lambda s: s["phase"] == "turn_start")
    view = E.player_view(st, None)
    assert not view["conflicts"] and view["abbot"] is not None
    _check(render_board(view, names=NAMES, text=TX), tmp_path / "start.png")


def test_mid_game_with_battle_and_staged_tiles_renders_deterministically(tmp_path: Path) -> None:
    st = mid_game()
    view = E.player_view(st, None)
    assert view["staged"] and any(c["down"] for b in view["books"] for c in b["cells"])
    a = render_board(view, names=NAMES, text=TX, highlight="II-b3")
    b = render_board(view, names=NAMES, text=TX, highlight="II-b3")
    assert a.tobytes() == b.tobytes()
    _check(a, tmp_path / "mid.png")


def test_exilium_waiting_renders(tmp_path: Path) -> None:
    st = mid_game()
    st["hands"][st["active"]].append("exilium-4")
    exiles = [a for a in E.legal_actions(st, st["active"]) if a.get("card") == "exilium"]
    st, _ = E.apply(st, st["active"], exiles[-1])
    view = E.player_view(st, None)
    assert st["phase"] == "exile" and view["exile"] is not None
    _check(render_board(view, names=NAMES, text=TX), tmp_path / "exile.png")


def test_final_board_reveals_crusades(tmp_path: Path) -> None:
    st = run(2)
    view = E.player_view(st, None)
    assert view["over"] and all(view["crusade"])
    _check(render_board(view, names=NAMES, text=TX), tmp_path / "final.png")


def test_private_view_with_hand_renders(tmp_path: Path) -> None:
    st = mid_game()
    seat = st["active"]
    st["hands"][seat] = ["motus-1", "exilium-2", "ritus-3", "scriptum-1", "porticus-2"]
    view = E.player_view(st, seat)
    for img in (render_private(view, names=NAMES, text=TX),
                render_private(view, names=NAMES)):  # (without the host's formatter the card names still render)
        assert img.width == ZOOM_W and img.height > 3 * 150
    img.save(tmp_path / "private.png")


def test_placement_picture_numbers_the_legal_squares(tmp_path: Path) -> None:
    st = mid_game()
    seat = st["active"]
    view = E.player_view(st, seat)
    assert draws_decision(view) and not draws_decision(E.player_view(st, 1 - seat))
    squares = view["decision"]["squares"]
    books = {sq["cell"].split("-")[0] for sq in squares}
    img = render_decision(view, names=NAMES, text=TX)
    assert img is not None and img.width == ZOOM_W
    assert {sq["kind"] for sq in squares} == {"square", "text"}  # (a Scriptum in hand picks text spaces too)
    # one Book drawn per Book with a square, and a key to the numbers the cards pick below them
    assert img.height == 120 + len(books) * (40 + 4 * 80 + 12) + 64
    assert render_decision(E.player_view(st, 1 - seat), names=NAMES, text=TX) is None
    img.save(tmp_path / "decision.png")


def test_turn_start_picture_numbers_every_square_the_lines_can_take(tmp_path: Path) -> None:
    from engines.illumination.notation import action_label
    from engines.illumination.rules import numbered_squares

    st = run(1, lambda s: s["phase"] == "turn_start")
    seat = st["active"]
    view = E.player_view(st, seat)
    decision = view["decision"]
    assert decision["kind"] == "activate" and draws_decision(view)
    assert [sq["cell"] for sq in decision["squares"]] == numbered_squares(st)
    assert [sq["n"] for sq in decision["squares"]] == list(range(1, len(numbered_squares(st)) + 1))
    assert [line["line"] for line in decision["lines"]] == ["row1", "row2", "row3", "col1", "col2", "col3"]
    # every activate-and-place option is named by its square's number on this picture
    for action in E.legal_actions(st, seat):
        if action["type"] == "activate_place":
            n = numbered_squares(st).index(action["cell"]) + 1
            assert TX(action_label(st, action)).startswith(f"{n} · ")
    img = render_decision(view, names=NAMES, text=TX)
    assert img is not None and img.width == ZOOM_W
    img.save(tmp_path / "turn-start.png")
    # the other seat (and a spectator) get no picture
    assert render_decision(E.player_view(st, 1 - seat), names=NAMES, text=TX) is None


def test_no_picture_outside_a_placement() -> None:
    st = run(1, lambda s: s["phase"] == "discard")
    view = E.player_view(st, st["active"])
    assert view["decision"] is None and not draws_decision(view)
    assert render_decision(view, names=NAMES, text=TX) is None


def test_look_at_regions_render_at_phone_size(tmp_path: Path) -> None:
    st = mid_game()
    seat = st["active"]
    private, public = E.player_view(st, seat), E.player_view(st, None)
    keys = [key for key, _ in zoom_regions(private)]
    assert keys == ["book.I", "book.II", "book.III", "monastery", "players", "hand"]
    assert [key for key, _ in zoom_regions(public)] == keys[:-1]  # (a spectator has no hand)
    assert all(TX(label) for _, label in zoom_regions(private))
    for key in keys:
        img = render_zoom(private, key, names=NAMES, text=TX)
        assert img.width == ZOOM_W and img.height > 400
        img.save(tmp_path / f"zoom-{key}.png")
    for bad in ("hand", "book.IV", "wheel"):
        try:
            render_zoom(public, bad, names=NAMES, text=TX)
        except KeyError:
            continue
        raise AssertionError(f"{bad} is not a region of the public view")


def test_every_image_keeps_the_phone_layout_limits() -> None:
    """``python -m bench.phone illumination``'s image checks (sizes, overlaps, panels, cuts, the
    board's height, Latin codes) on every measured image and language. (Its median of taps, over
    a playout of uniformly random moves, is not yet within the limit: not checked here.)"""
    from bench import phone

    report = phone.report("illumination", with_taps=False)
    assert not report.layout_missed(), phone.details(report)


def test_the_boards_counters_small_numbers_book_states_and_deck_line_read_at_10_px_on_a_phone() -> None:
    """At 360 px wide (a phone) the board's coin and token counts, items, hand / stacks /
    sheepfold counts, the Books' "open", the altar slots' VP and the deck line are 20 px on the
    720-px board: 10 px on the phone, as on the decision pictures."""
    from tests.render.direct import tiles_off
    from tests.render.text_sizes import drawn_texts, effective

    view = E.player_view(mid_game(), None)
    with tiles_off():  # (every text drawn, none pasted from the memo)
        _, drawn = drawn_texts(lambda: render_board(view, names=NAMES, text=TX))
    sizes: dict[str, set[int]] = {}
    for d in drawn:
        sizes.setdefault(d.text, set()).add(d.size)
    counters = {str(view["coins"][s]) for s in (0, 1)} | {f"{view['items'][s]}/7" for s in (0, 1)}
    counters |= {str(v) for s in (0, 1) for v in (view["hand_counts"][s], view["stacks_left"][s], view["sheepfold"][s])}
    deck = [t for t in sizes if t.startswith("deck ") or t.strip().startswith("discard ")]  # (runs of one font)
    assert "".join(deck).replace(" ", "") == f"deck{view['deck_count']}discard{len(view['discard'])}"
    for shown in (*sorted(counters), "open", "2", "4", "7", *deck):
        assert shown in sizes and min(sizes[shown]) >= 20, (shown, sizes.get(shown))
        assert effective(min(sizes[shown]), BOARD_W) >= 10
