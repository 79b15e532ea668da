"""The Road to Canterbury rules engine: the flow of a turn (docs/rules/canterbury.md §3–§8).

Players are crooked pardoners: each turn they play one card (a Sin card on a pilgrim,
a Pardon for coins, or a Relic), refill their hand, resolve pilgrim deaths and may take
a Last Rites turn. After the fifth death majorities pay out.

The state (shape in ``engines/canterbury/rules.py``) keeps a ``stack`` of pending steps
(frames); the top frame says who acts next: a player decision (``play``, ``give``,
``isidore``, ``philip``, ``turn`` at T2 or T4) or a ``chance`` outcome
(``engines/canterbury/chance.py``). ``flow.advance`` runs every automatic step until a
decision is needed (§5.11). Cards are the table of ``engines/canterbury/effects.py``;
a card play is one action naming the card and its target (``sin greed red``), which
the panel reaches by steps (``action_path``, §11 "Prompts").

Old logs (``state_version`` 1) played a card in taps that were actions of their own:
``choose`` a card, ``company`` (a relic's pilgrim), ``back``, and a pass as ``pass`` →
``discard`` … → ``confirm``. ``apply`` still accepts them (``_apply_legacy``) so stored
games replay; only the pass needs to remember its discards (``pass_discards`` on the
play frame) until its ``confirm``.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Mapping

from engines.base import (
    CHANCE,
    EngineInfo,
    Event,
    GameEngine,
    IllegalAction,
    NotYourTurn,
    Outcome,
    Seat,
    check_player_count,
    copy_state,
    seat_ref,
    validate_options,
)
from engines.canterbury import chance, flow, view
from engines.canterbury.data import (
    CARDS,
    COMPANIES,
    DECKS,
    EDITION,
    HAND_SIZE,
    PILGRIMS,
    ROAD_VALUES,
    ROW_SIZE,
    ROWS,
    SINS,
    TIMEOUT_SOURCES,
)
from engines.canterbury.effects import (
    add_to_hand,
    allowed_types,
    card_plays,
    card_t,
    cards_list,
    check_doom,
    company_t,
    deck_t,
    on,
    pass_legal,
    place_on,
    play,
    play_frame,
    sin_t,
    take_from_hand,
    targets,
    timeout_play,
)
from engines.canterbury.rules import (
    discard_limit,
    discard_sets,
    distinct,
    end_reason,
    final_scores,
    hand_type,
    is_over,
    sort_cards,
    source_ok,
    sources,
)
from engines.canterbury.types import Action, Frame, State

_LEGACY = frozenset({"choose", "company", "back", "discard", "confirm"})


class CanterburyEngine(GameEngine[State, Action, view.PublicView | view.PrivateView]):
    """The Road to Canterbury (docs/rules/canterbury.md). 2–3 players, option ``edition``.

    Player actions: at a card choice (T1, a follow-up, a St. Vitus play) a card play
    (``sin``, ``pardon``, ``relic`` with its targets), ``pass`` with ``discard`` (T1) or
    ``done`` (follow-ups); relic sub-steps ``give``, ``keep``, ``parson``; ``draw`` (T2);
    ``lastrites`` (T4). Chance actions: ``first_player``, ``parson_start``, ``pilgrim``,
    ``reveal`` (a deck draw) and ``steal`` (St. Benedict).
    """

    info = EngineInfo(
        game_id="canterbury",
        name="The Road to Canterbury",
        native_name="The Road to Canterbury",
        min_players=2,
        max_players=3,
        options=(EDITION,),
        has_hidden_info=True,
        state_version=2,
    )

    # ------------------------------------------------------------------ lifecycle
    def new_game(self, players: int, seed: int, options: Mapping[str, object] | None = None) -> State:
        """Initial state; the setup (§3) is a series of chance steps.

        Raises:
            InvalidOptions: bad player count or option.
        """
        check_player_count(self.info, players)
        opts = validate_options(self.info, options)
        n = players
        decks: dict[str, dict[str, int]] = {d: {} for d in DECKS}
        for c in CARDS.values():
            decks[c.deck][c.id] = c.count
        stack: list[Frame] = [{"f": "setup_done"}]
        for r in reversed(ROWS):
            for slot in reversed(range(ROW_SIZE)):
                stack.append({"f": "chance", "what": "reveal", "deck": r, "purpose": "setup_row", "slot": slot})
        for seat in reversed(range(n)):
            stack += [{"f": "chance", "what": "reveal", "deck": "sin", "purpose": "setup_hand", "seat": seat}
                      for _ in range(HAND_SIZE)]
        for co in reversed(COMPANIES):
            stack.append({"f": "chance", "what": "pilgrim", "company": co})
        stack.append({"f": "chance", "what": "parson_start"})
        stack.append({"f": "chance", "what": "first_player"})
        return {
            "game": self.info.game_id,
            "state_version": self.info.state_version,
            "players": n,
            "options": {"edition": str(opts["edition"])},
            "active": 0,
            "lastrites_turn": False,
            "turn": 0,
            "hands": [[] for _ in range(n)],
            "coins": [0] * n,
            "decks": decks,
            "discards": {d: [] for d in DECKS},
            "rows": {r: [None] * ROW_SIZE for r in ROWS},
            "aside": [],
            "parson": None,
            "companies": {
                c: {"pilgrim": None, "cards": [], "cubes": [0] * n, "doomed": False, "dead": []}
                for c in COMPANIES
            },
            "doom_order": [],
            "circle": [[] for _ in range(n)],
            "centre": [0] * n,
            "completions": [],
            "road": [[0] * n for _ in ROAD_VALUES],
            "deaths": 0,
            "tokens": [0] * n,
            "token_supply": 0,
            "stack": stack,
        }

    # ------------------------------------------------------------------ queries
    def to_move(self, state: State) -> frozenset[Seat]:
        """``{CHANCE}``, ``{active seat}`` or empty when the game is over (§4: only the
        active player ever acts)."""
        if is_over(state) or not state["stack"]:
            return frozenset()
        if state["stack"][-1]["f"] == "chance":
            return frozenset({CHANCE})
        return frozenset({int(state["active"])})

    def outcome(self, state: State) -> Outcome | None:
        """Final scores and winners once the fifth pilgrim died (§8)."""
        if not is_over(state):
            return None
        final = final_scores(state)
        return Outcome(
            scores=tuple(float(x) for x in final["totals"]),
            ranking=tuple(final["ranking"]),
            winners=frozenset(final["winners"]),
            reason=end_reason(final),
        )

    def scores(self, state: State) -> tuple[float, ...]:
        """Public score per seat: coins are secret during play (D20), so 0 until the
        end, then the final totals."""
        if not is_over(state):
            return tuple(0.0 for _ in range(state["players"]))
        return tuple(float(x) for x in final_scores(state)["totals"])

    def legal_actions(self, state: State, seat: Seat) -> list[Action]:
        """Every legal action of ``seat`` now, in display order (§5, §11)."""
        if seat not in self.to_move(state):
            return []
        top = state["stack"][-1]
        f = top["f"]
        if f == "chance":
            return chance.chance_actions(state)
        if f == "play":
            acts = card_plays(state, top["ctx"])
            if top["ctx"] != "main":
                return [*acts, {"type": "done"}]
            if pass_legal(state):
                acts += [{"type": "pass", "discard": cards} for cards in discard_sets(state)]
            return acts
        if f == "give":
            return [{"type": "give", "card": k} for k in distinct(state["hands"][state["active"]])]
        if f == "isidore":
            return [{"type": "keep", "card": k} for k in distinct(top["drawn"])]
        if f == "philip":
            acts = [{"type": "parson", "sin": s} for s in SINS if s != state["parson"]]
            return [*acts, {"type": "parson", "sin": "later" if top["stage"] == "before" else "stay"}]
        if f == "turn" and top["stage"] == "t2":
            return [{"type": "draw", "source": src} for src in sources(state)]
        if f == "turn" and top["stage"] == "t4":
            return [{"type": "lastrites", "choice": "use"}, {"type": "lastrites", "choice": "keep"}]
        return []  # pragma: no cover - automatic frames never wait

    def sample_chance(self, state: State, rng: random.Random) -> Action:
        """Sample the pending chance outcome (§6).

        Raises:
            NotYourTurn: no chance outcome is pending.
        """
        if CHANCE not in self.to_move(state):
            raise NotYourTurn("No chance outcome is pending.")
        return chance.sample_chance(state, rng)

    # ------------------------------------------------------------------ apply
    def apply(self, state: State, seat: Seat, action: Action) -> tuple[State, tuple[Event, ...]]:
        """Validate and apply one action (§4–§6); automatic steps follow.

        Raises:
            GameOver: the game has ended.
            NotYourTurn: ``seat`` is not to move.
            IllegalAction: the action is not legal now (also for impossible scripted
                chance outcomes).
        """
        self._check_can_act(state, seat)
        if not isinstance(action, dict) or not isinstance(action.get("type"), str):
            raise IllegalAction("An action must be an object with a 'type'.", code="malformed_action")
        s = copy_state(state)
        events: list[Event] = []
        if seat == CHANCE:
            chance.check_outcome(state, action)
            self._apply_chance(s, action, events)
        else:
            cards = action.get("discard") if action["type"] == "pass" else None
            if isinstance(cards, list) and all(isinstance(k, str) and k in CARDS for k in cards):
                action = {**action, "discard": sort_cards(cards)}  # typed in any order
            if action in self.legal_actions(state, seat):
                self._apply_player(s, action, events)
            elif not self._apply_legacy(s, action, events):
                raise IllegalAction(self._illegal_message(state, action), action=action)
        flow.advance(s, events)
        return s, tuple(events)

    def _illegal_message(self, state: State, action: Action) -> str:
        t = action.get("type")
        top = state["stack"][-1]
        if t == "pardon":
            return "A Pardon needs a face-up card of that sin on that pilgrim."
        if t == "pass":
            if top["f"] == "play" and top["ctx"] == "main":
                return ("You may only pass with at least 3 coins or when no card is playable, and discard "
                        "cards from your hand (2021 edition: at most 3).")
            return "You cannot pass now."
        if t in ("sin", "relic"):
            return "You cannot play that card that way now."
        if t == "draw":
            return "You cannot draw from there now (hand full or source empty)."
        if t == "lastrites":
            return "You cannot use Last Rites now."
        return f"That move is not legal now: {t}."

    # -- chance
    def _apply_chance(self, s: State, action: Action, events: list[Event]) -> None:
        top = s["stack"][-1]
        t = action["type"]
        if t == "reveal":
            self._reveal(s, top, action["card"], events)
            return
        s["stack"].pop()
        if t == "first_player":
            s["active"] = action["seat"]
            events.append(Event("first_player", params={"seat": seat_ref(action["seat"])}))
        elif t == "parson_start":
            s["parson"] = action["sin"]
            events.append(Event("parson_start", params={"sin": sin_t(action["sin"])}))
        elif t == "pilgrim":
            co, pid = top["company"], action["pilgrim"]
            s["companies"][co].update({"pilgrim": pid, "cards": [], "cubes": [0] * s["players"], "doomed": False})
            events.append(Event("pilgrim", params={**on(s, co), "sin": sin_t(PILGRIMS[pid])}))
        elif t == "steal":
            target, actor, kind = top["target"], s["active"], action["card"]
            take_from_hand(s, target, kind)
            add_to_hand(s, actor, kind)
            who = {"seat": seat_ref(actor), "target": seat_ref(target)}
            events.append(Event("steal", params=who | {"card": card_t(kind)}, visible_to=frozenset({actor, target})))
            events.append(Event("steal_public", params=who | {"deck": deck_t(top["deck"])}))

    def _reveal(self, s: State, top: Frame, kind: str, events: list[Event]) -> None:
        """A face-down draw (§6 ``draw``): Death cards go to their pilgrim and the draw is
        repeated (§5.7; set aside during setup, §3 step 4)."""
        deck = top["deck"]
        s["decks"][deck][kind] -= 1
        if s["decks"][deck][kind] == 0:
            del s["decks"][deck][kind]
        purpose = top["purpose"]
        card = CARDS[kind]
        if card.kind == "death":
            if purpose.startswith("setup"):
                s["aside"].append(kind)
                events.append(Event("death_aside", params={"company": company_t(card.company)}))
                return
            place_on(s, card.company, kind)
            events.append(Event("death_card", params=on(s, card.company)))
            check_doom(s, card.company, events, token_seat=None)
            return
        s["stack"].pop()
        seat = s["active"]
        if purpose == "setup_hand":
            add_to_hand(s, top["seat"], kind)
        elif purpose in ("setup_row", "row"):
            s["rows"][deck][top["slot"]] = kind
            if purpose == "row":
                events.append(Event("row", params={"card": card_t(kind), "deck": deck_t(deck),
                                                   "slot": top["slot"] + 1}))
        elif purpose == "hand":
            add_to_hand(s, seat, kind)
            events.append(Event("draw", params={"card": card_t(kind)}, visible_to=frozenset({seat})))
            events.append(Event("draw_public", params={"seat": seat_ref(seat), "deck": deck_t(deck)}))
        elif purpose == "isidore":
            frame = next(f for f in reversed(s["stack"]) if f["f"] == "isidore")
            frame["drawn"] = sort_cards(frame["drawn"] + [kind])
            events.append(Event("isidore_draw", params={"card": card_t(kind)}, visible_to=frozenset({seat})))

    # -- player
    def _apply_player(self, s: State, action: Action, events: list[Event]) -> None:
        top = s["stack"][-1]
        f = top["f"]
        t = action["type"]
        seat = s["active"]
        if f == "play":
            s["stack"].pop()
            if t == "pass":
                flow.pass_cards(s, action["discard"], events)
            elif t == "done":
                if top["ctx"] == "vitus":
                    flow.frame(s, "vitus")["left"] = 0
                events.append(Event("done", params={"seat": seat_ref(seat)}))
            else:
                play(s, action, events)
        elif f == "give":
            kind, target = action["card"], top["target"]
            take_from_hand(s, seat, kind)
            add_to_hand(s, target, kind)
            s["stack"].pop()
            who = {"seat": seat_ref(seat), "target": seat_ref(target)}
            events.append(Event("give", params=who | {"card": card_t(kind)}, visible_to=frozenset({seat, target})))
            events.append(Event("give_public", params=who))
        elif f == "isidore":
            kind = action["card"]
            drawn = list(top["drawn"])
            drawn.remove(kind)
            add_to_hand(s, seat, kind)
            s["discards"][top["deck"]] += drawn
            s["stack"].pop()
            events.append(Event("keep", params={"card": card_t(kind)}, visible_to=frozenset({seat})))
            events.append(Event("isidore_discard", params={"seat": seat_ref(seat), "cards": cards_list(drawn).to_json()}))
        elif f == "philip":
            if action["sin"] in SINS:
                s["parson"] = action["sin"]
                top["moved"] = True
                events.append(Event("philip_parson", params={"sin": sin_t(action["sin"])}))
            if top["stage"] == "before":
                top["stage"] = "after"
                s["stack"].append(play_frame("followup"))
            else:
                s["stack"].pop()
        elif f == "turn" and t == "draw":
            flow.draw(s, action["source"], events)
        elif f == "turn" and t == "lastrites":
            if action["choice"] == "use":
                s["tokens"][seat] -= 1
                events.append(Event("lastrites", params={"seat": seat_ref(seat)}))
                flow.start_turn(s, seat, True, events)
            else:
                flow.next_turn(s, events)

    def _apply_legacy(self, s: State, action: Action, events: list[Event]) -> bool:
        """A tap of a stored old log (module docstring); False when ``action`` is not one
        that is valid now. ``choose``, ``company`` and ``back`` only navigated; the pass
        collects its discards until ``confirm``."""
        top = s["stack"][-1]
        t = action["type"]
        if top["f"] != "play" or (t not in _LEGACY and not (t == "pass" and "discard" not in action)):
            return False
        pending: list[str] | None = top.get("pass_discards")
        if t == "choose":
            kind = action.get("card")
            return (pending is None and isinstance(kind, str) and kind in s["hands"][s["active"]]
                    and hand_type(kind) in allowed_types(top["ctx"]) and bool(targets(s, kind)))
        if t == "company":
            return pending is None
        if t == "back":
            top.pop("pass_discards", None)
            return True
        if t == "pass":
            if pending is not None or top["ctx"] != "main" or not pass_legal(s):
                return False
            top["pass_discards"] = []
            return True
        if pending is None:
            return False
        if t == "discard":
            rest = list(s["hands"][s["active"]])
            for k in pending:
                rest.remove(k)
            if len(pending) >= discard_limit(s) or action.get("card") not in rest:
                return False
            pending.append(action["card"])
            return True
        s["stack"].pop()  # confirm
        flow.pass_cards(s, pending, events)  # in the order they were tapped, as the old engine did
        return True


    # ------------------------------------------------------------------ views
    def player_view(self, state: State, seat: Seat | None) -> view.PublicView | view.PrivateView:
        """Public board plus, for a seat, its hand and coins (§7, §11; ``view.py``)."""
        return view.player_view(state, seat, sorted(self.to_move(state)))

    def shuffle_hidden(self, state: State, seat: Seat | None, rng: random.Random) -> State:
        """Hands of other seats swapped with unseen cards of the same back, their coins
        changed (``view.shuffle_hidden``)."""
        return view.shuffle_hidden(state, seat, rng)

    def reveals(self, before: State, seat: Seat, action: Action, after: State) -> bool:
        """A card left a hand (§7: hands are secret): played, discarded on a pass or by
        St. Bernard, given by St. Benedict; and every pass, whose fine shows the coins
        (§5.5: 3 coins, or all of them when nothing is playable; ``view.reveals``)."""
        return action.get("type") == "pass" or view.reveals(before, after)

    def undoable(self, before: State, seat: Seat, action: Action, after: State) -> bool:
        """§5.11: no action can be undone (every committed action reveals a card, moves public
        pieces or triggers a draw)."""
        return False

    # ------------------------------------------------------------------ notation and text
    # ------------------------------------------------------------------ timeouts
    def timeout_action(self, state: State, seat: Seat) -> Action:
        """Auto-play on timeout (§11 Timeouts).

        Raises:
            NotYourTurn / GameOver: the seat is not to move.
        """
        self._check_can_act(state, seat)
        acts = self.legal_actions(state, seat)
        top = state["stack"][-1]
        f = top["f"]
        if f == "turn" and top["stage"] == "t2":
            return {"type": "draw", "source": next(src for src in TIMEOUT_SOURCES if source_ok(state, src))}
        if f == "turn" and top["stage"] == "t4":
            return {"type": "lastrites", "choice": "keep"}
        if f == "philip":
            return {"type": "parson", "sin": "later" if top["stage"] == "before" else "stay"}
        if f == "play":
            if top["ctx"] != "main":
                return {"type": "done"}
            best = timeout_play(state)
            return best if best is not None else {"type": "pass", "discard": []}
        return copy.deepcopy(acts[0])



__all__ = ["CanterburyEngine"]
