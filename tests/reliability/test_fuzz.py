"""Payload fuzzing: generated interaction payloads through the offline
Discord change nothing and get a specific private answer or none.

hypothesis builds raw INTERACTION_CREATE payloads (the fake's checks of what a Discord
client may send are bypassed, as a forger would): component custom ids of every shape (the
bot's templates with odd numbers, other servers' game ids, stray text), select values,
slash commands of the synced tree with options of every type, wrong types, missing and
unknown options, autocomplete and modal submits, from the server's channel, the game's
thread and a DM. The sender, mallory, plays no game and moderates nothing. After each
payload: no ERROR log record (the fake's error collector), no payload Discord would refuse,
the database equal to its snapshot, and every new message private to mallory and not the
apology for a bug. ``derandomize`` keeps the examples the same on every run (CI).
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.app import GameBot
from bot.sandbox.fakecord import EPHEMERAL, FakeDiscord
from bot.ui.errors import APOLOGY
from tests.e2e.driver import Driver
from tests.reliability.botkit import start_bot

JSON = dict[str, Any]

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "80"))
"""Examples per test (``FUZZ_EXAMPLES``); each sends a batch of 1–8 payloads at once (about
4.5 on average), so three tests send about 1100 payloads by default (FUZZ_EXAMPLES=400
for a longer run: about 5400)."""

BATCH = 8
"""Payloads at most in one example (sent together, checked together)."""

FUZZ = settings(max_examples=EXAMPLES, derandomize=True, deadline=None, database=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

PREFIXES = ("l", "g", "a", "as", "n", "d", "x", "")
VERBS = ("join", "leave", "start", "play", "hand", "log", "rules", "")


class Table:
    """A bot with a running Carnival (alice, bob) in this server, a running one in another
    server, and mallory, who is in neither."""

    def __init__(self, fake: FakeDiscord, bot: GameBot, db: Path, mallory: JSON, games: list[int],
                 boards: list[JSON], threads: list[JSON]) -> None:
        self.fake, self.bot, self.db, self.mallory = fake, bot, db, mallory
        self.games, self.boards, self.threads = games, boards, threads

    def snapshot(self) -> dict[str, list[tuple[Any, ...]]]:
        """Every row of every table, read through a connection of its own."""
        con = sqlite3.connect(f"file:{self.db}?mode=ro", uri=True)
        try:
            names = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")]
            return {n: sorted(con.execute(f'SELECT * FROM "{n}"').fetchall(), key=repr) for n in names}
        finally:
            con.close()

    async def check(self, payloads: list[JSON]) -> None:
        """Dispatch ``payloads`` (INTERACTION_CREATE) at once and check what came of them."""
        fake = self.fake
        before = self.snapshot()
        last = max(fake.messages) if fake.messages else 0
        errors, violations = len(fake.errors.records), len(fake.violations)
        await asyncio.gather(*(fake.dispatch("INTERACTION_CREATE", p) for p in payloads))
        await fake.idle(0.01)
        await self.bot.flow.wait_idle()
        assert [r.getMessage() for r in fake.errors.records[errors:]] == []
        assert fake.violations[violations:] == []
        new = [m for mid, m in sorted(fake.messages.items()) if mid > last]
        for m in new:
            assert m["flags"] & EPHEMERAL and fake.ephemeral_owner(m) == self.mallory["id"], m["content"]
            assert m["content"] != APOLOGY
        assert self.snapshot() == before


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[Table]:
    async with FakeDiscord(owner_name="alice") as fake:
        db = tmp_path / "games.db"
        bot = await start_bot(fake, db)
        driver = Driver(fake, bot)
        bob = await fake.add_member("bob")
        mallory = await fake.add_member("mallory")
        here = await driver.start_game("carnival", [fake.owner, bob])
        other = fake.add_guild("elsewhere", owner_name="olga")
        await driver.settle()
        olga = other.owner
        peter = await other.add_member("peter")
        channel = other.text_channels()[0]
        token = await fake.slash(olga, "game", "new", game="carnival", channel=channel)
        await driver.settle()
        lobby = fake.message_for(token)
        assert lobby is not None
        import re
        there = int(re.search(r"#(\d+)", lobby["embeds"][0]["title"])[1])  # type: ignore[index]
        await fake.click(peter, fake.messages[int(lobby["id"])], f"l:{there}:join")
        await driver.settle()
        await fake.click(olga, fake.messages[int(lobby["id"])], f"l:{there}:start")
        await driver.delivered()
        records = [await bot.service.get(g) for g in (here, there)]
        assert [r.status for r in records] == ["active", "active"]
        boards = [fake.messages[r.board_message_id] for r in records]  # type: ignore[index]
        threads = [fake.channel_of(r.home_channel_id) for r in records]
        yield Table(fake, bot, db, mallory, [here, there], boards, threads)  # type: ignore[arg-type]
        await fake.stop_bot(bot)


def numbers(t: Table) -> st.SearchStrategy[str]:
    """Game numbers, versions and indexes as text: the real games, odd ints, non-numbers."""
    return st.one_of(st.sampled_from([str(g) for g in t.games]), st.integers(-2, 12).map(str),
                     st.integers(-2 ** 70, 2 ** 70).map(str), st.sampled_from(["", "x", "1.5", "０", " 1"]))


def custom_ids(t: Table) -> st.SearchStrategy[str]:
    """Custom ids shaped like the bot's (``bot/ui/components.py``) with odd parts, and any text."""
    shaped = st.builds(lambda p, parts: ":".join([p, *parts]), st.sampled_from(PREFIXES),
                       st.lists(st.one_of(numbers(t), st.sampled_from(VERBS), st.text(max_size=8)),
                                max_size=5))
    return st.one_of(shaped, st.text(max_size=110))


def where(t: Table) -> st.SearchStrategy[tuple[JSON, JSON | None]]:
    """(channel, message): the game's thread and its board, another server's board seen from
    here, the server's channel, or mallory's DM."""
    fake = t.fake
    return st.sampled_from([(t.threads[0], t.boards[0]), (fake.channel, t.boards[1]), (fake.channel, t.boards[0]),
                            (fake.dm_channel(t.mallory), t.boards[0]), (t.threads[0], None)])


@given(data=st.data())
@FUZZ
async def test_component_payloads_change_nothing(table: Table, data: st.DataObject) -> None:
    await table.check([component(table, data) for _ in range(data.draw(st.integers(1, BATCH)))])


def component(table: Table, data: st.DataObject) -> JSON:
    """A button or select payload (Discord always sends ``custom_id`` and ``component_type``:
    discord.py's gateway parser needs them)."""
    fake = table.fake
    custom_id = data.draw(custom_ids(table))
    channel, message = data.draw(where(table))
    kind = data.draw(st.sampled_from([2, 3, 5, 6, 7, 8]))
    body: JSON = {"custom_id": custom_id, "component_type": kind}
    if kind != 2 and data.draw(st.booleans()):
        body["values"] = data.draw(st.lists(st.one_of(numbers(table), st.text(max_size=20)), max_size=4))
    return fake._interaction(3, table.mallory, body, channel=channel, message=message)


json_floats = st.floats(allow_nan=False, allow_infinity=False)
"""Numbers with a fraction as JSON has them: no NaN or Infinity, which Discord never sends (RFC 8259;
discord.py parses the gateway with orjson, which refuses them)."""


def option_values(t: Table) -> st.SearchStrategy[Any]:
    """Option values of every JSON type: the right ones and wrong ones."""
    return st.one_of(st.none(), st.booleans(), st.integers(-2 ** 64, 2 ** 64), json_floats,
                     st.text(max_size=40), numbers(t), st.just(t.mallory["id"]), st.just(t.fake.owner["id"]),
                     st.lists(st.integers(), max_size=2), st.just({"id": "1"}))


def command_paths(commands: list[JSON]) -> list[tuple[list[str], list[int], list[JSON]]]:
    """(names, their option types, the leaf's options) of every synced command and subcommand."""
    out: list[tuple[list[str], list[int], list[JSON]]] = []

    def walk(names: list[str], types: list[int], options: list[JSON]) -> None:
        subs = [o for o in options if o["type"] in (1, 2)]
        if not subs:
            out.append((names, types, options))
        for s in subs:
            walk([*names, s["name"]], [*types, s["type"]], s.get("options") or [])

    for c in commands:
        if c.get("type", 1) == 1:
            walk([c["name"]], [], c.get("options") or [])
    return out


MUTATING = {("game", "new"), ("game", "notify"), ("game", "board"), ("game", "watch")}
"""Commands that store or post something for any caller with valid options (a lobby, DM
settings, the board posted again, a spectator's watch): only wrong options are sent to them (an unknown
option is always added)."""


@given(data=st.data())
@FUZZ
async def test_slash_payloads_change_nothing(table: Table, data: st.DataObject) -> None:
    await table.check([slash(table, data) for _ in range(data.draw(st.integers(1, BATCH)))])


def slash(table: Table, data: st.DataObject) -> JSON:
    """A slash command payload of the synced tree with generated options."""
    fake = table.fake
    names, types, schema = data.draw(st.sampled_from(command_paths(fake.commands)))
    options: list[JSON] = []
    for decl in schema:
        if data.draw(st.integers(0, 3)) == 0:
            continue  # missing (required or not)
        right = data.draw(st.booleans())
        otype = decl["type"] if right else data.draw(st.sampled_from([3, 4, 5, 6, 7, 8, 9, 10, 11]))
        value = data.draw(option_values(table))
        if decl.get("choices") and right and data.draw(st.booleans()):
            value = data.draw(st.sampled_from([c["value"] for c in decl["choices"]]))
        options.append({"name": decl["name"], "type": otype, "value": value})
    if tuple(names[:2]) in MUTATING or data.draw(st.integers(0, 4)) == 0:
        options.append({"name": data.draw(st.text(min_size=1, max_size=12)), "type": 3,
                        "value": data.draw(st.text(max_size=10))})
    for name, stype in reversed(list(zip(names[1:], types, strict=True))):
        options = [{"name": name, "type": stype, "options": options}]
    cmd = next(c for c in fake.commands if c["name"] == names[0])
    body: JSON = {"id": cmd["id"], "name": names[0], "type": 1, "options": options}
    if data.draw(st.integers(0, 5)) == 0:
        body["resolved"] = {"users": {u["id"]: u for u in (table.mallory, fake.owner)}}  # (whole, as Discord sends)
    channel, _ = data.draw(where(table))
    return fake._interaction(2, table.mallory, body, channel=channel)


@given(data=st.data())
@FUZZ
async def test_autocomplete_and_modal_payloads_change_nothing(table: Table, data: st.DataObject) -> None:
    await table.check([other(table, data) for _ in range(data.draw(st.integers(1, BATCH)))])


def other(table: Table, data: st.DataObject) -> JSON:
    """An autocomplete payload of a synced command, or a modal submit."""
    fake = table.fake
    channel, _ = data.draw(where(table))
    if data.draw(st.booleans()):
        names, types, schema = data.draw(st.sampled_from(command_paths(fake.commands)))
        options: list[JSON] = [{"name": d["name"], "type": d["type"], "value": data.draw(option_values(table)),
                                **({"focused": True} if i == 0 else {})}
                               for i, d in enumerate(schema) if data.draw(st.booleans())]
        for name, stype in reversed(list(zip(names[1:], types, strict=True))):
            options = [{"name": name, "type": stype, "options": options}]
        cmd = next(c for c in fake.commands if c["name"] == names[0])
        return fake._interaction(4, table.mallory, {"id": cmd["id"], "name": names[0], "type": 1,
                                                     "options": options}, channel=channel)
    rows = [{"type": 1, "components": [{"type": 4, "custom_id": data.draw(custom_ids(table)),
                                        "value": data.draw(st.text(max_size=30))}]}
            for _ in range(data.draw(st.integers(0, 3)))]
    return fake._interaction(5, table.mallory, {"custom_id": data.draw(custom_ids(table)), "components": rows},
                             channel=channel)


RAW_PAYLOADS = int(os.environ.get("FUZZ_RAW_PAYLOADS", "400"))
"""Payloads of ``test_raw_interaction_payloads_never_end_the_process`` (``FUZZ_RAW_PAYLOADS``)."""

SLOW_RAW_PAYLOADS = 10_000
"""Payloads of ``test_ten_thousand_raw_interaction_payloads`` (marked slow: ``make test-slow``,
``make fuzz``)."""

ANSWERED = {2, 3, 4, 5}
"""Interaction types Discord shows the sender an answer to (command, component, autocomplete, modal)."""


def json_values(t: Table) -> st.SearchStrategy[Any]:
    """Any JSON value, weighted towards the shapes a payload field has or nearly has."""
    leaves = st.one_of(st.none(), st.booleans(), st.integers(-2 ** 70, 2 ** 70), json_floats,
                       st.text(max_size=20), numbers(t), custom_ids(t))
    return st.recursive(leaves, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                        st.dictionaries(st.text(max_size=12), inner, max_size=3)),
                        max_leaves=6)


def raw(table: Table, data: st.DataObject) -> JSON:
    """An INTERACTION_CREATE of any type (0–8, or an unknown one) whose ``data`` is a component,
    command or modal body with fields of any JSON type, or any JSON value at all."""
    fake = table.fake
    kind = data.draw(st.one_of(st.integers(0, 8), st.integers(9, 2 ** 31)))
    channel, message = data.draw(where(table))
    payload = fake._interaction(kind, table.mallory, {}, channel=channel, message=message)
    shape = data.draw(st.integers(0, 3))
    if shape == 0:
        body: Any = data.draw(json_values(table))
    else:
        keys = {1: ("custom_id", "component_type", "values"), 2: ("id", "name", "type", "options", "resolved"),
                3: ("custom_id", "components")}[shape]
        body = {k: data.draw(json_values(table)) for k in keys if data.draw(st.integers(0, 4))}
        if shape == 1 and data.draw(st.booleans()):
            body["custom_id"] = data.draw(custom_ids(table))
            body["component_type"] = data.draw(st.sampled_from([2, 3, 5, 6, 7, 8]))
    payload["data"] = body
    return payload


def raw_settings(payloads: int) -> settings:
    """Hypothesis settings for ``payloads`` raw payloads, four per example."""
    return settings(max_examples=max(1, payloads // 4), derandomize=True, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


async def check_raw(table: Table, data: st.DataObject) -> None:
    """Four raw payloads at a time: the bot keeps its connection, changes nothing, logs no error,
    answers only the sender and privately, and answers every payload of a type Discord shows an
    answer to (a component, command, autocomplete or modal submit), once."""
    payloads = [raw(table, data) for _ in range(4)]
    await table.check(payloads)
    assert not table.bot.is_closed()
    for p in payloads:
        answered = table.fake.interactions[p["token"]]["acked_at"] is not None
        assert answered == (p["type"] in ANSWERED), (p["type"], p["data"])


@given(data=st.data())
@raw_settings(RAW_PAYLOADS)
async def test_raw_interaction_payloads_never_end_the_process(table: Table, data: st.DataObject) -> None:
    await check_raw(table, data)


@pytest.mark.slow
@given(data=st.data())
@raw_settings(SLOW_RAW_PAYLOADS)
async def test_ten_thousand_raw_interaction_payloads(table: Table, data: st.DataObject) -> None:
    await check_raw(table, data)
