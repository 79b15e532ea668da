"""E Guan (惡貫) rules engine (spec docs/rules/eguan.md).

Villains overlap deed cards on a personal 4 × 4 half-card board, earn Infamy from
visible Evil icons and score title bonuses at the end. The engine is pure: a state
is a JSON-ready dict, every random thing (deal, refill, ``draw_kept`` draw, start
player, trouble die) is a CHANCE action, and multi-part decisions (card → placement,
roll → adjust → targets) are sequential steps held in ``state["pending"]``.

State layout (all JSON):
    game, state_version, players, options {end_rule}
    phase: "deal" | "skill" | "start" | "play" | "over"
    deck: sorted list of card ids still in the deck (secret; draws are uniform)
    hands[seat]: list of card ids (secret); piles[seat]: list of {"round", "cards"}
    kept[seat]: None | {"card", "turn"} (secret card); removed_kept[seat]: ids (secret)
    infamy[seat], skills[seat] (None | "A".."D"; secret until all chose)
    boards[seat]: stack of [card_id, anchor 1-9, rotation 0|180], lowest first
    removed_cards: [{"seat", "card"}] removed from boards (face up)
    start_player, round, turn_index, turn_no, active, pending, trigger, turns_taken,
    most_wanted, last_roll, result
"""

from __future__ import annotations

import copy
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
    NotYourTurn,
    OptionSpec,
    Outcome,
    Seat,
    State,
    check_player_count,
    rank_seats,
    validate_options,
)
from engines.eguan.data import (
    CARDS,
    DECK_IDS,
    HAND_SIZE,
    KINDS,
    RESOURCES,
    SET_LETTERS,
    SHORTFALL_PRICE,
    SKILLS,
    START_ANCHOR,
    START_ID,
    START_INFAMY,
    Card,
    Face,
)

SEAT_LETTERS = "ABCDEF"
ROTATIONS: tuple[int, ...] = (0, 180)
ANCHORS: tuple[int, ...] = tuple(range(1, 10))
TITLE_OF: dict[str, str] = {"H": "heart", "S": "strength", "K": "skill"}
TITLE_NAMES: dict[str, tuple[str, str]] = {
    "heart": ("Heart of Stone", "鐵石心腸"),
    "strength": ("Brute Strength", "力大無窮"),
    "skill": ("Master Hand", "神乎其技"),
    "most_wanted": ("Most Wanted", "罪大惡極"),
}
ICON_NAMES: dict[str, str] = {"H": "Heart", "S": "Strength", "K": "Skill", "E": "Evil"}

_EFFECT_SHORT: dict[str, str] = {
    "none": "—",
    "gain": "+{n}",
    "steal": "steal {n}",
    "steal_richer": "steal {n} from richer",
    "steal_each_richer": "steal {n} each richer",
    "all_others_lose": "rivals −{n}",
    "income_again": "+惡 (≤{n})",
    "move_topmost": "move your card",
    "extra_play": "extra play",
    "draw_kept": "draw kept card",
    "remove_topmost": "remove rival card",
}
"""Die faces in a few characters, for the skill-set labels (all six fit in 80 characters)."""

_EFFECT_MID: dict[str, str] = {
    "none": "no effect",
    "gain": "gain {n} Infamy",
    "steal": "steal {n} Infamy",
    "steal_richer": "steal {n} from a richer player",
    "steal_each_richer": "steal {n} from each richer player",
    "all_others_lose": "every other player loses {n}",
    "income_again": "gain 1 per visible 惡 (max {n})",
    "move_topmost": "move one of your topmost cards",
    "extra_play": "play one more card",
    "draw_kept": "draw a new kept card",
    "remove_topmost": "remove a rival's topmost card",
}
"""One die face in a few words, for the ±1 labels (the full texts are too long)."""

Cell = tuple[str, str] | None
"""What a board cell shows: (card id, corner name) of the highest covering card, or None."""


# --------------------------------------------------------------------------- geometry


def anchor_rc(anchor: int) -> tuple[int, int]:
    """Anchor label 1-9 → its top-left cell (row, col) (spec §2.6)."""
    return ((anchor - 1) // 3, (anchor - 1) % 3)


def corner_cells(anchor: int, rot: int) -> dict[str, tuple[int, int]]:
    """Cell of each corner of a card placed at ``anchor`` with ``rot`` (spec §2.6 table)."""
    r, c = anchor_rc(anchor)
    if rot == 0:
        return {"tl": (r, c), "tr": (r, c + 1), "bl": (r + 1, c), "br": (r + 1, c + 1)}
    return {"tl": (r + 1, c + 1), "tr": (r + 1, c), "bl": (r, c + 1), "br": (r, c)}


def board_cells(board: Sequence[Sequence[Any]]) -> list[list[Cell]]:
    """4 × 4 grid of what each cell shows (the highest card's corner)."""
    grid: list[list[Cell]] = [[None] * 4 for _ in range(4)]
    for card_id, anchor, rot in board:
        for corner, (r, c) in corner_cells(int(anchor), int(rot)).items():
            grid[r][c] = (str(card_id), corner)
    return grid


def board_counts(board: Sequence[Sequence[Any]]) -> dict[str, int]:
    """Visible icon counts {H, S, K, E} (a ``2X`` corner counts 2, D10)."""
    counts = {k: 0 for k in KINDS}
    for row in board_cells(board):
        for cell in row:
            if cell is not None:
                icon = CARDS[cell[0]].corners[cell[1]]
                if icon is not None:
                    counts[icon[0]] += icon[1]
    return counts


def topmost(board: Sequence[Sequence[Any]], *, deed_only: bool = True) -> list[str]:
    """Card ids with no cell covered by a later card, in stack order (spec §2.6, D3)."""
    out: list[str] = []
    for i, (card_id, anchor, rot) in enumerate(board):
        mine = set(corner_cells(int(anchor), int(rot)).values())
        covered = any(
            mine & set(corner_cells(int(a2), int(r2)).values()) for _, a2, r2 in board[i + 1 :]
        )
        if not covered and not (deed_only and card_id == START_ID):
            out.append(str(card_id))
    return out


def payment_for(board: Sequence[Sequence[Any]], card_id: str) -> int:
    """Infamy to pay for ``card_id`` on this board: 2 × shortfall (spec §5.1, D9)."""
    counts = board_counts(board)
    card = CARDS[card_id]
    return SHORTFALL_PRICE * sum(max(0, card.req[k] - counts[k]) for k in RESOURCES)


def most_wanted(boards: Sequence[Sequence[Sequence[Any]]]) -> int | None:
    """Seat with strictly the most visible E, or None on a tie (D11)."""
    es = [board_counts(b)["E"] for b in boards]
    top = max(es)
    holders = [s for s, e in enumerate(es) if e == top]
    return holders[0] if len(holders) == 1 else None


def letter(seat: int) -> str:
    """Seat letter A–F (as the renderer draws it)."""
    return SEAT_LETTERS[seat]


def rot_text(rot: int) -> str:
    return "↑0°" if rot == 0 else "↓180°"


def card_dict(card_id: str) -> dict[str, Any]:
    """Public card data for views: id, names, requirement, corners, die mark."""
    card = CARDS[card_id]
    return {
        "id": card.id,
        "name_en": card.name_en,
        "name_zh": card.name_zh,
        "cost": card.cost,
        "req": dict(card.req),
        "corners": dict(card.codes),
        "die": card.trouble_die,
    }


def score_table(infamy: Sequence[int], counts: Sequence[Mapping[str, int]]) -> dict[str, Any]:
    """Final scoring from Infamy and visible counts (spec §8 steps 1–4, D11, D13).

    Args:
        infamy: Infamy per seat.
        counts: visible {H, S, K, E} per seat.

    Returns:
        {"infamy", "bonus": {H,S,K: [per seat]}, "titles": [[title keys] per seat],
         "scores", "title_cards", "winners" (sorted seats), "ranking" (best first)}.
    """
    n = len(infamy)
    titles: list[list[str]] = [[] for _ in range(n)]
    bonus = {k: [0] * n for k in RESOURCES}
    for k in RESOURCES:
        m = max(c[k] for c in counts)
        if m >= 1:
            for s in range(n):
                if counts[s][k] == m:
                    bonus[k][s] = m
                    titles[s].append(TITLE_OF[k])
    es = [c["E"] for c in counts]
    top_e = [s for s in range(n) if es[s] == max(es)]
    if len(top_e) == 1:
        titles[top_e[0]].append("most_wanted")
    scores = [int(infamy[s]) + sum(bonus[k][s] for k in RESOURCES) for s in range(n)]
    cards = [len(t) for t in titles]
    best = max(scores)
    tied = [s for s in range(n) if scores[s] == best]
    top_cards = max(cards[s] for s in tied)
    return {
        "infamy": [int(x) for x in infamy],
        "bonus": bonus,
        "titles": titles,
        "scores": scores,
        "title_cards": cards,
        "winners": [s for s in tied if cards[s] == top_cards],
        "ranking": list(rank_seats(scores, cards)),
    }


# --------------------------------------------------------------------------- engine


class EguanEngine(Engine):
    """E Guan rules (spec eguan §3–§8). See the module docstring for the state layout."""

    info = EngineInfo(
        game_id="eguan",
        name="E Guan",
        native_name="惡貫",
        min_players=3,
        max_players=4,
        options=(
            OptionSpec(
                key="end_rule",
                default="equal_turns",
                choices=("equal_turns", "one_more_each"),
                description="After the last card is drawn: finish the round plus one full round "
                "(equal_turns) or one more turn each, drawer last (one_more_each).",
            ),
        ),
        has_hidden_info=True,
        state_version=1,
    )

    # ------------------------------------------------------------------ lifecycle
    def new_game(self, players: int, seed: int, options: Mapping[str, Any] | None = None) -> State:
        """Initial state: every board holds the starting card at anchor 5, 2 Infamy each,
        the deal pending as chance draws (spec §3).

        Raises:
            InvalidOptions: bad player count or option.
        """
        check_player_count(self.info, players)
        opts = validate_options(self.info, options)
        return {
            "game": self.info.game_id,
            "state_version": self.info.state_version,
            "players": players,
            "options": opts,
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
            "turn_no": 0,
            "active": None,
            "pending": None,
            "trigger": None,
            "turns_taken": [0] * players,
            "most_wanted": None,
            "last_roll": None,
            "result": None,
        }

    def to_move(self, state: State) -> frozenset[Seat]:
        """CHANCE during the deal, start pick, draws and rolls; the seats that have not
        chosen a skill set during setup; else the active player; empty when over."""
        phase = state["phase"]
        if phase == "over":
            return frozenset()
        if phase in ("deal", "start"):
            return frozenset({CHANCE})
        if phase == "skill":
            return frozenset(s for s in range(state["players"]) if state["skills"][s] is None)
        step = state["pending"]["step"]
        if step in ("refill", "roll", "draw_kept"):
            return frozenset({CHANCE})
        return frozenset({state["active"]})

    # ------------------------------------------------------------------ legal actions
    def legal_actions(self, state: State, seat: Seat) -> list[Action]:
        """Every legal action of ``seat`` now, in a fixed order (spec §5)."""
        if seat not in self.to_move(state):
            return []
        phase = state["phase"]
        if phase == "deal":
            return [{"type": "draw", "card": c} for c in state["deck"]]
        if phase == "start":
            return [{"type": "start", "seat": s} for s in range(state["players"])]
        if phase == "skill":
            return [{"type": "skill", "set": x} for x in SET_LETTERS]
        pend = state["pending"]
        step = pend["step"]
        me = state["active"]
        if step in ("refill", "draw_kept"):
            return [{"type": "draw", "card": c} for c in state["deck"]]
        if step == "roll":
            return [{"type": "roll", "value": v} for v in range(1, 7)]
        if step == "main":
            out: list[Action] = []
            for cid in state["hands"][me]:
                if self._affordable(state, me, cid):
                    out.append({"type": "select", "card": cid})
            if self._kept_usable(state, me) and self._affordable(state, me, state["kept"][me]["card"]):
                out.append({"type": "select_kept"})
            for cid in state["hands"][me]:
                out.append({"type": "keep", "card": cid})
            if not state["hands"][me]:
                out.append({"type": "pass"})
            return out
        if step == "place":
            acts: list[Action] = [
                {"type": "place", "anchor": a, "rot": r} for r in ROTATIONS for a in ANCHORS
            ]
            acts.append({"type": "back"})
            return acts
        if step == "adjust":
            v = pend["roll"]
            return [{"type": "adjust", "delta": d} for d in (-1, 0, 1) if 1 <= v + d <= 6]
        if step == "target":
            return [{"type": "target", "seat": s} for s in pend["options"]]
        if step == "remove":
            return [{"type": "remove", "seat": s, "card": c} for s, c in self._remove_options(state)]
        if step == "move_pick":
            return [{"type": "move", "card": c} for c in topmost(state["boards"][me])] + [{"type": "skip"}]
        if step == "extra_pick":
            ex: list[Action] = [
                {"type": "select", "card": cid}
                for cid in state["hands"][me]
                if self._affordable(state, me, cid)
            ]
            if self._kept_usable(state, me) and self._affordable(state, me, state["kept"][me]["card"]):
                ex.append({"type": "select_kept"})
            ex.append({"type": "skip"})
            return ex
        return []  # pragma: no cover - every step is handled above

    def sample_chance(self, state: State, rng: random.Random) -> Action:
        """Uniform draw from the deck, uniform start seat or a d6 (spec §6).

        Raises:
            NotYourTurn: CHANCE is not to move.
        """
        if CHANCE not in self.to_move(state):
            raise NotYourTurn("Chance is not to move.")
        return copy.deepcopy(rng.choice(self.legal_actions(state, CHANCE)))

    # ------------------------------------------------------------------ apply
    def apply(self, state: State, seat: Seat, action: Action) -> tuple[State, tuple[Event, ...]]:
        """Validate and apply one action (spec §3–§8). Never mutates ``state``.

        Raises:
            GameOver: the game has ended.
            NotYourTurn: ``seat`` is not to move.
            IllegalAction: the action is not among ``legal_actions`` (scripted chance
                outcomes included), with a player-readable reason.
        """
        if state["phase"] == "over":
            raise GameOver("The game is over.")
        if seat not in self.to_move(state):
            raise NotYourTurn("It is not your turn.", seat=seat)
        if not isinstance(action, dict) or action not in self.legal_actions(state, seat):
            raise IllegalAction(self._why_illegal(state, seat, action), action=action)
        st = copy.deepcopy(state)
        return st, self.apply_in_place(st, seat, action)

    def apply_in_place(self, st: State, seat: Seat, action: Action) -> tuple[Event, ...]:
        """Apply an action already known to be legal, mutating ``st`` (for fast
        simulations such as bench/eguan_balance.py; the host uses ``apply``)."""
        ev: list[Event] = []
        phase = st["phase"]
        kind = action["type"]
        if phase == "deal":
            self._deal(st, action["card"], ev)
        elif phase == "skill":
            st["skills"][seat] = action["set"]
            ev.append(Event("skill_chosen", f"{{p{seat}}} has chosen a skill set.", {"seat": seat}))
            ev.append(
                Event(
                    "skill_chosen_private",
                    f"You chose {self._set_name(action['set'])}.",
                    {"seat": seat, "set": action["set"]},
                    frozenset({seat}),
                )
            )
            if all(x is not None for x in st["skills"]):
                st["phase"] = "start"
                text = ", ".join(
                    f"{{p{s}}} {self._set_name(x)}" for s, x in enumerate(st["skills"])
                )
                ev.append(Event("skills_revealed", f"Skill sets: {text}.", {"skills": list(st["skills"])}))
        elif phase == "start":
            s = action["seat"]
            st["start_player"] = s
            st["phase"] = "play"
            st["round"] = 1
            st["turn_index"] = 0
            ev.append(Event("start_player", f"{{p{s}}} is the start player.", {"seat": s}))
            self._begin_turn(st, ev)
        else:
            step = st["pending"]["step"]
            if step in ("refill", "draw_kept"):
                self._chance_draw(st, action["card"], ev)
            elif step == "roll":
                self._rolled(st, action["value"], ev)
            elif kind == "select":
                self._select(st, action["card"], "hand", ev)
            elif kind == "select_kept":
                self._select(st, st["kept"][st["active"]]["card"], "kept", ev)
            elif kind == "keep":
                self._keep(st, action["card"], ev)
            elif kind == "pass":
                me = st["active"]
                ev.append(Event("no_action", f"{{p{me}}} has nothing to play.", {"seat": me}))
                self._end_turn(st, ev)
            elif kind == "place":
                self._place(st, action["anchor"], action["rot"], ev)
            elif kind == "back":
                st["pending"] = {"step": st["pending"]["return_to"]}
            elif kind == "adjust":
                self._adjust(st, action["delta"], ev)
            elif kind == "target":
                self._target(st, action["seat"], ev)
            elif kind == "remove":
                self._remove(st, action["seat"], action["card"], ev)
            elif kind == "move":
                me = st["active"]
                idx = self._stack_index(st["boards"][me], action["card"])
                _, a, r = st["boards"][me][idx]
                st["pending"] = {
                    "step": "place",
                    "card": action["card"],
                    "source": "board",
                    "purpose": "move",
                    "payment": 0,
                    "return_to": "move_pick",
                    "from": [a, r],
                }
            elif kind == "skip":
                me = st["active"]
                ev.append(Event("skip", f"{{p{me}}} skips the effect.", {"seat": me}))
                self._finish_die(st, ev)
        return tuple(ev)

    # ------------------------------------------------------------------ steps
    def _deal(self, st: State, card: str, ev: list[Event]) -> None:
        seat = next(s for s in range(st["players"]) if len(st["hands"][s]) < HAND_SIZE)
        st["deck"].remove(card)
        st["hands"][seat].append(card)
        ev.append(Event("deal_private", f"You are dealt {self._cname(card)}.", {"card": card}, frozenset({seat})))
        if all(len(h) == HAND_SIZE for h in st["hands"]):
            st["phase"] = "skill"
            ev.append(Event("dealt", "Each player is dealt 5 cards.", {}))

    def _begin_turn(self, st: State, ev: list[Event]) -> None:
        n = st["players"]
        me = (st["start_player"] + st["turn_index"]) % n
        st["active"] = me
        st["turn_no"] += 1
        st["last_roll"] = None
        ev.append(
            Event("turn", f"Round {st['round']}: {{p{me}}}'s turn.", {"seat": me, "round": st["round"]})
        )
        if st["round"] >= 2:
            piles = st["piles"][me]
            use = [p for p in piles if p["round"] == st["round"] - 1]
            st["piles"][me] = [p for p in piles if p["round"] != st["round"] - 1]
            for p in use:
                st["hands"][me].extend(p["cards"])
            if st["deck"] and len(st["hands"][me]) < HAND_SIZE:
                st["pending"] = {"step": "refill"}
                return
        st["pending"] = {"step": "main"}

    def _chance_draw(self, st: State, card: str, ev: list[Event]) -> None:
        me = st["active"]
        st["deck"].remove(card)
        if st["pending"]["step"] == "refill":
            st["hands"][me].append(card)
            ev.append(Event("draw", f"{{p{me}}} draws a card.", {"seat": me}))
            ev.append(Event("draw_private", f"You draw {self._cname(card)}.", {"card": card}, frozenset({me})))
            self._check_trigger(st, ev)
            if st["deck"] and len(st["hands"][me]) < HAND_SIZE:
                return
            st["pending"] = {"step": "main"}
        else:  # draw_kept (C3)
            self._set_kept(st, me, card)
            ev.append(Event("draw_kept", f"{{p{me}}} draws a card as their kept card.", {"seat": me}))
            ev.append(
                Event("draw_private", f"Your new kept card: {self._cname(card)}.", {"card": card}, frozenset({me}))
            )
            self._check_trigger(st, ev)
            self._finish_die(st, ev)

    def _check_trigger(self, st: State, ev: list[Event]) -> None:
        if not st["deck"] and st["trigger"] is None:
            st["trigger"] = {"round": st["round"], "seat": st["active"]}
            ev.append(
                Event(
                    "end_trigger",
                    f"{{p{st['active']}}} draws the last card: the end is near.",
                    {"round": st["round"], "seat": st["active"]},
                )
            )

    def _set_kept(self, st: State, me: int, card: str) -> None:
        old = st["kept"][me]
        if old is not None:
            st["removed_kept"][me].append(old["card"])
        st["kept"][me] = {"card": card, "turn": st["turn_no"]}

    def _select(self, st: State, card: str, source: str, ev: list[Event]) -> None:
        me = st["active"]
        purpose = "extra" if st["pending"]["step"] == "extra_pick" else "main"
        st["pending"] = {
            "step": "place",
            "card": card,
            "source": source,
            "purpose": purpose,
            "payment": payment_for(st["boards"][me], card),
            "return_to": st["pending"]["step"],
        }

    def _keep(self, st: State, card: str, ev: list[Event]) -> None:
        me = st["active"]
        had = st["kept"][me] is not None
        st["hands"][me].remove(card)
        self._set_kept(st, me, card)
        text = f"{{p{me}}} keeps a card face down" + (" (the old kept card leaves the game)." if had else ".")
        ev.append(Event("keep", text, {"seat": me, "replaced": had}))
        ev.append(Event("keep_private", f"You keep {self._cname(card)}.", {"card": card}, frozenset({me})))
        self._end_turn(st, ev)

    def _place(self, st: State, anchor: int, rot: int, ev: list[Event]) -> None:
        me = st["active"]
        pend = st["pending"]
        card = pend["card"]
        board = st["boards"][me]
        if pend["purpose"] == "move":
            board.pop(self._stack_index(board, card))
            board.append([card, anchor, rot])
            ev.append(
                Event(
                    "move",
                    f"{{p{me}}} moves {self._cname(card)} to {anchor} {rot_text(rot)}.",
                    {"seat": me, "card": card, "anchor": anchor, "rot": rot},
                )
            )
            self._recompute_mw(st, ev)
            self._finish_die(st, ev)
            return
        pay = pend["payment"]
        st["infamy"][me] -= pay
        if pend["source"] == "hand":
            st["hands"][me].remove(card)
        else:
            st["kept"][me] = None
        board.append([card, anchor, rot])
        src = " (kept card)" if pend["source"] == "kept" else ""
        pay_text = f", paying {pay} Infamy" if pay else ""
        ev.append(
            Event(
                "play",
                f"{{p{me}}} plays {self._cname(card)}{src} at {anchor} {rot_text(rot)}{pay_text}.",
                {"seat": me, "card": card, "anchor": anchor, "rot": rot, "payment": pay, "source": pend["source"]},
            )
        )
        self._recompute_mw(st, ev)
        if pend["purpose"] == "main" and CARDS[card].trouble_die:
            st["pending"] = {"step": "roll"}
        elif pend["purpose"] == "extra":
            self._finish_die(st, ev)
        else:
            self._end_turn(st, ev)

    def _rolled(self, st: State, value: int, ev: list[Event]) -> None:
        me = st["active"]
        st["last_roll"] = {"seat": me, "roll": value, "value": value, "adjusted": 0}
        ev.append(Event("roll", f"{{p{me}}} rolls the trouble die: {value}.", {"seat": me, "value": value}))
        if self._kept_usable(st, me):
            st["pending"] = {"step": "adjust", "roll": value}
        else:
            self._resolve_face(st, value, ev)

    def _adjust(self, st: State, delta: int, ev: list[Event]) -> None:
        me = st["active"]
        value = st["pending"]["roll"] + delta
        if delta:
            old = st["kept"][me]["card"]
            st["removed_kept"][me].append(old)
            st["kept"][me] = None
            st["last_roll"]["value"] = value
            st["last_roll"]["adjusted"] = delta
            ev.append(
                Event(
                    "adjust",
                    f"{{p{me}}} spends the kept card to turn the die into {value}.",
                    {"seat": me, "delta": delta, "value": value},
                )
            )
        self._resolve_face(st, value, ev)

    def _face(self, st: State, value: int) -> Face:
        return SKILLS[st["skills"][st["active"]]][value - 1]

    def _eligible(self, st: State, me: int) -> list[int]:
        """Opponents a harmful effect may touch: not the Most Wanted holder (D11), in
        seat order starting after ``me``."""
        n = st["players"]
        mw = most_wanted(st["boards"])
        return [(me + i) % n for i in range(1, n) if (me + i) % n != mw]

    def _resolve_face(self, st: State, value: int, ev: list[Event]) -> None:
        me = st["active"]
        face = self._face(st, value)
        st["last_roll"]["face"] = face.id
        ev.append(Event("face", f"{{p{me}}}'s {face.id}: {face.text}", {"seat": me, "face": face.id}))
        eff, amt = face.effect, face.amount
        inf = st["infamy"]
        if eff == "gain":
            inf[me] += amt
            ev.append(Event("gain", f"{{p{me}}} gains {amt} Infamy.", {"seat": me, "amount": amt}))
        elif eff == "income_again":
            g = min(amt, board_counts(st["boards"][me])["E"])
            inf[me] += g
            ev.append(Event("gain", f"{{p{me}}} gains {g} Infamy.", {"seat": me, "amount": g}))
        elif eff in ("steal", "steal_richer"):
            opts = self._eligible(st, me)
            if eff == "steal_richer":
                opts = [s for s in opts if inf[s] > inf[me]]
            if not opts:
                ev.append(Event("no_effect", "Nobody can be targeted: no effect.", {"seat": me}))
            elif len(opts) == 1:
                self._steal(st, me, opts[0], amt, ev)
            else:
                st["pending"] = {"step": "target", "options": opts, "amount": amt, "face": face.id}
                return
        elif eff == "steal_each_richer":
            richer = [s for s in self._eligible(st, me) if inf[s] > inf[me]]
            if not richer:
                ev.append(Event("no_effect", "Nobody richer can be targeted: no effect.", {"seat": me}))
            for s in richer:
                self._steal(st, me, s, amt, ev)
        elif eff == "all_others_lose":
            for s in sorted(self._eligible(st, me)):
                lost = min(amt, inf[s])
                inf[s] -= lost
                ev.append(Event("lose", f"{{p{s}}} loses {lost} Infamy.", {"seat": s, "amount": lost}))
        elif eff == "move_topmost":
            if topmost(st["boards"][me]):
                st["pending"] = {"step": "move_pick"}
                return
            ev.append(Event("no_effect", "No deed card to move: no effect.", {"seat": me}))
        elif eff == "extra_play":
            st["pending"] = {"step": "extra_pick"}
            if len(self.legal_actions(st, me)) > 1:
                return
            ev.append(Event("no_effect", "No card can be played: no effect.", {"seat": me}))
        elif eff == "draw_kept":
            if st["deck"]:
                st["pending"] = {"step": "draw_kept"}
                return
            inf[me] += 1
            ev.append(Event("gain", f"The deck is empty: {{p{me}}} gains 1 Infamy.", {"seat": me, "amount": 1}))
        elif eff == "remove_topmost":
            opts2 = self._remove_options(st)
            if not opts2:
                ev.append(Event("no_effect", "No card can be removed: no effect.", {"seat": me}))
            elif len(opts2) == 1:
                self._remove(st, opts2[0][0], opts2[0][1], ev)
                return
            else:
                st["pending"] = {"step": "remove"}
                return
        self._finish_die(st, ev)

    def _steal(self, st: State, me: int, target: int, amount: int, ev: list[Event]) -> None:
        got = min(amount, st["infamy"][target])
        st["infamy"][target] -= got
        st["infamy"][me] += got
        ev.append(
            Event(
                "steal",
                f"{{p{me}}} steals {got} Infamy from {{p{target}}}.",
                {"seat": me, "target": target, "amount": got},
            )
        )

    def _target(self, st: State, target: int, ev: list[Event]) -> None:
        self._steal(st, st["active"], target, st["pending"]["amount"], ev)
        self._finish_die(st, ev)

    def _remove_options(self, st: State) -> list[tuple[int, str]]:
        me = st["active"]
        return [(s, c) for s in sorted(self._eligible(st, me)) for c in topmost(st["boards"][s])]

    def _remove(self, st: State, target: int, card: str, ev: list[Event]) -> None:
        board = st["boards"][target]
        board.pop(self._stack_index(board, card))
        st["removed_cards"].append({"seat": target, "card": card})
        me = st["active"]
        ev.append(
            Event(
                "remove",
                f"{{p{me}}} removes {self._cname(card)} from {{p{target}}}'s board.",
                {"seat": me, "target": target, "card": card},
            )
        )
        self._recompute_mw(st, ev)
        self._finish_die(st, ev)

    def _finish_die(self, st: State, ev: list[Event]) -> None:
        self._end_turn(st, ev)

    def _recompute_mw(self, st: State, ev: list[Event]) -> None:
        new = most_wanted(st["boards"])
        if new != st["most_wanted"]:
            st["most_wanted"] = new
            text = "Nobody holds Most Wanted." if new is None else f"{{p{new}}} now holds Most Wanted."
            ev.append(Event("most_wanted", text, {"seat": new}))

    def _end_turn(self, st: State, ev: list[Event]) -> None:
        me = st["active"]
        n = st["players"]
        inc = board_counts(st["boards"][me])["E"]
        st["infamy"][me] += inc
        ev.append(Event("income", f"{{p{me}}} collects {inc} Infamy income.", {"seat": me, "amount": inc}))
        nxt = (me + 1) % n
        passed = st["hands"][me]
        st["hands"][me] = []
        st["piles"][nxt].append({"round": st["round"], "cards": passed})
        ev.append(
            Event("pass", f"{{p{me}}} passes {len(passed)} cards to {{p{nxt}}}.", {"seat": me, "to": nxt, "count": len(passed)})
        )
        st["turns_taken"][me] += 1
        st["pending"] = None
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

    # ------------------------------------------------------------------ scoring
    def final_scoring(self, state: State) -> dict[str, Any]:
        """Scores with title bonuses and title cards for the current boards (spec §8);
        see ``score_table``."""
        counts = [board_counts(b) for b in state["boards"]]
        return score_table(state["infamy"], counts)

    def _finish(self, st: State, ev: list[Event]) -> None:
        res = self.final_scoring(st)
        st["phase"] = "over"
        st["active"] = None
        st["pending"] = None
        st["result"] = res
        rows = ", ".join(f"{{p{s}}} {res['scores'][s]}" for s in range(st["players"]))
        win = " and ".join(f"{{p{s}}}" for s in res["winners"])
        ev.append(Event("final_scores", f"Final scores: {rows}.", dict(res)))
        ev.append(Event("game_over", f"{win} {'win' if len(res['winners']) > 1 else 'wins'}!", {"winners": res["winners"]}))

    def outcome(self, state: State) -> Outcome | None:
        """Final result once the game is over (spec §8); None before."""
        res = state.get("result")
        if state["phase"] != "over" or res is None:
            return None
        winners = res["winners"]
        best = max(res["scores"])
        tied = [s for s in range(state["players"]) if res["scores"][s] == best]
        names = " and ".join(letter(s) for s in winners)
        if len(tied) == 1:
            reason = f"{names} wins with {best} Infamy."
        elif len(winners) == 1:
            reason = f"{names} wins the tie at {best} with {res['title_cards'][winners[0]]} title cards."
        else:
            reason = f"{names} share the win at {best}."
        return Outcome(
            scores=tuple(float(x) for x in res["scores"]),
            ranking=tuple(res["ranking"]),
            winners=frozenset(winners),
            reason=reason,
        )

    def scores(self, state: State) -> tuple[float, ...]:
        """Infamy held during play; the final scores (with title bonuses) once over."""
        if state["phase"] == "over" and state.get("result"):
            return tuple(float(x) for x in state["result"]["scores"])
        return tuple(float(x) for x in state["infamy"])

    # ------------------------------------------------------------------ views
    def player_view(self, state: State, seat: Seat | None) -> dict[str, Any]:
        """Public view (seat None) or a seat's view (public + ``"you"`` secrets).

        Public keys: game, players, phase, round, turn_no, active, start_player,
        end_rule, deck_count, triggered, final_round, most_wanted, pending (step only),
        last_roll, removed_cards, seats [per seat: infamy, skill, skill_name,
        skill_chosen, board, cells, counts, topmost, hand_count, pile_counts, has_kept,
        removed_kept_count, turns_taken, leading_titles], result (when over).
        Private extra keys ``hand`` and ``kept`` (aliases of ``you.hand`` / ``you.kept``)
        and ``you``: seat, hand [card dicts + payment + playable],
        kept (card dict + usable + payment) or None, removed_kept, skill, pending
        (with the selected card, payment, roll, targets).
        """
        n = state["players"]
        all_chosen = all(x is not None for x in state["skills"])
        lead = self.final_scoring(state)["titles"]
        seats: list[dict[str, Any]] = []
        for s in range(n):
            board = state["boards"][s]
            cells = board_cells(board)
            skill = state["skills"][s] if all_chosen else None
            seats.append(
                {
                    "seat": s,
                    "letter": letter(s),
                    "infamy": state["infamy"][s],
                    "skill": skill,
                    "skill_name": self._set_name(skill) if skill else None,
                    "skill_chosen": state["skills"][s] is not None,
                    "board": [list(p) for p in board],
                    "cells": [
                        [
                            None
                            if cell is None
                            else {"card": cell[0], "corner": cell[1], "icon": CARDS[cell[0]].codes[cell[1]]}
                            for cell in row
                        ]
                        for row in cells
                    ],
                    "counts": board_counts(board),
                    "topmost": topmost(board),
                    "hand_count": len(state["hands"][s]),
                    "pile_counts": [len(p["cards"]) for p in state["piles"][s]],
                    "has_kept": state["kept"][s] is not None,
                    "removed_kept_count": len(state["removed_kept"][s]),
                    "turns_taken": state["turns_taken"][s],
                    "leading_titles": lead[s],
                }
            )
        pend = state["pending"]
        pub_pending: dict[str, Any] | None = None
        if pend is not None:
            pub_pending = {"step": pend["step"]}
            if pend["step"] == "place":
                pub_pending["purpose"] = pend["purpose"]
                if pend["purpose"] == "move":
                    pub_pending["card"] = pend["card"]
            if pend["step"] == "adjust":
                pub_pending["roll"] = pend["roll"]
        trig = state["trigger"]
        final_round = False
        if trig is not None:
            final_round = state["round"] > trig["round"] or state["phase"] == "over"
        view: dict[str, Any] = {
            "game": state["game"],
            "players": n,
            "phase": state["phase"],
            "round": state["round"],
            "turn_no": state["turn_no"],
            "active": state["active"],
            "start_player": state["start_player"],
            "end_rule": state["options"]["end_rule"],
            "deck_count": len(state["deck"]),
            "triggered": trig is not None,
            "trigger": copy.deepcopy(trig),
            "final_round": final_round,
            "most_wanted": most_wanted(state["boards"]),
            "pending": pub_pending,
            "last_roll": copy.deepcopy(state["last_roll"]),
            "removed_cards": copy.deepcopy(state["removed_cards"]),
            "seats": seats,
            "result": copy.deepcopy(state["result"]),
            "scores": list(self.scores(state)),
        }
        if seat is None or not 0 <= seat < n:
            return view
        you = self._private(state, seat)
        view["you"] = you
        view["hand"] = you["hand"]
        view["kept"] = you["kept"]
        return view

    def _private(self, state: State, seat: int) -> dict[str, Any]:
        board = state["boards"][seat]
        inf = state["infamy"][seat]
        hand = []
        for cid in state["hands"][seat]:
            d = card_dict(cid)
            d["payment"] = payment_for(board, cid)
            d["playable"] = d["payment"] <= inf
            hand.append(d)
        kept: dict[str, Any] | None = None
        if state["kept"][seat] is not None:
            kid = state["kept"][seat]["card"]
            kept = card_dict(kid)
            kept["kept_turn"] = state["kept"][seat]["turn"]
            kept["usable"] = self._kept_usable(state, seat)
            kept["payment"] = payment_for(board, kid)
        pend: dict[str, Any] | None = None
        if state["active"] == seat and state["pending"] is not None:
            pend = {k: v for k, v in state["pending"].items() if k != "return_to"}
        return {
            "seat": seat,
            "hand": hand,
            "kept": kept,
            "removed_kept": list(state["removed_kept"][seat]),
            "skill": state["skills"][seat],
            "skill_name": self._set_name(state["skills"][seat]) if state["skills"][seat] else None,
            "pending": copy.deepcopy(pend),
        }

    # ------------------------------------------------------------------ notation
    def describe_action(self, state: State, action: Action) -> str:
        """Short notation: ``play H01``, ``play kept``, ``keep H01``, ``pass``,
        ``at 5 180``, ``back``, ``skill A``, ``adjust +1``, ``target B``,
        ``remove B S10``, ``move S10``, ``skip``, ``draw H01``, ``roll 4``, ``start B``."""
        t = action.get("type")
        if t == "select":
            return f"play {action['card']}"
        if t == "select_kept":
            return "play kept"
        if t == "keep":
            return f"keep {action['card']}"
        if t == "place":
            return f"at {action['anchor']} {action['rot']}"
        if t == "adjust":
            d = int(action["delta"])
            return f"adjust {'+' if d > 0 else ''}{d}"
        if t == "target":
            return f"target {letter(action['seat'])}"
        if t == "remove":
            return f"remove {letter(action['seat'])} {action['card']}"
        if t == "move":
            return f"move {action['card']}"
        if t == "skill":
            return f"skill {action['set']}"
        if t == "draw":
            return f"draw {action['card']}"
        if t == "roll":
            return f"roll {action['value']}"
        if t == "start":
            return f"start {letter(action['seat'])}"
        return str(t)

    def action_label(self, state: State, action: Action) -> str:
        """Friendly button text (≤ 80 chars), e.g. ``5 ↓180° — pay 2 Infamy → H1 S2 K1 E3``."""
        t = action.get("type")
        me = state.get("active")
        if t == "skill":
            faces = SKILLS[action["set"]]
            summary = ", ".join(f"{f.face} {_EFFECT_SHORT[f.effect].format(n=f.amount)}" for f in faces)
            return f"{faces[0].set_name_en} {faces[0].set_name_zh} — {summary}"[:80]
        if t in ("select", "select_kept"):
            cid = action["card"] if t == "select" else state["kept"][me]["card"]
            pay = payment_for(state["boards"][me], cid)
            src = "kept " if t == "select_kept" else ""
            extra = state["pending"]["step"] == "extra_pick"
            die = " · 🎲 trouble die" if CARDS[cid].trouble_die and not extra else ""
            cost = f"pay {pay} Infamy" if pay else "free"
            verb = "Extra: play" if extra else "Play"
            return f"{verb} {src}{cid} {CARDS[cid].name_en} — {cost}{die}"[:80]
        if t == "keep":
            cid = action["card"]
            return f"Keep {cid} {CARDS[cid].name_en} — face down, ends your turn"[:80]
        if t == "pass":
            return "Do nothing (empty hand)"
        if t == "place":
            pend = state["pending"]
            board = [list(p) for p in state["boards"][me]]
            if pend["purpose"] == "move":
                board.pop(self._stack_index(board, pend["card"]))
            board.append([pend["card"], action["anchor"], action["rot"]])
            c = board_counts(board)
            pay = pend["payment"]
            if pend["purpose"] == "move":
                here = " (where it is)" if [action["anchor"], action["rot"]] == list(pend["from"]) else ""
                cost = f"move{here}"
            else:
                cost = f"pay {pay} Infamy" if pay else "free"
            return f"{action['anchor']} {rot_text(action['rot'])} — {cost} → H{c['H']} S{c['S']} K{c['K']} E{c['E']}"
        if t == "back":
            cid = state["pending"]["card"]
            if state["pending"]["purpose"] == "move":
                return "← Back: move another card, or skip"
            return f"← Back: not {cid} {CARDS[cid].name_en}"[:80]
        if t == "adjust":
            v = state["pending"]["roll"] + action["delta"]
            face = SKILLS[state["skills"][me]][v - 1]
            effect = _EFFECT_MID[face.effect].format(n=face.amount)
            if action["delta"] == 0:
                return f"Stay at {v} — {effect}"[:80]
            return f"{'+1' if action['delta'] > 0 else '−1'} → {v} — spends your kept card: {effect}"[:80]
        if t == "target":
            s = action["seat"]
            return f"Steal {state['pending']['amount']} from {letter(s)} — has {state['infamy'][s]} Infamy"
        if t == "remove":
            cid = action["card"]
            return f"Remove {letter(action['seat'])}'s {cid} {CARDS[cid].name_en}"[:80]
        if t == "move":
            cid = action["card"]
            return f"Move {cid} {CARDS[cid].name_en}"[:80]
        if t == "skip":
            return "Skip"
        return self.describe_action(state, action)

    def action_group(self, state: State, action: Action) -> str | None:
        """Groups for two-step menus: Play / Keep in the main step, the rotation in the
        placement step, the target player for ``remove``."""
        t = action.get("type")
        if t in ("select", "select_kept"):
            return "Play a card"
        if t == "keep":
            return "Keep a card"
        if t == "place":
            return f"{rot_text(action['rot'])} placements"
        if t == "remove":
            return f"Player {letter(action['seat'])}"
        return None

    def prompt(self, state: State, seat: Seat) -> str:
        """One sentence saying what ``seat`` must decide now."""
        if seat not in self.to_move(state) or seat == CHANCE:
            return ""
        if state["phase"] == "skill":
            return "Choose your skill set: what your trouble die does (secret until everyone has chosen)."
        pend = state["pending"]
        step = pend["step"]
        if step == "main":
            if not state["hands"][seat]:
                return "Your hand is empty: play your kept card or do nothing."
            return (f"Round {state['round']}: play a card or keep one face down "
                    f"(you have {state['infamy'][seat]} Infamy).")
        if step == "place":
            cid = pend["card"]
            if pend["purpose"] == "move":
                return f"Choose where to move {cid} {CARDS[cid].name_en} (anchor and rotation)."
            # public (board, reminders): the card stays secret until placed (↩ Back is allowed)
            return "Choose where to place the card you picked (anchor and rotation), or go back."
        if step == "adjust":
            return f"You rolled {pend['roll']}: spend your kept card to change it by 1?"
        if step == "target":
            return f"Choose the player to steal {pend['amount']} Infamy from."
        if step == "remove":
            return "Choose an opponent's topmost card to remove from the game."
        if step == "move_pick":
            return "You may move one of your topmost cards (or skip)."
        if step == "extra_pick":
            return "You may play one more card, without the die (or skip)."
        return "Your move."

    def timeout_action(self, state: State, seat: Seat) -> Action:
        """The spec §11 timeout play for ``seat``.

        Raises:
            NotYourTurn / GameOver: the seat is not to move.
        """
        self._check_can_act(state, seat)
        legal = self.legal_actions(state, seat)
        if seat == CHANCE:
            return copy.deepcopy(legal[0])
        if state["phase"] == "skill":
            return {"type": "skill", "set": "A"}
        pend = state["pending"]
        step = pend["step"]
        me = seat
        if step == "main":
            for cid in state["hands"][me]:
                if payment_for(state["boards"][me], cid) == 0:
                    return {"type": "select", "card": cid}
            if state["hands"][me]:
                return {"type": "keep", "card": state["hands"][me][-1]}
            return {"type": "pass"}
        if step == "place":
            if pend["purpose"] == "move":
                a, r = pend["from"]
                return {"type": "place", "anchor": a, "rot": r}
            return self.best_e_placement(state["boards"][me], pend["card"])
        if step == "adjust":
            return {"type": "adjust", "delta": 0}
        if step == "target":
            opts = pend["options"]
            best = max(state["infamy"][s] for s in opts)
            return {"type": "target", "seat": next(s for s in opts if state["infamy"][s] == best)}
        if step == "remove":
            opts2 = self._remove_options(state)
            targets = [s for s in self._eligible(state, me) if any(o[0] == s for o in opts2)]
            best = max(state["infamy"][s] for s in targets)
            t = next(s for s in targets if state["infamy"][s] == best)
            return {"type": "remove", "seat": t, "card": topmost(state["boards"][t])[-1]}
        return {"type": "skip"}

    @staticmethod
    def best_e_placement(board: Sequence[Sequence[Any]], card: str) -> Action:
        """Placement giving the most visible E; ties: lowest anchor, then 0° (spec §11)."""
        best: tuple[int, int, int] | None = None
        for a in ANCHORS:
            for r in ROTATIONS:
                e = board_counts([*board, [card, a, r]])["E"]
                key = (-e, a, r)
                if best is None or key < best:
                    best = key
        assert best is not None
        return {"type": "place", "anchor": best[1], "rot": best[2]}

    def shuffle_hidden(self, state: State, seat: Seat | None, rng: random.Random) -> State:
        """Redeal everything ``seat`` cannot see (deck, other hands, waiting piles, other
        kept and removed kept cards, other skill choices during setup), keeping sizes."""
        st = copy.deepcopy(state)
        n = st["players"]
        others = [s for s in range(n) if s != seat]
        fixed: set[str] = set()
        pend = st["pending"]
        if pend is not None and pend.get("step") == "place" and st["active"] != seat:
            fixed.add(pend["card"])
        pool: list[str] = list(st["deck"])
        for s in others:
            pool += [c for c in st["hands"][s] if c not in fixed]
            if st["kept"][s] is not None and st["kept"][s]["card"] not in fixed:
                pool.append(st["kept"][s]["card"])
            pool += st["removed_kept"][s]
        for s in range(n):
            for p in st["piles"][s]:
                pool += p["cards"]
        rng.shuffle(pool)

        def take(k: int) -> list[str]:
            out = pool[:k]
            del pool[:k]
            return out

        st["deck"] = sorted(take(len(st["deck"])))
        for s in others:
            st["hands"][s] = [c if c in fixed else take(1)[0] for c in st["hands"][s]]
            if st["kept"][s] is not None and st["kept"][s]["card"] not in fixed:
                st["kept"][s]["card"] = take(1)[0]
            st["removed_kept"][s] = take(len(st["removed_kept"][s]))
        for s in range(n):
            for p in st["piles"][s]:
                p["cards"] = take(len(p["cards"]))
        if pend is not None and pend.get("step") == "place" and st["active"] != seat and pend["source"] != "board":
            pend["payment"] = payment_for(st["boards"][st["active"]], pend["card"])
        if st["phase"] == "skill":
            for s in others:
                if st["skills"][s] is not None:
                    st["skills"][s] = rng.choice(SET_LETTERS)
        return st

    # ------------------------------------------------------------------ helpers
    def _affordable(self, state: State, seat: int, card: str) -> bool:
        return payment_for(state["boards"][seat], card) <= int(state["infamy"][seat])

    def _kept_usable(self, state: State, seat: int) -> bool:
        k = state["kept"][seat]
        return k is not None and int(k["turn"]) < int(state["turn_no"])

    @staticmethod
    def _stack_index(board: Sequence[Sequence[Any]], card: str) -> int:
        for i, p in enumerate(board):
            if p[0] == card:
                return i
        raise IllegalAction(f"{card} is not on that board.")

    @staticmethod
    def _cname(card: str) -> str:
        c: Card = CARDS[card]
        return f"{c.id} {c.name_en} ({c.name_zh})"

    @staticmethod
    def _set_name(x: str) -> str:
        f = SKILLS[x][0]
        return f"{f.set_name_en} ({f.set_name_zh}, set {x})"

    def _why_illegal(self, state: State, seat: Seat, action: Any) -> str:
        if not isinstance(action, dict):
            return "That is not a move."
        t = action.get("type")
        pend = state.get("pending") or {}
        step = pend.get("step")
        if t == "select" and step in ("main", "extra_pick"):
            cid = str(action.get("card"))
            if cid not in state["hands"][seat]:
                return "You can only play a card from your hand."
            return f"You cannot pay the {payment_for(state['boards'][seat], cid)} Infamy that card needs."
        if t == "select_kept":
            if state["kept"][seat] is None:
                return "You have no kept card."
            if not self._kept_usable(state, seat):
                return "A kept card can only be used from the turn after you kept it."
            return "You cannot pay for your kept card."
        if t == "keep":
            return "You can only keep a card from your hand."
        if t == "pass":
            return "You must play or keep a card while you hold one."
        if t == "place":
            return "A card must be placed at an anchor 1–9, upright (0) or upside down (180)."
        if t == "adjust":
            if step != "adjust":
                return "You can only adjust your own roll with a kept card from an earlier turn."
            return "The die must stay between 1 and 6."
        if t in ("target", "remove"):
            return "That player cannot be targeted (Most Wanted is immune, or the choice is not legal)."
        if t in ("draw", "roll", "start"):
            return "That chance outcome is impossible now."
        return f"That move is not legal now: {t}."
