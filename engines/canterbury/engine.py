"""The Road to Canterbury rules engine (spec ``docs/rules/canterbury.md``).

Players are crooked pardoners: each turn they play one card (a Sin card on a
pilgrim, a Pardon for coins, or a Relic), refill their hand, resolve pilgrim
deaths and may take a Last Rites turn. After the fifth death majorities pay out.

State layout (a JSON-ready dict; see ``CanterburyEngine.new_game``): hands, coins,
decks (multisets ``{kind: copies}``), discard piles, face-up rows, companies with
their pilgrim, cards, cubes and dead pile, the Circle of Sin, the Road, tokens and
a ``stack`` of pending steps (frames). The top frame says who acts next: a player
decision or a ``CHANCE`` outcome. ``_advance`` runs every automatic step until a
decision is needed (spec §4, §5.11).
"""

from __future__ import annotations

import copy
import csv
import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engines.base import (
    CHANCE,
    Action,
    Engine,
    EngineInfo,
    Event,
    GameOver,
    IllegalAction,
    NotYourTurn,
    OptionSpec,
    Outcome,
    Seat,
    State,
    check_player_count,
    normalize_text,
    rank_seats,
    validate_options,
)

_DIR = Path(__file__).parent


# --------------------------------------------------------------------------- data


@dataclass(frozen=True)
class CardKind:
    """One row of ``canterbury_cards.csv`` (spec §2.3)."""

    id: str
    deck: str
    kind: str
    sin: str
    company: str
    count: int
    name_en: str
    name_zh: str


@dataclass(frozen=True)
class Pilgrim:
    """One row of ``canterbury_pilgrims.csv`` (spec §2.2)."""

    id: str
    name_en: str
    sin: str


def _load() -> tuple[dict[str, Any], dict[str, CardKind], dict[str, Pilgrim]]:
    tables: dict[str, Any] = json.loads((_DIR / "canterbury_tables.json").read_text(encoding="utf-8"))
    cards: dict[str, CardKind] = {}
    with (_DIR / "canterbury_cards.csv").open(encoding="utf-8", newline="") as fh:
        for row in csv.DictReader(fh):
            card = CardKind(
                row["id"], row["deck"], row["kind"], row["sin"], row["company"],
                int(row["count"]), row["name_en"], row["name_zh"],
            )
            cards[card.id] = card
    pilgrims: dict[str, Pilgrim] = {}
    with (_DIR / "canterbury_pilgrims.csv").open(encoding="utf-8", newline="") as fh:
        for row in csv.DictReader(fh):
            pilgrims[row["id"]] = Pilgrim(row["id"], row["name_en"], row["sin"])
    sins = tables["sins"]
    totals = {d: sum(c.count for c in cards.values() if c.deck == d) for d in tables["decks"]}
    if totals != {"sin": 44, "pardon": 21, "relic": 12}:
        raise RuntimeError(f"canterbury card data: bad deck sizes {totals}")
    for c in cards.values():
        if c.kind in ("sin", "pardon") and c.sin not in sins:
            raise RuntimeError(f"canterbury card data: bad sin in {c.id}")
        if c.kind == "death" and c.company not in tables["companies"]:
            raise RuntimeError(f"canterbury card data: bad company in {c.id}")
    if sorted(p.sin for p in pilgrims.values()) != sorted(sins):
        raise RuntimeError("canterbury pilgrim data: every sin needs one pilgrim")
    return tables, cards, pilgrims


TABLES, CARDS, PILGRIMS = _load()
SINS: tuple[str, ...] = tuple(TABLES["sins"])
SIN_NAMES: dict[str, str] = TABLES["sin_names"]
COMPANIES: tuple[str, ...] = tuple(TABLES["companies"])
DECKS: tuple[str, ...] = tuple(TABLES["decks"])
ROWS: tuple[str, ...] = tuple(TABLES["rows"])
CARD_ORDER: tuple[str, ...] = tuple(CARDS)
_ORDER_INDEX = {k: i for i, k in enumerate(CARD_ORDER)}
RELICS: tuple[str, ...] = tuple(c.id[len("relic-"):] for c in CARDS.values() if c.kind == "relic")
NICHOLAS = "relic-nicholas"
FOLLOWUP = ["sin", "pardon"]
ALL_TYPES = ["sin", "pardon", "relic"]
TWO_STEP_RELICS = ("wilgefortis", "jonah")
SOURCES: tuple[str, ...] = (
    "sin-row:1", "sin-row:2", "sin-row:3", "pardon-row:1", "pardon-row:2", "pardon-row:3",
    "sin-deck", "pardon-deck", "relic-deck",
)
TIMEOUT_SOURCES: tuple[str, ...] = (
    "sin-deck", "pardon-deck", "relic-deck",
    "sin-row:1", "sin-row:2", "sin-row:3", "pardon-row:1", "pardon-row:2", "pardon-row:3",
)
DECK_NAMES = {"sin": "Sin", "pardon": "Pardon", "relic": "Relic"}
RELIC_HELP = {
    "felix": "pardon one sin on a pilgrim, no coins",
    "bernard": "others discard one Pardon kind",
    "hildegard": "gain 5 coins",
    "vincent": "remove one cube from a pilgrim",
    "benedict": "swap a card with an opponent",
    "philip": "move the Parson, then play a card",
    "wilgefortis": "move a face-up card to another pilgrim",
    "nicholas": "a Death card on a pilgrim, then play a card",
    "vitus": "play up to 2 more cards",
    "anselm": "place one of your cubes",
    "isidore": "draw 3 from a deck, keep 1, then play a card",
    "jonah": "remove a card from a pilgrim, then play a card",
}
HILDEGARD_COINS = 5


def card_name(kind: str) -> str:
    """English display name of a card kind ("Greed (Sin card)")."""
    return CARDS[kind].name_en


def short_name(kind: str) -> str:
    """Short display name: "Greed", "Pardon of Greed", "Death (red)", "St. Felix's Hairball"."""
    c = CARDS[kind]
    if c.kind == "sin":
        return SIN_NAMES[c.sin]
    if c.kind == "death":
        return f"Death ({c.company})"
    return c.name_en


def hand_type(kind: str) -> str:
    """The card back (deck) of a kind: ``sin``, ``pardon`` or ``relic``."""
    return CARDS[kind].deck


def sort_cards(cards: Sequence[str]) -> list[str]:
    """Cards in the row order of the card data file."""
    return sorted(cards, key=lambda k: _ORDER_INDEX[k])


def sin_on(kind: str, pilgrim_sin: str) -> str:
    """The sin of a card lying on a pilgrim (spec §2.3): a Sin card its own sin,
    a Death card or the Underpants the pilgrim's sin."""
    c = CARDS[kind]
    return c.sin if c.kind == "sin" else pilgrim_sin


def _seat_tag(seat: int) -> str:
    return f"{{p{seat}}}"


def _awards(table: str, players: int) -> list[int]:
    return list(TABLES[table][str(players)])


def place_awards(counts: Sequence[int], strength: Sequence[int], awards: Sequence[int]) -> list[int]:
    """Majority awards (spec §8 "Placing players"): only players with ≥1 cube are
    placed; order by count then circle strength; equal players share the first
    award of their group and use up as many places. Returns the award per seat."""
    placed = sorted((s for s in range(len(counts)) if counts[s] > 0),
                    key=lambda s: (-counts[s], -strength[s]))
    out = [0] * len(counts)
    i = 0
    while i < len(placed):
        j = i
        key = (counts[placed[i]], strength[placed[i]])
        while j < len(placed) and (counts[placed[j]], strength[placed[j]]) == key:
            j += 1
        value = awards[i] if i < len(awards) else 0
        for s in placed[i:j]:
            out[s] = value
        i = j
    return out


def pardon_coins(points: int) -> int:
    """Coins for pardon points (spec §2.5, D3): 1/4/9/16, capped at 16."""
    table: list[int] = TABLES["pardon_payout"]
    return table[min(points, len(table) - 1)]


# --------------------------------------------------------------------------- engine


class CanterburyEngine(Engine):
    """The Road to Canterbury (spec canterbury). 2–3 players, option ``edition``.

    Actions (player seats), each one step of a sequential decision:
    ``choose`` a hand card / ``pass`` / ``done`` → a target (``sin``, ``pardon``,
    ``relic``, ``company`` for two-step relics, ``back``) → relic sub-steps
    (``give``, ``keep``, ``parson``) → ``draw`` (T2) → ``lastrites`` (T4).
    Chance actions: ``first_player``, ``parson_start``, ``pilgrim``, ``reveal``
    (a deck draw) and ``steal`` (St. Benedict).
    """

    info = EngineInfo(
        game_id="canterbury",
        name="The Road to Canterbury",
        native_name="The Road to Canterbury",
        min_players=2,
        max_players=3,
        options=(
            OptionSpec(
                key="edition",
                default="2021",
                choices=("2021", "2011"),
                description="2021 rules (discard ≤3 when passing, no two Last Rites in a row) or 2011.",
            ),
        ),
        has_hidden_info=True,
        state_version=1,
    )

    # ------------------------------------------------------------------ lifecycle
    def new_game(self, players: int, seed: int, options: Any = None) -> State:
        """Initial state; the setup (spec §3) is a series of chance steps.

        Raises:
            InvalidOptions: bad player count or option.
        """
        check_player_count(self.info, players)
        opts = validate_options(self.info, options)
        n = players
        decks: dict[str, dict[str, int]] = {d: {} for d in DECKS}
        for c in CARDS.values():
            decks[c.deck][c.id] = c.count
        rs = TABLES["row_size"]
        state: State = {
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
            "rows": {r: [None] * rs for r in ROWS},
            "aside": [],
            "parson": None,
            "pilgrim_deck": list(PILGRIMS),
            "companies": {
                c: {"pilgrim": None, "cards": [], "cubes": [0] * n, "doomed": False, "dead": []}
                for c in COMPANIES
            },
            "doom_order": [],
            "circle": [[] for _ in range(n)],
            "centre": [0] * n,
            "completions": [],
            "road": [[0] * n for _ in TABLES["road_values"]],
            "deaths": 0,
            "tokens": [0] * n,
            "token_supply": 0,
            "in_play": [],
            "notes": [[] for _ in range(n)],
            "over": False,
            "final": None,
            "stack": [],
        }
        stack: list[dict[str, Any]] = [{"f": "setup_done"}]
        for r in reversed(ROWS):
            for slot in reversed(range(rs)):
                stack.append({"f": "chance", "what": "reveal", "deck": r, "purpose": "setup_row", "slot": slot})
        for seat in reversed(range(n)):
            for _ in range(TABLES["hand_size"]):
                stack.append({"f": "chance", "what": "reveal", "deck": "sin", "purpose": "setup_hand", "seat": seat})
        for co in reversed(COMPANIES):
            stack.append({"f": "chance", "what": "pilgrim", "company": co})
        stack.append({"f": "chance", "what": "parson_start"})
        stack.append({"f": "chance", "what": "first_player"})
        state["stack"] = stack
        return state

    # ------------------------------------------------------------------ queries
    def to_move(self, state: State) -> frozenset[Seat]:
        """``{CHANCE}``, ``{active seat}`` or empty when the game is over."""
        if state["over"] or not state["stack"]:
            return frozenset()
        top = state["stack"][-1]
        if top["f"] == "chance":
            return frozenset({CHANCE})
        return frozenset({int(state["active"])})

    def outcome(self, state: State) -> Outcome | None:
        """Final scores and winners once the fifth pilgrim died (spec §8)."""
        final = state.get("final")
        if not state["over"] or final is None:
            return None
        return Outcome(
            scores=tuple(float(x) for x in final["totals"]),
            ranking=tuple(final["ranking"]),
            winners=frozenset(final["winners"]),
            reason=str(final["reason"]),
        )

    def scores(self, state: State) -> tuple[float, ...]:
        """Public score per seat: coins are secret during play (D20), so 0 until the
        end, then the final totals."""
        final = state.get("final")
        if final is None:
            return tuple(0.0 for _ in range(state["players"]))
        return tuple(float(x) for x in final["totals"])

    def circle_strength(self, state: State, seat: int) -> int:
        """Cubes on the 7 sin spaces + 7 × cubes in the centre (spec §2.6)."""
        return int(len(state["circle"][seat]) + TABLES["centre_weight"] * state["centre"][seat])

    # ------------------------------------------------------------------ legal actions
    def legal_actions(self, state: State, seat: Seat) -> list[Action]:
        """Every legal action of ``seat`` now, in display order (spec §5, §11)."""
        if state["over"] or seat not in self.to_move(state):
            return []
        top = state["stack"][-1]
        f = top["f"]
        if f == "chance":
            return self._chance_actions(state, top)
        if f == "play":
            return self._play_actions(state, top)
        if f == "give":
            return [{"type": "give", "card": k} for k in _distinct(state["hands"][state["active"]])]
        if f == "isidore":
            return [{"type": "keep", "card": k} for k in _distinct(top["drawn"])]
        if f == "philip":
            acts: list[Action] = [{"type": "parson", "sin": s} for s in SINS if s != state["parson"]]
            acts.append({"type": "parson", "sin": "later" if top["stage"] == "before" else "stay"})
            return acts
        if f == "turn":
            if top["stage"] == "t2":
                return [{"type": "draw", "source": src} for src in SOURCES if self._source_ok(state, src)]
            if top["stage"] == "t4":
                return [{"type": "lastrites", "choice": "use"}, {"type": "lastrites", "choice": "keep"}]
        return []

    def _chance_actions(self, state: State, top: dict[str, Any]) -> list[Action]:
        what = top["what"]
        if what == "first_player":
            return [{"type": "first_player", "seat": s} for s in range(state["players"])]
        if what == "parson_start":
            return [{"type": "parson_start", "sin": s} for s in SINS]
        if what == "pilgrim":
            return [{"type": "pilgrim", "pilgrim": p} for p in state["pilgrim_deck"]]
        if what == "reveal":
            deck = state["decks"][top["deck"]]
            return [{"type": "reveal", "card": k} for k in sort_cards([k for k, v in deck.items() if v > 0])]
        if what == "steal":
            hand = state["hands"][top["target"]]
            return [{"type": "steal", "card": k} for k in _distinct(hand) if hand_type(k) == top["deck"]]
        return []

    def _chance_weights(self, state: State, top: dict[str, Any]) -> list[tuple[Action, int]]:
        acts = self._chance_actions(state, top)
        if top["what"] == "reveal":
            deck = state["decks"][top["deck"]]
            return [(a, deck[a["card"]]) for a in acts]
        if top["what"] == "steal":
            hand = state["hands"][top["target"]]
            return [(a, hand.count(a["card"])) for a in acts]
        return [(a, 1) for a in acts]

    def sample_chance(self, state: State, rng: random.Random) -> Action:
        """Sample the pending chance outcome (spec §6 distributions).

        Raises:
            NotYourTurn: no chance outcome is pending.
        """
        if CHANCE not in self.to_move(state):
            raise NotYourTurn("No chance outcome is pending.")
        weighted = self._chance_weights(state, state["stack"][-1])
        total = sum(w for _, w in weighted)
        r = rng.randrange(total)
        for action, w in weighted:
            if r < w:
                return copy.deepcopy(action)
            r -= w
        raise AssertionError("unreachable")  # pragma: no cover

    # -- T1 / follow-ups / Vitus plays
    def _play_actions(self, state: State, frame: dict[str, Any]) -> list[Action]:
        seat = state["active"]
        hand = state["hands"][seat]
        if frame["passing"]:
            acts: list[Action] = []
            rest = list(hand)
            for k in frame["disc"]:
                rest.remove(k)
            if len(frame["disc"]) < self._discard_limit(state):
                acts += [{"type": "discard", "card": k} for k in _distinct(rest)]
            acts.append({"type": "confirm"})
            acts.append({"type": "back"})
            return acts
        sel = frame["sel"]
        if sel is None:
            acts = [{"type": "choose", "card": k} for k in _distinct(hand)
                    if hand_type(k) in frame["allow"] and self._targets(state, k, None)]
            if frame["ctx"] == "main":
                if self._pass_legal(state):
                    acts.append({"type": "pass"})
            else:
                acts.append({"type": "done"})
            return acts
        return self._targets(state, sel, frame["co"]) + [{"type": "back"}]

    def _discard_limit(self, state: State) -> int:
        if state["options"]["edition"] == "2011":
            return int(TABLES["hand_size"]) * 10
        return int(TABLES["pass_discard_limit_2021"])

    def _any_play(self, state: State) -> bool:
        return any(self._targets(state, k, None) for k in _distinct(state["hands"][state["active"]]))

    def _pass_legal(self, state: State) -> bool:
        """Spec §5.1 pass: ≥3 coins, or nothing playable (D16)."""
        return state["coins"][state["active"]] >= TABLES["pass_fine"] or not self._any_play(state)

    def _living(self, state: State) -> list[str]:
        return [c for c in COMPANIES if state["companies"][c]["pilgrim"] is not None]

    def _pilgrim_sin(self, state: State, company: str) -> str:
        return PILGRIMS[state["companies"][company]["pilgrim"]].sin

    def _pardonable(self, state: State, company: str, sin: str) -> int:
        """Number of face-up cards whose sin on that pilgrim is ``sin``."""
        comp = state["companies"][company]
        if comp["pilgrim"] is None:
            return 0
        psin = self._pilgrim_sin(state, company)
        return sum(1 for card in comp["cards"] if card["up"] and sin_on(card["kind"], psin) == sin)

    def _targets(self, state: State, kind: str, company: str | None) -> list[Action]:
        """Legal full actions for playing ``kind`` (for two-step relics: the
        ``company`` pre-step when ``company`` is None)."""
        c = CARDS[kind]
        living = self._living(state)
        if c.kind == "sin":
            return [{"type": "sin", "sin": c.sin, "company": co} for co in living]
        if c.kind == "pardon":
            return [{"type": "pardon", "sin": c.sin, "company": co} for co in living
                    if self._pardonable(state, co, c.sin)]
        if c.kind != "relic":
            return []
        relic = kind[len("relic-"):]
        seat = state["active"]
        n = state["players"]
        others = [(seat + i) % n for i in range(1, n)]
        acts: list[Action] = []
        base = {"type": "relic", "relic": relic}
        if relic == "felix":
            for co in living:
                for s in SINS:
                    if self._pardonable(state, co, s):
                        acts.append({**base, "company": co, "sin": s})
        elif relic == "bernard":
            acts = [{**base, "sin": s} for s in SINS]
        elif relic in ("hildegard", "philip", "vitus"):
            acts = [dict(base)]
        elif relic == "vincent":
            for co in living:
                for q in others + [seat]:
                    if state["companies"][co]["cubes"][q] > 0:
                        acts.append({**base, "company": co, "player": q})
        elif relic == "benedict":
            for q in others:
                hand = state["hands"][q]
                for y in DECKS:
                    if any(hand_type(k) == y for k in hand):
                        acts.append({**base, "player": q, "deck": y})
        elif relic == "nicholas":
            acts = [{**base, "company": co} for co in living]
        elif relic == "anselm":
            acts = [{**base, "pilgrim": co} for co in living]
            acts += [{**base, "circle": s} for s in SINS if s not in state["circle"][seat]]
        elif relic == "isidore":
            acts = [{**base, "deck": d} for d in DECKS
                    if sum(state["decks"][d].values()) + len(state["discards"][d]) > 0]
        elif relic == "wilgefortis":
            froms = [co for co in living if any(cd["up"] for cd in state["companies"][co]["cards"])]
            if len(living) < 2:
                froms = []
            if company is None:
                return [{"type": "company", "company": co} for co in froms]
            if company in froms:
                kinds = _distinct([cd["kind"] for cd in state["companies"][company]["cards"] if cd["up"]])
                for k in kinds:
                    for to in living:
                        if to != company:
                            acts.append({**base, "company": company, "card": k, "to": to})
        elif relic == "jonah":
            froms = [co for co in living if state["companies"][co]["cards"]]
            if company is None:
                return [{"type": "company", "company": co} for co in froms]
            if company in froms:
                cards = state["companies"][company]["cards"]
                for k in _distinct([cd["kind"] for cd in cards]):
                    for face, up in (("up", True), ("down", False)):
                        if any(cd["kind"] == k and cd["up"] == up for cd in cards):
                            acts.append({**base, "company": company, "card": k, "face": face})
        return acts

    def _source_ok(self, state: State, src: str) -> bool:
        if len(state["hands"][state["active"]]) >= TABLES["hand_size"]:
            return False
        name, _, rest = src.partition("-")
        if rest.startswith("row:"):
            return state["rows"][name][int(rest[4:]) - 1] is not None
        return bool(sum(state["decks"][name].values()) + len(state["discards"][name]) > 0)

    # ------------------------------------------------------------------ apply
    def apply(self, state: State, seat: Seat, action: Action) -> tuple[State, tuple[Event, ...]]:
        """Validate and apply one step (spec §4–§6); automatic steps follow.

        Raises:
            GameOver: the game has ended.
            NotYourTurn: ``seat`` is not to move.
            IllegalAction: the action is not among ``legal_actions`` (also for
                impossible scripted chance outcomes).
        """
        if state["over"]:
            raise GameOver("The game is over.")
        if seat not in self.to_move(state):
            raise NotYourTurn("It is not your turn.", seat=seat)
        if not isinstance(action, dict) or not isinstance(action.get("type"), str):
            raise IllegalAction("An action must be an object with a 'type'.", code="malformed_action")
        if action not in self.legal_actions(state, seat):
            steps = self._expand(state, seat, action)
            if steps is None:
                raise IllegalAction(self._illegal_message(state, seat, action), action=action)
            # a whole move typed at once (spec §5.1 notation): the panel's steps in a row
            done: list[Event] = []
            for step in steps:
                state, evs = self.apply(state, seat, step)
                done += evs
            return state, tuple(done)
        s = copy.deepcopy(state)
        events: list[Event] = []
        if seat == CHANCE:
            self._apply_chance(s, action, events)
        else:
            self._apply_player(s, action, events)
        self._advance(s, events)
        return s, tuple(events)

    # -- whole moves in one go (typed notation)
    def _expand(self, state: State, seat: Seat, action: Action) -> list[Action] | None:
        """The panel steps a whole typed move stands for, or None when it is not one.

        At a card choice (T1, a follow-up, a St. Vitus play) the spec's notation names a
        whole move: ``sin greed red`` = choose ``sin-greed`` then ``sin greed red``;
        ``relic jonah red sin-pride down`` adds the pilgrim step; ``pass discard a,b`` =
        pass, discard each card, confirm. Each step is checked when it is applied.
        """
        if seat == CHANCE or not state["stack"]:
            return None
        top = state["stack"][-1]
        if top["f"] != "play" or top["sel"] is not None or top["passing"]:
            return None
        t = action.get("type")
        if t == "pass" and isinstance(action.get("discard"), list) and set(action) == {"type", "discard"}:
            cards = action["discard"]
            if not all(isinstance(k, str) and k in CARDS for k in cards):
                return None
            return [{"type": "pass"}, *({"type": "discard", "card": k} for k in cards), {"type": "confirm"}]
        if t not in ("sin", "pardon", "relic"):
            return None
        try:
            card = _card_of(action)
        except (KeyError, TypeError):
            return None
        if card not in CARDS:
            return None
        steps: list[Action] = [{"type": "choose", "card": card}]
        if t == "relic" and action.get("relic") in TWO_STEP_RELICS:
            steps.append({"type": "company", "company": action.get("company")})
        return [*steps, action]

    def typed_moves(self, state: State, seat: Seat) -> list[Action]:
        """Moves a player may type now (autocomplete): at a card choice every whole move
        (card and target, spec §5.1 notation) plus ``pass``/``done``; otherwise the legal
        actions. Each one is accepted by ``apply``."""
        acts = self.legal_actions(state, seat)
        if seat == CHANCE or not acts or not state["stack"]:
            return acts
        top = state["stack"][-1]
        if top["f"] != "play" or top["sel"] is not None or top["passing"]:
            return acts
        out: list[Action] = []
        for a in acts:
            if a["type"] != "choose":
                out.append(a)
                continue
            for target in self._targets(state, a["card"], None):
                if target["type"] == "company":
                    out += self._targets(state, a["card"], target["company"])
                else:
                    out.append(target)
        return out

    def parse_action(self, state: State, seat: Seat, text: str) -> Action:
        """Parse typed notation: a legal step, or a whole move (``sin greed red``,
        ``relic felix red greed``, ``pass discard pardon-pride,sin-wrath``; spec §5.1).

        Raises:
            NotYourTurn, GameOver: as ``apply``.
            IllegalAction: nothing legal matches ``text``.
        """
        self._check_can_act(state, seat)
        wanted = normalize_text(text)
        for action in [*self.legal_actions(state, seat), *self.typed_moves(state, seat)]:
            if normalize_text(self.describe_action(state, action)) == wanted:
                return copy.deepcopy(action)
        words = wanted.split(" ")
        if len(words) == 3 and words[:2] == ["pass", "discard"]:
            action = {"type": "pass", "discard": [k.strip() for k in words[2].split(",") if k.strip()]}
            if self._expand(state, seat, action) is not None and "pass" in [
                    a["type"] for a in self.legal_actions(state, seat)]:
                return action
        raise IllegalAction(f"'{text.strip()}' is not a legal move now.", code="unknown_move", text=text)

    def _illegal_message(self, state: State, seat: Seat, action: Action) -> str:
        t = action.get("type")
        if seat == CHANCE:
            return "That chance outcome is impossible here (the card or pilgrim is not available)."
        top = state["stack"][-1]
        if t == "pardon":
            return "A Pardon needs a face-up card of that sin on that pilgrim."
        if t == "pass":
            return ("You may only pass with at least 3 coins or when no card is playable."
                    if top["f"] == "play" and top["ctx"] == "main" else "You cannot pass now.")
        if t == "discard":
            return "You cannot discard more cards (2021 edition: at most 3) or that card is not in your hand."
        if t == "choose":
            return "You cannot play that card now."
        if t == "draw":
            return "You cannot draw from there now (hand full or source empty)."
        if t == "lastrites":
            return "You cannot use Last Rites now."
        if t == "relic":
            return "That relic cannot be played that way now."
        return f"That move is not legal now: {t}."

    # -- chance
    def _apply_chance(self, s: State, action: Action, events: list[Event]) -> None:
        top = s["stack"][-1]
        what = top["what"]
        t = action["type"]
        if t == "first_player":
            s["active"] = action["seat"]
            s["stack"].pop()
            events.append(Event("first_player", f"{_seat_tag(action['seat'])} starts.", {"seat": action["seat"]}))
        elif t == "parson_start":
            s["parson"] = action["sin"]
            s["stack"].pop()
            events.append(Event("parson", f"The Parson starts on {SIN_NAMES[action['sin']]}.",
                                {"sin": action["sin"]}))
        elif t == "pilgrim":
            co = top["company"]
            s["pilgrim_deck"].remove(action["pilgrim"])
            comp = s["companies"][co]
            comp.update({"pilgrim": action["pilgrim"], "cards": [], "cubes": [0] * s["players"], "doomed": False})
            s["stack"].pop()
            p = PILGRIMS[action["pilgrim"]]
            events.append(Event("pilgrim", f"The {p.name_en} ({SIN_NAMES[p.sin]}) joins the {co} company.",
                                {"company": co, "pilgrim": p.id}))
        elif t == "reveal" and what == "reveal":
            self._apply_reveal(s, top, action["card"], events)
        elif t == "steal":
            target = top["target"]
            actor = s["active"]
            k = action["card"]
            s["hands"][target].remove(k)
            s["hands"][actor] = sort_cards(s["hands"][actor] + [k])
            s["stack"].pop()
            pair = frozenset({actor, target})
            events.append(Event("steal", f"{_seat_tag(actor)} takes {card_name(k)} from {_seat_tag(target)}.",
                                {"card": k}, pair))
            events.append(Event("steal", f"{_seat_tag(actor)} takes a {DECK_NAMES[top['deck']]} card from "
                                f"{_seat_tag(target)}.", {"deck": top["deck"]}))
            _note(s, actor, f"St. Benedict: you took {card_name(k)} from {_seat_tag(target)}.")
            _note(s, target, f"St. Benedict: {_seat_tag(actor)} took your {card_name(k)}.")

    def _apply_reveal(self, s: State, top: dict[str, Any], k: str, events: list[Event]) -> None:
        deck = top["deck"]
        s["decks"][deck][k] -= 1
        if s["decks"][deck][k] == 0:
            del s["decks"][deck][k]
        purpose = top["purpose"]
        c = CARDS[k]
        if c.kind == "death":
            if purpose.startswith("setup"):
                s["aside"].append(k)
                events.append(Event("death_aside", f"A Death card ({c.company}) is set aside during setup.",
                                    {"card": k}))
                return  # the same draw is repeated
            self._place_on(s, c.company, k, events, token_seat=None)
            events.append(Event("death_card", f"Death Approaches! A {c.company} Death card goes onto the "
                                f"{self._pname(s, c.company)}.", {"card": k, "company": c.company}))
            self._check_doom(s, c.company, events, token_seat=None)
            return  # the draw is replaced by another draw from the Sin deck
        s["stack"].pop()
        if purpose == "setup_hand":
            s["hands"][top["seat"]] = sort_cards(s["hands"][top["seat"]] + [k])
        elif purpose in ("setup_row", "row"):
            s["rows"][deck][top["slot"]] = k
            if purpose == "row":
                events.append(Event("row", f"{card_name(k)} is turned up in the {DECK_NAMES[deck]} row "
                                    f"(slot {top['slot'] + 1}).", {"deck": deck, "slot": top["slot"], "card": k}))
        elif purpose == "hand":
            seat = s["active"]
            s["hands"][seat] = sort_cards(s["hands"][seat] + [k])
            events.append(Event("draw", f"You draw {card_name(k)}.", {"card": k}, frozenset({seat})))
            events.append(Event("draw", f"{_seat_tag(seat)} draws a card from the {DECK_NAMES[deck]} deck.",
                                {"deck": deck}))
        elif purpose == "isidore":
            frame = _find(s, "isidore")
            frame["drawn"] = sort_cards(frame["drawn"] + [k])
            seat = s["active"]
            events.append(Event("isidore_draw", f"St. Isidore shows you {card_name(k)}.", {"card": k},
                                frozenset({seat})))
            _note(s, seat, f"St. Isidore: you saw {card_name(k)}.")

    # -- player
    def _apply_player(self, s: State, action: Action, events: list[Event]) -> None:
        top = s["stack"][-1]
        f = top["f"]
        t = action["type"]
        seat = s["active"]
        if f == "play":
            if t == "choose":
                top["sel"] = action["card"]
            elif t == "pass":
                top["passing"] = True
            elif t == "discard":
                top["disc"].append(action["card"])
            elif t == "back":
                if top["passing"]:
                    top["passing"] = False
                    top["disc"] = []
                elif top["co"] is not None:
                    top["co"] = None
                else:
                    top["sel"] = None
            elif t == "company":
                top["co"] = action["company"]
            elif t == "confirm":
                self._do_pass(s, top["disc"], events)
                s["stack"].pop()
            elif t == "done":
                s["stack"].pop()
                if top["ctx"] == "vitus":
                    _find(s, "vitus")["left"] = 0
                events.append(Event("done", f"{_seat_tag(seat)} plays no further card.", {}))
            else:
                s["stack"].pop()
                self._resolve_play(s, action, events)
        elif f == "give":
            k = action["card"]
            target = top["target"]
            s["hands"][seat].remove(k)
            s["hands"][target] = sort_cards(s["hands"][target] + [k])
            s["stack"].pop()
            pair = frozenset({seat, target})
            events.append(Event("give", f"{_seat_tag(seat)} gives {card_name(k)} to {_seat_tag(target)}.",
                                {"card": k}, pair))
            events.append(Event("give", f"{_seat_tag(seat)} gives a card to {_seat_tag(target)}: "
                                "a card was exchanged.", {}))
            _note(s, seat, f"St. Benedict: you gave {card_name(k)} to {_seat_tag(target)}.")
            _note(s, target, f"St. Benedict: {_seat_tag(seat)} gave you {card_name(k)}.")
        elif f == "isidore":
            k = action["card"]
            drawn = list(top["drawn"])
            drawn.remove(k)
            s["hands"][seat] = sort_cards(s["hands"][seat] + [k])
            s["discards"][top["deck"]] += drawn
            s["stack"].pop()
            events.append(Event("keep", f"You keep {card_name(k)}.", {"card": k}, frozenset({seat})))
            shown = ", ".join(card_name(d) for d in drawn) or "nothing"
            events.append(Event("isidore_discard", f"{_seat_tag(seat)} keeps one card and discards: {shown}.",
                                {"discarded": drawn}))
        elif f == "philip":
            if action["sin"] in SINS:
                s["parson"] = action["sin"]
                top["moved"] = True
                events.append(Event("parson", f"St. Philip points: the Parson moves to "
                                    f"{SIN_NAMES[action['sin']]}.", {"sin": action["sin"]}))
            if top["stage"] == "before":
                top["stage"] = "after"
                s["stack"].append(_play_frame("followup", FOLLOWUP))
            else:
                s["stack"].pop()
        elif f == "turn":
            if t == "draw":
                self._do_draw(s, action["source"], events)
            elif t == "lastrites":
                if action["choice"] == "use":
                    s["tokens"][seat] -= 1
                    events.append(Event("lastrites", f"{_seat_tag(seat)} uses Last Rites and takes another turn.",
                                        {"seat": seat}))
                    self._start_turn(s, seat, True, events)
                else:
                    self._next_turn(s, events)

    def _do_pass(self, s: State, disc: list[str], events: list[Event]) -> None:
        """Spec §5.5: pay the fine (or all coins when nothing is playable) and discard."""
        seat = s["active"]
        fine = min(TABLES["pass_fine"], s["coins"][seat])
        s["coins"][seat] -= fine
        for k in disc:
            s["hands"][seat].remove(k)
            s["discards"][hand_type(k)].append(k)
        shown = ", ".join(card_name(k) for k in disc) or "no cards"
        events.append(Event("pass", f"{_seat_tag(seat)} plays no card, pays the fine and discards {shown}.",
                            {"seat": seat, "discarded": list(disc)}))
        events.append(Event("fine", f"You pay {fine} coin(s).", {"fine": fine}, frozenset({seat})))

    def _do_draw(self, s: State, src: str, events: list[Event]) -> None:
        """Spec §5.10: take a face-up card (slot refilled) or draw from a deck."""
        seat = s["active"]
        name, _, rest = src.partition("-")
        if rest.startswith("row:"):
            slot = int(rest[4:]) - 1
            k = s["rows"][name][slot]
            s["rows"][name][slot] = None
            s["hands"][seat] = sort_cards(s["hands"][seat] + [k])
            events.append(Event("take", f"{_seat_tag(seat)} takes {card_name(k)} from the "
                                f"{DECK_NAMES[name]} row.", {"card": k, "slot": slot}))
            s["stack"].append({"f": "chance", "what": "reveal", "deck": name, "purpose": "row", "slot": slot})
        else:
            s["stack"].append({"f": "chance", "what": "reveal", "deck": name, "purpose": "hand"})

    # -- card plays
    def _resolve_play(self, s: State, action: Action, events: list[Event]) -> None:
        seat = s["active"]
        t = action["type"]
        if t == "sin":
            k = f"sin-{action['sin']}"
            s["hands"][seat].remove(k)
            co = action["company"]
            self._place_on(s, co, k, events, token_seat=seat)
            events.append(Event("sin", f"{_seat_tag(seat)} tempts the {self._pname(s, co)} ({co}) with "
                                f"{SIN_NAMES[action['sin']]}.", {"seat": seat, "sin": action["sin"], "company": co}))
            self._circle_cube(s, seat, action["sin"], events)
            self._check_doom(s, co, events, token_seat=seat)
        elif t == "pardon":
            k = f"pardon-{action['sin']}"
            s["hands"][seat].remove(k)
            self._pardon(s, action["company"], action["sin"], events, paid=True)
            s["discards"]["pardon"].append(k)
        elif t == "relic":
            self._play_relic(s, action, events)

    def _pardon(self, s: State, co: str, sin: str, events: list[Event], *, paid: bool) -> None:
        """Spec §5.3 (``paid``) and St. Felix (§5.6, no points/coins/Parson)."""
        seat = s["active"]
        comp = s["companies"][co]
        psin = self._pilgrim_sin(s, co)
        n = 0
        for card in comp["cards"]:
            if card["up"] and sin_on(card["kind"], psin) == sin:
                card["up"] = False
                n += 1
        comp["cubes"][seat] += 1
        name = self._pname(s, co)
        if not paid:
            events.append(Event("felix", f"{_seat_tag(seat)} forgives {SIN_NAMES[sin]} on the {name} ({co}): "
                                f"{n} card(s) turned, a cube on the pilgrim, no coins.",
                                {"seat": seat, "company": co, "sin": sin, "cards": n}))
            return
        on_parson = s["parson"] == sin
        points = n + (1 if on_parson else 0)
        coins = pardon_coins(points)
        s["coins"][seat] += coins
        extra = " + Parson" if on_parson else ""
        events.append(Event("pardon", f"{_seat_tag(seat)} pardons {SIN_NAMES[sin]} on the {name} ({co}): "
                            f"{n} card(s){extra} = {points} point(s), {coins} coin(s).",
                            {"seat": seat, "company": co, "sin": sin, "cards": n, "points": points,
                             "coins": coins}))
        if on_parson:
            nxt = SINS[(SINS.index(sin) + 1) % len(SINS)]
            s["parson"] = nxt
            events.append(Event("parson", f"The Parson moves to {SIN_NAMES[nxt]}.", {"sin": nxt}))

    def _play_relic(self, s: State, action: Action, events: list[Event]) -> None:
        seat = s["active"]
        relic = action["relic"]
        k = f"relic-{relic}"
        s["hands"][seat].remove(k)
        events.append(Event("relic", f"{_seat_tag(seat)} shouts: {card_name(k).upper()}! "
                            f"({CARDS[k].name_zh})", {"seat": seat, "relic": relic}))
        stack = s["stack"]
        if relic != "nicholas":
            s["in_play"].append(k)
            stack.append({"f": "discard_relic", "card": k})
        if relic == "felix":
            self._pardon(s, action["company"], action["sin"], events, paid=False)
        elif relic == "bernard":
            p = f"pardon-{action['sin']}"
            for q in range(s["players"]):
                if q == seat:
                    continue
                n = s["hands"][q].count(p)
                for _ in range(n):
                    s["hands"][q].remove(p)
                    s["discards"]["pardon"].append(p)
                events.append(Event("bernard", f"{_seat_tag(q)} discards {n} {card_name(p)} card(s).",
                                    {"seat": q, "card": p, "count": n}))
        elif relic == "hildegard":
            s["coins"][seat] += HILDEGARD_COINS
            events.append(Event("hildegard", f"{_seat_tag(seat)} gains {HILDEGARD_COINS} coins.", {"seat": seat}))
        elif relic == "vincent":
            co, q = action["company"], action["player"]
            s["companies"][co]["cubes"][q] -= 1
            events.append(Event("vincent", f"One of {_seat_tag(q)}'s cubes leaves the {self._pname(s, co)} ({co}).",
                                {"company": co, "player": q}))
        elif relic == "benedict":
            q = action["player"]
            stack.append({"f": "give", "target": q})
            stack.append({"f": "chance", "what": "steal", "target": q, "deck": action["deck"]})
            events.append(Event("benedict", f"{_seat_tag(seat)} reaches for a {DECK_NAMES[action['deck']]} card "
                                f"of {_seat_tag(q)}.", {"player": q, "deck": action["deck"]}))
        elif relic == "philip":
            stack.append({"f": "philip", "stage": "before", "moved": False})
        elif relic == "wilgefortis":
            src, kind, to = action["company"], action["card"], action["to"]
            cards = s["companies"][src]["cards"]
            idx = max(i for i, cd in enumerate(cards) if cd["kind"] == kind and cd["up"])
            cards.pop(idx)
            self._place_on(s, to, kind, events, token_seat=seat)
            events.append(Event("wilgefortis", f"{short_name(kind)} moves from the {self._pname(s, src)} ({src}) "
                                f"to the {self._pname(s, to)} ({to}).", {"from": src, "card": kind, "to": to}))
            self._check_doom(s, to, events, token_seat=seat)
        elif relic == "nicholas":
            co = action["company"]
            stack.append(_play_frame("followup", FOLLOWUP))
            self._place_on(s, co, NICHOLAS, events, token_seat=seat)
            events.append(Event("nicholas", f"The Underpants land on the {self._pname(s, co)} ({co}) as a Death card.",
                                {"company": co}))
            self._check_doom(s, co, events, token_seat=seat)
        elif relic == "vitus":
            stack.append({"f": "vitus", "left": 2})
        elif relic == "anselm":
            if "pilgrim" in action:
                co = action["pilgrim"]
                s["companies"][co]["cubes"][seat] += 1
                events.append(Event("anselm", f"{_seat_tag(seat)} puts a cube on the {self._pname(s, co)} ({co}).",
                                    {"company": co}))
            else:
                self._circle_cube(s, seat, action["circle"], events)
        elif relic == "isidore":
            stack.append(_play_frame("followup", FOLLOWUP))
            stack.append({"f": "isidore", "deck": action["deck"], "left": 3, "drawn": [], "stage": "draw"})
        elif relic == "jonah":
            co, kind, up = action["company"], action["card"], action["face"] == "up"
            stack.append(_play_frame("followup", FOLLOWUP))
            cards = s["companies"][co]["cards"]
            idx = max(i for i, cd in enumerate(cards) if cd["kind"] == kind and cd["up"] == up)
            cards.pop(idx)
            s["discards"][hand_type(kind)].append(kind)
            events.append(Event("jonah", f"{short_name(kind)} ({action['face']}) is removed from the "
                                f"{self._pname(s, co)} ({co}).", {"company": co, "card": kind}))

    # -- board helpers
    def _pname(self, s: State, co: str) -> str:
        pid = s["companies"][co]["pilgrim"]
        return PILGRIMS[pid].name_en if pid else f"{co} company"

    def _place_on(self, s: State, co: str, kind: str, events: list[Event], token_seat: int | None) -> None:
        s["companies"][co]["cards"].append({"kind": kind, "up": True})

    def _check_doom(self, s: State, co: str, events: list[Event], token_seat: int | None) -> None:
        """Spec §5.7: the 7th card dooms; the active player's own placement earns a token."""
        comp = s["companies"][co]
        if comp["doomed"] or comp["pilgrim"] is None or len(comp["cards"]) < TABLES["doom_cards"]:
            return
        comp["doomed"] = True
        s["doom_order"].append(co)
        events.append(Event("doom", f"The {self._pname(s, co)} ({co}) is doomed and will die this turn.",
                            {"company": co}))
        if token_seat is not None:
            if s["token_supply"] > 0:
                s["token_supply"] -= 1
                s["tokens"][token_seat] += 1
                events.append(Event("token", f"{_seat_tag(token_seat)} gains a Last Rites token.",
                                    {"seat": token_seat}))

    def _circle_cube(self, s: State, seat: int, sin: str, events: list[Event]) -> None:
        """Spec §5.2 step 2 and §5.4 completion."""
        circle = s["circle"][seat]
        if sin in circle:
            return
        circle.append(sin)
        s["circle"][seat] = [x for x in SINS if x in circle]
        if len(s["circle"][seat]) < len(SINS):
            return
        award = 0
        if seat not in s["completions"]:
            rank = len(s["completions"])
            s["completions"].append(seat)
            awards = _awards("completion_awards", s["players"])
            award = awards[rank] if rank < len(awards) else 0
            s["coins"][seat] += award
        s["centre"][seat] += 1
        s["circle"][seat] = []
        events.append(Event("completion", f"{_seat_tag(seat)} completes the Circle of Sin"
                            + (f" and gains {award} coins" if award else "") + "; one cube goes to the centre.",
                            {"seat": seat, "award": award}))

    # ------------------------------------------------------------------ automatic steps
    def _advance(self, s: State, events: list[Event]) -> None:
        """Run automatic steps until a decision or chance outcome is needed (§5.11)."""
        while not s["over"] and s["stack"]:
            top = s["stack"][-1]
            f = top["f"]
            seat = s["active"]
            if f == "chance":
                if top["what"] == "reveal":
                    deck = top["deck"]
                    if sum(s["decks"][deck].values()) == 0:
                        if s["discards"][deck]:
                            for k in s["discards"][deck]:
                                s["decks"][deck][k] = s["decks"][deck].get(k, 0) + 1
                            s["discards"][deck] = []
                            events.append(Event("reshuffle", f"The {DECK_NAMES[deck]} discard pile becomes "
                                                f"the new {DECK_NAMES[deck]} deck.", {"deck": deck}))
                            continue
                        s["stack"].pop()  # nothing to draw: the source is unavailable (D21)
                        continue
                return
            if f == "play":
                if top["ctx"] != "main" and top["sel"] is None and not any(
                        hand_type(k) in top["allow"] for k in s["hands"][seat]):
                    s["stack"].pop()
                    if top["ctx"] == "vitus":
                        _find(s, "vitus")["left"] = 0
                    continue
                return
            if f in ("give", "philip"):
                if f == "philip" and top["stage"] == "after" and top["moved"]:
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
                if top["left"] > 0 and s["hands"][seat]:
                    top["left"] -= 1
                    s["stack"].append(_play_frame("vitus", ALL_TYPES))
                else:
                    s["stack"].pop()
                continue
            if f == "discard_relic":
                s["stack"].pop()
                s["in_play"].remove(top["card"])
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
        s["notes"][seat] = s["notes"][seat][-6:]
        kind = "Last Rites turn" if lastrites else "turn"
        events.append(Event("turn", f"{_seat_tag(seat)}'s {kind} begins.", {"seat": seat, "turn": s["turn"]}))
        if s["turn"] > TABLES["turn_cap"]:
            events.append(Event("cap", "The road is too long: the game ends at the turn limit.", {}))
            self._finish(s, events)

    def _next_turn(self, s: State, events: list[Event]) -> None:
        self._start_turn(s, (s["active"] + 1) % s["players"], False, events)

    def _turn_step(self, s: State, top: dict[str, Any], events: list[Event]) -> bool:
        """One automatic step of the turn frame; True when a decision is needed."""
        stage = top["stage"]
        seat = s["active"]
        if stage == "t1":
            top["stage"] = "t2start"
            s["stack"].append(_play_frame("main", ALL_TYPES))
            return False
        if stage == "t2start":
            top["stage"] = "t2"
            for r in reversed(ROWS):
                for slot in reversed(range(TABLES["row_size"])):
                    if s["rows"][r][slot] is None:
                        s["stack"].append({"f": "chance", "what": "reveal", "deck": r, "purpose": "row",
                                           "slot": slot})
            return False
        if stage == "t2":
            if any(self._source_ok(s, src) for src in SOURCES):
                return True
            top["stage"] = "t3"
            return False
        if stage == "t3":
            if s["doom_order"]:
                co = s["doom_order"].pop(0)
                self._resolve_death(s, co, events)
                if not s["over"]:
                    s["stack"].append({"f": "chance", "what": "pilgrim", "company": co})
                return False
            top["stage"] = "t4"
            return False
        if stage == "t4":
            ok = s["tokens"][seat] > 0 and (s["options"]["edition"] == "2011" or not s["lastrites_turn"])
            if ok:
                return True
            self._next_turn(s, events)
            return False
        raise AssertionError(stage)  # pragma: no cover

    def _resolve_death(self, s: State, co: str, events: list[Event]) -> None:
        """Spec §5.8 steps 1–6."""
        comp = s["companies"][co]
        n = s["players"]
        k = s["deaths"] + 1
        v = TABLES["road_values"][k - 1]
        cubes = comp["cubes"]
        name = self._pname(s, co)
        if sum(cubes) == 0:
            for q in range(n):
                s["road"][k - 1][q] += 1
            events.append(Event("death", f"The {name} ({co}) dies unpardoned: every player puts a cube on "
                                f"Road space {k}; nobody scores.", {"company": co, "space": k, "winners": []}))
        else:
            best = max(cubes)
            tied = [q for q in range(n) if cubes[q] == best]
            tiebreak = len(tied) > 1
            if tiebreak:
                sins = {q: sum(1 for c in s["hands"][q] if CARDS[c].kind == "sin") for q in tied}
                most = max(sins.values())
                tied = [q for q in tied if sins[q] == most]
            for q in tied:
                cubes[q] -= 1
                s["road"][k - 1][q] += 1
                s["coins"][q] += v
            who = ", ".join(_seat_tag(q) for q in tied)
            why = " (tie broken by Sin cards in hand)" if tiebreak else ""
            events.append(Event("death", f"The {name} ({co}) dies. {who} moves a cube to Road space {k} and "
                                f"gains {v} coins{why}.", {"company": co, "space": k, "winners": tied, "coins": v}))
        for card in comp["cards"]:
            s["discards"][hand_type(card["kind"])].append(card["kind"])
        comp["dead"].append({"pilgrim": comp["pilgrim"], "cubes": list(cubes)})
        comp.update({"pilgrim": None, "cards": [], "cubes": [0] * n, "doomed": False})
        s["deaths"] = k
        if k >= len(TABLES["road_values"]):
            events.append(Event("end", "The fifth pilgrim has died: the journey ends.", {}))
            self._finish(s, events)

    def _finish(self, s: State, events: list[Event]) -> None:
        """Spec §8 final scoring."""
        n = s["players"]
        strength = [self.circle_strength(s, q) for q in range(n)]
        road = [sum(space[q] for space in s["road"]) for q in range(n)]
        road_aw = place_awards(road, strength, _awards("road_awards", n))
        comp_aw: dict[str, list[int]] = {}
        for co in COMPANIES:
            comp = s["companies"][co]
            counts = [comp["cubes"][q] + sum(d["cubes"][q] for d in comp["dead"]) for q in range(n)]
            comp_aw[co] = place_awards(counts, strength, _awards("company_awards", n))
        tokens = [TABLES["token_value"] * s["tokens"][q] for q in range(n)]
        totals = [s["coins"][q] + road_aw[q] + sum(comp_aw[co][q] for co in COMPANIES) + tokens[q]
                  for q in range(n)]
        ranking = rank_seats(totals, strength)
        top = ranking[0]
        winners = [q for q in range(n) if totals[q] == totals[top] and strength[q] == strength[top]]
        if len(winners) > 1:
            reason = "Shared win: " + ", ".join(_seat_tag(q) for q in winners) + f" with {totals[top]} coins."
        elif sum(1 for q in range(n) if totals[q] == totals[top]) > 1:
            reason = f"{_seat_tag(top)} wins with {totals[top]} coins on circle strength {strength[top]}."
        else:
            reason = f"{_seat_tag(top)} wins with {totals[top]} coins."
        s["final"] = {
            "coins": list(s["coins"]),
            "road": road_aw,
            "companies": comp_aw,
            "tokens": tokens,
            "strength": strength,
            "totals": totals,
            "ranking": list(ranking),
            "winners": winners,
            "reason": reason,
        }
        s["over"] = True
        s["stack"] = []
        lines = "; ".join(
            f"{_seat_tag(q)}: coins {s['coins'][q]} + Road {road_aw[q]} + "
            + " + ".join(f"{co} {comp_aw[co][q]}" for co in COMPANIES)
            + f" + tokens {tokens[q]} = {totals[q]}" for q in range(n))
        ties = ", ".join(f"{_seat_tag(q)} {strength[q]}" for q in range(n))
        events.append(Event("final", f"Final scoring — {lines}. Circle strength (tie-breaks): {ties}. {reason}",
                            {"final": s["final"]}))

    # ------------------------------------------------------------------ views
    def player_view(self, state: State, seat: Seat | None) -> dict[str, Any]:
        """Public board (no hands, coins, deck contents) plus, for a seat, its
        hand, coins and notes (spec §7, §11)."""
        n = state["players"]
        top = state["stack"][-1] if state["stack"] else None
        companies = {}
        for co in COMPANIES:
            comp = state["companies"][co]
            pid = comp["pilgrim"]
            companies[co] = {
                "pilgrim": pid,
                "pilgrim_name": PILGRIMS[pid].name_en if pid else None,
                "sin": PILGRIMS[pid].sin if pid else None,
                "cards": [{"kind": c["kind"], "up": c["up"]} for c in comp["cards"]],
                "count": len(comp["cards"]),
                "doomed": comp["doomed"],
                "cubes": list(comp["cubes"]),
                "dead": [{"pilgrim": d["pilgrim"], "cubes": list(d["cubes"])} for d in comp["dead"]],
            }
        step = "over" if state["over"] else "chance"
        if top is not None and top["f"] != "chance":
            step = {"play": "play", "give": "give", "isidore": "keep", "philip": "parson"}.get(top["f"], "")
            if top["f"] == "play":
                step = {"main": "play", "followup": "followup", "vitus": "vitus"}[top["ctx"]]
            elif top["f"] == "turn":
                step = {"t2": "refill", "t4": "lastrites"}.get(top["stage"], "")
        view: dict[str, Any] = {
            "game": state["game"],
            "players": n,
            "edition": state["options"]["edition"],
            "active": state["active"],
            "lastrites_turn": state["lastrites_turn"],
            "turn": state["turn"],
            "step": step,
            "to_move": sorted(self.to_move(state)),
            "in_play": list(state["in_play"]),
            "parson": state["parson"],
            "circle": [list(c) for c in state["circle"]],
            "centre": list(state["centre"]),
            "circle_strength": [self.circle_strength(state, q) for q in range(n)],
            "completions": list(state["completions"]),
            "companies": companies,
            "doom_order": list(state["doom_order"]),
            "road": [list(r) for r in state["road"]],
            "road_values": list(TABLES["road_values"]),
            "deaths": state["deaths"],
            "rows": {r: list(state["rows"][r]) for r in ROWS},
            "deck_sizes": {d: sum(state["decks"][d].values()) for d in DECKS},
            "discards": {d: list(state["discards"][d]) for d in DECKS},
            "pilgrim_deck": len(state["pilgrim_deck"]),
            "hand_counts": [
                {y: sum(1 for k in state["hands"][q] if hand_type(k) == y) for y in DECKS}
                | {"total": len(state["hands"][q])}
                for q in range(n)
            ],
            "tokens": list(state["tokens"]),
            "token_supply": state["token_supply"],
            "over": state["over"],
            "final": copy.deepcopy(state["final"]),
        }
        if seat is not None and 0 <= seat < n:
            view["seat"] = seat
            view["hand"] = list(state["hands"][seat])
            view["coins"] = state["coins"][seat]
            view["notes"] = list(state["notes"][seat])
            if top is not None and seat == state["active"]:
                if top["f"] == "isidore":
                    view["isidore_drawn"] = list(top["drawn"])
                if top["f"] == "play":
                    view["selected"] = top["sel"]
                    view["pass_discards"] = list(top["disc"]) if top["passing"] else []
            view["pardon_options"] = [
                {"sin": CARDS[k].sin, "company": co, "cards": self._pardonable(state, co, CARDS[k].sin),
                 "coins": self._pardon_value(state, co, CARDS[k].sin)}
                for k in _distinct(state["hands"][seat]) if CARDS[k].kind == "pardon" and not state["over"]
                for co in self._living(state) if self._pardonable(state, co, CARDS[k].sin)
            ]
        return view

    def _pardon_value(self, state: State, co: str, sin: str) -> int:
        n = self._pardonable(state, co, sin)
        return pardon_coins(n + (1 if state["parson"] == sin else 0))

    # ------------------------------------------------------------------ notation
    def describe_action(self, state: State, action: Action) -> str:
        """Short canonical notation (spec §5.1, §5.6): ``sin greed red``, ``choose sin-greed``…"""
        t = action.get("type")
        if t == "choose":
            return f"choose {action['card']}"
        if t in ("sin", "pardon"):
            return f"{t} {action['sin']} {action['company']}"
        if t == "relic":
            parts = ["relic", action["relic"]]
            for key in ("company", "card", "to", "face", "sin", "deck"):
                if key in action and not (action["relic"] == "benedict" and key == "deck"):
                    parts.append(str(action[key]))
            if "player" in action:
                parts.append(f"p{action['player']}")
                if "deck" in action:
                    parts.append(action["deck"])
            if "pilgrim" in action:
                parts += ["pilgrim", action["pilgrim"]]
            if "circle" in action:
                parts += ["circle", action["circle"]]
            return " ".join(parts)
        if t in ("discard", "give", "keep", "reveal", "steal"):
            return f"{t} {action['card']}"
        if t == "company":
            return f"company {action['company']}"
        if t == "parson":
            return f"parson {action['sin']}"
        if t == "draw":
            return f"draw {action['source']}"
        if t == "lastrites":
            return f"lastrites {action['choice']}"
        if t == "first_player":
            return f"first_player p{action['seat']}"
        if t == "parson_start":
            return f"parson_start {action['sin']}"
        if t == "pilgrim":
            return f"pilgrim {action['pilgrim']}"
        if t == "confirm":
            return "pass confirm"
        if t == "pass" and "discard" in action:
            return "pass discard " + ",".join(action["discard"])
        return str(t)

    def action_label(self, state: State, action: Action) -> str:
        """Friendly button text (≤80 chars)."""
        return self._label(state, action)[:80]

    def _label(self, state: State, action: Action) -> str:
        t = action.get("type")
        if t == "choose":
            k = action["card"]
            if CARDS[k].kind == "relic":
                return f"Play {card_name(k)} ({RELIC_HELP[k[6:]]})"
            return f"Play {card_name(k)}"
        if t == "pass":
            fine = min(TABLES["pass_fine"], state["coins"][state["active"]])
            return f"Pass: pay {fine} coin(s), discard cards, redraw"
        if t == "discard":
            return f"Discard {card_name(action['card'])}"
        if t == "confirm":
            top = state["stack"][-1]
            n = len(top.get("disc", []))
            return f"Confirm pass (discard {n} card(s))"
        if t == "back":
            return "← Back"
        if t == "done":
            return "Done (play no more cards)"
        if t == "sin":
            co = action["company"]
            comp = state["companies"][co]
            new = "" if action["sin"] in state["circle"][state["active"]] else " + Circle cube"
            count = len(comp["cards"]) + 1
            doom = ""
            if count >= TABLES["doom_cards"] and not comp["doomed"]:
                doom = ": doomed, +token" if state["token_supply"] > 0 else ": doomed"
            return f"{SIN_NAMES[action['sin']]} on the {self._pname(state, co)} ({co}, {count}/7{doom}){new}"
        if t == "pardon":
            co, sin = action["company"], action["sin"]
            n = self._pardonable(state, co, sin)
            par = " + Parson" if state["parson"] == sin else ""
            return (f"Pardon {SIN_NAMES[sin]} on the {self._pname(state, co)} ({co}): {n} card(s){par} = "
                    f"{self._pardon_value(state, co, sin)} coins")
        if t == "relic":
            return self._relic_label(state, action)
        if t == "company":
            co = action["company"]
            return f"From the {self._pname(state, co)} ({co})"
        if t == "give":
            return f"Give {card_name(action['card'])}"
        if t == "keep":
            return f"Keep {card_name(action['card'])}"
        if t == "parson":
            sin = action["sin"]
            if sin == "later":
                return "Move the Parson later (or not at all)"
            if sin == "stay":
                return "Leave the Parson where it is"
            return f"Move the Parson to {SIN_NAMES[sin]}"
        if t == "draw":
            src = action["source"]
            name, _, rest = src.partition("-")
            if rest.startswith("row:"):
                k = state["rows"][name][int(rest[4:]) - 1]
                return f"Take {card_name(k)} from the {DECK_NAMES[name]} row (slot {rest[4:]})"
            size = sum(state["decks"][name].values()) or len(state["discards"][name])
            death = "; a Death card goes to its pilgrim" if name == "sin" else ""
            return f"Draw blind from the {DECK_NAMES[name]} deck ({size} left{death})"
        if t == "lastrites":
            if action["choice"] == "use":
                return "Use Last Rites (take another turn)"
            return f"Keep the token (+{TABLES['token_value']} at the end)"
        return self.describe_action(state, action)

    def _relic_label(self, state: State, a: Action) -> str:
        r = a["relic"]
        nm = self._pname
        if r == "felix":
            n = self._pardonable(state, a["company"], a["sin"])
            return f"Felix: forgive {SIN_NAMES[a['sin']]} on the {nm(state, a['company'])} ({n} card(s))"
        if r == "bernard":
            return f"Bernard: others discard every Pardon of {SIN_NAMES[a['sin']]}"
        if r == "hildegard":
            return f"Hildegard: gain {HILDEGARD_COINS} coins"
        if r == "vincent":
            whose = "your" if a["player"] == state["active"] else f"{_letter(a['player'])}'s"
            return f"Vincent: remove one of {whose} cubes from the {nm(state, a['company'])} ({a['company']})"
        if r == "benedict":
            return f"Benedict: take a random {DECK_NAMES[a['deck']]} card from {_letter(a['player'])}"
        if r == "philip":
            return "Philip: move the Parson, then play a Sin or Pardon"
        if r == "wilgefortis":
            return (f"Wilgefortis: move {short_name(a['card'])} to the {nm(state, a['to'])} "
                    f"({a['to']})")
        if r == "nicholas":
            return f"Nicholas: Underpants on the {nm(state, a['company'])} ({a['company']})"
        if r == "vitus":
            return "Vitus: play up to 2 more cards"
        if r == "anselm":
            if "pilgrim" in a:
                return f"Anselm: your cube on the {nm(state, a['pilgrim'])} ({a['pilgrim']})"
            return f"Anselm: your cube on {SIN_NAMES[a['circle']]} (Circle)"
        if r == "isidore":
            d = a["deck"]
            return f"Isidore: look at 3 {DECK_NAMES[d]} cards, keep 1"
        if r == "jonah":
            face = "face-up" if a["face"] == "up" else "pardoned"
            return f"Jonah: remove {face} {short_name(a['card'])} from the {nm(state, a['company'])}"
        return self.describe_action(state, a)

    def action_group(self, state: State, action: Action) -> str | None:
        """Group by company for relic targets with a company (two-step menus)."""
        if action.get("type") == "relic" and "company" in action:
            co = str(action["company"])
            return f"The {self._pname(state, co)} ({co})"
        return None

    def prompt(self, state: State, seat: Seat) -> str:
        """One sentence: what ``seat`` must decide now."""
        if seat not in self.to_move(state) or seat == CHANCE:
            return ""
        top = state["stack"][-1]
        f = top["f"]
        lr = " (Last Rites turn)" if state["lastrites_turn"] else ""
        if f == "play":
            if top["passing"]:
                limit = "any number of" if state["options"]["edition"] == "2011" else "up to 3"
                return f"Passing: choose {limit} cards to discard, then confirm (or ← Back)."
            if top["sel"] is not None:
                # The board shows this prompt publicly: never name the chosen card (spec §7).
                k = top["sel"]
                if CARDS[k].kind == "relic" and k[6:] in TWO_STEP_RELICS and top["co"] is None:
                    return "Choose the pilgrim to take a card from (or ← Back)."
                return "Choose how to play the chosen card (or ← Back)."
            if top["ctx"] == "main":
                return f"Choose a card to play{lr}, or pass."
            if top["ctx"] == "vitus":
                return "St. Vitus: play another card of any type, or Done."
            return "Follow-up: you may play one Sin or Pardon card, or Done."
        if f == "give":
            return f"St. Benedict: choose a card to give to {_letter(top['target'])}."
        if f == "isidore":
            return "St. Isidore: choose the card to keep."
        if f == "philip":
            if top["stage"] == "before":
                return "St. Philip: move the Parson now, or later."
            return "St. Philip: move the Parson now, or leave it."
        if f == "turn" and top["stage"] == "t2":
            n = len(state["hands"][seat])
            return f"Refill your hand ({n}/{TABLES['hand_size']}): choose where to draw from."
        if f == "turn" and top["stage"] == "t4":
            return "Use a Last Rites token to take another turn?"
        return "Your move."

    # ------------------------------------------------------------------ timeouts
    def timeout_action(self, state: State, seat: Seat) -> Action:
        """Auto-play on timeout (spec §11 Timeouts).

        Raises:
            NotYourTurn / GameOver: the seat is not to move.
        """
        self._check_can_act(state, seat)
        acts = self.legal_actions(state, seat)
        if seat == CHANCE:
            return copy.deepcopy(acts[0])
        top = state["stack"][-1]
        f = top["f"]
        if f == "turn" and top["stage"] == "t2":
            for src in TIMEOUT_SOURCES:
                if self._source_ok(state, src):
                    return {"type": "draw", "source": src}
        if f == "turn" and top["stage"] == "t4":
            return {"type": "lastrites", "choice": "keep"}
        if f == "philip":
            return {"type": "parson", "sin": "later" if top["stage"] == "before" else "stay"}
        if f == "play":
            if top["passing"]:
                return {"type": "confirm"}
            if top["ctx"] != "main":
                if top["sel"] is None:
                    return {"type": "done"}
                return copy.deepcopy(acts[0])
            best = self._auto_main(state)
            if top["sel"] is None:
                if best is None:
                    return {"type": "pass"}
                return {"type": "choose", "card": _card_of(best)}
            if best is not None and _card_of(best) == top["sel"] and top["co"] is None and best in acts:
                return best
            if top["co"] is not None and best is not None and best in acts:
                return best
            return copy.deepcopy(acts[0])
        return copy.deepcopy(acts[0])

    def _auto_main(self, state: State) -> Action | None:
        """The T1 timeout play (spec §11): best Pardon, else a Sin card, else
        Hildegard, else None (= pass) if legal, else the first legal Relic."""
        seat = state["active"]
        hand = state["hands"][seat]
        best: tuple[int, Action] | None = None
        for co in COMPANIES:
            for sin in SINS:
                if f"pardon-{sin}" in hand and self._pardonable(state, co, sin):
                    v = self._pardon_value(state, co, sin)
                    if best is None or v > best[0]:
                        best = (v, {"type": "pardon", "sin": sin, "company": co})
        if best is not None:
            return best[1]
        held = [s for s in SINS if f"sin-{s}" in hand]
        if held:
            new = [s for s in held if s not in state["circle"][seat]]
            sin = (new or held)[0]
            living = self._living(state)
            co = min(living, key=lambda c: (len(state["companies"][c]["cards"]), COMPANIES.index(c)))
            return {"type": "sin", "sin": sin, "company": co}
        if "relic-hildegard" in hand:
            return {"type": "relic", "relic": "hildegard"}
        if self._pass_legal(state):
            return None
        for k in sort_cards(_distinct(hand)):
            if CARDS[k].kind == "relic":
                targets = self._targets(state, k, None)
                if targets:
                    first = targets[0]
                    if first["type"] == "company":
                        return self._targets(state, k, first["company"])[0]
                    return first
        return None

    # ------------------------------------------------------------------ hidden info
    def shuffle_hidden(self, state: State, seat: Seat | None, rng: random.Random) -> State:
        """Swap other players' hand cards with unseen deck cards of the same back and
        change their coins (spec §7): ``seat``'s view is unchanged."""
        s = copy.deepcopy(state)
        locked: list[str] = []
        top = s["stack"][-1] if s["stack"] else None
        if top is not None and top["f"] == "play":
            if top["sel"]:
                locked.append(top["sel"])
            locked += top["disc"]
        for q in range(s["players"]):
            if q == seat:
                continue
            if not s["over"]:  # final coins are public at the end (spec §7)
                s["coins"][q] = rng.randrange(0, 60)
            hand = list(s["hands"][q])
            keep = list(locked) if q == s["active"] else []
            new_hand: list[str] = []
            for k in hand:
                if k in keep:
                    keep.remove(k)
                    new_hand.append(k)
                    continue
                deck = s["decks"][hand_type(k)]
                pool = sort_cards([x for x, v in deck.items() for _ in range(v)
                                   if CARDS[x].kind != "death"])
                if pool and rng.random() < 0.7:
                    pick = pool[rng.randrange(len(pool))]
                    deck[pick] -= 1
                    if deck[pick] == 0:
                        del deck[pick]
                    deck[k] = deck.get(k, 0) + 1
                    new_hand.append(pick)
                else:
                    new_hand.append(k)
            s["hands"][q] = sort_cards(new_hand)
        return s


# --------------------------------------------------------------------------- helpers


def _letter(seat: int) -> str:
    """The seat letter (A, B, C) used in labels, prompts and the outcome reason."""
    return "ABCDEF"[seat]


def _distinct(cards: Sequence[str]) -> list[str]:
    return sort_cards(list(dict.fromkeys(cards)))


def _play_frame(ctx: str, allow: list[str]) -> dict[str, Any]:
    return {"f": "play", "ctx": ctx, "allow": list(allow), "sel": None, "co": None, "passing": False, "disc": []}


def _find(s: State, f: str) -> dict[str, Any]:
    for frame in reversed(s["stack"]):
        if frame["f"] == f:
            return frame  # type: ignore[no-any-return]
    raise AssertionError(f"no {f} frame")  # pragma: no cover


def _note(s: State, seat: int, text: str) -> None:
    s["notes"][seat] = (s["notes"][seat] + [text])[-6:]


def _card_of(action: Action) -> str:
    t = action["type"]
    if t in ("sin", "pardon"):
        return f"{t}-{action['sin']}"
    return f"relic-{action['relic']}"
