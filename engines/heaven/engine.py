"""The Way to Heaven (天路) rules engine: the flow of a turn (docs/rules/heaven.md §3–§8).

State layout (plain JSON dict, ``state_version`` 2):
    game, state_version, players, options
    phase: ``deal`` | ``split`` | ``start`` | ``play`` | ``over``
    deck: draw-pile card ids (secret, kept sorted: every draw is a uniform chance pick)
    discard: discard pile, oldest first (public)
    hands / public: per seat, card ids; positions (0..6), skips (pending Pride skips)
    split: per seat, the 3 chosen public ids (secret until all confirmed) or None
    start, round, turn_index (the active seat is ``(start + turn_index) % players``)
    stage: None | action | react | advance | sac_discard | grace_keep | refill_assign |
        draw_offer (and the transient ``resolving`` / ``drawing`` while chance is pending)
    chance: None | {kind: draw, seat, left, purpose} | {kind: start} | {kind: destroy, seat}
    use: None | {card, plan, windows: [[role, seat], ...], removed, cancelled}: the declared
        USE while its Guardian windows run (§5.5)
    build: None | {card, chosen}: a USE half-declared by a state_version 1 log (below)
    buffer: cards drawn by Grace / a refill, not yet placed (secret, owner = active)
    refill_a: public slots to fill from ``buffer``
    turn: {modifier, law, borrowed, sacrifice}

Actions: see ``notation.describe_action``. A USE is one action with its whole declaration,
``{"type": "use", "card": id, "plan": [[key, value], ...]}`` (§5.4, D21). Logs written
under state_version 1 declared a USE in steps (``{"type": "use", "card"}``, then
``{"type": "pick", "key", "value"}`` …, or ``{"type": "cancel"}``); ``apply`` still accepts
those steps so old games replay (they are never offered any more).
"""

from __future__ import annotations

import copy
import itertools
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

from engines.base import (
    CHANCE,
    EngineInfo,
    Event,
    GameEngine,
    GameOver,
    IllegalAction,
    InvalidOptions,
    Msg,
    NotYourTurn,
    Outcome,
    Seat,
    copy_state,
    rank_seats,
    seat_ref,
    term,
    validate_options,
)
from engines.heaven.types import Action, ActionType, Options, Plan, State

from . import chance, notation, view
from .data import CARD_IDS, CARDS, DEAL, GATE, HAND_SIZE, LAST_SPACE, OPTIONS, PREFERENCES, PUBLIC_SIZE
from .effects import EFFECTS, card_plans, plan_msg
from .rules import (
    build_of,
    can_enter_next,
    card_list,
    card_ref,
    chain_of,
    chance_of,
    end_reason,
    event,
    faction,
    gate_ok,
    grace_room,
    grace_subsets,
    new_turn,
    order_seat,
    owner_of_public,
    to_move,
    use_of,
    winners,
)


class HeavenEngine(GameEngine[State, Action, view.PublicView | view.PrivateView]):
    """The Way to Heaven (docs/rules/heaven.md). 4–6 players (3 with ``allow_three``)."""

    info = EngineInfo(
        game_id="heaven",
        name="The Way to Heaven",
        native_name="天路",
        min_players=4,
        max_players=6,
        options=OPTIONS,
        has_hidden_info=True,
        state_version=2,
        preferences=PREFERENCES,
    )

    # ------------------------------------------------------------------ lifecycle
    def new_game(self, players: int, seed: int, options: Mapping[str, object] | None = None) -> State:
        """Initial state: all 54 cards in the draw pile, dealing pending (§3).

        Raises:
            InvalidOptions: bad option or player count (3 only with ``allow_three``).
        """
        opts = validate_options(self.info, options)
        low = 3 if opts["allow_three"] else self.info.min_players
        if not isinstance(players, int) or not low <= players <= self.info.max_players:
            raise InvalidOptions(
                f"The Way to Heaven needs {low}–{self.info.max_players} players, not {players}.",
                key="players", value=players,
                text=Msg("refusal.player_count", {"game": {"msg": "ui.game.heaven"}, "min": low,
                                                  "max": self.info.max_players, "n": players}).to_json())
        return {
            "game": self.info.game_id, "state_version": self.info.state_version,
            "players": players, "options": cast(Options, opts), "phase": "deal",
            "deck": sorted(CARD_IDS), "discard": [],
            "hands": [[] for _ in range(players)], "public": [[] for _ in range(players)],
            "positions": [0] * players, "skips": [0] * players, "split": [None] * players,
            "start": None, "round": 0, "turn_index": 0, "stage": None,
            "chance": {"kind": "draw", "seat": 0, "left": DEAL * players, "purpose": "deal"},
            "use": None, "build": None, "buffer": [], "refill_a": 0, "turn": new_turn(),
        }

    def to_move(self, state: State) -> frozenset[Seat]:
        """Seats to act (§4; ``rules.to_move``)."""
        return to_move(state)

    # ------------------------------------------------------------------ legal actions
    def legal_actions(self, state: State, seat: Seat) -> Sequence[Action]:
        """Every legal action of ``seat`` in a fixed order (§3.3, §5.3–§5.6); a USE is
        listed once per complete declaration."""
        if seat not in to_move(state):
            return []
        if seat == CHANCE:
            return chance.outcomes(state)
        if state["phase"] == "split":
            return [{"type": "split", "public": list(c)}
                    for c in itertools.combinations(state["hands"][seat], PUBLIC_SIZE)]
        stage = state["stage"]
        if stage == "action":
            return self._turn_actions(state, seat)
        if stage == "react":
            guards: list[Action] = [{"type": "guard", "card": c} for c in sorted(state["hands"][seat])
                                    if CARDS[c].kind == "guardian"]
            return [*guards, {"type": "allow"}]
        if stage == "advance":
            return [{"type": "advance"}, {"type": "stay"}]
        if stage == "sac_discard":
            return [{"type": "lose", "card": c} for c in state["public"][seat]]
        if stage == "grace_keep":
            return [{"type": "keep", "cards": k} for k in grace_subsets(state, seat)]
        if stage == "refill_assign":
            return [{"type": "assign", "public": list(c)}
                    for c in itertools.combinations(state["buffer"], state["refill_a"])]
        if stage == "draw_offer":
            return [{"type": "draw"}, {"type": "no_draw"}]
        return []

    @staticmethod
    def _turn_actions(state: State, seat: int) -> list[Action]:
        """Step 1 (§5.3): PASS, ADD, REPLACE, USE (one per plan), DISCARD."""
        hand: list[str] = state["hands"][seat]
        pub: list[str] = state["public"][seat]
        acts: list[Action] = [{"type": "pass"}]
        if len(pub) < PUBLIC_SIZE:
            acts += [{"type": "add", "card": h} for h in hand]
        else:
            acts += [{"type": "replace", "card": h, "out": p} for h in hand for p in pub]
        acts += [{"type": "use", "card": h, "plan": p} for h in hand for p in card_plans(state, seat, h)]
        acts += [{"type": "discard", "card": h} for h in hand]
        return acts

    def sample_chance(self, state: State, rng: random.Random) -> Action:
        """A uniform pick among the pending chance outcomes (§6; ``chance.sample_chance``).

        Raises:
            NotYourTurn: chance is not to move.
        """
        if CHANCE not in to_move(state):
            raise NotYourTurn("No chance event is pending.")
        return chance.sample_chance(state, rng)

    # ------------------------------------------------------------------ apply
    def apply(self, state: State, seat: Seat, action: Action) -> tuple[State, tuple[Event, ...]]:
        """Validate and apply one action (§3–§8).

        Raises:
            GameOver: the game has ended.
            NotYourTurn: ``seat`` is not to move.
            IllegalAction: malformed or illegal action (also for impossible chance outcomes).
        """
        if state.get("phase") == "over":
            raise GameOver("The game is over.")
        if seat not in to_move(state):
            raise NotYourTurn("It is not your turn.", seat=seat)
        legacy = self._legacy_step(state, action) if seat != CHANCE else None
        if seat == CHANCE and not chance.possible(state, action):
            raise IllegalAction("That chance outcome is impossible now.", action=action)
        if seat != CHANCE and legacy is None and action not in self.legal_actions(state, seat):
            raise IllegalAction(self._illegal_message(state, action), action=action)
        st = copy_state(state)
        ev: list[Event] = []
        if seat == CHANCE:
            self._apply_chance(st, action, ev)
        elif legacy is not None:
            legacy(st, action, ev)
        elif st["phase"] == "split":
            self._apply_split(st, seat, action, ev)
        else:
            self._apply_turn(st, seat, action, ev)
        return st, tuple(ev)

    @staticmethod
    def _illegal_message(state: State, action: Any) -> str:
        t = action.get("type") if isinstance(action, dict) else None
        if state["phase"] == "split":
            return "Choose exactly 3 of your 6 cards to make public."
        messages = {
            "add": "You can only ADD a card from your hand while your public set has fewer than 3 cards.",
            "replace": "You can only REPLACE a public card with a hand card when your public set has 3 cards.",
            "use": "You cannot use that card now (wrong faction, lock, unmet condition or no legal target).",
            "guard": "You can only guard with a Guardian card in your hand.",
        }
        stages = {"react": "Answer the attack: GUARD with a Guardian in hand, or ALLOW.",
                  "advance": "Choose ADVANCE or STAY.", "draw_offer": "Choose DRAW or NO DRAW."}
        return messages.get(str(t)) or stages.get(str(state.get("stage"))) or "That move is not legal now."

    # -- chance --------------------------------------------------------------
    def _apply_chance(self, st: State, action: Action, ev: list[Event]) -> None:
        ch = chance_of(st)
        if action["type"] == "start":
            s = action["seat"]
            st.update({"chance": None, "start": s, "phase": "play", "round": 1, "turn_index": 0})
            ev.append(event("start", seat=seat_ref(s)))
            self._start_turn(st, ev)
            return
        if action["type"] == "destroy":
            t, cid = ch["seat"], action["card"]
            st["hands"][t].remove(cid)
            st["discard"].append(cid)
            st["chance"] = None
            ev.append(event("destroy", seat=seat_ref(t), card=card_ref(cid)))
            self._after_action(st, ev)
            return
        cid = action["card"]
        st["deck"].remove(cid)
        purpose = ch["purpose"]
        target = (DEAL * st["players"] - ch["left"]) % st["players"] if purpose == "deal" else ch["seat"]
        (st["buffer"] if purpose in ("grace", "refill") else st["hands"][target]).append(cid)
        ev.append(event("draw_private", seat=seat_ref(target), card=card_ref(cid), visible_to=frozenset({target})))
        if purpose != "deal":
            ev.append(event("draw", seat=seat_ref(target)))
        ch["left"] -= 1
        self._continue_draw(st, ev)

    def _request_draw(self, st: State, seat: int, n: int, purpose: str, ev: list[Event]) -> None:
        st["chance"] = {"kind": "draw", "seat": seat, "left": n, "purpose": purpose}
        self._continue_draw(st, ev)

    def _continue_draw(self, st: State, ev: list[Event]) -> None:
        """Refill the draw pile from the discard pile when needed (§6, D31); finish the
        request when done or when both piles are empty."""
        ch = chance_of(st)
        if ch["left"] > 0 and not st["deck"] and st["discard"]:
            st["deck"] = sorted(st["discard"])
            st["discard"] = []
            ev.append(event("reshuffle", count=len(st["deck"])))
        if ch["left"] > 0 and st["deck"]:
            return
        st["chance"] = None
        after: dict[str, Callable[[], None]] = {
            "deal": lambda: self._dealt(st, ev),
            "turn": lambda: self._end_turn(st, ev),
            "guard_owner": lambda: self._after_action(st, ev),
            "guard_target": lambda: self._run_use(st, ev),
            "grace": lambda: self._grace_after_draw(st, ev),
            "refill": lambda: self._refill_after_draw(st, ch["seat"], ev),
        }
        after[ch["purpose"]]()

    @staticmethod
    def _dealt(st: State, ev: list[Event]) -> None:
        st["phase"] = "split"
        ev.append(event("dealt"))

    # -- setup split -----------------------------------------------------------
    def _apply_split(self, st: State, seat: int, action: Action, ev: list[Event]) -> None:
        """§3.3: a secret choice; all sets are revealed once every seat has chosen."""
        st["split"][seat] = list(action["public"])
        ev.append(event("split", seat=seat_ref(seat)))
        ev.append(event("split_private", seat=seat_ref(seat), cards=card_list(action["public"]),
                        visible_to=frozenset({seat})))
        if any(s is None for s in st["split"]):
            return
        for s in range(st["players"]):
            chosen = st["split"][s]
            assert chosen is not None, "every seat has confirmed its split"
            st["public"][s] = [c for c in st["hands"][s] if c in chosen]
            st["hands"][s] = [c for c in st["hands"][s] if c not in chosen]
            ev.append(event("reveal", seat=seat_ref(s), cards=card_list(st["public"][s]),
                            faction=term(f"faction.{faction(st['public'][s])}")))
        st.update({"split": [None] * st["players"], "phase": "start", "chance": {"kind": "start"}})

    # -- turn flow ---------------------------------------------------------------
    def _start_turn(self, st: State, ev: list[Event]) -> None:
        """Step 0 (§4): skip a pawn on the Gate or a pending Pride skip, else wait for the action."""
        while True:
            seat = order_seat(st)
            st.update({"turn": new_turn(), "build": None, "use": None})
            if st["positions"][seat] == GATE:
                if self._advance_order(st, ev):
                    return
                continue
            if st["skips"][seat] > 0:
                st["skips"][seat] -= 1
                ev.append(event("skip", seat=seat_ref(seat)))
                if self._advance_order(st, ev):
                    return
                continue
            st["stage"] = "action"
            return

    def _advance_order(self, st: State, ev: list[Event]) -> bool:
        """Move to the next seat; at the end of a round check the end (§8, D32, D35).
        Returns True when the game ended."""
        st["turn_index"] += 1
        if st["turn_index"] < st["players"]:
            return False
        if GATE in st["positions"] or st["round"] >= st["options"]["round_limit"]:
            st.update({"phase": "over", "stage": None, "chance": None})
            ev.append(event("game_over", reason=end_reason(st)))
            return True
        st["round"] += 1
        st["turn_index"] = 0
        ev.append(event("round", round=st["round"]))
        return False

    def _end_turn(self, st: State, ev: list[Event]) -> None:
        st["stage"] = None
        st["turn"] = new_turn()
        if not self._advance_order(st, ev):
            self._start_turn(st, ev)

    def _after_action(self, st: State, ev: list[Event]) -> None:
        """Step 2: advancement (§5.6); Gate entry is automatic (D28)."""
        a = order_seat(st)
        st["use"] = None
        pos = st["positions"][a]
        if pos == LAST_SPACE and gate_ok(st, a):
            st["positions"][a] = GATE
            ev.append(event("gate", seat=seat_ref(a)))
            self._after_advance(st, ev)
        elif pos < LAST_SPACE and can_enter_next(st, a):
            st["stage"] = "advance"
        else:
            self._after_advance(st, ev)

    def _after_advance(self, st: State, ev: list[Event]) -> None:
        """Step 2b (Sacrifice discard), then step 3 (draw offer) (§4)."""
        if st["turn"]["sacrifice"] and st["public"][order_seat(st)]:
            st["turn"]["sacrifice"] = False
            st["stage"] = "sac_discard"
            return
        self._draw_step(st, ev)

    def _draw_step(self, st: State, ev: list[Event]) -> None:
        a = order_seat(st)
        if st["positions"][a] != GATE and len(st["hands"][a]) < HAND_SIZE and (st["deck"] or st["discard"]):
            st["stage"] = "draw_offer"
        else:
            self._end_turn(st, ev)

    # -- player actions in play -------------------------------------------------
    def _apply_turn(self, st: State, seat: int, action: Action, ev: list[Event]) -> None:
        a = order_seat(st)
        st["build"] = None
        t = action["type"]
        if t in ("guard", "allow"):
            self._apply_reaction(st, seat, action, ev)
            return
        card = action.get("card")
        if t == "use":
            self._declare(st, str(card), action["plan"], ev)
        elif t in ("pass", "add", "discard", "replace"):
            if t == "add":
                assert card is not None
                st["hands"][a].remove(card)
                st["public"][a].append(card)
            elif t == "discard":
                assert card is not None
                st["hands"][a].remove(card)
                st["discard"].append(card)
            elif t == "replace":
                assert card is not None
                st["hands"][a].remove(card)
                pub = st["public"][a]
                pub[pub.index(action["out"])] = card
                st["discard"].append(action["out"])
            params: dict[str, Any] = {"card": card_ref(str(card))} if card is not None else {}
            if t == "replace":
                params["out"] = card_ref(action["out"])
            ev.append(event(t, seat=seat_ref(a), **params))
            self._after_action(st, ev)
        elif t == "advance":
            st["positions"][a] += 1
            ev.append(event("advance", seat=seat_ref(a), to=st["positions"][a]))
            self._after_advance(st, ev)
        elif t == "stay":
            ev.append(event("stay", seat=seat_ref(a), space=st["positions"][a]))
            self._after_advance(st, ev)
        elif t == "lose":
            assert card is not None
            st["public"][a].remove(card)
            st["discard"].append(card)
            ev.append(event("sacrifice_discard", seat=seat_ref(a), card=card_ref(str(card))))
            self._draw_step(st, ev)
        elif t == "keep":
            keep = action["cards"]
            rest = [c for c in st["buffer"] if c not in keep]
            st["hands"][a].extend(keep)
            st["discard"].extend(rest)
            st["buffer"] = []
            ev.append(event("grace_keep", seat=seat_ref(a), kept=len(keep), discarded=card_list(rest)))
            self._after_action(st, ev)
        elif t == "assign":
            self._place_refill(st, a, list(action["public"]), ev)
        elif t == "draw":
            st["stage"] = "drawing"
            self._request_draw(st, a, 1, "turn", ev)
        elif t == "no_draw":
            ev.append(event("no_draw", seat=seat_ref(a)))
            self._end_turn(st, ev)

    # -- USE: declaration, windows, resolution ------------------------------------
    def _declare(self, st: State, h: str, plan: Plan, ev: list[Event]) -> None:
        """Declare a USE (§5.4, §5.5, D19, D21): the card is spent, the windows queued —
        the owner of a card Arrogance takes, then the target of an attack."""
        a = order_seat(st)
        attacker_ok = st["options"]["guardian_scope"] == "sinner_card" or faction(st["public"][a]) == "sinner"
        st.update({"build": None, "stage": "resolving"})
        st["hands"][a].remove(h)
        st["discard"].append(h)
        final, taken, params = chain_of(h, plan)
        owner = owner_of_public(st, taken) if taken is not None else None
        target = params.get("target") if EFFECTS[final].attack else None
        windows: list[list[Any]] = []
        if attacker_ok and owner is not None and owner != a:
            windows.append(["owner", owner])
        if attacker_ok and target is not None and target not in (a, owner):
            windows.append(["target", target])
        st["use"] = {"card": h, "plan": copy.deepcopy(plan), "windows": windows, "removed": False,
                     "cancelled": False}
        ev.append(event("use", seat=seat_ref(a), use=plan_msg(h, plan)))
        self._run_use(st, ev)

    def _run_use(self, st: State, ev: list[Event]) -> None:
        """Open the next window, or remove the taken card (Arrogance, after its owner's
        window, D18), or resolve the final ability (§5.5)."""
        use = use_of(st)
        windows = use["windows"]
        if windows and windows[0][0] == "owner":
            st["stage"] = "react"
            return
        final, taken, params = chain_of(use["card"], use["plan"])
        if taken is not None and not use["removed"]:
            owner = owner_of_public(st, taken)
            if owner is not None:
                st["public"][owner].remove(taken)
            st["discard"].append(taken)
            use["removed"] = True
            ev.append(event("taken", card=card_ref(taken)))
        if windows:
            st["stage"] = "react"
            return
        if use["cancelled"]:
            self._after_action(st, ev)
            return
        pending = EFFECTS[final].resolve(st, order_seat(st), params, ev)
        if pending is None:
            self._after_action(st, ev)
        elif pending["kind"] == "draw":
            self._request_draw(st, pending["seat"], pending["left"], pending["purpose"], ev)
        else:
            st["chance"] = pending

    def _apply_reaction(self, st: State, seat: int, action: Action, ev: list[Event]) -> None:
        """A window's answer (§5.5, D19): ALLOW, or GUARD — the card is spent, the defender
        draws 1, and the attack on them is cancelled."""
        use = use_of(st)
        role, _ = use["windows"].pop(0)
        st["stage"] = "resolving"
        if action["type"] == "allow":
            ev.append(event("allow", seat=seat_ref(seat)))
            self._run_use(st, ev)
            return
        g = action["card"]
        st["hands"][seat].remove(g)
        st["discard"].append(g)
        ev.append(event("guard", seat=seat_ref(seat), card=card_ref(g)))
        if role == "owner":
            use["windows"] = []
            self._request_draw(st, seat, 1, "guard_owner", ev)
        else:
            use["cancelled"] = True
            self._request_draw(st, seat, 1, "guard_target", ev)

    def _grace_after_draw(self, st: State, ev: list[Event]) -> None:
        a = order_seat(st)
        if st["buffer"] and grace_room(st, a) == 0:
            rest = st["buffer"]
            st["discard"].extend(rest)
            st["buffer"] = []
            ev.append(event("grace_discard", seat=seat_ref(a), discarded=card_list(rest)))
        if not st["buffer"]:
            self._after_action(st, ev)
            return
        st["stage"] = "grace_keep"

    def _refill_after_draw(self, st: State, seat: int, ev: list[Event]) -> None:
        buf = st["buffer"]
        m = min(st["refill_a"], len(buf))
        st["refill_a"] = m
        if m in (0, len(buf)):
            self._place_refill(st, seat, list(buf[:m]), ev)
        else:
            st["stage"] = "refill_assign"

    def _place_refill(self, st: State, seat: int, to_public: list[str], ev: list[Event]) -> None:
        rest = [c for c in st["buffer"] if c not in to_public]
        st["public"][seat].extend(to_public)
        st["hands"][seat].extend(rest)
        st.update({"buffer": [], "refill_a": 0})
        ev.append(event("refill", seat=seat_ref(seat), cards=card_list(to_public), hand=len(rest)))
        self._after_action(st, ev)

    # -- state_version 1 logs: a USE declared in steps ---------------------------
    def _legacy_step(self, state: State, action: Any) -> Callable[[State, Action, list[Event]], None] | None:
        """The handler of a USE step from a state_version 1 log (``use`` without ``plan``,
        ``pick``, ``cancel``) when it is valid now, else None."""
        if not isinstance(action, dict) or state.get("stage") != "action" or state["phase"] != "play":
            return None
        a = order_seat(state)
        t = action.get("type")
        build = state["build"]
        if t == "use" and set(action) == {"type", "card"} and action["card"] in state["hands"][a]:
            return self._legacy_use if card_plans(state, a, action["card"]) else None
        if t == "cancel" and build is not None and set(action) == {"type"}:
            return self._legacy_cancel
        if t == "pick" and build is not None and set(action) == {"type", "key", "value"}:
            chosen = build["chosen"]
            step = [action["key"], action["value"]]
            if any(p[: len(chosen)] == chosen and p[len(chosen): len(chosen) + 1] == [step]
                   for p in card_plans(state, a, build["card"])):
                return self._legacy_pick
        return None

    def _legacy_use(self, st: State, action: Action, ev: list[Event]) -> None:
        st["build"] = {"card": action["card"], "chosen": []}
        self._legacy_declare(st, ev)

    def _legacy_pick(self, st: State, action: Action, ev: list[Event]) -> None:
        build_of(st)["chosen"].append([action["key"], action["value"]])
        self._legacy_declare(st, ev)

    @staticmethod
    def _legacy_cancel(st: State, action: Action, ev: list[Event]) -> None:
        st["build"] = None

    def _legacy_declare(self, st: State, ev: list[Event]) -> None:
        card, chosen = build_of(st)["card"], build_of(st)["chosen"]
        if chosen in card_plans(st, order_seat(st), card):
            self._declare(st, card, copy.deepcopy(chosen), ev)

    # ------------------------------------------------------------------ outcome & views
    def outcome(self, state: State) -> Outcome | None:
        """Winners: pawns on the Gate, else (round limit) the furthest pawns (§8, D35);
        score = pawn position (6 = Gate)."""
        if state["phase"] != "over":
            return None
        scores = self.scores(state)
        return Outcome(scores, rank_seats(scores), frozenset(winners(state)), end_reason(state))

    def scores(self, state: State) -> tuple[float, ...]:
        """Current pawn position per seat (6 = Gate)."""
        return tuple(float(p) for p in state["positions"])

    def player_view(self, state: State, seat: Seat | None) -> view.PublicView | view.PrivateView:
        """``view.player_view``: ``PublicView`` for ``None``, ``PrivateView`` for a seat."""
        return view.player_view(state, seat)

    def shuffle_hidden(self, state: State, seat: Seat | None, rng: random.Random) -> State:
        """``view.shuffle_hidden``."""
        return view.shuffle_hidden(state, seat, rng)

    # ------------------------------------------------------------------ notation and texts
    def describe_action(self, state: State, action: Action) -> str:
        """``notation.describe_action``."""
        return notation.describe_action(state, action)

    def action_label(self, state: State, action: Action) -> Msg:
        """``notation.action_label``."""
        return notation.action_label(state, action)

    def action_label_full(self, state: State, action: Action) -> Msg | None:
        """``notation.action_label_full``: a USE with its cards by name and code."""
        return notation.action_label_full(state, action)

    def action_hint(self, state: State, action: Action) -> Msg | None:
        """``notation.action_hint``."""
        return notation.action_hint(state, action)

    def action_path(self, state: State, action: Action) -> tuple[Msg, ...]:
        """``notation.action_path``."""
        return notation.action_path(state, action)

    def prompt(self, state: State, seat: Seat) -> Msg:
        """``notation.prompt``."""
        return notation.prompt(state, seat)

    # ------------------------------------------------------------------ host hooks
    def timeout_action(self, state: State, seat: Seat) -> Action:
        """§11 timeouts: split → first 3 dealt; action → PASS; advance → ADVANCE;
        draw → DRAW; Guardian window → ALLOW; Sacrifice → lowest number then id; Grace →
        first drawn up to the cap; refill → draw order.

        Raises:
            NotYourTurn: the seat is not to move (or is chance).
        """
        self._check_can_act(state, seat)
        if seat == CHANCE:
            raise NotYourTurn("Chance has no timeout.")
        if state["phase"] == "split":
            return {"type": "split", "public": list(state["hands"][seat][:PUBLIC_SIZE])}
        stage = state["stage"]
        fixed: dict[str | None, ActionType] = {"action": "pass", "react": "allow", "advance": "advance", "draw_offer": "draw"}
        if stage in fixed:
            return {"type": fixed[stage]}
        if stage == "sac_discard":
            return {"type": "lose", "card": min(state["public"][seat], key=lambda c: (CARDS[c].number, c))}
        if stage == "grace_keep":
            return {"type": "keep", "cards": list(state["buffer"][: grace_room(state, seat)])}
        if stage == "refill_assign":
            return {"type": "assign", "public": list(state["buffer"][: state["refill_a"]])}
        return copy.deepcopy(self.legal_actions(state, seat)[0])

    def timeout_seconds(self, state: State, seats: frozenset[Seat], default: int) -> int:
        """Seconds to wait for ``seats`` (§11, our reading in rules.md): a Guardian window
        waits ``reaction_timeout`` hours, every other decision ``turn_timeout`` hours; an
        option left at 0 (the default) means the lobby's move timer ``default``."""
        options = state["options"]
        hours = int((options.get("reaction_timeout") if state.get("stage") == "react"
                     else options.get("turn_timeout")) or 0)
        return hours * 3600 if hours > 0 else default

    def auto_action(self, state: State, seat: Seat, preferences: Mapping[str, object]) -> Action | None:
        """Pre-set answers (§1 per-player preferences, D20, D29, D30): ``auto_advance``
        plays ADVANCE at the advancement offer, ``auto_draw`` plays DRAW at the draw offer;
        in a Guardian window ``guardian_pref`` ``auto_guard`` plays the lowest-id Guardian
        in hand (ALLOW at once without one) and ``never`` plays ALLOW at once (an instant
        ALLOW may come from either, so it does not reveal the hand). None otherwise."""
        if seat == CHANCE or state.get("phase") != "play" or seat not in to_move(state):
            return None
        stage = state["stage"]
        if stage == "advance" and preferences.get("auto_advance"):
            return {"type": "advance"}
        if stage == "draw_offer" and preferences.get("auto_draw"):
            return {"type": "draw"}
        if stage == "react":
            pref = preferences.get("guardian_pref", "ask")
            if pref == "never":
                return {"type": "allow"}
            if pref == "auto_guard":
                guards = sorted(c for c in state["hands"][seat] if CARDS[c].kind == "guardian")
                return {"type": "guard", "card": guards[0]} if guards else {"type": "allow"}
        return None
