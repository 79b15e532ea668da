"""A game belongs to its server (docs/DESIGN.md §5; bot/ui/context.py
``check_origin`` / ``check_message``).

Two servers share one bot: server A ("Alpha", owner alice) and server B ("Beta", owner
zed, who moderates B and is an ordinary member of A too). Every command and every
component that names a game of A is tried from B — and from the wrong message of A
itself — and each is refused privately with its exact sentence, with no state change
(version, log length, status, seats) and no existing message edited. A moderator of A
then ends the game, to show the checks refuse only what they should.
"""

# ruff: noqa: F811  (the end-to-end fixtures are imported by name and then taken as parameters)
from __future__ import annotations

import copy
from collections.abc import Awaitable, Callable
from functools import partial
from types import SimpleNamespace
from typing import Any

import discord
import pytest

from bot.app import GameBot
from bot.sandbox.fakecord import EPHEMERAL, FakeGuild, iter_components
from bot.service import HostError
from bot.ui.checks import FOREIGN_MESSAGE, NOT_YOURS_IN_DM, OTHER_CHANNEL, OTHER_SERVER, check_origin
from bot.ui.permissions import NOT_A_MODERATOR
from tests.e2e.conftest import bot, driver, fake, make_bot  # noqa: F401
from tests.e2e.driver import Driver

JSONDict = dict[str, Any]


class World:
    """Server A with a running game ``a1`` (alice, bob) in #games, a running game ``a2``
    (alice, carol) in #other and an open lobby ``a3``; server B with a running game ``b1``
    (zed, yan) and an open lobby ``b2``."""

    def __init__(self, driver: Driver) -> None:
        self.d = driver
        self.fake = driver.fake

    async def build(self) -> World:
        fake, d = self.fake, self.d
        self.alice = fake.owner
        self.bob = await fake.add_member("bob")
        self.carol = await fake.add_member("carol")
        self.beta: FakeGuild = fake.add_guild("Beta", owner_name="zed")
        self.zed = self.beta.owner
        self.yan = await self.beta.add_member("yan")
        await fake.default_guild.add_member(self.zed)        # zed is an ordinary member of A
        self.other = await fake.add_channel("other")
        await d.settle()
        self.a1 = await d.start_game("carnival", [self.alice, self.bob])
        self.a2 = await d.start_game("carnival", [self.alice, self.carol], channel=self.other)
        self.a3, self.a3_lobby = await d.open_lobby(self.bob, "carnival")
        self.b1 = await d.start_game("carnival", [self.zed, self.yan], channel=self.beta.channel)
        self.b2, self.b2_lobby = await d.open_lobby(self.yan, "carnival", channel=self.beta.channel)
        return self

    async def state(self, game: int) -> tuple[Any, ...]:
        r = await self.d.record(game)
        return r.version, await self.d.bot.repo.count_actions(game), r.status, r.paused, r.seats

    def messages(self) -> dict[int, JSONDict]:
        return {mid: copy.deepcopy({k: m.get(k) for k in ("content", "embeds", "components", "attachments")})
                for mid, m in self.fake.messages.items()}

    async def refused(self, user: JSONDict, expected: str, act: Callable[[], Awaitable[Any]]) -> None:
        """``act`` as ``user`` gets exactly one private answer ``⚠️ expected``; no game and
        no message that existed before changes, and nothing public is posted."""
        games = (self.a1, self.a2, self.a3, self.b1, self.b2)
        before = [await self.state(g) for g in games]
        seen = self.messages()
        last = max(self.fake.messages)
        await act()
        await self.d.settle()
        new = [m for mid, m in sorted(self.fake.messages.items()) if mid > last]
        assert [m["content"] for m in new] == [f"⚠️ {expected}"], [m["content"] for m in new]
        assert all(m["flags"] & EPHEMERAL and self.fake.ephemeral_owner(m) == user["id"] for m in new)
        assert {mid: m for mid, m in self.messages().items() if mid <= last} == seen
        assert [await self.state(g) for g in games] == before


def custom_id(message: JSONDict, suffix: str) -> str:
    return next(c["custom_id"] for c in iter_components(message["components"])
                if c.get("custom_id", "").endswith(suffix))


async def panel_of(w: World, game: int, users: list[JSONDict]) -> tuple[JSONDict, JSONDict]:
    """(a user among ``users`` whom ``game`` waits for, the private panel they opened)."""
    record = await w.d.record(game)
    waiting = {str(record.user_of(s)) for s in record.waiting}
    user = next(u for u in users if u["id"] in waiting)
    return user, await w.d.open_panel(user, game)


async def test_every_command_naming_a_game_of_another_server_is_refused(driver: Driver) -> None:
    w = await World(driver).build()
    fake, zed, yan, a1 = w.fake, w.zed, w.yan, w.a1
    beta = w.beta.channel
    other = OTHER_SERVER.format(game=a1)
    commands: list[tuple[str, tuple[str, ...], dict[str, Any]]] = [
        ("game", ("mod", "end"), {"game": a1, "reason": "mine now"}),
        ("game", ("mod", "kick"), {"game": a1, "member": w.bob}),
        ("game", ("mod", "replace"), {"game": a1, "player": w.bob, "member": zed}),
        ("game", ("mod", "pause"), {"game": a1, "paused": True}),
        ("game", ("board",), {"game": a1}),
        ("game", ("hand",), {"game": a1}),
        ("game", ("log",), {"game": a1}),
        ("game", ("play",), {"game": a1}),
        ("carnival", ("play",), {"game": a1, "action": "choose lust"}),
        ("carnival", ("play",), {"game": a1}),
        ("carnival", ("hand",), {"game": a1}),
        ("game", ("mod", "end"), {"game": w.a3}),                   # a lobby of A
    ]
    for name, sub, options in commands:
        expected = OTHER_SERVER.format(game=options["game"])
        await w.refused(zed, expected, partial(fake.slash, zed, name, *sub, channel=beta, **options))
    # an ordinary member of B is stopped by the moderator check before the game is even read
    await w.refused(yan, NOT_A_MODERATOR, lambda: fake.slash(yan, "game", "mod", "end", game=a1, channel=beta))
    # zed moderates B only: in A, where he is an ordinary member, he is no moderator
    for name, options in (("end", {"game": a1}), ("pause", {"game": a1, "paused": True}),
                          ("kick", {"game": a1, "member": w.bob}),
                          ("replace", {"game": a1, "player": w.bob, "member": zed})):
        await w.refused(zed, NOT_A_MODERATOR, partial(fake.slash, zed, "game", "mod", name, **options))
    # autocomplete from B offers nothing of A: neither its games nor its moves
    choices = await fake.autocomplete(zed, "carnival", "play", focused="action", game=a1, channel=beta)
    assert choices == []
    listed = await fake.autocomplete(zed, "game", "log", focused="game", channel=beta)
    assert {c["value"] for c in listed} == {str(w.b1), str(w.b2)}
    assert other.startswith(f"Game #{a1} belongs to another server")
    # the game's own moderator still can
    await fake.slash(w.alice, "game", "mod", "end", game=a1, reason="done")
    await driver.settle()
    assert (await driver.record(a1)).status == "abandoned"


async def test_a_custom_id_forged_onto_another_message_changes_nothing(driver: Driver) -> None:
    w = await World(driver).build()
    fake, zed, yan, bob = w.fake, w.zed, w.yan, w.bob
    a1 = await driver.record(w.a1)
    v = a1.version
    b1_board = await driver.board(w.b1)
    a2_board = await driver.board(w.a2)
    b2_lobby = fake.messages[int(w.b2_lobby["id"])]
    a1_board = await driver.board(w.a1)
    panel_user, b1_panel = await panel_of(w, w.b1, [zed, yan])
    b1_panel = fake.messages[int(b1_panel["id"])]
    forged_clicks: list[tuple[JSONDict, JSONDict, str]] = [
        # on server B's messages, naming A's lobby and A's game
        (yan, b2_lobby, f"l:{w.a3}:join"),
        (yan, b2_lobby, f"l:{w.a3}:leave"),
        (yan, b2_lobby, f"l:{w.a3}:start"),
        (zed, b1_board, f"g:{w.a1}:{v}:play"),
        (zed, b1_board, f"g:{w.a1}:{v}:hand"),
        (zed, b1_board, f"g:{w.a1}:{v}:log"),
        (zed, b1_board, f"g:{w.a1}:{v}:rules"),
        (panel_user, b1_panel, f"a:{w.a1}:{v}:0"),
        (panel_user, b1_panel, f"n:{w.a1}:{v}:0:"),
        # on another game's board of the same server, in another channel
        (bob, a2_board, f"g:{w.a1}:{v}:play"),
        (bob, a2_board, f"a:{w.a1}:{v}:0"),
        # on A's lobby message in A's own channel: a board button of A's game
        (bob, fake.messages[int(w.a3_lobby["id"])], f"g:{w.a1}:{v}:play"),
        # on the game's own board, but a custom id it does not carry (an action index)
        (bob, a1_board, f"a:{w.a1}:{v}:0"),
        # on the game's own board, a button of an older version it no longer shows
        (bob, a1_board, f"g:{w.a1}:{v - 1}:play"),
    ]
    for user, message, cid in forged_clicks:
        await w.refused(user, FOREIGN_MESSAGE, partial(fake.click, user, message, cid, forge=True))
    for user, message, cid, value in ((panel_user, b1_panel, f"as:{w.a1}:{v}:0", "0"),
                                      (bob, a2_board, f"as:{w.a1}:{v}:0", "0")):
        await w.refused(user, FOREIGN_MESSAGE,
                        partial(fake.select, user, message, cid, [value], forge=True))
    # the board's own buttons still work for its players
    assert len(forged_clicks) == 14
    await fake.click(bob, a1_board, custom_id(a1_board, ":log"))
    await driver.settle()
    assert (await driver.record(w.a1)).version == v


async def test_from_a_dm_only_the_players_own_games(driver: Driver) -> None:
    w = await World(driver).build()
    fake, zed, bob = w.fake, w.zed, w.bob
    for command in ("log", "hand", "board"):
        await w.refused(zed, NOT_YOURS_IN_DM.format(game=w.a1),
                        partial(fake.slash, zed, "game", command, game=w.a1, dm=True))
    # a player may look at their own game from their DM with the bot
    last = max(fake.messages)
    await fake.slash(bob, "game", "log", game=w.a1, dm=True)
    await driver.settle()
    (reply,) = [m for mid, m in fake.messages.items() if mid > last]
    assert reply["content"].startswith(f"📜 Log of game #{w.a1}")
    # a DM message of the bot carries no buttons: a custom id forged onto it changes nothing
    await driver.bot.delivery.transport.dm(int(bob["id"]), "your move")
    await driver.settle()
    (note,) = [m for m in fake.channel_messages(fake.dm_channel(bob)["id"], ephemeral=False)
               if m["content"] == "your move"]
    await w.refused(bob, FOREIGN_MESSAGE, lambda: fake.click(bob, note, f"g:{w.a1}:1:play", forge=True))


def interaction(*, guild: int | None, channel: int, user: int, component: bool = True,
                ephemeral_for: int | None = None) -> Any:
    message = None
    if ephemeral_for is not None:
        message = SimpleNamespace(flags=SimpleNamespace(ephemeral=True),
                                  interaction_metadata=SimpleNamespace(user=SimpleNamespace(id=ephemeral_for)))
    kind = discord.InteractionType.component if component else discord.InteractionType.application_command
    return SimpleNamespace(guild_id=guild, channel_id=channel, user=SimpleNamespace(id=user), type=kind,
                           message=message)


async def test_check_origin_server_channel_private_panel_and_dm(driver: Driver, bot: GameBot) -> None:
    """The second layer, for a message that does carry the custom id: the server, then the
    channel (or a private panel of this user), or a DM of a seated player."""
    w = await World(driver).build()
    rec = await driver.record(w.a1)
    alice, bob, zed = int(w.alice["id"]), int(w.bob["id"]), int(w.zed["id"])
    home, other = rec.home_channel_id, int(w.other["id"])
    ok = [interaction(guild=rec.guild_id, channel=home, user=bob),
          interaction(guild=rec.guild_id, channel=rec.channel_id, user=zed),          # the lobby's channel
          interaction(guild=rec.guild_id, channel=other, user=bob, ephemeral_for=bob),  # own private panel
          interaction(guild=rec.guild_id, channel=other, user=zed, component=False),  # a command, same server
          interaction(guild=None, channel=1, user=alice)]                             # a player's DM
    for it in ok:
        check_origin(it, rec)
    refused = [(interaction(guild=w.beta.id, channel=int(w.beta.channel["id"]), user=zed), OTHER_SERVER),
               (interaction(guild=w.beta.id, channel=home, user=zed, component=False), OTHER_SERVER),
               (interaction(guild=rec.guild_id, channel=other, user=bob), OTHER_CHANNEL),
               (interaction(guild=rec.guild_id, channel=other, user=bob, ephemeral_for=alice), OTHER_CHANNEL),
               (interaction(guild=None, channel=1, user=zed), NOT_YOURS_IN_DM)]
    for it, sentence in refused:
        with pytest.raises(HostError) as err:
            check_origin(it, rec)
        assert err.value.message == sentence.format(game=rec.id, channel=home)


async def test_a_panel_id_sent_from_the_public_board_never_redraws_it(driver: Driver) -> None:
    """A panel's ids (a step, an action) forged onto the game's own public board, by one of its
    players: the board is not redrawn as a panel, no action is played."""
    from bot.text import Texts
    from bot.ui.table import tmsg

    w = await World(driver).build()
    v = (await driver.record(w.a1)).version
    board = await driver.board(w.a1)
    not_yours = Texts(None, [], "en")(tmsg("not_your_panel"))
    for user in (w.alice, w.bob):
        for cid in (f"n:{w.a1}:{v}:0:", f"a:{w.a1}:{v}:0"):
            forged = copy.deepcopy(board)  # (what a modified client could send: the id on the board)
            forged["components"] = [*forged["components"], {"type": 1, "components": [
                {"type": 2, "style": 2, "label": "x", "custom_id": cid}]}]
            await w.refused(user, not_yours, partial(w.fake.click, user, forged, cid, forge=True))
