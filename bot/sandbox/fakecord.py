"""FakeDiscord: an offline Discord (REST API and gateway websocket on 127.0.0.1) for end-to-end tests.

The bot under test runs unmodified (``bot.start(token)``): discord.py speaks real HTTP, multipart and a real
websocket to this server because :class:`FakeDiscord` points ``discord.http.Route.BASE`` and
``DiscordWebSocket.DEFAULT_GATEWAY`` at it while it is open. Tests inject gateway events (slash commands,
button clicks, select menus, autocomplete, modals, chat messages) and inspect every REST call the bot made.

Discord's limits from ``docs/DISCORD.md`` are enforced: a payload Discord would refuse is answered with
Discord's own status and error shape (``{"code": 50035, "message": "Invalid Form Body", "errors": {...}}``)
and recorded in :attr:`FakeDiscord.violations`, so a test can assert that the bot never broke a rule.
Refusals caused by the environment rather than by the bot (closed DMs, threads not allowed, an edit cap,
rate limits) are recorded in :attr:`FakeDiscord.refusals` instead.

The gateway is sharded as Discord's is: ``GET /gateway/bot`` recommends
:attr:`FakeDiscord.shard_count` shards; a connection that IDENTIFYs with ``shard: [id, count]`` gets
READY and GUILD_CREATE for the servers on its shard (``(guild_id >> 22) % count``) and only the events of
those servers (events without a server, DMs, go to shard 0); one without ``shard`` gets everything.

Time is the fake's own: its clock (:meth:`FakeDiscord.now`) stands still unless a test moves it with
:meth:`FakeDiscord.advance`, which ages interactions (3 s to answer, 15 min for the token), messages (the
one-hour edit cap), nonces and the snowflakes of new objects. A slow machine therefore never makes the bot
late: an interaction expires only when a test advances the clock past its deadline. ``real_time=True``
lets the clock run with the wall clock as well (the playground and the benchmarks, which measure latency).
Rate-limit windows run on the wall clock plus every advance, since discord.py waits ``retry_after`` in
real seconds. The waits of a test (:meth:`FakeDiscord.wait_for`, :meth:`FakeDiscord.response`,
:meth:`FakeDiscord.idle`) wait for events, never for a time: :meth:`FakeDiscord.caught_up` knows when a
connected bot has read every gateway event sent to it (its answer to a heartbeat request), and only a
hang guard of ``HANG_GUARD`` seconds, which no working test comes near, ends a wait that cannot end.

Adapted from the offline-Discord prototype the project started from.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import copy
import datetime as dt
import json
import logging
import re
import secrets
import time
import zlib
from collections.abc import Callable, Coroutine, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import discord
import discord.gateway
import discord.http
import discord.utils
import yarl
from aiohttp import BodyPartReader, WSMsgType, web

from bot import logsafe

__all__ = [
    "ALL_PERMS",
    "BOT_TOKEN",
    "DEFAULT_PERMS",
    "EPHEMERAL",
    "HANDLER_TASKS",
    "HANG_GUARD",
    "LOADING",
    "REQUEST_CHECKS",
    "CommandNotPermitted",
    "ErrorCollector",
    "FakeDiscord",
    "FakeGuild",
    "JSONDict",
    "Perm",
    "Req",
    "iter_components",
]

API = "/api/v10"
ALL_PERMS = (1 << 51) - 1
EPHEMERAL = 1 << 6
LOADING = 1 << 7
IS_COMPONENTS_V2 = 1 << 15
SELECT_TYPES = frozenset({3, 5, 6, 7, 8})
TOKEN_LIFETIME = 15 * 60.0
ACK_DEADLINE = 3.0
CLOCK_TICK = 1e-6
"""Seconds each reading of the fake's clock moves it on (:meth:`FakeDiscord.now`): a million readings
make one second, far from any deadline a test meets without :meth:`FakeDiscord.advance`."""
HANG_GUARD = 600.0
"""Wall seconds after which a wait of the fake gives up (TimeoutError): not a deadline for the bot, which is
held only to the fake's clock, but the end of a test that waits for what will never come (a hang)."""
RETRY_TOLERANCE = 0.01
"""Seconds a request may come before a 429's ``retry_after`` has passed (the rounding of timers)."""
NONCE_LIFETIME = 300.0
"""Seconds (of the fake's clock) a message nonce is remembered per author for ``enforce_nonce``:
Discord keeps one for a few minutes."""
DEFAULT_UPLOAD_LIMIT = 10 * 1024 * 1024
REQUEST_CHECKS: list[Callable[[Req], Iterable[str]]] = []
"""Checks every REST request goes through, each answering what it finds wrong with the request (the e2e
suite adds one that validates requests against Discord's OpenAPI description). What they find is recorded
in :attr:`FakeDiscord.spec_violations` of the fake that got the request; the answer is not changed."""
#: The token every bot started by :meth:`FakeDiscord.start_bot` logs in with (shaped like a real one).
BOT_TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4OQ.GfAkEt.ZmFrZS1ib3QtdG9rZW4tZm9yLW9mZmxpbmUtdGVzdHM"
#: Names of the tasks discord.py 2.7 runs handlers in (see :meth:`FakeDiscord.idle`).
HANDLER_TASKS = ("CommandTree-invoker", "discord-ui-view-dispatch", "discord-ui-dynamic-item",
                 "discord-ui-modal-dispatch", "discord.py: on_interaction", "discord.py: on_message")


class Perm:
    """Permission bits used by the fake (a subset of Discord's)."""

    ADD_REACTIONS = 1 << 6
    ADMINISTRATOR = 1 << 3
    MANAGE_CHANNELS = 1 << 4
    MANAGE_GUILD = 1 << 5
    VIEW_CHANNEL = 1 << 10
    SEND_MESSAGES = 1 << 11
    MANAGE_MESSAGES = 1 << 13
    EMBED_LINKS = 1 << 14
    ATTACH_FILES = 1 << 15
    READ_MESSAGE_HISTORY = 1 << 16
    USE_APPLICATION_COMMANDS = 1 << 31
    MANAGE_THREADS = 1 << 34
    CREATE_PUBLIC_THREADS = 1 << 35
    CREATE_PRIVATE_THREADS = 1 << 36
    SEND_MESSAGES_IN_THREADS = 1 << 38
    THREADS = MANAGE_THREADS | CREATE_PUBLIC_THREADS | CREATE_PRIVATE_THREADS | SEND_MESSAGES_IN_THREADS


#: What an ordinary member may do (the @everyone role): read, write, react, use commands, use threads.
DEFAULT_PERMS = (
    Perm.ADD_REACTIONS
    | Perm.VIEW_CHANNEL
    | Perm.SEND_MESSAGES
    | Perm.EMBED_LINKS
    | Perm.ATTACH_FILES
    | Perm.READ_MESSAGE_HISTORY
    | Perm.USE_APPLICATION_COMMANDS
    | Perm.CREATE_PUBLIC_THREADS
    | Perm.SEND_MESSAGES_IN_THREADS
)

JSONDict = dict[str, Any]
Result = tuple[int, Any]


class CommandNotPermitted(Exception):
    """Raised by :meth:`FakeDiscord.slash` when Discord itself would not let the member run the command.

    A command synced with ``default_member_permissions`` is hidden from members lacking those permissions;
    the Discord client never sends it. Set ``fake.enforce_command_permissions = False`` to skip the check.
    """


@dataclass
class Req:
    """One REST request the bot made: method, API path (``/channels/1/messages``), JSON body, files, query,
    ``at``: when the fake had read it whole (:meth:`FakeDiscord.now`, epoch seconds), and ``arrived``: when
    it arrived on the clock of the rate-limit windows (seconds, ``FakeRateLimits._window_now``)."""

    method: str
    path: str
    json: Any = None
    files: list[tuple[str, str | None, bytes]] = field(default_factory=list)
    query: dict[str, str] = field(default_factory=dict)
    at: float = 0.0
    arrived: float = 0.0


@dataclass
class _MsgMeta:
    """What the fake knows about a message beyond its payload."""

    created: float
    edit_refused: bool = False
    edits: int = 0
    late_edits: int = 0
    owner_id: str | None = None  # the only user who sees an ephemeral message


class _Guard:
    """The end of a wait that cannot end: ``timeout`` wall seconds when given, else ``HANG_GUARD``."""

    def __init__(self, timeout: float | None, what: str) -> None:
        self.until = time.monotonic() + (HANG_GUARD if timeout is None else timeout)
        self.what = what

    def check(self) -> None:
        if time.monotonic() > self.until:
            raise TimeoutError(self.what)


class ErrorCollector(logging.Handler):
    """Collects ERROR log records: discord.py swallows exceptions in commands and views and only logs them."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        """Keep the record."""
        self.records.append(record)


class _Invalid:
    """Accumulates Discord's nested ``errors`` object of a 50035 "Invalid Form Body" answer."""

    def __init__(self) -> None:
        self.errors: JSONDict = {}
        self.lines: list[str] = []

    def add(self, path: Iterable[str | int], code: str, message: str) -> None:
        node = self.errors
        keys = [str(p) for p in path]
        for key in keys:
            node = node.setdefault(key, {})
        node.setdefault("_errors", []).append({"code": code, "message": message})
        self.lines.append(f"{'.'.join(keys)}: {message}")

    def max_len(self, path: Iterable[str | int], value: Any, limit: int) -> None:
        if value is not None and len(value) > limit:
            self.add(path, "BASE_TYPE_MAX_LENGTH", f"Must be {limit} or fewer in length.")

    def min_len(self, path: Iterable[str | int], value: Any, limit: int = 1) -> None:
        if value is None or len(value) < limit:
            self.add(path, "BASE_TYPE_MIN_LENGTH", f"Must be {limit} or more in length.")

    def __bool__(self) -> bool:
        return bool(self.lines)


def _error(code: int, message: str, errors: JSONDict | None = None) -> JSONDict:
    body: JSONDict = {"code": code, "message": message}
    if errors is not None:
        body["errors"] = errors
    return body


def iter_components(components: Iterable[JSONDict]) -> Iterable[JSONDict]:
    """Every component in a message's component tree (rows, their children, v2 containers), depth first."""
    for comp in components or []:
        yield comp
        yield from iter_components(comp.get("components") or [])
        if isinstance(comp.get("accessory"), dict):
            yield comp["accessory"]
        if isinstance(comp.get("component"), dict):
            yield from iter_components([comp["component"]])


class FakeGuild:
    """One server of the offline Discord: its members, roles and permissions, text channels and
    threads, preferred locale and upload limit. Made by :meth:`FakeDiscord.add_guild` (the first one,
    "Test Guild", by the constructor: :attr:`FakeDiscord.default_guild`).

    Attributes:
        fake: the :class:`FakeDiscord` it belongs to.
        id / name / owner: the guild's snowflake, its name, and the owner's user payload (all permissions).
        members: member user payloads (the bot and the owner first).
        channel: its first text channel, ``#games``.
        bot_role_id: the bot's managed role in this guild.
        upload_limit: bytes an attachment of a message in this guild may have (10 MiB by default).
        locale: the guild's preferred locale (``guild_locale`` of its interactions).
    """

    def __init__(self, fake: FakeGateway, name: str, owner: JSONDict, *, locale: str = "en-US",
                 upload_limit: int = DEFAULT_UPLOAD_LIMIT) -> None:
        self.fake = fake
        self.id = fake.snowflake()
        self.name = name
        self.owner = owner
        self.locale = locale
        self.upload_limit = upload_limit
        self.bot_role_id = str(fake.snowflake())
        self.members: list[JSONDict] = [fake.bot_user, owner]
        self._custom_perms: dict[str, int] = {}
        self._role_ids: dict[str, str] = {}
        self._threads_allowed = True
        fake.guilds[self.id] = self
        self.channel = self._text_channel("games")

    # ------------------------------------------------------------------ a world that outlives a run
    WORLD: ClassVar[dict[str, tuple[str, Callable[[Any], Any]]]] = {
        "id": ("id", int), "name": ("name", str), "locale": ("locale", str), "upload_limit": ("upload_limit", int),
        "bot_role_id": ("bot_role_id", str), "perms": ("_custom_perms", dict), "role_ids": ("_role_ids", dict),
        "threads_allowed": ("_threads_allowed", bool)}
    """The attributes a saved world keeps as they are: its JSON key → (attribute, type). The owner,
    members and ``#games`` channel are kept by id (:meth:`to_world`)."""

    def to_world(self) -> JSONDict:
        """This guild in a saved world (:meth:`FakeDiscord.save_world`): ``WORLD`` and ids."""
        return {key: getattr(self, attr) for key, (attr, _) in self.WORLD.items()} | {
            "owner": self.owner["id"], "members": [u["id"] for u in self.members], "channel": self.channel["id"]}

    @classmethod
    def from_world(cls, fake: FakeGateway, saved: JSONDict) -> FakeGuild:
        """The guild :meth:`to_world` wrote, in ``fake`` (whose users and channels are loaded).

        Raises ``KeyError`` / ``TypeError`` / ``ValueError`` for a damaged entry."""
        guild = cls.__new__(cls)
        guild.fake = fake
        for key, (attr, kind) in cls.WORLD.items():
            setattr(guild, attr, kind(saved[key]))
        guild.owner = fake.users[saved["owner"]]
        guild.members = [fake.users[uid] for uid in saved["members"]]
        guild.channel = fake.channels[saved["channel"]]
        fake.guilds[guild.id] = guild
        return guild

    # ------------------------------------------------------------------ members and permissions
    def is_member(self, user: JSONDict | str | int) -> bool:
        """Whether ``user`` (a payload or an id) is a member of this guild now."""
        uid = str(user["id"] if isinstance(user, dict) else user)
        return any(u["id"] == uid for u in self.members)

    async def add_member(self, user: str | JSONDict, *, bot: bool = False) -> JSONDict:
        """Make ``user`` a member (a name creates a new user; a user payload of another guild's member
        joins this one too) and announce it (GUILD_MEMBER_ADD). Returns the user."""
        u = self.fake.user(user, bot=bot) if isinstance(user, str) else user
        if not self.is_member(u):
            self.members.append(u)
        await self.fake.dispatch("GUILD_MEMBER_ADD", dict(self.member(u), guild_id=str(self.id)))
        return u

    def permissions_of(self, user: JSONDict) -> int:
        """The member's permissions here: all for the owner, those set by :meth:`member_permissions`,
        else the defaults of ordinary members (:data:`DEFAULT_PERMS`)."""
        if user["id"] == self.owner["id"]:
            return ALL_PERMS
        if user["id"] == self.fake.bot_user["id"]:
            return self._bot_perms()
        return self._custom_perms.get(user["id"], self._everyone_perms())

    def member_permissions(self, user: JSONDict, perms: int) -> None:
        """Give ``user`` exactly the permissions ``perms`` in this guild (e.g. ``Perm.MANAGE_GUILD``, or
        0 for none); other guilds are not affected.

        Interactions by this member here carry ``member.permissions == perms``; the member also gets a
        role with these permissions so ``member.guild_permissions`` agrees. Announced to a connected bot
        before the next injected event.
        """
        known = user["id"] in self._role_ids
        self._custom_perms[user["id"]] = perms
        gid = str(self.id)
        role = self._member_role(user)
        self.fake._later(self.fake.dispatch("GUILD_ROLE_UPDATE" if known else "GUILD_ROLE_CREATE",
                                            {"guild_id": gid, "role": role}))
        self.fake._later(self.fake.dispatch("GUILD_MEMBER_UPDATE", dict(self.member(user), guild_id=gid)))

    @property
    def threads_allowed(self) -> bool:
        """Whether the bot may create threads here (default True). When False, thread creation answers
        403 ``{"code": 50013, "message": "Missing Permissions"}`` and the bot's role lacks the thread
        permissions."""
        return self._threads_allowed

    @threads_allowed.setter
    def threads_allowed(self, value: bool) -> None:
        self._threads_allowed = value
        for role in self._base_roles():
            self.fake._later(self.fake.dispatch("GUILD_ROLE_UPDATE", {"guild_id": str(self.id), "role": role}))

    def _everyone_perms(self) -> int:
        return DEFAULT_PERMS if self._threads_allowed else DEFAULT_PERMS & ~Perm.THREADS

    def _bot_perms(self) -> int:
        perms = ALL_PERMS & ~Perm.ADMINISTRATOR
        return perms if self._threads_allowed else perms & ~Perm.THREADS

    @staticmethod
    def _role(rid: str, name: str, perms: int, position: int, managed: bool = False) -> JSONDict:
        return {"id": rid, "name": name, "permissions": str(perms), "position": position, "color": 0,
                "hoist": False, "managed": managed, "mentionable": False, "flags": 0}

    def _base_roles(self) -> list[JSONDict]:
        return [self._role(str(self.id), "@everyone", self._everyone_perms(), 0),
                self._role(self.bot_role_id, "testbot", self._bot_perms(), 1, managed=True)]

    def _member_role(self, user: JSONDict) -> JSONDict:
        rid = self._role_ids.setdefault(user["id"], str(self.fake.snowflake()))
        return self._role(rid, f"perms-{user['username']}", self._custom_perms[user["id"]], 2)

    @property
    def roles(self) -> list[JSONDict]:
        """The role payloads: @everyone, the bot's, one per member given :meth:`member_permissions`."""
        return self._base_roles() + [self._member_role(u) for u in self.members if u["id"] in self._custom_perms]

    def member(self, user: JSONDict) -> JSONDict:
        """The member payload of ``user`` here (with its computed ``permissions``)."""
        roles = []
        if user["id"] == self.fake.bot_user["id"]:
            roles = [self.bot_role_id]
        elif user["id"] in self._custom_perms:
            roles = [self._member_role(user)["id"]]
        return {"user": user, "roles": roles, "joined_at": "2024-01-01T00:00:00+00:00", "deaf": False,
                "mute": False, "flags": 0, "nick": None, "avatar": None, "pending": False,
                "permissions": str(self.permissions_of(user))}

    # ------------------------------------------------------------------ channels
    def _text_channel(self, name: str) -> JSONDict:
        ch: JSONDict = {"id": str(self.fake.snowflake()), "type": 0, "guild_id": str(self.id), "name": name,
                        "position": len(self.text_channels()), "permission_overwrites": [], "nsfw": False,
                        "parent_id": None, "topic": None, "last_message_id": None, "rate_limit_per_user": 0}
        self.fake.channels[ch["id"]] = ch
        return ch

    async def add_channel(self, name: str) -> JSONDict:
        """Another text channel in this guild, announced with CHANNEL_CREATE. Returns its payload."""
        ch = self._text_channel(name)
        await self.fake.dispatch("CHANNEL_CREATE", ch)
        return ch

    def text_channels(self) -> list[JSONDict]:
        """This guild's text channels."""
        return [c for c in self.fake.channels.values() if c["type"] == 0 and c["guild_id"] == str(self.id)]

    def threads(self) -> list[JSONDict]:
        """This guild's threads."""
        return [c for c in self.fake.channels.values() if c["type"] in (11, 12) and c["guild_id"] == str(self.id)]

    def payload(self) -> JSONDict:
        """The GUILD_CREATE payload: members, roles, text channels and active threads."""
        tier = 3 if self.upload_limit >= 100 << 20 else 2 if self.upload_limit >= 50 << 20 else 0
        return {"id": str(self.id), "name": self.name, "icon": None, "owner_id": self.owner["id"],
                "roles": self.roles, "emojis": [], "stickers": [], "features": [],
                "member_count": len(self.members), "members": [self.member(u) for u in self.members],
                "channels": self.text_channels(), "threads": self.threads(),
                "presences": [], "voice_states": [], "stage_instances": [], "guild_scheduled_events": [],
                "soundboard_sounds": [], "large": False, "unavailable": False, "premium_tier": tier,
                "preferred_locale": self.locale, "joined_at": "2024-01-01T00:00:00+00:00", "mfa_level": 0,
                "verification_level": 0, "explicit_content_filter": 0, "default_message_notifications": 0,
                "nsfw_level": 0, "system_channel_flags": 0}

def _gateway_connections(bot: discord.Client) -> list[discord.gateway.DiscordWebSocket]:
    """The gateway connections of a bot of this process: one, or one per shard it runs."""
    shards = getattr(bot, "_AutoShardedClient__shards", None)
    conns = [s.ws for s in shards.values()] if shards else [getattr(bot, "ws", None)]
    return [c for c in conns if c is not None]


class FakeGateway:
    """The fake's state, clock and ids, its gateway websocket (events go to the shard of
    their server) and the waits and inspections of a test: what every Discord resource below
    builds on."""

    def __init__(self, *, owner_name: str = "owner", log_names: Iterable[str] = ("discord", "bot", "cogs"),
                 real_time: bool = False) -> None:
        """``owner_name``: username of the guild owner; ``log_names``: loggers whose ERROR records are
        collected in :attr:`errors`; ``real_time``: the clock runs with the wall clock too (default: it
        moves only by :meth:`advance`)."""
        self.real_time = real_time
        self._epoch = time.time()
        self._offset = 0.0
        #: REST requests read and not yet answered (``held`` of them wait at a gate).
        self.in_flight = 0
        self._sent_seq: dict[web.WebSocketResponse, int] = {}
        self._echoed: dict[web.WebSocketResponse, int] = {}
        #: the session id each gateway connection was given in its READY
        self._sessions: dict[web.WebSocketResponse, str] = {}
        #: the bots started in this process (:meth:`start_bot`), whose last read sequence is read directly
        self._local_bots: list[discord.Client] = []
        #: heartbeats asked of bots (op 1), each answered by a gateway send of the bot's
        self.heartbeats_asked = 0
        self._last_id = 0
        self.requests: list[Req] = []
        self.messages: dict[int, JSONDict] = {}
        self._meta: dict[int, _MsgMeta] = {}
        self.message_log: list[tuple[str, JSONDict]] = []
        self.blobs: dict[str, bytes] = {}
        self.interactions: dict[str, JSONDict] = {}
        self.user_locales: dict[str, str] = {}
        """The Discord client language of a user by id (the ``locale`` of their interactions;
        default ``en-US``)."""
        self.global_commands: list[JSONDict] = []
        self.guild_commands: list[JSONDict] = []
        self.identifies: list[JSONDict] = []
        self.violations: list[str] = []
        self.spec_violations: list[str] = []
        self.refusals: list[str] = []
        self.old_message_edit_cap: int | None = None
        self.enforce_command_permissions = True
        self._rate_limits: list[tuple[re.Pattern[str], str | None, float]] = []
        self._holds: list[tuple[re.Pattern[str], str | None, asyncio.Event]] = []
        #: Requests waiting at a ``hold`` gate now.
        self.held = 0
        self._nonces: dict[tuple[str, str], tuple[int, float]] = {}
        #: How long a nonce drops a repeat (``NONCE_LIFETIME``; per author, the fake's clock).
        self.nonce_lifetime = NONCE_LIFETIME
        self._bucket_rules: tuple[tuple[int, float] | None, ...] = (None, None, None)
        self._buckets: dict[str, tuple[float, int]] = {}
        #: The window-clock time until which a bucket that answered 429 stays closed (``retry_after``).
        self._closed_until: dict[str, float] = {}
        #: Message creates answered with an earlier message of the same nonce (``enforce_nonce``).
        self.nonce_hits = 0
        self._closed_dms: set[str] = set()
        self._sockets: list[web.WebSocketResponse] = []
        #: The shard ``(id, count)`` each connection IDENTIFYed with (None: unsharded, gets every event).
        self._socket_shards: dict[web.WebSocketResponse, tuple[int, int] | None] = {}
        #: The shard count ``GET /gateway/bot`` recommends.
        self.shard_count = 1
        self._pending: set[asyncio.Task[None]] = set()
        self._seq = 0
        self._log_names = tuple(log_names)
        self.errors = ErrorCollector()
        self.users: dict[str, JSONDict] = {}
        self.channels: dict[str, JSONDict] = {}
        self.dm_channels: dict[str, JSONDict] = {}
        self.guilds: dict[int, FakeGuild] = {}
        self.app_id = self.snowflake()
        self.bot_user = self.user("testbot", bot=True, id=self.app_id)
        self.default_guild = FakeGuild(self, "Test Guild", self.user(owner_name))

    # ------------------------------------------------------------------ clock and ids
    def now(self) -> float:
        """The fake's clock in epoch seconds: the time the fake opened plus every :meth:`advance` (with
        ``real_time``, the wall clock plus every advance). Each reading moves it on by ``CLOCK_TICK``, so
        that, as on a real clock, what happens later is never stamped at the same time (a bot's rows
        written before it restarted are older than its start), whatever the machine's speed."""
        if self.real_time:
            return time.time() + self._offset
        self._offset += CLOCK_TICK
        return self._epoch + self._offset

    def _window_now(self) -> float:
        """The clock of the rate-limit windows: the wall clock plus every :meth:`advance` (discord.py
        sleeps ``retry_after`` in real seconds, so a window must pass in them)."""
        return time.monotonic() + self._offset

    def now_dt(self) -> dt.datetime:
        """:meth:`now` as an aware UTC datetime."""
        return dt.datetime.fromtimestamp(self.now(), dt.UTC)

    def advance(self, seconds: float) -> None:
        """Move the fake's clock forward by ``seconds``: interactions, tokens and messages age at once."""
        self._offset += seconds

    def snowflake(self) -> int:
        """A fresh, increasing snowflake whose timestamp is the fake's :meth:`now`."""
        self._last_id = max(self._last_id + 1, discord.utils.time_snowflake(self.now_dt()))
        return self._last_id

    def user(self, name: str, *, bot: bool = False, id: int | None = None) -> JSONDict:
        """A user payload (not yet a member; see :meth:`add_member`)."""
        u: JSONDict = {"id": str(id or self.snowflake()), "username": name, "global_name": name, "discriminator": "0",
             "avatar": None, "bot": bot, "public_flags": 0}
        self.users[u["id"]] = u
        return u

    # ------------------------------------------------------------------ gateway
    async def _gateway(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        await ws.send_json({"op": 10, "d": {"heartbeat_interval": 45000}, "s": None, "t": None})
        async for frame in ws:
            if frame.type != WSMsgType.TEXT:
                continue
            msg = json.loads(frame.data)
            if msg["op"] == 1:  # heartbeat: ``d`` is the last sequence the bot has read (see caught_up)
                self._echoed[ws] = max(self._echoed.get(ws, 0), int(msg.get("d") or 0))
                await ws.send_json({"op": 11, "d": None, "s": None, "t": None})
            elif msg["op"] == 2:  # identify
                self.identifies.append(msg["d"])
                shard = msg["d"].get("shard")
                self._socket_shards[ws] = (int(shard[0]), int(shard[1])) if shard else None
                self._sockets.append(ws)
                mine = [g for g in self.guilds.values() if self._on_shard(ws, g.id)]
                ready: JSONDict = {
                    "v": 10, "user": self.bot_user,
                    "guilds": [{"id": str(g.id), "unavailable": True} for g in mine],
                    "session_id": self._sessions.setdefault(ws, f"fake-session-{len(self.identifies)}"),
                    "resume_gateway_url": str(discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY),
                    "application": {"id": str(self.app_id), "flags": 0}, "private_channels": [],
                    "relationships": []}
                if shard:
                    ready["shard"] = [int(shard[0]), int(shard[1])]
                await self._send(ws, "READY", ready)
                for guild in mine:
                    await self._send(ws, "GUILD_CREATE", guild.payload())
            elif msg["op"] == 8:  # request guild members: everybody in one chunk
                asked = self.guilds.get(int(msg["d"].get("guild_id") or self.default_guild.id), self.default_guild)
                await self.dispatch("GUILD_MEMBERS_CHUNK", {
                    "guild_id": str(asked.id), "chunk_index": 0, "chunk_count": 1,
                    "members": [asked.member(u) for u in asked.members], "nonce": msg["d"].get("nonce")})
        if ws in self._sockets:
            self._sockets.remove(ws)
        self._socket_shards.pop(ws, None)
        self._sent_seq.pop(ws, None)
        self._echoed.pop(ws, None)
        self._sessions.pop(ws, None)
        return ws

    def _on_shard(self, ws: web.WebSocketResponse, guild_id: int | None) -> bool:
        """True when the events of server ``guild_id`` (None: no server, a DM) go to ``ws``."""
        shard = self._socket_shards.get(ws)
        if shard is None:
            return True
        return ((guild_id or 0) >> 22) % shard[1] == shard[0]

    @property
    def shards_connected(self) -> list[tuple[int, int] | None]:
        """The shard ``(id, count)`` of each open gateway connection (None: unsharded)."""
        return [self._socket_shards.get(ws) for ws in self._sockets]

    async def _send(self, ws: web.WebSocketResponse, event: str, data: JSONDict) -> None:
        self._seq += 1
        self._sent_seq[ws] = self._seq
        await ws.send_json({"op": 0, "t": event, "s": self._seq, "d": data})

    async def dispatch(self, event: str, data: JSONDict) -> None:
        """Send a gateway event to every connected bot whose shard holds the event's server
        (``guild_id``, or ``id`` for the GUILD_* events; none: shard 0). An interaction remembers the
        connections it went to (``sockets``): one whose connections are all gone can no longer be answered."""
        raw = data.get("id") if event.startswith("GUILD_") and "guild_id" not in data else data.get("guild_id")
        guild_id = int(raw) if raw else None
        it = self.interactions.get(str(data.get("token"))) if event == "INTERACTION_CREATE" else None
        for ws in list(self._sockets):
            if self._on_shard(ws, guild_id):
                if it is not None:
                    it.setdefault("sockets", []).append(ws)
                await self._send(ws, event, data)

    async def caught_up(self) -> None:
        """Wait until every connected bot has read every gateway event sent to it; events are read in
        order and an interaction's handler task is created while it is read. A bot started in this
        process (:meth:`start_bot`) is read directly: discord.py sets its connection's ``sequence`` as
        it reads an event and parses the event before it awaits anything. A bot in another process is
        asked for a heartbeat (op 1), which discord.py answers with the last sequence it has read; each
        answer is a gateway send, and discord.py allows 110 of them a minute before it stops reading
        for the rest of the minute, so the local reading is what keeps a long game's waits short.
        An event, not a time: a slow machine only makes the answer later."""
        await self._flush()
        behind = [ws for ws in list(self._sockets) if self._echoed.get(ws, 0) < self._sent_seq.get(ws, 0)]
        for ws in behind:
            if self._read_locally(ws) is None:
                self.heartbeats_asked += 1
                with contextlib.suppress(ConnectionError, RuntimeError):
                    await ws.send_json({"op": 1, "d": None, "s": None, "t": None})
        guard = _Guard(None, "a bot never read the events sent to it")
        while any(ws in self._sockets and not ws.closed and self._echoed.get(ws, 0) < self._sent_seq.get(ws, 0)
                  for ws in behind):
            guard.check()
            await asyncio.sleep(0.002)
            for ws in behind:
                self._read_locally(ws)

    def _read_locally(self, ws: web.WebSocketResponse) -> int | None:
        """The last sequence a bot of this process has read on ``ws`` (recorded as echoed), or None
        when no bot of this process holds that connection."""
        session = self._sessions.get(ws)
        for bot in self._local_bots:
            for conn in _gateway_connections(bot):
                if session is not None and conn.session_id == session and conn.sequence is not None:
                    self._echoed[ws] = max(self._echoed.get(ws, 0), conn.sequence)
                    return conn.sequence
        return None

    def _later(self, coro: Coroutine[Any, Any, None]) -> None:
        """Run a dispatch soon (from sync code); injected events wait for it first, so order is kept."""
        try:
            task = asyncio.get_running_loop().create_task(coro)
        except RuntimeError:  # no loop: nobody is connected, GUILD_CREATE will carry the state
            coro.close()
            return
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def _flush(self) -> None:
        if self._pending:
            await asyncio.gather(*list(self._pending))

    # ------------------------------------------------------------------ waiting and inspection
    async def wait_for(self, pred: Callable[[], Any], timeout: float | None = None) -> Any:
        """Poll ``pred`` (cheap, every 5 ms) until it is truthy and return its value: an event, not a time
        (REST calls, logged errors, database state...). TimeoutError after ``timeout`` wall seconds when
        given (the playground, which talks to a person), else only after ``HANG_GUARD``."""
        guard = _Guard(timeout, "condition not met")
        while not (res := pred()):
            guard.check()
            await asyncio.sleep(0.005)
        return res

    async def response(self, token: str, timeout: float | None = None) -> JSONDict:
        """Wait for the bot's first response (callback body) to an interaction (``timeout``: as
        :meth:`wait_for`)."""
        it = self.interactions[token]
        await self.wait_for(lambda: it["acked_at"] is not None, timeout)
        return dict(it["callback"])

    async def answer(self, token: str, timeout: float | None = None) -> JSONDict | None:
        """The bot's first response (callback body) to an interaction, or None once the bot went idle
        (:meth:`idle`: its handlers ran to their end) without answering it (``timeout``: as
        :meth:`wait_for`)."""
        it = self.interactions[token]
        if it["acked_at"] is None:
            await self.idle(0.02, timeout)
        return None if it["acked_at"] is None else dict(it["callback"])

    def unacked(self) -> list[str]:
        """Tokens of interactions the bot never answered in time (users would see "This interaction failed")."""
        return [t for t, it in self.interactions.items() if it["acked_at"] is None]

    def awaiting_ack(self) -> list[str]:
        """Tokens of interactions the bot has not answered yet and may still answer (created less than
        ``ACK_DEADLINE`` seconds ago on this fake's clock, and sent to a connection still open): a test
        that waits for the bot to settle must wait for these too, since a busy bot may not have made a
        request for them yet."""
        now, open_ = self.now(), set(self._sockets)
        return [t for t, it in self.interactions.items()
                if it["acked_at"] is None and now - it["created"] < ACK_DEADLINE
                and not open_.isdisjoint(it.get("sockets", []))]

    async def idle(self, quiet: float = 0.1, timeout: float | None = None) -> None:
        """Wait until every connected bot has read every event sent to it (:meth:`caught_up`), none of
        discord.py's handler tasks (app commands, views, dynamic items, modals) is still running, no REST
        request is being answered, and then no REST call came for ``quiet`` seconds (a wait that can only
        be longer on a slow machine, never end too soon: the events above are what counts).
        ``timeout``: as :meth:`wait_for`."""
        guard = _Guard(timeout, "bot never went idle")
        while True:
            await self.caught_up()
            if not self.handlers_running() and self.in_flight <= self.held:
                n = len(self.requests)
                await asyncio.sleep(quiet)
                if (len(self.requests) == n and not self.handlers_running() and self.in_flight <= self.held
                        and not self._pending and all(self._echoed.get(ws, 0) >= self._sent_seq.get(ws, 0)
                                                      for ws in self._sockets)):
                    return
            else:
                await asyncio.sleep(0.002)
            guard.check()

    @staticmethod
    def handlers_running() -> list[asyncio.Task[Any]]:
        """discord.py's tasks that run the bot's interaction and message handlers, still unfinished."""
        return [t for t in asyncio.all_tasks() if not t.done() and t.get_name().startswith(HANDLER_TASKS)]

    def calls(self, method: str, pattern: str) -> list[Req]:
        """The requests with this method whose path fully matches the regex ``pattern``."""
        return [r for r in self.requests if r.method == method and re.fullmatch(pattern, r.path)]

    def message_for(self, token: str) -> JSONDict | None:
        """The message the bot's response to interaction ``token`` created or updated, if any."""
        mid = self.interactions[token]["response_message_id"]
        return self.messages.get(mid) if mid is not None else None


class FakeGuilds(FakeGateway):
    """Guilds, their members, roles and channels, DM channels, and a world that outlives a run."""

    # ------------------------------------------------------------------ a world that outlives a run
    def save_world(self, path: Path) -> None:
        """Write the servers, users, channels, threads and (non-ephemeral) messages to ``path``
        (JSON), so a later run of the playground finds its games where it left them
        (:meth:`load_world`). Uploaded image bytes are not kept (the playground saves them as files)."""
        messages = {str(mid): m for mid, m in self.messages.items() if self._meta[mid].owner_id is None}
        world: JSONDict = {
            "last_id": self._last_id, "offset": self._offset, "app_id": self.app_id,
            "users": self.users, "channels": self.channels, "dm_channels": self.dm_channels,
            "messages": messages,
            "created": {mid: self._meta[int(mid)].created for mid in messages},
            "user_locales": self.user_locales,
            "guilds": [g.to_world() for g in self.guilds.values()],
            "default_guild": self.default_guild.id,
        }
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(world), encoding="utf-8")
        tmp.replace(path)

    def load_world(self, path: Path) -> None:
        """Replace this (not yet started) fake's world by the one :meth:`save_world` wrote.

        Raises ``ValueError`` when the file is not such a world."""
        try:
            world = json.loads(path.read_text(encoding="utf-8"))
            self._last_id = int(world["last_id"])
            self._offset = float(world["offset"])
            self.app_id = int(world["app_id"])
            self.users = dict(world["users"])
            self.channels = dict(world["channels"])
            self.dm_channels = dict(world["dm_channels"])
            self.user_locales = dict(world.get("user_locales", {}))
            self.messages = {int(mid): m for mid, m in world["messages"].items()}
            self._meta = {int(mid): _MsgMeta(created=float(world["created"][mid])) for mid in world["messages"]}
            self.bot_user = self.users[str(self.app_id)]
            self.guilds = {}
            for g in world["guilds"]:
                FakeGuild.from_world(self, g)
            self.default_guild = self.guilds[int(world["default_guild"])]
        except (OSError, KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"{path} is not a saved playground world: {exc}") from exc

    # ------------------------------------------------------------------ guilds, members, channels
    def add_guild(self, name: str, *, owner_name: str | None = None, owner: JSONDict | None = None,
                  locale: str = "en-US", upload_limit: int = DEFAULT_UPLOAD_LIMIT) -> FakeGuild:
        """Another server with its own ``#games`` channel, owned by a new user ``owner_name`` (or by the
        existing user ``owner``). A connected bot is told with GUILD_CREATE before the next injected event;
        a bot connecting later gets it at connect. Returns the guild handle."""
        boss = owner or self.user(owner_name or f"owner{len(self.guilds) + 1}")
        guild = FakeGuild(self, name, boss, locale=locale, upload_limit=upload_limit)
        if self._sockets:
            self._later(self.dispatch("GUILD_CREATE", guild.payload()))
        return guild

    async def remove_bot(self, guild: FakeGuild) -> None:
        """The bot is removed from ``guild`` (kicked, or the server deleted): a connected bot gets
        GUILD_DELETE (discord.py's ``on_guild_remove``). The fake keeps the guild (``add_bot_back``)."""
        await self.dispatch("GUILD_DELETE", {"id": str(guild.id)})

    async def add_bot_back(self, guild: FakeGuild) -> None:
        """The bot is added to ``guild`` again: GUILD_CREATE without ``unavailable``, as Discord sends
        it for a join (discord.py's ``on_guild_join``; ``unavailable: false`` means back from an outage)."""
        payload = guild.payload()
        payload.pop("unavailable", None)
        await self.dispatch("GUILD_CREATE", payload)

    def guild_of(self, channel: JSONDict | str | int | None) -> FakeGuild | None:
        """The guild a channel or thread (payload or id) belongs to; None for a DM or an unknown channel."""
        if channel is None:
            return None
        ch = channel if isinstance(channel, dict) else self.channel_of(channel)
        if ch is None or not ch.get("guild_id"):
            return None
        return self.guilds.get(int(ch["guild_id"]))

    # The single-guild API of the first tests: everything below acts on the default guild.
    @property
    def guild_id(self) -> int:
        """The default guild's id."""
        return self.default_guild.id

    @property
    def owner(self) -> JSONDict:
        """The default guild's owner."""
        return self.default_guild.owner

    @property
    def members(self) -> list[JSONDict]:
        """The default guild's members (the list itself: removing a user makes them leave, silently)."""
        return self.default_guild.members

    @property
    def channel(self) -> JSONDict:
        """The default guild's ``#games``."""
        return self.default_guild.channel

    @property
    def bot_role_id(self) -> str:
        """The bot's role in the default guild."""
        return self.default_guild.bot_role_id

    @property
    def upload_limit(self) -> int:
        """The default guild's upload limit in bytes."""
        return self.default_guild.upload_limit

    @upload_limit.setter
    def upload_limit(self, value: int) -> None:
        self.default_guild.upload_limit = value

    @property
    def threads_allowed(self) -> bool:
        """Whether the bot may create threads in the default guild (:attr:`FakeGuild.threads_allowed`)."""
        return self.default_guild.threads_allowed

    @threads_allowed.setter
    def threads_allowed(self, value: bool) -> None:
        self.default_guild.threads_allowed = value

    async def add_member(self, name: str, *, bot: bool = False) -> JSONDict:
        """Create a user, make them a member of the default guild and announce it (GUILD_MEMBER_ADD)."""
        return await self.default_guild.add_member(name, bot=bot)

    def find_member(self, key: str | int) -> JSONDict | None:
        """The user (of any guild, also one who left) whose id or username is ``key``, or None."""
        return next((u for u in self.users.values() if str(key) in (u["id"], u["username"])), None)

    def permissions_of(self, user: JSONDict, guild: FakeGuild | None = None) -> int:
        """The member's permissions in ``guild`` (default: the default guild)."""
        return (guild or self.default_guild).permissions_of(user)

    def member_permissions(self, user: JSONDict, perms: int) -> None:
        """Give ``user`` exactly ``perms`` in the default guild (:meth:`FakeGuild.member_permissions`)."""
        self.default_guild.member_permissions(user, perms)

    def close_dms(self, user: JSONDict, closed: bool = True) -> None:
        """Make messages to ``user``'s DM channel fail with 403 50007 (DMs closed or bot blocked)."""
        (self._closed_dms.add if closed else self._closed_dms.discard)(user["id"])

    def _bot_perms(self, guild: FakeGuild | None = None) -> int:
        return (guild or self.default_guild)._bot_perms()

    def member(self, user: JSONDict, guild: FakeGuild | None = None) -> JSONDict:
        """The member payload of ``user`` in ``guild`` (default: the default guild)."""
        return (guild or self.default_guild).member(user)

    async def add_channel(self, name: str) -> JSONDict:
        """A second (third...) text channel in the default guild, announced with CHANNEL_CREATE."""
        return await self.default_guild.add_channel(name)

    def threads(self) -> list[JSONDict]:
        """Every thread created so far, in every guild."""
        return [c for c in self.channels.values() if c["type"] in (11, 12)]

    def channel_of(self, channel_id: str | int) -> JSONDict | None:
        """The payload of a guild channel, thread or DM channel by id."""
        cid = str(channel_id)
        return self.channels.get(cid) or next((c for c in self.dm_channels.values() if c["id"] == cid), None)

    def describe_channel(self, channel_id: str | int) -> str:
        """A readable channel name: ``#games``, ``#games › Carnival #3`` for a thread, ``DM to bob``;
        a channel of another guild than the default is prefixed with its guild's name."""
        ch = self.channel_of(channel_id)
        if ch is None:
            return f"<channel {channel_id}>"
        if ch["type"] == 1:
            return f"DM to {ch['recipients'][0]['username']}"
        if ch["type"] in (11, 12):
            return f"{self.describe_channel(ch['parent_id'])} › {ch['name']}"
        guild = self.guild_of(ch)
        prefix = f"{guild.name} " if guild is not None and guild is not self.default_guild else ""
        return f"{prefix}#{ch['name']}"

    def dm_channel(self, user: JSONDict) -> JSONDict:
        """The DM channel between the bot and ``user`` (created on first use)."""
        return self.dm_channels.setdefault(user["id"], {"id": str(self.snowflake()), "type": 1,
                                                        "recipients": [user], "last_message_id": None})

    def upload_limit_of(self, channel_id: str | int | None) -> int:
        """The attachment limit in bytes for a message in that channel: its guild's, or 10 MiB in a DM."""
        guild = self.guild_of(channel_id)
        return guild.upload_limit if guild is not None else DEFAULT_UPLOAD_LIMIT


class FakeMessages(FakeGuilds):
    """Messages (created, edited, deleted; mentions and attachments) and the checks of
    everything the bot sends against Discord's limits (docs/DISCORD.md)."""

    # ------------------------------------------------------------------ messages
    def _mentions(self, msg: JSONDict, allowed: JSONDict | None) -> None:
        """Set ``msg``'s ``mentions``, ``mention_roles`` and ``mention_everyone`` as Discord does: the
        users, roles and @everyone/@here its content mentions, as far as ``allowed_mentions`` lets them
        ping (``parse`` and the ``users`` / ``roles`` lists; without it, all of them)."""
        content = str(msg.get("content") or "")
        users = list(dict.fromkeys(re.findall(r"<@!?(\d+)>", content)))
        roles = list(dict.fromkeys(re.findall(r"<@&(\d+)>", content)))
        everyone = "@everyone" in content or "@here" in content
        if allowed is not None:
            parse = set(allowed.get("parse") or [])
            named_users = {str(u) for u in allowed.get("users") or []}
            named_roles = {str(r) for r in allowed.get("roles") or []}
            users = [u for u in users if "users" in parse or u in named_users]
            roles = [r for r in roles if "roles" in parse or r in named_roles]
            everyone = everyone and "everyone" in parse
        msg["mentions"] = [self.find_member(u) or {"id": u} for u in users]
        msg["mention_roles"] = roles
        msg["mention_everyone"] = everyone

    def pinged(self, msg: JSONDict) -> tuple[set[str], list[str], bool]:
        """Whom ``msg`` notified: ``(user ids, role ids, @everyone/@here)``; an ephemeral message
        notifies nobody."""
        if msg["flags"] & EPHEMERAL:
            return set(), [], False
        return {str(u["id"]) for u in msg.get("mentions") or []}, list(msg.get("mention_roles") or []), \
            bool(msg.get("mention_everyone"))

    def _new_message(self, channel_id: str | int, author: JSONDict, payload: JSONDict,
                     files: list[tuple[str, str | None, bytes]], flags: int = 0,
                     interaction: JSONDict | None = None) -> JSONDict:
        mid = self.snowflake()
        ch = self.channel_of(channel_id)
        msg: JSONDict = {"id": str(mid), "channel_id": str(channel_id), "author": author, "type": 0, "tts": False,
                         "timestamp": self.now_dt().isoformat(), "edited_timestamp": None, "pinned": False,
                         "mention_everyone": False, "mentions": [], "mention_roles": [], "content": "",
                         "embeds": [], "components": [], "attachments": [], "flags": flags}
        if ch is not None and ch["type"] != 1:
            msg["guild_id"] = ch["guild_id"]
        meta = _MsgMeta(created=self.now())
        if interaction is not None:
            msg["interaction_metadata"] = {"id": str(interaction["id"]), "type": interaction["type"],
                                           "user": interaction["user"], "authorizing_integration_owners": {}}
            if flags & EPHEMERAL:
                meta.owner_id = interaction["user_id"]
        self._apply_edit(msg, payload, files)
        self.messages[mid] = msg
        self._meta[mid] = meta
        if ch is not None:
            ch["last_message_id"] = msg["id"]
            if ch["type"] in (11, 12):
                ch["message_count"] += 1
                ch["total_message_sent"] += 1
        self.message_log.append(("create", msg))
        return msg

    def _apply_edit(self, msg: JSONDict, payload: JSONDict, files: list[tuple[str, str | None, bytes]]) -> None:
        for key in ("content", "embeds", "components"):
            if key in payload:
                msg[key] = payload[key] if payload[key] is not None else ([] if key != "content" else "")
        if "content" in payload or "allowed_mentions" in payload:
            self._mentions(msg, payload.get("allowed_mentions"))
        if payload.get("flags") is not None:  # EPHEMERAL and LOADING cannot be changed by an edit
            msg["flags"] = (msg["flags"] & (EPHEMERAL | LOADING)) | (payload["flags"] & ~(EPHEMERAL | LOADING))
        new = []
        for fn, ct, data in files:
            aid = str(self.snowflake())
            self.blobs[aid] = data
            new.append({"id": aid, "filename": fn, "size": len(data), "content_type": ct,
                        "url": f"https://cdn.invalid/{aid}/{fn}", "proxy_url": f"https://cdn.invalid/{aid}/{fn}"})
        if "attachments" in payload:  # keep only the existing attachments the client listed by id
            keep = {str(a["id"]) for a in payload["attachments"] or []}
            msg["attachments"] = [a for a in msg["attachments"] if a["id"] in keep] + new
        else:
            msg["attachments"] = msg["attachments"] + new

    def _edit(self, msg: JSONDict, payload: JSONDict, files: list[tuple[str, str | None, bytes]]) -> None:
        self._apply_edit(msg, payload, files)
        msg["flags"] &= ~LOADING
        msg["edited_timestamp"] = self.now_dt().isoformat()
        meta = self._meta[int(msg["id"])]
        meta.edits += 1
        if self.now() - meta.created > 3600:
            meta.late_edits += 1
        self.message_log.append(("edit", msg))

    def _edit_refused(self, msg: JSONDict) -> bool:
        """Whether Discord refuses an edit of ``msg`` with 30046, whichever way it comes (the bot
        token, or an interaction token's ``@original``): refused on purpose (:meth:`refuse_edits`),
        or older than an hour with :attr:`old_message_edit_cap` late edits made."""
        meta = self._meta[int(msg["id"])]
        capped = (self.old_message_edit_cap is not None and self.now() - meta.created > 3600
                  and meta.late_edits >= self.old_message_edit_cap)
        return meta.edit_refused or bool(msg.get("edit_refused")) or capped

    def _delete(self, mid: int) -> None:
        msg = self.messages.pop(mid)
        self._meta.pop(mid, None)
        self.message_log.append(("delete", msg))

    def delete_channel(self, channel_id: str | int) -> None:
        """Delete a text channel or thread (a moderator's doing) with its messages: every
        request to it or them is answered 404 *Unknown Channel* (10003) from then on."""
        cid = str(channel_id)
        del self.channels[cid]
        for mid in [mid for mid, m in self.messages.items() if m["channel_id"] == cid]:
            self._delete(mid)

    def channel_messages(self, channel_id: str | int, *, ephemeral: bool = True) -> list[JSONDict]:
        """The messages of a channel, thread or DM, oldest first (``ephemeral=False`` leaves those out)."""
        cid = str(channel_id)
        return [m for m in self.messages.values()
                if m["channel_id"] == cid and (ephemeral or not m["flags"] & EPHEMERAL)]

    def ephemeral_owner(self, message: JSONDict) -> str | None:
        """The id of the only user who can see ``message`` if it is ephemeral, else None."""
        meta = self._meta.get(int(message["id"]))
        return meta.owner_id if meta else None

    def refuse_edits(self, message: JSONDict | int | str, refused: bool = True) -> None:
        """Set the message's ``edit_refused`` flag: edits then fail with 30046 (edit cap of old messages).

        Setting ``fake.messages[id]["edit_refused"] = True`` works too (that key is never part of a real
        payload)."""
        mid = int(message["id"] if isinstance(message, dict) else message)
        self._meta[mid].edit_refused = refused

    def revoke_token(self, token: str) -> None:
        """Make Discord refuse the interaction ``token`` from now on, as it does once a token has
        expired or been invalidated: every webhook call with it (follow-ups, ``@original`` edits)
        fails with 401 Invalid Webhook Token (50027), recorded in :attr:`refusals` (not the bot's
        fault: it cannot know)."""
        self.interactions[token]["revoked"] = True

    def image_bytes(self, attachment: JSONDict) -> bytes:
        """The uploaded bytes behind an attachment payload."""
        return self.blobs[attachment["id"]]

    # ------------------------------------------------------------------ validation (DISCORD.md limits)
    def _violation(self, status: int, body: JSONDict, what: str) -> Result:
        self.violations.append(f"{body['code']} {what}: {body['message']}")
        return status, body

    def _refusal(self, status: int, body: JSONDict, what: str) -> Result:
        self.refusals.append(f"{body['code']} {what}: {body['message']}")
        return status, body

    def _check_message(self, b: JSONDict, files: list[tuple[str, str | None, bytes]], what: str, *,
                       create: bool, channel_id: str | int | None, editing: JSONDict | None = None,
                       ) -> Result | None:
        """Validate a message create/edit payload in ``channel_id`` (its guild's upload limit applies;
        ``editing``: the message an edit applies to); None when Discord would accept it."""
        size = sum(len(data) for _, _, data in files)
        limit = self.upload_limit_of(channel_id)
        if size > limit:
            return self._violation(413, _error(40005, "Request entity too large"),
                                   f"{what} ({size} bytes of files > {limit})")
        inv = _Invalid()
        content = b.get("content")
        if content is not None:
            inv.max_len(["content"], str(content), 2000)
        embeds = b.get("embeds") or []
        inv.max_len(["embeds"], embeds, 10)
        total = 0
        for i, e in enumerate(embeds):
            p: list[str | int] = ["embeds", i]
            inv.max_len([*p, "title"], e.get("title"), 256)
            inv.max_len([*p, "description"], e.get("description"), 4096)
            inv.max_len([*p, "fields"], e.get("fields"), 25)
            inv.max_len([*p, "footer", "text"], (e.get("footer") or {}).get("text"), 2048)
            inv.max_len([*p, "author", "name"], (e.get("author") or {}).get("name"), 256)
            total += sum(len(str(x or "")) for x in (e.get("title"), e.get("description"),
                                                     (e.get("footer") or {}).get("text"),
                                                     (e.get("author") or {}).get("name")))
            for j, f in enumerate(e.get("fields") or []):
                fp = [*p, "fields", j]
                inv.min_len([*fp, "name"], f.get("name"))
                inv.max_len([*fp, "name"], f.get("name"), 256)
                inv.min_len([*fp, "value"], f.get("value"))
                inv.max_len([*fp, "value"], f.get("value"), 1024)
                total += len(str(f.get("name") or "")) + len(str(f.get("value") or ""))
        if total > 6000:
            inv.add(["embeds"], "MAX_EMBED_SIZE_EXCEEDED", "Embed size exceeds maximum size of 6000")
        allowed = b.get("allowed_mentions")
        if allowed is not None:
            parse = allowed.get("parse") or []
            for kind in ("users", "roles"):
                if kind in parse and allowed.get(kind):
                    inv.add(["allowed_mentions", kind], "MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE",
                            f"parse:[\"{kind}\"] and {kind}: [ids] are mutually exclusive.")
                inv.max_len(["allowed_mentions", kind], allowed.get(kind), 100)
        if b.get("components") is not None:
            flags = int(b.get("flags") or (editing or {}).get("flags") or 0)
            self._check_components(b["components"], flags, inv)
        inv.max_len(["files"], files, 10)
        if inv:
            return self._violation(400, _error(50035, "Invalid Form Body", inv.errors),
                                   f"{what} ({'; '.join(inv.lines)})")
        if create and not (content or embeds or b.get("components") or files or b.get("attachments")
                           or b.get("sticker_ids") or b.get("poll")):
            return self._violation(400, _error(50006, "Cannot send an empty message"), what)
        return None

    def _check_components(self, rows: list[JSONDict], flags: int, inv: _Invalid) -> None:
        ids: list[str] = []
        if flags & IS_COMPONENTS_V2:  # layout components: only the per-component limits and the total
            everything = list(iter_components(rows))
            if len(everything) > 40:
                inv.add(["components"], "BASE_TYPE_MAX_LENGTH", "Must be 40 or fewer in total.")
            for k, comp in enumerate(everything):
                self._check_component(comp, ["components", k], inv, ids)
        else:
            inv.max_len(["components"], rows, 5)
            for i, row in enumerate(rows):
                path: list[str | int] = ["components", i]
                if row.get("type") != 1:
                    inv.add([*path, "type"], "COMPONENT_TYPE_INVALID", "Top-level components must be action rows.")
                    continue
                items = row.get("components") or []
                inv.min_len([*path, "components"], items)
                if any(c.get("type") in SELECT_TYPES for c in items) and len(items) > 1:
                    inv.add([*path, "components"], "COMPONENT_LAYOUT_WIDTH_EXCEEDED",
                            "The specified component exceeds the maximum width")
                inv.max_len([*path, "components"], items, 5)
                for j, comp in enumerate(items):
                    self._check_component(comp, [*path, "components", j], inv, ids)
        for cid in {c for c in ids if ids.count(c) > 1}:
            inv.add(["components"], "COMPONENT_CUSTOM_ID_DUPLICATED", f"Component custom id cannot be duplicated ({cid})")

    @staticmethod
    def _check_component(c: JSONDict, path: list[str | int], inv: _Invalid, ids: list[str]) -> None:
        t = c.get("type")
        if "custom_id" in c and c["custom_id"] is not None:
            inv.max_len([*path, "custom_id"], c["custom_id"], 100)
            ids.append(c["custom_id"])
        if t == 2:
            inv.max_len([*path, "label"], c.get("label"), 80)
            if c.get("style") == 5:
                if not c.get("url"):
                    inv.add([*path, "url"], "BASE_TYPE_REQUIRED", "This field is required")
            elif c.get("style") != 6 and not c.get("custom_id"):
                inv.add([*path, "custom_id"], "BASE_TYPE_REQUIRED", "This field is required")
        elif t in SELECT_TYPES:
            if not c.get("custom_id"):
                inv.add([*path, "custom_id"], "BASE_TYPE_REQUIRED", "This field is required")
            inv.max_len([*path, "placeholder"], c.get("placeholder"), 150)
            lo, hi = c.get("min_values", 1), c.get("max_values", 1)
            if not 0 <= lo <= 25:
                inv.add([*path, "min_values"], "NUMBER_TYPE_MAX", "int value should be between 0 and 25.")
            if not 1 <= hi <= 25:
                inv.add([*path, "max_values"], "NUMBER_TYPE_MAX", "int value should be between 1 and 25.")
            if t == 3:
                options = c.get("options") or []
                inv.min_len([*path, "options"], options)
                inv.max_len([*path, "options"], options, 25)
                for k, opt in enumerate(options):
                    op: list[str | int] = [*path, "options", k]
                    inv.min_len([*op, "label"], opt.get("label"))
                    inv.max_len([*op, "label"], opt.get("label"), 100)
                    inv.min_len([*op, "value"], opt.get("value"))
                    inv.max_len([*op, "value"], opt.get("value"), 100)
                    inv.max_len([*op, "description"], opt.get("description"), 100)
                if hi > len(options) and options:
                    inv.add([*path, "max_values"], "SELECT_COMPONENT_MAX_VALUES",
                            "max_values must not exceed the number of options")
        elif t == 4:
            inv.max_len([*path, "label"], c.get("label"), 45)
            inv.max_len([*path, "placeholder"], c.get("placeholder"), 100)
            inv.max_len([*path, "value"], c.get("value"), 4000)

    def _check_modal(self, d: JSONDict, what: str) -> Result | None:
        inv = _Invalid()
        inv.min_len(["data", "title"], d.get("title"))
        inv.max_len(["data", "title"], d.get("title"), 45)
        inv.max_len(["data", "custom_id"], d.get("custom_id"), 100)
        inv.min_len(["data", "components"], d.get("components"))
        inv.max_len(["data", "components"], d.get("components"), 5)
        ids: list[str] = []
        for k, comp in enumerate(iter_components(d.get("components") or [])):
            self._check_component(comp, ["data", "components", k], inv, ids)
        if inv:
            return self._violation(400, _error(50035, "Invalid Form Body", inv.errors), f"{what} ({'; '.join(inv.lines)})")
        return None

    def _check_choices(self, d: JSONDict, what: str) -> Result | None:
        inv = _Invalid()
        choices = d.get("choices") or []
        inv.max_len(["data", "choices"], choices, 25)
        for k, ch in enumerate(choices):
            inv.min_len(["data", "choices", k, "name"], ch.get("name"))
            inv.max_len(["data", "choices", k, "name"], ch.get("name"), 100)
            if isinstance(ch.get("value"), str):
                inv.max_len(["data", "choices", k, "value"], ch["value"], 100)
        if inv:
            return self._violation(400, _error(50035, "Invalid Form Body", inv.errors), f"{what} ({'; '.join(inv.lines)})")
        return None

    def _check_commands(self, cmds: list[JSONDict], what: str) -> Result | None:
        inv = _Invalid()

        def walk(opts: list[JSONDict], path: list[str | int]) -> None:
            inv.max_len([*path], opts, 25)
            for k, o in enumerate(opts):
                op = [*path, k]
                if not re.fullmatch(r"[-_\w]{1,32}", o.get("name", "")) or o["name"] != o["name"].lower():
                    inv.add([*op, "name"], "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid")
                inv.min_len([*op, "description"], o.get("description"))
                inv.max_len([*op, "description"], o.get("description"), 100)
                inv.max_len([*op, "choices"], o.get("choices"), 25)
                walk(o.get("options") or [], [*op, "options"])

        for k, c in enumerate(cmds):
            if c.get("type", 1) == 1:
                if not re.fullmatch(r"[-_\w]{1,32}", c.get("name", "")) or c["name"] != c["name"].lower():
                    inv.add([k, "name"], "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid")
                inv.min_len([k, "description"], c.get("description"))
                inv.max_len([k, "description"], c.get("description"), 100)
                walk(c.get("options") or [], [k, "options"])
        inv.max_len([], cmds, 100)
        if inv:
            return self._violation(400, _error(50035, "Invalid Form Body", inv.errors), f"{what} ({'; '.join(inv.lines)})")
        return None


class FakeRateLimits(FakeMessages):
    """Rate limits: the 429s a test asks for, per-channel and global buckets, and gates that
    hold a request."""

    def rate_limit_buckets(self, per_channel: tuple[int, float] | None = (5, 5.0),
                           global_limit: tuple[int, float] | None = (50, 1.0),
                           per_interaction: tuple[int, float] | None = None) -> None:
        """Emulate Discord's rate limits with fixed-window buckets (on the wall clock plus every
        :meth:`advance`, which resets them): ``per_channel`` = (requests, seconds) per route and channel
        (e.g. 5 messages per 5 s in a channel), ``global_limit`` = (requests, seconds) over every bot-token
        channel route, ``per_interaction`` = (requests, seconds) per interaction on each of its two routes:
        its callback (``/interactions/{id}/{token}/callback``) and its webhook (every
        ``/webhooks/{app}/{token}`` route: follow-ups, ``@original`` and follow-up edits). Interaction
        routes are not counted against the global limit, as on Discord, but each has its own bucket. Each
        answer carries the ``X-RateLimit-*`` headers discord.py reads (Limit, Remaining, Reset,
        Reset-After, Bucket); a request over a limit is answered 429 with ``retry_after`` (and ``global``,
        ``X-RateLimit-Scope``, ``Retry-After``) and recorded in :attr:`refusals`; a request to an
        interaction bucket before the ``retry_after`` of its 429 has passed is a violation (the bot did
        not wait as told). ``None`` turns a kind of bucket off (all three: the default)."""
        self._bucket_rules = (per_channel, global_limit, per_interaction)
        self._buckets.clear()
        self._closed_until.clear()

    def _window(self, key: str, limit: tuple[int, float], now: float) -> tuple[int, float]:
        """Count a request in bucket ``key``: (requests left in its window, seconds until it resets)."""
        count, per = limit
        start, used = self._buckets.get(key, (now, 0))
        if now >= start + per:
            start, used = now, 0
        self._buckets[key] = (start, used + 1)
        return count - used - 1, start + per - now

    def _limited(self, key: str, limit: tuple[int, float], name: str, now: float, what: str,
                 headers: dict[str, str]) -> Result | None:
        """Count a request in the route bucket ``key`` (``name``: its ``X-RateLimit-Bucket``); a 429 result
        when it is full, else None (headers filled in)."""
        left, reset_after = self._window(key, limit, now)
        headers.update({"X-RateLimit-Limit": str(limit[0]), "X-RateLimit-Remaining": str(max(0, left)),
                        "X-RateLimit-Reset": f"{self.now() + reset_after:.3f}",
                        "X-RateLimit-Reset-After": f"{reset_after:.3f}", "X-RateLimit-Bucket": name})
        if left < 0:
            self._closed_until[key] = now + reset_after
            headers.update({"X-RateLimit-Scope": "user", "Retry-After": str(max(1, round(reset_after)))})
            return self._refusal(429, {"code": 0, "message": "You are being rate limited.",
                                       "retry_after": round(reset_after, 3), "global": False}, what)
        return None

    def _take_bucket(self, r: Req, headers: dict[str, str]) -> Result | None:
        """Count ``r`` in its buckets; a 429 result when one is full, else None (headers filled in)."""
        per_channel, global_limit, per_interaction = self._bucket_rules
        now, what = self._window_now(), f"{r.method} {r.path}"
        hook = (re.fullmatch(r"/interactions/\d+/([\w.-]+)/callback", r.path)
                or re.fullmatch(r"/webhooks/\d+/([\w.-]+)(?:/.*)?", r.path))
        if hook is not None:
            if per_interaction is None:
                return None
            kind = "callback" if r.path.startswith("/interactions/") else "webhook"
            key = f"{kind}:{hook[1]}"
            if now < self._closed_until.get(key, 0.0) - RETRY_TOLERANCE:
                self.violations.append(f"{what}: sent {self._closed_until[key] - now:.3f} s before the "
                                       f"retry_after of its 429 had passed")
            return self._limited(key, per_interaction, f"{zlib.crc32(kind.encode()):08x}", now,
                                 f"{kind} {what}", headers)
        mm = re.match(r"/channels/(\d+)(/messages(?:/\d+)?)?", r.path)
        if mm is None or (per_channel is None and global_limit is None):
            return None
        if global_limit is not None:
            left, reset_after = self._window("global", global_limit, now)
            if left < 0:
                self._buckets["global"] = (self._buckets["global"][0], global_limit[0])
                headers.update({"X-RateLimit-Global": "true", "X-RateLimit-Scope": "global",
                                "Retry-After": str(max(1, round(reset_after)))})
                return self._refusal(429, {"code": 0, "message": "You are being rate limited.",
                                           "retry_after": round(reset_after, 3), "global": True}, what)
        if per_channel is None:
            return None
        template = re.sub(r"/\d+", "/:id", mm[2] or "")
        bucket = f"{zlib.crc32(f'{r.method} {template}'.encode()):08x}"
        return self._limited(f"{bucket}:{mm[1]}", per_channel, bucket, now, what, headers)

    def rate_limit_next(self, route_regex: str, retry_after: float = 0.1, method: str | None = None) -> None:
        """Answer the next request whose path matches ``route_regex`` (and ``method``) with a 429 telling
        the bot to retry after ``retry_after`` seconds; discord.py sleeps and retries."""
        self._rate_limits.append((re.compile(route_regex), method, retry_after))

    def hold(self, route_regex: str, method: str | None = None) -> asyncio.Event:
        """Hold every request whose path matches ``route_regex`` (and ``method``) before it is
        answered, until the returned event is set (``held`` counts those waiting): a slow Discord,
        to see what the bot does meanwhile."""
        gate = asyncio.Event()
        self._holds.append((re.compile(route_regex), method, gate))
        return gate


class FakeResponses(FakeRateLimits):
    """Interaction responses (the callback) and their webhooks: the original response and
    followups, edited and deleted."""

    def _callback(self, iid: int, token: str, b: JSONDict, files: list[tuple[str, str | None, bytes]],
                  what: str) -> Result:
        it = self.interactions.get(token)
        if it is None or it["id"] != iid:
            return 404, _error(10062, "Unknown interaction")
        if it["acked_at"] is not None:
            return self._violation(400, _error(40060, "Interaction has already been acknowledged."), what)
        late = self.now() - it["created"]
        if late > ACK_DEADLINE:
            it["expired"] = True
            return self._violation(404, _error(10062, "Unknown interaction"),
                                   f"{what} (first response after {late:.1f} s > {ACK_DEADLINE:.0f} s)")
        t, d = b.get("type"), b.get("data") or {}
        allowed = {2: {4, 5, 9}, 3: {4, 5, 6, 7, 9}, 4: {8}, 5: {4, 5, 6, 7}}[it["type"]]
        if t not in allowed:
            return self._violation(400, _error(50035, "Invalid Form Body", {"type": {"_errors": [
                {"code": "INTERACTION_CALLBACK_TYPE_INVALID", "message": "Invalid interaction callback type"}]}}),
                f"{what} (callback type {t} for interaction type {it['type']})")
        if t in (6, 7) and it["message_id"] is None:
            return self._violation(400, _error(50035, "Invalid Form Body"), f"{what} (no message to update)")
        err = None
        if t in (4, 7):
            err = self._check_message(d, files, what, create=t == 4, channel_id=it["channel_id"],
                                      editing=self.messages.get(it["message_id"] or 0) if t == 7 else None)
        elif t == 8:
            err = self._check_choices(d, what)
        elif t == 9:
            err = self._check_modal(d, what)
        if err:
            return err
        it["acked_at"] = self.now()
        it["callback"] = b
        msg = None
        if t == 4:  # CHANNEL_MESSAGE_WITH_SOURCE
            msg = self._new_message(it["channel_id"], self.bot_user, d, files, int(d.get("flags") or 0), it)
        elif t == 5:  # DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE ("thinking"): loading flag 128
            msg = self._new_message(it["channel_id"], self.bot_user, {}, [], LOADING | int(d.get("flags") or 0), it)
        elif t == 7:  # UPDATE_MESSAGE (component interactions)
            msg = self.messages.get(it["message_id"])
            if msg is None:
                return 404, _error(10008, "Unknown Message")
            self._edit(msg, d, files)
        if t in (4, 5) and msg is not None:
            it["response_message_id"] = int(msg["id"])
        elif t in (6, 7):
            it["response_message_id"] = it["message_id"]
        resp: JSONDict = {"interaction": {"id": str(iid), "type": it["type"],
                                          "response_message_id": msg and msg["id"],
                                          "response_message_loading": t == 5,
                                          "response_message_ephemeral": bool((msg or {}).get("flags", 0) & EPHEMERAL)}}
        if msg is not None:
            resp["resource"] = {"type": t, "message": msg}
        return 200, resp

    def _webhook(self, m: str, token: str, which: str | None, b: JSONDict,
                 files: list[tuple[str, str | None, bytes]], what: str) -> Result:
        it = self.interactions.get(token)
        if it is None:
            return 404, _error(10015, "Unknown Webhook")
        if it.get("revoked"):
            return self._refusal(401, _error(50027, "Invalid Webhook Token"), f"{what} (token revoked)")
        age = self.now() - it["created"]
        if age > TOKEN_LIFETIME:
            return self._violation(401, _error(50027, "Invalid Webhook Token"),
                                   f"{what} (interaction token used after {age / 60:.1f} min > 15 min)")
        if it["acked_at"] is None:
            return self._violation(404, _error(10015, "Unknown Webhook"), f"{what} (before the first response)")
        if which is None:
            if m != "POST":
                return 405, _error(0, "405: Method Not Allowed")
            if err := self._check_message(b, files, what, create=True, channel_id=it["channel_id"]):
                return err
            original = self.messages.get(it["response_message_id"] or 0)
            if (it["callback"] or {}).get("type") == 5 and original is not None and original["flags"] & LOADING:
                # the first follow-up after a "thinking" defer replaces the loading message (keeping its
                # ephemerality) instead of posting a new one, as Discord does
                self._edit(original, b, files)
                it.setdefault("followup_ids", []).append(int(original["id"]))
                return 200, original
            msg = self._new_message(it["channel_id"], self.bot_user, b, files, int(b.get("flags") or 0), it)
            it.setdefault("followup_ids", []).append(int(msg["id"]))
            return 200, msg
        mid = it["response_message_id"] if which == "@original" else int(which)
        found = self.messages.get(mid) if mid is not None else None
        if found is None or (which != "@original" and mid not in it.get("followup_ids", [])):
            return 404, _error(10008, "Unknown Message")
        if m == "PATCH":
            if self._edit_refused(found):
                return self._refusal(400, _error(30046, "Maximum number of edits to messages older than 1 hour "
                                                        "reached. Try again later."), what)
            if err := self._check_message(b, files, what, create=False, channel_id=it["channel_id"], editing=found):
                return err
            self._edit(found, b, files)
        elif m == "DELETE":
            self._delete(mid)
            return 204, None
        return 200, found


class FakeRest(FakeResponses):
    """The REST API: each request checked against the rate limits and routed to channels,
    threads, messages, commands, interaction responses and webhooks."""

    # ------------------------------------------------------------------ REST
    async def _rest(self, request: web.Request) -> web.Response:
        self.in_flight += 1
        try:
            return await self._answer(request)
        finally:
            self.in_flight -= 1

    async def _answer(self, request: web.Request) -> web.Response:
        path = request.path[len(API):]
        body: Any = None
        files: list[tuple[str, str | None, bytes]] = []
        if request.content_type.startswith("multipart/"):
            reader = await request.multipart()
            async for part in reader:
                if not isinstance(part, BodyPartReader):  # pragma: no cover - nested multipart
                    continue
                if part.name == "payload_json":
                    body = json.loads(await part.text())
                else:
                    files.append((part.filename or "file", part.headers.get("Content-Type"),
                                  bytes(await part.read())))
        elif request.can_read_body:
            body = await request.json()
        req = Req(request.method, path, body, files, dict(request.query), self.now(), self._window_now())
        self.requests.append(req)
        for check in REQUEST_CHECKS:
            self.spec_violations.extend(check(req))
        headers = {"Content-Type": "application/json"}
        limited = self._take_bucket(req, headers)
        status, data = limited if limited is not None else await self.route(req)
        if status == 429:
            headers["Via"] = "1.1 google"  # discord.py treats a 429 without Via as a Cloudflare ban
        if data is None:
            return web.Response(status=status)
        # discord.py's json_or_text() wants exactly "application/json" (no charset), like the real API sends
        return web.Response(body=json.dumps(data).encode(), status=status, headers=headers)

    async def route(self, r: Req) -> Result:
        """Answer one REST request: ``(status, json body or None)``."""
        m, p = r.method, r.path
        for rx, meth, gate in self._holds:
            if not gate.is_set() and rx.fullmatch(p) and meth in (None, m):
                self.held += 1
                try:
                    await gate.wait()
                finally:
                    self.held -= 1
        for k, (rx, meth, retry) in enumerate(self._rate_limits):
            if rx.fullmatch(p) and meth in (None, m):
                del self._rate_limits[k]
                return self._refusal(429, {"code": 0, "message": "You are being rate limited.",
                                           "retry_after": retry, "global": False}, f"{m} {p}")
        b = r.json if isinstance(r.json, dict) else {}
        what = f"{m} {p}"
        if (m, p) == ("GET", "/users/@me"):
            return 200, self.bot_user
        if (m, p) in (("GET", "/gateway"), ("GET", "/gateway/bot")):
            url = str(discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY)
            return 200, {"url": url, "shards": self.shard_count, "session_start_limit": {
                "total": 1000, "remaining": 1000, "reset_after": 0, "max_concurrency": 1}}
        if (m, p) == ("GET", "/oauth2/applications/@me"):
            return 200, {"id": str(self.app_id), "name": "testbot", "description": "", "icon": None,
                         "bot_public": True, "bot_require_code_grant": False, "verify_key": "0" * 64,
                         "owner": self.owner, "flags": 0, "team": None}
        if mm := re.fullmatch(r"/applications/\d+(/guilds/\d+)?/commands(?:/(\d+))?", p):
            return self._commands(m, mm[1] and mm[1].rsplit("/", 1)[1], mm[2], r.json, what)
        if mm := re.fullmatch(r"/users/(\d+)", p):
            u = self.find_member(mm[1])
            return (200, u) if u else (404, _error(10013, "Unknown User"))
        if (m, p) == ("POST", "/users/@me/channels"):
            u = self.find_member(str(b.get("recipient_id")))
            if u is None:
                return 404, _error(10013, "Unknown User")
            return 200, self.dm_channel(u)
        if mm := re.fullmatch(r"/guilds/(\d+)(/.*)?", p):
            guild = self.guilds.get(int(mm[1]))
            if guild is None:
                return 404, _error(10004, "Unknown Guild")
            if mm[2] is None:
                return 200, guild.payload()
            if mm[2] == "/channels":
                return 200, guild.text_channels()
            if (mem := re.fullmatch(r"/members/(\d+)", mm[2])) and m == "GET":
                u = self.find_member(mem[1])
                return (200, guild.member(u)) if u and guild.is_member(u) else (404, _error(10007, "Unknown Member"))
        if mm := re.fullmatch(r"/channels/(\d+)", p):
            ch = self.channel_of(mm[1])
            if m == "GET":
                return (200, ch) if ch else (404, _error(10003, "Unknown Channel"))
        if mm := re.fullmatch(r"/channels/(\d+)(?:/messages/(\d+))?/threads", p):
            if m == "POST":
                return await self._create_thread(mm[1], mm[2], b, what)
        if mm := re.fullmatch(r"/channels/(\d+)/messages", p):
            if m == "POST":
                return self._post_channel_message(mm[1], b, r.files, what)
            if m == "GET":
                return self._history(mm[1], r.query)
        if mm := re.fullmatch(r"/channels/(\d+)/messages/(\d+)", p):
            return self._channel_message(m, mm[1], int(mm[2]), b, r.files, what)
        if re.fullmatch(r"/channels/(\d+)/messages/(\d+)/reactions/[^/]+/@me", p) or re.fullmatch(
                r"/channels/(\d+)/typing", p):
            return 204, None
        if mm := re.fullmatch(r"/interactions/(\d+)/([\w.-]+)/callback", p):
            return self._callback(int(mm[1]), mm[2], b, r.files, what)
        if mm := re.fullmatch(r"/webhooks/(\d+)/([\w.-]+)(?:/messages/(@original|\d+))?", p):
            return self._webhook(m, mm[2], mm[3], b, r.files, what)
        return 404, _error(0, f"fakecord: unhandled route {m} {p}")

    def _commands(self, m: str, guild_id: str | None, cmd_id: str | None, body: Any, what: str) -> Result:
        """Command sync. Guild commands keep the guild id they were synced to (a bot's dev guild)."""
        store = self.guild_commands if guild_id else self.global_commands

        def stamp(c: JSONDict) -> JSONDict:
            old = next((o for o in store if o["name"] == c["name"] and o.get("type", 1) == c.get("type", 1)), None)
            return dict(c, id=old["id"] if old else str(self.snowflake()), application_id=str(self.app_id),
                        version="1", guild_id=guild_id, default_member_permissions=c.get("default_member_permissions"))

        if m == "GET":
            return 200, store
        if m == "PUT" and cmd_id is None:
            if err := self._check_commands(body or [], what):
                return err
            store[:] = [stamp(c) for c in body or []]
            return 200, store
        if m in ("POST", "PATCH"):
            if err := self._check_commands([body], what):
                return err
            new = stamp(body)
            store[:] = [c for c in store if c["id"] != new["id"]] + [new]
            return 200, new
        if m == "DELETE" and cmd_id:
            store[:] = [c for c in store if c["id"] != cmd_id]
            return 204, None
        return 404, _error(10063, "Unknown application command")

    @property
    def commands(self) -> list[JSONDict]:
        """Every synced command: guild commands first, then global ones."""
        return self.guild_commands + self.global_commands

    async def _create_thread(self, cid: str, mid: str | None, b: JSONDict, what: str) -> Result:
        parent = self.channels.get(cid)
        if parent is None:
            return 404, _error(10003, "Unknown Channel")
        if parent["type"] != 0:
            return self._violation(400, _error(50024, "Cannot execute action on this channel type"), what)
        guild = self.guild_of(parent)
        if guild is None or not guild.threads_allowed:
            return self._refusal(403, _error(50013, "Missing Permissions"), what)
        inv = _Invalid()
        inv.min_len(["name"], b.get("name"))
        inv.max_len(["name"], b.get("name"), 100)
        if inv:
            return self._violation(400, _error(50035, "Invalid Form Body", inv.errors), what)
        ttype = 11
        if mid is not None:
            msg = self.messages.get(int(mid))
            if msg is None or msg["channel_id"] != cid:
                return 404, _error(10008, "Unknown Message")
            if "thread" in msg:
                return self._violation(400, _error(160004, "A thread has already been created for this message"),
                                       what)
            tid = mid
        else:
            ttype = int(b.get("type") or 12)
            tid = str(self.snowflake())
        now = self.now_dt().isoformat()
        thread = {"id": tid, "type": ttype, "guild_id": parent["guild_id"], "parent_id": cid, "name": b["name"],
                  "owner_id": self.bot_user["id"], "last_message_id": None, "message_count": 0,
                  "member_count": 1, "total_message_sent": 0, "rate_limit_per_user": 0, "flags": 0,
                  "thread_metadata": {"archived": False, "auto_archive_duration": b.get("auto_archive_duration")
                                      or 4320, "archive_timestamp": now, "locked": False,
                                      "create_timestamp": now, "invitable": True}}
        self.channels[tid] = thread
        if mid is not None:
            msg = self.messages[int(mid)]
            msg["thread"] = thread
            msg["flags"] |= 1 << 5  # HAS_THREAD
        await self.dispatch("THREAD_CREATE", dict(thread, newly_created=True))
        return 201, thread

    def _post_channel_message(self, cid: str, b: JSONDict, files: list[tuple[str, str | None, bytes]],
                              what: str) -> Result:
        ch = self.channel_of(cid)
        if ch is None:
            return 404, _error(10003, "Unknown Channel")
        if ch["type"] == 1:
            rid = ch["recipients"][0]["id"]
            if rid in self._closed_dms or ch["recipients"][0].get("bot"):
                return self._refusal(403, _error(50007, "Cannot send messages to this user"), what)
        if err := self._check_message(b, files, what, create=True, channel_id=cid):
            return err
        nonce = b.get("nonce")
        if nonce is not None and b.get("enforce_nonce"):
            # Discord: a message with the same author and nonce seen recently is returned, not re-created
            seen = self._nonces.get((str(self.bot_user["id"]), str(nonce)))
            if seen is not None and seen[0] in self.messages and self.now() - seen[1] <= self.nonce_lifetime:
                self.nonce_hits += 1
                return 200, self.messages[seen[0]]
        msg = self._new_message(cid, self.bot_user, b, files, flags=int(b.get("flags") or 0) & ~EPHEMERAL)
        if nonce is not None:
            msg["nonce"] = str(nonce)
            if b.get("enforce_nonce"):
                self._nonces[(str(self.bot_user["id"]), str(nonce))] = (int(msg["id"]), self.now())
        return 200, msg

    def _history(self, cid: str, query: dict[str, str]) -> Result:
        if self.channel_of(cid) is None:
            return 404, _error(10003, "Unknown Channel")
        msgs = self.channel_messages(cid, ephemeral=False)
        if "before" in query:
            msgs = [x for x in msgs if int(x["id"]) < int(query["before"])]
        if "after" in query:
            msgs = [x for x in msgs if int(x["id"]) > int(query["after"])]
        limit = int(query.get("limit", 50))
        newest_first = list(reversed(msgs))
        return 200, newest_first[:limit]

    def _channel_message(self, m: str, cid: str, mid: int, b: JSONDict,
                         files: list[tuple[str, str | None, bytes]], what: str) -> Result:
        msg = self.messages.get(mid)
        if self.channel_of(cid) is None:
            return 404, _error(10003, "Unknown Channel")
        if msg is None or msg["channel_id"] != cid:
            return 404, _error(10008, "Unknown Message")
        if msg["flags"] & EPHEMERAL:
            return self._violation(404, _error(10008, "Unknown Message"),
                                   f"{what} (ephemeral messages are reachable only through the interaction token)")
        if m == "GET":
            return 200, msg
        if m == "DELETE":
            self._delete(mid)
            return 204, None
        if m == "PATCH":
            if msg["author"]["id"] != self.bot_user["id"] and set(b) - {"flags"}:
                return self._violation(403, _error(50005, "Cannot edit a message authored by another user"), what)
            if self._edit_refused(msg):
                return self._refusal(400, _error(30046, "Maximum number of edits to messages older than 1 hour "
                                                        "reached. Try again later."), what)
            if err := self._check_message(b, files, what, create=False, channel_id=cid, editing=msg):
                return err
            self._edit(msg, b, files)
            return 200, msg
        return 405, _error(0, "405: Method Not Allowed")


class FakeInteractions(FakeRest):
    """Interactions a test injects as a member would make them: slash commands, autocomplete,
    buttons, selects, modals, and chat messages."""

    # ------------------------------------------------------------------ injected interactions
    def _resolve_channel(self, channel: JSONDict | str | int | None, user: JSONDict, dm: bool) -> JSONDict:
        if dm:
            return self.dm_channel(user)
        if channel is None:
            return self.channel
        ch = self.channel_of(channel["id"] if isinstance(channel, dict) else channel)
        if ch is None:
            raise KeyError(f"unknown channel {channel!r}")
        return ch

    def _interaction(self, type_: int, user: JSONDict, data: JSONDict, *, channel: JSONDict,
                     message: JSONDict | None = None) -> JSONDict:
        iid = self.snowflake()
        # shaped like Discord's (base64 of "interaction:<id>:" and a random tail), so a test that looks
        # for leaked tokens cannot be fooled by a recognisable prefix
        token = (base64.urlsafe_b64encode(f"interaction:{iid}:".encode()).decode().rstrip("=")
                 + secrets.token_urlsafe(48))
        in_dm = channel["type"] == 1
        guild = None if in_dm else self.guild_of(channel)
        if not in_dm and guild is None:
            raise KeyError(f"channel {channel['id']} belongs to no guild")
        if guild is not None and not guild.is_member(user):
            raise LookupError(f"{user['username']} is not a member of {guild.name}")
        self.interactions[token] = {"id": iid, "type": type_, "channel_id": int(channel["id"]),
                                    "message_id": message and int(message["id"]), "acked_at": None,
                                    "created": self.now(), "response_message_id": None, "callback": None,
                                    "user_id": user["id"], "user": user, "dm": in_dm,
                                    "guild_id": guild and guild.id}
        payload: JSONDict = {
            "id": str(iid), "application_id": str(self.app_id), "type": type_, "data": data, "token": token,
            "version": 1, "channel_id": channel["id"], "locale": self.user_locales.get(user["id"], "en-US"),
            "entitlements": [],
            "attachment_size_limit": self.upload_limit_of(channel["id"])}
        if guild is None:
            payload.update(user=user, channel=channel, context=1, app_permissions=str(self._bot_perms()),
                           authorizing_integration_owners={"0": str(self.guild_id)})
        else:
            payload.update(guild_id=str(guild.id), guild_locale=guild.locale, member=guild.member(user),
                           channel=dict(channel, permissions=str(guild.permissions_of(user))), context=0,
                           app_permissions=str(guild._bot_perms()),
                           authorizing_integration_owners={"0": str(guild.id)})
        if message is not None:
            payload["message"] = copy.deepcopy(message)
        self.interactions[token]["payload"] = payload
        return payload

    async def redeliver(self, token: str) -> None:
        """Send the interaction ``token`` again, unchanged (same id, same token): Discord retries a
        delivery it is unsure of, so a bot must drop the copy."""
        await self._flush()
        await self.dispatch("INTERACTION_CREATE", copy.deepcopy(self.interactions[token]["payload"]))

    def _command_schema(self, name: str, sub: tuple[str, ...]) -> tuple[JSONDict | None, list[JSONDict], list[int]]:
        """The synced command, the options under the subcommand path ``sub`` and the type of each ``sub`` name
        (2 group, 1 subcommand). Without a synced command: (None, [], guessed types).

        Raises LookupError for a subcommand the synced command does not have, ValueError when a
        subcommand is missing (the Discord client cannot send either)."""
        cmd = next((c for c in self.commands if c["name"] == name and c.get("type", 1) == 1), None)
        if cmd is None:
            return None, [], [2] * (len(sub) - 1) + [1] if sub else []
        opts: list[JSONDict] = cmd.get("options") or []
        types = []
        for s in sub:
            decl = next((o for o in opts if o["name"] == s and o["type"] in (1, 2)), None)
            if decl is None:
                subs = [o["name"] for o in opts if o["type"] in (1, 2)]
                raise LookupError(f"/{name} has no subcommand {s!r}" + (f"; it has: {', '.join(subs)}" if subs else ""))
            types.append(decl["type"])
            opts = decl.get("options") or []
        if opts and any(o["type"] in (1, 2) for o in opts):
            subs = [o["name"] for o in opts if o["type"] in (1, 2)]
            raise ValueError(f"/{' '.join((name, *sub))} needs a subcommand: {', '.join(subs)}")
        return cmd, opts, types

    @staticmethod
    def _check_options(path: str, schema: list[JSONDict], options: dict[str, Any], focused: str | None) -> None:
        """What the Discord client enforces before sending: known options, required ones, fixed choices."""
        known = {o["name"]: o for o in schema}
        for k in options:
            if k not in known:
                raise LookupError(f"/{path} has no option {k!r}; options: {', '.join(known) or 'none'}")
        if focused is not None:
            if focused not in known:
                raise LookupError(f"/{path} has no option {focused!r}; options: {', '.join(known) or 'none'}")
            if not known[focused].get("autocomplete"):
                raise LookupError(f"/{path} option {focused!r} has no autocomplete")
            return  # autocomplete is sent while typing: required options may still be missing
        missing = [o["name"] for o in schema if o.get("required") and o["name"] not in options]
        if missing:
            raise ValueError(f"/{path} needs {', '.join(missing)}")
        for k, v in options.items():
            choices = known[k].get("choices")
            if choices and str(v) not in {str(c["value"]) for c in choices}:
                raise ValueError(f"/{path} {k} must be one of: {', '.join(str(c['value']) for c in choices)}")

    def _option(self, name: str, value: Any, schema: list[JSONDict], resolved: JSONDict,
                guild: FakeGuild | None) -> JSONDict:
        decl = next((o for o in schema if o["name"] == name), None)
        if decl is not None:
            otype = decl["type"]
        elif isinstance(value, bool):
            otype = 5
        elif isinstance(value, int):
            otype = 4
        elif isinstance(value, float):
            otype = 10
        elif isinstance(value, dict) and "username" in value:
            otype = 6
        elif isinstance(value, dict) and "type" in value:
            otype = 7
        else:
            otype = 3
        if otype in (6, 9):  # USER, MENTIONABLE
            user = value if isinstance(value, dict) else self.find_member(str(value))
            if user is None:
                raise KeyError(f"unknown user {value!r}")
            resolved.setdefault("users", {})[user["id"]] = user
            if guild is not None and guild.is_member(user):
                m = {k: v for k, v in guild.member(user).items() if k not in ("user", "deaf", "mute")}
                resolved.setdefault("members", {})[user["id"]] = m
            return {"name": name, "type": otype, "value": user["id"]}
        if otype == 7:  # CHANNEL
            ch = value if isinstance(value, dict) else self.channel_of(value)
            if ch is None:
                raise KeyError(f"unknown channel {value!r}")
            resolved.setdefault("channels", {})[ch["id"]] = dict(ch, permissions=str(ALL_PERMS))
            return {"name": name, "type": 7, "value": ch["id"]}
        if otype == 4:
            value = int(value)
        elif otype == 10:
            value = float(value)
        elif otype == 5:
            value = value if isinstance(value, bool) else str(value).lower() in ("1", "true", "yes", "on")
        else:
            value = str(value)
        return {"name": name, "type": otype, "value": value}

    def _command_data(self, user: JSONDict, name: str, sub: tuple[str, ...], options: dict[str, Any],
                      guild: FakeGuild | None, focused: str | None = None, *, client_checks: bool = True,
                      ) -> JSONDict:
        cmd, schema, sub_types = self._command_schema(name, sub)
        if cmd is not None and client_checks:
            self._check_options(" ".join((name, *sub)), schema, options, focused)
            need = int(cmd.get("default_member_permissions") or 0)
            have = guild.permissions_of(user) if guild is not None else 0
            if (need and guild is not None and self.enforce_command_permissions and not have & Perm.ADMINISTRATOR
                    and have & need != need):
                raise CommandNotPermitted(f"/{name} needs permissions {need:#x}; {user['username']} has {have:#x}")
        resolved: JSONDict = {}
        opts = []
        for k, v in options.items():
            if k == focused:
                decl = next((o for o in schema if o["name"] == k), None)
                opts.append({"name": k, "type": decl["type"] if decl else 3, "value": str(v), "focused": True})
            else:
                opts.append(self._option(k, v, schema, resolved, guild))
        if focused is not None and focused not in options:
            decl = next((o for o in schema if o["name"] == focused), None)
            opts.append({"name": focused, "type": decl["type"] if decl else 3, "value": "", "focused": True})
        for s, st in reversed(list(zip(sub, sub_types, strict=True))):
            opts = [{"name": s, "type": st, "options": opts}]
        data: JSONDict = {"id": (cmd or {}).get("id") or str(self.snowflake()), "name": name, "type": 1,
                          "options": opts}
        if cmd is not None and cmd.get("guild_id"):
            data["guild_id"] = cmd["guild_id"]
        if resolved:
            data["resolved"] = resolved
        return data

    def _split_reserved(self, name: str, sub: tuple[str, ...], options: dict[str, Any], dm: Any,
                        context: str | None) -> tuple[dict[str, Any], bool]:
        """Options and whether the interaction comes from a DM. ``dm=`` is the DM-context switch unless the
        synced command has an option called ``dm`` (then it is that option, and ``context="dm"`` asks for a
        DM context)."""
        if dm is not None:
            try:
                _, schema, _ = self._command_schema(name, sub)
            except (LookupError, ValueError):
                schema = []
            if any(o["name"] == "dm" for o in schema):
                options = {**options, "dm": dm}
            elif dm:
                context = context or "dm"
        if context not in (None, "guild", "dm"):
            raise ValueError(f"context must be 'guild' or 'dm', not {context!r}")
        return options, context == "dm"

    async def slash(self, user: JSONDict, name: str, *sub: str, channel: JSONDict | str | int | None = None,
                    dm: Any = None, context: str | None = None, options: dict[str, Any] | None = None,
                    client_checks: bool = True, **kw_options: Any) -> str:
        """Send a CHAT_INPUT interaction, e.g. ``slash(bob, "game", "new", game="carnival")``. Returns its token.

        Option types come from the synced command when there is one (else from the Python type); a user
        dict for a USER option puts the user (and member) in ``data.resolved`` as Discord does. Options whose
        names clash with these parameters can be given in ``options={...}``.
        ``channel`` picks a text channel or thread (default ``#games``); ``dm=True`` (or ``context="dm"``)
        sends it from the bot's DM with ``user`` (context 1, ``user`` instead of ``member``, no
        ``guild_id``) -- unless the command has an option named ``dm``, which ``dm=`` then sets.

        When the command is synced, what the Discord client itself enforces is checked first: LookupError
        for an unknown subcommand or option, ValueError for a missing required option or a value outside
        fixed choices, :class:`CommandNotPermitted` when the member lacks the command's default permissions.
        ``client_checks=False`` skips those checks: the interaction a modified client (or a forger) could
        send, e.g. a value outside the fixed choices.
        """
        await self._flush()
        opts, in_dm = self._split_reserved(name, sub, {**(options or {}), **kw_options}, dm, context)
        ch = self._resolve_channel(channel, user, in_dm)
        data = self._command_data(user, name, sub, opts, self.guild_of(ch), client_checks=client_checks)
        payload = self._interaction(2, user, data, channel=ch)
        await self.dispatch("INTERACTION_CREATE", payload)
        return str(payload["token"])

    async def autocomplete(self, user: JSONDict, name: str, *sub: str, focused: str,
                           channel: JSONDict | str | int | None = None, dm: Any = None, context: str | None = None,
                           timeout: float | None = None, options: dict[str, Any] | None = None,
                           **kw_options: Any) -> list[JSONDict]:
        """Send an APPLICATION_COMMAND_AUTOCOMPLETE interaction (type 4) with option ``focused`` marked
        ``"focused": true`` (its partial text is ``options[focused]``, default ""), wait for the bot's
        callback (type 8) and return its choices (``[{"name": ..., "value": ...}]``). Parameters as
        :meth:`slash`.

        LookupError when the synced option has no autocomplete; TimeoutError when the bot does not answer."""
        await self._flush()
        opts, in_dm = self._split_reserved(name, sub, {**(options or {}), **kw_options}, dm, context)
        ch = self._resolve_channel(channel, user, in_dm)
        data = self._command_data(user, name, sub, opts, self.guild_of(ch), focused=focused)
        payload = self._interaction(4, user, data, channel=ch)
        await self.dispatch("INTERACTION_CREATE", payload)
        cb = await self.response(str(payload["token"]), timeout)
        return list((cb.get("data") or {}).get("choices") or [])

    def _component_channel(self, message: JSONDict, channel: JSONDict | str | int | None) -> JSONDict:
        if channel is not None:
            cid = channel["id"] if isinstance(channel, dict) else channel
        else:
            cid = message["channel_id"]
        ch = self.channel_of(cid)
        if ch is None:
            raise KeyError(f"message {message['id']} is in an unknown channel")
        return ch

    @staticmethod
    def _component(message: JSONDict, custom_id: str) -> JSONDict:
        comp = next((c for c in iter_components(message.get("components") or [])
                     if c.get("custom_id") == custom_id), None)
        if comp is None:
            raise LookupError(f"no component {custom_id!r} on message {message['id']}")
        if comp.get("disabled"):
            raise LookupError(f"component {custom_id!r} is disabled")
        return comp

    async def click(self, user: JSONDict, message: JSONDict, custom_id: str, *,
                    channel: JSONDict | str | int | None = None, forge: bool = False) -> str:
        """Press the button ``custom_id`` on ``message`` (the payload as the user sees it) as ``user``.

        The interaction comes from the message's channel (a thread or a DM included) unless ``channel``
        says otherwise. Raises :class:`LookupError` when the message has no such enabled component, unless
        ``forge=True``: then the ``custom_id`` is sent on ``message`` whatever it carries (what a modified
        client could try). Returns the token.
        """
        await self._flush()
        if not forge:
            comp = self._component(message, custom_id)
            if comp.get("type") != 2:
                raise LookupError(f"component {custom_id!r} is not a button")
        ch = self._component_channel(message, channel)
        payload = self._interaction(3, user, {"custom_id": custom_id, "component_type": 2}, channel=ch,
                                    message=message)
        await self.dispatch("INTERACTION_CREATE", payload)
        return str(payload["token"])

    async def select(self, user: JSONDict, message: JSONDict, custom_id: str, values: list[str], *,
                     channel: JSONDict | str | int | None = None, forge: bool = False) -> str:
        """Pick ``values`` in the select menu ``custom_id`` on ``message`` (component_type 3 with ``values``);
        the channel is the message's unless ``channel`` says otherwise.

        Raises :class:`LookupError` for a missing menu and :class:`ValueError` for values the menu does not
        offer or a count outside ``min_values..max_values`` (the Discord client cannot send those), unless
        ``forge=True``: then ``custom_id`` and ``values`` are sent as given (a string select).
        """
        await self._flush()
        values = [str(v) for v in values]
        if forge:
            comp: JSONDict = {"type": 3}
        else:
            comp = self._component(message, custom_id)
            if comp.get("type") not in SELECT_TYPES:
                raise LookupError(f"component {custom_id!r} is not a select menu")
            if comp["type"] == 3:
                offered = {o["value"] for o in comp.get("options") or []}
                if bad := [v for v in values if v not in offered]:
                    raise ValueError(f"select {custom_id!r} offers no {bad}")
            if not comp.get("min_values", 1) <= len(values) <= comp.get("max_values", 1):
                raise ValueError(f"select {custom_id!r} takes {comp.get('min_values', 1)}..{comp.get('max_values', 1)}")
        ch = self._component_channel(message, channel)
        data: JSONDict = {"custom_id": custom_id, "component_type": comp["type"], "values": values}
        if comp["type"] in (5, 6, 7):
            resolved: JSONDict = {}
            for v in values:
                self._option("x", v, [{"name": "x", "type": 7 if comp["type"] == 8 else 6}], resolved,
                             self.guild_of(ch))
            data["resolved"] = resolved
        payload = self._interaction(3, user, data, channel=ch, message=message)
        await self.dispatch("INTERACTION_CREATE", payload)
        return str(payload["token"])

    async def submit_modal(self, user: JSONDict, custom_id: str, values: dict[str, str], *,
                           channel: JSONDict | str | int | None = None, dm: bool = False) -> str:
        """Submit the modal ``custom_id`` with text input values ``{input custom_id: text}``. Returns the token."""
        await self._flush()
        rows = [{"type": 1, "components": [{"type": 4, "custom_id": k, "value": v}]} for k, v in values.items()]
        ch = self._resolve_channel(channel, user, dm)
        payload = self._interaction(5, user, {"custom_id": custom_id, "components": rows}, channel=ch)
        await self.dispatch("INTERACTION_CREATE", payload)
        return str(payload["token"])

    async def say(self, user: JSONDict, content: str, *, channel: JSONDict | str | int | None = None) -> JSONDict:
        """Post a chat message as ``user`` (MESSAGE_CREATE). Returns the message payload."""
        await self._flush()
        ch = self._resolve_channel(channel, user, False)
        msg = self._new_message(ch["id"], user, {"content": content}, [])
        guild = self.guild_of(ch)
        await self.dispatch("MESSAGE_CREATE", dict(msg, member=guild.member(user)) if guild else msg)
        return msg


class FakeDiscord(FakeInteractions):
    """A fake Discord hosting one guild ("Test Guild", :attr:`default_guild`, with a ``#games`` text
    channel) and as many more as :meth:`add_guild` makes, each a :class:`FakeGuild` with its own members,
    roles, permissions, channels, locale and upload limit. The single-guild API (:attr:`owner`,
    :attr:`members`, :attr:`channel`, :meth:`add_member`, :meth:`member_permissions`, :attr:`upload_limit`,
    :attr:`threads_allowed`) is the default guild's; an interaction carries the guild of the channel it
    happens in.

    Use as ``async with FakeDiscord() as fake: await fake.start_bot(bot) ...``. Users are plain Discord user
    payload dicts (``{"id": "...", "username": "bob", ...}``); :attr:`owner` owns the default guild.

    Inspectable state: :attr:`requests` (every REST call), :attr:`messages` (id -> message payload),
    :attr:`interactions` (token -> record with ``acked_at``, ``callback``, ``response_message_id``,
    ``created``, in the fake's epoch seconds), :attr:`commands`, :attr:`channels` (text channels and
    threads), :attr:`dm_channels`, :attr:`blobs` (attachment id -> uploaded bytes), :attr:`message_log`
    (every create/edit/delete in order), :attr:`violations` (payloads Discord would refuse: the bot's
    fault), :attr:`spec_violations` (what the :data:`REQUEST_CHECKS` found), :attr:`refusals` (closed
    DMs, threads not allowed, edit caps, 429s: the environment's doing), :attr:`errors` (ERROR log
    records of discord.py and the bot).

    Knobs: :attr:`upload_limit` (bytes, default 10 MiB), :attr:`threads_allowed`,
    :attr:`old_message_edit_cap` (edits allowed on a message older than an hour before 30046; None = no cap),
    :attr:`enforce_command_permissions`, :meth:`close_dms`, :meth:`member_permissions`,
    :meth:`refuse_edits`, :meth:`revoke_token`, :meth:`rate_limit_next`, :meth:`rate_limit_buckets`, :meth:`advance`,
    :meth:`add_guild`. What a modified client could send: :meth:`redeliver` (the same interaction twice),
    ``forge=True`` on :meth:`click` and :meth:`select`, ``client_checks=False`` on :meth:`slash`.
    """

    # ------------------------------------------------------------------ lifecycle
    async def __aenter__(self) -> FakeDiscord:
        app = web.Application(client_max_size=1 << 30)
        app.router.add_get("/gateway", self._gateway)
        app.router.add_route("*", API + "/{tail:.*}", self._rest)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        server: Any = site._server  # an asyncio.Server
        port = server.sockets[0].getsockname()[1]
        self._saved = (discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY)
        discord.http.Route.BASE = f"http://127.0.0.1:{port}{API}"
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(f"ws://127.0.0.1:{port}/gateway")
        for name in self._log_names:
            logging.getLogger(name).addHandler(self.errors)
        # tokens never reach a log line of the rig either (bot/logsafe.py): the collector's and every
        # handler on the root logger when the fake opens (pytest's capture included)
        self._redacted = [self.errors, *logging.getLogger().handlers]
        self.redactor = logsafe.install(self._redacted, secrets=[BOT_TOKEN])
        return self

    async def __aexit__(self, *exc: object) -> None:
        for name in self._log_names:
            logging.getLogger(name).removeHandler(self.errors)
        logsafe.uninstall(self.redactor, self._redacted)
        discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = self._saved
        for ws in list(self._sockets):
            await ws.close()
        await self._runner.cleanup()

    async def start_bot(self, bot: discord.Client, timeout: float | None = None, *,
                        sync_commands: bool = True) -> asyncio.Task[None]:
        """Start ``bot`` against the fake and wait until it is ready (guild cached). With
        ``sync_commands``, a bot with a command tree whose commands this Discord does not hold yet
        then has them synced globally, as its operator's ``python -m bot sync`` once did for a
        real application (the bot itself syncs only to a development server, bot/sync.py). ``timeout``:
        wall seconds before TimeoutError (default ``HANG_GUARD``: the start is waited for, not timed)."""
        bot._connection.guild_ready_timeout = 0.05  # default: 2 s wait for more GUILD_CREATEs
        task = asyncio.create_task(bot.start(BOT_TOKEN), name="bot-under-test")
        ready = asyncio.create_task(bot.wait_until_ready())
        done, _ = await asyncio.wait({task, ready}, timeout=HANG_GUARD if timeout is None else timeout,
                                     return_when=asyncio.FIRST_COMPLETED)
        if ready not in done:
            ready.cancel()
            if not bot.is_closed():
                await bot.close()
            if task.done():
                task.result()  # re-raise the startup error
            raise TimeoutError("bot did not become ready")
        bot._fakecord_task = task  # type: ignore[attr-defined]
        self._local_bots.append(bot)
        tree = getattr(bot, "tree", None)
        if sync_commands and isinstance(tree, discord.app_commands.CommandTree) and not self.commands:
            await tree.sync()
        return task

    async def stop_bot(self, bot: discord.Client) -> None:
        """Close ``bot`` and wait for its task to end."""
        await bot.close()
        await asyncio.wait_for(bot._fakecord_task, HANG_GUARD)  # type: ignore[attr-defined]
        if bot in self._local_bots:
            self._local_bots.remove(bot)
