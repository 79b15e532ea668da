"""Render tests for Carnival of Sins: initial, mid-game and final views render
(both table models), private views, CJK names, packed dice stay readable (placed
glyph boxes never overlap each other, a card spot or a seat label); every word on the
images comes from the catalog (strict formatter); PNGs saved to ``tmp_path``."""

from __future__ import annotations

import math
import random
from pathlib import Path
from typing import Any

import pytest

from bot.text import Texts
from engines.base import CHANCE
from engines.carnival import NOTATION as N
from engines.carnival.engine import CarnivalEngine
from render.base import text_width, to_png
from render.carnival import (
    CARD_ROOM,
    DEVIL_RED,
    PHASE_WIDTH,
    SMALL,
    TABLE_BOTTOM,
    WIDTH,
    PlacedDie,
    _edge_point,
    _phase_text,
    _to_px,
    boxes_overlap,
    card_layout,
    leader_dice,
    place_dice,
    render_board,
    render_private,
    render_zoom,
    seat_label_layout,
)

E = CarnivalEngine()
NAMES = ["Alice", "ボブ", "陈小明", "Dmitri the Long-Named Sinner", "Eve"]
TX = Texts("carnival", NAMES, strict=True)


def board(view: Any, n: int, highlight: str | None = None) -> Any:
    return render_board(view, names=NAMES[:n], text=TX, highlight=highlight)


def private(view: Any, n: int) -> Any:
    return render_private(view, names=NAMES[:n], text=TX)


def _play(n: int, seed: int, options: dict[str, Any] | None, stop: Any) -> dict[str, Any]:
    rng = random.Random(seed)
    state = E.new_game(n, seed, options)
    while E.to_move(state) and not stop(state):
        movers = sorted(E.to_move(state))
        seat = rng.choice(movers)
        if seat == CHANCE:
            action = E.sample_chance(state, rng)
        else:
            action = rng.choice(list(E.legal_actions(state, seat)))
        state, _ = E.apply(state, seat, action)
    return state


def _save(img: Any, name: str, out: Path) -> bytes:
    img.save(out / f"carnival_{name}.png")
    return to_png(img)


def test_initial_board_renders(tmp_path: Path) -> None:
    state = _play(4, 1, None, lambda s: s["phase"] == "choose")
    img = board(E.player_view(state, None), 4)
    assert img.width == WIDTH and img.height > 800
    _save(img, "initial", tmp_path)


def test_mid_game_boards_render_both_models(tmp_path: Path) -> None:
    for model, n in (("spatial", 5), ("zones", 4)):
        state = _play(n, 7, {"table_model": model},
                      lambda s: s["round"] >= 3 and s["phase"] in ("resolve", "pride"))
        view = E.player_view(state, None)
        img = board(view, n, highlight="d20")
        assert img.width == WIDTH
        _save(img, f"mid_{model}", tmp_path)
        seat = 0
        priv = private(E.player_view(state, seat), n)
        assert priv.width == WIDTH
        _save(priv, f"private_{model}", tmp_path)


def test_choose_phase_private_view_shows_pick(tmp_path: Path) -> None:
    state = _play(3, 3, None, lambda s: s["phase"] == "choose" and s["round"] == 2)
    state, _ = E.apply(state, 1, {"type": "choose", "sin": state["hands"][1][0]})
    _save(board(E.player_view(state, None), 3), "choose", tmp_path)
    _save(private(E.player_view(state, 1), 3), "private_choose", tmp_path)


def test_final_board_renders_and_is_deterministic(tmp_path: Path) -> None:
    state = _play(3, 11, None, lambda s: False)
    view = E.player_view(state, None)
    assert view["outcome"] is not None
    a = _save(board(view, 3), "final", tmp_path)
    b = to_png(board(view, 3))
    assert a == b
    zstate = _play(2, 12, {"table_model": "zones"}, lambda s: False)
    _save(board(E.player_view(zstate, None), 2), "final_zones", tmp_path)


class _Recorder:
    """A formatter that records every message key a renderer asks for."""

    def __init__(self) -> None:
        self.keys: list[str] = []

    def __call__(self, message: Any) -> str:
        self.keys.append(message.key)
        return TX(message)


def test_every_word_on_the_images_comes_from_the_catalog() -> None:
    """Board and private views ask the strict formatter for their words (a missing key
    raises); the phase line names players by display name."""
    rec = _Recorder()
    state = _play(3, 3, None, lambda s: s["phase"] == "choose" and s["round"] == 2)
    render_board(E.player_view(state, None), names=NAMES[:3], text=rec)
    render_private(E.player_view(state, 1), names=NAMES[:3], text=rec)
    render_zoom(E.player_view(state, 1), "scores", names=NAMES[:3], text=rec)
    assert {"board.title", "board.phase_choose", "board.score_sheet", "board.your_sins", "hint.greed",
            "term.sin.greed"} <= set(rec.keys)
    assert all(k.startswith(("board.", "term.", "hint.")) for k in rec.keys)
    assert _phase_text(E.player_view(state, None), TX) == (
        "Round 2: secret sin picks — waiting for Alice, ボブ and 陈小明")


def test_finished_board_shows_places_not_the_devil_or_sloth_lines(tmp_path: Path) -> None:
    """Spec §8.2: after round 7 no round follows, so the board draws no Devil marker and
    no "Sloth would take" lines; each panel tags the winner or the seat's place."""
    state = _play(3, 11, None, lambda s: False)
    view = E.player_view(state, None)
    assert view["phase"] == "over" and all(seat["penalty"] == 0 for seat in view["seats"])
    rec = _Recorder()
    img = render_board(view, names=NAMES[:3], text=rec)
    img.save(tmp_path / "carnival_over.png")
    assert "board.sloth_lines" not in rec.keys
    assert rec.keys.count("board.winner") == len(view["outcome"]["winners"]) >= 1
    assert rec.keys.count("board.place") == 3 - len(view["outcome"]["winners"])
    assert all(lab.devil is None for lab in seat_label_layout(view, NAMES[:3], TX))
    assert DEVIL_RED not in {colour for _, colour in img.getcolors(1 << 24) or []}  # no DEVIL tag


# --------------------------------------------------------------------------- packed dice

DICE_IDS = ("d4", "d6", "d8", "d10", "d12", "d20", "W")
VALUES = {"d4": 3, "d6": 2, "d8": 4, "d10": 1, "d12": 7, "d20": 1, "W": 4}


def _packed_roll(n: int, seed: int, centre: tuple[int, int]) -> dict[str, Any]:
    """A spatial game right after a scripted roll that drops all seven dice within
    80 units of each other around ``centre``."""
    state = _play(n, seed, None, lambda s: s["phase"] == "roll")
    offsets = [(0, 0)] + [(round(36 * math.cos(k * math.pi / 3)), round(36 * math.sin(k * math.pi / 3)))
                          for k in range(6)]
    dice = {d: {"value": VALUES[d], "pos": [centre[0] + dx, centre[1] + dy]}
            for d, (dx, dy) in zip(DICE_IDS, offsets, strict=True)}
    state, _ = E.apply(state, CHANCE, {"type": "roll", "dice": dice})
    return state


def _assert_readable(view: dict[str, Any], names: list[str], highlight: str | None = None) -> list[PlacedDie]:
    placed = place_dice(view, names, TX, highlight)
    table = [d["id"] for d in view["dice"] if d["place"] == "table"]
    assert sorted(p.die for p in placed) == sorted(table)
    for i, a in enumerate(placed):
        for b in placed[i + 1:]:
            assert not boxes_overlap(a.box, b.box), (a, b)
        # the glyph covers no other die's true-position dot (spatial: a zone's grid has no dots)
        for b in placed:
            if b is not a and view["table_model"] == "spatial":
                assert not (a.box[0] <= b.anchor[0] <= a.box[2] and a.box[1] <= b.anchor[1] <= a.box[3]), (a, b)
    obstacles = []
    for lab in seat_label_layout(view, names, TX):
        obstacles += [lab.box] + ([lab.devil] if lab.devil else [])
    cards = [c.box for c in card_layout(view, TX)]
    for p in placed:
        assert all(not boxes_overlap(p.box, o) for o in obstacles), p
        # a card spot's tag ("picked ✓", a sin's name) keeps CARD_ROOM of felt around it
        assert all(not boxes_overlap(p.box, c, CARD_ROOM) for c in cards), p
        assert 0 <= p.box[0] and p.box[2] <= WIDTH
    return placed


def test_packed_dice_glyph_boxes_do_not_overlap() -> None:
    centres = [(0, 0), (300, -200)]
    for n in (3, 4, 5):
        # next to every card spot, i.e. right under the "picked ✓" tags, and between them
        for k in range(2 * n):
            a = math.radians(-90.0 - 180.0 * k / n)
            centres.append((round(780 * math.cos(a)), round(780 * math.sin(a))))
        for centre in centres:
            state = _packed_roll(n, 20 + n, centre)
            view = E.player_view(state, None)
            pos = {d["id"]: d["pos"] for d in view["dice"]}
            assert max(math.dist(pos[a], pos[b]) for a in DICE_IDS for b in DICE_IDS) <= 80
            placed = _assert_readable(view, NAMES[:n], highlight="d12")
            assert any(p.moved for p in placed)
            for p in placed:  # moved or not, the anchor is the true position
                assert p.anchor == pytest.approx(_to_px(*pos[p.die]))
            assert [(p.die, p.box) for p in place_dice(view, NAMES[:n], TX, "d12")] == [
                (p.die, p.box) for p in placed]  # deterministic


def test_packed_dice_board_renders(tmp_path: Path) -> None:
    state = _packed_roll(3, 5, (-40, -760))
    view = E.player_view(state, None)
    img = board(view, 3, highlight="d8")
    assert img.width == WIDTH
    _save(img, "packed", tmp_path)
    # scattered dice stay where they lie, or close by (ids in phone-readable type take room, and the
    # card spot of a long name at a side seat is pulled in to clear its label)
    state = _play(4, 1, None, lambda s: s["phase"] == "choose")
    view = E.player_view(state, None)
    placed = _assert_readable(view, NAMES[:4])
    assert sum(p.moved for p in placed) <= 4 and not leader_dice(view, placed)


def test_dice_avoid_cards_with_locked_dice_both_models() -> None:
    for model, n in (("spatial", 5), ("zones", 4), ("spatial", 3), ("zones", 5)):
        for seed in (7, 8):
            state = _play(n, seed, {"table_model": model},
                          lambda s: s["round"] >= 3 and s["phase"] in ("resolve", "pride", "reveal"))
            _assert_readable(E.player_view(state, None), NAMES[:n], highlight="d20")


def test_roll_text_lists_values_only() -> None:
    """The public roll line reads "Round 1: <holder> rolls d4=3, …, W=4."; positions stay in
    the logged roll action, not in the line."""
    state = _play(3, 5, None, lambda s: s["phase"] == "roll")
    dice = {d: {"value": VALUES[d], "pos": [100, 100 + 10 * i]} for i, d in enumerate(DICE_IDS)}
    after, events = E.apply(state, CHANCE, {"type": "roll", "dice": dice})
    roll = next(e for e in events if e.kind == "roll")
    holder = E.player_view(after, None)["round_devil"]
    assert TX.event(roll) == f"Round 1: {NAMES[holder]} rolls d4=3, d6=2, d8=4, d10=1, d12=7, d20=1, W=4."
    assert after["dice"]["d8"]["pos"] == [100, 120]


def test_sloth_lines_and_their_legend_only_for_seats_that_can_still_reveal_sloth(tmp_path: Path) -> None:
    """Spec §11: no "Sloth would take" line (nor its legend) once no seat can reveal Sloth
    this round: here both players played Sloth in round 1."""
    rng = random.Random(4)
    state = _play(2, 4, None, lambda s: s["phase"] == "choose")
    rec = _Recorder()
    render_board(E.player_view(state, None), names=NAMES[:2], text=rec)
    assert "board.sloth_lines" in rec.keys
    for seat in (0, 1):
        state, _ = E.apply(state, seat, {"type": "choose", "sin": "sloth"})
    while state["round"] == 1 or state["phase"] == "roll":
        seat = min(E.to_move(state))
        state, _ = E.apply(state, seat, E.sample_chance(state, rng))
    view = E.player_view(state, None)
    assert view["phase"] == "choose" and view["nearest"] == [None, None]
    rec = _Recorder()
    img = render_board(view, names=NAMES[:2], text=rec)
    img.save(tmp_path / "carnival_no_sloth.png")
    assert "board.sloth_lines" not in rec.keys


def test_a_nudged_die_dot_and_line_are_in_the_legend_only_when_drawn(tmp_path: Path) -> None:
    """render/carnival.py: a die drawn beside its true position gets a dot and a leader
    line; the legend explains them only on a board that draws one."""
    packed = _packed_roll(3, 1, (0, 0))  # seven dice within 80 units: some are nudged
    view = E.player_view(packed, None)
    assert leader_dice(view, place_dice(view, NAMES[:3], TX))
    rec = _Recorder()
    render_board(view, names=NAMES[:3], text=rec).save(tmp_path / "carnival_nudged.png")
    assert "board.nudged_note" in rec.keys
    spread = _play(3, 3, None, lambda s: s["phase"] == "choose")
    view = E.player_view(spread, None)
    rec = _Recorder()
    render_board(view, names=NAMES[:3], text=rec)
    assert not leader_dice(view, place_dice(view, NAMES[:3], TX))   # the dice lie apart: no dot, no legend
    assert "board.nudged_note" not in rec.keys


def test_the_smallest_text_reads_on_a_phone(monkeypatch: pytest.MonkeyPatch) -> None:
    """A 720 px image is shown ~360 px wide on a phone (×0.5): every word on the Carnival
    images (boards of both models, the private view, the zooms) is at least ``NOTE_SIZE``
    (20 px → 10 px there, the size of a decision picture), seat letter badges at least
    ``LETTER_SIZE`` and die values, the two-digit ones on the small dice of the card spots and
    player rows too, at least ``DIE_VALUE_MIN``."""
    import render.carnival as carnival

    sizes: list[tuple[int, str]] = []
    real = carnival.draw_text

    def record(draw: Any, xy: Any, text: str, **kw: Any) -> None:
        sizes.append((int(kw.get("size", 22)), text))
        real(draw, xy, text, **kw)

    monkeypatch.setattr(carnival, "draw_text", record)
    for model in ("spatial", "zones"):
        state = _play(4, 2, {"table_model": model}, lambda s: s["round"] >= 3 and s["phase"] == "resolve")
        board(E.player_view(state, None), 4, highlight="d12")
        private(E.player_view(state, 1), 4)
        for region in ("table", "scores"):
            render_zoom(E.player_view(state, 1), region, names=NAMES[:4], text=TX)
    board(E.player_view(_play(3, 11, None, lambda s: False), None), 3)
    words = [(size, t) for size, t in sizes if t.strip() and not t.isdigit() and t not in "ABCDE"]
    assert carnival.NOTE_SIZE * 360 / WIDTH >= 10
    assert min(size for size, _ in words) >= carnival.NOTE_SIZE, min(words)
    assert min(size for size, t in sizes if t and t in "ABCDE") >= carnival.LETTER_SIZE >= 20
    assert min(size for size, t in sizes if t.isdigit() and len(t) <= 2 and (size, t) not in words) >= 20
    assert carnival.DIE_VALUE_MIN >= 20
    notes = [(size, t) for size, t in sizes if t.startswith(("Played", "Left", "Lines:", "Bold =", "spatial table"))]
    assert {"Played:", "Left", "Bold", "spatial"} <= {t.split()[0] for _, t in notes}, notes


AI_NAMES = ["Ann", "Bot · Normal", "さくら", "Zoë", "ボット · ふつう"]


def test_side_seat_labels_keep_an_ai_name_whole() -> None:
    """The seats at the left and right of a 5-player table have the room for "Bot · Normal"
    and its translations (they were cut to "Bot…"): the label lies over the rim, its card
    spot pulled inward clear of it, and the dice still avoid both."""
    names = AI_NAMES
    text = Texts("carnival", names, strict=True)
    state = _play(5, 4, None, lambda s: s["phase"] == "choose" and s["round"] == 3)
    view = E.player_view(state, None)
    labels = seat_label_layout(view, names, text)
    assert [lab.name for lab in labels] == names
    for spot, lab in zip(card_layout(view, text), labels, strict=True):
        assert not boxes_overlap(spot.box, lab.box), (spot, lab)
        assert 0 <= lab.box[0] and lab.box[2] <= WIDTH
    render_board(view, names=names, text=text)


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_the_devil_tag_stays_clear_of_the_legend_labels_and_card_spots_at_every_seat(n: int) -> None:
    """The DEVIL tag of the seat at the bottom sat under its label, on the legend's first line
    ("Lines: the die Sloth would take…"): wherever the Devil sits, its tag lies above the legend,
    inside the image and clear of every label and card spot."""
    state = _play(n, 4, None, lambda s: s["phase"] == "choose" and s["round"] == 2)
    for devil in range(n):
        view = {**E.player_view(state, None), "devil": devil}
        labels = seat_label_layout(view, NAMES[:n], TX)
        tag = labels[devil].devil
        assert tag is not None and [lab.devil is None for lab in labels].count(False) == 1
        assert tag[3] <= TABLE_BOTTOM - 10 and 0 <= tag[0] and tag[2] <= WIDTH, (devil, tag)
        for lab in labels:
            assert not boxes_overlap(tag, lab.box), (devil, lab)
        for spot in card_layout(view, TX):
            assert not boxes_overlap(tag, spot.box), (devil, spot)


def test_the_phase_line_names_every_waiting_player() -> None:
    """A phase line too long for the header shortens every name alike instead of cutting the
    last names off: each waiting player is still named (at least 4 letters and '…'); when the
    names would be cut shorter or become alike ("Bot…" twice), the line names the seat letters."""
    names = ["Alexandria Longname-Smith", "Bartholomew Fairweather", "Cornelius Ashdown"]
    state = _play(3, 4, None, lambda s: s["phase"] == "choose" and s["round"] == 2)
    view = E.player_view(state, None)
    assert len([s for s in view["to_move"] if s >= 0]) == 3
    line = _phase_text(view, Texts("carnival", names, strict=True))
    assert text_width(line, SMALL) <= PHASE_WIDTH
    assert line.startswith("Round 2: secret sin picks — waiting for ")
    for name in names:
        assert name[:4] in line, (name, line)
    assert line.count("…") == 3
    state = _play(5, 4, None, lambda s: s["phase"] == "choose" and s["round"] == 2)
    view = E.player_view(state, None)
    bots = ["Ann", "Bot · Normal", "さくら", "Zoë", "Bot · Hard"]
    assert _phase_text(view, Texts("carnival", bots, strict=True)) == (
        "Round 2: secret sin picks — waiting for A, B, C, D and E")
    assert _phase_text(view, Texts("carnival", ["Al", "Bo", "Cy", "Di", "Ed"], strict=True)) == (
        "Round 2: secret sin picks — waiting for Al, Bo, Cy, Di and Ed")


def test_a_sloth_line_ends_where_it_meets_the_die_and_its_label() -> None:
    """A "Sloth would take" line stops at the edge of its die's glyph + id box (it was drawn
    under the die labels, and a label could hide it)."""
    box = (100.0, 100.0, 160.0, 200.0)
    assert _edge_point((130.0, 400.0), (130.0, 150.0), box) == pytest.approx((130.0, 200.0))
    assert _edge_point((0.0, 150.0), (130.0, 150.0), box) == pytest.approx((100.0, 150.0))
    assert _edge_point((120.0, 120.0), (130.0, 150.0), box) is None


def _wrath_state(model: str) -> dict[str, Any]:
    """A game stopped where a seat resolves Wrath (the first seed that gets there)."""
    for seed in range(40):
        state = _play(4, seed, {"table_model": model},
                      lambda s: s["phase"] == "resolve" and (E.player_view(s, None)["pending"] or {}).get("sin")
                      == "wrath")
        if state["phase"] == "resolve":
            return state
    raise AssertionError("no Wrath in 40 seeds")


@pytest.mark.parametrize("model", ["spatial", "zones"])
def test_the_wrath_picture_numbers_what_the_buttons_number(model: str) -> None:
    """The thrower's panel gets a picture (``render_decision``) whose numbers are those of the aim
    buttons ("N · at …") and, on the spatial table, of the target steps; no other seat gets one."""
    from engines.carnival.effects import wrath_number
    from render.carnival import decision_numbers, draws_decision, render_decision

    state = _wrath_state(model)
    thrower = E.player_view(state, None)["pending"]["seat"]
    view = E.player_view(state, thrower)
    assert draws_decision(view)
    others = [s for s in range(4) if s != thrower]
    assert not any(draws_decision(E.player_view(state, s)) for s in others)
    assert render_decision(E.player_view(state, others[0]), names=NAMES[:4], text=TX) is None
    image = render_decision(view, names=NAMES[:4], text=TX)
    assert image is not None and image.width == WIDTH
    numbers = decision_numbers(view)
    for action in E.legal_actions(state, thrower):
        label = TX(N.action_label(state, action))
        if action["aim"] == "none":
            assert not label[0].isdigit(), label
            continue
        n = wrath_number(state, action["aim"])
        assert numbers[action["aim"]] == n and label.startswith(f"{n} · "), label
        steps = [TX(step) for step in N.action_path(state, action)]
        if model == "spatial":
            assert steps[0].startswith(f"{numbers[action['target']]} · {action['target']}"), steps
        else:
            assert steps[0].startswith(action["target"]), steps


def test_the_board_keeps_one_height_through_a_game() -> None:
    """One height per player count (the legend's room is kept, the rows do not wrap), so the
    message does not resize in the chat from one move to the next."""
    for n in (2, 4):
        heights = {board(E.player_view(_play(n, 3, None, lambda s, r=r: s["round"] >= r), None), n).height
                   for r in (1, 3, 5, 8)}
        assert len(heights) == 1, (n, heights)


def test_zooms_draw_every_text_at_decision_size() -> None:
    """The table, the score sheet and (a seated reader's) own sins: every text ≥ 20 px on 720 px."""
    from render.carnival import zoom_regions
    from tests.render.text_sizes import layout

    state = _play(3, 3, None, lambda s: s["round"] >= 4)
    public, mine = E.player_view(state, None), E.player_view(state, 1)
    assert [k for k, _ in zoom_regions(public)] == ["table", "scores"]
    assert [k for k, _ in zoom_regions(mine)] == ["table", "scores", "hand"]
    for key, _ in zoom_regions(mine):
        image, shown = layout(lambda key=key: render_zoom(mine, key, names=NAMES[:3], text=TX))
        assert image.width == WIDTH and shown is not None
        assert min(t.size for t in shown.texts) >= 20, key


def test_a_seat_that_left_is_marked() -> None:
    """The host's ``left`` key of the view tags that player's row "left the game" and greys its
    seat label; the score sheet says it too."""
    rec = _Recorder()
    state = _play(3, 3, None, lambda s: s["round"] >= 3)
    view = dict(E.player_view(state, None))
    render_board(view, names=NAMES[:3], text=rec)
    assert "board.left_game" not in rec.keys
    view["left"] = [2]
    render_board(view, names=NAMES[:3], text=rec)
    assert rec.keys.count("board.left_game") == 1
    render_zoom(view, "scores", names=NAMES[:3], text=rec)
    assert rec.keys.count("board.left_game") == 2
