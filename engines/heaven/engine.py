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
from typing import cast

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
    validate_options,
)
from engines.heaven.types import Action, ActionType, Options, State

from . import chance, flow, view
from .data import CARD_IDS, CARDS, DEAL, OPTIONS, PREFERENCES, PUBLIC_SIZE
from .effects import card_plans
from .rules import (
    build_of,
    card_ref,
    chain_of,
    chance_of,
    end_reason,
    event,
    grace_room,
    grace_subsets,
    new_turn,
    order_seat,
    to_move,
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
            flow.apply_split(st, seat, action, ev)
        else:
            flow.apply_turn(st, seat, action, ev)
        return st, tuple(ev)

    @staticmethod
    def _illegal_message(state: State, action: Action) -> str:
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
            flow.start_turn(st, ev)
            return
        if action["type"] == "destroy":
            t, cid = ch["seat"], action["card"]
            st["hands"][t].remove(cid)
            st["discard"].append(cid)
            st["chance"] = None
            ev.append(event("destroy", seat=seat_ref(t), card=card_ref(cid)))
            flow.after_action(st, ev)
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
        flow.continue_draw(st, ev)


    # -- state_version 1 logs: a USE declared in steps ---------------------------
    def _legacy_step(self, state: State, action: Action) -> Callable[[State, Action, list[Event]], None] | None:
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
            flow.declare(st, card, copy.deepcopy(chosen), ev)

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

    def reveals(self, before: State, seat: Seat, action: Action, after: State) -> bool:
        """A card hidden before (a hand, the draw pile, the cards a player drew and must still
        place) lies face up after: played, discarded, put into a public set (§7,
        ``view.reveals``); or an ALLOW that lets a Repentance or Wrath purge run, which shows
        what of the purger's hand (if any) is of the purged side, even nothing (§5.4, D23)."""
        if view.reveals(before, after):
            return True
        use = before["use"]
        return action.get("type") == "allow" and use is not None and len(use["windows"]) == 1 \
            and not use["cancelled"] and chain_of(use["card"], use["plan"])[0] in ("repentance", "wrath") \
            and bool(before["hands"][order_seat(before)])

    def undoable(self, before: State, seat: Seat, action: Action, after: State) -> bool:
        """§5.7 and D34: no action can be undone after it is confirmed."""
        return False

    # ------------------------------------------------------------------ notation and texts
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
