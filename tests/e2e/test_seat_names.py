"""Seat names through a moderator's ``/game mod replace`` end to end (bot/service.py
``names_by_entry``, ``next_ai_name``): a move keeps the name of whoever made it in the
log, the export and the board's recent lines, whether an AI's seat goes to a person, a
person's to another person or a person's to an AI; an AI keeps its number when another
AI leaves; the ``seat:`` choices name two AIs of a level apart; ``/game replay`` names
each step's mover as they were then."""

from __future__ import annotations

import json
import random
import re
from typing import Any

from bot.sandbox.fakecord import EPHEMERAL
from bot.service import seat_names
from tests.e2e.driver import Driver
from tests.e2e.test_ai_seats import open_with_ais, play_person_to_end, settled, start
from tests.e2e.test_table_replay import button, private_messages

JSONDict = dict[str, Any]


async def exported(d: Driver, user: JSONDict, game: int) -> dict[int, list[str]]:
    """The public lines of ``/game export`` by log seq, as ``user`` gets them."""
    mark = max(d.fake.messages)
    await d.fake.slash(user, "game", "export", game=game)
    await d.settle()
    (answer,) = [m for mid, m in sorted(d.fake.messages.items())
                 if mid > mark and m["flags"] & EPHEMERAL and d.fake.ephemeral_owner(m) == user["id"]]
    blob = next(d.fake.blobs[a["id"]] for a in answer["attachments"] if a["filename"].endswith(".json"))
    return {e["seq"]: [ev["line"] for ev in e["events"]] for e in json.loads(blob)["entries"]}


async def play_until_seat_moved(d: Driver, game: int, seat: int, rng: random.Random, since: int = 0) -> None:
    """Play (people at random, AIs by themselves) until ``seat`` made a move with a public
    line after log seq ``since``."""
    for _ in range(200):
        await settled(d)
        if any(e.kind == "player" and e.seat == seat and any(ev.get("visible_to") is None for ev in e.events)
               for e in await d.bot.repo.log(game, after=since)):
            return
        await d.play_once(game, rng)
    raise AssertionError(f"seat {seat} never moved")


def recent_lines(board: JSONDict) -> list[str]:
    return [line[2:] for line in board["embeds"][0]["description"].splitlines() if line.startswith("• ")]


async def test_replaced_seats_keep_their_past_moves_names_and_ais_their_numbers(fake, make_bot, players) -> None:
    d = Driver(fake, await make_bot(ai_iterations=3))
    alice, bob, carol, dave = players[:4]
    rng = random.Random(5)
    game = await open_with_ais(d, alice, "eguan", 2)
    assert seat_names(await d.record(game)) == ["alice", "Bot · Easy", "Bot · Easy 2"]
    await start(d, alice, game)
    choices = await fake.autocomplete(alice, "game", "mod", "replace", focused="seat", game=str(game), seat="")
    assert [c["name"] for c in choices] == [
        "A · alice", "B · Bot · Easy · 🤖 AI (Easy)", "C · Bot · Easy 2 · 🤖 AI (Easy)"]
    steps = [({"seat": "B", "member": bob}, "Bot · Easy", "bob"),      # an AI's seat to a person
             ({"player": bob, "member": carol}, "bob", "carol"),      # a person's to another person
             ({"player": carol, "ai": "hard"}, "carol", "Bot · Hard")]  # a person's to an AI
    since = 0
    for options, old, new in steps:
        await play_until_seat_moved(d, game, 1, rng, since)
        before = await exported(d, dave, game)
        moved = [line for e in await d.bot.repo.log(game, after=since) if e.kind == "player" and e.seat == 1
                 for line in before[e.seq]]
        assert any(line.startswith(old) for line in moved), moved
        await fake.slash(alice, "game", "mod", "replace", game=game, **options)
        await settled(d)
        record = await d.record(game)
        since = record.version
        assert seat_names(record) == ["alice", new, "Bot · Easy 2"]           # (C keeps its number)
        after = await exported(d, dave, game)
        assert {seq: lines for seq, lines in after.items() if seq in before} == before
        assert not any(new in line for lines in before.values() for line in lines)
        board = recent_lines(await d.board(game))
        shown = [line for lines in after.values() for line in lines][-len(board):]
        assert board and board == shown, (board, shown)                    # (the recent lines: the same names)
    await play_person_to_end(d, game, rng)
    record = await d.record(game)
    assert record.status == "finished"
    steps = await d.bot.service.replay_steps(record)
    first = next(i for i, step in enumerate(steps) if step.seat == 1 and step.events)  # (Bot · Easy's first move)
    mark = max(fake.messages)
    await fake.slash(dave, "game", "replay", game=game)
    await settled(d)
    (replay,) = private_messages(d, dave, mark)
    for _ in range(first):
        await fake.click(dave, replay, button(replay, "next")["custom_id"])
        await settled(d)
        replay = fake.messages[int(replay["id"])]
    shown = replay["embeds"][0]["description"]
    assert f"Step {first} of " in shown and re.search(r"Bot · Easy(?! 2)", shown), shown
    assert not any(name in shown for name in ("Bot · Hard", "bob", "carol")), shown
