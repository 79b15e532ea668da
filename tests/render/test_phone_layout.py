"""The phone-first layout limits (``python -m bench.phone``, docs/DISCORD.md "Phone limits"): the
games of ``PHONE_READY`` keep them on every measured image, language and player count; the
recorder (tests/render/text_sizes.py ``layout``), each check and the count of taps are tried on
small hand-made images and a stub game."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from PIL import Image, ImageDraw

from bench import phone
from bot.storage import GameRecord
from engines.base import CHANCE, Action, Engine, EngineInfo, OptionSpec, Seat, State
from engines.notation import Notation
from render import base
from render.base import canvas, draw_text, fit_text
from tests.golden.cases import Step
from tests.render.text_sizes import (
    Layout,
    Panel,
    Shown,
    cut_labels,
    effective,
    height_spread,
    latin_codes,
    layout,
    outside,
    overlaps,
    small_texts,
)

PHONE_READY: set[str] = {"carnival", "canterbury", "eguan", "heaven", "ora"}
"""Games whose every measured image keeps the phone limits and whose median taps per turn is at
most ``bench.phone.TAPS_LIMIT`` (a game joins once ``python -m bench.phone <game_id>`` says ok)."""


@pytest.mark.parametrize("game_id", sorted(PHONE_READY))
def test_a_phone_ready_game_keeps_the_phone_limits(game_id: str) -> None:
    report = phone.report(game_id)
    assert not report.missed(), phone.details(report)


# -- the recorder ---------------------------------------------------------------------------


def ink(image: Image.Image) -> tuple[int, int, int, int]:
    """The box of every pixel that is not the background (end exclusive)."""
    plain = Image.new("RGB", image.size, base.BG)
    from PIL import ImageChops

    box = ImageChops.difference(image.convert("RGB"), plain).getbbox()
    assert box is not None
    return box


def test_the_recorder_sees_a_string_of_several_fonts_as_one_box_round_its_ink() -> None:
    def draw() -> Image.Image:
        img, d = canvas(80, 400)
        draw_text(d, (20, 20), "Bot · Normal 李白", size=24)
        return img

    image, shown = layout(draw)
    assert shown is not None and [(t.text, t.size) for t in shown.texts] == [("Bot · Normal 李白", 24)]
    box = shown.texts[0].box
    assert box == ink(image)


def test_the_recorder_keeps_the_full_text_of_a_cut_and_the_panels() -> None:
    def draw() -> Image.Image:
        img, d = canvas(100, 300)
        d.rectangle((10, 10, 200, 60), fill=base.PANEL)
        d.rounded_rectangle((210, 10, 290, 60), radius=8, outline=base.LINE)
        draw_text(d, (14, 20), "Cloister Courtyard", size=20, max_width=80)
        return img

    _, shown = layout(draw)
    assert shown is not None
    assert [p.box for p in shown.panels] == [(10, 10, 200, 60), (210, 10, 290, 60)]
    [text] = shown.texts
    assert text.text.endswith("…") and text.text != "Cloister Courtyard…" and text.full == "Cloister Courtyard"
    assert fit_text("Cloister Courtyard", 20, 80) == text.text  # (outside a recording: no observer, same cut)
    assert base.LAYOUT_HOOKS == {}


def test_the_recorder_follows_parts_pasted_cropped_and_tiles_and_forgets_hidden_text() -> None:
    def part() -> Image.Image:
        face = Image.new("RGB", (60, 40), base.WHITE)
        draw_text(ImageDraw.Draw(face), (5, 5), "Part", size=18)
        return face

    def painter(d: ImageDraw.ImageDraw, x: int, y: int) -> None:
        draw_text(d, (x + 2, y + 2), "Tiled", size=18)

    def draw() -> Image.Image:
        img, d = canvas(300, 300)
        img.paste(part(), (100, 150))
        draw_text(d, (10, 250), "Hidden", size=18)
        d.rectangle((0, 240, 120, 299), fill=base.PANEL)  # drawn over "Hidden"
        base.tile(d, (150, 20), (80, 30), ("phone-layout-test",), painter)
        return img.crop((0, 10, 300, 290))

    base.tile(ImageDraw.Draw(Image.new("RGB", (100, 100), base.BG)), (0, 0), (80, 30), ("phone-layout-test",),
              painter)  # (memoized before the recording)
    image, shown = layout(draw)
    _, alone = layout(part)
    assert shown is not None and alone is not None and image.size == (300, 280)
    boxes = {t.text: t.box for t in shown.texts}
    assert set(boxes) == {"Part", "Tiled"}
    x0, y0, x1, y1 = alone.texts[0].box
    assert boxes["Part"] == (x0 + 100, y0 + 140, x1 + 100, y1 + 140)  # moved by the paste and the crop
    assert 150 <= boxes["Tiled"][0] < 160 and 10 <= boxes["Tiled"][1] < 22


def test_the_recorder_collects_the_legends_an_image_declares() -> None:
    def draw() -> Image.Image:
        img, d = canvas(40, 200)
        base.legend(["H", "S"])
        draw_text(d, (4, 4), "H", size=20)
        return img

    _, shown = layout(draw)
    assert shown is not None and shown.legends == {"H", "S"}
    base.legend(["K"])  # (outside a recording: nothing to tell)


# -- the checks -----------------------------------------------------------------------------


def text(t: str, box: tuple[int, int, int, int], size: int = 20, order: int = 10, full: str | None = None) -> Shown:
    return Shown(t, size, box, order, full)


def test_small_texts_measure_the_effective_size_at_360_px() -> None:
    shown = Layout(720, 400, [text("a", (0, 0, 10, 10), size=15), text("b", (0, 20, 10, 30), size=16),
                              text("c", (0, 40, 10, 50), size=20)])
    assert effective(16, 720) == 8.0
    assert [t.text for t in small_texts(shown, 8.0)] == ["a"]
    assert [t.text for t in small_texts(shown, 10.0)] == ["a", "b"]


def test_overlaps_find_strings_drawn_over_each_other_but_not_neighbours_or_shadows() -> None:
    shown = Layout(400, 400, [text("one", (10, 10, 60, 30), order=1), text("two", (50, 20, 90, 40), order=2),
                              text("three", (61, 10, 100, 30), order=3), text("below", (10, 41, 60, 60), order=4),
                              text("shade", (200, 200, 240, 220), order=5),
                              text("shade", (201, 201, 241, 221), order=6)])
    assert [(a.text, b.text) for a, b in overlaps(shown)] == [("one", "two"), ("two", "three")]


def test_outside_finds_strings_that_leave_their_panel_or_the_image() -> None:
    card = Panel((100, 100, 200, 150), 1)
    dot = Panel((300, 100, 310, 110), 2)  # smaller than PANEL_MIN: a mark, not a panel
    shown = Layout(400, 300, [
        text("fits", (105, 110, 195, 140)),
        text("too long", (105, 110, 230, 140)),
        text("beside", (210, 110, 290, 140)),        # starts on the background
        text("on a dot", (302, 102, 380, 115)),
        text("off the edge", (350, 200, 410, 220)),
        text("card later", (105, 110, 230, 140), order=0),  # drawn before the card: not its panel
    ], [card, dot])
    found = [(t.text, p) for t, p in outside(shown)]
    assert found == [("too long", card), ("off the edge", None)]
    track, fill = Panel((20, 250, 300, 270), 3), Panel((20, 250, 150, 270), 4)  # a bar and its fill
    inner = Panel((30, 200, 100, 240), 5)  # a card inside the bar's panel, not a band of it
    shown = Layout(400, 300, [text("60", (140, 252, 170, 268)), text("Mercha…", (35, 205, 110, 238))],
                   [Panel((0, 190, 399, 299), 2), track, fill, inner])
    assert [(t.text, p) for t, p in outside(shown)] == [("Mercha…", inner)]


def test_cut_labels_spare_only_names_longer_than_16_characters() -> None:
    long = "Bartholomew Kingsley"
    shown = Layout(400, 300, [
        text("Bartholomew King…", (0, 0, 10, 10), full=long),
        text("A · Bartholomew K…", (0, 20, 10, 30), full=f"A · {long} 12 pts"),
        text("Bartholomew Kingsley 1…", (0, 40, 10, 50), full=f"{long} 12 pts"),
        text("Cloister Courty…", (0, 60, 10, 70), full="Cloister Courtyard"),
        text("Emily Rosewo…", (0, 80, 10, 90), full="Emily Rosewood"),
        text("Whole", (0, 100, 10, 110)),
    ])
    found = [t.text for t in cut_labels(shown, [long, "Emily Rosewood"])]
    assert found == ["Bartholomew Kingsley 1…", "Cloister Courty…", "Emily Rosewo…"]


def test_latin_codes_need_a_legend_in_the_image() -> None:
    strings = [text("H2", (0, 0, 1, 1)), text("S · 3", (0, 0, 1, 1)), text("李白", (0, 0, 1, 1)),
               text("3 × 2", (0, 0, 1, 1)), text("Ann", (0, 0, 1, 1)), text("ZOE", (0, 0, 1, 1)),
               text("K12 鬼", (0, 0, 1, 1)), text("VP", (0, 0, 1, 1))]
    shown = Layout(400, 300, strings)
    assert [t.text for t in latin_codes(shown, ["Ann", "ZOE"])] == ["H2", "S · 3", "VP"]
    shown.legends = {"H2", "S"}
    assert [t.text for t in latin_codes(shown, ["Ann", "ZOE"])] == ["VP"]
    shown.legends = {"H", "V"}  # a letter explains its numbered codes, not longer codes
    assert [t.text for t in latin_codes(shown, ["Ann", "ZOE"])] == ["S · 3", "VP"]


def test_height_spread_is_the_range_over_the_least() -> None:
    assert height_spread([1000, 1100, 1050]) == pytest.approx(0.10)
    assert height_spread([843, 1423]) == pytest.approx(580 / 843)
    assert height_spread([]) == 0.0


def test_a_report_misses_the_limits_it_measures() -> None:
    shown = Layout(720, 500, [text("tiny", (10, 10, 50, 20), size=12), text("x", (10, 10, 50, 20), size=20)])
    drawing = phone.Drawing("board", "board 2p 0%", "ja", ("Ann", "Bo"), 2, lambda: None)
    report = phone.check("stub", [phone.Measured(drawing, shown)])
    assert report.min_eff == pytest.approx(6.0)
    assert report.missed() == ["min_eff", "overlap"]
    assert report.line().startswith("stub size=board:720×500 min_eff=6.0 decision_min=- overlaps=1 outside=0 cut=0 ")
    assert report.line().endswith("FAIL(min_eff,overlap)")
    tall = Layout(720, 560, [text("x", (10, 10, 50, 20), size=20)])
    zoom = phone.Drawing("zoom", "zoom", "en", ("Ann", "Bo"), 2, lambda: None)
    report = phone.check("stub", [phone.Measured(drawing, Layout(720, 500)), phone.Measured(drawing, tall),
                                  phone.Measured(zoom, tall)])
    assert report.spread == pytest.approx(0.12) and report.decision_min == pytest.approx(10.0)
    assert report.missed() == ["height"]
    report = phone.check("stub", [phone.Measured(zoom, Layout(0, 0), "KeyError: 'land:9'")])
    assert report.missed() == ["error"] and "KeyError: 'land:9'" in phone.details(report)


# -- taps -----------------------------------------------------------------------------------


class Stub(Engine, Notation):
    """A stub game, its own notation: ``count`` legal actions for every seat, those of ``confirm``
    asking to confirm, those from ``grouped`` on behind one step; the state's ``"to"`` lists the
    seats to move."""

    info = EngineInfo("stub", "Stub Game", "スタブ", 2, 2)

    def __init__(self, count: int, confirm: Sequence[int] = (), grouped: int | None = None) -> None:
        self.count, self.confirm, self.grouped = count, set(confirm), grouped
        self.engine = self

    def to_move(self, state: State) -> frozenset[Seat]:
        return frozenset(state.get("to", (0, 1)))

    def legal_actions(self, state: State, seat: Seat) -> Sequence[Action]:
        return [{"i": i} for i in range(self.count)]

    def describe_action(self, state: State, action: Action) -> str:
        return f"m{action['i']}"

    def action_label(self, state: State, action: Action) -> str:
        return f"m{action['i']}"

    def action_path(self, state: State, action: Action) -> tuple[str, ...]:
        return ("more",) if self.grouped is not None and action["i"] >= self.grouped else ()

    def player_view(self, state: State, seat: Seat | None) -> dict[str, Any]:
        return {"round": state["round"]} if "round" in state else {}

    def has_confirm(self, state: State, action: Action) -> bool:
        return action["i"] in self.confirm

    def action_confirm(self, state: State, action: Action) -> tuple[str, str] | None:
        return ("Sure?", "Yes") if action["i"] in self.confirm else None

    def prompt(self, state: State, seat: Seat) -> str:
        return "Choose."


def record() -> GameRecord:
    return phone.panel_record("stub", 2)


@pytest.mark.parametrize(("engine", "index", "expected"), [
    (Stub(3), 2, 1),                   # a button
    (Stub(3, confirm=[1]), 1, 2),      # the action, then its confirmation
    (Stub(60, grouped=10), 3, 1),      # a button beside the step
    (Stub(60, grouped=10), 20, 2),     # the step, then the choice
    (Stub(60, grouped=10), 40, 3),     # the step, Next ▶, the choice
    (Stub(21), 20, 1),                 # over MAX_BUTTONS, one page of a select
    (Stub(80, grouped=79), 30, 2),     # the second page of the root (Next ▶), then the choice
    (Stub(80, grouped=79), 60, 3),     # Next ▶ twice
])
def test_presses_follow_the_real_panel(engine: Engine, index: int, expected: int) -> None:
    assert phone.presses(engine, record(), {}, 0, index) == expected


def test_a_turn_lasts_while_the_game_awaits_the_seat_and_takes_one_play_press() -> None:
    engine = Stub(3, confirm=[2])

    def step(seat: int, i: int, after: list[int]) -> Step:
        return Step(0, seat, {"i": i}, {}, {"to": after}, ())

    steps = [step(0, 0, [0]), step(0, 2, [CHANCE]), step(CHANCE, 0, [0]), step(0, 1, [1]),  # A: 1 + 1 + 2 + 1
             step(1, 2, [0, 1]),                                                            # B: 1 + 2 ...
             step(0, 0, [1]),                                                               # A: 1 + 1
             step(1, 0, [])]                                                                # ... B: + 1
    assert phone.turn_taps(engine, record(), steps) == [5, 4, 2]


class AutoStub(Stub):
    """``Stub`` with a preference (on by default) under which the host plays action 0 at once
    where the state says ``"auto"``."""

    info = EngineInfo("stub", "Stub Game", "スタブ", 2, 2,
                      preferences=(OptionSpec("auto", True, kind="bool"),))

    def auto_action(self, state: State, seat: Seat, preferences: Mapping[str, Any]) -> Action | None:
        return {"i": 0} if state.get("auto") and preferences.get("auto") else None


def test_a_decision_the_host_plays_at_once_takes_no_press() -> None:
    engine = AutoStub(3)

    def step(seat: int, auto: bool, after: list[int]) -> Step:
        return Step(0, seat, {"i": 1}, {"to": [seat], "auto": auto}, {"to": after}, ())

    # A: Play, a press, then the host's move; B's turn is only the host's move: no turn, no press
    steps = [step(0, False, [0]), step(0, True, [1]), step(1, True, [0]), step(0, False, [1])]
    assert phone.turn_taps(engine, record(), steps) == [2, 2]


def test_a_new_turn_of_the_rulebook_ends_the_turn_under_way() -> None:
    engine = Stub(3)

    def step(seat: int, i: int, before: int, after: int) -> Step:
        return Step(0, seat, {"i": i}, {"to": [0], "round": before}, {"to": [0], "round": after}, ())

    # seat A awaited all along (B has passed): its turns end where the round (the mark) changes; its
    # panel redraws in place with each next turn's decision, so only the first turn takes Play ▶
    steps = [step(0, 0, 1, 1), step(0, 1, 1, 2), step(0, 2, 2, 2), step(0, 0, 2, 3), step(0, 1, 3, 3)]
    assert phone.turn_taps(engine, record(), steps) == [3, 2, 1]
    assert phone.turn_taps(engine, record(), [step(0, 0, 1, 1), step(0, 1, 1, 1)]) == [3]


def test_the_bench_line_names_every_limit_a_game_misses() -> None:
    report = phone.GameReport("stub", taps=[5, 5, 1])
    assert report.missed() == ["taps"] and report.line().endswith("taps=5 FAIL(taps)")
    report.taps = [4, 5, 1]
    assert report.missed() == [] and report.line().endswith("taps=4 ok")


def test_the_bench_draws_every_zoom_region_of_a_game_that_has_them(monkeypatch: pytest.MonkeyPatch) -> None:
    import render.heaven

    drawn: list[tuple[str, str]] = []

    def render_zoom(view: dict[str, Any], region: str, *, names: Sequence[str], text: Any) -> Image.Image:
        drawn.append((region, text.locale))
        img, d = canvas(100, 360)
        draw_text(d, (10, 10), region, size=12)
        return img

    monkeypatch.setattr(render.heaven, "zoom_regions", lambda view: [("table", "Table"), ("score", "Scores")],
                        raising=False)
    monkeypatch.setattr(render.heaven, "render_zoom", render_zoom, raising=False)
    zooms = [d for d in phone.drawings("heaven") if d.kind == "zoom"]
    assert [d.label for d in zooms[:2]] == ["zoom 4p mid table (public)", "zoom 4p mid score (public)"]
    assert len(zooms) == 3 * 4 * 2  # 4 to 6 players, four languages, each region once
    report = phone.check("heaven", [phone.Measured(d, shown) for d in zooms[:2] for _, shown in [layout(d.draw)]
                                    if shown is not None])
    assert drawn == [("table", "en"), ("score", "en")]
    assert report.decision_min == pytest.approx(12.0) and report.missed() == []


def test_the_bench_draws_boards_along_the_playouts_and_the_decisions_the_game_draws() -> None:
    from engines.registry import ENGINES, NOTATIONS
    from render import registry

    drawings = phone.drawings("eguan")
    boards = [d for d in drawings if d.kind == "board"]
    assert len(boards) == (2 * len(phone.BOARD_POINTS) + 1) * 4  # 3 and 4 players, the long name once, 4 languages
    assert sum(d.names[0] == phone.LONG_NAME for d in boards) == 4
    decisions = phone._decision_states("eguan", phone.playout("eguan", 3)[0])
    engine = ENGINES["eguan"]
    assert 1 <= len(decisions) <= phone.DECISIONS
    assert all(registry.draws_decision("eguan", engine.player_view(state, seat)) for _, state, seat in decisions)
    prompts = [getattr(NOTATIONS["eguan"].prompt(state, seat), "key", None) for _, state, seat in decisions]
    assert len(set(prompts)) == len(prompts)
