"""Tests of the terminal playground (bot/sandbox/play.py): the command parser, the message formatter, and the
REPL loop end to end with a small stand-in bot (and with the real bot when ``bot.app`` exists)."""

from __future__ import annotations

import asyncio
import io
import shlex
from pathlib import Path
from typing import Any

import discord
import pytest
from discord import app_commands
from discord.ext import commands
from PIL import Image

from bot.sandbox.fakecord import HANG_GUARD, FakeDiscord
from bot.sandbox.play import (
    Command,
    Control,
    PlayError,
    Playground,
    SlashCommand,
    UserRef,
    amain,
    format_message,
    fresh_hint,
    humanize,
    is_image,
    modal_inputs,
    parse_command,
    parse_duration,
    parse_slash,
    run_lines,
)

# ---------------------------------------------------------------------------------------------- parser


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("/game new game:carnival", SlashCommand("game", ("new",), {"game": "carnival"})),
        ("/carnival play action:choose lust", SlashCommand("carnival", ("play",), {"action": "choose lust"})),
        ("/game new game:heaven players:4 timeout:10", SlashCommand("game", ("new",), {"game": "heaven", "players": 4,
                                                                                   "timeout": 10})),
        ("/game mod kick player:@bob", SlashCommand("game", ("mod", "kick"), {"player": UserRef("bob")})),
        ('/game note text:"a: b  c" n:-2', SlashCommand("game", ("note",), {"text": "a: b  c", "n": -2})),
        ("/game mine", SlashCommand("game", ("mine",), {})),
        ("game board", SlashCommand("game", ("board",), {})),
        ("/Game New game:Carnival", SlashCommand("game", ("new",), {"game": "Carnival"})),
        ("/carnival play action:gre?", SlashCommand("carnival", ("play",), {"action": "gre"}, "action")),
        ("/carnival play action:?", SlashCommand("carnival", ("play",), {"action": ""}, "action")),
        ("/x a b c:1 d:two words e:x", SlashCommand("x", ("a", "b"), {"c": 1, "d": "two words", "e": "x"})),
    ],
)
def test_parse_slash(text: str, expected: SlashCommand) -> None:
    assert parse_slash(text) == expected


def test_parse_slash_keeps_a_colon_word_that_names_no_option_in_the_value() -> None:
    text = "/canterbury play action:relic anselm x:3 pilgrim red game:2"
    assert parse_slash(text, {"action", "game"}) == SlashCommand(
        "canterbury", ("play",), {"action": "relic anselm x:3 pilgrim red", "game": 2})
    assert parse_slash(text) == SlashCommand(  # (without the names: every word: starts an option)
        "canterbury", ("play",), {"action": "relic anselm", "x": "3 pilgrim red", "game": 2})


@pytest.mark.parametrize("text", ["/", "/ game:x", "/game a:1 a:2", '/game a:"open', "/g a:x? b:y?"])
def test_parse_slash_errors(text: str) -> None:
    with pytest.raises(PlayError):
        parse_slash(text)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("", Command("nothing")),
        ("   # a comment", Command("nothing")),
        ("as bob", Command("as", ("bob",))),
        ("as @Bob", Command("as", ("bob",))),
        ("click 2", Command("click", (2,))),
        ("choose 3 1", Command("select", (3, [1]))),
        ("select 3 2", Command("select", (3, [2]))),
        ("select 3 1,2", Command("select", (3, [1, 2]))),
        ("select 3 1, 2", Command("select", (3, [1, 2]))),
        ("choose 3.2", Command("select", (3, [2]))),
        ("select 4 @bob,@carol", Command("select", (4, ["bob", "carol"]))),
        ("show", Command("show", (6,))),
        ("show 2", Command("show", (2,))),
        ("wait", Command("wait")),
        ("restart", Command("restart")),
        ("help", Command("help")),
        ("quit", Command("quit")),
        ("exit", Command("quit")),
        ('modal 1:hello 2:"two words"', Command("modal", ({"1": "hello", "2": "two words"},))),
        ("/game new game:carnival", Command("slash", (SlashCommand("game", ("new",), {"game": "carnival"}),))),
        ("advance 25h", Command("advance", (90000.0,))),
    ],
)
def test_parse_command(line: str, expected: Command) -> None:
    assert parse_command(line) == expected


@pytest.mark.parametrize("line", ["click", "click two", "as", "as a b", "select 3", "select x 1", "select 3 a",
                                  "dance", "modal nocolon", "show many", "wait now", "advance", "advance soon"])
def test_parse_command_errors(line: str) -> None:
    with pytest.raises(PlayError):
        parse_command(line)


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("25h", 90000), ("90m", 5400), ("1d12h", 129600), ("30s", 30), ("45", 45), ("1.5h", 5400), ("2D", 172800),
     ("", None), ("soon", None), ("1h 30", None), ("h", None)],
)
def test_parse_duration(text: str, seconds: float | None) -> None:
    assert parse_duration(text) == seconds


def test_humanize_mentions_and_timestamps() -> None:
    names = {"11": "bob", "22": "games"}
    text = "<@11> and <@!11>, see <#22>; <@99> stays; due <t:1700000000:R> or <t:1700000000>"
    assert humanize(text, names) == ("@bob and @bob, see #games; <@99> stays; due 2023-11-14 22:13 UTC or "
                                     "2023-11-14 22:13 UTC")


# ---------------------------------------------------------------------------------------------- formatter

BOT = {"id": "1", "username": "testbot"}


def test_format_message_content_embed_components_and_images() -> None:
    msg = {
        "id": "10", "channel_id": "5", "author": BOT, "flags": 0, "content": "Lobby open\nsecond line",
        "embeds": [{"title": "Carnival of Sins", "description": "Waiting for players",
                    "fields": [{"name": "Players", "value": "alice\nbob"}], "footer": {"text": "game #3"},
                    "image": {"url": "attachment://board.png"}}],
        "components": [
            {"type": 1, "components": [
                {"type": 2, "style": 1, "label": "Join", "custom_id": "g:3:1:join"},
                {"type": 2, "style": 2, "label": "Leave", "custom_id": "g:3:1:leave", "emoji": {"name": "🚪"}},
                {"type": 2, "style": 3, "label": "Start", "custom_id": "g:3:1:start", "disabled": True},
                {"type": 2, "style": 5, "label": "Rules", "url": "https://example.invalid/rules"}]},
            {"type": 1, "components": [
                {"type": 3, "custom_id": "g:3:1:sin", "placeholder": "Choose a sin", "min_values": 1,
                 "max_values": 2, "options": [{"label": "Lust", "value": "lust", "description": "take a card"},
                                              {"label": "Greed", "value": "greed", "default": True}]}]},
        ],
        "attachments": [{"id": "77", "filename": "board.png", "size": 10, "content_type": "image/png"},
                        {"id": "78", "filename": "log.txt", "size": 5, "content_type": "text/plain"}],
    }
    lines, controls = format_message(msg, where="#games › Carnival #3", note="edited", start=4,
                                     images={"77": "playground/images/0001-board.png"})
    assert lines == [
        "── #games › Carnival #3 · testbot (edited)",
        "   Lobby open",
        "   second line",
        "   ┃ ▌Carnival of Sins",
        "   ┃ Waiting for players",
        "   ┃ • Players:",
        "   ┃     alice",
        "   ┃     bob",
        "   ┃ — game #3",
        "   [4] Join   [5] 🚪 Leave   [6] Start (disabled)   [link Rules: https://example.invalid/rules]",
        "   [7] ▾ Choose a sin (pick 1–2)",
        "       7.1 Lust — take a card",
        "       7.2 Greed (default)",
        "   🖼 board.png — open playground/images/0001-board.png",
        "   📎 log.txt (not saved in this session)",
    ]
    assert controls == [
        Control(4, "10", "g:3:1:join", "button", 2),
        Control(5, "10", "g:3:1:leave", "button", 2),
        Control(6, "10", "g:3:1:start", "button", 2),
        Control(7, "10", "g:3:1:sin", "select", 3, (("Lust", "lust"), ("Greed", "greed")), 1, 2),
    ]


def test_format_message_thinking_and_layout_components() -> None:
    thinking = {"id": "1", "channel_id": "5", "author": BOT, "flags": 128, "content": "", "embeds": [],
                "components": [], "attachments": []}
    assert format_message(thinking, where="#games")[0] == ["── #games · testbot", "   (thinking…)"]
    v2 = {"id": "2", "channel_id": "5", "author": BOT, "flags": 1 << 15, "content": "", "embeds": [],
          "components": [{"type": 17, "components": [
              {"type": 10, "content": "Your hand"},
              {"type": 9, "components": [{"type": 10, "content": "Lust"}],
               "accessory": {"type": 2, "style": 1, "label": "Play", "custom_id": "p"}}]}],
          "attachments": []}
    lines, controls = format_message(v2, where="DM to bob", note="only you")
    assert lines == ["── DM to bob · testbot (only you)", "   Your hand", "   Lust", "   [1] Play"]
    assert [c.custom_id for c in controls] == ["p"]


def test_is_image_and_modal_inputs() -> None:
    assert is_image({"filename": "board.PNG"}) and is_image({"filename": "x", "content_type": "image/jpeg"})
    assert not is_image({"filename": "log.txt", "content_type": "text/plain"})
    data = {"custom_id": "m", "title": "Rename", "components": [
        {"type": 1, "components": [{"type": 4, "custom_id": "a", "label": "Name"}]},
        {"type": 18, "label": "Note", "component": {"type": 4, "custom_id": "b"}}]}
    assert [(label, c["custom_id"]) for label, c in modal_inputs(data)] == [("Name", "a"), ("Note", "b")]


# ---------------------------------------------------------------------------------------------- stand-in bot


def _png() -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (40, 20), "white").save(buf, "PNG")
    return buf.getvalue()


class LobbyView(discord.ui.View):
    """Join / Leave buttons and a sin select, state kept in the shared ``store`` (the "database")."""

    def __init__(self, store: dict[str, Any]) -> None:
        super().__init__(timeout=None)
        self.store = store

    def embed(self) -> discord.Embed:
        e = discord.Embed(title=f"{self.store['game'].title()} lobby", description="Waiting for players")
        e.add_field(name="Players", value=", ".join(self.store["players"]) or "nobody")
        return e

    @discord.ui.button(label="Join", custom_id="lobby:join")
    async def join(self, interaction: discord.Interaction, button: discord.ui.Button[LobbyView]) -> None:
        self.store["players"].append(interaction.user.name)
        await interaction.response.edit_message(embed=self.embed(), view=self)

    @discord.ui.button(label="Leave", custom_id="lobby:leave")
    async def leave(self, interaction: discord.Interaction, button: discord.ui.Button[LobbyView]) -> None:
        await interaction.response.defer()  # says nothing: "the bot did not answer" must not be printed

    @discord.ui.select(custom_id="lobby:sin", max_values=2, options=[
        discord.SelectOption(label="Lust", value="lust"), discord.SelectOption(label="Greed", value="greed")])
    async def sin(self, interaction: discord.Interaction, select: discord.ui.Select[LobbyView]) -> None:
        await interaction.response.send_message(f"you chose {' and '.join(select.values)}", ephemeral=True)


class NoteModal(discord.ui.Modal, title="Leave a note"):
    text = discord.ui.TextInput(label="Note", custom_id="note:text")

    def __init__(self) -> None:
        super().__init__(custom_id="note:modal")

    async def on_submit(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(f"noted: {self.text.value}")


class StandInBot(commands.Bot):
    """A small bot with the playground's favourite shapes: /game new (embed, image, buttons, select), an
    autocomplete, an ephemeral hand, a DM, a modal, a command that never answers."""

    def __init__(self, store: dict[str, Any]) -> None:
        intents = discord.Intents.default()
        intents.members = True
        super().__init__(command_prefix="!", intents=intents)
        self.store = store

    async def setup_hook(self) -> None:
        game = app_commands.Group(name="game", description="games")
        store = self.store

        @game.command(name="new", description="open a lobby")
        async def new(interaction: discord.Interaction, game: str) -> None:
            store.update(game=game, players=[interaction.user.name])
            view = LobbyView(store)
            await interaction.response.send_message(embed=view.embed(), view=view,
                                                    file=discord.File(io.BytesIO(_png()), "board.png"))

        @new.autocomplete("game")
        async def games(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
            return [app_commands.Choice(name=g.title(), value=g) for g in ("carnival", "canterbury")
                    if g.startswith(current)]

        @game.command(name="hand", description="your hand")
        async def hand(interaction: discord.Interaction) -> None:
            await interaction.response.send_message(f"{interaction.user.name}'s hand: lust", ephemeral=True)

        @game.command(name="poke", description="DM a player")
        async def poke(interaction: discord.Interaction, player: discord.Member) -> None:
            await player.send(f"{interaction.user.name} pokes you")
            await interaction.response.send_message(f"poked {player.name}")

        @game.command(name="say", description="echo")
        async def say(interaction: discord.Interaction, text: str) -> None:
            await interaction.response.send_message(f"said: {text}")

        @game.command(name="note", description="a modal")
        async def note(interaction: discord.Interaction) -> None:
            await interaction.response.send_modal(NoteModal())

        @game.command(name="silent", description="never answers")
        async def silent(interaction: discord.Interaction) -> None:
            store["silent"] = True

        self.tree.add_command(game)
        self.add_view(LobbyView(store))
        await self.tree.sync()


SCRIPT = """\
# a lobby, as alice (the owner)
/game new game:car?
/game new game:carnival
as bob
click 1
select 3 1,2
as carol
show 2
/game hand
/game poke player:@bob
/game say text:relic x:3 red
/game note
modal 1:"see you tomorrow"
as nobody
click 99
restart
as bob
click 1
/game silent
quit
/game never reached
"""


async def test_repl_end_to_end_with_stand_in_bot(tmp_path: Path) -> None:
    store: dict[str, Any] = {}
    out: list[str] = []
    images = tmp_path / "images"
    async with FakeDiscord(owner_name="alice") as fake:
        pg = Playground(fake, lambda: StandInBot(store), images_dir=images, out=out.append)
        await pg.start()
        await run_lines(pg, SCRIPT.splitlines())
        await pg.stop()
    text = "\n".join(out)
    assert "[alice] > /game new game:car?" in text and "game: Carnival (carnival)\n" in text
    # the board: embed, image saved with a sequence number, numbered controls
    assert "── #games · testbot\n   ┃ ▌Carnival lobby" in text
    board_image = images / "0001-board.png"
    assert board_image.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and f"🖼 board.png — open {board_image}" in text
    assert "[1] Join   [2] Leave" in text and "   [3] ▾ choose (pick 1–2)\n       3.1 Lust\n       3.2 Greed" in text
    # bob joins (an edit), then picks two sins (ephemeral, shown to bob)
    assert "── #games · testbot (edited)" in text and "alice, bob" in text
    assert "── #games · testbot (only you)\n   you chose lust and greed" in text
    # carol's ephemeral hand is hers; the DM to bob is bob's own channel: carol sees only a count
    assert "carol's hand: lust" in text and "(+1 DM in bob's DMs)" in text and "carol pokes you" not in text
    # a word: that names no option of the command stays in the value
    assert "said: relic x:3 red" in text
    # the modal round trip
    assert "── modal: Leave a note" in text and "   1. Note" in text and "noted: see you tomorrow" in text
    # mistakes are explained, not fatal
    assert "?? no member 'nobody'" in text and "?? there is no [99]" in text
    # restart: the persistent view still works on the old board
    assert "(bot restarted on the same database)" in text and store["players"] == ["alice", "bob", "bob"]
    # an unanswered command is reported; nothing after quit runs
    assert store.get("silent") and 'Discord shows "This interaction failed"' in text
    assert "never reached" not in text
    assert not fake.violations and not fake.errors.records


async def test_ephemeral_of_another_member_is_hidden(tmp_path: Path) -> None:
    out: list[str] = []
    async with FakeDiscord(owner_name="alice") as fake:
        pg = Playground(fake, lambda: StandInBot({}), images_dir=tmp_path, out=out.append)
        await pg.start()
        await pg.execute("as bob")
        token = await fake.slash(pg.members["bob"], "game", "hand")
        await fake.response(token)
        await pg.execute("as alice")
        await pg.execute("wait")
        await pg.stop()
    text = "\n".join(out)
    assert "bob's hand" not in text and "(+1 private message only bob can see)" in text


async def test_amain_reads_a_script_file(tmp_path: Path) -> None:
    script = tmp_path / "play.txt"
    script.write_text("/game new game:carnival\nclick 1\n", encoding="utf-8")
    out: list[str] = []
    status = await amain(["--script", str(script), "--db", str(tmp_path / "db" / "games.db"),
                          "--images", str(tmp_path / "img"), "--strict"],
                         bot_factory=lambda: StandInBot({}), out=out.append)
    assert status == 0 and (tmp_path / "db").is_dir() and (tmp_path / "img" / "0001-board.png").exists()
    assert out[1] == "[alice] > /game new game:carnival"


async def test_repl_with_the_real_bot(tmp_path: Path) -> None:
    out: list[str] = []
    script = tmp_path / "play.txt"
    script.write_text("help\n/game new game:carnival\nwait\nrestart\nshow\nquit\n", encoding="utf-8")
    status = await amain(["--script", str(script), "--db", str(tmp_path / "games.db"),
                          "--images", str(tmp_path / "img"), "--strict"], out=out.append)
    text = "\n".join(out)
    assert status == 0, text
    assert "This interaction failed" not in text and "!!" not in text, text
    assert "── #games" in text, text


async def test_a_second_playground_run_finds_the_first_runs_lobby(tmp_path: Path) -> None:
    """The offline server outlives a run (``games.world.json`` beside the database): the same
    members, channel and lobby message, so bob joins alice's lobby of the run before."""
    args = ["--db", str(tmp_path / "games.db"), "--images", str(tmp_path / "img"), "--strict"]
    first = tmp_path / "first.txt"
    first.write_text("/game new game:carnival\nwait\nquit\n", encoding="utf-8")
    assert await amain(["--script", str(first), *args], out=lambda _line: None) == 0
    assert (tmp_path / "games.world.json").exists()
    out: list[str] = []
    second = tmp_path / "second.txt"
    second.write_text("as bob\nshow 1\nclick 1\nwait\n/game mine\nquit\n", encoding="utf-8")
    assert await amain(["--script", str(second), *args], out=out.append) == 0
    text = "\n".join(out)
    assert "Players (2/5)" in text and "2. @bob" in text, text
    assert "#1 Carnival of Sins" in text and "lobby (2 players)" in text, text


async def test_a_second_run_numbers_its_images_on(tmp_path: Path) -> None:
    """The images of an earlier session stay: the next session's files are numbered on."""
    args = ["--db", str(tmp_path / "games.db"), "--images", str(tmp_path / "img"), "--strict"]
    first = tmp_path / "first.txt"
    first.write_text("/game new game:carnival\nas bob\nshow 1\nclick 1\nas alice\nshow 1\nclick 3\nwait\nquit\n",
                     encoding="utf-8")
    assert await amain(["--script", str(first), *args], out=lambda _line: None) == 0
    before = sorted(p.name for p in (tmp_path / "img").glob("*.png"))
    assert before and before[0].startswith("0001-")
    second = tmp_path / "second.txt"
    second.write_text("/game board game:1\nwait\nquit\n", encoding="utf-8")
    assert await amain(["--script", str(second), *args], out=lambda _line: None) == 0
    after = sorted(p.name for p in (tmp_path / "img").glob("*.png"))
    assert after[:len(before)] == before and len(after) > len(before)
    assert [int(name[:4]) for name in after] == list(range(1, len(after) + 1))


def test_a_damaged_world_file_is_refused_by_name(tmp_path: Path) -> None:
    world = tmp_path / "games.world.json"
    world.write_text("{\"last_id\": 1}", encoding="utf-8")
    with pytest.raises(ValueError, match="games.world.json is not a saved playground world"):
        FakeDiscord().load_world(world)


class _SlowAi:
    """A stand-in of ``bot.flow.ai``: moves that land a while after the command that caused them."""

    def __init__(self) -> None:
        self.tasks: list[asyncio.Task[None]] = []

    def busy(self) -> bool:
        return any(not t.done() for t in self.tasks)

    async def settled(self) -> None:
        while self.busy():
            await asyncio.gather(*self.tasks)


class AiStandInBot(commands.Bot):
    """``/game new`` posts a board with a ``v1`` button; an "AI" moves 0.6 s later (longer than
    the playground's idle wait) and edits the board to carry a ``v2`` button."""

    def __init__(self) -> None:
        super().__init__(command_prefix="!", intents=discord.Intents.default())
        self.flow = type("Flow", (), {"ai": _SlowAi()})()

    async def setup_hook(self) -> None:
        game = app_commands.Group(name="game", description="games")

        def board(version: int) -> discord.ui.View:
            view = discord.ui.View(timeout=None)
            view.add_item(discord.ui.Button(label=f"Play (version {version})", custom_id=f"board:v{version}"))
            return view

        @game.command(name="new", description="open a game")
        async def new(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("board", view=board(1))
            message = await interaction.original_response()

            async def ai_moves() -> None:
                await asyncio.sleep(0.6)
                await message.edit(content="board after the AI", view=board(2))

            self.flow.ai.tasks.append(asyncio.create_task(ai_moves()))

        self.tree.add_command(game)
        await self.tree.sync()


async def test_every_command_waits_for_the_ai_moves_so_the_listing_is_current(tmp_path: Path) -> None:
    """The listing after a command shows the board after the AI moves it caused, and its
    numbers press the current buttons (no ``wait`` needed)."""
    out: list[str] = []
    async with FakeDiscord(owner_name="alice") as fake:
        pg = Playground(fake, AiStandInBot, images_dir=tmp_path, out=out.append)
        await pg.start()
        await pg.execute("/game new")
        assert pg.controls[1].custom_id == "board:v2"
        await pg.stop()
    text = "\n".join(out)
    assert "board after the AI" in text and "[1] Play (version 2)" in text


async def test_a_saved_world_brings_back_every_guild_attribute(tmp_path: Path) -> None:
    """``save_world`` / ``load_world`` keep each guild whole (``FakeGuild.WORLD``): a guild
    attribute the world forgot would differ here."""
    async with FakeDiscord(owner_name="alice") as fake:
        other = fake.add_guild("Second", locale="ja")
        bob = await other.add_member("bob")
        other.member_permissions(bob, 8)
        other._threads_allowed = False
        fake.save_world(tmp_path / "w.json")
        loaded = FakeDiscord()
        loaded.load_world(tmp_path / "w.json")
        assert set(loaded.guilds) == set(fake.guilds)
        for gid, guild in fake.guilds.items():
            again = loaded.guilds[gid]
            mine = {k: v for k, v in vars(guild).items() if k != "fake"}
            assert mine == {k: v for k, v in vars(again).items() if k != "fake"} and again.fake is loaded
        assert loaded.default_guild.id == fake.default_guild.id


async def test_fixed_choices_are_listed_and_exported_files_are_saved(tmp_path: Path) -> None:
    """``key:text?`` on an option of fixed choices lists them (``game:?`` of ``/game new``, which
    has no autocomplete), and ``/game export``'s JSON and text are written beside the images."""
    args = ["--db", str(tmp_path / "games.db"), "--images", str(tmp_path / "img"), "--strict"]
    script = tmp_path / "script.txt"
    script.write_text("/game new game:?\n/game new game:carn?\n/game new game:carnival\nas bob\nshow 1\nclick 1\n"
                      "as alice\nshow 1\nclick 3\nwait\n/game export game:1\nwait\nquit\n", encoding="utf-8")
    out: list[str] = []
    assert await amain(["--script", str(script), *args], out=out.append) == 0
    text = "\n".join(out)
    listed = next(line for line in out if line.startswith("game: ") and "(carnival)" in line)
    assert "(heaven)" in listed and "(ora)" in listed, listed
    assert "\ngame: Carnival of Sins (2–5) (carnival)\n" in text and "(no suggestions)" not in text, text
    saved = {p.name.split("-", 1)[1]: p for p in (tmp_path / "img").iterdir() if not p.name.endswith(".png")}
    assert sorted(saved) == ["game-1.json", "game-1.txt"], sorted(saved)
    assert saved["game-1.json"].read_text(encoding="utf-8").lstrip().startswith("{")
    assert f"📎 game-1.txt — open {saved['game-1.txt']}" in text


async def test_advance_moves_the_real_bots_clock_past_a_deadline(tmp_path: Path) -> None:
    """``advance`` moves the bot's clock too (``GameBot(clock=fake.now)``): 13 h into a 24 h turn
    timer the reminder of 50 % goes out (before, the bot kept the wall clock and sent nothing)."""
    from bot.sandbox.play import real_bot_factory

    async with FakeDiscord(owner_name="alice") as fake:
        assert real_bot_factory(tmp_path / "clock.db", fake)().clock == fake.now  # type: ignore[attr-defined]
    out: list[str] = []
    script = tmp_path / "play.txt"
    script.write_text("/game new game:carnival\nas bob\nshow 1\nclick 1\nas alice\nshow 1\nclick 3\nwait\n"
                      "advance 13h\nquit\n", encoding="utf-8")
    status = await amain(["--script", str(script), "--db", str(tmp_path / "games.db"),
                          "--images", str(tmp_path / "img"), "--strict"], out=out.append)
    text = "\n".join(out)
    assert status == 0, text
    before, after = text.split("[alice] > advance 13h", 1)
    assert "Reminder" not in before, text
    assert "⏰ Reminder: @alice, @bob — Choose your sin for round 1." in after, text
    assert "(the clock moved 13 h forward; now " in after, text
    assert "bytes)" not in text, text                               # (attachments: 🖼 name — open path)


def test_a_clock_move_is_said_in_minutes_hours_and_days() -> None:
    from bot.sandbox.play import duration_text

    assert [duration_text(s) for s in (31 * 60, 61 * 60, 13 * 3600, 90000, 30, 129600, 0)] == [
        "31 min", "1 h 1 min", "13 h", "1 d 1 h", "30 s", "1 d 12 h", "0 s"]


async def test_the_server_is_saved_after_every_command_so_a_killed_playground_keeps_it(tmp_path: Path) -> None:
    """With ``world``, each command leaves the server on disk (no ``quit`` needed: ``kill -9``
    loses nothing the next run needs); the file is whole (written aside, then ``os.replace``)."""
    world = tmp_path / "games.world.json"
    async with FakeDiscord(owner_name="alice") as fake:
        pg = Playground(fake, lambda: StandInBot({}), images_dir=tmp_path / "img", out=lambda _line: None,
                        world=world)
        await pg.start()
        await pg.execute("/game new game:carnival")
        saved = FakeDiscord(owner_name="alice")
        saved.load_world(world)  # (before stop: as a kill would leave it)
        assert any("Carnival lobby" in str(m) for m in saved.messages.values())
        assert not world.with_name(world.name + ".tmp").exists()
        await pg.stop()


async def test_sigterm_ends_a_piped_playground_like_quit_and_keeps_its_server(tmp_path: Path) -> None:
    """``kill -TERM`` while the playground waits for input: the bot stops, the server is saved and
    the process ends at once (the blocked read is a daemon thread), status 0."""
    import signal
    import sys

    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot.sandbox.play", "--db", str(tmp_path / "games.db"), "--images",
        str(tmp_path / "img"), stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write(b"/game new game:carnival\nwait\n")
        await proc.stdin.drain()
        seen: list[str] = []
        while not any(line.startswith("[alice] > wait") for line in seen):
            seen.append((await asyncio.wait_for(proc.stdout.readline(), HANG_GUARD)).decode())
            assert seen[-1], "".join(seen)
        proc.send_signal(signal.SIGTERM)
        rest = (await asyncio.wait_for(proc.stdout.read(), HANG_GUARD)).decode()
        assert await asyncio.wait_for(proc.wait(), HANG_GUARD) == 0, rest
        assert "(terminated: the server is saved for the next run)" in rest
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    saved = FakeDiscord(owner_name="alice")
    saved.load_world(tmp_path / "games.world.json")
    assert any("Carnival" in str(m) for m in saved.messages.values())


def test_the_fresh_hint_names_the_database_unless_it_is_the_default() -> None:
    assert fresh_hint(Path("playground/games.db")) == "`make play ARGS=--fresh`"
    assert fresh_hint(Path("other.db")) == "`make play ARGS='--db other.db --fresh'`"
    assert shlex.split(fresh_hint(Path("my games/x.db")).strip("`").removeprefix("make play "))[0] == \
        "ARGS=--db 'my games/x.db' --fresh"


async def test_an_emptied_playground_database_is_refused_not_started_over(tmp_path: Path) -> None:
    """The playground checks its database as the bot does at start (bot/backup.py): an emptied file
    is refused and named; ``--fresh`` starts over on purpose."""
    args = ["--db", str(tmp_path / "games.db"), "--images", str(tmp_path / "img")]
    first = tmp_path / "first.txt"
    first.write_text("/game new game:carnival\nwait\nquit\n", encoding="utf-8")
    assert await amain(["--script", str(first), *args], out=lambda _line: None) == 0
    (tmp_path / "games.db").write_bytes(b"")
    for side in ("games.db-wal", "games.db-shm"):
        (tmp_path / side).unlink(missing_ok=True)
    out: list[str] = []
    assert await amain(["--script", str(first), *args], out=out.append) == 4
    assert out[0].startswith(f"The playground cannot start: The database {tmp_path / 'games.db'} is empty"), out
    # the hint starts over on this database, not on the default one
    assert out[0].endswith(f"\n(`make play ARGS='--db {tmp_path / 'games.db'} --fresh'` starts a new playground.)"), out
    assert (tmp_path / "games.db").read_bytes() == b""
    assert await amain(["--script", str(first), "--fresh", *args], out=lambda _line: None) == 0


async def test_the_readmes_playground_example_runs_as_shown(tmp_path: Path) -> None:
    """README.md's `make play` example, typed as it stands: every line is understood, the
    lobby's Add AI select seats an AI, bob joins, and alice's pick is taken."""
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    block = readme.split("## The offline playground", 1)[1].split("```", 2)[1]
    lines = [line.split("> ", 1)[1].split("#", 1)[0].strip() for line in block.splitlines() if "> " in line]
    assert lines[:2] == ["/game new game:carnival", "select 4 2"]
    script = tmp_path / "readme.txt"
    script.write_text("\n".join([*lines, "wait"]) + "\n", encoding="utf-8")
    out: list[str] = []
    assert await amain(["--script", str(script), "--db", str(tmp_path / "games.db"),
                        "--images", str(tmp_path / "img")], out=out.append) == 0
    said = "\n".join(out)
    assert "??" not in said, said[-2000:]
    assert "[4] ▾ Add AI…" in said and "2. 🤖 Bot · Normal" in said and "3. @bob" in said
    assert "🔒 You picked Gluttony for round 1." in said
