"""The private Play panel (``bot.ui.panels.build_panel``) with choice lists over 25
(DISCORD.md failure mode 10): every legal action is reachable through pages and groups,
and no panel breaks a component limit (≤5 rows, ≤5 items a row, a select alone in its
row, ≤25 options, labels ≤100 (options) / ≤80 (buttons), custom_id ≤100)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import discord
import pytest

from bot.storage import GameRecord, SeatRecord
from bot.text import Texts
from bot.ui.lobby_options import TIMER_KEY
from bot.ui.panels import board_embed, build_panel, lobby_view, timer_shown
from engines.base import Action, Engine, EngineInfo, Msg, Seat, State
from engines.notation import Notation
from engines.registry import ENGINES, notation_of
from tests.golden.cases import cases, play

GAME, VERSION = 987_654_321_012, 4_294_967_295   # long ids make the longest custom_ids


class ManyChoices(Engine, Notation):
    """A stub game, its own notation, whose only decision has ``count`` legal actions."""

    info = EngineInfo("stub", "Stub Game with a rather long name", "長い名前のゲーム", 2, 2)

    def __init__(self, count: int, label: Callable[[int], str] = lambda i: f"m{i}",
                 group: Callable[[int], str | None] = lambda i: None) -> None:
        self.count, self._label, self._group = count, label, group
        self.engine = self

    def to_move(self, state: State) -> frozenset[Seat]:
        return frozenset({0})

    def legal_actions(self, state: State, seat: Seat) -> Sequence[Action]:
        return [{"type": "m", "i": i} for i in range(self.count)] if seat == 0 else []

    def describe_action(self, state: State, action: Action) -> str:
        return f"m{action['i']}"

    def action_label(self, state: State, action: Action) -> str:
        return self._label(action["i"])

    def action_path(self, state: State, action: Action) -> tuple[str, ...]:
        group = self._group(action["i"])
        return () if group is None else (group,)

    def prompt(self, state: State, seat: Seat) -> str:
        return "Choose one of many things."


def record() -> GameRecord:
    seats = (SeatRecord(GAME, 0, 111, "Ann"), SeatRecord(GAME, 1, 222, "Bo"))
    return GameRecord(id=GAME, game_id="stub", guild_id=1, channel_id=2, thread_id=None, board_channel_id=None,
                      board_message_id=None, lobby_message_id=None, host_user_id=111, status="active",
                      paused=False, seed=1, options={}, players=2, state={}, version=VERSION,
                      move_timeout=3600, deadline=None, reminded=0, waiting=[0], deadline_window=None,
                      created_at=0.0, updated_at=0.0, seats=seats)


def check_limits(rows: list[dict[str, Any]]) -> None:
    """Discord's component limits on one message."""
    assert 1 <= len(rows) <= 5
    ids = []
    for row in rows:
        assert row["type"] == 1
        items = row["components"]
        assert 1 <= len(items) <= 5
        if any(c["type"] == 3 for c in items):
            assert len(items) == 1, "a select menu fills its row"
        for c in items:
            ids.append(c["custom_id"])
            assert len(c["custom_id"]) <= 100
            if c["type"] == 2:
                assert 1 <= len(c["label"]) <= 80
            else:
                assert 1 <= len(c["options"]) <= 25
                assert len(c.get("placeholder") or "") <= 150
                for o in c["options"]:
                    assert 1 <= len(o["label"]) <= 100 and len(o["value"]) <= 100
                    assert len(o.get("description") or "") <= 100
    assert len(ids) == len(set(ids))


def _path(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in text.split(".")) if text else ()


def reachable(engine: Engine) -> tuple[dict[int, str], int]:
    """Walk every page and step of the panel as a player could (Prev/Next/step/Back
    buttons and step options in selects); returns {action index: label shown} and the
    number of distinct pages of actions seen."""
    found: dict[int, str] = {}
    pages: set[frozenset[int]] = set()
    seen: set[tuple[int, tuple[int, ...]]] = set()
    todo: list[tuple[int, tuple[int, ...]]] = [(0, ())]
    while todo:
        page, path = todo.pop()
        if (page, path) in seen:
            continue
        seen.add((page, path))
        panel = build_panel(engine, record(), {}, 0, page=page, path=path)
        assert panel.view is not None and len(panel.content) <= 2000
        rows = panel.view.to_components()
        check_limits(rows)
        shown: set[int] = set()
        for c in (c for row in rows for c in row["components"]):
            kind, *parts = c["custom_id"].split(":")
            assert parts[:2] == [str(GAME), str(VERSION)]
            if kind == "a":
                found[int(parts[2])] = c["label"]
                shown.add(int(parts[2]))
            elif kind == "as":
                here = _path(parts[3]) if len(parts) > 3 else ()
                for o in c["options"]:
                    if o["value"].startswith("s"):
                        todo.append((0, (*here, int(o["value"][1:]))))
                        continue
                    found[int(o["value"])] = o["label"] + (f" — {o['description']}" if o.get("description") else "")
                    shown.add(int(o["value"]))
            elif kind == "n" and not c.get("disabled"):
                todo.append((int(parts[2]), _path(parts[3])))
        if shown:
            pages.add(frozenset(shown))
    return found, len(pages)


@pytest.mark.parametrize("count", [26, 60, 101])
async def test_a_long_ungrouped_list_is_paged_and_fully_choosable(count: int) -> None:
    found, panels = reachable(ManyChoices(count))
    assert sorted(found) == list(range(count))
    assert all(found[i] == f"m{i}" for i in found)
    assert panels == -(-count // 25)


async def test_a_long_grouped_list_is_chosen_in_two_steps() -> None:
    engine = ManyChoices(60, group=lambda i: f"group {i // 10}")
    first = build_panel(engine, record(), {}, 0)
    labels = [c["label"] for row in first.view.to_components() for c in row["components"]]
    assert labels == [f"group {g}" for g in range(6)]        # step one: the groups
    found, _ = reachable(engine)
    assert sorted(found) == list(range(60))


async def test_a_group_larger_than_a_page_is_paged_inside_the_group() -> None:
    sizes = [3, 40, 17]                                      # group 1 needs two pages of a select
    starts = [0, 3, 43]
    engine = ManyChoices(60, group=lambda i: f"g{max(k for k, s in enumerate(starts) if i >= s)}")
    assert sum(sizes) == 60
    found, _ = reachable(engine)
    assert sorted(found) == list(range(60))


async def test_more_steps_than_buttons_are_a_paged_select_of_steps() -> None:
    engine = ManyChoices(60, group=lambda i: f"pair {i // 2}")   # 30 steps: more than buttons allow
    first = build_panel(engine, record(), {}, 0)
    (select,) = first.view.to_components()[0]["components"]
    assert select["type"] == 3 and [o["value"] for o in select["options"]] == [f"s{k}" for k in range(25)]
    found, panels = reachable(engine)
    assert sorted(found) == list(range(60)) and panels == 30


async def test_hinted_and_over_long_labels_are_clipped_into_options() -> None:
    def label(i: int) -> str:
        return f"Choice number {i} with a very long name {'x' * 120} — and a hint that is far too long {'y' * 120}"

    found, _ = reachable(ManyChoices(60, label=label))
    assert sorted(found) == list(range(60))
    assert all(text.startswith(f"Choice number {i} ") for i, text in found.items())
    # a short hinted list is a select too (the hint becomes the option's description)
    panel = build_panel(ManyChoices(7, label=lambda i: f"Sin {i} — what it does"), record(), {}, 0)
    (row,) = panel.view.to_components()
    (select,) = row["components"]
    assert select["type"] == 3 and [o["description"] for o in select["options"]] == ["what it does"] * 7


async def test_a_short_list_of_long_labels_is_buttons_with_clipped_labels() -> None:
    engine = ManyChoices(20, label=lambda i: f"{i}: " + "long label " * 20)
    panel = build_panel(engine, record(), {}, 0)
    rows = panel.view.to_components()
    check_limits(rows)
    buttons = [c for row in rows for c in row["components"]]
    assert len(buttons) == 20 and all(c["type"] == 2 and len(c["label"]) == 80 for c in buttons)
    found, _ = reachable(engine)
    assert sorted(found) == list(range(20))


async def test_grouped_groups_with_long_names_and_a_stale_page_number() -> None:
    engine = ManyChoices(60, group=lambda i: f"{'a very long group name ' * 6}{i // 15}")
    found, _ = reachable(engine)
    assert sorted(found) == list(range(60))
    # a page number past the end (an old Next button) shows the last page, never an error
    panel = build_panel(ManyChoices(60), record(), {}, 0, page=99)
    (select,) = panel.view.to_components()[0]["components"]
    assert [o["value"] for o in select["options"]] == [str(i) for i in range(50, 60)]
    # a step that no longer exists (an old Back or step button) falls back to the first step
    panel = build_panel(engine, record(), {}, 0, path=(17,))
    assert panel.content == build_panel(engine, record(), {}, 0).content
    check_limits(panel.view.to_components())


class InlineSteps(ManyChoices):
    """``ManyChoices`` whose panel shows steps of actions as selects of their own."""

    inline_steps = True


async def test_steps_of_actions_are_selects_of_their_own_the_largest_first() -> None:
    sizes = [3, 30, 10, 5, 7, 9]                             # g1 is over a select's 25: it stays a step
    starts = [12 + sum(sizes[:k]) for k in range(len(sizes))]
    engine = InlineSteps(12 + sum(sizes), group=lambda i: None if i < 12 else
                         f"g{max(k for k, s in enumerate(starts) if i >= s)}")
    view = build_panel(engine, record(), {}, 0).view
    rows = view.to_components()
    check_limits(rows)
    selects = [c for row in rows for c in row["components"]]
    assert len(rows) == 4 and all(c["type"] == 3 for c in selects)
    # the first: the 12 actions and the steps left (g0, g1, g3); then the three largest, g2, g4, g5, in order
    assert [o["value"] for o in selects[0]["options"]] == [str(i) for i in range(12)] + ["s12", "s13", "s15"]
    assert [c["placeholder"] for c in selects[1:]] == ["g2", "g4", "g5"]
    for c, k in zip(selects[1:], (2, 4, 5), strict=True):
        assert [int(o["value"]) for o in c["options"]] == list(range(starts[k], starts[k] + sizes[k]))
    view.add_item(discord.ui.Button(label="Undo", custom_id="undo"))  # (room for the host's Undo)
    check_limits(view.to_components())
    found, _ = reachable(engine)
    assert sorted(found) == list(range(12 + sum(sizes)))


async def test_inline_steps_leave_a_row_for_back_and_paging() -> None:
    # a step of 20 actions (a select of its own) and one of 40 (a step: a paged select and Back inside)
    engine = InlineSteps(60, group=lambda i: "outer" if i < 20 else "other")
    found, _ = reachable(engine)
    assert sorted(found) == list(range(60))
    engine = InlineSteps(100, group=lambda i: None if i < 30 else f"h{(i - 30) // 14}")  # 5 steps of 14
    view = build_panel(engine, record(), {}, 0).view
    view.add_item(discord.ui.Button(label="Undo", custom_id="undo"))  # (the host's Undo: beside Prev/Next)
    rows = view.to_components()
    check_limits(rows)
    kinds = [[c["type"] for c in row["components"]] for row in rows]
    # a paged select of 30 actions and the steps left, its Prev/Next row, three steps as selects
    assert kinds == [[3], [2, 2, 2], [3], [3], [3]]
    found, _ = reachable(engine)
    assert sorted(found) == list(range(100))


TRIAL = "Use Arrogance G2: take R2, target Alexandra_K, give Shepherd+Sacrifice, get B1+"
"""A Heaven label of 81+ characters (11-character names): its buttons
differed only in their last cards, which the cut at the end took away."""


async def test_over_long_labels_that_differ_at_the_end_still_read_apart_as_buttons() -> None:
    ends = ["R2", "B2", "G3"]
    panel = build_panel(ManyChoices(3, label=lambda i: TRIAL + ends[i]), record(), {}, 0)
    rows = panel.view.to_components()
    check_limits(rows)
    labels = [c["label"] for row in rows for c in row["components"]]
    assert labels == [TRIAL[:74] + "…B1+" + end for end in ends]
    assert all(len(label) == 80 for label in labels)


async def test_over_long_options_that_differ_at_the_end_still_read_apart() -> None:
    long = TRIAL + "G3+" * 10   # 110 + characters: over a select option's 100
    found, _ = reachable(ManyChoices(30, label=lambda i: f"{long} and {i:02d}"))
    assert sorted(found) == list(range(30))
    assert len(set(found.values())) == 30
    assert all(text.startswith(TRIAL[:20]) and text.endswith(f"…{i:02d}") and len(text) == 100
               for i, text in found.items())


def test_distinct_labels_cuts_at_the_end_unless_that_makes_two_alike() -> None:
    from bot.ui.limits import distinct_labels

    # short labels, and long ones that a cut at the end leaves different, are cut at the end
    assert distinct_labels(["Pass", "a" * 90, "b" * 90], 80) == ["Pass", "a" * 79 + "…", "b" * 79 + "…"]
    # labels equal before the cut stay equal (the same card twice: Heaven's three Paradise W3)
    assert distinct_labels(["Take Paradise W3"] * 2 + ["c" * 90] * 2, 80) == ["Take Paradise W3"] * 2 + \
        ["c" * 79 + "…"] * 2
    # they part beyond both ends of a cut in the middle: the start, the end and a number
    a, b = "s" * 85 + "A" + "e" * 114, "s" * 85 + "B" + "e" * 114
    assert distinct_labels([a, b, a], 80) == ["s" * 20 + "…" + "e" * 56 + " #1",
                                              "s" * 20 + "…" + "e" * 56 + " #2",
                                              "s" * 20 + "…" + "e" * 56 + " #1"]


def test_distinct_labels_never_cuts_the_number_of_a_numbered_candidate() -> None:
    """A choice that names a numbered candidate of its decision's picture ("3 · +2 coins…")
    keeps its "N · " whatever is cut: the rest is cut, and numbers alone tell labels apart."""
    from bot.ui.limits import distinct_labels

    same = "+2 coins, wins the battle against the strongest rival at the crossing of the two rivers"
    assert distinct_labels(["3 · " + same, "12 · " + same, "Pass"], 40) == [
        "3 · +2 coins, wins the battle against t…", "12 · +2 coins, wins the battle against …", "Pass"]
    # the same candidate twice, with outcomes that part only at the end: its number, then the cut rest
    a, b = "7 · " + same + " (take the coins)", "7 · " + same + " (take the relic)"
    cut = distinct_labels([a, b], 40)
    assert cut == ["7 · +2 coins, wins the battle aga…coins)", "7 · +2 coins, wins the battle aga…relic)"]
    assert all(len(label) <= 40 for label in cut)
    # without numbers, as before
    assert distinct_labels(["x" * 50, "y" * 50], 40) == ["x" * 39 + "…", "y" * 39 + "…"]


def test_a_panel_points_at_its_picture_right_below_its_prompt() -> None:
    from bot.ui.panels import pointing_at_picture

    content = "✓ You placed a tile.\n**Choose where to build**\n*Ora #3 · you are seat A*"
    assert pointing_at_picture(content, "**Choose where to build**") == (
        "✓ You placed a tile.\n**Choose where to build**\n🖼 The numbers are those on the picture below.\n"
        "*Ora #3 · you are seat A*")
    assert pointing_at_picture(content, "**Choose where to build**", "ja").split("\n")[2] == \
        "🖼 番号は下の画像の番号と対応しています。"
    assert pointing_at_picture("text", "**gone**") == "text\n🖼 The numbers are those on the picture below."


def test_labels_name_players_as_typed_not_escaped_for_markdown() -> None:
    """A button or option label is not markdown: a name like ``**Bo**`` shows as typed (the
    panel's text, a Discord message, escapes it)."""
    from dataclasses import replace

    from engines.base import Msg, seat_ref

    named = replace(record(), seats=(SeatRecord(GAME, 0, 111, "Ann"), SeatRecord(GAME, 1, 222, "**Bo** __x__")))
    for count in (3, 30):  # (buttons, then a select)
        panel = build_panel(ManyChoices(count, label=lambda i: Msg("event.timeout", {"seat": seat_ref(1)})),  # type: ignore[arg-type,return-value]
                            named, {}, 0)
        assert panel.view is not None
        labels = [c.get("label") or o["label"] for row in panel.view.to_components() for c in row["components"]
                  for o in (c.get("options") or [c])]
        labels = [label for label in labels if "time ran out" in label]
        assert labels and all(label.startswith("**Bo** __x__'s time ran out") for label in labels), labels


def test_the_picture_line_comes_only_when_the_choices_name_its_numbers() -> None:
    from bot.ui.panels import pointing_at_picture

    content = "**Choose**\n*seat A*"
    plain = build_panel(ManyChoices(3, label=lambda i: f"Kind {i}"), record(), {}, 0).view
    numbered = build_panel(ManyChoices(3, label=lambda i: f"{i + 1} · +{i} coins"), record(), {}, 0).view
    assert pointing_at_picture(content, "**Choose**", "en", plain) == content
    assert pointing_at_picture(content, "**Choose**", "en", numbered) == \
        "**Choose**\n🖼 The numbers are those on the picture below.\n*seat A*"


async def test_a_step_whose_label_ends_in_the_step_mark_gets_no_second_one() -> None:
    # Illumination's "Activate a line, place later ▸" once read "… place later ▸ ▸"
    engine = ManyChoices(30, group=lambda i: None if i < 20 else ("later ▸" if i < 25 else "more"))
    rows = build_panel(engine, record(), {}, 0).view.to_components()
    labels = [o["label"] for row in rows for c in row["components"] for o in c.get("options", [])]
    assert "later ▸" in labels and "more ▸" in labels and not any(lbl.endswith("▸ ▸") for lbl in labels), labels


@pytest.mark.parametrize("game_id", list(ENGINES))
def test_every_lobby_leaves_one_of_discords_five_rows_free(game_id: str) -> None:
    """Join / Leave / Start, Add AI, the option menu and the timer (or the picked option's
    values, in its place): four rows of five, whichever menu is open, in every language."""
    lobby = dataclasses.replace(record(), game_id=game_id, status="lobby", state=None)
    keys = [None, TIMER_KEY, *(spec.key for spec in ENGINES[game_id].info.options)]
    for locale in ("en", "zh-TW", "zh-CN", "ja"):
        for key in keys:
            view = lobby_view(lobby, locale, key)
            assert view is not None
            rows = view.to_components()
            check_limits(rows)
            assert len(rows) <= 4, (locale, key, len(rows))


@pytest.mark.parametrize("paused", [False, True])
def test_a_paused_games_board_shows_no_move_timer(paused: bool) -> None:
    case = next(c for c in cases() if c.game_id == "carnival")
    engine = case.engine
    state = next(step.after for step in play(case) if any(s >= 0 for s in engine.to_move(step.after)))
    game = dataclasses.replace(record(), game_id="carnival", paused=paused, deadline=1_800_000_000.0)
    lines = board_embed(engine, game, state, image_name="board.png").description.splitlines()
    timer = "Timer: <t:1800000000:R>"
    assert (timer in lines, "⏸ Paused by a moderator." in lines) == (not paused, paused)
    assert timer_shown(game) is not paused


def test_the_pass_confirmation_is_the_passing_players_own_not_the_boards() -> None:
    case = next(c for c in cases() if c.game_id == "illumination")
    engine = case.engine
    notation = notation_of(engine)
    state = next(step.after for step in play(case) if step.after["phase"] == "confirm_pass")
    seat = state["active"]
    game = dataclasses.replace(record(), game_id="illumination", waiting=[seat])
    board = board_embed(engine, game, state, image_name="board.png").description
    tx = Texts("illumination", ["Ann", "Bo"])
    asked = tx(notation.prompt(state, seat))
    assert asked.startswith("Pass for the rest of the game?")  # (the passing player's panel asks)
    assert asked not in board and tx(notation.public_prompt(state, seat)) in board
    assert tx(notation.public_prompt(state, seat)) == tx(Msg("prompt.turn_start"))
    # the pictures: the table and the opponent see a turn start, the passing player the question
    assert [engine.player_view(state, v)["phase"] for v in (None, 1 - seat, seat)] == [
        "turn_start", "turn_start", "confirm_pass"]
