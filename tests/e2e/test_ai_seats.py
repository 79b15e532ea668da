"""AI seats end to end through the offline Discord: every game from the
lobby's **Add AI** select to its end with one person and AIs; a restart in the middle of an
AI's turn resumes it; autopilot, and a moderator handing a kicked player's seat to an AI; a
moderator giving an AI seat to a person (``/game mod replace seat:``) and a player taking their
seat back from autopilot both cancel the AI's pending search (``AiPlayers.stop``).

The AI thinks in the bot's worker processes; the bots here search a fixed few iterations
(``Settings.ai_iterations``) so a game is quick and the same on every machine. Nothing
waits on the wall clock: ``settled`` waits for the driver's pending AI moves."""

from __future__ import annotations

import asyncio
import concurrent.futures
import random
from pathlib import Path
from typing import Any

import pytest

from bot.app import GameBot
from bot.sandbox.fakecord import EPHEMERAL, iter_components
from tests.e2e.driver import Driver

JSONDict = dict[str, Any]

PEOPLE_AND_AIS = {"carnival": 2, "canterbury": 2, "heaven": 4, "eguan": 3, "illumination": 2, "ora": 2}
"""Seats per game in the lobby-to-end test: one person, the rest AI seats at the easy level."""


async def settled(d: Driver) -> None:
    """Wait until the bot answered everything and every AI move due is made and delivered."""
    for _ in range(100):
        await d.settle()
        if not d.bot.flow.ai.busy():
            return
        await d.bot.flow.ai.settled()
    raise AssertionError("AI moves never settled")


async def open_with_ais(d: Driver, host: JSONDict, game_id: str, ais: int, level: str = "easy") -> int:
    game, lobby = await d.open_lobby(host, game_id)
    for _ in range(ais):
        await d.fake.select(host, d.fake.messages[int(lobby["id"])], f"la:{game}", [level])
        await settled(d)
    return game


async def start(d: Driver, host: JSONDict, game: int) -> None:
    record = await d.record(game)
    assert record.lobby_message_id is not None
    await d.fake.click(host, d.fake.messages[record.lobby_message_id], f"l:{game}:start")
    await settled(d)


async def play_person_to_end(d: Driver, game: int, rng: random.Random, max_steps: int = 3000) -> None:
    for _ in range(max_steps):
        await settled(d)
        record = await d.record(game)
        if record.status != "active":
            return
        assert await d.waiting_users(game), "the game waits for an AI that never moves"
        await d.play_once(game, rng)
    raise AssertionError("game did not end")


@pytest.fixture
async def ai_bot(make_bot) -> GameBot:
    return await make_bot(ai_iterations=3)


@pytest.mark.parametrize("game_id", sorted(PEOPLE_AND_AIS))
async def test_one_person_and_ais_play_every_game_from_lobby_to_end(fake, ai_bot, players, game_id) -> None:
    d = Driver(fake, ai_bot)
    alice = players[0]
    seats = PEOPLE_AND_AIS[game_id]
    game = await open_with_ais(d, alice, game_id, seats - 1)
    record = await d.record(game)
    lobby = fake.messages[record.lobby_message_id or 0]
    names = lobby["embeds"][0]["fields"][0]["value"]
    assert names.count("🤖 Bot · Easy") == seats - 1, names
    await start(d, alice, game)
    await play_person_to_end(d, game, random.Random(f"ai-e2e-{game_id}"))
    record = await d.record(game)
    assert record.status == "finished"
    log = await ai_bot.repo.log(game)
    bots = {s.seat: s.user_id for s in record.seats if s.is_ai}
    assert len(bots) == seats - 1 and all(uid < 0 for uid in bots.values())
    moved = {e.seat for e in log if e.kind == "player" and e.seat in bots and e.user_id == bots[e.seat]}
    assert moved == set(bots)
    assert await ai_bot.service.replay_matches(game)
    await d.final_message(game)  # (exactly one ranking)
    public = "\n".join(m["content"] for m in d.public_messages())
    assert "<@-" not in public  # an AI seat is never mentioned (pinged)
    assert set(fake.dm_channels) <= {alice["id"]}  # nor sent a DM: only the person gets DMs


async def test_start_refuses_a_table_of_ais_only_with_a_sentence(fake, ai_bot, players) -> None:
    d = Driver(fake, ai_bot)
    alice = players[0]
    game = await open_with_ais(d, alice, "illumination", 1)
    record = await d.record(game)
    lobby = fake.messages[record.lobby_message_id or 0]
    await fake.click(alice, fake.messages[int(lobby["id"])], f"l:{game}:leave")
    await settled(d)
    await fake.select(alice, fake.messages[int(lobby["id"])], f"la:{game}", ["hard"])
    await settled(d)
    last = max(fake.messages)
    await fake.click(alice, fake.messages[int(lobby["id"])], f"l:{game}:start")  # alice moderates
    await settled(d)
    told = [m["content"] for mid, m in sorted(fake.messages.items())
            if mid > last and m["flags"] & EPHEMERAL and fake.ephemeral_owner(m) == alice["id"]]
    assert told == ["⚠️ Illumination (闡明) needs at least one person at the table: at most 1 of its 2 seats can be "
                    "AI players."], told
    assert (await d.record(game)).status == "lobby"


async def test_a_restart_in_the_middle_of_an_ais_turn_resumes_it(fake, make_bot, players, tmp_path: Path) -> None:
    db = tmp_path / "restart.db"
    first = await make_bot(db, ai_iterations=3)
    d = Driver(fake, first)
    alice = players[0]
    died = asyncio.Event()

    async def dies(*args: Any, **kwargs: Any) -> dict[str, Any]:  # the bot dies while the worker thinks
        died.set()
        raise asyncio.CancelledError

    game = await open_with_ais(d, alice, "canterbury", 1)
    await start(d, alice, game)
    rng = random.Random(3)
    first.flow.ai._think = dies  # type: ignore[method-assign]
    for _ in range(50):
        await d.settle()
        if died.is_set():
            break
        await d.play_once(game, rng)
    assert died.is_set()
    before = await d.record(game)
    ai_seat = next(s.seat for s in before.seats if s.is_ai)
    assert ai_seat in first.service.waiting(before)
    await fake.stop_bot(first)
    second = await make_bot(db, ai_iterations=3)
    d2 = Driver(fake, second)
    await settled(d2)
    after = await d2.record(game)
    assert after.version > before.version
    log = await second.repo.log(game, after=before.version)
    assert log[0].kind == "player" and log[0].seat == ai_seat
    assert after.status == "finished" or await d2.waiting_users(game)  # the person's turn again


async def test_autopilot_plays_a_players_seat_until_they_take_it_back(fake, ai_bot, players) -> None:
    d = Driver(fake, ai_bot)
    alice, bob = players[:2]
    game = await d.start_game("illumination", [alice, bob])
    mark = max(fake.messages)
    await fake.slash(bob, "game", "autopilot", game=game, on=True, level="easy")
    await settled(d)
    assert d.private_to(bob, mark) == [                         # (a sentence, no `on:False` syntax)
        f"Autopilot is on for your seat in game #{game}: an AI (Easy) plays your moves. "
        "To take the seat back, run `/game autopilot` again and choose False."]
    record = await d.record(game)
    assert (record.seats[1].user_id, record.seats[1].ai_level) == (int(bob["id"]), "easy")
    assert all(u["id"] != bob["id"] for u in await d.waiting_users(game))  # the AI moved for bob
    public = [m["content"] for m in d.public_messages()]
    assert any(c.startswith("🤖 bob is on autopilot") for c in public), public
    await fake.slash(bob, "game", "language", language="ja")
    await settled(d)
    mark = max(fake.messages)
    await fake.slash(bob, "game", "autopilot", game=game, on=False)
    await settled(d)
    assert d.private_to(bob, mark) == [f"ゲーム #{game} のあなたの席のオートパイロットはオフです。また自分で指します。"]
    record = await d.record(game)
    assert record.seats[1].ai_level is None and record.seat_of(int(bob["id"])) == 1
    log = await ai_bot.repo.log(game)
    assert [e.action["level"] for e in log if e.action.get("type") == "ai_seat"] == ["easy", None]
    lines = await d.log_lines(alice, game)                       # (the log says both)
    assert [line for line in lines if "autopilot" in line] == [
        "🤖 bob put seat B on autopilot (Easy).", "🙋 bob took seat B back from autopilot."]


async def test_a_moderator_kicks_a_player_and_hands_the_seat_to_an_ai(fake, ai_bot, players) -> None:
    d = Driver(fake, ai_bot)
    alice, bob, carol = players[:3]
    game = await d.start_game("eguan", [alice, bob, carol])
    await fake.slash(alice, "game", "mod", "kick", game=game, member=carol, ai="normal")
    await settled(d)
    record = await d.record(game)
    seat = record.seats[2]
    assert (seat.user_id < 0, seat.name, seat.ai_level, seat.status) == (True, "Bot · Normal", "normal", "active")
    assert record.seat_of(int(carol["id"])) is None
    public = [m["content"] for m in d.public_messages()]
    assert f"🛡 <@{carol['id']}> was removed from game #{game} by a moderator; Bot · Normal plays their seat " \
        "from now on." in public
    assert 2 not in ai_bot.service.waiting(record)
    # the moderator is told what happened (not "Done."), the log names the seat and both players
    assert d.private_to(alice)[-1] == f"🤖 Seat C of game #{game} (<@{carol['id']}>) is now played by Bot · Normal."
    assert "🛡 A moderator removed carol from seat C; Bot · Normal plays it from now on." in \
        await d.log_lines(alice, game)
    # carol is told she no longer plays in it
    mark = max(fake.messages)
    await fake.slash(carol, "eguan", "play")
    await settled(d)
    assert d.private_to(carol, mark) == [
        f"⚠️ You no longer play in game #{game}: a moderator removed you or gave your seat to someone else."]


class HeldWorkers(concurrent.futures.Executor):
    """A worker pool whose searches never finish by themselves: what the driver asked for
    stays pending, so a test sees it cancelled (``AiPlayers.stop``)."""

    def __init__(self) -> None:
        self.jobs: list[concurrent.futures.Future[Any]] = []

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> concurrent.futures.Future[Any]:
        job: concurrent.futures.Future[Any] = concurrent.futures.Future()
        self.jobs.append(job)
        return job

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        for job in self.jobs:
            job.cancel()


async def held_game_at_bobs_turn(d: Driver, alice: JSONDict, bob: JSONDict, seed: int) -> tuple[int, HeldWorkers]:
    """An Illumination game of alice and bob on a bot whose AI searches are held
    (``HeldWorkers``), played at random until it waits for bob."""
    held = HeldWorkers()
    d.bot.flow.ai._pool = held  # type: ignore[assignment]
    game = await d.start_game("illumination", [alice, bob])
    rng = random.Random(seed)
    for _ in range(200):
        if bob["id"] in [u["id"] for u in await d.waiting_users(game)]:
            return game, held
        await d.play_once(game, rng)
    raise AssertionError("bob never had to move")


async def answered(d: Driver) -> None:
    """Wait until the bot answered the last interaction (not ``settle``: that also waits for
    the AI's search, which a ``HeldWorkers`` pool never finishes)."""
    await d.fake.idle(0.02)


async def test_a_moderator_gives_an_ai_seat_to_a_person_and_the_ais_think_is_cancelled(fake, ai_bot, players) -> None:
    d = Driver(fake, ai_bot)
    alice, bob, carol = players[:3]
    game, held = await held_game_at_bobs_turn(d, alice, bob, 7)
    await fake.slash(alice, "game", "mod", "replace", game=game, player=bob, ai="easy")
    await answered(d)
    assert len(held.jobs) == 1 and not held.jobs[0].done()                # the AI thinks for seat B
    record = await d.record(game)
    assert record.seats[1].is_bot and 1 in ai_bot.service.waiting(record)
    choices = await fake.autocomplete(alice, "game", "mod", "replace", focused="seat", game=str(game), seat="")
    assert [(c["name"], c["value"]) for c in choices] == [("A · alice", "A"), ("B · Bot · Easy · 🤖 AI (Easy)", "B")]
    mark = max(fake.messages)
    await fake.slash(alice, "game", "mod", "replace", game=game, seat="B", member=carol)
    await answered(d)
    assert held.jobs[0].cancelled()                                        # the AI stopped thinking
    await d.settle()
    assert not ai_bot.flow.ai.busy() and len(held.jobs) == 1
    record = await d.record(game)
    seat = record.seats[1]
    assert (seat.user_id, seat.name, seat.ai_level, seat.status) == (int(carol["id"]), "carol", None, "active")
    public = [m["content"] for m in d.public_messages() if int(m["id"]) > mark]
    assert public[0].startswith(f"🛡 Seat B of game #{game} now belongs to <@{carol['id']}> (was Bot · Easy, an AI).")
    assert not any("<@-" in t for t in public)
    (_, entry) = [e for e in await ai_bot.repo.log(game) if e.action.get("type") in ("replace", "ai_seat")]
    assert entry.action["type"] == "replace" and entry.action["old_user"] < 0
    assert entry.action["new_user"] == int(carol["id"])
    assert [u["id"] for u in await d.waiting_users(game)] == [carol["id"]]  # carol's move now, through her panel
    panel = await d.open_panel(carol, game)
    assert d.choices(panel)
    # a seat that does not exist, player with seat, and neither member nor ai are refused with a sentence
    for options in ({"seat": "F", "member": bob}, {"seat": "A", "player": alice, "member": bob}, {"seat": "A"}):
        mark = max(fake.messages)
        await fake.slash(alice, "game", "mod", "replace", game=game, **options)
        await d.settle()
        told = [m["content"] for mid, m in sorted(fake.messages.items())
                if mid > mark and m["flags"] & EPHEMERAL and fake.ephemeral_owner(m) == alice["id"]]
        assert told == [f"⚠️ Game #{game} has no seat 'F'; pick one from the list." if options.get("seat") == "F" else
                        "⚠️ Name the seat to replace with exactly one of player (a person) or seat (any seat, an AI's "
                        "too)." if "player" in options else
                        "⚠️ Give exactly one of member (a person) or ai (a level)."], told


async def test_taking_a_seat_back_from_autopilot_cancels_the_ais_pending_think(fake, ai_bot, players) -> None:
    d = Driver(fake, ai_bot)
    alice, bob = players[:2]
    game, held = await held_game_at_bobs_turn(d, alice, bob, 2)
    await fake.slash(bob, "game", "autopilot", game=game, on=True, level="easy")
    await answered(d)
    (pending,) = held.jobs
    assert not pending.done()
    await fake.slash(bob, "game", "autopilot", game=game, on=False)
    await answered(d)
    assert pending.cancelled()
    await d.settle()
    assert not ai_bot.flow.ai.busy() and len(held.jobs) == 1
    record = await d.record(game)
    assert record.seats[1].ai_level is None and 1 in ai_bot.service.waiting(record)
    assert not [e for e in await ai_bot.repo.log(game, after=record.version - 2) if e.kind == "player"]


async def test_replacing_an_ai_seat_by_another_ai_names_both_ais(fake, ai_bot, players) -> None:
    """``/game mod replace seat: ai:`` on an AI seat: the announcement and the moderator's answer
    name the old AI by its seat name (``bot.service.seat_names``), never a mention of its
    synthetic user id (``<@-1>``)."""
    d = Driver(fake, ai_bot)
    alice = players[0]
    game = await open_with_ais(d, alice, "carnival", 1)
    await start(d, alice, game)
    record = await d.record(game)
    assert record.seats[1].is_bot
    mark = max(fake.messages)
    await fake.slash(alice, "game", "mod", "replace", game=game, seat="B", ai="hard")
    await settled(d)
    public = [m["content"] for m in d.public_messages() if int(m["id"]) > mark]
    assert f"🤖 Seat B of game #{game} (Bot · Easy, an AI) was handed to Bot · Hard by a moderator." in public
    private = d.private_to(alice, mark)
    assert private[0] == f"🤖 Seat B of game #{game} now plays as Bot · Hard (was Bot · Easy)."
    assert not any("<@-" in t for t in public + private)
    assert (await d.record(game)).seats[1].ai_level == "hard"
    assert "🛡 A moderator gave seat B (Bot · Easy) to Bot · Hard." in await d.log_lines(alice, game)


async def test_the_autopilot_announcements_show_a_display_name_as_typed(fake, ai_bot, players) -> None:
    """A name with markdown and mentions is escaped in both autopilot lines (bot/ui/ai.py), as in
    every other line (``escape_name``): no bold, no ping of everyone (``<@&1>`` names no real role)."""
    d = Driver(fake, ai_bot)
    alice = players[0]
    odd = await fake.add_member("**x** @everyone <@&1>")
    game = await d.start_game("illumination", [alice, odd])
    await fake.slash(odd, "game", "autopilot", game=game, on=True, level="easy")
    await settled(d)
    await fake.slash(odd, "game", "autopilot", game=game, on=False)
    await settled(d)
    public = [m["content"] for m in d.public_messages() if "autopilot" in m["content"] or "is back" in m["content"]]
    assert public == [
        "🤖 \\*\\*x\\*\\* @\u200beveryone \\<@&1> is on autopilot: an AI (Easy) plays their moves until they take "
        "the seat back.",
        "🙋 \\*\\*x\\*\\* @\u200beveryone \\<@&1> is back and plays their own moves again."], public


async def test_a_rematch_with_an_ai_seat_mentions_the_people_only(fake, ai_bot, players) -> None:
    """The rematch lobby seats the AI again; its announcement pings the people, never the AI
    seat (whose user id is negative: ``<@-1>`` is no member)."""
    d = Driver(fake, ai_bot)
    alice = players[0]
    game = await open_with_ais(d, alice, "carnival", 1)
    await start(d, alice, game)
    await play_person_to_end(d, game, random.Random("rematch-ai"))
    end = await d.final_message(game)
    rematch = next(c["custom_id"] for c in iter_components(end["components"])
                   if c.get("custom_id", "").endswith(":rematch"))
    mark = max(fake.messages)
    await fake.click(alice, end, rematch)
    await settled(d)
    posted = [m for m in d.public_messages() if int(m["id"]) > mark]
    assert [m["content"] for m in posted] == [
        f"🔁 Rematch of game #{game}: <@{alice['id']}> — you are seated again (seats rotated); the host presses Start."]
    lobby = await d.record(game + 1)
    assert [(s.user_id < 0, s.ai_level, s.name) for s in lobby.seats] == [(True, "easy", "Bot · Easy"), (False, None, "alice")]
    await start(d, alice, lobby.id)  # (the AI plays its seat: the game waits for the person only)
    assert [u["id"] for u in await d.waiting_users(lobby.id)] == [alice["id"]]
    record = await d.record(lobby.id)
    assert {e.seat for e in await ai_bot.repo.log(lobby.id) if e.kind == "player"} == {
        s.seat for s in record.seats if s.is_bot}
