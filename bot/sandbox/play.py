"""The terminal playground (``make play``): the real bot against the offline Discord, driven by typed commands.

Run ``python -m bot.sandbox.play`` (options: ``--db PATH``, ``--images DIR``, ``--script FILE``, ``--fresh``,
``--strict``). It starts :class:`~bot.sandbox.fakecord.FakeDiscord` with the members alice (the server owner,
hence a moderator), bob, carol, dave, eve and frank, starts the real ``bot.app.GameBot`` on the playground
database and reads commands, one a line, from the terminal, a script file, or standard input when it is
not a terminal::

    as bob                          act as bob (the prompt shows [bob] >)
    /game new game:carnival         a slash command: name, subcommands, key:value options
    /carnival play action:choose lust      (a value runs on until the next key:, ints are typed,
    /game mod kick player:@bob              @name is a member, key:text? lists autocomplete choices)
    click 2                         press button [2] of the latest listing
    select 3 2   choose 3 1,2       pick option(s) of select menu [3] (also: choose 3.2)
    modal 1:"my text" 2:other       fill in the modal the bot opened
    show [n]                        the last n messages the current member can see (default 6)
    dm [n]                          the last n messages of your DM channel with the bot (default 6)
    dm /game mine                   a slash command sent from your DM with the bot
    wait                            wait until the bot is idle (every command waits for the AI seats' moves)
    advance 25h                     move the clock forward (deadlines, reminders, token expiry)
    restart                         stop and start the bot on the same database
    select 4 2                      in a lobby: the Add AI select (its options: Easy, Normal, Hard,
                                    Remove the last AI) seats a computer player; ``wait`` waits for its moves
    help, quit

After every step the playground prints each message the bot created or edited: where (``#games``, a thread
``#games › Carnival #3``, ``DM to bob``), author, content, embeds and numbered components; ephemeral
messages only to their owner, marked "(only you)"; DMs are their own channel (``DM to bob``), shown only to
their recipient (the others see a count). Every attachment (an image, or a file such as
``/game export``'s JSON and text) is written to the images folder with a sequence number and its path is
printed. ``key:text?`` lists an option's fixed choices too (``/game new game:?``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime as dt
import logging
import re
import shlex
import signal
import sys
import threading
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import discord

from bot.sandbox.fakecord import (
    EPHEMERAL,
    LOADING,
    CommandNotPermitted,
    FakeDiscord,
    JSONDict,
    iter_components,
)

__all__ = [
    "Command",
    "Control",
    "PlayError",
    "Playground",
    "SlashCommand",
    "UserRef",
    "format_message",
    "humanize",
    "modal_inputs",
    "main",
    "parse_command",
    "parse_duration",
    "parse_slash",
]

log = logging.getLogger(__name__)

MEMBERS = ("bob", "carol", "dave", "eve", "frank")
OWNER = "alice"
DEFAULT_DB = Path("playground/games.db")
"""The playground's database unless `--db` names another."""
IMAGE_EXTENSIONS = (".png", ".jpg", ".jpeg", ".gif", ".webp")
SELECT_TYPES = frozenset({3, 5, 6, 7, 8})

HELP = """\
commands:
  as NAME                      act as another member (alice bob carol dave eve frank; alice owns the server)
  /NAME [SUB...] [key:value]   slash command, e.g. /game new game:carnival  or  /carnival play action:choose lust
                               ints are typed, @bob is a member, key:text? lists the autocomplete or fixed choices
  click N                      press button [N] of the latest listing
  select N M | choose N M      pick option M of select [N]; several: select N 1,2; also choose N.M
  modal 1:text 2:"more text"   fill in the modal the bot opened (fields by number or custom_id)
  show [n]                     re-print the last n messages you can see (default 6)
  dm [n]                       your DM channel with the bot: its last n messages (default 6)
  dm /NAME ...                 a slash command from your DM with the bot, e.g. dm /game mine
  wait                         wait until the bot is idle
  advance 25h                  move Discord's and the bot's clock forward (d, h, m, s), e.g. to pass a deadline
  restart                      stop and start the bot on the same database
  help                         this text
  quit                         leave (also: exit, Ctrl-D)"""


class PlayError(ValueError):
    """A playground command that cannot be parsed or carried out; the message says why."""


@dataclass(frozen=True)
class UserRef:
    """``@name`` in a slash option: a member, looked up when the command runs."""

    name: str


@dataclass(frozen=True)
class SlashCommand:
    """A parsed slash command: ``/name sub... key:value...``; ``autocomplete`` names an option ending in ``?``."""

    name: str
    sub: tuple[str, ...] = ()
    options: Mapping[str, Any] = field(default_factory=dict)
    autocomplete: str | None = None
    text: str = field(default="", compare=False)


@dataclass(frozen=True)
class Command:
    """One playground command line: ``kind`` is one of as, slash, click, select, modal, show, wait, restart,
    help, quit, nothing; ``args`` holds its parsed arguments."""

    kind: str
    args: tuple[Any, ...] = ()


@dataclass(frozen=True)
class Control:
    """A numbered component of a listing: a button or a select menu on a message."""

    number: int
    message_id: str
    custom_id: str
    kind: str  # "button" or "select"
    component_type: int
    options: tuple[tuple[str, str], ...] = ()  # select: (label, value)
    min_values: int = 1
    max_values: int = 1


_OPTION = re.compile(r"([A-Za-z_][\w-]*):(.*)", re.S)


def _typed(value: str) -> Any:
    if re.fullmatch(r"-?\d+", value):
        return int(value)
    if re.fullmatch(r"@[\w.-]+", value):
        return UserRef(value[1:])
    return value


def parse_slash(text: str, known: Collection[str] | None = None) -> SlashCommand:
    """Parse ``/name sub... key:value...`` (the leading ``/`` is optional).

    Words before the first ``key:`` are subcommands; a value runs on over the following words until the next
    ``key:`` (``action:choose lust``), quotes group words (``note:"a: b"``). With ``known`` (the command's
    option names), a ``word:`` that names no option belongs to the value before it, so a move's own notation
    needs no quotes (``action:move pilgrim:3``). Whole integers become ``int``,
    ``@bob`` a :class:`UserRef`; a value ending in ``?`` marks that option for autocomplete. Raises
    :class:`PlayError` for an empty command or a repeated option.
    """
    try:
        words = shlex.split(text.strip().removeprefix("/"))
    except ValueError as e:
        raise PlayError(f"cannot parse: {e}") from None
    if not words or _OPTION.fullmatch(words[0]):
        raise PlayError("a slash command needs a name, e.g. /game new game:carnival")
    name, sub, raw, focus = words[0].lower(), [], {}, None
    current: str | None = None
    for word in words[1:]:
        m = _OPTION.fullmatch(word)
        if m and (known is None or current is None or m[1] in known):
            current = m[1]
            if current in raw:
                raise PlayError(f"option {current} given twice")
            raw[current] = m[2]
        elif current is None:
            sub.append(word.lower())
        else:
            raw[current] = f"{raw[current]} {word}" if raw[current] else word
    options: dict[str, Any] = {}
    for key, value in raw.items():
        if value.endswith("?"):
            if focus is not None:
                raise PlayError("only one option can end in ? (autocomplete)")
            focus, value = key, value[:-1]
            options[key] = value
        else:
            options[key] = _typed(value)
    return SlashCommand(name, tuple(sub), options, focus, text)


def _number(word: str, what: str) -> int:
    if not word.isdigit():
        raise PlayError(f"{what} must be a number, not {word!r}")
    return int(word)


_DURATION = re.compile(r"(\d+(?:\.\d+)?)\s*(d|h|m|s)?", re.I)
_UNITS = {"d": 86400, "h": 3600, "m": 60, "s": 1}


def parse_duration(text: str) -> float | None:
    """Seconds in ``25h``, ``90m``, ``1d12h``, ``30s`` or ``45`` (seconds); None when it is not a duration."""
    text = text.strip().replace(" ", "")
    if not text or not re.fullmatch(r"(?:\d+(?:\.\d+)?[dhms]?)+", text, re.I):
        return None
    parts = _DURATION.findall(text)
    if len(parts) > 1 and any(not unit for _, unit in parts):
        return None
    return sum(float(n) * _UNITS[(unit or "s").lower()] for n, unit in parts)


def parse_command(line: str) -> Command:
    """Parse one playground line into a :class:`Command`; raises :class:`PlayError` with a readable reason.

    Blank lines and ``#`` comments give ``Command("nothing")``. ``select``/``choose`` give
    ``Command("select", (control, [option numbers] or [@names]))``.
    """
    text = line.strip()
    if not text or text.startswith("#"):
        return Command("nothing")
    if text.startswith("/"):
        return Command("slash", (parse_slash(text),))
    verb, _, rest = text.partition(" ")
    verb, rest = verb.lower(), rest.strip()
    words = rest.split()
    if verb == "as":
        if len(words) != 1:
            raise PlayError("usage: as NAME")
        return Command("as", (words[0].lstrip("@").lower(),))
    if verb == "click":
        if len(words) != 1:
            raise PlayError("usage: click N")
        return Command("click", (_number(words[0], "the button"),))
    if verb in ("select", "choose"):
        if len(words) == 1 and re.fullmatch(r"\d+\.\d+", words[0]):
            menu, option = words[0].split(".")
            return Command("select", (int(menu), [int(option)]))
        if len(words) < 2:
            raise PlayError(f"usage: {verb} N M  (or {verb} N M1,M2  or {verb} N.M)")
        control = _number(words[0], "the menu")
        picks = [p for p in re.split(r"[,\s]+", " ".join(words[1:])) if p]
        if all(p.startswith("@") for p in picks):
            return Command("select", (control, [p[1:].lower() for p in picks]))
        return Command("select", (control, [_number(p, "an option") for p in picks]))
    if verb == "modal":
        try:
            parts = shlex.split(rest)
        except ValueError as e:
            raise PlayError(f"cannot parse: {e}") from None
        fields: dict[str, str] = {}
        for part in parts:
            key, sep, value = part.partition(":")
            if not sep:
                raise PlayError('usage: modal 1:text 2:"more text"')
            fields[key] = value
        return Command("modal", (fields,))
    if verb == "show":
        return Command("show", (_number(words[0], "the count") if words else 6,))
    if verb == "dm":
        if rest.startswith("/"):
            return Command("dm_slash", (parse_slash(rest),))
        return Command("dm", (_number(words[0], "the count") if words else 6,))
    if verb == "advance":
        seconds = parse_duration(rest)
        if seconds is None:
            raise PlayError("usage: advance DURATION, e.g. advance 25h, advance 90m, advance 1d12h, advance 30s")
        return Command("advance", (seconds,))
    if verb in ("wait", "restart", "help") and not words:
        return Command(verb)
    if verb in ("quit", "exit", "q") and not words:
        return Command("quit")
    raise PlayError(f"unknown command {verb!r}; type help")


def is_image(attachment: Mapping[str, Any]) -> bool:
    """Whether an attachment payload is an image (by content type or file name)."""
    ctype = str(attachment.get("content_type") or "")
    return ctype.startswith("image/") or str(attachment.get("filename", "")).lower().endswith(IMAGE_EXTENSIONS)


def _label(comp: Mapping[str, Any]) -> str:
    emoji = (comp.get("emoji") or {}).get("name") or ""
    label = comp.get("label") or ""
    return f"{emoji} {label}".strip() or "(no label)"


def humanize(text: str, names: Mapping[str, str]) -> str:
    """Replace Discord mentions (``<@id>``, ``<@!id>``, ``<#id>``) by ``@name`` / ``#name`` where ``names``
    (id -> name) knows the id, and timestamps (``<t:1700000000:R>``) by ``2023-11-14 22:13 UTC``."""

    def sub(m: re.Match[str]) -> str:
        if m[3] is not None:
            return f"{dt.datetime.fromtimestamp(int(m[3]), dt.UTC):%Y-%m-%d %H:%M} UTC"
        name = names.get(m[2])
        if name is None:
            return m[0]
        return f"@{name}" if m[1].startswith("@") else f"#{name}"

    return _MENTION.sub(sub, text)


_MENTION = re.compile(r"<(@!?|#)(\d+)>|<t:(-?\d+)(?::[tTdDfFR])?>")


def format_message(msg: Mapping[str, Any], *, where: str, start: int = 1, note: str = "",
                   images: Mapping[str, str] | None = None,
                   names: Mapping[str, str] | None = None) -> tuple[list[str], list[Control]]:
    """Render a message payload as readable lines and number its buttons and select menus from ``start``.

    ``where`` is the channel's readable name, ``note`` a status such as "edited" or "only you", ``images``
    maps attachment ids to the files they were saved as, ``names`` maps user and channel ids to names for
    mentions. Returns the lines and the numbered controls: buttons as ``[1] Join``, select menus as
    ``[3] ▾ placeholder`` with options ``3.1``, ``3.2``...
    """
    images = images or {}
    names = names or {}

    def _indent(text: str, prefix: str) -> list[str]:
        return [prefix + line for line in humanize(str(text), names).splitlines() or [""]]

    author = (msg.get("author") or {}).get("username", "?")
    head = f"── {where} · {author}"
    if note:
        head += f" ({note})"
    lines = [head]
    flags = int(msg.get("flags") or 0)
    if flags & LOADING and not msg.get("content") and not msg.get("embeds"):
        lines.append("   (thinking…)")
    if msg.get("content"):
        lines += _indent(msg["content"], "   ")
    for embed in msg.get("embeds") or []:
        if (embed.get("author") or {}).get("name"):
            lines += _indent(embed["author"]["name"], "   ┃ ")
        if embed.get("title"):
            lines += _indent(embed["title"], "   ┃ ▌")
        if embed.get("description"):
            lines += _indent(embed["description"], "   ┃ ")
        for f in embed.get("fields") or []:
            lines += _indent(f"{f.get('name', '')}:", "   ┃ • ")
            lines += _indent(f.get("value", ""), "   ┃     ")
        for key in ("image", "thumbnail"):
            url = (embed.get(key) or {}).get("url", "")
            if url and not url.startswith("attachment://"):
                lines.append(f"   ┃ {key}: {url}")
        if (embed.get("footer") or {}).get("text"):
            lines += _indent(embed["footer"]["text"], "   ┃ — ")
    controls: list[Control] = []
    n = start
    buttons: list[str] = []

    def flush_buttons() -> None:
        if buttons:
            lines.append("   " + "   ".join(buttons))
            buttons.clear()

    for comp in iter_components(msg.get("components") or []):
        t = comp.get("type")
        if t == 1:
            flush_buttons()
        elif t == 10 and comp.get("content"):  # components v2 text display
            flush_buttons()
            lines += _indent(comp["content"], "   ")
        elif t == 2:
            if comp.get("style") == 5:
                buttons.append(f"[link {_label(comp)}: {comp.get('url')}]")
                continue
            disabled = " (disabled)" if comp.get("disabled") else ""
            buttons.append(f"[{n}] {_label(comp)}{disabled}")
            controls.append(Control(n, str(msg["id"]), comp.get("custom_id", ""), "button", 2))
            n += 1
        elif t in SELECT_TYPES:
            flush_buttons()
            lo, hi = int(comp.get("min_values", 1)), int(comp.get("max_values", 1))
            count = f"pick {lo}" if lo == hi else f"pick {lo}–{hi}"
            disabled = ", disabled" if comp.get("disabled") else ""
            what = {5: "members", 6: "roles", 7: "members or roles", 8: "channels"}.get(t, "")
            title = comp.get("placeholder") or "choose"
            lines.append(f"   [{n}] ▾ {title} ({count}{', ' + what if what else ''}{disabled})")
            options = tuple((o.get("label", ""), o.get("value", "")) for o in comp.get("options") or [])
            for k, o in enumerate(comp.get("options") or [], 1):
                desc = f" — {o['description']}" if o.get("description") else ""
                default = " (default)" if o.get("default") else ""
                emoji = ((o.get("emoji") or {}).get("name") or "") + " " if o.get("emoji") else ""
                lines.append(f"       {n}.{k} {emoji}{o.get('label', '')}{desc}{default}")
            controls.append(Control(n, str(msg["id"]), comp.get("custom_id", ""), "select", int(t), options, lo, hi))
            n += 1
    flush_buttons()
    for att in msg.get("attachments") or []:
        path = images.get(str(att.get("id")))
        mark = "🖼" if is_image(att) else "📎"
        name = att.get("filename") or "file"
        lines.append(f"   {mark} {name} — open {path}" if path else f"   {mark} {name} (not saved in this session)")
    return lines, controls


def duration_text(seconds: float) -> str:
    """``seconds`` as the playground says a clock move: ``"31 min"``, ``"1 h 1 min"``,
    ``"1 d 12 h"``, ``"30 s"`` (whole units, the largest first, zero parts left out)."""
    left = round(seconds)
    parts = []
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60), ("s", 1)):
        count, left = divmod(left, size)
        if count:
            parts.append(f"{count} {unit}")
    return " ".join(parts) or "0 s"


def modal_inputs(data: Mapping[str, Any]) -> list[tuple[str, JSONDict]]:
    """The text inputs of a modal payload with their labels, in order (inputs in action rows or in labels)."""
    found: list[tuple[str, JSONDict]] = []
    for comp in data.get("components") or []:
        children = [comp["component"]] if comp.get("type") == 18 and comp.get("component") else list(
            iter_components(comp.get("components") or []))
        for child in children:
            if child.get("type") == 4:
                found.append((comp.get("label") or child.get("label") or child.get("custom_id", ""), child))
    return found


# ---------------------------------------------------------------------------------------------- session


BotFactory = Callable[[], discord.Client]


def real_bot_factory(db_path: Path, fake: FakeDiscord | None = None, *, ai_iterations: int = 0) -> BotFactory:
    """A factory of the real bot (``bot.app.GameBot``) on the playground database with an offline token.

    With ``fake``, the bot runs on the fake's clock (``advance`` moves both: ``GameBot(clock=...)``) and
    checks its deadlines every second. ``ai_iterations`` above 0 makes every AI move a quick search of that
    many iterations (``Settings.ai_iterations``) instead of its level's budget.
    """
    from bot.app import GameBot  # the real bot; imported late so the parser works without it
    from bot.settings import Settings

    overrides: dict[str, Any] = {"database_path": str(db_path), "token": "offline"}
    if ai_iterations > 0:
        overrides["ai_iterations"] = ai_iterations
    kwargs: dict[str, Any] = {}
    if fake is not None:
        overrides["tick_seconds"] = 1.0
        overrides["dm_away_seconds"] = 0  # (one person plays every seat here: show every DM)
        # (the playground's server is a development server: its commands are synced at start)
        overrides["dev_guild_id"] = fake.default_guild.id
        # (passed outright: ``inspect.signature(GameBot)`` shows ``GameBot.__new__``'s ``*args, **kwargs``,
        # so asking it whether ``clock`` is taken said no and the bot kept the wall clock)
        kwargs["clock"] = fake.now

    def make() -> discord.Client:
        return GameBot(Settings.from_env(overrides=overrides), **kwargs)

    return make


class Playground:
    """One playground session: the fake Discord, its members, the bot and the latest numbered listing.

    ``out`` receives each output line (default: standard output). Use :meth:`start`, then :meth:`execute`
    for each line, then :meth:`stop`. With ``world``, the fake's server is saved there
    (``FakeDiscord.save_world``: a temporary file, then ``os.replace``) after every command, so a
    playground killed outright (``kill -9``) still leaves the server its games run in.
    """

    def __init__(self, fake: FakeDiscord, bot_factory: BotFactory, *, images_dir: Path,
                 out: Callable[[str], None] | None = None, idle_timeout: float | None = None,
                 advance_settle: float = 1.2, world: Path | None = None) -> None:
        self.fake = fake
        self.world = world
        self.bot_factory = bot_factory
        self.images_dir = Path(images_dir)
        self.out = out or (lambda line: print(line, flush=True))
        self.idle_timeout = idle_timeout
        self.advance_settle = advance_settle
        self.bot: discord.Client | None = None
        self.members: dict[str, JSONDict] = {}
        self.current: JSONDict = fake.owner
        self.controls: dict[int, Control] = {}
        self.modal: JSONDict | None = None  # the modal the bot opened, with the message it came from
        self.images: dict[str, str] = {}  # attachment id -> saved path
        self._first_image: int | None = None  # the number of this session's first saved image
        self._cursor = 0
        self._violations = 0
        self._refusals = 0
        self._errors = 0

    @property
    def prompt(self) -> str:
        """``[bob] > ``."""
        return f"[{self.current['username']}] > "

    async def start(self) -> None:
        """Add the members and start the bot."""
        self.members[self.fake.owner["username"]] = self.fake.owner
        for name in MEMBERS:  # (a saved world has them already: the same users again)
            self.members[name] = await self.fake.default_guild.add_member(self.fake.find_member(name) or name)
        await self._start_bot()
        self._cursor = len(self.fake.message_log)
        self.out(f"Test Guild: {', '.join(self.members)} ({self.fake.owner['username']} owns the server). "
                 "Type help for the commands.")

    async def stop(self) -> None:
        """Stop the bot."""
        if self.bot is not None:
            await self.fake.stop_bot(self.bot)
            self.bot = None

    async def _start_bot(self) -> None:
        self.bot = self.bot_factory()
        await self.fake.start_bot(self.bot, timeout=self.idle_timeout)
        await self.fake.idle(0.1, self.idle_timeout)

    # -------------------------------------------------------------------------------------- commands
    async def execute(self, line: str) -> bool:
        """Carry out one command line and print what happened; False when the session should end.
        Then the server is saved to ``world`` (when given)."""
        try:
            return await self._execute(line)
        finally:
            if self.world is not None:
                self.fake.save_world(self.world)

    async def _execute(self, line: str) -> bool:
        try:
            cmd = parse_command(line)
            return await self._run(cmd)
        except PlayError as e:
            self.out(f"?? {e}")
        except CommandNotPermitted as e:
            self.out(f"?? Discord does not offer this command to {self.current['username']}: {e}")
        except (LookupError, ValueError) as e:  # what the Discord client itself would not send
            self.out(f"?? {e.args[0] if e.args else e}")
        except TimeoutError:
            self.out("!! the bot did not answer in time")
            await self._report()
        return True

    async def _run(self, cmd: Command) -> bool:
        if cmd.kind == "nothing":
            return True
        if cmd.kind == "quit":
            return False
        if cmd.kind == "help":
            self.out(HELP)
        elif cmd.kind == "as":
            if cmd.args[0] not in self.members:
                raise PlayError(f"no member {cmd.args[0]!r}; members: {', '.join(self.members)}")
            self.current = self.members[cmd.args[0]]
        elif cmd.kind == "slash":
            await self._slash(cmd.args[0])
        elif cmd.kind == "click":
            control = self._control(cmd.args[0], "button")
            message = self._message(control)
            await self._interact(self.fake.click(self.current, message, control.custom_id), message)
        elif cmd.kind == "select":
            await self._select(*cmd.args)
        elif cmd.kind == "modal":
            await self._modal(cmd.args[0])
        elif cmd.kind == "show":
            await self._show(cmd.args[0])
        elif cmd.kind == "dm":
            await self._show_dm(cmd.args[0])
        elif cmd.kind == "dm_slash":
            await self._slash(cmd.args[0], dm=True)
        elif cmd.kind == "advance":
            self.fake.advance(cmd.args[0])
            self.out(f"(the clock moved {duration_text(cmd.args[0])} forward; now {self.fake.now_dt():%Y-%m-%d %H:%M} UTC)")
            await asyncio.sleep(self.advance_settle)  # one pass of the bot's game clock
            await self._settle(0.2)
            await self._report()
        elif cmd.kind == "wait":
            await self._settle(0.2)
            await self._report()
        elif cmd.kind == "restart":
            await self.stop()
            await self._start_bot()
            self.out("(bot restarted on the same database)")
            await self._report()
        return True

    def _resolve(self, value: Any) -> Any:
        if isinstance(value, UserRef):
            if value.name.lower() not in self.members:
                raise PlayError(f"no member @{value.name}")
            return self.members[value.name.lower()]
        return value

    async def _slash(self, cmd: SlashCommand, *, dm: bool = False) -> None:
        try:
            names = {o["name"] for o in self.fake._command_schema(cmd.name, cmd.sub)[1]}
        except (LookupError, ValueError):
            names = set()
        if names and cmd.text and not set(cmd.options) <= names:  # a ``word:`` inside a move's notation
            cmd = parse_slash(cmd.text, names)
        options = {k: self._resolve(v) for k, v in cmd.options.items()}
        context = "dm" if dm else None
        if cmd.autocomplete is not None:
            fixed = self._fixed_choices(cmd)
            choices = fixed if fixed is not None else await self.fake.autocomplete(
                self.current, cmd.name, *cmd.sub, focused=cmd.autocomplete, timeout=self.idle_timeout,
                options=options, context=context)
            self.out(f"{cmd.autocomplete}: " + (", ".join(str(c["value"]) if c["name"] == str(c["value"])
                                                          else f"{c['name']} ({c['value']})" for c in choices)
                                                  or "(no suggestions)"))
            await self._report()
            return
        await self._interact(self.fake.slash(self.current, cmd.name, *cmd.sub, options=options, context=context),
                             None)

    def _fixed_choices(self, cmd: SlashCommand) -> list[JSONDict] | None:
        """The fixed choices of the option ``cmd`` asks suggestions for (``key:text?``) that the typed
        text is part of (by name or value, any case), as the Discord client lists them; None when the
        option has no fixed choices (then the bot's autocomplete answers)."""
        try:
            schema = self.fake._command_schema(cmd.name, cmd.sub)[1]
        except (LookupError, ValueError):
            return None
        option = next((o for o in schema if o["name"] == cmd.autocomplete), None)
        if option is None or not option.get("choices"):
            return None
        typed = str(cmd.options.get(cmd.autocomplete or "", "")).strip().lower()
        return [c for c in option["choices"] if typed in str(c["name"]).lower() or typed in str(c["value"]).lower()]

    def _control(self, number: int, kind: str) -> Control:
        control = self.controls.get(number)
        if control is None:
            raise PlayError(f"there is no [{number}] in the latest listing (show lists the messages again)")
        if control.kind != kind:
            raise PlayError(f"[{number}] is a {control.kind}; use {'click' if kind == 'select' else 'select'}")
        return control

    def _message(self, control: Control) -> JSONDict:
        message = self.fake.messages.get(int(control.message_id))
        if message is None:
            raise PlayError("that message was deleted")
        return message

    async def _select(self, number: int, picks: Sequence[int | str]) -> None:
        control = self._control(number, "select")
        message = self._message(control)
        if control.component_type == 3:
            values = []
            for p in picks:
                if not isinstance(p, int) or not 1 <= p <= len(control.options):
                    raise PlayError(f"select [{number}] has options {number}.1 to {number}.{len(control.options)}")
                values.append(control.options[p - 1][1])
        else:
            values = [self._resolve(UserRef(str(p)))["id"] for p in picks]
        if not control.min_values <= len(values) <= control.max_values:
            raise PlayError(f"select [{number}] takes {control.min_values} to {control.max_values} choices")
        await self._interact(self.fake.select(self.current, message, control.custom_id, values), message)

    async def _modal(self, fields: Mapping[str, str]) -> None:
        if self.modal is None:
            raise PlayError("no modal is open")
        inputs = [c for _, c in modal_inputs(self.modal["data"])]
        values = {c["custom_id"]: str(c.get("value") or "") for c in inputs}
        for key, value in fields.items():
            if key.isdigit() and 1 <= int(key) <= len(inputs):
                values[inputs[int(key) - 1]["custom_id"]] = value
            elif key in values:
                values[key] = value
            else:
                raise PlayError(f"the modal has no field {key!r}")
        custom_id = self.modal["data"]["custom_id"]
        self.modal = None
        await self._interact(self.fake.submit_modal(self.current, custom_id, values), None)

    async def _interact(self, sending: Any, message: JSONDict | None) -> None:
        token = await sending
        callback = await self.fake.answer(token, self.idle_timeout)
        if callback is not None and callback.get("type") == 5:  # "thinking": wait for the real answer
            original = self.fake.message_for(token) or {}
            with contextlib.suppress(TimeoutError):
                await self.fake.wait_for(lambda: not int(original.get("flags") or 0) & LOADING, self.idle_timeout)
        await self._settle(0.15)
        if callback is None and self.fake.interactions[token]["acked_at"] is None:
            self.out("!! the bot did not answer in time: Discord shows \"This interaction failed\"")
        elif callback is not None and callback.get("type") == 9:
            self.modal = callback
            self._print_modal(callback["data"])
        await self._report()

    async def _settle(self, quiet: float) -> None:
        """Wait until the bot is idle for ``quiet`` seconds and the AI seats it drives
        (``bot.flow.ai``, when the bot has them) made every move now due, so the listing printed
        next, and its numbers, show the messages after those moves (not the board before them)."""
        await self.fake.idle(quiet, self.idle_timeout)
        ai = getattr(getattr(self.bot, "flow", None), "ai", None)
        for _ in range(1000):
            if ai is None or not ai.busy():
                return
            try:
                await asyncio.wait_for(asyncio.shield(ai.settled()), self.idle_timeout)
            except TimeoutError:  # (a long think: the next wait shows its move)
                self.out("(an AI is still thinking; wait shows its move)")
                return
            await self.fake.idle(quiet, self.idle_timeout)

    def _print_modal(self, data: Mapping[str, Any]) -> None:
        self.out(f"── modal: {data.get('title', '')}   (answer with: modal 1:text 2:\"more text\")")
        for k, (label, c) in enumerate(modal_inputs(data), 1):
            value = f" = {c['value']!r}" if c.get("value") else ""
            self.out(f"   {k}. {label}{value}")

    # -------------------------------------------------------------------------------------- output
    def _names(self) -> dict[str, str]:
        names = {u["id"]: u["username"] for u in self.fake.members}
        names.update({cid: ch.get("name", cid) for cid, ch in self.fake.channels.items()})
        return names

    def _dm_recipient(self, msg: Mapping[str, Any]) -> str | None:
        """The id of the member whose DM channel holds ``msg``, or None for a server channel."""
        ch = self.fake.channel_of(msg["channel_id"])
        return str(ch["recipients"][0]["id"]) if ch is not None and ch.get("type") == 1 else None

    def _visible(self, msg: Mapping[str, Any]) -> bool:
        if int(msg.get("flags") or 0) & EPHEMERAL:
            return bool(self.fake.ephemeral_owner(dict(msg)) == self.current["id"])
        recipient = self._dm_recipient(msg)
        return recipient is None or recipient == self.current["id"]

    async def _save_images(self, msg: Mapping[str, Any]) -> None:
        """Write each attachment of ``msg`` not saved yet into the images folder, numbered on: an
        image, and any other file too (``/game export``'s JSON and text)."""
        for att in msg.get("attachments") or []:
            aid = str(att["id"])
            if aid in self.images or aid not in self.fake.blobs:
                continue
            self.images_dir.mkdir(parents=True, exist_ok=True)
            if self._first_image is None:  # (numbered on from the files of earlier sessions)
                self._first_image = 1 + max((int(f.name[:4]) for f in self.images_dir.glob("[0-9][0-9][0-9][0-9]-*")),
                                            default=0)
            path = self.images_dir / f"{self._first_image + len(self.images):04d}-{att.get('filename', 'image')}"
            await asyncio.to_thread(path.write_bytes, self.fake.blobs[aid])
            self.images[aid] = str(path)

    def _listing(self, entries: Iterable[tuple[JSONDict, str]]) -> None:
        """Print messages with one numbering; keep the controls when there is anything to number."""
        controls: dict[int, Control] = {}
        for msg, note in entries:
            where = self.fake.describe_channel(msg["channel_id"])
            if int(msg.get("flags") or 0) & EPHEMERAL:
                note = ", ".join(x for x in (note, "only you") if x)
            lines, found = format_message(msg, where=where, note=note, start=len(controls) + 1, images=self.images,
                                          names=self._names())
            for line in lines:
                self.out(line)
            controls.update({c.number: c for c in found})
        if controls:
            self.controls = controls

    async def _report(self) -> None:
        """Print every message created or edited since the last report, then new problems."""
        log_entries = self.fake.message_log[self._cursor:]
        self._cursor = len(self.fake.message_log)
        status: dict[str, str] = {}
        latest: dict[str, JSONDict] = {}
        for kind, msg in log_entries:
            mid = str(msg["id"])
            if kind == "create" or mid not in status:
                status[mid] = {"create": "new", "edit": "edited", "delete": "deleted"}[kind]
            elif kind == "delete":
                status[mid] = "gone" if status[mid] == "new" else "deleted"
            latest[mid] = msg
        entries: list[tuple[JSONDict, str]] = []
        hidden: dict[tuple[str, str], int] = {}
        for mid, state in status.items():
            msg = latest[mid]
            if state == "gone":
                continue
            if not self._visible(msg):
                owner = self.fake.find_member(self.fake.ephemeral_owner(msg) or self._dm_recipient(msg) or "")
                name = owner["username"] if owner else "someone"
                kind = "DM" if self._dm_recipient(msg) else "private message"
                hidden[(name, kind)] = hidden.get((name, kind), 0) + 1
                continue
            if state == "deleted":
                self.out(f"── {self.fake.describe_channel(msg['channel_id'])}: a message was deleted")
                continue
            if msg.get("author", {}).get("id") != self.fake.bot_user["id"]:
                continue
            await self._save_images(msg)
            entries.append((msg, "edited" if state == "edited" else ""))
        self._listing(entries)
        for (name, kind), count in hidden.items():
            where = f"in {name}'s DMs" if kind == "DM" else f"only {name} can see"
            self.out(f"   (+{count} {kind}{'s' if count > 1 else ''} {where})")
        self._problems()

    def _problems(self) -> None:
        for v in self.fake.violations[self._violations:]:
            self.out(f"!! Discord refused: {v}")
        for r in self.fake.refusals[self._refusals:]:
            self.out(f"-- Discord said no (environment): {r}")
        for rec in self.fake.errors.records[self._errors:]:
            self.out(f"!! bot error: {rec.getMessage()}"
                     + (f" ({rec.exc_info[1]!r})" if rec.exc_info and rec.exc_info[1] else ""))
        self._violations = len(self.fake.violations)
        self._refusals = len(self.fake.refusals)
        self._errors = len(self.fake.errors.records)

    async def _show(self, count: int) -> None:
        visible = [m for m in self.fake.messages.values()
                   if self._visible(m) and m["author"]["id"] == self.fake.bot_user["id"]]
        entries = [(m, "edited" if m.get("edited_timestamp") else "") for m in visible[-count:]]
        for m, _ in entries:  # (their images too, so that each says where to open it)
            await self._save_images(m)
        if not entries:
            self.out("(nothing to show yet)")
        self._listing(entries)

    async def _show_dm(self, count: int) -> None:
        """Print the last ``count`` messages of the current member's DM channel with the bot."""
        channel = self.fake.dm_channels.get(self.current["id"])
        messages = self.fake.channel_messages(channel["id"]) if channel is not None else []
        messages = [m for m in messages if self._visible(m)][-count:]
        if not messages:
            self.out(f"(no DMs between the bot and {self.current['username']} yet)")
            return
        for m in messages:
            await self._save_images(m)
        self._listing([(m, "edited" if m.get("edited_timestamp") else "") for m in messages])

    @property
    def problems(self) -> int:
        """How many violations and bot errors happened so far."""
        return len(self.fake.violations) + len(self.fake.errors.records)


# ---------------------------------------------------------------------------------------------- main


def fresh_hint(db: Path) -> str:
    """The command that starts a new playground on ``db`` (``--fresh``; with ``--db`` when it
    is not the default database)."""
    if db == DEFAULT_DB:
        return "`make play ARGS=--fresh`"
    return f"`make play ARGS={shlex.quote(f'--db {shlex.quote(str(db))} --fresh')}`"


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m bot.sandbox.play", description=__doc__.split("\n")[0],
                                epilog=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--db", type=Path, default=DEFAULT_DB, help="database (default: %(default)s)")
    p.add_argument("--images", type=Path, default=Path("playground/images"),
                   help="folder for the images the bot posts (default: %(default)s)")
    p.add_argument("--script", type=Path, help="read the commands from this file (one a line)")
    p.add_argument("--fresh", action="store_true", help="start with an empty database")
    p.add_argument("--ai-iterations", type=int, default=0, metavar="N",
                   help="AI seats think N search iterations per move instead of their level's budget (quick games)")
    p.add_argument("--strict", action="store_true", help="exit with status 1 if Discord refused a payload or "
                                                         "the bot logged an error")
    return p


async def run_lines(pg: Playground, lines: Iterable[str], *, echo: bool = True) -> None:
    """Execute scripted lines (echoed after the prompt) until the end or ``quit``."""
    for line in lines:
        if echo:
            pg.out(pg.prompt + line.rstrip("\n"))
        if not await pg.execute(line):
            break


async def _in_daemon_thread(read: Callable[[], str]) -> str:
    """``read()`` (a blocking read of the terminal or pipe) in a daemon thread: unlike
    ``asyncio.to_thread``'s pool, which ``asyncio.run`` joins at its end, a read still blocked when
    SIGTERM ends the session does not hold the process open. Raises what ``read`` raised."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[str] = loop.create_future()

    def settle(result: str | None, error: BaseException | None) -> None:
        if done.done():  # (the session ended meanwhile)
            return
        if error is not None:
            done.set_exception(error)
        else:
            done.set_result(result or "")

    def work() -> None:
        try:
            result, error = read(), None
        except BaseException as exc:  # (EOFError, KeyboardInterrupt: handed to the awaiting task)
            result, error = None, exc
        with contextlib.suppress(RuntimeError):  # (the loop closed meanwhile)
            loop.call_soon_threadsafe(settle, result, error)

    threading.Thread(target=work, name="playground-input", daemon=True).start()
    return await done


async def run_piped(pg: Playground) -> None:
    """Execute lines from a pipe as they arrive (echoed after the prompt), until its end or
    ``quit``: ``(echo "new carnival"; sleep 5; echo board) | make play`` acts at once."""
    while line := await _in_daemon_thread(sys.stdin.readline):
        pg.out(pg.prompt + line.rstrip("\n"))
        if not await pg.execute(line):
            return


async def interactive(pg: Playground) -> None:
    """Read commands from the terminal (``input()`` in a thread, so the bot keeps running meanwhile)."""
    while True:
        try:
            line = await _in_daemon_thread(lambda: input(pg.prompt))
        except (EOFError, KeyboardInterrupt):
            pg.out("")
            return
        if not await pg.execute(line):
            return


async def amain(argv: Sequence[str] | None = None, *, bot_factory: BotFactory | None = None,
                out: Callable[[str], None] | None = None) -> int:
    """Run the playground with command-line arguments ``argv``; returns the exit status."""
    args = _parser().parse_args(argv)
    world = world_file(args.db)
    if args.fresh:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{args.db}{suffix}").unlink(missing_ok=True)
        world.unlink(missing_ok=True)
    args.db.parent.mkdir(parents=True, exist_ok=True)
    if bot_factory is None and not args.fresh:  # (the real bot's start-up check: bot/backup.py)
        from bot.backup import DatabaseRefused, check_at_start
        from bot.settings import Settings

        try:
            await check_at_start(Settings(database_path=str(args.db), token="offline"))
        except DatabaseRefused as exc:
            (out or print)(f"The playground cannot start: {exc}\n({fresh_hint(args.db)} starts a new playground.)")
            return 4
    fake = FakeDiscord(owner_name=OWNER, real_time=True)
    if world.exists() and args.db.exists():
        try:
            fake.load_world(world)
        except ValueError as exc:
            (out or print)(f"(could not reopen the last session's server, starting a new one: {exc})")
            fake = FakeDiscord(owner_name=OWNER, real_time=True)
    async with fake:
        factory = bot_factory or real_bot_factory(args.db, fake, ai_iterations=args.ai_iterations)
        pg = Playground(fake, factory, images_dir=args.images, out=out, world=world)
        await pg.start()
        main_task = asyncio.current_task()
        terminated: list[bool] = []

        def terminate() -> None:  # (SIGTERM ends the session like ``quit``: the bot stops, the server is saved)
            terminated.append(True)
            if main_task is not None:
                main_task.cancel()

        loop = asyncio.get_running_loop()
        with contextlib.suppress(NotImplementedError, RuntimeError):  # (none on Windows / off the main thread)
            loop.add_signal_handler(signal.SIGTERM, terminate)
        try:
            if args.script is not None:
                await run_lines(pg, args.script.read_text(encoding="utf-8").splitlines())
            elif not sys.stdin.isatty():
                await run_piped(pg)
            else:
                await interactive(pg)
        except asyncio.CancelledError:
            if not terminated or main_task is None:
                raise
            main_task.uncancel()
            (out or print)("(terminated: the server is saved for the next run)")
        finally:
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.remove_signal_handler(signal.SIGTERM)
            await pg.stop()
            fake.save_world(world)
        return 1 if args.strict and pg.problems else 0


def world_file(db: Path) -> Path:
    """Where the playground keeps its offline server between runs: beside the database
    (``playground/games.db`` → ``playground/games.world.json``)."""
    return db.with_name(db.stem + ".world.json")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``python -m bot.sandbox.play``."""
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("discord.client").setLevel(logging.ERROR)  # "PyNaCl is not installed" and the like
    logging.getLogger("discord.gateway").setLevel(logging.ERROR)  # heartbeat lag while the prompt waits
    return asyncio.run(amain(argv))


if __name__ == "__main__":
    sys.exit(main())
