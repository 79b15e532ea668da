"""E Guan (惡貫) rules engine: the flow of a turn (docs/rules/eguan.md §3–§8).

Villains overlap deed cards on a personal 4 × 4 half-card board, earn Infamy from
visible Evil icons and score title bonuses at the end. Every random thing (deal,
refill, ``draw_kept``, start player, trouble die) is a CHANCE action
(engines/eguan/chance.py); a turn's choices (card → placement, roll → adjust → a skill's
decision) are steps in ``state["pending"]``; the skill effects are the table in
engines/eguan/effects.py.

State (JSON; state_version 2):
    game, state_version, players, options {end_rule}
    phase: "deal" | "skill" | "start" | "play" | "over"
    deck: sorted card ids still in the deck (secret; draws are uniform)
    hands[seat]: card ids (secret); piles[seat]: [{"round", "cards"}] passed to the seat
    kept[seat]: None | {"card", "turn"} (secret card); removed_kept[seat]: ids (secret)
    infamy[seat]; skills[seat]: None | "A".."D" (secret until all chose)
    boards[seat]: stack of [card_id, anchor 1-9, rotation 0|180], lowest first
    removed_cards: [{"seat", "card"}] taken off boards (face up)
    start_player, round (0 before play), turn_index (position in the round)
    pending: None | {"step": "refill" | "main" | "roll" | "adjust" | "draw_kept" | a
        decision of effects.DECISIONS} | {"step": "place", "card", "purpose":
        "main" | "extra" | "move"}
    die: None | {"roll", "value"} (this turn's trouble die)
    trigger: None | {"round", "seat"} (the draw of the last card, spec §8)
The active seat, turn numbers, turns taken, Most Wanted and the scores are derived
(engines/eguan/rules.py).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import cast

from engines.base import (
    CHANCE,
    EngineInfo,
    Event,
    GameEngine,
    GameOver,
    IllegalAction,
    NotYourTurn,
    Outcome,
    Seat,
    check_player_count,
    copy_state,
    msg,
    seat_ref,
    seats_ref,
    term,
    validate_options,
)
from engines.eguan import chance, view
from engines.eguan.data import (
    ANCHORS,
    CARDS,
    DECK_IDS,
    HAND_SIZE,
    OPTIONS,
    ROTATIONS,
    SET_LETTERS,
    START_ANCHOR,
    START_ID,
    START_INFAMY,
    card_ref,
    set_ref,
)
from engines.eguan.effects import (
    DECISIONS,
    Events,
    event,
    most_wanted_changed,
    resolve_face,
    set_kept,
)
from engines.eguan.rules import (
    active,
    best_e_placement,
    board_counts,
    die_of,
    final_scoring,
    kept_of,
    kept_usable,
    most_wanted,
    payment_for,
    pending_of,
    play_choices,
    skill_of,
    stack_index,
)
from engines.eguan.types import Action, Options, State


class EguanEngine(GameEngine[State, Action, view.PublicView | view.PrivateView]):
    """E Guan rules (docs/rules/eguan.md §3–§8). See the module docstring for the state."""

    info = EngineInfo(
        game_id="eguan",
        name="E Guan",
        native_name="惡貫",
        min_players=3,
        max_players=4,
        options=OPTIONS,
        has_hidden_info=True,
        state_version=2,
    )

    # ------------------------------------------------------------------ lifecycle
    def new_game(self, players: int, seed: int, options: Mapping[str, object] | None = None) -> State:
        """Every board holds the starting card at anchor 5, 2 Infamy each, the deal
        pending as chance draws (spec §3).

        Raises:
            InvalidOptions: bad player count or option.
        """
        check_player_count(self.info, players)
        return {
            "game": self.info.game_id,
            "state_version": self.info.state_version,
            "players": players,
            "options": cast(Options, validate_options(self.info, options)),
            "phase": "deal",
            "deck": sorted(DECK_IDS),
            "hands": [[] for _ in range(players)],
            "piles": [[] for _ in range(players)],
            "kept": [None] * players,
            "removed_kept": [[] for _ in range(players)],
            "infamy": [START_INFAMY] * players,
            "skills": [None] * players,
            "boards": [[[START_ID, START_ANCHOR, 0]] for _ in range(players)],
            "removed_cards": [],
            "start_player": None,
            "round": 0,
            "turn_index": 0,
            "pending": None,
            "die": None,
            "trigger": None,
        }

    def to_move(self, state: State) -> frozenset[Seat]:
        """CHANCE for deals, the start pick, draws and rolls; during setup the seats that
        have not chosen a skill set; else the active seat; empty when over."""
        if chance.chance_step(state) is not None:
            return frozenset({CHANCE})
        if state["phase"] == "skill":
            return frozenset(s for s in range(state["players"]) if state["skills"][s] is None)
        seat = active(state)
        return frozenset() if seat is None else frozenset({seat})

    def legal_actions(self, state: State, seat: Seat) -> list[Action]:
        """Every legal action of ``seat`` now, in a fixed order (spec §5)."""
        if seat not in self.to_move(state):
            return []
        if seat == CHANCE:
            return chance.chance_actions(state)
        if state["phase"] == "skill":
            return [{"type": "skill", "set": x} for x in SET_LETTERS]
        step = pending_of(state)["step"]
        if step in DECISIONS:
            return DECISIONS[step].actions(state, seat)
        if step == "main":  # spec §5.1, D6
            hand = state["hands"][seat]
            out: list[Action] = [*play_choices(state, seat), *(Action(type="keep", card=c) for c in hand)]
            return out if hand else [*out, {"type": "pass"}]
        if step == "place":
            return [*(Action(type="place", anchor=a, rot=r) for r in ROTATIONS for a in ANCHORS),
                    {"type": "back"}]
        if step == "adjust":  # spec §5.3 step 2, D8
            roll = die_of(state)["roll"]
            return [{"type": "adjust", "delta": d} for d in (-1, 0, 1) if 1 <= roll + d <= 6]
        raise IllegalAction(f"unknown step {step}")  # pragma: no cover

    def sample_chance(self, state: State, rng: random.Random) -> Action:
        """See engines/eguan/chance.py (spec §6)."""
        return chance.sample_chance(state, rng)

    # ------------------------------------------------------------------ apply
    def apply(self, state: State, seat: Seat, action: Action) -> tuple[State, tuple[Event, ...]]:
        """Validate and apply one action (spec §3–§8). Never mutates ``state``.

        Raises:
            GameOver: the game has ended.
            NotYourTurn: ``seat`` is not to move.
            IllegalAction: the action is not legal now (scripted chance outcomes
                included), with a player-readable reason.
        """
        if state["phase"] == "over":
            raise GameOver("The game is over.")
        if seat not in self.to_move(state):
            raise NotYourTurn("It is not your turn.", seat=seat)
        if seat == CHANCE:
            chance.check_chance(state, action)
        elif not isinstance(action, dict) or action not in self.legal_actions(state, seat):
            raise IllegalAction(self._why_illegal(state, seat, action), action=action)
        st = copy_state(state)
        return st, self.apply_in_place(st, seat, action)

    def apply_in_place(self, st: State, seat: Seat, action: Action) -> tuple[Event, ...]:
        """Apply an action already known to be legal, mutating ``st`` (for fast
        simulations such as bench/eguan_balance.py; the host uses ``apply``)."""
        ev: Events = []
        phase = st["phase"]
        if phase == "deal":
            self._deal(st, action["card"], ev)
        elif phase == "skill":
            self._skill(st, seat, action["set"], ev)
        elif phase == "start":
            st.update({"start_player": action["seat"], "phase": "play", "round": 1, "turn_index": 0})
            ev.append(event("start_player", seat=seat_ref(action["seat"])))
            self._begin_turn(st, ev)
        elif seat == CHANCE:
            self._chance(st, action, ev)
        else:
            self._decide(st, seat, action, ev)
        return tuple(ev)

    # ------------------------------------------------------------------ setup (spec §3)
    def _deal(self, st: State, card: str, ev: Events) -> None:
        seat = next(s for s in range(st["players"]) if len(st["hands"][s]) < HAND_SIZE)
        st["deck"].remove(card)
        st["hands"][seat].append(card)
        ev.append(event("deal_private", private=seat, card=card_ref(card)))
        if all(len(h) == HAND_SIZE for h in st["hands"]):
            st["phase"] = "skill"
            ev.append(event("dealt", n=HAND_SIZE))

    def _skill(self, st: State, seat: Seat, letter: str, ev: Events) -> None:
        st["skills"][seat] = letter
        ev.append(event("skill_chosen", seat=seat_ref(seat)))
        ev.append(event("skill_chosen_private", private=seat, set=set_ref(letter)))
        if all(x is not None for x in st["skills"]):
            st["phase"] = "start"
            ev.append(event("skills_revealed", sets=[msg("name.seat_set", seat=seat_ref(s), set=set_ref(skill_of(st, s)))
                                                     for s in range(st["players"])]))

    # ------------------------------------------------------------------ a turn (spec §4)
    def _begin_turn(self, st: State, ev: Events) -> None:
        """Step 1, refill: the pile passed last round becomes the hand, then draws to 5."""
        me = active(st)
        assert me is not None
        ev.append(event("turn", seat=seat_ref(me), round=st["round"]))
        st["pending"] = {"step": "main"}
        if st["round"] >= 2:
            piles = st["piles"][me]
            for p in piles:
                if p["round"] == st["round"] - 1:
                    st["hands"][me].extend(p["cards"])
            st["piles"][me] = [p for p in piles if p["round"] != st["round"] - 1]
            if st["deck"] and len(st["hands"][me]) < HAND_SIZE:
                st["pending"] = {"step": "refill"}

    def _chance(self, st: State, action: Action, ev: Events) -> None:
        me = active(st)
        assert me is not None
        step = pending_of(st)["step"]
        if step == "roll":
            self._rolled(st, me, action["value"], ev)
            return
        card = action["card"]
        st["deck"].remove(card)
        if step == "refill":
            st["hands"][me].append(card)
            ev.append(event("draw", seat=seat_ref(me)))
            ev.append(event("draw_private", private=me, card=card_ref(card)))
            self._check_trigger(st, me, ev)
            if not st["deck"] or len(st["hands"][me]) >= HAND_SIZE:
                st["pending"] = {"step": "main"}
            return
        set_kept(st, me, card)  # draw_kept (C3, spec §5.4)
        ev.append(event("draw_kept", seat=seat_ref(me)))
        ev.append(event("draw_kept_private", private=me, card=card_ref(card)))
        self._check_trigger(st, me, ev)
        self._end_turn(st, me, ev)

    def _check_trigger(self, st: State, me: Seat, ev: Events) -> None:
        if not st["deck"] and st["trigger"] is None:
            st["trigger"] = {"round": st["round"], "seat": me}
            ev.append(event("end_trigger", seat=seat_ref(me), round=st["round"]))

    def _decide(self, st: State, me: Seat, action: Action, ev: Events) -> None:
        """A decision of the active seat: the main action, a placement, ADJUST, or a
        skill's decision (effects.DECISIONS)."""
        step = pending_of(st)["step"]
        kind = action["type"]
        if step in DECISIONS:
            if DECISIONS[step].apply(st, me, action, ev):
                self._end_turn(st, me, ev)
        elif kind in ("select", "select_kept"):
            card = action["card"] if kind == "select" else kept_of(st, me)["card"]
            st["pending"] = {"step": "place", "card": card, "purpose": "main"}
        elif kind == "keep":
            had = st["kept"][me] is not None
            st["hands"][me].remove(action["card"])
            set_kept(st, me, action["card"])
            ev.append(event("keep_replaced" if had else "keep", seat=seat_ref(me)))
            ev.append(event("keep_private", private=me, card=card_ref(action["card"])))
            self._end_turn(st, me, ev)
        elif kind == "pass":
            ev.append(event("no_action", seat=seat_ref(me)))
            self._end_turn(st, me, ev)
        elif kind == "place":
            self._place(st, me, action["anchor"], action["rot"], ev)
        elif kind == "back":  # spec §5.5: change the card before placing it
            purpose = pending_of(st)["purpose"]
            st["pending"] = {"step": {"main": "main", "extra": "extra_pick", "move": "move_pick"}[purpose]}
        elif kind == "adjust":
            self._adjust(st, me, action["delta"], ev)

    def _place(self, st: State, me: Seat, anchor: int, rot: int, ev: Events) -> None:
        """Pay and place the picked card, or move a topmost one (spec §5.1, B3, B6)."""
        pend = pending_of(st)
        card, purpose = pend["card"], pend["purpose"]
        board = st["boards"][me]
        before = most_wanted(st["boards"])
        where: dict[str, object] = {"anchor": anchor, "rot": term(f"rot.{rot}")}
        if purpose == "move":
            board.pop(stack_index(board, card))
            board.append([card, anchor, rot])
            ev.append(event("move", private=None, seat=seat_ref(me), card=card_ref(card), **where))
        else:
            pay = payment_for(board, card)
            st["infamy"][me] -= pay
            kept = card not in st["hands"][me]
            if kept:
                st["kept"][me] = None
            else:
                st["hands"][me].remove(card)
            board.append([card, anchor, rot])
            paying = msg("part.paying", n=pay) if pay else msg("part.none")
            ev.append(event("play_kept" if kept else "play", private=None, seat=seat_ref(me), card=card_ref(card), **where,
                            payment=pay, paying=paying))
        most_wanted_changed(st, before, ev)
        if purpose == "main" and CARDS[card].trouble_die:
            st["pending"] = {"step": "roll"}
        else:
            self._end_turn(st, me, ev)

    def _rolled(self, st: State, me: Seat, value: int, ev: Events) -> None:
        st["die"] = {"roll": value, "value": value}
        ev.append(event("roll", seat=seat_ref(me), value=value))
        if kept_usable(st, me):
            st["pending"] = {"step": "adjust"}
        elif resolve_face(st, value, ev):
            self._end_turn(st, me, ev)

    def _adjust(self, st: State, me: Seat, delta: int, ev: Events) -> None:
        value = die_of(st)["roll"] + delta
        if delta:  # spends the kept card, removed unseen (D8)
            st["removed_kept"][me].append(kept_of(st, me)["card"])
            st["kept"][me] = None
            die_of(st)["value"] = value
            ev.append(event("adjust", seat=seat_ref(me), delta=delta, value=value))
        if resolve_face(st, value, ev):
            self._end_turn(st, me, ev)

    def _end_turn(self, st: State, me: Seat, ev: Events) -> None:
        """Steps 4–5: income, pass the hand on; then the next turn or the end (spec §8)."""
        n = st["players"]
        income = board_counts(st["boards"][me])["E"]
        st["infamy"][me] += income
        ev.append(event("income", seat=seat_ref(me), amount=income))
        nxt = (me + 1) % n
        passed, st["hands"][me] = st["hands"][me], []
        st["piles"][nxt].append({"round": st["round"], "cards": passed})
        ev.append(event("pass", seat=seat_ref(me), to=seat_ref(nxt), count=len(passed)))
        st["pending"] = st["die"] = None
        trig = st["trigger"]
        if trig is not None and trig["round"] < st["round"]:
            if st["options"]["end_rule"] == "equal_turns":
                done = st["turn_index"] == n - 1
            else:
                done = me == trig["seat"]
            if done:
                self._finish(st, ev)
                return
        st["turn_index"] += 1
        if st["turn_index"] == n:
            st["turn_index"] = 0
            st["round"] += 1
        self._begin_turn(st, ev)

    def _finish(self, st: State, ev: Events) -> None:
        st["phase"] = "over"
        res = final_scoring(st)
        rows = [msg("name.seat_score", seat=seat_ref(s), score=res["scores"][s]) for s in range(st["players"])]
        ev.append(event("final_scores", rows=rows, scores=res["scores"]))
        ev.append(event("game_over_shared" if len(res["winners"]) > 1 else "game_over",
                        winners=seats_ref(res["winners"])))

    # ------------------------------------------------------------------ the end (spec §8)
    def outcome(self, state: State) -> Outcome | None:
        """The final result once the game is over (spec §8); None before."""
        if state["phase"] != "over":
            return None
        res = final_scoring(state)
        winners, best = res["winners"], max(res["scores"])
        if res["scores"].count(best) == 1:
            reason = msg("reason.win", winner=seat_ref(winners[0]), score=best)
        elif len(winners) == 1:
            reason = msg("reason.tie_break", winner=seat_ref(winners[0]), score=best,
                         cards=res["title_cards"][winners[0]])
        else:
            reason = msg("reason.shared", winners=seats_ref(winners), score=best)
        return Outcome(
            scores=tuple(float(x) for x in res["scores"]),
            ranking=tuple(res["ranking"]),
            winners=frozenset(winners),
            reason=reason,
        )

    def scores(self, state: State) -> tuple[float, ...]:
        """Infamy held during play; the final scores (with title bonuses) once over."""
        return tuple(view.public_view(state)["scores"])

    # ------------------------------------------------------------------ views and texts
    def player_view(self, state: State, seat: Seat | None) -> view.PublicView | view.PrivateView:
        """``engines.eguan.view.PublicView`` for seat None (or a non-seat), else the
        seat's ``PrivateView`` (spec §7)."""
        if seat is None or not 0 <= seat < state["players"]:
            return view.public_view(state)
        return view.private_view(state, seat)

    def shuffle_hidden(self, state: State, seat: Seat | None, rng: random.Random) -> State:
        """See ``engines.eguan.view.shuffle_hidden``."""
        return view.shuffle_hidden(state, seat, rng)

    def reveals(self, before: State, seat: Seat, action: Action, after: State) -> bool:
        """A card placed on a board, a waiting pile taken up as a hand, or the skill choices
        shown when the last one is made (§7, ``engines.eguan.view.reveals``)."""
        return view.reveals(before, after)

    def undoable(self, before: State, seat: Seat, action: Action, after: State) -> bool:
        """§5.5: no action is undoable after Confirm."""
        return False

    def timeout_action(self, state: State, seat: Seat) -> Action:
        """The spec §11 timeout play for ``seat``.

        Raises:
            NotYourTurn / GameOver: the seat is not to move.
        """
        self._check_can_act(state, seat)
        if seat == CHANCE:
            return chance.chance_actions(state)[0]
        if state["phase"] == "skill":
            return {"type": "skill", "set": "A"}
        pend = pending_of(state)
        step = pend["step"]
        if step in DECISIONS:
            return DECISIONS[step].timeout(state, seat)
        if step == "main":
            hand = state["hands"][seat]
            free = [c for c in hand if payment_for(state["boards"][seat], c) == 0]
            if free:
                return {"type": "select", "card": free[0]}
            return {"type": "keep", "card": hand[-1]} if hand else {"type": "pass"}
        if step == "place":
            if pend["purpose"] == "move":
                _, anchor, rot = state["boards"][seat][stack_index(state["boards"][seat], pend["card"])]
                assert isinstance(anchor, int) and isinstance(rot, int)
            else:
                anchor, rot = best_e_placement(state["boards"][seat], pend["card"])
            return {"type": "place", "anchor": anchor, "rot": rot}
        return {"type": "adjust", "delta": 0}

    def _why_illegal(self, state: State, seat: Seat, action: object) -> str:
        if not isinstance(action, dict):
            return "That is not a move."
        t = action.get("type")
        step = (state["pending"]["step"] if state["pending"] else None)
        if t == "select" and step in ("main", "extra_pick"):
            card = str(action.get("card"))
            if card not in state["hands"][seat]:
                return "You can only play a card from your hand."
            return f"You cannot pay the {payment_for(state['boards'][seat], card)} Infamy that card needs."
        if t == "select_kept":
            if state["kept"][seat] is None:
                return "You have no kept card."
            if not kept_usable(state, seat):
                return "A kept card can only be used from the turn after you kept it."
            return "You cannot pay for your kept card."
        if t == "adjust":
            if step != "adjust":
                return "You can only adjust your own roll with a kept card from an earlier turn."
            return "The die must stay between 1 and 6."
        reasons = {
            "keep": "You can only keep a card from your hand.",
            "pass": "You must play or keep a card while you hold one.",
            "place": "A card must be placed at an anchor 1–9, upright (0) or upside down (180).",
            "target": "That player cannot be targeted (Most Wanted is immune, or the choice is not legal).",
            "remove": "That player cannot be targeted (Most Wanted is immune, or the choice is not legal).",
        }
        return reasons.get(str(t), f"That move is not legal now: {t}.")
