""""🔍 Look at…" on the board message (bot/ui/looks.py) through the offline Discord, with Carnival's
renderer given the two functions of the look-at interface in the test (``zoom_regions``,
``render_zoom``): the board lists the public view's regions in the server's language; a pick
answers privately, in the reader's language, with the region drawn from the reader's own view (a
seated player's private view, a spectator's public view: never another seat's hidden pick); an
old board's menu works after a restart; a forged or vanished region and a pick from another
channel change nothing and say why."""

from __future__ import annotations

import io
import random
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from bot.app import GameBot
from bot.sandbox.fakecord import FakeDiscord, iter_components
from engines.base import Msg
from engines.registry import get as get_engine
from render import carnival as carnival_render
from tests.e2e.driver import Driver

JSONDict = dict[str, Any]


class Zoom:
    """The look-at interface for Carnival, as a test double: the public view offers the table;
    a seat's view also its own pick ("mine"). Remembers every view and region it drew, and
    draws an image whose width says how many it drew before."""

    def __init__(self) -> None:
        self.drawn: list[tuple[str, dict[str, Any]]] = []
        self.table_shown = True

    def zoom_regions(self, view: dict[str, Any]) -> list[tuple[str, Msg]]:
        regions = [("table", Msg("where.table"))] if self.table_shown else []
        if "seat" in view:
            regions.append(("mine", Msg("ui.button.hand")))
        return regions

    def render_zoom(self, view: dict[str, Any], region: str, *, names: list[str], text: Any) -> Image.Image:
        self.drawn.append((region, view))
        return Image.new("RGB", (400 + len(self.drawn), 300), (200, 180, 120))


@pytest.fixture
def zoom(monkeypatch: pytest.MonkeyPatch) -> Zoom:
    monkeypatch.setattr("bot.service.new_seed", lambda: 1)
    double = Zoom()
    monkeypatch.setattr(carnival_render, "zoom_regions", double.zoom_regions, raising=False)
    monkeypatch.setattr(carnival_render, "render_zoom", double.render_zoom, raising=False)
    return double


def look_menu(message: JSONDict, game: int) -> JSONDict:
    (menu,) = [c for c in iter_components(message["components"]) if c.get("custom_id") == f"z:{game}"]
    return menu


async def look(driver: Driver, user: JSONDict, message: JSONDict, game: int, region: str, **kw: Any) -> JSONDict:
    """Pick ``region`` in the look menu of ``message`` as ``user``; the private answer."""
    mark = max(driver.fake.messages)
    await driver.fake.select(user, driver.fake.messages[int(message["id"])], f"z:{game}", [region], **kw)
    await driver.settle()
    answer = driver.newest_ephemeral(user, after=mark)
    assert answer is not None
    return answer


def width(fake: FakeDiscord, answer: JSONDict) -> int:
    (attachment,) = answer["attachments"]
    assert attachment["filename"] == "look.png"
    return Image.open(io.BytesIO(fake.image_bytes(attachment))).width


async def test_look_at_answers_privately_from_the_readers_own_view(
        fake: FakeDiscord, make_bot: Callable[..., Awaitable[GameBot]], players: list[JSONDict], zoom: Zoom,
        tmp_path: Path) -> None:
    alice, bob, carol = players[:3]
    first = await make_bot(tmp_path / "games.db")
    driver = Driver(fake, first)
    await fake.slash(alice, "game", "language", server="ja")
    await fake.slash(bob, "game", "language", language="zh_TW")
    await driver.settle()
    game = await driver.start_game("carnival", [alice, bob])
    # bob picks his sin face down: his view holds it, alice's and the public one do not
    panel = await driver.open_panel(bob, game)
    await driver.decide(bob, panel, random.Random(3))
    record = await driver.record(game)
    engine = get_engine("carnival")
    state = first.service.state(record)
    bob_seat = record.seat_of(int(bob["id"]))
    bob_view = engine.player_view(state, bob_seat)
    assert bob_view["pick"] is not None and bob_view != engine.player_view(state, 1 - bob_seat)

    board = await driver.board(game)
    menu = look_menu(board, game)  # (a public message: the server's language, the public view's regions)
    assert menu["placeholder"] == "🔍 見る…"
    assert [(o["label"], o["value"]) for o in menu["options"]] == [("テーブル", "table")]
    assert len(board["components"]) == 2  # (the buttons' row, then the menu's own)

    answer = await look(driver, bob, board, game, "table")
    assert fake.ephemeral_owner(answer) == bob["id"]
    assert answer["content"] == "🔍 **桌面** — 罪之嘉年華 #1（只有你看得到）"
    assert width(fake, answer) == 401
    assert zoom.drawn == [("table", bob_view)]
    options = look_menu(answer, game)["options"]  # (bob's own view: the table and his pick, in his language)
    assert [(o["label"], o["value"], o.get("default", False)) for o in options] == [
        ("桌面", "table", True), ("我的視角", "mine", False)]

    answer = await look(driver, carol, board, game, "table")  # (a spectator: the public view, in English)
    assert answer["content"] == "🔍 **table** — Carnival of Sins (罪のカーニバル) #1 (only you see this)"
    region, seen = zoom.drawn[-1]
    assert region == "table" and seen == first.service.public_view(record) and "pick" not in seen
    assert [o["value"] for o in look_menu(answer, game)["options"]] == ["table"]

    # bob looks further from his private answer
    mine = await look(driver, bob, answer := driver.newest_ephemeral(bob) or {}, game, "mine")
    assert answer and zoom.drawn[-1] == ("mine", bob_view) and width(fake, mine) == 403

    # after a restart the old board's menu still answers
    await fake.stop_bot(first)
    second = await make_bot(tmp_path / "games.db")
    driver = Driver(fake, second)
    again = await look(driver, alice, board, game, "table")
    alice_view = engine.player_view(state, record.seat_of(int(alice["id"])))
    assert zoom.drawn[-1] == ("table", alice_view) and width(fake, again) == 404
    assert again["content"].startswith("🔍 **")


async def test_a_region_not_offered_or_gone_and_another_channel_change_nothing(
        driver: Driver, players: list[JSONDict], zoom: Zoom) -> None:
    alice, bob, carol = players[:3]
    fake = driver.fake
    game = await driver.start_game("carnival", [alice, bob])
    board = await driver.board(game)
    before = (await driver.record(game)).version
    # a value the board's menu does not offer (a modified client): named, nothing drawn
    answer = await look(driver, carol, board, game, "mine", forge=True)
    assert answer["content"] == "⚠️ 'mine' is not one of this menu's parts of the table; pick one of the listed ones."
    # a region the game no longer offers
    zoom.table_shown = False
    answer = await look(driver, carol, board, game, "table")
    assert answer["content"] == "⚠️ That part of the table cannot be shown now; pick again from the board's 🔍 Look at…"
    zoom.table_shown = True
    # the board's menu sent from another channel
    other = await fake.add_channel("elsewhere")
    answer = await look(driver, carol, board, game, "table", channel=other)
    assert "not on one of game #1's messages" in answer["content"]
    assert zoom.drawn == [] and (await driver.record(game)).version == before


async def test_a_game_without_regions_has_no_look_menu(driver: Driver, players: list[JSONDict],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(carnival_render, "zoom_regions")  # (a renderer that offers no regions)
    monkeypatch.delattr(carnival_render, "render_zoom")
    game = await driver.start_game("carnival", players[:2])
    board = await driver.board(game)
    assert not [c for c in iter_components(board["components"]) if c.get("custom_id", "").startswith("z:")]


async def test_a_dm_turn_notice_looks_from_the_players_own_view_in_their_language(
        driver: Driver, players: list[JSONDict], zoom: Zoom) -> None:
    """A DM is private: its "🔍 Look at…" lists the regions of the player's own view in their
    language, and a pick from the DM answers there, from that view."""
    alice, bob = players[:2]
    fake = driver.fake
    await fake.slash(bob, "game", "language", language="ja")
    await driver.settle()
    game = await driver.start_game("carnival", [alice, bob])
    record = await driver.record(game)
    channel = fake.dm_channels[bob["id"]]
    (notice,) = [m for m in fake.channel_messages(channel["id"], ephemeral=False) if m["content"].startswith("🔔")]
    menu = look_menu(notice, game)
    assert menu["placeholder"] == "🔍 見る…"
    assert [(o["label"], o["value"]) for o in menu["options"]] == [("テーブル", "table"), ("自分の画面", "mine")]
    answer = await look(driver, bob, notice, game, "mine")
    bob_view = get_engine("carnival").player_view(driver.bot.service.state(record), record.seat_of(int(bob["id"])))
    assert zoom.drawn == [("mine", bob_view)] and width(fake, answer) == 401
    assert answer["content"] == "🔍 **自分の画面** — 罪のカーニバル #1（あなただけに表示）"


async def test_the_playground_lists_the_look_menu_and_answers_a_pick(
        zoom: Zoom, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """``make play`` (bot/sandbox/play.py): the board lists "🔍 Look at…" as a numbered select, and
    ``select`` on it answers privately with the region's image saved like any other."""
    from bot.sandbox.play import Playground, real_bot_factory, run_lines

    monkeypatch.setenv("RENDER_WORKERS", "0")  # (the test's renderer lives in this process)
    out: list[str] = []
    async with FakeDiscord(owner_name="alice") as fake:
        pg = Playground(fake, real_bot_factory(tmp_path / "games.db", fake), images_dir=tmp_path / "images",
                        out=out.append)
        await pg.start()
        marker = len(out)
        await run_lines(pg, ["/game new game:carnival", "as bob", "click 1", "as alice", "click 3", "select 5 1"])
        await pg.stop()
        assert not fake.violations and not fake.errors.records
    text = "\n".join(out[marker:])
    board, answer = text.split("[alice] > select 5 1", 1)
    assert "   [5] ▾ 🔍 Look at… (pick 1)\n       5.1 table\n" in board
    assert "(only you)\n   🔍 **table** — Carnival of Sins (罪のカーニバル) #1 (only you see this)\n" in answer
    assert "       1.1 table (default)\n       1.2 My view\n" in answer and "🖼 look.png — open " in answer
    assert [region for region, _ in zoom.drawn] == ["table"]
