"""The Way to Heaven (天路) rules engine (spec docs/rules/heaven.md).

State layout (plain JSON dict):
    game, state_version, players, options
    phase: ``deal`` | ``split`` | ``start`` | ``play`` | ``over``
    deck: draw-pile card ids (secret, kept sorted: every draw is a uniform chance pick)
    discard: discard pile, oldest first (public)
    hands / public: per seat, card ids; positions (0..6), skips (pending Pride skips)
    split: per seat, the 3 chosen public ids (secret until all confirmed) or None
    start, round, turn_index, active
    stage: None | action | build | react | advance | sac_discard | grace_keep | refill_assign | draw_offer
    chance: None | {kind: draw, seat, left, purpose} | {kind: start} | {kind: destroy, seat}
    build: None | {card, chosen}   (the active player's USE being declared)
    use: None | the declared USE waiting for reaction windows
    buffer: cards drawn by Grace / a refill, not yet placed (secret, owner = active)
    refill_a: public slots to fill from ``buffer``
    turn: {modifier, law, borrowed, sacrifice}
    winners, end_reason

Actions: see ``describe_action``. Chance actions: ``{"type": "draw", "card": id}``,
``{"type": "start", "seat": s}``, ``{"type": "destroy", "card": id}``.
"""

from __future__ import annotations

import copy
import itertools
import random
from collections.abc import Mapping, Sequence
from typing import Any

from engines.base import (
    CHANCE,
    Action,
    Engine,
    EngineInfo,
    Event,
    GameOver,
    IllegalAction,
    InvalidOptions,
    NotYourTurn,
    OptionSpec,
    Outcome,
    Seat,
    State,
    rank_seats,
    validate_options,
)

from .data import (
    ATTACK_KINDS,
    CARD_IDS,
    CARDS,
    GATE,
    KIND_NAME,
    KIND_TEXT,
    TRACK,
)
from .rules_core import (
    Plan,
    can_enter_next,
    card_plans,
    combos_met,
    counts,
    effective_sum,
    faction,
    factions,
    gate_ok,
    locked,
    majority,
    owner_of_public,
    public_sum,
)

LETTERS = "ABCDEF"
HAND_SIZE = 3
PUBLIC_SIZE = 3
DEAL = 6
GRACE_DRAW = 4
HINT = " — "
"""Separates a label's name from its hint (the host shows hinted lists as a select menu)."""


def _card_json(cid: str) -> dict[str, Any]:
    c = CARDS[cid]
    return {
        "id": c.id,
        "kind": c.kind,
        "name": c.name_en,
        "name_zh": c.name_zh,
        "side": c.side,
        "colour": c.colour,
        "number": c.number,
        "label": c.short,
        "usable_by": c.usable_by,
        "ability": KIND_TEXT[c.kind],
    }


def _short(cid: str) -> str:
    return CARDS[cid].short


def _p(seat: int) -> str:
    return "{p" + str(seat) + "}"


def _new_turn() -> dict[str, Any]:
    return {"modifier": None, "law": None, "borrowed": 0, "sacrifice": False}


class HeavenEngine(Engine):
    """The Way to Heaven (spec heaven). 4–6 players (3 with ``allow_three``)."""

    info = EngineInfo(
        game_id="heaven",
        name="The Way to Heaven",
        native_name="天路",
        min_players=4,
        max_players=6,
        options=(
            OptionSpec("board_side", "easy", choices=("easy", "advanced"),
                       description="Board side: easy (sum or combination) or advanced (saints sum, sinners combination)."),
            OptionSpec("gate_same_colour", True, kind="bool",
                       description="The Gate needs three 1s of one colour (true) or of any colours (false)."),
            OptionSpec("c3_rule", "not_all_same", choices=("not_all_same", "all_different"),
                       description="Combination C3: three 3s not all one colour, or one of each colour."),
            OptionSpec("x3_mode", "per_card", choices=("per_card", "sum_only"),
                       description="Sacrifice/Greed ×3: every public number, or only the sum."),
            OptionSpec("borrow_scope", "all", choices=("all", "one"),
                       description="Mercy/Shepherd add the numbers of all such players, or of one chosen player."),
            OptionSpec("guardian_scope", "sinner_card", choices=("sinner_card", "sinner_attacker"),
                       description="Guardian answers every attack, or only attacks by a sinner-faction player."),
            OptionSpec("grace_cap", "3", choices=("3", "none"),
                       description="Grace keeps cards up to a hand of 3, or any number."),
            OptionSpec("allow_three", False, kind="bool",
                       description="Allow an unofficial 3-player game."),
            OptionSpec("round_limit", 40, kind="int", minimum=10, maximum=99,
                       description="The game ends after this round even if nobody reached the Gate."),
            OptionSpec("turn_timeout", 0, kind="int", minimum=0, maximum=168,
                       description="Hours for every decision except a Guardian reaction; "
                                   "0 = the lobby's move timer."),
            OptionSpec("reaction_timeout", 0, kind="int", minimum=0, maximum=168,
                       description="Hours for a Guardian reaction; 0 = the lobby's move timer."),
        ),
        has_hidden_info=True,
        state_version=1,
        preferences=(
            OptionSpec("auto_advance", True, kind="bool",
                       description="Advance at once whenever you may enter the next space (spec D29); off = "
                                   "you are asked Advance/Stay."),
            OptionSpec("auto_draw", True, kind="bool",
                       description="Draw at once whenever your hand has fewer than 3 cards (spec D30); off = "
                                   "you are asked Draw/No draw."),
            OptionSpec("guardian_pref", "ask", choices=("ask", "auto_guard", "never"),
                       description="When attacked (spec D20): ask = a window opens; auto_guard = play your "
                                   "lowest Guardian at once (allow at once without one); never = allow at once."),
        ),
    )

    # ------------------------------------------------------------------ lifecycle
    def new_game(self, players: int, seed: int, options: Mapping[str, Any] | None = None) -> State:
        """Initial state: all 54 cards in the draw pile, dealing pending (spec §3).

        Raises:
            InvalidOptions: bad option or player count (3 only with ``allow_three``).
        """
        opts = validate_options(self.info, options)
        low = 3 if opts["allow_three"] else self.info.min_players
        if not isinstance(players, int) or not low <= players <= self.info.max_players:
            raise InvalidOptions(
                f"The Way to Heaven needs {low}–{self.info.max_players} players, not {players}.",
                key="players",
                value=players,
            )
        st: State = {
            "game": self.info.game_id,
            "state_version": self.info.state_version,
            "players": players,
            "options": opts,
            "phase": "deal",
            "deck": sorted(CARD_IDS),
            "discard": [],
            "hands": [[] for _ in range(players)],
            "public": [[] for _ in range(players)],
            "positions": [0] * players,
            "skips": [0] * players,
            "split": [None] * players,
            "start": None,
            "round": 0,
            "turn_index": 0,
            "active": None,
            "stage": None,
            "chance": {"kind": "draw", "seat": 0, "left": DEAL * players, "purpose": "deal"},
            "build": None,
            "use": None,
            "buffer": [],
            "refill_a": 0,
            "turn": _new_turn(),
            "winners": [],
            "end_reason": "",
        }
        return st

    def to_move(self, state: State) -> frozenset[Seat]:
        """Seats to act (spec §4): all unsplit seats during setup; the reacting seat in a
        Guardian window; ``{CHANCE}`` for draws/start/Destruction; empty at the end."""
        if state["phase"] == "over":
            return frozenset()
        if state["chance"] is not None:
            return frozenset({CHANCE})
        if state["phase"] == "split":
            return frozenset(s for s in range(state["players"]) if state["split"][s] is None)
        if state["stage"] == "react":
            return frozenset({state["use"]["windows"][0][1]})
        return frozenset({state["active"]})

    # ------------------------------------------------------------------ legal actions
    def legal_actions(self, state: State, seat: Seat) -> Sequence[Action]:
        """Complete, deterministically ordered list of ``seat``'s legal actions."""
        if seat not in self.to_move(state):
            return []
        if seat == CHANCE:
            return self._chance_actions(state)
        if state["phase"] == "split":
            hand = state["hands"][seat]
            return [{"type": "split", "public": list(c)} for c in itertools.combinations(hand, PUBLIC_SIZE)]
        stage = state["stage"]
        if stage == "action":
            return self._turn_actions(state, seat)
        if stage == "build":
            return self._build_actions(state, seat)
        if stage == "react":
            acts: list[Action] = [
                {"type": "guard", "card": c} for c in sorted(state["hands"][seat]) if CARDS[c].kind == "guardian"
            ]
            return [*acts, {"type": "allow"}]
        if stage == "advance":
            return [{"type": "advance"}, {"type": "stay"}]
        if stage == "sac_discard":
            return [{"type": "lose", "card": c} for c in state["public"][seat]]
        if stage == "grace_keep":
            return [{"type": "keep", "cards": k} for k in self._grace_subsets(state)]
        if stage == "refill_assign":
            buf = state["buffer"]
            return [{"type": "assign", "public": list(c)}
                    for c in itertools.combinations(buf, state["refill_a"])]
        if stage == "draw_offer":
            return [{"type": "draw"}, {"type": "no_draw"}]
        return []

    def _chance_actions(self, state: State) -> list[Action]:
        ch = state["chance"]
        if ch["kind"] == "draw":
            return [{"type": "draw", "card": c} for c in state["deck"]]
        if ch["kind"] == "start":
            return [{"type": "start", "seat": s} for s in range(state["players"])]
        return [{"type": "destroy", "card": c} for c in sorted(state["hands"][ch["seat"]])]

    def _turn_actions(self, state: State, seat: int) -> list[Action]:
        hand: list[str] = state["hands"][seat]
        pub: list[str] = state["public"][seat]
        acts: list[Action] = [{"type": "pass"}]
        if len(pub) < PUBLIC_SIZE:
            acts += [{"type": "add", "card": h} for h in hand]
        if len(pub) >= PUBLIC_SIZE:
            acts += [{"type": "replace", "card": h, "out": p} for h in hand for p in pub]
        acts += [{"type": "use", "card": h} for h in hand if card_plans(state, seat, h)]
        acts += [{"type": "discard", "card": h} for h in hand]
        return acts

    def _build_prefix_plans(self, state: State) -> list[Plan]:
        b = state["build"]
        chosen = b["chosen"]
        return [p for p in card_plans(state, state["active"], b["card"]) if p[: len(chosen)] == chosen]

    def _build_actions(self, state: State, seat: int) -> list[Action]:
        chosen = state["build"]["chosen"]
        seen: list[Any] = []
        acts: list[Action] = []
        for p in self._build_prefix_plans(state):
            key, value = p[len(chosen)]
            if [key, value] in seen:
                continue
            seen.append([key, value])
            acts.append({"type": "pick", "key": key, "value": value})
        return [*acts, {"type": "cancel"}, {"type": "pass"}]

    def _grace_room(self, state: State) -> int:
        buf = state["buffer"]
        if state["options"]["grace_cap"] == "none":
            return len(buf)
        return max(0, min(len(buf), HAND_SIZE - len(state["hands"][state["active"]])))

    def _grace_subsets(self, state: State) -> list[list[str]]:
        buf = state["buffer"]
        room = self._grace_room(state)
        out: list[list[str]] = []
        for size in range(room, -1, -1):
            out += [list(c) for c in itertools.combinations(buf, size)]
        return out

    # ------------------------------------------------------------------ chance
    def sample_chance(self, state: State, rng: random.Random) -> Action:
        """Uniform pick among the pending chance outcomes (spec §6).

        Raises:
            NotYourTurn: chance is not to move.
        """
        if CHANCE not in self.to_move(state):
            raise NotYourTurn("No chance event is pending.")
        return copy.deepcopy(rng.choice(self._chance_actions(state)))

    # ------------------------------------------------------------------ apply
    def apply(self, state: State, seat: Seat, action: Action) -> tuple[State, tuple[Event, ...]]:
        """Validate and apply one action (spec §3–§8).

        Raises:
            GameOver: the game has ended.
            NotYourTurn: ``seat`` is not to move.
            IllegalAction: malformed or illegal action (also for impossible chance outcomes).
        """
        if state.get("phase") == "over":
            raise GameOver("The game is over.")
        if seat not in self.to_move(state):
            raise NotYourTurn("It is not your turn.", seat=seat)
        if not isinstance(action, dict) or action not in self.legal_actions(state, seat):
            raise IllegalAction(self._illegal_message(state, seat, action), action=action)
        st = copy.deepcopy(state)
        ev: list[Event] = []
        if seat == CHANCE:
            self._apply_chance(st, action, ev)
        elif st["phase"] == "split":
            self._apply_split(st, seat, action, ev)
        else:
            self._apply_turn(st, seat, action, ev)
        return st, tuple(ev)

    def _illegal_message(self, state: State, seat: int, action: Any) -> str:
        if seat == CHANCE:
            return "That chance outcome is impossible now."
        t = action.get("type") if isinstance(action, dict) else None
        stage = state.get("stage")
        if state["phase"] == "split":
            return "Choose exactly 3 of your 6 cards to make public."
        if t == "add":
            return "You can only ADD a card from your hand while your public set has fewer than 3 cards."
        if t == "replace":
            return "You can only REPLACE a public card with a hand card when your public set has 3 cards."
        if t == "use":
            return "You cannot use that card now (wrong faction, lock, unmet condition or no legal target)."
        if t == "guard":
            return "You can only guard with a Guardian card in your hand."
        if stage == "react":
            return "Answer the attack: GUARD with a Guardian in hand, or ALLOW."
        if stage == "advance":
            return "Choose ADVANCE or STAY."
        if stage == "draw_offer":
            return "Choose DRAW or NO DRAW."
        return "That move is not legal now."

    # -- chance --------------------------------------------------------------
    def _apply_chance(self, st: State, action: Action, ev: list[Event]) -> None:
        ch = st["chance"]
        if action["type"] == "start":
            s = action["seat"]
            st["chance"] = None
            st["start"] = s
            st["phase"] = "play"
            st["round"] = 1
            st["turn_index"] = 0
            ev.append(Event("start", f"Chance picks {_p(s)} as start player.", {"seat": s}))
            self._start_turn(st, ev)
            return
        if action["type"] == "destroy":
            t = ch["seat"]
            cid = action["card"]
            st["hands"][t].remove(cid)
            st["discard"].append(cid)
            st["chance"] = None
            ev.append(Event("destroy", f"Destruction: {_p(t)} loses {_short(cid)} from hand.",
                            {"seat": t, "card": cid}))
            self._after_action(st, ev)
            return
        # a draw
        cid = action["card"]
        st["deck"].remove(cid)
        purpose = ch["purpose"]
        if purpose == "deal":
            dealt = DEAL * st["players"] - ch["left"]
            target = dealt % st["players"]
        else:
            target = ch["seat"]
        if purpose in ("grace", "refill"):
            st["buffer"].append(cid)
        else:
            st["hands"][target].append(cid)
        ev.append(Event("draw_private", f"You draw {_short(cid)}.", {"seat": target, "card": cid},
                        frozenset({target})))
        if purpose != "deal":
            ev.append(Event("draw", f"{_p(target)} draws a card.", {"seat": target}))
        ch["left"] -= 1
        self._continue_draw(st, ev)

    def _request_draw(self, st: State, seat: int, n: int, purpose: str, ev: list[Event]) -> None:
        st["chance"] = {"kind": "draw", "seat": seat, "left": n, "purpose": purpose}
        self._continue_draw(st, ev)

    def _continue_draw(self, st: State, ev: list[Event]) -> None:
        """Refill the draw pile from the discard pile when needed (spec §6, D31); finish the
        request when done or when both piles are empty."""
        ch = st["chance"]
        if ch["left"] > 0 and not st["deck"] and st["discard"]:
            st["deck"] = sorted(st["discard"])
            st["discard"] = []
            ev.append(Event("reshuffle", f"The discard pile ({len(st['deck'])} cards) becomes the draw pile.",
                            {"count": len(st["deck"])}))
        if ch["left"] > 0 and st["deck"]:
            return
        st["chance"] = None
        purpose = ch["purpose"]
        seat = ch["seat"]
        if purpose == "deal":
            st["phase"] = "split"
            ev.append(Event("dealt", "Six cards dealt to each player; choose your public sets.", {}))
        elif purpose == "turn":
            self._end_turn(st, ev)
        elif purpose == "guard_owner":
            st["use"] = None
            self._after_action(st, ev)
        elif purpose == "guard_target":
            self._run_use(st, ev)
        elif purpose == "grace":
            self._grace_after_draw(st, ev)
        elif purpose == "refill":
            self._refill_after_draw(st, seat, ev)

    # -- setup split -----------------------------------------------------------
    def _apply_split(self, st: State, seat: int, action: Action, ev: list[Event]) -> None:
        st["split"][seat] = list(action["public"])
        ev.append(Event("split", f"{_p(seat)} has chosen a public set.", {"seat": seat}))
        ev.append(Event("split_private", "Your public set: " + ", ".join(_short(c) for c in action["public"]),
                        {"seat": seat, "public": list(action["public"])}, frozenset({seat})))
        if all(s is not None for s in st["split"]):
            for s in range(st["players"]):
                chosen = st["split"][s]
                st["public"][s] = [c for c in st["hands"][s] if c in chosen]
                st["hands"][s] = [c for c in st["hands"][s] if c not in chosen]
                ev.append(Event("reveal", f"{_p(s)} reveals " + ", ".join(_short(c) for c in st["public"][s])
                                + f" ({faction(st['public'][s])}).",
                                {"seat": s, "public": list(st["public"][s])}))
            st["split"] = [None] * st["players"]
            st["phase"] = "start"
            st["chance"] = {"kind": "start"}

    # -- turn flow ---------------------------------------------------------------
    def _order_seat(self, st: State) -> int:
        return int((st["start"] + st["turn_index"]) % st["players"])

    def _start_turn(self, st: State, ev: list[Event]) -> None:
        """Step 0 (spec §4): skip check, else wait for the action."""
        while True:
            seat = self._order_seat(st)
            st["active"] = seat
            st["turn"] = _new_turn()
            st["build"] = None
            st["use"] = None
            if st["positions"][seat] == GATE:
                if self._advance_order(st, ev):
                    return
                continue
            if st["skips"][seat] > 0:
                st["skips"][seat] -= 1
                ev.append(Event("skip", f"{_p(seat)} skips this turn (Pride).", {"seat": seat}))
                if self._advance_order(st, ev):
                    return
                continue
            st["stage"] = "action"
            return

    def _advance_order(self, st: State, ev: list[Event]) -> bool:
        """Move to the next seat; return True when the game ended (spec §8)."""
        st["turn_index"] += 1
        if st["turn_index"] >= st["players"]:
            on_gate = [s for s in range(st["players"]) if st["positions"][s] == GATE]
            if on_gate:
                self._finish(st, on_gate, "reached the Gate of Heaven", ev)
                return True
            if st["round"] >= st["options"]["round_limit"]:
                best = max(st["positions"])
                winners = [s for s in range(st["players"]) if st["positions"][s] == best]
                self._finish(st, winners, f"stand furthest along (space {best}) after the round limit", ev)
                return True
            st["round"] += 1
            st["turn_index"] = 0
            ev.append(Event("round", f"Round {st['round']} begins.", {"round": st["round"]}))
        return False

    def _finish(self, st: State, winners: list[int], why: str, ev: list[Event]) -> None:
        st["phase"] = "over"
        st["stage"] = None
        st["active"] = None
        st["chance"] = None
        st["winners"] = winners
        names = ", ".join(_p(s) for s in winners)
        verb = "wins" if len(winners) == 1 else "share the win"
        st["end_reason"] = f"{names} {verb}: {why}."
        ev.append(Event("game_over", st["end_reason"], {"winners": winners}))

    def _end_turn(self, st: State, ev: list[Event]) -> None:
        st["stage"] = None
        st["turn"] = _new_turn()
        if not self._advance_order(st, ev):
            self._start_turn(st, ev)

    def _after_action(self, st: State, ev: list[Event]) -> None:
        """Step 2: advancement (spec §5.6); Gate entry is automatic."""
        a = st["active"]
        st["use"] = None
        pos = st["positions"][a]
        if pos == 5 and gate_ok(st, a):
            st["positions"][a] = GATE
            ev.append(Event("gate", f"{_p(a)} enters the Gate of Heaven!", {"seat": a}))
            self._after_advance(st, ev)
        elif pos < 5 and can_enter_next(st, a):
            st["stage"] = "advance"
        else:
            self._after_advance(st, ev)

    def _after_advance(self, st: State, ev: list[Event]) -> None:
        """Step 2b (Sacrifice discard), then step 3 (draw offer) (spec §5.6)."""
        a = st["active"]
        if st["turn"]["sacrifice"] and st["public"][a]:
            st["turn"]["sacrifice"] = False
            st["stage"] = "sac_discard"
            return
        self._draw_step(st, ev)

    def _draw_step(self, st: State, ev: list[Event]) -> None:
        a = st["active"]
        if st["positions"][a] != GATE and len(st["hands"][a]) < HAND_SIZE and (st["deck"] or st["discard"]):
            st["stage"] = "draw_offer"
        else:
            self._end_turn(st, ev)

    # -- player actions in play -------------------------------------------------
    def _apply_turn(self, st: State, seat: int, action: Action, ev: list[Event]) -> None:
        t = action["type"]
        a = st["active"]
        if t == "pass":
            st["build"] = None
            ev.append(Event("pass", f"{_p(a)} passes.", {"seat": a}))
            self._after_action(st, ev)
        elif t == "add":
            h = action["card"]
            st["hands"][a].remove(h)
            st["public"][a].append(h)
            ev.append(Event("add", f"{_p(a)} adds {_short(h)} to the public set.", {"seat": a, "card": h}))
            self._after_action(st, ev)
        elif t == "replace":
            h, p = action["card"], action["out"]
            st["hands"][a].remove(h)
            idx = st["public"][a].index(p)
            st["public"][a][idx] = h
            st["discard"].append(p)
            ev.append(Event("replace", f"{_p(a)} replaces {_short(p)} with {_short(h)}.",
                            {"seat": a, "card": h, "out": p}))
            self._after_action(st, ev)
        elif t == "discard":
            h = action["card"]
            st["hands"][a].remove(h)
            st["discard"].append(h)
            ev.append(Event("discard", f"{_p(a)} discards {_short(h)}.", {"seat": a, "card": h}))
            self._after_action(st, ev)
        elif t == "use":
            st["build"] = {"card": action["card"], "chosen": []}
            st["stage"] = "build"
            self._maybe_declare(st, ev)
        elif t == "pick":
            st["build"]["chosen"].append([action["key"], action["value"]])
            self._maybe_declare(st, ev)
        elif t == "cancel":
            st["build"] = None
            st["stage"] = "action"
        elif t in ("guard", "allow"):
            self._apply_reaction(st, seat, action, ev)
        elif t == "advance":
            st["positions"][a] += 1
            ev.append(Event("advance", f"{_p(a)} advances to space {st['positions'][a]}.",
                            {"seat": a, "to": st["positions"][a]}))
            self._after_advance(st, ev)
        elif t == "stay":
            ev.append(Event("stay", f"{_p(a)} stays on space {st['positions'][a]}.", {"seat": a}))
            self._after_advance(st, ev)
        elif t == "lose":
            c = action["card"]
            st["public"][a].remove(c)
            st["discard"].append(c)
            ev.append(Event("sacrifice_discard", f"{_p(a)} discards public {_short(c)} (Sacrifice).",
                            {"seat": a, "card": c}))
            self._draw_step(st, ev)
        elif t == "keep":
            keep = action["cards"]
            rest = [c for c in st["buffer"] if c not in keep]
            st["hands"][a].extend(keep)
            st["discard"].extend(rest)
            st["buffer"] = []
            ev.append(Event("grace_keep", f"{_p(a)} keeps {len(keep)} card(s) and discards "
                            + (", ".join(_short(c) for c in rest) or "nothing") + ".",
                            {"seat": a, "kept": len(keep), "discarded": rest}))
            self._after_action(st, ev)
        elif t == "assign":
            self._place_refill(st, a, list(action["public"]), ev)
        elif t == "draw":
            st["stage"] = "drawing"
            self._request_draw(st, a, 1, "turn", ev)
        elif t == "no_draw":
            ev.append(Event("no_draw", f"{_p(a)} does not draw.", {"seat": a}))
            self._end_turn(st, ev)

    def _maybe_declare(self, st: State, ev: list[Event]) -> None:
        plans = self._build_prefix_plans(st)
        chosen = st["build"]["chosen"]
        if any(len(p) == len(chosen) for p in plans):
            self._declare(st, st["build"]["card"], chosen, ev)

    # -- USE: declaration, windows, resolution ------------------------------------
    def _declare(self, st: State, h: str, plan: Plan, ev: list[Event]) -> None:
        """Declare a USE (spec §5.4, §5.5, D21): the card is spent, windows are queued."""
        a = st["active"]
        attacker_ok = st["options"]["guardian_scope"] == "sinner_card" or faction(st["public"][a]) == "sinner"
        st["build"] = None
        st["stage"] = "resolving"
        st["hands"][a].remove(h)
        st["discard"].append(h)
        kind = CARDS[h].kind
        kinds = [kind]
        taken: str | None = None
        owner: int | None = None
        i = 0
        while kind in ("holiness", "ignorance", "arrogance"):
            key, value = plan[i]
            i += 1
            if key == "take":
                taken = value
                owner = owner_of_public(st, value)
                kind = CARDS[value].kind
            else:
                kind = value
            kinds.append(kind)
        params = {k: v for k, v in plan[i:]}
        target = params.get("target") if kind in ATTACK_KINDS else None
        windows: list[list[Any]] = []
        if attacker_ok and owner is not None and owner != a:
            windows.append(["owner", owner])
        if attacker_ok and target is not None and target != a and target != owner:
            windows.append(["target", target])
        text = self._plan_text(st, h, plan)
        st["use"] = {
            "seat": a,
            "card": h,
            "kinds": kinds,
            "final": kind,
            "params": params,
            "taken": taken,
            "owner": owner,
            "windows": windows,
            "removed": False,
            "target_cancelled": False,
            "text": text,
            "plan": copy.deepcopy(plan),
        }
        ev.append(Event("use", f"{_p(a)} uses {text}.", {"seat": a, "card": h, "plan": plan}))
        self._run_use(st, ev)

    def _plan_text(self, st: State, h: str, plan: Plan, placeholder: bool = True) -> str:
        parts = [_short(h)]
        for key, value in plan:
            parts.append(self._pick_text(key, value, placeholder=placeholder))
        return ": ".join([parts[0], ", ".join(parts[1:])]) if len(parts) > 1 else parts[0]

    def _pick_text(self, key: str, value: Any, *, placeholder: bool = False) -> str:
        def who(s: int) -> str:
            return _p(s) if placeholder else LETTERS[s]

        if key == "copy":
            return f"copy {KIND_NAME[value]}"
        if key == "take":
            return f"take {_short(value)}"
        if key == "borrow":
            return f"borrow from {who(value)}"
        if key == "number":
            return f"number {value}"
        if key == "target":
            return f"target {who(value)}"
        if key == "card":
            return f"remove {_short(value)}"
        if key == "k":
            return f"swap {value}"
        if key == "mine":
            return "give " + " + ".join(_short(c) for c in value)
        if key == "theirs":
            return "get " + " + ".join(_short(c) for c in value)
        return f"{key} {value}"

    def _run_use(self, st: State, ev: list[Event]) -> None:
        use = st["use"]
        windows = use["windows"]
        if windows and windows[0][0] == "owner":
            st["stage"] = "react"
            return
        if use["taken"] is not None and not use["removed"]:
            c = use["taken"]
            o = owner_of_public(st, c)
            if o is not None:
                st["public"][o].remove(c)
            st["discard"].append(c)
            use["removed"] = True
            ev.append(Event("taken", f"Arrogance: {_short(c)} is taken and discarded.", {"card": c}))
        if windows:
            st["stage"] = "react"
            return
        if use["target_cancelled"]:
            self._after_action(st, ev)
            return
        self._resolve(st, ev)

    def _apply_reaction(self, st: State, seat: int, action: Action, ev: list[Event]) -> None:
        use = st["use"]
        role, _ = use["windows"].pop(0)
        st["stage"] = "resolving"
        if action["type"] == "allow":
            ev.append(Event("allow", f"{_p(seat)} allows it.", {"seat": seat}))
            self._run_use(st, ev)
            return
        g = action["card"]
        st["hands"][seat].remove(g)
        st["discard"].append(g)
        ev.append(Event("guard", f"{_p(seat)} guards with {_short(g)}!", {"seat": seat, "card": g}))
        if role == "owner":
            use["windows"] = []
            self._request_draw(st, seat, 1, "guard_owner", ev)
        else:
            use["target_cancelled"] = True
            self._request_draw(st, seat, 1, "guard_target", ev)

    def _resolve(self, st: State, ev: list[Event]) -> None:
        """Resolve the final ability of a USE for the active player (spec §5.4)."""
        use = st["use"]
        a = st["active"]
        kind = use["final"]
        prm = use["params"]
        turn = st["turn"]
        facs = factions(st)
        if kind in ("mercy", "shepherd"):
            if "borrow" in prm:
                seats = [prm["borrow"]]
            elif kind == "mercy":
                seats = [s for s in range(st["players"]) if facs[s] == "sinner"]
            else:
                seats = [s for s in range(st["players"]) if s != a and facs[s] == "saint"]
            amount = sum(public_sum(st["public"][s]) for s in seats)
            turn["borrowed"] += amount
            ev.append(Event("borrow", f"{_p(a)} borrows {amount} this turn.", {"seat": a, "amount": amount}))
        elif kind == "miracle":
            turn["modifier"] = "miracle"
        elif kind == "law":
            turn["modifier"] = "law"
            turn["law"] = prm["number"]
        elif kind in ("sacrifice", "greed"):
            turn["modifier"] = "x3"
            turn["sacrifice"] = kind == "sacrifice"
        elif kind == "pride":
            t = prm["target"]
            st["skips"][t] += 1
            ev.append(Event("pride", f"{_p(t)} will skip a turn.", {"seat": t}))
        elif kind == "cruelty":
            t = prm["target"]
            st["positions"][t] = max(0, st["positions"][t] - 1)
            ev.append(Event("cruelty", f"{_p(t)} is pushed back to space {st['positions'][t]}.", {"seat": t}))
        elif kind == "hypocrisy":
            t = prm["target"]
            mine, theirs = prm["mine"], prm["theirs"]
            pa, pt = st["public"][a], st["public"][t]
            for m, th in zip(mine, theirs, strict=True):
                pa[pa.index(m)] = th
                pt[pt.index(th)] = m
            ev.append(Event("swap", f"{_p(a)} and {_p(t)} swap public cards.", {"seat": a, "target": t}))
        elif kind == "destruction":
            t = prm["target"]
            c = prm.get("card")
            if c is not None and c in st["public"][t]:
                st["public"][t].remove(c)
                st["discard"].append(c)
                ev.append(Event("destroy_public", f"{_p(t)} loses public {_short(c)}.", {"seat": t, "card": c}))
            if st["hands"][t]:
                st["chance"] = {"kind": "destroy", "seat": t}
                return
        elif kind == "grace":
            self._request_draw(st, a, GRACE_DRAW, "grace", ev)
            return
        elif kind in ("repentance", "wrath"):
            side = "sinner" if kind == "repentance" else "saint"
            purged = [c for c in st["public"][a] + st["hands"][a] if CARDS[c].side == side]
            st["public"][a] = [c for c in st["public"][a] if CARDS[c].side != side]
            st["hands"][a] = [c for c in st["hands"][a] if CARDS[c].side != side]
            st["discard"].extend(purged)
            ev.append(Event("purge", f"{_p(a)} discards " + (", ".join(_short(c) for c in purged) or "nothing")
                            + ".", {"seat": a, "cards": purged}))
            need_pub = PUBLIC_SIZE - len(st["public"][a])
            need_hand = max(0, HAND_SIZE - len(st["hands"][a]))
            st["refill_a"] = need_pub
            if need_pub + need_hand > 0:
                self._request_draw(st, a, need_pub + need_hand, "refill", ev)
                return
        self._after_action(st, ev)

    def _grace_after_draw(self, st: State, ev: list[Event]) -> None:
        if not st["buffer"]:
            self._after_action(st, ev)
            return
        if self._grace_room(st) == 0:
            rest = st["buffer"]
            st["discard"].extend(rest)
            st["buffer"] = []
            ev.append(Event("grace_keep", f"{_p(st['active'])} keeps nothing and discards "
                            + ", ".join(_short(c) for c in rest) + ".", {"kept": 0, "discarded": rest}))
            self._after_action(st, ev)
            return
        st["stage"] = "grace_keep"

    def _refill_after_draw(self, st: State, seat: int, ev: list[Event]) -> None:
        buf = st["buffer"]
        m = min(st["refill_a"], len(buf))
        st["refill_a"] = m
        if m == 0 or m == len(buf):
            self._place_refill(st, seat, list(buf[:m]), ev)
        else:
            st["stage"] = "refill_assign"

    def _place_refill(self, st: State, seat: int, to_public: list[str], ev: list[Event]) -> None:
        rest = [c for c in st["buffer"] if c not in to_public]
        st["public"][seat].extend(to_public)
        st["hands"][seat].extend(rest)
        st["buffer"] = []
        st["refill_a"] = 0
        ev.append(Event("refill", f"{_p(seat)} adds " + (", ".join(_short(c) for c in to_public) or "nothing")
                        + f" to the public set and {len(rest)} card(s) to hand.",
                        {"seat": seat, "public": to_public, "hand": len(rest)}))
        self._after_action(st, ev)

    # ------------------------------------------------------------------ outcome & views
    def outcome(self, state: State) -> Outcome | None:
        """Winners: pawns on the Gate, else (round limit) the furthest pawns (spec §8)."""
        if state["phase"] != "over":
            return None
        scores = tuple(float(p) for p in state["positions"])
        # the reason keeps the ``{p0}`` placeholders: the host fills in the players' names
        return Outcome(scores, rank_seats(scores), frozenset(state["winners"]), state["end_reason"])

    def scores(self, state: State) -> tuple[float, ...]:
        """Current pawn position per seat (6 = Gate)."""
        return tuple(float(p) for p in state["positions"])

    def player_view(self, state: State, seat: Seat | None) -> dict[str, Any]:
        """Public view (``seat`` None) or the public view plus ``seat``'s secrets.

        Public keys: game, players, phase, stage, round, round_limit, start, active, to_move,
        options, track, positions, on_gate, public (card dicts), factions, public_sums,
        counts {saint, sinner, none}, majority, lock, hand_counts, skips, split_done,
        deck_count, discard (card dicts), buffer_count, turn (modifier, law, borrowed),
        declared (public text of a USE waiting for reactions), reacting, winners, end_reason.
        Private extras: seat, hand, split_choice, buffer, build, usable, next_test.
        """
        n = state["players"]
        facs = factions(state)
        n_s, n_n = counts(state)
        stage = state["stage"]
        use = state["use"]
        view: dict[str, Any] = {
            "game": state["game"],
            "players": n,
            "phase": state["phase"],
            "stage": "action" if stage == "build" else stage,
            "round": state["round"],
            "round_limit": state["options"]["round_limit"],
            "start": state["start"],
            "active": state["active"],
            "to_move": sorted(self.to_move(state)),
            "options": dict(state["options"]),
            "track": [
                {"space": sp, "sum": thr, "combos": list(combos)} for sp, (thr, combos) in sorted(TRACK.items())
            ],
            "positions": list(state["positions"]),
            "on_gate": [p == GATE for p in state["positions"]],
            "public": [[_card_json(c) for c in pub] for pub in state["public"]],
            "factions": facs,
            "public_sums": [public_sum(p) for p in state["public"]],
            "counts": {"saint": n_s, "sinner": n_n, "none": n - n_s - n_n},
            "majority": majority(state),
            "lock": locked(state) if state["phase"] in ("play", "over", "start") else False,
            "hand_counts": [len(h) for h in state["hands"]],
            "skips": list(state["skips"]),
            "split_done": [c is not None for c in state["split"]],
            "deck_count": len(state["deck"]),
            "discard": [_card_json(c) for c in state["discard"]],
            "buffer_count": len(state["buffer"]),
            "turn": {k: state["turn"][k] for k in ("modifier", "law", "borrowed")},
            "declared": use["text"] if use is not None else None,
            "reacting": use["windows"][0][1] if use is not None and stage == "react" and use["windows"] else None,
            "winners": list(state["winners"]),
            "end_reason": state["end_reason"],
        }
        if seat is None or not 0 <= seat < n:
            return view
        view["seat"] = seat
        view["hand"] = [_card_json(c) for c in state["hands"][seat]]
        split = state["split"][seat]
        view["split_choice"] = list(split) if split is not None else None
        mine_active = state["active"] == seat
        view["buffer"] = [_card_json(c) for c in state["buffer"]] if mine_active else []
        view["build"] = copy.deepcopy(state["build"]) if mine_active else None
        if state["phase"] == "play":
            view["usable"] = [c for c in state["hands"][seat] if card_plans(state, seat, c)]
            view["next_test"] = self._next_test(state, seat)
        else:
            view["usable"] = []
            view["next_test"] = None
        return view

    def _next_test(self, state: State, seat: int) -> dict[str, Any]:
        pos = state["positions"][seat]
        if pos >= GATE:
            return {"space": None, "met": False, "text": "On the Gate."}
        if pos == 5:
            met = gate_ok(state, seat)
            return {"space": GATE, "met": met, "text": "Gate: saint, three 1s" + (" of one colour" if
                    state["options"]["gate_same_colour"] else "") + (" — met" if met else " — not met")}
        thr, allowed = TRACK[pos + 1]
        met = can_enter_next(state, seat)
        have = combos_met(state, seat, allowed)
        total = effective_sum(state, seat)
        fac = faction(state["public"][seat])
        combo_text = "/".join(allowed)
        if state["options"]["board_side"] == "easy":
            rule = f"sum ≥ {thr} (you have {total}) or {combo_text}"
        elif fac == "saint":
            rule = f"saint path: sum ≥ {thr} (you have {total})"
        elif fac == "sinner":
            rule = f"sinner path: {combo_text}"
        else:
            rule = "no faction: you cannot advance"
        if have:
            rule += f" — you have {', '.join(have)}"
        return {"space": pos + 1, "met": met, "sum": total, "need_sum": thr, "combos": have,
                "text": f"Space {pos + 1}: {rule}" + (" — met" if met else " — not met")}

    # ------------------------------------------------------------------ notation
    def describe_action(self, state: State, action: Action) -> str:
        """Canonical short notation, e.g. ``use N40``, ``target C``, ``replace S01 N30``."""
        t = action.get("type")
        if t in ("draw", "destroy") and "card" in action:
            return f"{t} {action['card']}"
        if t == "start":
            return f"start {LETTERS[action['seat']]}"
        if t == "split":
            return "split " + " ".join(action["public"])
        if t in ("add", "use", "discard", "guard", "lose"):
            return f"{t} {action['card']}"
        if t == "replace":
            return f"replace {action['card']} {action['out']}"
        if t == "keep":
            return "keep " + (" ".join(action["cards"]) or "none")
        if t == "assign":
            return "assign " + " ".join(action["public"])
        if t == "pick":
            key, value = action["key"], action["value"]
            if key in ("target", "borrow"):
                return f"{key} {LETTERS[value]}"
            if isinstance(value, list):
                return f"{key} " + "+".join(value)
            return f"{key} {value}"
        return str(t)

    def action_label(self, state: State, action: Action) -> str:
        """Friendly button text (≤ 80 chars). A setup choice or a refill assignment adds a hint
        after `` — `` (faction, sum, next-space test): the host shows it as the select
        option's description."""
        t = action.get("type")
        label: str
        if t == "split":
            label = " + ".join(_short(c) for c in action["public"]) + HINT + self._split_hint(state, action)
        elif t == "pass":
            label = "Give up and pass the turn" if state.get("stage") == "build" else "Pass (do nothing)"
        elif t == "add":
            label = f"Add {_short(action['card'])} to your public set"
        elif t == "replace":
            label = f"Replace {_short(action['out'])} with {_short(action['card'])}"
        elif t == "use":
            label = f"Use {_short(action['card'])}"
        elif t == "discard":
            label = f"Discard {_short(action['card'])} from hand"
        elif t == "pick":
            label = self._pick_label(state, action["key"], action["value"])
        elif t == "cancel":
            build = state.get("build")
            label = f"Back: do not use {_short(build['card'])}" if build else "Back to the action menu"
        elif t == "guard":
            label = f"GUARD with {_short(action['card'])} (then draw 1)"
        elif t == "allow":
            label = "ALLOW (no defence)" if any(
                CARDS[c].kind == "guardian" for c in state["hands"][self._reactor(state)]) else "OK (no defence)"
        elif t == "advance":
            a = state["active"]
            label = f"Advance to space {state['positions'][a] + 1}"
        elif t == "stay":
            label = "Stay where you are this turn"
        elif t == "lose":
            label = f"Sacrifice: discard public {_short(action['card'])}"
        elif t == "keep":
            label = ("Keep " + " + ".join(_short(c) for c in action["cards"])) if action["cards"] else "Keep none"
        elif t == "assign":
            a = state["active"]
            label = " + ".join(_short(c) for c in action["public"]) + HINT + self._set_hint(
                state, a, [*state["public"][a], *action["public"]], state["positions"][a])
        elif t == "draw" and "card" not in action:
            label = "Draw 1 card"
        elif t == "no_draw":
            label = "Do not draw"
        else:
            label = self.describe_action(state, action)
        name, sep, hint = label.partition(HINT)
        name = name if len(name) <= 80 else name[:79] + "…"
        return name + sep + (hint if len(hint) <= 100 else hint[:99] + "…")

    def _split_hint(self, state: State, action: Action) -> str:
        """The hint of a setup choice (see ``_set_hint``), from space 0 without modifiers."""
        chosen = list(action["public"])
        seat = next((s for s in range(state["players"]) if set(chosen) <= set(state["hands"][s])), 0)
        return self._set_hint({**state, "turn": _new_turn()}, seat, chosen, 0)

    def _set_hint(self, state: State, seat: int, public: list[str], position: int) -> str:
        """``saint · sum 7 · space 1 ✓``: the faction and sum ``public`` would show and
        whether ``seat`` could then enter the next space (spec §2.3, §5.1); used for the
        setup split and the refill assignment, where the set decides the faction."""
        trial = {**state, "public": [public if s == seat else p for s, p in enumerate(state["public"])],
                 "positions": [position if s == seat else p for s, p in enumerate(state["positions"])]}
        fac = faction(public)
        text = f"{fac if fac != 'none' else 'no faction'} · sum {public_sum(public)}"
        if position < 5:
            text += f" · space {position + 1} " + ("✓" if can_enter_next(trial, seat) else "✗")
        return text

    def _use_plan(self, use: dict[str, Any]) -> Plan:
        plan: Plan = use["plan"]
        return plan

    def _reactor(self, state: State) -> int:
        use = state.get("use")
        if use and use["windows"]:
            return int(use["windows"][0][1])
        return int(state["active"] or 0)

    def _pick_label(self, state: State, key: str, value: Any) -> str:
        if key == "copy":
            return f"Copy {KIND_NAME[value]}"
        if key == "take":
            owner = owner_of_public(state, value)
            who = "your" if owner == state["active"] else f"{LETTERS[owner or 0]}'s"
            return f"Take {who} public {_short(value)}"
        if key == "borrow":
            return f"Borrow from {LETTERS[value]} (sum {public_sum(state['public'][value])})"
        if key == "number":
            return f"Read all public numbers as {value}"
        if key == "target":
            return f"Target {LETTERS[value]} (space {state['positions'][value]})"
        if key == "card":
            return f"Remove their public {_short(value)}"
        if key == "k":
            return f"Swap {value} card{'s' if value == 2 else ''} each way"
        if key == "mine":
            return "Give your " + " + ".join(_short(c) for c in value)
        if key == "theirs":
            return "Take their " + " + ".join(_short(c) for c in value)
        return f"{key} {value}"

    def action_group(self, state: State, action: Action) -> str | None:
        """``Replace with X`` groups the REPLACE list by hand card; else None."""
        if action.get("type") == "replace":
            return f"Replace with {_short(action['card'])}"
        return None

    def prompt(self, state: State, seat: Seat) -> str:
        """One sentence: what ``seat`` must decide now."""
        if seat not in self.to_move(state) or seat == CHANCE:
            return ""
        if state["phase"] == "split":
            return "Choose the 3 cards of your hand to make public."
        stage = state["stage"]
        if stage == "action":
            return f"Round {state['round']}: choose your action (pass, add, replace, use or discard)."
        if stage == "build":
            # The board shows this prompt too: never name the card being declared (it is still
            # a hand card until the last pick, and the player may go back).
            return f"Round {state['round']}: finish the Use you started — pick the next detail, or go back."
        if stage == "react":
            use = state["use"]
            text = self._plan_text(state, use["card"], self._use_plan(use), placeholder=False)
            who = LETTERS[seat]
            return (f"{LETTERS[use['seat']]} attacks {who} ({text}): {who} may guard with a Guardian "
                    f"from hand, or allow it.")
        if stage == "advance":
            return f"You may enter space {state['positions'][seat] + 1}: advance or stay?"
        if stage == "sac_discard":
            return "Sacrifice: choose one of your public cards to discard."
        if stage == "grace_keep":
            return f"Grace: choose which drawn cards to keep (up to {self._grace_room(state)})."
        if stage == "refill_assign":
            n = state["refill_a"]
            which = "which new card goes" if n == 1 else f"which {n} of your new cards go"
            return f"Refill: choose {which} to your public set (the rest go to your hand)."
        if stage == "draw_offer":
            return "Your hand has fewer than 3 cards: draw 1?"
        return "Your move."

    def timeout_action(self, state: State, seat: Seat) -> Action:
        """Spec §11 timeouts: split → first 3 dealt; action → PASS; advance → ADVANCE;
        draw → DRAW; Guardian window → ALLOW; Sacrifice → lowest number then id; Grace → first
        drawn up to the cap; refill → draw order.

        Raises:
            NotYourTurn: the seat is not to move.
        """
        self._check_can_act(state, seat)
        if seat == CHANCE:
            raise NotYourTurn("Chance has no timeout.")
        if state["phase"] == "split":
            return {"type": "split", "public": list(state["hands"][seat][:PUBLIC_SIZE])}
        stage = state["stage"]
        if stage in ("action", "build"):
            return {"type": "pass"}
        if stage == "react":
            return {"type": "allow"}
        if stage == "advance":
            return {"type": "advance"}
        if stage == "draw_offer":
            return {"type": "draw"}
        if stage == "sac_discard":
            pub = state["public"][seat]
            return {"type": "lose", "card": min(pub, key=lambda c: (CARDS[c].number, c))}
        if stage == "grace_keep":
            return {"type": "keep", "cards": list(state["buffer"][: self._grace_room(state)])}
        if stage == "refill_assign":
            return {"type": "assign", "public": list(state["buffer"][: state["refill_a"]])}
        return copy.deepcopy(self.legal_actions(state, seat)[0])

    def timeout_seconds(self, state: State, seats: frozenset[Seat], default: int) -> int:
        """Seconds to wait for ``seats`` (spec §11, our reading in rules.md): a Guardian window
        waits ``reaction_timeout`` hours, every other decision ``turn_timeout`` hours; an option
        left at 0 (the default) means the lobby's move timer ``default``."""
        key = "reaction_timeout" if state.get("stage") == "react" else "turn_timeout"
        hours = int(state["options"].get(key) or 0)
        return hours * 3600 if hours > 0 else default

    def auto_action(self, state: State, seat: Seat, preferences: Mapping[str, Any]) -> Action | None:
        """Pre-set answers (spec §1 per-player preferences, D20, D29, D30): ``auto_advance``
        plays ADVANCE at the advancement offer, ``auto_draw`` plays DRAW at the draw offer;
        in a Guardian window ``guardian_pref`` ``auto_guard`` plays the lowest-id Guardian
        in hand (ALLOW at once without one) and ``never`` plays ALLOW at once (an instant
        ALLOW may come from either, so it does not reveal the hand). None otherwise."""
        if seat == CHANCE or state.get("phase") != "play" or seat not in self.to_move(state):
            return None
        stage = state["stage"]
        if stage == "advance" and preferences.get("auto_advance") and seat == state["active"]:
            return {"type": "advance"}
        if stage == "draw_offer" and preferences.get("auto_draw") and seat == state["active"]:
            return {"type": "draw"}
        if stage == "react":
            pref = preferences.get("guardian_pref", "ask")
            if pref == "never":
                return {"type": "allow"}
            if pref == "auto_guard":
                guards = sorted(c for c in state["hands"][seat] if CARDS[c].kind == "guardian")
                return {"type": "guard", "card": guards[0]} if guards else {"type": "allow"}
        return None

    def shuffle_hidden(self, state: State, seat: Seat | None, rng: random.Random) -> State:
        """Reshuffle what ``seat`` cannot see: other players' hands (and their secret split
        choices by position), the draw pile and another player's drawn buffer."""
        st = copy.deepcopy(state)
        n = st["players"]
        others = [s for s in range(n) if s != seat]
        pinned: set[str] = set()
        if st["build"] is not None and st["active"] != seat:
            pinned.add(st["build"]["card"])
        pool: list[str] = list(st["deck"])
        for s in others:
            pool += [c for c in st["hands"][s] if c not in pinned]
        buffer_hidden = st["active"] != seat
        if buffer_hidden:
            pool += st["buffer"]
        rng.shuffle(pool)
        for s in others:
            old = st["hands"][s]
            split = st["split"][s]
            new = [c if c in pinned else pool.pop() for c in old]
            if split is not None:
                st["split"][s] = [new[old.index(c)] for c in split]
            st["hands"][s] = new
        if buffer_hidden:
            st["buffer"] = [pool.pop() for _ in st["buffer"]]
        st["deck"] = sorted(pool)
        return st
