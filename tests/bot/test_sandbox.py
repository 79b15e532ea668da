"""Tests of the offline Discord itself (bot/sandbox/fakecord.py), driven by a tiny throwaway discord.py bot.

Each Discord limit of docs/DISCORD.md must come back with Discord's status, code and error shape, and be
recorded in ``fake.violations``; selects, autocomplete, USER options, threads, DMs and permissions must
round-trip through the real discord.py.
"""

from __future__ import annotations

import asyncio
import io
import json
import time
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import discord
import pytest
import pytest_asyncio
from discord import app_commands
from discord.ext import commands
from discord.http import Route

from bot.sandbox import fakecord
from bot.sandbox.fakecord import CommandNotPermitted, FakeDiscord, Perm
from tests.discord_openapi import OpenAPICheck, discord_api

# ---------------------------------------------------------------------------------------------- tiny bot

GAMES = ["carnival", "canterbury", "heaven", "eguan"]


class TinyView(discord.ui.View):
    """Persistent: a Join button and a two-choice select menu."""

    def __init__(self) -> None:
        super().__init__(timeout=None)

    @discord.ui.button(label="Join", custom_id="t:join")
    async def join(self, interaction: discord.Interaction, button: discord.ui.Button[TinyView]) -> None:
        where = "dm" if interaction.guild_id is None else "guild"
        await interaction.response.send_message(
            f"joined {interaction.user.name} {where} {type(interaction.user).__name__}", ephemeral=True
        )

    @discord.ui.select(
        custom_id="t:pick",
        min_values=1,
        max_values=2,
        options=[discord.SelectOption(label=x.upper(), value=x) for x in "abc"],
    )
    async def pick(self, interaction: discord.Interaction, select: discord.ui.Select[TinyView]) -> None:
        await interaction.response.edit_message(content="picked " + ",".join(select.values))


class Tiny(app_commands.Group):
    """Commands of the tiny bot."""

    def __init__(self, bot: TinyBot) -> None:
        super().__init__(name="t", description="tiny bot")
        self.bot = bot

    @app_commands.command(description="post a board with a button and a select")
    async def hello(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message("board", view=TinyView())

    @app_commands.command(description="pick a game (autocomplete)")
    async def pick(self, interaction: discord.Interaction, game: str, count: int = 1) -> None:
        await interaction.response.send_message(f"picked {game} x{count}")

    @pick.autocomplete("game")
    async def pick_game(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        return [app_commands.Choice(name=g.title(), value=g) for g in GAMES if g.startswith(current)]

    @app_commands.command(description="a USER option")
    async def poke(self, interaction: discord.Interaction, who: discord.Member) -> None:
        await interaction.response.send_message(f"poked {who.name} {who.id} {type(who).__name__}")

    @app_commands.command(description="say something")
    async def say(self, interaction: discord.Interaction, text: str) -> None:
        try:
            await interaction.response.send_message(text)
        except discord.HTTPException as e:
            self.bot.http_errors.append(e)
            await interaction.response.send_message("too long, shortened")

    @app_commands.command(description="a board in a thread, or in the channel when threads are refused")
    async def thread(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message("board")
        board = await interaction.original_response()
        try:
            th = await board.create_thread(name="Game 1")
            await th.send("in thread", view=TinyView())
        except discord.Forbidden as e:
            self.bot.http_errors.append(e)
            assert isinstance(interaction.channel, discord.TextChannel)
            await interaction.channel.send("no thread: playing here")

    @app_commands.command(description="DM the caller")
    async def dm(self, interaction: discord.Interaction) -> None:
        try:
            await interaction.user.send("your secret hand", view=TinyView())
            out = "sent"
        except discord.Forbidden as e:
            out = f"DMs closed ({e.code})"
        await interaction.response.send_message(out, ephemeral=True)

    @app_commands.command(description="where am I")
    @app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)
    async def where(self, interaction: discord.Interaction) -> None:
        user = interaction.user
        gp = user.guild_permissions.manage_guild if isinstance(user, discord.Member) else None
        await interaction.response.send_message(
            f"guild={interaction.guild_id} channel={interaction.channel_id} user={type(user).__name__} "
            f"perm={interaction.permissions.manage_guild} guildperm={gp}",
            ephemeral=True,
        )

    @app_commands.command(description="a slow answer")
    async def slow(self, interaction: discord.Interaction) -> None:
        await self.bot.release.wait()  # the test lets it answer once Discord's clock moved on
        try:
            await interaction.response.send_message("late")
        except discord.NotFound as e:
            self.bot.http_errors.append(e)

    @app_commands.command(description="answer twice")
    async def twice(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message("once")
        route = Route(
            "POST",
            "/interactions/{interaction_id}/{interaction_token}/callback",
            interaction_id=interaction.id,
            interaction_token=interaction.token,
        )
        try:
            await self.bot.http.request(route, json={"type": 4, "data": {"content": "twice"}})
        except discord.HTTPException as e:
            self.bot.http_errors.append(e)

    @app_commands.command(description="deferred, then edited")
    async def later(self, interaction: discord.Interaction) -> None:
        await interaction.response.defer(thinking=True)
        await interaction.edit_original_response(content="done")
        self.bot.last_interaction = interaction

    @app_commands.command(description="an ephemeral reply")
    async def secret(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message("only you", ephemeral=True)
        self.bot.last_interaction = interaction


    @app_commands.command(description="thinking, then follow-ups")
    async def think(self, interaction: discord.Interaction) -> None:
        await interaction.response.defer(thinking=True, ephemeral=True)
        await self.bot.release.wait()  # no REST call meanwhile: idle() must still wait for the handler
        await interaction.followup.send("first")
        await interaction.followup.send("second", ephemeral=True)

    @app_commands.command(description="an option named like a FakeDiscord parameter")
    async def notify(self, interaction: discord.Interaction, dm: bool) -> None:
        await interaction.response.send_message(f"dm={dm} guild={interaction.guild_id is not None}")

    @app_commands.command(description="a modal")
    async def rename(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_modal(RenameModal())


class RenameModal(discord.ui.Modal, title="Rename"):
    name = discord.ui.TextInput(label="New name", custom_id="rename:name", max_length=40)

    def __init__(self) -> None:
        super().__init__(custom_id="rename:modal")

    async def on_submit(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(f"renamed to {self.name.value}")


@app_commands.command(name="tmod", description="moderators only")
@app_commands.default_permissions(manage_guild=True)
async def tmod(interaction: discord.Interaction) -> None:
    await interaction.response.send_message("moderated", ephemeral=True)


class TinyBot(commands.Bot):
    """A throwaway bot: slash commands, a persistent button and select, autocomplete, a thread, a DM."""

    def __init__(self) -> None:
        intents = discord.Intents.default()
        intents.members = True
        super().__init__(command_prefix="!", intents=intents)
        self.http_errors: list[discord.HTTPException] = []
        self.last_interaction: discord.Interaction | None = None
        self.release = asyncio.Event()  # lets a waiting handler go on

    async def setup_hook(self) -> None:
        self.tree.add_command(Tiny(self))
        self.tree.add_command(tmod)
        self.add_view(TinyView())
        await self.tree.sync()


# ---------------------------------------------------------------------------------------------- fixtures


@pytest_asyncio.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    async with FakeDiscord() as fd:
        yield fd
        assert not fd.errors.records, [r.getMessage() for r in fd.errors.records]


@pytest_asyncio.fixture
async def bot(fake: FakeDiscord) -> AsyncIterator[TinyBot]:
    b = TinyBot()
    await fake.start_bot(b)
    yield b
    await fake.stop_bot(b)


def channel_route(fake: FakeDiscord, channel: dict[str, Any] | None = None) -> Route:
    cid = (channel or fake.channel)["id"]
    return Route("POST", "/channels/{channel_id}/messages", channel_id=cid)


async def answer(fake: FakeDiscord, token: str) -> dict[str, Any]:
    """The bot's first response to an interaction, after its other calls settled."""
    cb = await fake.response(token)
    await fake.idle(0.05)
    return cb


# ---------------------------------------------------------------------------------------------- round trips


async def test_startup_syncs_commands(fake: FakeDiscord, bot: TinyBot) -> None:
    names = {c["name"] for c in fake.commands}
    assert names == {"t", "tmod"}
    assert fake.calls("PUT", r"/applications/\d+/commands")
    assert fake.identifies and bot.user is not None and bot.user.id == fake.app_id


async def test_button_and_select_round_trip(fake: FakeDiscord, bot: TinyBot) -> None:
    bob = await fake.add_member("bob")
    tok = await fake.slash(bob, "t", "hello")
    await answer(fake, tok)
    board = fake.message_for(tok)
    assert board is not None and board["content"] == "board"
    cb = await answer(fake, await fake.click(bob, board, "t:join"))
    assert cb["type"] == 4 and cb["data"]["content"] == "joined bob guild Member" and cb["data"]["flags"] & 64
    tok = await fake.select(bob, board, "t:pick", ["a", "c"])
    cb = await answer(fake, tok)
    assert cb["type"] == 7 and board["content"] == "picked a,c"
    with pytest.raises(ValueError):
        await fake.select(bob, board, "t:pick", ["z"])
    with pytest.raises(ValueError):
        await fake.select(bob, board, "t:pick", ["a", "b", "c"])  # max_values=2
    with pytest.raises(LookupError):
        await fake.click(bob, board, "t:nope")
    assert not fake.violations and not fake.unacked()


async def test_autocomplete_round_trip(fake: FakeDiscord, bot: TinyBot) -> None:
    choices = await fake.autocomplete(fake.owner, "t", "pick", focused="game", game="ca")
    assert choices == [{"name": "Carnival", "value": "carnival"}, {"name": "Canterbury", "value": "canterbury"}]
    sent = fake.calls("POST", r"/interactions/\d+/[\w.-]+/callback")[-1].json
    assert sent["type"] == 8
    assert len(await fake.autocomplete(fake.owner, "t", "pick", focused="game")) == 4
    tok = await fake.slash(fake.owner, "t", "pick", game="heaven", count="3")  # typed from the synced schema
    assert (await answer(fake, tok))["data"]["content"] == "picked heaven x3"


async def test_user_option_resolved(fake: FakeDiscord, bot: TinyBot) -> None:
    bob = await fake.add_member("bob")
    tok = await fake.slash(fake.owner, "t", "poke", who=bob)
    cb = await answer(fake, tok)
    assert cb["data"]["content"] == f"poked bob {bob['id']} Member"
    opt = fake.calls("POST", r"/interactions/\d+/[\w.-]+/callback")  # the request went through; data is ours
    assert opt


async def test_threads_and_second_channel(fake: FakeDiscord, bot: TinyBot) -> None:
    tok = await fake.slash(fake.owner, "t", "thread")
    await answer(fake, tok)
    (thread,) = fake.threads()
    board = fake.message_for(tok)
    assert board is not None
    assert thread["type"] == 11 and thread["parent_id"] == fake.channel["id"] and thread["id"] == board["id"]
    (posted,) = fake.channel_messages(thread["id"])
    assert posted["content"] == "in thread" and fake.describe_channel(thread["id"]) == "#games › Game 1"
    assert bot.get_channel(int(thread["id"])) is not None  # THREAD_CREATE reached the bot
    # an interaction from inside the thread
    cb = await answer(fake, await fake.click(fake.owner, posted, "t:join"))
    assert cb["data"]["content"].startswith("joined owner guild")
    tok = await fake.slash(fake.owner, "t", "where", channel=thread)
    assert f"channel={thread['id']}" in (await answer(fake, tok))["data"]["content"]
    # a second text channel
    ch2 = await fake.add_channel("games-2")
    tok = await fake.slash(fake.owner, "t", "hello", channel=ch2)
    await answer(fake, tok)
    assert [m["content"] for m in fake.channel_messages(ch2["id"])] == ["board"]
    assert not fake.violations


async def test_threads_refused_fall_back_to_channel(fake: FakeDiscord, bot: TinyBot) -> None:
    fake.threads_allowed = False
    tok = await fake.slash(fake.owner, "t", "thread")
    await answer(fake, tok)
    (err,) = bot.http_errors
    assert err.status == 403 and err.code == 50013
    assert not fake.threads() and fake.channel_messages(fake.channel["id"])[-1]["content"] == "no thread: playing here"
    assert fake.refusals and not fake.violations
    assert not bot.get_guild(fake.guild_id).me.guild_permissions.create_public_threads  # type: ignore[union-attr]


async def test_dm_context_interactions(fake: FakeDiscord, bot: TinyBot) -> None:
    bob = await fake.add_member("bob")
    tok = await fake.slash(bob, "t", "where", dm=True)
    content = (await answer(fake, tok))["data"]["content"]
    dm = fake.dm_channels[bob["id"]]
    assert content.startswith(f"guild=None channel={dm['id']} user=User")
    payload_ok = fake.interactions[tok]["dm"]
    assert payload_ok
    # a DM from the bot, and a click on its button inside the DM
    await answer(fake, await fake.slash(bob, "t", "dm"))
    (msg,) = fake.channel_messages(dm["id"], ephemeral=False)
    assert msg["content"] == "your secret hand" and fake.describe_channel(dm["id"]) == "DM to bob"
    cb = await answer(fake, await fake.click(bob, msg, "t:join"))
    assert cb["data"]["content"] == "joined bob dm User"


async def test_closed_dms(fake: FakeDiscord, bot: TinyBot) -> None:
    carol = await fake.add_member("carol")
    fake.close_dms(carol)
    cb = await answer(fake, await fake.slash(carol, "t", "dm"))
    assert cb["data"]["content"] == "DMs closed (50007)"
    assert not fake.channel_messages(fake.dm_channels[carol["id"]]["id"])
    assert fake.refusals == [f"50007 POST /channels/{fake.dm_channels[carol['id']]['id']}/messages: "
                             "Cannot send messages to this user"]


async def test_permissions(fake: FakeDiscord, bot: TinyBot) -> None:
    bob = await fake.add_member("bob")
    dave = await fake.add_member("dave")
    fake.member_permissions(dave, Perm.MANAGE_GUILD | Perm.MANAGE_MESSAGES)
    assert "perm=True guildperm=True" in (await answer(fake, await fake.slash(fake.owner, "t", "where")))["data"]["content"]
    assert "perm=False guildperm=False" in (await answer(fake, await fake.slash(bob, "t", "where")))["data"]["content"]
    assert "perm=True guildperm=True" in (await answer(fake, await fake.slash(dave, "t", "where")))["data"]["content"]
    with pytest.raises(CommandNotPermitted):
        await fake.slash(bob, "tmod")
    assert (await answer(fake, await fake.slash(dave, "tmod")))["data"]["content"] == "moderated"


async def test_what_the_discord_client_would_not_send(fake: FakeDiscord, bot: TinyBot) -> None:
    with pytest.raises(LookupError, match="no subcommand 'nope'"):
        await fake.slash(fake.owner, "t", "nope")
    with pytest.raises(ValueError, match="needs a subcommand"):
        await fake.slash(fake.owner, "t")
    with pytest.raises(LookupError, match="no option 'colour'"):
        await fake.slash(fake.owner, "t", "pick", game="x", colour="red")
    with pytest.raises(ValueError, match="needs game"):
        await fake.slash(fake.owner, "t", "pick")
    with pytest.raises(LookupError, match="no autocomplete"):
        await fake.autocomplete(fake.owner, "t", "pick", focused="count")
    assert not fake.interactions


async def test_option_named_dm_and_explicit_context(fake: FakeDiscord, bot: TinyBot) -> None:
    cb = await answer(fake, await fake.slash(fake.owner, "t", "notify", dm=True))
    assert cb["data"]["content"] == "dm=True guild=True"
    cb = await answer(fake, await fake.slash(fake.owner, "t", "notify", dm=False, context="dm"))
    assert cb["data"]["content"] == "dm=False guild=False"
    cb = await answer(fake, await fake.slash(fake.owner, "t", "say", options={"text": "via options"}))
    assert cb["data"]["content"] == "via options"


async def test_first_followup_replaces_thinking_and_idle_waits_for_handlers(fake: FakeDiscord, bot: TinyBot) -> None:
    tok = await fake.slash(fake.owner, "t", "think")
    await fake.response(tok)  # the defer
    idle = asyncio.create_task(fake.idle(0.02))
    done, _ = await asyncio.wait({idle}, timeout=0.2)  # ten quiet periods without a REST call…
    assert not done  # …and still not idle: the handler runs
    bot.release.set()
    await idle  # returns once the handler is done
    first, second = (m for m in fake.channel_messages(fake.channel["id"]))
    assert fake.message_for(tok) is first and first["content"] == "first" and not first["flags"] & 128
    assert first["flags"] & 64 and second["content"] == "second" and second["flags"] & 64
    assert fake.ephemeral_owner(first) == fake.owner["id"]


async def test_modal_round_trip(fake: FakeDiscord, bot: TinyBot) -> None:
    cb = await answer(fake, await fake.slash(fake.owner, "t", "rename"))
    assert cb["type"] == 9 and cb["data"]["custom_id"] == "rename:modal"
    cb = await answer(fake, await fake.submit_modal(fake.owner, "rename:modal", {"rename:name": "Gomoku"}))
    assert cb["data"]["content"] == "renamed to Gomoku" and not fake.violations


# ---------------------------------------------------------------------------------------------- limits


def _rows(n_rows: int, per_row: int, **button: Any) -> list[dict[str, Any]]:
    return [
        {"type": 1, "components": [dict({"type": 2, "style": 1, "label": "b", "custom_id": f"b{r}.{i}"}, **button)
                                   for i in range(per_row)]}
        for r in range(n_rows)
    ]


def _select(n: int = 3, **over: Any) -> list[dict[str, Any]]:
    opt = over.pop("option", {})
    options = [dict({"label": f"o{i}", "value": f"v{i}"}, **opt) for i in range(n)]
    return [{"type": 1, "components": [dict({"type": 3, "custom_id": "s", "options": options}, **over)]}]


LONG = "x" * 5000
FIELD = {"name": "n", "value": "v"}
BAD_PAYLOADS: dict[str, tuple[dict[str, Any], list[str]]] = {
    "content": ({"content": "x" * 2001}, ["content"]),
    "embeds per message": ({"embeds": [{"title": "t"}] * 11}, ["embeds"]),
    "embed title": ({"embeds": [{"title": "x" * 257}]}, ["embeds", "0", "title"]),
    "embed description": ({"embeds": [{"description": "x" * 4097}]}, ["embeds", "0", "description"]),
    "field name": ({"embeds": [{"fields": [{"name": "x" * 257, "value": "v"}]}]}, ["embeds", "0", "fields", "0", "name"]),
    "field value": ({"embeds": [{"fields": [{"name": "n", "value": "x" * 1025}]}]},
                    ["embeds", "0", "fields", "0", "value"]),
    "empty field value": ({"embeds": [{"fields": [{"name": "n", "value": ""}]}]}, ["embeds", "0", "fields", "0", "value"]),
    "26 fields": ({"embeds": [{"fields": [FIELD] * 26}]}, ["embeds", "0", "fields"]),
    "6000 total": ({"embeds": [{"description": "x" * 4000}, {"description": "x" * 2001}]}, ["embeds"]),
    "6 action rows": ({"components": _rows(6, 1)}, ["components"]),
    "6 buttons in a row": ({"components": _rows(1, 6)}, ["components", "0", "components"]),
    "button label": ({"components": _rows(1, 1, label="x" * 81)}, ["components", "0", "components", "0", "label"]),
    "custom_id": ({"components": _rows(1, 1, custom_id="x" * 101)},
                  ["components", "0", "components", "0", "custom_id"]),
    "duplicate custom_id": ({"components": _rows(1, 2, custom_id="same")}, ["components"]),
    "26 options": ({"components": _select(26)}, ["components", "0", "components", "0", "options"]),
    "option label": ({"components": _select(option={"label": "x" * 101})},
                     ["components", "0", "components", "0", "options", "0", "label"]),
    "option value": ({"components": _select(option={"value": "x" * 101})},
                     ["components", "0", "components", "0", "options", "0", "value"]),
    "option description": ({"components": _select(option={"description": "x" * 101})},
                           ["components", "0", "components", "0", "options", "0", "description"]),
    "placeholder": ({"components": _select(placeholder="x" * 151)},
                    ["components", "0", "components", "0", "placeholder"]),
}


async def test_every_limit_answers_400_invalid_form_body(fake: FakeDiscord, bot: TinyBot) -> None:
    for name, (payload, path) in BAD_PAYLOADS.items():
        with pytest.raises(discord.HTTPException) as info:
            await bot.http.request(channel_route(fake), json=payload)
        e = info.value
        assert (e.status, e.code) == (400, 50035), name
        assert e.text and "Invalid Form Body" in str(e), name
        body = fake.requests[-1]
        status, answer_body = await fake.route(body)  # same answer again, to look at the error shape
        node = answer_body["errors"]
        for key in path:
            node = node[key]
        assert node["_errors"][0]["code"], name
    assert len(fake.violations) == 2 * len(BAD_PAYLOADS)
    assert not fake.channel_messages(fake.channel["id"])


async def test_limits_are_inclusive(fake: FakeDiscord, bot: TinyBot) -> None:
    ok = [
        {"content": "x" * 2000},
        {"embeds": [{"title": "x" * 256, "description": "x" * 4096, "fields": [{"name": "n" * 256, "value": "v" * 1024}]}]},
        {"embeds": [{"description": "x" * 1000}] * 6},
        {"embeds": [{"fields": [FIELD] * 25}]},
        {"components": _rows(5, 5, label="x" * 80)},
        {"components": _select(25, placeholder="p" * 150, option={"label": "l" * 100, "description": "d" * 100})},
    ]
    for payload in ok:
        await bot.http.request(channel_route(fake), json=payload)
    assert not fake.violations and len(fake.channel_messages(fake.channel["id"])) == len(ok)
    with pytest.raises(discord.HTTPException) as info:
        await bot.http.request(channel_route(fake), json={"content": ""})
    assert info.value.code == 50006


async def test_limits_on_interaction_responses(fake: FakeDiscord, bot: TinyBot) -> None:
    tok = await fake.slash(fake.owner, "t", "say", text="y" * 2001)
    cb = await answer(fake, tok)
    (err,) = bot.http_errors
    assert (err.status, err.code) == (400, 50035) and cb["data"]["content"] == "too long, shortened"
    assert len(fake.violations) == 1 and "content" in fake.violations[0]


async def test_request_checks_see_every_request(fake: FakeDiscord, bot: TinyBot,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """What a request check finds (here Discord's OpenAPI description, as the e2e suite uses it) is recorded
    in ``spec_violations``, from JSON bodies and from the ``payload_json`` of an upload alike; the fake's
    answer stays its own."""
    check = OpenAPICheck(discord_api())
    monkeypatch.setattr(fakecord, "REQUEST_CHECKS", [check])
    cid = fake.channel["id"]
    await bot.http.request(channel_route(fake), json={"content": "fine"})
    await bot.http.request(channel_route(fake), json={"content": 5})  # the fake's own checks let this by
    upload = [{"name": "payload_json", "value": json.dumps({"content": "board", "tts": "no"})},
              {"name": "files[0]", "value": b"png", "filename": "board.png", "content_type": "image/png"}]
    await bot.http.request(channel_route(fake), form=upload, files=[])
    with pytest.raises(discord.NotFound):
        await bot.http.request(Route("POST", "/channels/{channel_id}/messagez", channel_id=cid), json={})
    where = f"POST /channels/{{channel_id}}/messages (/channels/{cid}/messages)"
    assert fake.spec_violations == check.found == [
        f"{where}: .content: 5 is not of type 'string', 'null'",
        f"{where}: .tts: 'no' is not of type 'boolean', 'null'",
        f"POST /channels/{cid}/messagez: no such operation in Discord's OpenAPI description"]
    assert check.checked == 4


async def test_upload_limit(fake: FakeDiscord, bot: TinyBot) -> None:
    fake.upload_limit = 4096
    channel = bot.get_channel(int(fake.channel["id"]))
    assert isinstance(channel, discord.TextChannel)
    await channel.send(file=discord.File(io.BytesIO(b"x" * 4096), "ok.png"))
    with pytest.raises(discord.HTTPException) as info:
        await channel.send(file=discord.File(io.BytesIO(b"x" * 4097), "big.png"))
    assert (info.value.status, info.value.code) == (413, 40005)
    assert fake.violations == [f"40005 POST /channels/{fake.channel['id']}/messages (4097 bytes of files > 4096): "
                               "Request entity too large"]


async def test_second_response_is_40060(fake: FakeDiscord, bot: TinyBot) -> None:
    tok = await fake.slash(fake.owner, "t", "twice")
    await answer(fake, tok)
    (err,) = bot.http_errors
    assert (err.status, err.code) == (400, 40060)
    assert fake.violations[0].startswith("40060") and fake.interactions[tok]["callback"]["data"]["content"] == "once"


async def test_first_response_after_3s_is_unknown_interaction(fake: FakeDiscord, bot: TinyBot) -> None:
    tok = await fake.slash(fake.owner, "t", "slow")
    fake.advance(3.5)  # the bot answers only now, 3.5 s later for Discord
    bot.release.set()
    await fake.wait_for(lambda: bot.http_errors)
    (err,) = bot.http_errors
    assert (err.status, err.code) == (404, 10062)
    assert fake.unacked() == [tok] and "first response after 3." in fake.violations[0]
    fake.interactions.clear()


async def test_a_slow_machine_never_makes_the_bot_late(fake: FakeDiscord, bot: TinyBot,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Discord's 3 s to answer run on the fake's clock: ten seconds of wall time while the bot works
    (a machine under load) do not make its answer late; only the fake's clock does (above)."""
    tok = await fake.slash(fake.owner, "t", "slow")
    wall = time.time
    monkeypatch.setattr(time, "time", lambda: wall() + 10.0)  # the wall clock, ten seconds on
    bot.release.set()
    cb = await fake.response(tok)
    assert cb["data"]["content"] == "late" and not fake.violations and not fake.unacked()


async def test_idle_waits_until_the_bot_has_read_every_event(fake: FakeDiscord, bot: TinyBot,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """A bot that reads its gateway late (a loaded machine) is not idle before it has read the events
    sent to it: the fake checks the last sequence the bot has read."""
    read = discord.gateway.DiscordWebSocket.received_message
    gate = asyncio.Event()

    async def late(self: discord.gateway.DiscordWebSocket, msg: Any, /) -> None:
        if isinstance(msg, str) and '"INTERACTION_CREATE"' in msg:
            await gate.wait()
        await read(self, msg)

    monkeypatch.setattr(discord.gateway.DiscordWebSocket, "received_message", late)
    tok = await fake.slash(fake.owner, "t", "say", text="read late")

    async def slow_reader() -> None:  # (the bot reads the event a fifth of a second late)
        await asyncio.sleep(0.2)
        gate.set()

    reader = asyncio.create_task(slow_reader())
    await fake.idle(0.01)
    await reader
    assert fake.interactions[tok]["callback"]["data"]["content"] == "read late"


async def test_waiting_for_a_local_bot_never_spends_its_gateway_sends(fake: FakeDiscord, bot: TinyBot) -> None:
    """discord.py allows 110 gateway sends a minute and stops reading for the rest of the minute after
    them; a heartbeat asked of a bot is one of them. A long game waits for the bot hundreds of times:
    for a bot of this process the fake reads its sequence instead of asking."""
    for n in range(150):
        tok = await fake.slash(fake.owner, "t", "say", text=f"event {n}")
        await fake.idle(0.0)
        assert fake.interactions[tok]["callback"]["data"]["content"] == f"event {n}"
    assert fake.heartbeats_asked == 0
    ws = bot.ws
    assert ws is not None and ws._rate_limiter.remaining > 100


async def test_token_expires_after_15_minutes(fake: FakeDiscord, bot: TinyBot) -> None:
    await answer(fake, await fake.slash(fake.owner, "t", "later"))
    it = bot.last_interaction
    assert it is not None
    await it.followup.send("still in time")
    fake.advance(15 * 60 + 1)
    with pytest.raises(discord.HTTPException) as info:
        await it.followup.send("too late")
    assert (info.value.status, info.value.code) == (401, 50027)
    with pytest.raises(discord.HTTPException) as info:
        await it.edit_original_response(content="too late")
    assert info.value.code == 50027 and len(fake.violations) == 2


async def test_ephemeral_not_reachable_through_channel(fake: FakeDiscord, bot: TinyBot) -> None:
    bob = await fake.add_member("bob")
    tok = await fake.slash(bob, "t", "secret")
    await answer(fake, tok)
    msg = fake.message_for(tok)
    assert msg is not None and fake.ephemeral_owner(msg) == bob["id"]
    with pytest.raises(discord.NotFound) as info:
        await bot.http.get_message(msg["channel_id"], msg["id"])
    assert info.value.code == 10008
    with pytest.raises(discord.NotFound):
        await bot.http.edit_message(msg["channel_id"], msg["id"], params=discord.http.MultipartParameters(
            payload={"content": "x"}, multipart=None, files=None))
    assert len(fake.violations) == 2
    assert bot.last_interaction is not None
    await bot.last_interaction.edit_original_response(content="edited by token")  # the allowed way
    assert msg["content"] == "edited by token" and len(fake.violations) == 2


async def test_edit_refused_and_edit_cap(fake: FakeDiscord, bot: TinyBot) -> None:
    channel = bot.get_channel(int(fake.channel["id"]))
    assert isinstance(channel, discord.TextChannel)
    board = await channel.send("board v1")
    await board.edit(content="board v2")
    fake.refuse_edits(board.id)
    with pytest.raises(discord.HTTPException) as info:
        await board.edit(content="board v3")
    assert (info.value.status, info.value.code) == (400, 30046)
    fresh = await channel.send("board v3")  # the fallback: a fresh message
    fake.old_message_edit_cap = 2
    fake.advance(2 * 3600)
    await fresh.edit(content="v4")
    await fresh.edit(content="v5")
    with pytest.raises(discord.HTTPException) as info:
        await fresh.edit(content="v6")
    assert info.value.code == 30046 and fake.messages[fresh.id]["content"] == "v5"
    assert len(fake.refusals) == 2 and not fake.violations
    # messages keep the fake clock: the old board is two hours old for the bot too
    again = await channel.fetch_message(fresh.id)
    assert (discord.utils.utcnow() - again.created_at).total_seconds() < 1 < (fake.now_dt() - again.created_at).total_seconds()


async def test_get_routes_and_history(fake: FakeDiscord, bot: TinyBot) -> None:
    bob = await fake.add_member("bob")
    channel = await bot.fetch_channel(int(fake.channel["id"]))
    assert isinstance(channel, discord.TextChannel) and channel.name == "games"
    guild = bot.get_guild(fake.guild_id)
    assert guild is not None
    member = await guild.fetch_member(int(bob["id"]))
    assert member.name == "bob"
    with pytest.raises(discord.NotFound):
        await guild.fetch_member(42)
    sent = [await channel.send(f"m{i}") for i in range(3)]
    assert (await channel.fetch_message(sent[1].id)).content == "m1"
    assert [m.content async for m in channel.history(limit=2)] == ["m2", "m1"]
    assert [m["content"] for m in fake.channel_messages(fake.channel["id"])] == ["m0", "m1", "m2"]


async def test_rate_limit_is_retried(fake: FakeDiscord, bot: TinyBot) -> None:
    fake.rate_limit_next(r"/channels/\d+/messages", retry_after=0.05)
    channel = bot.get_channel(int(fake.channel["id"]))
    assert isinstance(channel, discord.TextChannel)
    await channel.send("after the wait")
    assert len(fake.calls("POST", r"/channels/\d+/messages")) == 2
    assert fake.refusals[0].startswith("0 POST") and [m["content"] for m in fake.channel_messages(fake.channel["id"])] == [
        "after the wait"
    ]


async def test_interaction_routes_have_rate_limits_of_their_own(fake: FakeDiscord, bot: TinyBot) -> None:
    """Each interaction's callback and webhook have buckets of their own, outside the global limit:
    over the limit comes a 429 with ``retry_after``, and a request before it has passed is a violation."""
    tok = await fake.slash(fake.owner, "t", "say", text="hi")
    await answer(fake, tok)
    fake.rate_limit_buckets(per_channel=None, global_limit=(1, 60.0), per_interaction=(2, 60.0))
    hook = f"{Route.BASE}/webhooks/{fake.app_id}/{tok}"
    answers = []
    async with aiohttp.ClientSession() as session:
        for i in range(4):
            async with session.post(hook, json={"content": f"follow-up {i}"}) as r:
                answers.append((r.status, r.headers.get("X-RateLimit-Remaining"), await r.json()))
        assert [status for status, _, _ in answers] == [200, 200, 429, 429]
        assert [left for _, left, _ in answers] == ["1", "0", "0", "0"]
        retry_after = answers[2][2]["retry_after"]
        assert 0 < retry_after <= 60 and answers[2][2]["global"] is False
        # the fourth came at once, before the third's retry_after: the bot's fault
        assert len(fake.violations) == 1 and "before the retry_after of its 429" in fake.violations[0]
        # the bot-token global limit never counted them: a channel message is its first request
        channel = bot.get_channel(int(fake.channel["id"]))
        assert isinstance(channel, discord.TextChannel)
        await channel.send("bot token")
        fake.advance(61)  # the window passes: the webhook is open again
        async with session.post(hook, json={"content": "later"}) as r:
            assert r.status == 200
    assert [m["content"] for m in fake.channel_messages(fake.channel["id"])][-4:] == [
        "follow-up 0", "follow-up 1", "bot token", "later"]
    assert sum(r.startswith("0 webhook POST") for r in fake.refusals) == 2
    fake.violations.clear()


async def test_guild_command_sync_and_its_limits(fake: FakeDiscord, bot: TinyBot) -> None:
    cmd = {"name": "x", "description": "d", "type": 1}
    await bot.http.bulk_upsert_guild_commands(fake.app_id, 999, [cmd])
    assert [(c["name"], c["guild_id"]) for c in fake.guild_commands] == [("x", "999")]
    with pytest.raises(discord.HTTPException) as info:
        await bot.http.bulk_upsert_guild_commands(fake.app_id, 999, [dict(cmd, description="d" * 101)])
    assert (info.value.status, info.value.code) == (400, 50035)
    assert [(c["name"], c["guild_id"]) for c in fake.guild_commands] == [("x", "999")]


async def test_wrong_callback_type_is_refused(fake: FakeDiscord, bot: TinyBot) -> None:
    tok = await fake.slash(fake.owner, "t", "hello")
    await answer(fake, tok)
    it = fake.interactions[tok]
    it["acked_at"] = None  # pretend it was not answered, then answer a slash command with UPDATE_MESSAGE
    route = Route("POST", "/interactions/{interaction_id}/{interaction_token}/callback",
                  interaction_id=it["id"], interaction_token=tok)
    with pytest.raises(discord.HTTPException) as info:
        await bot.http.request(route, json={"type": 7, "data": {"content": "x"}})
    assert info.value.code == 50035 and "callback type 7" in fake.violations[0]


# ---------------------------------------------------------------------------------------------- several guilds


async def test_several_guilds_each_with_its_own_members_channels_and_limits(fake: FakeDiscord) -> None:
    beta = fake.add_guild("Beta", owner_name="zed", locale="fr", upload_limit=50 << 20)
    yan = await beta.add_member("yan")
    bot = TinyBot()
    await fake.start_bot(bot)
    try:
        assert {g.id for g in bot.guilds} == {fake.guild_id, beta.id}            # a GUILD_CREATE for each
        g_beta = bot.get_guild(beta.id)
        assert g_beta is not None and g_beta.name == "Beta" and g_beta.owner_id == int(beta.owner["id"])
        assert {m.name for m in g_beta.members} == {"testbot", "zed", "yan"}
        assert [c.name for c in g_beta.text_channels] == ["games"] and g_beta.preferred_locale.value == "fr"
        assert g_beta.filesize_limit == 50 << 20
        assert beta.channel["id"] != fake.channel["id"] and fake.guild_of(beta.channel) is beta
        assert fake.describe_channel(beta.channel["id"]) == "Beta #games"
        # an interaction carries the guild of the channel it happens in
        tok = await fake.slash(yan, "t", "where", channel=beta.channel)
        assert f"guild={beta.id} " in (await answer(fake, tok))["data"]["content"]
        payload = fake.interactions[tok]["payload"]
        assert (payload["guild_id"], payload["guild_locale"]) == (str(beta.id), "fr")
        assert payload["attachment_size_limit"] == 50 << 20
        tok = await fake.slash(yan, "t", "hello", channel=beta.channel)
        await answer(fake, tok)
        board = fake.message_for(tok)
        assert board is not None and board["guild_id"] == str(beta.id)
        cb = await answer(fake, await fake.click(yan, board, "t:join"))
        assert cb["data"]["content"] == "joined yan guild Member"
        # a member of one guild cannot act in another's channels (the Discord client shows them nothing)
        with pytest.raises(LookupError):
            await fake.slash(yan, "t", "where")
        with pytest.raises(LookupError):
            await fake.slash(fake.owner, "t", "where", channel=beta.channel)
        # one user may be a member of both
        await beta.add_member(fake.owner)
        tok = await fake.slash(fake.owner, "t", "where", channel=beta.channel)
        assert "perm=False" in (await answer(fake, tok))["data"]["content"]       # owner of A, member of B
        # a guild added while the bot is connected is announced
        gamma = fake.add_guild("Gamma", owner=yan)
        await fake.slash(yan, "t", "where", channel=gamma.channel)
        await fake.idle(0.05)
        assert bot.get_guild(gamma.id) is not None and bot.get_guild(gamma.id).owner_id == int(yan["id"])
        assert not fake.violations and not fake.unacked()
    finally:
        await fake.stop_bot(bot)


async def test_member_permissions_are_per_guild(fake: FakeDiscord, bot: TinyBot) -> None:
    beta = fake.add_guild("Beta", owner_name="zed")
    bob = await fake.add_member("bob")
    await beta.add_member(bob)
    beta.member_permissions(bob, Perm.MANAGE_GUILD)
    tok = await fake.slash(bob, "t", "where", channel=beta.channel)
    assert "perm=True guildperm=True" in (await answer(fake, tok))["data"]["content"]
    tok = await fake.slash(bob, "t", "where")
    assert "perm=False guildperm=False" in (await answer(fake, tok))["data"]["content"]
    assert fake.permissions_of(bob) != beta.permissions_of(bob) == Perm.MANAGE_GUILD
    # the owner of a guild has every permission there only
    tok = await fake.slash(beta.owner, "t", "where", channel=beta.channel)
    assert "perm=True guildperm=True" in (await answer(fake, tok))["data"]["content"]


async def test_upload_limit_is_the_channels_guilds(fake: FakeDiscord, bot: TinyBot) -> None:
    beta = fake.add_guild("Beta", owner_name="zed", upload_limit=2048)
    for _ in range(200):  # until the bot has handled GUILD_CREATE (a loaded machine may take a while)
        await fake.idle(0.05)
        if bot.get_channel(int(beta.channel["id"])) is not None:
            break
    in_beta = bot.get_channel(int(beta.channel["id"]))
    in_alpha = bot.get_channel(int(fake.channel["id"]))
    assert isinstance(in_beta, discord.TextChannel) and isinstance(in_alpha, discord.TextChannel)
    with pytest.raises(discord.HTTPException) as info:
        await in_beta.send(file=discord.File(io.BytesIO(b"x" * 4096), "board.png"))
    assert (info.value.status, info.value.code) == (413, 40005)
    await in_alpha.send(file=discord.File(io.BytesIO(b"x" * 4096), "board.png"))  # 10 MiB in the default guild
    assert len(fake.violations) == 1 and "4096 bytes of files > 2048" in fake.violations[0]
    fake.violations.clear()


async def test_redeliver_and_forged_components(fake: FakeDiscord, bot: TinyBot) -> None:
    tok = await fake.slash(fake.owner, "t", "hello")
    await answer(fake, tok)
    board = fake.message_for(tok)
    assert board is not None
    tok = await fake.click(fake.owner, board, "t:join")
    await answer(fake, tok)
    first = fake.interactions[tok]["payload"]
    await fake.redeliver(tok)                                  # the same id and token again: answering is 40060
    await fake.idle(0.05)
    assert any(v.startswith("40060") for v in fake.violations)
    assert fake.interactions[tok]["payload"] == first
    fake.violations.clear()
    fake.errors.records.clear()                                # the tiny bot logs that failed second answer
    # forge=True sends a custom id the message does not carry, or values the menu does not offer
    clicked = await fake.click(fake.owner, board, "t:nope", forge=True)
    picked = await fake.select(fake.owner, board, "t:pick", ["zzz"], forge=True)
    assert fake.interactions[clicked]["payload"]["data"] == {"custom_id": "t:nope", "component_type": 2}
    assert fake.interactions[picked]["payload"]["data"] == {"custom_id": "t:pick", "component_type": 3,
                                                             "values": ["zzz"]}
    await fake.idle(0.05)
    assert fake.interactions[clicked]["acked_at"] is None     # discord.py drops a custom id the message lacks


async def test_client_checks_false_sends_what_the_client_would_refuse(fake: FakeDiscord, bot: TinyBot) -> None:
    with pytest.raises(LookupError):
        await fake.slash(fake.owner, "t", "pick", game="carnival", colour="red")
    tok = await fake.slash(fake.owner, "t", "hello", client_checks=False, extra="x")
    sent = fake.interactions[tok]["payload"]["data"]["options"]
    assert sent == [{"name": "hello", "type": 1, "options": [{"name": "extra", "type": 3, "value": "x"}]}]
    await fake.idle(0.05)
