"""The Road to Canterbury rules engine: the flow of a turn (docs/rules/canterbury.md §3–§8).

Players are crooked pardoners: each turn they play one card (a Sin card on a pilgrim,
a Pardon for coins, or a Relic), refill their hand, resolve pilgrim deaths and may take
a Last Rites turn. After the fifth death majorities pay out.

The state (shape in ``engines/canterbury/rules.py``) keeps a ``stack`` of pending steps
(frames); the top frame says who acts next: a player decision (``play``, ``give``,
``isidore``, ``philip``, ``turn`` at T2 or T4) or a ``chance`` outcome
(``engines/canterbury/chance.py``). ``_advance`` runs every automatic step until a
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
from collections.abc import Mapping, Sequence
from typing import Any

from engines.base import (
    CHANCE,
    EngineInfo,
    Event,
    GameEngine,
    IllegalAction,
    Msg,
    NotYourTurn,
    Outcome,
    Seat,
    check_player_count,
    copy_state,
    msg,
    normalize_text,
    seat_ref,
    seats_ref,
    validate_options,
)
from engines.canterbury import chance, notation, view
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
    TABLES,
    TIMEOUT_SOURCES,
    TURN_CAP,
)
from engines.canterbury.effects import (
    EMPTY,
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
    death_winners,
    discard_limit,
    discard_sets,
    distinct,
    end_reason,
    final_scores,
    hand_type,
    is_over,
    lastrites_allowed,
    pass_fine,
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

    def typed_moves(self, state: State, seat: Seat) -> list[Action]:
        """Autocomplete offers every legal action except passes that discard (there are
        dozens; ``pass discard a,b`` is still accepted when typed)."""
        return [a for a in self.legal_actions(state, seat) if not (a["type"] == "pass" and a["discard"])]

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
        self._advance(s, events)
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
                self._pass(s, action["discard"], events)
            elif t == "done":
                if top["ctx"] == "vitus":
                    self._frame(s, "vitus")["left"] = 0
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
            self._draw(s, action["source"], events)
        elif f == "turn" and t == "lastrites":
            if action["choice"] == "use":
                s["tokens"][seat] -= 1
                events.append(Event("lastrites", params={"seat": seat_ref(seat)}))
                self._start_turn(s, seat, True, events)
            else:
                self._next_turn(s, events)

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
        self._pass(s, pending, events)  # in the order they were tapped, as the old engine did
        return True

    def _pass(self, s: State, cards: list[str], events: list[Event]) -> None:
        """§5.5: pay the fine (or all coins when nothing is playable) and discard."""
        seat = s["active"]
        fine = pass_fine(s)
        s["coins"][seat] -= fine
        for kind in cards:
            take_from_hand(s, seat, kind)
            s["discards"][hand_type(kind)].append(kind)
        events.append(Event("pass", params={"seat": seat_ref(seat), "cards": cards_list(cards).to_json()}))
        events.append(Event("fine", params={"fine": fine}, visible_to=frozenset({seat})))

    def _draw(self, s: State, source: str, events: list[Event]) -> None:
        """§5.10: take a face-up card (its slot is refilled) or draw from a deck."""
        seat = s["active"]
        name, _, rest = source.partition("-")
        if rest.startswith("row:"):
            slot = int(rest[4:]) - 1
            kind = s["rows"][name][slot]
            assert kind is not None, "a row slot offered holds a card"
            s["rows"][name][slot] = None
            add_to_hand(s, seat, kind)
            events.append(Event("take", params={"seat": seat_ref(seat), "card": card_t(kind), "deck": deck_t(name)}))
            s["stack"].append({"f": "chance", "what": "reveal", "deck": name, "purpose": "row", "slot": slot})
        else:
            s["stack"].append({"f": "chance", "what": "reveal", "deck": name, "purpose": "hand"})

    @staticmethod
    def _frame(s: State, f: str) -> Frame:
        frame: Frame = next(fr for fr in reversed(s["stack"]) if fr["f"] == f)
        return frame

    # ------------------------------------------------------------------ automatic steps
    def _advance(self, s: State, events: list[Event]) -> None:
        """Run automatic steps until a decision or chance outcome is needed (§5.11)."""
        while s["stack"] and not is_over(s):
            top = s["stack"][-1]
            f = top["f"]
            if f == "chance":
                if top["what"] == "reveal" and sum(s["decks"][top["deck"]].values()) == 0:
                    deck = top["deck"]
                    if s["discards"][deck]:  # the discard pile becomes the deck (D21)
                        for k in s["discards"][deck]:
                            s["decks"][deck][k] = s["decks"][deck].get(k, 0) + 1
                        s["discards"][deck] = []
                        events.append(Event("reshuffle", params={"deck": deck_t(deck)}))
                    else:
                        s["stack"].pop()  # nothing to draw: the source is unavailable
                    continue
                return
            if f == "play":
                if top["ctx"] != "main" and not any(hand_type(k) in allowed_types(top["ctx"])
                                                    for k in s["hands"][s["active"]]):
                    s["stack"].pop()  # skipped as `done` (§5.11)
                    if top["ctx"] == "vitus":
                        self._frame(s, "vitus")["left"] = 0
                    continue
                return
            if f == "give":
                return
            if f == "philip":
                if top["stage"] == "after" and top["moved"]:
                    s["stack"].pop()
                    continue
                return
            if f == "isidore":
                deck = top["deck"]
                avail = sum(s["decks"][deck].values()) + len(s["discards"][deck]) > 0
                if top["stage"] == "draw" and top["left"] > 0 and avail:
                    top["left"] -= 1
                    s["stack"].append({"f": "chance", "what": "reveal", "deck": deck, "purpose": "isidore"})
                    continue
                top["stage"] = "keep"
                if top["drawn"]:
                    return
                s["stack"].pop()
                continue
            if f == "vitus":
                if top["left"] > 0 and s["hands"][s["active"]]:
                    top["left"] -= 1
                    s["stack"].append(play_frame("vitus"))
                else:
                    s["stack"].pop()
                continue
            if f == "discard_relic":
                s["stack"].pop()
                s["discards"]["relic"].append(top["card"])
                continue
            if f == "setup_done":
                s["stack"].pop()
                for k in s["aside"]:
                    s["decks"]["sin"][k] = s["decks"]["sin"].get(k, 0) + 1
                s["aside"] = []
                s["coins"] = [TABLES["start_coins"]] * s["players"]
                s["token_supply"] = TABLES["last_rites_tokens"]
                self._start_turn(s, s["active"], False, events)
                continue
            if f == "turn":
                if self._turn_step(s, top, events):
                    return
                continue
            raise AssertionError(f"unknown frame {f}")  # pragma: no cover

    def _start_turn(self, s: State, seat: int, lastrites: bool, events: list[Event]) -> None:
        s["stack"] = [{"f": "turn", "stage": "t1"}]
        s["active"] = seat
        s["lastrites_turn"] = lastrites
        s["turn"] += 1
        events.append(Event("lastrites_turn" if lastrites else "turn", params={"seat": seat_ref(seat),
                                                                               "turn": s["turn"]}))
        if s["turn"] > TURN_CAP:
            events.append(Event("cap", params={}))
            self._finish(s, events)

    def _next_turn(self, s: State, events: list[Event]) -> None:
        self._start_turn(s, (s["active"] + 1) % s["players"], False, events)

    def _turn_step(self, s: State, top: Frame, events: list[Event]) -> bool:
        """One automatic step of the turn frame (§4 T1–T5); True when a decision is needed."""
        stage = top["stage"]
        if stage == "t1":
            top["stage"] = "t2start"
            s["stack"].append(play_frame("main"))
            return False
        if stage == "t2start":
            top["stage"] = "t2"
            for r in reversed(ROWS):
                for slot in reversed(range(ROW_SIZE)):
                    if s["rows"][r][slot] is None:
                        s["stack"].append({"f": "chance", "what": "reveal", "deck": r, "purpose": "row",
                                           "slot": slot})
            return False
        if stage == "t2":
            if any(source_ok(s, src) for src in TIMEOUT_SOURCES):
                return True
            top["stage"] = "t3"
            return False
        if stage == "t3":
            if s["doom_order"]:
                co = s["doom_order"].pop(0)
                self._resolve_death(s, co, events)
                if not is_over(s):
                    s["stack"].append({"f": "chance", "what": "pilgrim", "company": co})
                return False
            top["stage"] = "t4"
            return False
        if stage == "t4":
            if lastrites_allowed(s):
                return True
            self._next_turn(s, events)
            return False
        raise AssertionError(stage)  # pragma: no cover

    def _resolve_death(self, s: State, co: str, events: list[Event]) -> None:
        """§5.8 steps 1–6."""
        comp = s["companies"][co]
        n = s["players"]
        k = s["deaths"] + 1
        value = ROAD_VALUES[k - 1]
        cubes = comp["cubes"]
        winners, tiebreak = death_winners(s, co)
        where = on(s, co)
        if not winners:
            for q in range(n):
                s["road"][k - 1][q] += 1
            events.append(Event("death_unpardoned", params=where | {"space": k}))
        else:
            for q in winners:
                cubes[q] -= 1
                s["road"][k - 1][q] += 1
                s["coins"][q] += value
            events.append(Event("death", params=where | {
                "winners": seats_ref(winners), "space": k, "coins": value,
                "tiebreak": (msg("text.sin_tiebreak") if tiebreak else EMPTY).to_json()}))
        for card in comp["cards"]:
            s["discards"][hand_type(card["kind"])].append(card["kind"])
        pilgrim = comp["pilgrim"]
        assert pilgrim is not None, co
        comp["dead"].append({"pilgrim": pilgrim, "cubes": list(cubes)})
        comp.update({"pilgrim": None, "cards": [], "cubes": [0] * n, "doomed": False})
        s["deaths"] = k
        if k >= len(ROAD_VALUES):
            events.append(Event("end", params={}))
            self._finish(s, events)

    def _finish(self, s: State, events: list[Event]) -> None:
        """§8: the journey is over (``rules.is_over``); announce the final scoring."""
        s["stack"] = []
        final = final_scores(s)
        events.append(Event("final", params={"reason": end_reason(final).to_json()}))
        for q in final["ranking"]:
            events.append(Event("final_row", params={
                "seat": seat_ref(q), "coins": final["coins"][q], "road": final["road"][q],
                **{co: final["companies"][co][q] for co in COMPANIES},
                "tokens": final["tokens"][q], "total": final["totals"][q], "strength": final["strength"][q]}))

    # ------------------------------------------------------------------ views
    def player_view(self, state: State, seat: Seat | None) -> view.PublicView | view.PrivateView:
        """Public board plus, for a seat, its hand and coins (§7, §11; ``view.py``)."""
        return view.player_view(state, seat, sorted(self.to_move(state)))

    def shuffle_hidden(self, state: State, seat: Seat | None, rng: random.Random) -> State:
        """Hands of other seats swapped with unseen cards of the same back, their coins
        changed (``view.shuffle_hidden``)."""
        return view.shuffle_hidden(state, seat, rng)

    # ------------------------------------------------------------------ notation and text
    def describe_action(self, state: State, action: Action) -> str:
        """Short canonical notation (§5.1, §5.6): ``sin greed red``, ``pass discard …``."""
        return notation.describe(action)

    def parse_action(self, state: State, seat: Seat, text: str) -> Action:
        """Parse typed notation into a legal action (§5.1); ``pass discard`` names its cards
        in any order.

        Raises:
            NotYourTurn, GameOver: as ``apply``.
            IllegalAction: nothing legal matches ``text``.
        """
        self._check_can_act(state, seat)
        legal = self.legal_actions(state, seat)
        wanted = normalize_text(text)
        for action in legal:
            if normalize_text(notation.describe(action)) == wanted:
                return copy.deepcopy(action)
        typed = notation.parse_pass(text)
        if typed is not None and typed in legal:
            return typed
        raise IllegalAction(f"'{text.strip()}' is not a legal move now.", code="unknown_move", text=text)

    def action_label(self, state: State, action: Action) -> Msg:
        """Button text saying what the action does (§11 "Prompts")."""
        return notation.label(state, action)

    def action_path(self, state: State, action: Action) -> tuple[Msg, ...]:
        """The card (and a relic's pilgrim) before a card play; "Pass" and the number of
        discards before a pass (``notation.path``)."""
        return notation.path(state, action)

    def prompt(self, state: State, seat: Seat) -> Msg:
        """What ``seat`` must decide now (public)."""
        if seat == CHANCE or seat not in self.to_move(state):
            return Msg("host.nothing")
        return notation.prompt(state)

    # ------------------------------------------------------------------ timeouts
    def replay_marks(self, states: Sequence[State], views: Sequence[Mapping[str, Any]]) -> list[Msg | None]:
        """Spec §4: the game is a sequence of turns of the active player (T1–T5), a Last
        Rites turn (T4, §5.9) among them; each position is in the turn under way, by its
        number and player (the board's ``board.turn`` / ``board.turn_lastrites``), the
        set-up before turn 1 in none, the end in ``board.game_over`` (§8).
        (``Engine.replay_marks``)"""
        out: list[Msg | None] = []
        for s in states:
            if s["turn"] == 0:
                out.append(None)
            elif not self.to_move(s):
                out.append(msg("board.game_over"))
            else:
                out.append(msg("board.turn_lastrites" if s["lastrites_turn"] else "board.turn",
                               turn=s["turn"], player=seat_ref(s["active"])))
        return out

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
