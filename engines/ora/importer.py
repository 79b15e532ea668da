"""Replay philihp/kennerspiel game records through our engine.

``python -m engines.ora.importer [--as-recorded] [--json] FILE…`` replays each game of a
kennerspiel record file (``.jsonl``, one game a line, the format of
``tests/engines/records/kennerspiel/README.md``) or of our text format, and prints each seat's score
breakdown or the first command it cannot follow (its index, the command and why). With
``--json`` it prints one object a line per game: ``{"followed", "refused", "seatColors",
"scores"}``, seats in the record's order, ``scores`` as kennerspiel's (``goods``,
``economic``, ``settlements``, ``dwelling``, ``total``).

A ``.jsonl`` game starts from its ``config`` (1 player → ``solo``; 2 players ``long`` →
two_player_long, ``short`` → two_player; 3–4 players ``long`` → standard, ``short`` →
short) with the seats in ``seatColors`` order (seat 0 starts round 1). Our text format is
one command a line (``#`` starts a comment) after ``CONFIG <players> <france|ireland>
<long|short>`` and ``START <seed> <colours…>`` (the colours in seat order).

Each command is read word by word as kennerspiel writes it and mapped to our engine's steps
(``docs/rules/ora-kennerspiel.md``, "Replaying kennerspiel's records"): ``USE`` words are
the payment, then the choices (``read_words``), walked through our steps until the function
is resolved with exactly that payment, those choices and that joker flag (``_resolve``);
``COMMIT`` ends the record's turn, counted against the turns our engine closed by itself.

Modes: the default replays under docs/rules/ora.md and stops at the first command it cannot
follow, naming the documented difference that explains it when there is one. ``--as-recorded``
applies the differences of docs/rules/ora-kennerspiel.md a record can show: K1 (3-player
grapes in round 9), K2 (an entering indicator worth one step in its entry round), K3 (Whiskey
Distillery without cost), K4 (Coal Harbor pays peat; its ``Co`` words nothing), K5/K6 (building rosters), K7 (solo
without phase E), K9 (the four-player short table's jump, ``Replay._k9_jump``), K10 (the
Bulwark's free landscape leaves the price pile where it was), K11 (Forger's Workshop without
straw), K12 (a landscape after the settlement), K13 (a landscape in every action window), K14
(a landscape where kennerspiel's grid allows it), K15 (the one-word Cooperage gives nothing),
K16 (solo round 25 twice), K17 (no two-player safety cap), K18 (the two-player long game's
end checked before the round's last window), K19 (the Scriptorium keeps every coin, the Druid's
House every book paid for it), K20 (solo: the neutral prior's function after the settlement),
K21 (the Camera's words pay nothing), K22 (solo: the settlement phase before the rotation).
K8 needs nothing (a record never exceeds 8 Wonders).
The standard library only, like every engine module.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import NotRequired, TypedDict

from engines.base import Event, GameError, present
from engines.ora import flow as F
from engines.ora import rules as R
from engines.ora.data import (
    BUILDINGS,
    COIN5,
    GIFT,
    MODES,
    POINT_GOODS,
    SETTLEMENTS,
    SHORT_ROUND_GOODS,
    goods_of,
    turn_cap,
)
from engines.ora.effects import EFFECTS, Part
from engines.ora.engine import OraEngine
from engines.ora.types import Action, Frame, Land, State

ENGINE = OraEngine()
TOKENS: dict[str, tuple[str, int]] = {
    "Wo": ("wood", 1), "Wh": ("whiskey", 1), "Gn": ("grain", 1), "Sw": ("straw", 1), "Sh": ("livestock", 1),
    "Mt": ("meat", 1), "Cl": ("clay", 1), "Ce": ("ceramic", 1), "Po": ("ceramic", 1), "Pt": ("peat", 1),
    "Co": ("peat_coal", 1), "Pn": ("coin", 1), "Ni": ("coin", 5), "Bo": ("book", 1), "Sn": ("stone", 1),
    "Or": ("ornament", 1), "Fl": ("flour", 1), "Br": ("bread", 1), "Gp": ("grapes", 1), "Wn": ("wine", 1),
    "Rq": ("reliquary", 1), "Ma": ("malt", 1), "Ho": ("malt", 1), "Be": ("beer", 1),
}
"""kennerspiel's two-letter goods → (our good, count); ``Jo`` (joker) and ``Bp`` are flags."""
COLOURS = "RGBW"
SIDES = {"PLAINS": "plains", "HILLS": "hills", "COAST": "coast", "MOUNTAIN": "mountain"}
SEARCH_LIMIT = 4000
"""Most states examined when matching one USE/SETTLE to our steps."""
INNER = frozenset({"use", "pay"})
"""Frames that belong to the function being matched (others are the record's next command)."""


class RecordError(Exception):
    """A record that cannot be followed: ``line`` (1-based), the command, why."""

    def __init__(self, line: int, command: str, reason: str) -> None:
        super().__init__(f"line {line}: `{command}`: {reason}")
        self.line, self.command, self.reason = line, command, reason


@dataclass
class Replay:
    """A replay in progress: the state, the seats' colours, the mode and what was applied."""

    state: State
    colours: str
    as_recorded: bool
    actions: list[tuple[int, Action]] = field(default_factory=list)
    closed: int = 0
    """Turns (action windows and settlement turns) our engine has closed so far."""
    committed: int = 0
    """Turns the record has closed (its ``COMMIT`` commands)."""
    bought_turn: dict[int, int] = field(default_factory=dict)
    """K13: the turn (``closed`` then) of each seat's last landscape purchase."""
    bought_unit: dict[int, int] = field(default_factory=dict)
    closed_seat: int | None = None
    """The seat of the last turn our engine closed."""
    notes: list[str] = field(default_factory=list)
    k9: int = 0
    """K9 progress: 0 not met, 1 phase D cut short (its first two settlement turns, then the
    start player's turn from round 1), 2 round 2 played again."""
    free_tiles: Counter[str] = field(default_factory=Counter)
    """K10: districts / plots taken free with the Bulwark, which kennerspiel's price piles skip."""
    settled: int | None = None
    """The seat whose ``SETTLE`` closed its settlement turn (K12), with ``settled_at`` (the
    number of actions applied then)."""
    settled_at: int = -1
    deferred: tuple[int, str, str, int] | None = None
    """A purchase the record made while our engine had a decision open: (seat, tile, side, y)."""
    unused: tuple[str, int, list[dict[str, int]], int] | None = None
    """A work contract the record never follows with its USE: (building, owner, everyone's
    goods after the payment alone, the unit then)."""
    moves: list[str] | None = None
    index: int = 0
    """The record's moves and the index of the command being applied (for looking ahead)."""
    contracted: str | None = None
    """The building of the last work contract (the record's ``USE`` of it follows)."""
    declined: set[str] = field(default_factory=set)
    """Buildings whose open function the record went past in this turn (``_decline_use``)."""
    bulwark: tuple[int, set[str]] | None = None
    """The seat whose Bulwark was used in this turn and the free landscapes it has not taken
    (K10: kennerspiel gives them without its price piles, so also when ours are empty)."""
    neutral_phase_use: str | None = None
    """Solo: the building the neutral prior was placed on in this settlement phase (K22)."""
    presold: int = -1
    """The index of the ``USE`` whose payment ``_presell`` prepared before its work contract."""
    early: set[int] = field(default_factory=set)
    """Indexes of the record's conversions ``_presell`` made before a work contract (skipped
    when the replay reaches them)."""
    offer_aside: bool = False
    """The prior's offer is set aside for a purchase (``_buy_before_offer``): the window is
    not a new one."""
    suspended: list[Frame] | None = None
    """K20 (solo): the neutral prior's function, taken off the stack for the settlement the
    record makes before its ``USE``."""
    prior_next: bool = False
    """``WITH_PRIOR`` in the seat's own window: the next ``USE`` places the prior."""
    _entered: set[tuple[int, str]] = field(default_factory=set)
    _roster_done: bool = False
    in_place: bool = False
    """The replay owns ``state`` and applies steps to it in place (``OraEngine.apply_in_place``,
    no copy per step). A step our engine refuses may then leave ``state`` half-changed, so a
    refusal is only trusted to end the replay (``replay_game`` replays the record again
    without ``in_place`` to report it); a step whose refusal the importer gets over is applied
    with ``recoverable``."""

    # -- applying ---------------------------------------------------------------
    def apply(self, action: Action, *, recoverable: bool = False) -> None:
        """Apply ``action`` for the deciding seat and count the settlement turns our engine
        closed by itself (nothing to do in them) as turns the record will ``COMMIT``.
        ``recoverable``: the state is left as it was if our engine refuses the action, even
        ``in_place``.

        Raises:
            GameError: our engine refuses the action.
        """
        seat = F.decider(self.state)
        if seat is None:
            raise GameError("The game is over.")
        before = _turns(self.state)
        phase = self.state["phase"]
        win = self.state["win"]
        turn_seat = seat if win is None else win["seat"]  # an owner's answer closes the user's turn
        if self.in_place and (not recoverable or action["type"] in FREE_TYPES):  # see OraEngine.apply_in_place
            events = ENGINE.apply_in_place(self.state, seat, action)
        else:
            self.state, events = ENGINE.apply(self.state, seat, action)
        self.actions.append((seat, action))
        closed = before + _turns_added(self.state, events) - _turns(self.state)
        if self.as_recorded:
            self._patch(phase)
            self._k9_jump()
            self._k18_end()
        if closed:
            self.closed += closed
            self.closed_seat = turn_seat
        if self.as_recorded:
            self._k13()

    def _k18_end(self) -> None:
        """K18: kennerspiel's two-player long game checks the display (at most 3 buildings)
        when the other player's window opens, after the round's start player has taken both of
        his, and ends the game after that window; our engine's own check at the round's end
        (after that window) is off."""
        st = self.state
        if st["mode"] != "2pl" or st["over"] or st["phase"] < 4 or self.offer_aside:
            return
        win = st["win"]
        if (win is not None and win["kind"] == "action" and not win["main"] and not win["used"]
                and not st["stack"] and win["seat"] != F.start_seat(st) and st["queue"] == [["unit_end"]]
                and len(st["display"]) <= 3):
            st["queue"] = [["end"]]
            self.notes.append(f"K18: the display is checked before the last window of round {st['unit']}")

    def _k13(self) -> None:
        """K13: kennerspiel allows a landscape purchase in every action window (the rulebook:
        one per round). A purchase made in an earlier window of this unit is forgotten when
        a new window of the same seat opens."""
        win = self.state["win"]
        if win is None or win["kind"] not in ("action", "bonus"):
            return
        p = self.state["pl"][win["seat"]]
        if p["bought"] == self.state["unit"] and self.bought_turn.get(win["seat"]) != self.closed:
            p["bought"] = -1

    def _patch(self, phase: int) -> None:
        """The as-recorded differences that change a state (K1, K2, K5, K6, K16)."""
        st = self.state
        if st["mode"] == "solo" and phase == 3 and st["phase"] == 4:  # K16: round 25 once more
            st["unit"] -= 1
            self.notes.append("K16: solo round 25 played again after settlement phase D")
        mode = MODES[st["mode"]]
        unit = st["unit"]
        if st["mode"] == "std3" and st["variant"] == "france":  # K1: grapes in round 9
            if unit == mode.grapes and st["wheel"].get("grapes") == 0:
                del st["wheel"]["grapes"]
            if unit == (mode.grapes or 0) + 1 and "grapes" not in st["wheel"]:
                st["wheel"]["grapes"] = 1
        for good, entry in (("grapes", mode.grapes), ("stone", mode.stone)) if st["mode"] in K2_MODES else ():  # K2: enters one step on
            if entry == unit and st["wheel"].get(good) == 0 and (unit, good) not in self._entered:
                st["wheel"][good] = 1
                self._entered.add((unit, good))
        roster = {"2pl": "2p", "sh3": "std3"}.get(st["mode"])  # K5, K6
        if roster is not None and (phase != st["phase"] or not self._roster_done):
            released = {"start", *"ABCD"[:st["phase"]]}
            built = {b for p in st["pl"] for _, b in R.pieces(p["land"])}
            chosen = R.game_set(roster, st["variant"], False)
            st["display"] = [b for b in BUILDINGS if b in chosen and BUILDINGS[b].stage in released
                             and b not in built]
            self._roster_done = True

    def _k9_jump(self) -> None:
        """K9, kennerspiel's four-player short table: after the first two settlement turns of
        phase D it goes back to round 1's last turn (the start player acts once more) and then
        plays round 2 again (its round goods, its start player), with no end of phase D (no
        stage-D buildings, no Hilltop Village). When round 8's last turn is open, the rest of
        round 8 becomes those two settlement turns and that turn; once that turn is open our
        round counter is set back, so the next round our engine begins is round 2."""
        st = self.state
        mode = MODES[st["mode"]]
        if st["mode"] != "sh4" or st["win"] is None:
            return
        s0 = present(st["s0"], "the start seat is known")
        if (self.k9 == 0 and st["phase"] == 3 and st["unit"] == mode.phases[3]
                and st["queue"] == [["unit_end"]]):
            st["queue"] = [["settle", s0], ["settle", (s0 + 1) % st["n"]], ["window", s0, "action"]]
            self.k9 = 1
            self.notes.append("K9: phase D ends after two settlement turns; the table goes back to "
                              "round 1's last turn, then round 2 again")
        elif self.k9 == 1 and not st["queue"] and st["win"]["kind"] == "action" and st["win"]["seat"] == s0:
            st["unit"] = 1
            self.k9 = 2

    # -- queries ----------------------------------------------------------------
    def legal(self) -> list[Action]:
        seat = F.decider(self.state)
        return [] if seat is None else list(ENGINE.legal_actions(self.state, seat))

    def owner_of(self, bid: str) -> tuple[int, str]:
        """(owner, our id) of a building named in the record (``LR1`` → the red seat's L1);
        owner -1 for the display."""
        if len(bid) == 3 and bid[0] == "L" and bid[1] in COLOURS:
            if bid[1] in self.colours:
                return self.colours.index(bid[1]), f"L{bid[2]}"
            if self.state["mode"] == "solo":  # the neutral player's colour is any other
                return self.state["n"], f"L{bid[2]}"
            raise GameError(f"No {bid[1]} player in this game.")
        for o, p in enumerate(self.state["pl"]):
            if R.find(p["land"], bid) is not None:
                return o, bid
        if bid in self.state["display"]:
            return -1, bid
        raise GameError(f"No building {bid} is in play.")


def _turns(st: State) -> int:
    """Turns still to come in this unit or open (queued windows and settlement turns, plus
    an open one)."""
    n = 1 if st["win"] is not None and st["win"]["kind"] != "neutral" else 0
    for item in st["queue"]:
        if item[0] == "window" or item[0] == "settle":
            n += 1
    return n


def _turns_added(st: State, events: Iterable[Event]) -> int:
    """Turns queued by the units and settlement phases that ``events`` announce (the queues
    ``flow._begin_unit`` and ``flow._unit_end`` make)."""
    n = int(st["n"])
    settlers = 1 if st["mode"] == "solo" else n
    added = 0
    for e in events:
        if e.kind == "phase":
            added += settlers
        elif e.kind == "bonus_round":
            added += n
        elif e.kind in ("round", "turn"):
            added += {"solo": 2, "2pl": 3}.get(st["mode"], (1 if st["last"] else 2) if st["mode"] == "2p" else n + 1)
    return added


def _goods(params: Iterable[str]) -> tuple[Counter[str], bool]:
    """The goods named by kennerspiel parameters and whether the joker (``Jo``) is used."""
    out: Counter[str] = Counter()
    joker = False
    for p in params:
        read = _PARAM_GOODS.get(p)
        if read is None:
            read = _param_goods(p)
            if len(_PARAM_GOODS) < READ_CACHE:
                _PARAM_GOODS[p] = read
        for good, n in read[0]:
            out[good] += n
        joker = joker or read[1]
    return out, joker


_PARAM_GOODS: dict[str, tuple[tuple[tuple[str, int], ...], bool]] = {}
"""``_param_goods`` memo."""


def _param_goods(p: str) -> tuple[tuple[tuple[str, int], ...], bool]:
    """The goods tokens of one parameter, in order, and whether it has ``Jo``.

    Raises:
        GameError: a goods token we do not know.
    """
    out: list[tuple[str, int]] = []
    joker = False
    for i in range(0, len(p) - 1, 2):
        tok = p[i:i + 2]
        if tok == "Jo":
            joker = True
        elif tok in TOKENS:
            out.append(TOKENS[tok])
        elif tok != "Bp":
            raise GameError(f"Unknown goods token {tok!r}.")
    return tuple(out), joker


def _gained(before: Mapping[str, int], after: Mapping[str, int]) -> dict[str, int]:
    """The goods that went up from ``before`` to ``after`` (a good missing from ``after`` went
    down or stayed at 0)."""
    return {g: n - before.get(g, 0) for g, n in after.items() if n > before.get(g, 0)}


def _uses_joker(action: Action) -> bool:
    if action.get("joker"):
        return True
    return any(p == "joker" for p in action.get("pick", []) if isinstance(p, str))


CHOICE_PARAMS: dict[str, tuple[str, ...]] = {
    "L2": ("choose",),  # Farmyard: [Jo] and the good chosen (Gn or Sh)
    "F36": ("pay", "pay"),  # Pilgrimage Site: each word one upgrade's payment
}
"""How kennerspiel's parameters of a ``USE`` read, by building (our id): each parameter is
``pay`` (the goods paid) or ``choose`` (goods chosen, received); ``Jo`` anywhere is the
joker. A building not listed reads its first parameter as ``pay`` and the others as ``choose``; in a
``pay`` parameter, a good the building only gives is a choice (``_gains_only``)."""


@dataclass(frozen=True)
class Words:
    """A ``USE``/``SETTLE``'s parameters as kennerspiel means them (read only: ``read_words``
    gives the same object for the same words)."""

    pay: Counter[str]
    choose: Counter[str]
    joker: bool
    coords: list[tuple[int, int]] = field(default_factory=list)


_READ: dict[tuple[str | None, tuple[str, ...]], Words] = {}
READ_CACHE = 20_000
"""Most words ``read_words`` keeps read (a development set has a few thousand)."""


def read_words(bid: str | None, params: Sequence[str]) -> Words:
    """Split ``params`` into what is paid, what is chosen and the joker flag (read once per
    building and words).

    Raises:
        GameError: a goods token we do not know.
    """
    key = (bid, tuple(params))
    words = _READ.get(key)
    if words is None:
        if len(_READ) > READ_CACHE:
            _READ.clear()
        words = _READ[key] = _read_words(bid, params)
    return words


def _read_words(bid: str | None, params: Sequence[str]) -> Words:
    roles = CHOICE_PARAMS.get(bid or "", ())
    gains_only = _gains_only(bid) if bid else frozenset()
    pay: Counter[str] = Counter()
    choose: Counter[str] = Counter()
    joker = False
    for i, p in enumerate(params):
        if p.lstrip("-").isdigit():
            continue  # a coordinate (Carpentry, Forest Hut, Printing Office): read by _coords
        role = roles[i] if i < len(roles) else ("pay" if i == 0 else "choose")
        goods, jo = _goods([p])
        joker = joker or jo
        for g, n in goods.items():
            (pay if role == "pay" and g not in gains_only else choose)[g] += n
    return Words(pay, choose, joker, _coords(params))


def _coords(params: Sequence[str]) -> list[tuple[int, int]]:
    """The ``x y`` pairs among a command's parameters."""
    nums = [int(p) for p in params if p.lstrip("-").isdigit()]
    return list(zip(nums[0::2], nums[1::2], strict=False))


_GAINS: dict[str, frozenset[str]] = {}


def _gains_only(bid: str) -> frozenset[str]:
    """Goods building ``bid`` can give but never takes as payment: in kennerspiel's words for
    it, such a good is a choice (Farmyard's ``Gn``, the Cooperage's ``Wh`` in ``WhWoWoWo``)."""
    if bid in _GAINS:
        return _GAINS[bid]
    gains: set[str] = set()
    pays: set[str] = set()
    effect = EFFECTS.get(bid)
    names = goods_of("france") + goods_of("ireland")
    for part in effect.parts if effect is not None else ():
        for alt in part.alts:
            pays.update(g for g, _ in alt.pay.named)
            for kind, _ in alt.pay.value:
                pays.update(g for g in names if R.value(g, kind) > 0)
            if alt.pay.different:
                pays.update(names)
            for t in alt.get:
                if t.good:
                    gains.add(t.good)
                gains.update(o for o in t.options if isinstance(o, str))
        for t in part.picks:
            gains.update(o for o in t.options if isinstance(o, str))
    if "coin" in pays:  # kennerspiel pays coins with wine and whiskey too
        pays.update(("wine", "whiskey"))
    _GAINS[bid] = frozenset(gains - pays)
    return _GAINS[bid]


def _picked(action: Action) -> set[str]:
    """Goods an action names as choices (a wheel's good, picks)."""
    out = set()
    if isinstance(action.get("good"), str) and action["type"] == "wheel":
        out.add(action["good"])
    for p in action.get("pick", []):
        if isinstance(p, str):
            out.add(p)
        elif isinstance(p, list) and p and isinstance(p[0], str):
            out.add(p[0])
        elif isinstance(p, dict):
            out.update(p)
    return out


def _resolve(rp: Replay, words: Words) -> None:
    """Resolve the function (or payment) on top of the stack as ``words`` say: our steps are
    walked, each payment made with the recorded goods, until the function is resolved with
    exactly the recorded payment, the recorded choices and the recorded joker flag.

    Raises:
        GameError: our steps cannot pay or choose exactly that.
    """
    st0 = rp.state
    if not st0["stack"] or st0["stack"][-1]["f"] not in INNER:
        if words.pay or words.choose or words.joker:
            raise GameError("The building takes no parameters here.")
        return
    depth = len(st0["stack"])
    decider = F.decider(st0)
    if decider is None:
        return
    seat: int = decider
    seen = 0
    exact = False
    variant = str(st0["variant"])
    joker_gone = words.joker and "joker" not in st0["wheel"]
    want = {g: n for g, n in words.pay.items() if n > 0}

    def done(st: State) -> bool:
        return (len(st["stack"]) < depth or not st["stack"] or st["stack"][-1]["f"] not in INNER
                or F.decider(st) != seat)

    def candidates(st: State, left: Mapping[str, int]) -> list[tuple[Action, dict[str, int]]]:
        """The steps to try from ``st``, in search order, each with the goods it pays."""
        top = st["stack"][-1]
        if top["f"] == "pay" and top["req"]:
            kind = top["req"][0][0]
            if kind in ("food", "energy", "points"):
                pool = _value_pool(variant, kind)
                bundle = {g: n for g, n in left.items() if g in pool}
                return [({"type": "pay", "goods": bundle}, dict(bundle))] if bundle else []
            if kind == "different":  # the recorded goods, in our file order (apply checks each)
                after = top["req"][0][2]
                order = _pick_order(variant)
                start = order.index(after) + 1 if after in order else 0
                picks: list[tuple[Action, dict[str, int]]] = [
                    ({"type": "pick", "good": g}, {"coin": 5} if g == COIN5 else {g: 1}) for g in order[start:]
                    if left.get(g, 0) > 0 or (g == COIN5 and left.get("coin", 0) >= 5)]
                # as many goods left as picks to make: each is picked, in our file order, so
                # only the first can begin a way to the end
                return picks[:1] if len(picks) == top["req"][0][1] and len(top["req"]) == 1 else picks
            if kind == "forest":
                return [(a, _paid_by(a, None)) for a in ENGINE.legal_actions(st, seat)
                        if a["type"] == "forest" and (a["x"], a["y"]) in words.coords]
        part = F.part_of(top) if top["f"] == "use" else None
        # a function's part lists its do/wheel/skip choices (no places to number, nothing
        # the panel leaves out): the frame's options are its legal actions without free ones
        legal = F.frame_options(st, top) if top["f"] == "use" else ENGINE.legal_actions(st, seat)
        listed: list[Action] = []
        for a in legal:
            if a["type"] in FREE_TYPES:
                continue
            recorded = _recorded_points(a)
            if recorded is a or recorded not in listed:  # only a replaced point set can repeat one
                listed.append(recorded)
        options = []
        for a in listed:
            need = F.need_of(part, a) if part is not None and a["type"] == "do" else None
            if part is None or _fits(st, part, a, need, left):
                options.append((_order(a, need), a, need))
        options.sort(key=lambda o: o[0])
        return [(a, _paid_by(a, need)) for _, a, need in options]

    def _recorded_points(a: Action) -> Action:
        """A listed set of point goods replaced by the recorded one (D40: any set within the
        entitlement is accepted; the list shows the largest)."""
        if a["type"] != "do" or not any(isinstance(p, dict) for p in a.get("pick", [])):
            return a
        points = {g: n for g, n in words.choose.items() if g in POINT_GOODS}
        return {**a, "pick": [dict(points) if isinstance(p, dict) else p for p in a["pick"]]}

    def _fits(st: State, part: Part, a: Action, need: Need | None, left: Mapping[str, int]) -> bool:
        """Whether a part's option can belong to the recorded words (cheap checks first): its
        picks are the recorded choices, and what is left of the recorded payment covers its
        named goods and could cover its k different goods and its values (``flow.do_part``
        opens a payment for those, made only with the recorded goods, ``candidates``)."""
        if a["type"] == "wheel":
            forced = a["good"] not in st["wheel"]
            return ((not words.choose or a["good"] in words.choose)
                    and (bool(a["joker"]) == words.joker or forced or joker_gone))
        if a["type"] != "do" or need is None:
            return True
        for p in a.get("pick", []):
            if isinstance(p, dict) and Counter(p) != words.choose:
                return False
            if isinstance(p, str) and words.choose and p not in words.choose and p != "joker":
                return False
        named, value, different, _ = need
        if not all(left.get(g, 0) >= n for g, n in named.items()):
            return False
        if part.ordered or not (value or different):
            return True
        rest = {g: n - named.get(g, 0) for g, n in left.items() if n > named.get(g, 0)}
        if different > len(rest) + (1 if rest.get("coin", 0) >= 5 else 0):
            return False
        return all(sum(R.value(g, kind) * n for g, n in rest.items() if g in _value_pool(variant, kind)) >= amount
                   for kind, amount in value.items() if amount)

    reached: list[tuple[State, list[Event]]] = []
    gains = joker_gone or bool(words.choose)
    """What the steps give is looked at (``got``, ``picked``) only against recorded choices."""

    def walk(st: State, owned: bool, seq: list[Action], paid: dict[str, int], picked: set[str],
             got: dict[str, int], used_joker: bool, evs: list[Event]) -> list[Action] | None:
        """Depth first over the steps that keep within the recorded payment. ``owned``: ``st``
        is the walk's own copy, so the last step tried from it is applied to it in place (a
        copy is made only for a step that has a sibling still to try)."""
        nonlocal seen
        seen += 1
        if seen > SEARCH_LIMIT:
            return None
        if done(st):
            if joker_gone:  # kennerspiel's Jo with the joker out of the game yields nothing
                ok = paid == want and not used_joker and not got
            else:
                ok = (paid == want and used_joker == words.joker
                      and all(got.get(g, 0) >= n if exact else g in picked or got.get(g, 0) > 0
                              for g, n in words.choose.items())
                      and all(Counter(p) == words.choose for a in seq for p in a.get("pick", [])
                              if isinstance(p, dict)))
            if ok:
                reached.append((st, evs))
            return list(seq) if ok else None
        left = {g: n - paid.get(g, 0) for g, n in want.items() if n > paid.get(g, 0)}
        steps = []
        for a, pays in candidates(st, left):
            p2 = _plus(paid, pays)
            if all(n <= want.get(g, 0) for g, n in p2.items()):
                steps.append((a, p2))
        last = len(steps) - 1
        for i, (a, p2) in enumerate(steps):
            # without Jo, kennerspiel takes the joker when the good's indicator is gone
            forced = a["type"] == "wheel" and a.get("good") not in st["wheel"] and not words.joker
            had = st["pl"][seat]["goods"]
            try:
                if owned and i == last:
                    had = dict(had) if gains else had
                    nxt, step_events = st, ENGINE.apply_in_place(st, seat, a)
                else:
                    nxt, step_events = ENGINE.apply(st, seat, a)
            except GameError:
                continue
            picked2, got2 = picked, got
            if gains:
                picked2, got2 = picked | _picked(a), _plus(got, _gained(had, nxt["pl"][seat]["goods"]))
            found = walk(nxt, True, [*seq, a], p2, picked2, got2,
                         used_joker or (_uses_joker(a) and not forced), [*evs, *step_events])
            if found is not None:
                return found
        return None

    # (``in_place``: a failed walk ends the replay, so the last walk may start on the state itself)
    turns0, unit0, phase0 = _turns(st0), st0["unit"], st0["phase"]
    exact = any(n > 1 for n in words.choose.values())
    found = walk(st0, rp.in_place and not exact, [], {}, set(), {}, False, [])
    if found is None and exact:
        exact, seen = False, 0
        found = walk(st0, rp.in_place, [], {}, set(), {}, False, [])
    if found is None:
        raise GameError("Our rules cannot pay or choose exactly that here.")
    # The walk's own states: the same steps, applied once. Only the last step can close the
    # turn (before it, the function is still open and our engine's flow waits), so the
    # bookkeeping of ``Replay.apply`` for it stands for all of them.
    final, events = reached[-1]
    rp.state = final
    rp.actions.extend((seat, a) for a in found)
    closed = turns0 + _turns_added(final, events) - _turns(final)
    if closed:
        rp.closed += closed
        rp.closed_seat = seat
    if rp.as_recorded:
        rp._patch(phase0)
        rp._k9_jump()
        if final["unit"] != unit0 or final["phase"] != phase0 or final["over"]:
            rp._k18_end()
        rp._k13()


Need = tuple[dict[str, int], dict[str, float], int, int]
"""``flow.need_of`` of a ``do`` step: named goods, value by kind, k different, forests."""


def _paid_by(action: Action, need: Need | None) -> dict[str, int]:
    """The goods a step pays, as its words say (a payment that also gains the same good,
    like the Cloister Courtyard paying a coin for coins, still counts as paid); ``need``:
    a ``do`` step's ``flow.need_of`` (None for a step of no function's part)."""
    t = action["type"]
    if t == "pick":
        g = str(action["good"])
        return {"coin": 5} if g == COIN5 else {g: 1}
    if t == "pay":
        return {str(g): int(n) for g, n in action["goods"].items()}
    if t == "add":
        return {str(action["good"]): int(action["n"])}
    if t == "do" and need is not None:
        return dict(need[0])
    return {}


def _plus(a: Mapping[str, int], b: Mapping[str, int]) -> dict[str, int]:
    """``a + b`` as ``Counter`` adds (only the goods left above 0)."""
    out = dict(a)
    for g, n in b.items():
        out[g] = out.get(g, 0) + n
    return {g: n for g, n in out.items() if n > 0} if b else out


def _order(action: Action, need: Need | None) -> tuple[int, float]:
    """Search order of a step: the largest payment first (kennerspiel's words name the whole
    payment, so the most that it pays for is meant), ``skip`` last."""
    if action["type"] == "skip":
        return (1, 0.0)
    if need is None:
        return (0, 0.0)
    named, value, different, forest = need
    return (0, -float(sum(named.values()) + sum(value.values()) + different + forest))


_POOLS: dict[tuple[str, str], frozenset[str]] = {}
_ORDERS: dict[str, list[str]] = {}


def _value_pool(variant: str, kind: str) -> frozenset[str]:
    """The goods that count for a ``kind`` payment in ``variant`` (``rules.value_goods``)."""
    if (variant, kind) not in _POOLS:
        _POOLS[variant, kind] = frozenset(R.value_goods(goods_of(variant), kind))
    return _POOLS[variant, kind]


def _pick_order(variant: str) -> list[str]:
    """The goods of "k different goods" in our file order, then ``coin5``."""
    if variant not in _ORDERS:
        _ORDERS[variant] = [*goods_of(variant), COIN5]
    return _ORDERS[variant]


FREE_TYPES = frozenset({"flip_grain", "sell_wine", "sell_whiskey", "buy_district", "buy_plot"})


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise GameError(f"{text!r} is not a number.") from None


def _decline_use(rp: Replay) -> None:
    """Decline a function our engine has open when the record goes on without its ``USE``
    (kennerspiel lets a contracted building, or the neutral prior's, go unused)."""
    while rp.state["stack"] and rp.state["stack"][-1]["f"] in INNER and {"type": "skip"} in rp.legal():
        b = next((f.get("b") for f in reversed(rp.state["stack"]) if f["f"] == "use"), None)
        rp.apply({"type": "skip"})
        if b is not None:
            rp.declined.add(b)


def _skip_offers(rp: Replay, keep: str | None = None) -> None:
    """Decline an open prior-bonus offer (a record that goes on without ``WITH_PRIOR``)."""
    while rp.state["stack"] and rp.state["stack"][-1]["f"] == "prior" and keep != "prior":
        rp.apply({"type": "skip"})


def command(rp: Replay, words: list[str]) -> None:
    """Apply one record command (after CONFIG/START), then a purchase the record made while
    our engine had a decision open, as soon as our engine allows it.

    Raises:
        GameError: our engine refuses it (the message says why).
    """
    if rp.index in rp.early:
        return
    if words[0].upper() == "COMMIT":
        _flush(rp)
    _command(rp, words)
    if words[0].upper() == "COMMIT" and rp.deferred is not None:
        rp.deferred = None
        raise GameError("The landscape bought in that turn could not be placed before it ended.")
    _flush(rp)
    _unused_contract(rp)
    if rp.as_recorded and rp.closed == rp.committed:
        rp._k18_end()


def _used_later(rp: Replay, bid: str) -> bool:
    """Whether the record uses building ``bid`` before its turn ends (looking ahead; True when
    the moves ahead are not known)."""
    if rp.moves is None:
        return True
    for move in rp.moves[rp.index + 1:]:
        if move == "COMMIT":
            return False
        if move.split()[:2] == ["USE", bid]:
            return True
    return False


def _unused_contract(rp: Replay) -> None:
    """A work contract whose building the record never uses: kennerspiel resolves a function
    only on ``USE``, our engine resolves what needs no decision at once (the whole function,
    or its parts before the first decision, which is declined at the turn's end); then
    everyone's goods are put back to the contract's payment alone."""
    if rp.unused is None:
        return
    b, owner, expected, unit = rp.unused
    if any(f["f"] == "assign" and f.get("b") == b for f in rp.state["stack"]):
        return  # the owner's answer comes next
    rp.unused = None
    stack = rp.state["stack"]
    if any(f["f"] == "use" and f.get("b") == b for f in stack) and not (
            stack[-1]["f"] == "use" and stack[-1].get("b") == b):
        return  # a step of it is under way: declined at the turn's end, nothing gained
    round_goods = SHORT_ROUND_GOODS.get(rp.state["unit"], ()) if (
        rp.state["unit"] != unit and MODES[rp.state["mode"]].family == "short") else ()
    for p, goods in zip(rp.state["pl"], expected, strict=True):
        p["goods"] = dict(goods)
        for g, n in round_goods:  # the short game's round goods of a round the contract's turn began
            p["goods"][g] = p["goods"].get(g, 0) + n


def _flush(rp: Replay) -> None:
    """Make a deferred purchase when the buyer's window is open again with nothing pending."""
    if rp.deferred is None:
        return
    seat, tile, side, y = rp.deferred
    if (rp.as_recorded and rp.closed > rp.committed and rp.closed_seat == seat
            and _k13_late(rp, tile, side, y)):  # our engine closed the turn (our pile empty, K10)
        rp.deferred = None
        return
    if rp.state["stack"] or rp.state["win"] is None or rp.state["win"]["seat"] != seat:
        return
    rp.deferred = None
    _buy(rp, tile, side, y)


def _command(rp: Replay, words: list[str]) -> None:
    verb, args = words[0].upper(), words[1:]
    if rp.k9 == 2 and rp.state["unit"] > 2:
        raise GameError("K9: the record follows kennerspiel's loop past the repeated round 2; not reproduced.")
    if verb not in ("USE", "WITH_PRIOR", "WITH_LAYBROTHER", "CONVERT", "BUY_PLOT", "BUY_DISTRICT") and not (
            verb == "SETTLE" and rp.state["mode"] == "solo"):  # K20: the neutral prior's USE may follow
        rp.contracted = None
    if verb == "COMMIT":
        rp.prior_next = False
        rp.suspended = rp.bulwark = rp.neutral_phase_use = None
        rp.declined.clear()
        _commit(rp)
        return
    top = rp.state["stack"][-1] if rp.state["stack"] else None
    if top is not None and top["f"] == "prior" and verb == "USE" and args and args[0] == top["b"]:
        rp.apply({"type": "prior"})  # the new building used: the prior bonus offer taken
        _use(rp, args, offered=True)
        return
    if verb not in ("CONVERT", "BUY_DISTRICT", "BUY_PLOT"):  # free actions leave the offer open
        _skip_offers(rp, "prior" if verb == "WITH_PRIOR" else None)
    if verb in ("WITH_PRIOR", "WITH_LAYBROTHER"):
        top = rp.state["stack"][-1] if rp.state["stack"] else None
        if top is not None and top["f"] == "prior" and verb == "WITH_PRIOR":
            rp.apply({"type": "prior"})
        elif top is not None and top["f"] == "assign":
            rp.apply({"type": "assign", "c": "prior" if verb == "WITH_PRIOR" else "lay"})
        elif top is None and verb == "WITH_PRIOR":
            rp.prior_next = True
        return  # only one kind at home: our engine placed it already
    if verb == "CONVERT":
        goods, _ = _goods(args)
        seat = F.decider(rp.state)
        late = rp.closed > rp.committed and rp.closed_seat is not None and rp.closed_seat != seat
        for good, kind in (("grain", "flip_grain"), ("wine", "sell_wine"), ("whiskey", "sell_whiskey")):
            if goods[good] and late:
                _convert_late(rp, int(rp.closed_seat or 0), good, goods[good])
            elif goods[good]:
                try:
                    rp.apply({"type": kind, "n": goods[good]}, recoverable=True)
                except GameError:  # not in a window of ours (the solo neutral building phase)
                    if seat is None:
                        raise
                    _convert_late(rp, seat, good, goods[good])
        return
    if verb in ("BUY_DISTRICT", "BUY_PLOT"):
        tile, side, y = verb[4:].lower(), SIDES[args[1].upper()], _int(args[0])
        top = rp.state["stack"][-1] if rp.state["stack"] else None
        buyer = F.decider(rp.state)
        if (top is not None and top["f"] in ("prior", "build", "settle") and rp.state["win"] is not None
                and rp.state["win"]["main"] and rp.state["win"]["seat"] == buyer):
            _buy_before_offer(rp, tile, side, y)
            return
        if top is not None and top["f"] != "take" and buyer is not None:  # "take": the Bulwark's free tile
            rp.deferred = (buyer, tile, side, y)  # bought once our engine allows it
            return
        _buy(rp, tile, side, y)
        return
    if verb in ("FELL_TREES", "CUT_PEAT"):
        joker = len(args) > 2 and args[2] == "Jo"
        good = "wood" if verb == "FELL_TREES" else "peat"
        if good not in rp.state["wheel"] and "joker" in rp.state["wheel"]:
            joker = True  # kennerspiel takes the joker when the good's indicator is gone
        rp.apply({"type": verb.lower(), "x": _int(args[0]), "y": _int(args[1]), "joker": joker})
        return
    if verb == "SETTLE" and rp.as_recorded:
        _k20_suspend(rp)
    if verb in ("SETTLE", "BUILD", "FELL_TREES", "CUT_PEAT", "WORK_CONTRACT"):
        _decline_use(rp)
    top = rp.state["stack"][-1] if rp.state["stack"] else None
    if verb == "BUILD" and top is not None and top["f"] == "neutral":  # solo: the neutral building phase
        rp.apply({"type": "neutral", "b": args[0], "x": _int(args[1]), "y": _int(args[2])})
        return
    if verb == "WORK_CONTRACT" and top is not None and top["f"] == "nprior":  # solo: the neutral prior
        gift = len(args) > 1 and args[1] in ("Wn", "Wh")
        expected = [dict(p["goods"]) for p in rp.state["pl"]]
        expected[0][GIFT[rp.state["variant"]] if gift else "coin"] -= 1 if gift else R.contract_price(rp.state)
        unit = rp.state["unit"]
        nprior: Action = {"type": "neutral_prior", "b": args[0]}
        if gift:
            nprior["gift"] = True
        rp.apply(nprior)
        rp.contracted = rp.neutral_phase_use = args[0]  # its USE follows (nothing to do if our engine resolved it alone)
        if not _used_later(rp, args[0]):
            rp.unused = (args[0], rp.state["n"], expected, unit)
        return
    if top is not None and top["f"] == "nprior":
        rp.apply({"type": "skip"})
    _flush(rp)  # a purchase waiting for the decisions just declined
    if verb == "BUILD":
        b = args[0]
        if rp.as_recorded:
            _lenient_cost(rp, b)
        seat = F.decider(rp.state)
        if seat is not None and b in BUILDINGS and BUILDINGS[b].cost.get("coin", 0):
            _cover_coins(rp, seat, BUILDINGS[b].cost["coin"])
        rp.apply({"type": "build", "b": b, "x": _int(args[1]), "y": _int(args[2])})
        return
    if verb == "WORK_CONTRACT":
        owner, b = rp.owner_of(args[0])
        gift = len(args) > 1 and args[1] in ("Wn", "Wh")
        seat = F.decider(rp.state)
        if not gift and seat is not None:
            _cover_coins(rp, seat, R.contract_price(rp.state))
        if seat is not None:
            _presell(rp, seat, args[0], 0 if gift else R.contract_price(rp.state))
        expected = [dict(p["goods"]) for p in rp.state["pl"]]
        if seat is not None and gift:
            expected[seat][GIFT[rp.state["variant"]]] -= 1
        elif seat is not None:
            price = R.contract_price(rp.state)
            expected[seat]["coin"] -= price
            if owner != rp.state["n"]:
                expected[owner]["coin"] += price
        unit = rp.state["unit"]
        contract: Action = {"type": "contract", "owner": owner, "b": b}
        if gift:
            contract["gift"] = True
        rp.apply(contract)
        rp.contracted = b
        if not _used_later(rp, args[0]):
            rp.unused = (b, owner, expected, unit)
        top = rp.state["stack"][-1] if rp.state["stack"] else None
        if top is not None and top["f"] == "assign" and len(args) > 2 and args[2] == "WITH_PRIOR":
            rp.apply({"type": "assign", "c": "prior"})
        elif top is not None and top["f"] == "assign" and owner == rp.state["n"]:
            rp.apply({"type": "assign", "c": "lay"})
        return
    if verb == "SETTLE":
        s = args[0]
        if len(s) != 3 or s[0] != "S":
            raise GameError(f"No settlement {s!r}.")
        rp.apply({"type": "settle", "s": f"S0{s[2]}", "x": _int(args[1]), "y": _int(args[2])})
        seat = F.decider(rp.state)
        _resolve(rp, Words(_goods(args[3:])[0], Counter(), False, []))
        if rp.as_recorded and F.decider(rp.state) != seat:
            rp.settled, rp.settled_at = seat, len(rp.actions)
        return
    if verb == "USE":
        try:
            _use(rp, args)
        finally:
            rp.contracted = None
        return
    raise GameError(f"Unknown command {verb}.")


def _buy_before_offer(rp: Replay, tile: str, side: str, y: int) -> None:
    """A landscape bought while the prior's offer on the building just built, or a function's
    building or settling step, is open (the rulebook allows a purchase before or after the
    main action, "在你主要的动作之前或之後"; our engine asks about the step first): the
    open steps are set aside for the purchase and open again after it, so the building or
    settlement can go onto the new landscape."""
    stack = rp.state["stack"]
    rp.state["stack"] = []
    present(rp.state["win"], "a purchase in a window")["main"] = False  # the window stays open for the offer
    rp.offer_aside = True
    try:
        _buy(rp, tile, side, y)
    finally:
        rp.offer_aside = False
        present(rp.state["win"], "a purchase in a window")["main"] = True
        rp.state["stack"] = stack


def _buy(rp: Replay, tile: str, side: str, y: int) -> None:
    """A ``BUY_DISTRICT``/``BUY_PLOT``: the Bulwark's free landscape when its offer is open
    (kennerspiel records it as a purchase; ours takes the top tile, §2.6 I37), else a
    purchase. As recorded (K10) the free tile leaves kennerspiel's price pile where it was:
    a later purchase of that kind costs the price before it, so the buyer is credited the
    difference before our engine charges its own price."""
    top = rp.state["stack"][-1] if rp.state["stack"] else None
    if top is not None and top["f"] == "take" and tile in top["left"]:
        try:
            rp.apply({"type": f"take_{tile}", "side": side, "y": y}, recoverable=True)
        except GameError:
            if not (rp.as_recorded and _k14_take(rp, top, tile, side, y)):
                raise
        if rp.as_recorded:
            rp.free_tiles[tile] += 1
        if rp.bulwark is not None:
            rp.bulwark[1].discard(tile)
        return
    if rp.as_recorded and rp.bulwark is not None and tile in rp.bulwark[1] and _k10_take(rp, tile, side, y):
        return
    seat = F.decider(rp.state)
    if rp.as_recorded and seat is None or (rp.as_recorded and (_k12(rp, tile, side, y) or _k13_late(rp, tile, side, y))):
        return
    credit = 0
    if rp.as_recorded and rp.free_tiles[tile] and seat is not None:
        mode = MODES[rp.state["mode"]]
        taken = R.tiles_taken(rp.state["pl"])[0 if tile == "district" else 1]
        ours = R.next_price(mode, tile, taken)
        theirs = _kennerspiel_price(rp, tile)
        if ours is not None and theirs is not None and ours > theirs:
            credit = ours - theirs
            rp.state["pl"][seat]["goods"]["coin"] += credit
            rp.notes.append(f"K10: {tile} for {theirs} coins, not {ours} (the Bulwark's free {tile} "
                            "did not advance the price pile)")
    if seat is not None:
        mode = MODES[rp.state["mode"]]
        taken = R.tiles_taken(rp.state["pl"])[0 if tile == "district" else 1]
        price = R.next_price(mode, tile, taken)
        if price is None and rp.as_recorded:  # K10: kennerspiel's pile still has a price, ours none
            price = _kennerspiel_price(rp, tile)  # (sold directly: our engine, with nothing to buy,
            _cover_coins(rp, seat, price or 0, late=True)  # would close the window)
        _cover_coins(rp, seat, price or 0)
    again = seat is not None and seat in rp.bought_turn and rp.bought_unit.get(seat) == rp.state["unit"]
    try:
        rp.apply({"type": f"buy_{tile}", "side": side, "y": y}, recoverable=True)
    except GameError:
        if credit and seat is not None:  # _k14 charges kennerspiel's price itself
            rp.state["pl"][seat]["goods"]["coin"] -= credit
            rp.notes.pop()
        if rp.as_recorded and seat is not None and _k14(rp, seat, tile, side, y):
            return
        raise
    if seat is not None:
        rp.bought_turn[seat] = rp.closed
        rp.bought_unit[seat] = rp.state["unit"]
        if again:
            rp.notes.append(f"K13: a second landscape bought in {'turn' if rp.state['mode'] == '2p' else 'round'} "
                            f"{rp.state['unit']}")


def _convert_late(rp: Replay, seat: int, good: str, n: int) -> None:
    """A conversion the record makes after our engine closed the seat's turn (after its
    settlement, say): the rulebook allows grain to straw and selling wine or whiskey at any time
    ("在游戏中的任何时候你都可以翻转谷物货物板块成为稻草", "你可以随时换钱"), our engine only
    in the seat's own window, so the importer converts for it.

    Raises:
        GameError: the seat does not hold the goods.
    """
    goods = rp.state["pl"][seat]["goods"]
    if goods.get(good, 0) < n:
        raise GameError(f"You do not have {n} {good}.")
    goods[good] -= n
    if good == "grain":
        goods["straw"] += n
    else:
        goods["coin"] += n * (1 if good == "wine" else 2)


def _cover_coins(rp: Replay, seat: int, amount: int, *, late: bool = False) -> None:
    """Sell wine or whiskey (free conversions, §5.3) for a coin payment the seat's coins do not
    cover, the way kennerspiel pays coins: wine when it covers the whole shortfall, else
    whiskey, one at a time; ``late``: after our engine closed the seat's turn (``_convert_late``)."""
    goods = rp.state["pl"][seat]["goods"]
    short = amount - goods.get("coin", 0)
    if short <= 0:
        return
    if goods.get("wine", 0) >= short:
        good, n = "wine", short
    elif goods.get("whiskey", 0) * 2 >= short:
        good, n = "whiskey", (short + 1) // 2
    else:
        return
    if late:
        _convert_late(rp, seat, good, n)
    else:
        rp.apply({"type": f"sell_{good}", "n": n})


def _kennerspiel_price(rp: Replay, tile: str) -> int | None:
    """kennerspiel's price of the next ``tile`` (``district`` or ``plot``), None when its pile is
    empty: the Bulwark's free landscapes do not advance its price pile (K10)."""
    taken = R.tiles_taken(rp.state["pl"])[0 if tile == "district" else 1] - rp.free_tiles[tile]
    return R.next_price(MODES[rp.state["mode"]], tile, taken)


def _placed(land: Land, tile: str, side: str, y: int) -> str | None:
    """Where a bought ``tile`` (``side``) may go at row ``y`` of ``land``: ``spec`` where our spec
    (§2.4) places it, ``k14`` only where kennerspiel's grid does (its spaces free), else None."""
    rows = R.district_rows(land) if tile == "district" else R.plot_rows(land, side)
    if y in rows:
        return "spec"
    return "k14" if _spaces_free(land, tile, side, y) else None


def _k12(rp: Replay, tile: str, side: str, y: int) -> bool:
    """K12: kennerspiel lets a player buy a landscape after placing his settlement in a
    settlement turn (the rulebook: only before it). When the record buys right after a
    ``SETTLE`` that closed the turn, the purchase is made for that seat at our price."""
    last = rp.settled
    if last is None or rp.settled_at != len(rp.actions) or rp.closed <= rp.committed:
        return False
    seat = last
    st = rp.state
    price = _kennerspiel_price(rp, tile)
    land = st["pl"][seat]["land"]
    placed = _placed(land, tile, side, y)  # (K14: also where kennerspiel's grid allows it)
    if price is None or st["pl"][seat]["goods"]["coin"] < price or placed is None:
        raise GameError("That landscape cannot be bought now.")
    st["pl"][seat]["goods"]["coin"] -= price
    R.place_tile(land, tile, side, y)
    rp.settled = None
    rp.notes.append(f"K12: {tile} bought after the settlement in a settlement turn")
    if placed == "k14":
        rp.notes.append(f"K14: {tile} ({side}) placed at row {y}, where our spec does not place it")
    return True


def _k13_late(rp: Replay, tile: str, side: str, y: int) -> bool:
    """K13 after our engine closed the turn by itself (its main action taken and, our allowance
    spent in an earlier window, nothing left to buy): the record's purchase before its
    ``COMMIT`` is made for that seat at kennerspiel's price (K10), placed as our spec or K14
    allows, wine or whiskey sold for coins the seat lacks."""
    seat = rp.closed_seat
    if seat is None or rp.closed != rp.committed + 1:
        return False
    p = rp.state["pl"][seat]
    price = _kennerspiel_price(rp, tile)
    land = p["land"]
    placed = _placed(land, tile, side, y)
    if price is None or placed is None:
        return False
    goods = p["goods"]
    _cover_coins(rp, seat, price, late=True)
    if goods.get("coin", 0) < price:
        return False
    goods["coin"] -= price
    R.place_tile(land, tile, side, y)
    rp.notes.append(f"K13: {tile} bought after our engine closed the turn (its allowance spent earlier)")
    if placed == "k14":
        rp.notes.append(f"K14: {tile} ({side}) placed at row {y}, where our spec does not place it")
    return True


def _k14(rp: Replay, seat: int, tile: str, side: str, y: int) -> bool:
    """K14: kennerspiel places a bought landscape wherever it touches the landscape in its own
    grid (a district beside a plot's row, a plot beside a district), where our spec (§2.4)
    wants districts above or below the central strip and plots beside the coast or mountain
    column. As recorded, a purchase our spec does not allow there is placed where the record
    says, if its spaces are free and the seat can pay and may still buy in this window."""
    st = rp.state
    p = st["pl"][seat]
    if not F.can_buy_now(st, seat):
        return False
    price = _kennerspiel_price(rp, tile)
    if price is None or p["goods"]["coin"] < price or not _spaces_free(p["land"], tile, side, y):
        return False
    p["goods"]["coin"] -= price
    R.place_tile(p["land"], tile, side, y)
    win = present(st["win"], "landscapes are bought in a window")
    if win["kind"] == "settle":
        win["bought"] = True
    else:
        p["bought"] = st["unit"]
    rp.bought_turn[seat] = rp.closed
    rp.bought_unit[seat] = st["unit"]
    rp.notes.append(f"K14: {tile} ({side}) placed at row {y}, where our spec does not place it")
    return True


def _spaces_free(land: Land, tile: str, side: str, y: int) -> bool:
    """Whether the spaces landscape card ``tile`` (``side``, row ``y``) covers are free on ``land``."""
    covered: Land = {}
    R.place_tile(covered, tile, side, y)
    return not any(k in land for k in covered)


def _k14_take(rp: Replay, top: Frame, tile: str, side: str, y: int) -> bool:
    """K14 for the Bulwark's free landscape: placed where the record says, where our spec
    (§2.4) does not place it, if its spaces are free and the pile still has one."""
    st = rp.state
    land = st["pl"][top["u"]]["land"]
    if not _spaces_free(land, tile, side, y):
        return False
    st["stack"][-1]["left"].remove(tile)
    R.place_tile(land, tile, side, y)
    rp.notes.append(f"K14: {tile} ({side}) placed at row {y}, where our spec does not place it")
    _advance(rp, top["u"])
    return True


def _k10_take(rp: Replay, tile: str, side: str, y: int) -> bool:
    """K10: kennerspiel's Bulwark gives its free landscape without its price pile, so also
    after our engine, its pile empty, went past the Bulwark's offer: the landscape is placed
    where the record says (if its spaces are free) for the Bulwark's user."""
    assert rp.bulwark is not None
    seat = rp.bulwark[0]
    land = rp.state["pl"][seat]["land"]
    if not _spaces_free(land, tile, side, y):
        return False
    R.place_tile(land, tile, side, y)
    rp.bulwark[1].discard(tile)
    rp.free_tiles[tile] += 1
    rp.notes.append(f"K10: the Bulwark's free {tile} taken with our pile empty (kennerspiel's has no limit)")
    return True


def _advance(rp: Replay, seat: int) -> None:
    """Run our engine's flow after the importer changed the state itself (``flow.advance``),
    counting the turns it closes as ``Replay.apply`` does."""
    st = rp.state
    before = _turns(st)
    events: list[Event] = []
    F.advance(st, events)
    closed = before + _turns_added(st, events) - _turns(st)
    if closed:
        rp.closed += closed
        rp.closed_seat = seat


def _k15(rp: Replay, before: Sequence[Mapping[str, int]]) -> None:
    """K15: kennerspiel's Cooperage reads its product from a second word, but its own
    completion writes the product into the first (``USE I33 WhWoWoWo``): the wood is paid and
    the joker reset, and nobody receives beer or whiskey (nor the short game's bonus unit)."""
    for p, old in zip(rp.state["pl"], before, strict=True):
        for good in ("beer", "whiskey"):
            if good in p["goods"]:
                p["goods"][good] = old.get(good, 0)
    rp.notes.append("K15: the Cooperage written as one word gives no beer or whiskey")


def _lenient_cost(rp: Replay, b: str) -> None:
    """K3 (Whiskey Distillery free) and K11 (Forger's Workshop without straw): give the
    builder what kennerspiel did not ask for, so our cost is paid with it."""
    seat = F.decider(rp.state)
    if seat is None:
        return
    goods = rp.state["pl"][seat]["goods"]
    extra: dict[str, int] = {}
    if b == "I21":
        extra = dict(BUILDINGS[b].cost)
    elif b == "F35" and goods.get("straw", 0) + goods.get("grain", 0) < 1:
        extra = {"straw": 1}
    for g, n in extra.items():
        goods[g] = goods.get(g, 0) + n
    if extra:
        rp.notes.append(f"{'K3' if b == 'I21' else 'K11'}: {b} built without {F.goods_text(extra)}")


def _use(rp: Replay, args: list[str], *, offered: bool = False) -> None:
    """A ``USE``; ``offered``: the prior was just placed on the building built (its function
    started, or resolved already when it needed no decision)."""
    owner, b = rp.owner_of(args[0])
    params = args[1:]
    words = read_words(b, params)  # an unreadable word is refused before anything is applied
    if b == "I31" and params:
        words = _k4(rp, words, params)
    if b == "I36" and params:
        words = _k21(rp, words, params)
    drinks = {g: words.pay[g] for g in ("wine", "whiskey") if words.pay.get(g)} if _pays_coins(b) else {}
    if drinks:  # kennerspiel pays coins with wine (1) and whiskey (2): sold first (§5.3)
        pay = Counter({g: n for g, n in words.pay.items() if g not in drinks})
        pay["coin"] += drinks.get("wine", 0) + 2 * drinks.get("whiskey", 0)
        words = Words(pay, words.choose, words.joker, words.coords)
    kept = KEEPS_ALL.get(b)
    over = words.pay[kept] - 1 if kept is not None and set(words.pay) == {kept} else 0
    if over > 0 and not rp.as_recorded:
        raise GameError(f"K19: kennerspiel's {BUILDINGS[b].name} keeps all the {kept}s paid for it, "
                        f"{over + 1} for a cost of 1.")
    st = rp.state
    top = st["stack"][-1] if st["stack"] else None
    if (top is not None and top["f"] != "use" and not params
            and any(f["f"] == "use" and f["b"] == b and f["o"] == owner for f in st["stack"])):
        return  # the function is under way already (a contracted Priory waiting for its target)
    payer = rp.closed_seat if rp.closed > rp.committed else F.decider(st)
    if rp.presold != rp.index and payer is not None:
        _pay_ahead(rp, payer, words, drinks)
    if offered:
        pass
    elif rp.suspended is not None and rp.suspended[0]["b"] == b and owner == st["n"]:
        st["stack"] += rp.suspended  # K20: the neutral prior's function after the settlement
        rp.suspended = None
        rp.notes.append(f"K20: the neutral prior's {b} used after the settlement")
    elif top is not None and top["f"] == "borrow":
        rp.apply({"type": "borrow", "owner": owner, "b": b})
    elif top is not None and top["f"] == "use" and top["b"] == b:
        pass
    elif rp.contracted == b:  # the contracted function needed no decision: our engine resolved it
        rp.contracted = None
        if not params:
            return
    elif b in rp.declined and not params:
        rp.declined.discard(b)  # its function declined when the record went past it: no words, nothing
        return
    elif st["win"] is not None and not st["win"]["main"] and not st["stack"]:
        actor = st["win"]["seat"]
        if st["win"]["kind"] == "bonus":
            rp.apply({"type": "bonus", "owner": owner, "b": b})
        else:
            kind = "lay" if R.home(st["pl"][actor], "lay") is not None and not rp.prior_next else "prior"
            rp.prior_next = False
            rp.apply({"type": "place", "b": b, "c": kind})
    elif top is not None and top["f"] == "nprior":
        rp.apply({"type": "neutral_prior", "b": b})
    else:
        raise GameError(f"{b} cannot be used now.")
    if b == "I31" and words.pay.get("peat_coal"):  # K4 as recorded: the peat paid, as coal
        seat = F.decider(rp.state)
        if seat is not None:
            goods = rp.state["pl"][seat]["goods"]
            n = min(goods.get("peat", 0), words.pay["peat_coal"])
            goods["peat"] -= n
            goods["peat_coal"] += n
    k16 = b == "I33" and len(params) == 1
    if k16 and not rp.as_recorded:
        raise GameError("K15: kennerspiel's Cooperage written as one word pays the wood and gives nothing.")
    seat = F.decider(rp.state)
    if over > 0 and kept is not None:  # K19: 1 paid as our rules say, the rest kept by the bank
        words = Words(Counter({kept: 1}), words.choose, words.joker, words.coords)
    before = [dict(p["goods"]) for p in rp.state["pl"]] if k16 else []
    if b == "I37" and words.pay.get("book") and seat is not None:
        rp.bulwark = (seat, {"district", "plot"})
    user = rp.closed_seat if rp.closed > rp.committed else seat  # our engine closed the turn already
    if words.pay and user is not None and _paid_for_nothing(rp, user, b, words):
        return
    top = rp.state["stack"][-1] if rp.state["stack"] else None
    if k16 and user is not None and (top is None or top["f"] not in INNER):
        goods = rp.state["pl"][user]["goods"]  # our engine had nothing to give (the joker gone): K15 pays the wood
        if all(goods.get(g, 0) >= n for g, n in words.pay.items()):
            for g, n in words.pay.items():
                goods[g] -= n
            rp.state["wheel"]["joker"] = 0  # kennerspiel resets the joker, back on the wheel
            rp.notes.append("K15: the Cooperage written as one word gives nothing and puts the joker back at 0")
            return
    k22 = b == rp.neutral_phase_use and owner == rp.state["n"]
    if k22 and not rp.as_recorded and any(t.kind == "wheel" for part in EFFECTS[b].parts for t in part.picks):
        raise GameError(f"K22: kennerspiel's solo settlement phase comes before the round's rotation: "
                        f"the neutral prior's {BUILDINGS[b].name} takes one step less from the wheel.")
    k22 = k22 and rp.as_recorded
    if k22:  # K22: kennerspiel's solo settlement phase comes before the round's rotation
        wheel = rp.state["wheel"]
        for ind in wheel:
            wheel[ind] = max(0, wheel[ind] - 1)
    _resolve(rp, words)
    if k22:
        wheel = rp.state["wheel"]
        for ind in wheel:
            wheel[ind] = min(12, wheel[ind] + 1)
        rp.notes.append(f"K22: the neutral prior's {b} used before the round's rotation")
    if k16:
        _k15(rp, before)
    if over > 0 and seat is not None and kept is not None:
        rp.state["pl"][seat]["goods"][kept] -= over
        rp.notes.append(f"K19: {over + 1} {kept}s paid for the {BUILDINGS[b].name}, no change given"
                        if kept == "coin" else f"K19: {over + 1} {kept}s paid for the {BUILDINGS[b].name}, all kept")


def _paid_for_nothing(rp: Replay, seat: int, b: str, words: Words) -> bool:
    """A function of point goods whose entitlement buys no point good (the Festival Ground
    without forests or moors, the House of the Brotherhood below 2 points) that the record
    pays for, choosing nothing: D40 accepts point goods of at most the entitlement, so the
    payment buys an empty set; our engine, with nothing to offer, resolved the function alone
    without it. The payment is made; True when it was."""
    st = rp.state
    if words.choose or (st["stack"] and st["stack"][-1]["f"] in INNER):
        return False
    effect = EFFECTS.get(b)
    if effect is None or len(effect.parts) != 1 or len(effect.parts[0].alts) != 1:
        return False
    alt = effect.parts[0].alts[0]
    goods = st["pl"][seat]["goods"]
    if (len(alt.get) != 1 or alt.get[0].kind != "points" or R.point_sets(F.entitlement(st, seat, alt.get[0].arg))
            or dict(alt.pay.named) != dict(words.pay) or any(goods.get(g, 0) < n for g, n in words.pay.items())):
        return False
    for g, n in words.pay.items():
        goods[g] -= n
    return True


def _pay_ahead(rp: Replay, seat: int, words: Words, drinks: Mapping[str, int], extra: int = 0, *,
               straw: bool = True) -> None:
    """Free conversions (§5.3) before a ``USE`` whose words pay more coins or straw than the
    seat holds, as kennerspiel's payment makes them itself: the wine and whiskey its words pay
    as money are sold, a coin shortfall (``extra`` coins paid before it) is covered by selling
    whiskey, then wine, and a straw shortfall by turning grain into straw."""
    goods = rp.state["pl"][seat]["goods"]
    for good, n in drinks.items():
        if goods.get(good, 0) >= n:
            _convert_late(rp, seat, good, n)
    short = words.pay.get("coin", 0) + extra - goods.get("coin", 0)
    while short > 0 and goods.get("whiskey", 0) > 0:
        _convert_late(rp, seat, "whiskey", 1)
        short -= 2
    while short > 0 and goods.get("wine", 0) > 0:
        _convert_late(rp, seat, "wine", 1)
        short -= 1
    short = words.pay.get("straw", 0) - goods.get("straw", 0)
    if straw and short > 0 and goods.get("grain", 0) >= short:
        _convert_late(rp, seat, "grain", short)


def _presell(rp: Replay, seat: int, bid: str, price: int) -> None:
    """Before a work contract on ``bid`` (``price`` coins) whose ``USE`` the record writes with
    words in this turn: the record's conversions before that ``USE`` are made first, and
    ``_pay_ahead`` for its coins when the seat's do not cover them, since our engine resolves
    what the contract allows at once (a function it cannot pay, nothing). Conversions change
    no price: made before the contract, they leave it paid as kennerspiel pays it."""
    converts = []
    for j in range(rp.index + 1, len(rp.moves or ())):
        words = (rp.moves or [])[j].split()
        if words[0] == "COMMIT":
            return
        if words[0] == "CONVERT":
            converts.append(j)
        if words[:2] == ["USE", bid] and len(words) > 2:
            for k in converts:  # the record's conversions before the USE, made before the contract
                _command(rp, (rp.moves or [])[k].split())
                rp.early.add(k)
            b = rp.owner_of(bid)[1]
            read = read_words(b, words[2:])
            drinks = {g: read.pay[g] for g in ("wine", "whiskey") if read.pay.get(g)} if _pays_coins(b) else {}
            if drinks:
                pay = Counter({g: n for g, n in read.pay.items() if g not in drinks})
                pay["coin"] += drinks.get("wine", 0) + 2 * drinks.get("whiskey", 0)
                read = Words(pay, read.choose, read.joker, read.coords)
            goods = rp.state["pl"][seat]["goods"]
            if read.pay.get("coin", 0) + price > goods.get("coin", 0):  # else the record's own conversions
                _pay_ahead(rp, seat, read, drinks, price, straw=False)
                rp.presold = j
            return


KEEPS_ALL = {"I17": "coin", "I15": "book"}
"""K19: buildings whose one good paid once kennerspiel keeps whole, however many the words
pay (the Scriptorium's coins, the Druid's House's books)."""

_COIN_PAYERS: dict[str, bool] = {}


def _pays_coins(b: str) -> bool:
    """Whether building ``b``'s function pays named coins and never wine or whiskey (kennerspiel
    writes such a payment with wine and whiskey as money, ``PnPnPnPnWn``)."""
    if b not in _COIN_PAYERS:
        effect = EFFECTS.get(b)
        named = {g for part in (effect.parts if effect else ()) for alt in part.alts for g, _ in alt.pay.named}
        other = any(alt.pay.value or alt.pay.different for part in (effect.parts if effect else ()) for alt in part.alts)
        _COIN_PAYERS[b] = "coin" in named and not ({"wine", "whiskey"} & named) and not other
    return _COIN_PAYERS[b]


def _k21(rp: Replay, words: Words, params: list[str]) -> Words:
    """K21: kennerspiel's Camera reads up to 2 books and as many ceramics from its first word,
    but its own completion writes straw and wood there (``USE I36 SwWo``), which pay and give
    nothing. Under our rules the record stops there.

    Raises:
        GameError: not as recorded, words kennerspiel reads otherwise than ours.
    """
    n = min(2, words.pay.get("book", 0), words.pay.get("ceramic", 0))
    pay = Counter({"book": n, "ceramic": n}) if n else Counter()
    if pay == words.pay:
        return words
    if not rp.as_recorded:
        raise GameError(f"K21: kennerspiel's Camera reads books and ceramics only: {params[0]!r} "
                        f"{'pays and gives nothing' if not n else f'pays {n} of each'}.")
    rp.notes.append(f"K21: the Camera's {params[0]!r} pays {n} book and ceramic" if n else
                    f"K21: the Camera's {params[0]!r} pays and gives nothing")
    return Words(pay, Counter(), words.joker, words.coords)


def _k20_suspend(rp: Replay) -> None:
    """K20 (solo): kennerspiel resolves the neutral prior's function on its ``USE``, which the
    record may write after the settlement (ora.md §4.7: step 2, before the settlement turn of
    step 4). When the record uses that building later in the turn, its frames are taken off
    the stack for the settlement and put back at its ``USE``."""
    st = rp.state
    n = st["n"]
    at = next((i for i, f in enumerate(st["stack"]) if f["f"] == "use" and f["o"] == n), None)
    if st["mode"] != "solo" or at is None or not all(f["f"] in INNER for f in st["stack"][at:]):
        return
    if not _used_later(rp, st["stack"][at]["b"]):
        return
    rp.suspended = st["stack"][at:]
    del st["stack"][at:]
    _advance(rp, 0)


def _k4(rp: Replay, words: Words, params: list[str]) -> Words:
    """K4: kennerspiel's Coal Harbor pays peat, up to 3, counted in its first word: ``Pt`` words
    are read as peat coal paid (``_use`` turns that much peat into coal first), and its own
    completion's ``Co`` words pay and give nothing. Under our rules the record stops there.

    Raises:
        GameError: not as recorded (our Coal Harbor pays peat coal).
    """
    peat = min(3, sum(1 for i in range(0, len(params[0]) - 1, 2) if params[0][i:i + 2] == "Pt"))
    if not rp.as_recorded:
        what = f"pays {peat} peat" if peat else f"reads no peat in {params[0]!r}: it pays and gives nothing"
        raise GameError(f"K4: kennerspiel's Coal Harbor pays peat, not peat coal, and {what}.")
    rp.notes.append(f"K4: the Coal Harbor paid with {peat} peat" if peat else
                    f"K4: the Coal Harbor's {params[0]!r} pays and gives nothing (kennerspiel reads peat)")
    pay = Counter({"peat_coal": peat}) if peat else Counter()
    return Words(pay, Counter(), words.joker, words.coords)


def _commit(rp: Replay) -> None:
    """End the record's current turn. When our engine already closed it (nothing was left to
    do in it), there is nothing to apply; otherwise decline what is pending, pass if no main
    action was taken, and close the window."""
    turn = rp.committed
    rp.committed += 1
    if rp.closed > turn:
        return
    win = rp.state["win"]
    if win is None:
        raise GameError("No turn is open.")
    seat = win["seat"]
    while rp.state["stack"] and F.decider(rp.state) == seat and rp.closed == turn:
        try:
            rp.apply({"type": "skip"})
        except GameError:
            raise GameError("A decision is still open.") from None
    _flush(rp)  # a purchase that waited for the declined decision
    win = rp.state["win"]
    if rp.closed == turn and win is not None:
        if win["kind"] in ("action", "bonus") and not win["main"]:
            rp.apply({"type": "pass"})
        if rp.closed == turn and rp.state["win"] is not None:
            rp.apply({"type": "done"})


def mode_options(players: int, length: str) -> dict[str, str]:
    """Our ``mode`` option for a kennerspiel CONFIG (see the module docstring)."""
    if players == 2:
        return {"mode": "long" if length == "long" else "standard"}
    return {"mode": "short" if length == "short" and players > 2 else "standard"}


def start(game: Record, *, as_recorded: bool = False, in_place: bool = False) -> Replay:
    """A replay at the start of a kennerspiel record (one line of a ``.jsonl`` file): seats in
    the record's seat order (``seatColors``); ``in_place`` as ``Replay.in_place``."""
    c = game["config"]
    players, country, length = int(c["players"]), str(c["country"]).lower(), str(c["length"]).lower()
    colours = "".join(game.get("seatColors") or c["colors"])
    options: dict[str, object] = {**mode_options(players, length), "variant": country, "start_player": "host"}
    if players == 2:
        options["two_player_turn_cap"] = 100  # the most our options allow (D38)
    rp = Replay(ENGINE.new_game(players, int(c["seed"]), options), colours, as_recorded, in_place=in_place)
    if as_recorded:
        rp.state["opts"]["two_player_turn_cap"] = NO_CAP  # K17: kennerspiel has no safety cap
        if rp.state["mode"] == "2pl":
            rp.state["opts"]["display_end_checked_by_host"] = True  # K18 (Replay._k18_end)
        rp._patch(-1)
    return rp


K2_MODES = frozenset({"std3", "std4"})
"""K2: the tables that bring an indicator in before the wheel turns (kennerspiel's 3- and
4-player tables; its 2-player tables bring it in after, as ours)."""

NO_CAP = 10**6
"""K17: the two-player safety cap (D38) lifted for an as-recorded replay."""


def replay(text: str, *, as_recorded: bool = False) -> Replay:
    """Replay a record (the file's text).

    Raises:
        RecordError: the first command that cannot be followed (line, command, reason).
    """
    rp: Replay | None = None
    players, country, length = 0, "france", "long"
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        words = line.split()
        verb = words[0].upper()
        try:
            if verb == "CONFIG":
                players, country, length = _int(words[1]), words[2].lower(), words[3].lower()
                continue
            if verb == "START":
                colours = "".join(w.upper() for w in words[2:])
                if not players or len(colours) != players or any(c not in COLOURS for c in colours):
                    raise GameError("START needs one colour (R, G, B, W) per configured player.")
                options = {**mode_options(players, length), "variant": country, "start_player": "host"}
                rp = Replay(ENGINE.new_game(players, _int(words[1]), options), colours, as_recorded, in_place=True)
                if as_recorded:
                    rp._patch(-1)
                continue
            if rp is None:
                raise GameError("The record needs CONFIG and START first.")
            if rp.state["over"]:
                raise GameError("The game is already over under our rules.")
            command(rp, words)
        except GameError as exc:
            raise RecordError(number, line, str(exc)) from None
        except (IndexError, KeyError, ValueError) as exc:
            raise RecordError(number, line, f"malformed command ({exc})") from None
    if rp is None:
        raise RecordError(0, "", "no START in the record")
    if as_recorded:
        _k7(rp)
    return rp


class RecordConfig(TypedDict):
    """A kennerspiel record's ``config``."""

    players: int
    country: str  # "france" | "ireland"
    length: str  # "long" | "short"
    seed: int
    colors: list[str]  # the seats' colours (R, G, B, W)


class Record(TypedDict):
    """A kennerspiel record (one line of a ``.jsonl`` file): its ``config``, its ``moves`` (the
    commands) and, in recorded games, ``seatColors`` (the seat order) and its own results."""

    config: RecordConfig
    moves: list[str]
    seatColors: NotRequired[list[str]]


class Refusal(TypedDict):
    """The first command of a record not followed: its ``index``, the ``command``, why."""

    index: int
    command: str
    reason: str


class Breakdown(TypedDict):
    """A seat's score as kennerspiel's ``scores`` gives it (``breakdown``)."""

    goods: int
    economic: int
    settlements: list[int]  # each settlement's dwelling value, row by row
    dwelling: int
    total: int


@dataclass
class Result:
    """The outcome of replaying one record: ``followed`` (to the game's end), ``refused``
    (``{"index", "command", "reason"}`` of the first command not followed, or None), the seats'
    colours and score breakdowns (kennerspiel's ``scores`` fields), the commands applied."""

    followed: bool
    refused: Refusal | None
    seat_colors: list[str]
    scores: list[Breakdown]
    commands: int
    notes: list[str]

    def to_json(self) -> dict[str, object]:
        return {"followed": self.followed, "refused": self.refused, "seatColors": self.seat_colors,
                "scores": self.scores}


def breakdown(st: State, seat: int) -> Breakdown:
    """``seat``'s score as kennerspiel's ``scores`` gives it: ``goods``, ``economic``,
    ``settlements`` (each settlement's dwelling value, row by row), ``dwelling``, ``total``."""
    sc = R.score(st, seat)
    land = st["pl"][seat]["land"]
    keys = sorted((k for k, piece in R.pieces(land) if piece in SETTLEMENTS),
                  key=lambda k: (R.xy(k)[1], R.xy(k)[0]))
    values = [R.settlement_value(st, land, k) for k in keys]
    return {"goods": sc["goods"], "economic": sc["economic"], "settlements": values,
            "dwelling": sum(values), "total": sc["total"]}


def replay_game(game: Record, *, as_recorded: bool = False, in_place: bool = True) -> Result:
    """Replay one kennerspiel record (a line of a ``.jsonl`` file, see
    ``tests/engines/records/kennerspiel/README.md``) up to its end or its first command not
    followed. ``in_place`` (``Replay.in_place``): a record with a command not followed is
    replayed again without it, for the state just before that command."""
    rp = start(game, as_recorded=as_recorded, in_place=in_place)
    moves = list(game["moves"])
    rp.moves = moves
    refused: Refusal | None = None
    done = 0
    for index, move in enumerate(moves):
        rp.index = index
        try:
            if index in rp.early:  # made already (``_presell``)
                done += 1
                continue
            if rp.state["over"]:
                if move == "COMMIT" and rp.closed > rp.committed:  # the last turn, closed by our engine
                    rp.committed += 1
                    done += 1
                    continue
                if _no_op_after_end(rp, move.split()):
                    done += 1
                    continue
                raise GameError("The game is already over under our rules.")
            command(rp, move.split())
        except GameError as exc:
            refused = {"index": index, "command": move, "reason": str(exc)}
            break
        except (IndexError, KeyError, ValueError) as exc:
            refused = {"index": index, "command": move, "reason": f"malformed command ({exc})"}
            break
        done += 1
    if refused is not None and in_place:
        return replay_game(game, as_recorded=as_recorded, in_place=False)
    if (refused is not None and not as_recorded and rp.state["over"] and rp.state["mode"] in ("2p", "2pl")
            and rp.state["unit"] >= (turn_cap(rp.state["mode"], 100) or 0)):
        refused["reason"] = ("K17: our safety cap (D38) ended the game; kennerspiel has none "
                             "(a documented difference, docs/rules/ora-kennerspiel.md; --as-recorded follows it)")
    roster = {"2pl": ("K5", "2p"), "sh3": ("K6", "std3")}.get(rp.state["mode"])
    if (refused is not None and not as_recorded and roster is not None and refused["command"].startswith("BUILD ")
            and refused["command"].split()[1] in R.game_set(roster[1], rp.state["variant"], False)
            and refused["command"].split()[1] not in R.in_game(rp.state)):
        refused["reason"] = (f"{roster[0]}: kennerspiel's building roster for this game has "
                             f"{refused['command'].split()[1]} (a documented difference, "
                             "docs/rules/ora-kennerspiel.md; --as-recorded follows it)")
    if refused is not None and not as_recorded and not refused["reason"].startswith("K"):
        k = _difference_at(game, refused["index"])
        if k is not None:
            refused["reason"] = f"{k} (a documented difference, docs/rules/ora-kennerspiel.md; --as-recorded follows it)"
    if refused is None and as_recorded:
        _k7(rp)
    if refused is None and not rp.state["over"]:
        refused = {"index": len(moves), "command": "", "reason": "the record ends before the game is over"}
    scores = [breakdown(rp.state, seat) for seat in range(rp.state["n"])]
    return Result(refused is None, refused, list(rp.colours), scores, done, rp.notes)


def _no_op_after_end(rp: Replay, words: list[str]) -> bool:
    """Commands of the last turn that change nothing of ours once our engine has ended the game
    with it: changing coins (``CONVERT PnPnPnPnPn``, ``CONVERT Ni``: coins are one number,
    G2), turning grain into straw or selling wine or whiskey (made on the last seat's goods),
    the ``USE`` of a contracted building our engine resolved alone and, as recorded, a
    landscape bought in that turn (K12 after its settlement, K13)."""
    if words[0] == "CONVERT":
        tokens = [p[i:i + 2] for p in words[1:] for i in range(0, len(p), 2)]
        if not rp.actions or not all(t in ("Pn", "Ni", "Gn", "Wn", "Wh") for t in tokens):
            return False
        goods = rp.state["pl"][rp.actions[-1][0]]["goods"]
        counts = {g: tokens.count(t) for t, g in (("Gn", "grain"), ("Wn", "wine"), ("Wh", "whiskey"))}
        if any(goods.get(g, 0) < n for g, n in counts.items()):
            return False
        for g, n in counts.items():
            if n:
                _convert_late(rp, rp.actions[-1][0], g, n)
        return True
    if words[0] == "USE" and rp.contracted is not None and rp.owner_of(words[1])[1] == rp.contracted:
        if len(words) == 2:
            return True
        user = next((s for s, a in reversed(rp.actions) if a["type"] == "contract"), None)
        return user is not None and _paid_for_nothing(rp, user, rp.contracted, read_words(rp.contracted, words[2:]))
    if words[0] in ("BUY_DISTRICT", "BUY_PLOT") and len(words) == 3 and rp.as_recorded:
        tile, side, y = words[0][4:].lower(), SIDES[words[2].upper()], _int(words[1])
        return _k12(rp, tile, side, y) or _k13_late(rp, tile, side, y)
    return False


def _difference_at(game: Record, index: int) -> str | None:
    """The documented difference that command ``index`` shows when replayed as recorded (its
    note), or None."""
    rp = start(game, as_recorded=True, in_place=True)
    rp.moves = list(game["moves"])
    try:
        for i, move in enumerate(rp.moves[:index + 1]):
            rp.index = i
            seen = len(rp.notes)
            if not rp.state["over"]:
                command(rp, move.split())
            elif move == "COMMIT" and rp.closed > rp.committed:
                rp.committed += 1
            elif not _no_op_after_end(rp, move.split()):
                return None
    except (GameError, IndexError, KeyError, ValueError):
        return None
    return rp.notes[seen] if len(rp.notes) > seen else None


def _k7(rp: Replay) -> None:
    """K7: kennerspiel's solo game ends after round 30 without phase E."""
    if rp.state["mode"] == "solo" and not rp.state["over"]:
        win = rp.state["win"]
        if win is not None and win["kind"] == "settle" and rp.state["unit"] == 30:
            rp.apply({"type": "done"})
            rp.notes.append("K7: no phase E after round 30")


def report(rp: Replay) -> str:
    """Each seat's score breakdown (§8), whether the game is over, and the differences applied."""
    st = rp.state
    kind = "turn" if st["mode"] == "2p" else "round"
    head = "game over" if st["over"] else f"record ends in {kind} {st['unit']} (game not over)"
    lines = [f"ora {st['mode']} {st['variant']}: {len(rp.actions)} actions, {head}"]
    for seat in range(st["n"]):
        sc = R.score(st, seat)
        lines.append(f"{rp.colours[seat]} (seat {seat}): goods {sc['goods']} + economic {sc['economic']} + "
                     f"settlements {sc['settlements']} = {sc['total']}")
    lines += [f"as recorded: {note}" for note in rp.notes]
    return "\n".join(lines)


def _result_text(result: Result, where: str) -> str:
    head = f"{where}: followed to the end" if result.followed else (
        f"{where}: stops at command {result.refused['index']} `{result.refused['command']}`: "
        f"{result.refused['reason']}" if result.refused else where)
    lines = [head]
    for colour, sc in zip(result.seat_colors, result.scores, strict=True):
        lines.append(f"  {colour}: goods {sc['goods']} + economic {sc['economic']} + dwelling {sc['dwelling']} "
                     f"{sc['settlements']} = {sc['total']}")
    lines += [f"  as recorded: {note}" for note in result.notes]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """The command line: 1 when a command of some record cannot be followed (or a ``.jsonl``
    game is not followed to its end), else 0."""
    parser = argparse.ArgumentParser(prog="python -m engines.ora.importer", description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="+", metavar="FILE",
                        help="a kennerspiel record file (.jsonl, one game a line) or our text format")
    parser.add_argument("--as-recorded", action="store_true",
                        help="apply kennerspiel's rule differences (docs/rules/ora-kennerspiel.md)")
    parser.add_argument("--json", action="store_true", help="one JSON object a line per game")
    args = parser.parse_args(argv)
    ok = True
    for path in args.files:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        if path.endswith(".jsonl"):
            for number, line in enumerate(text.splitlines(), start=1):
                if not line.strip():
                    continue
                result = replay_game(json.loads(line), as_recorded=args.as_recorded)
                ok = ok and result.followed
                out = json.dumps(result.to_json()) if args.json else _result_text(result, f"{path}:{number}")
                sys.stdout.write(out + "\n")
            continue
        try:
            rp = replay(text, as_recorded=args.as_recorded)
        except RecordError as exc:
            ok = False
            if args.json:
                sys.stdout.write(json.dumps({"followed": False, "refused": {
                    "index": exc.line, "command": exc.command, "reason": exc.reason},
                    "seatColors": [], "scores": []}) + "\n")
            else:
                sys.stdout.write(f"cannot follow the record at {exc}\n")
            continue
        if args.json:
            scores = [breakdown(rp.state, seat) for seat in range(rp.state["n"])]
            sys.stdout.write(json.dumps({"followed": bool(rp.state["over"]), "refused": None,
                                         "seatColors": list(rp.colours), "scores": scores}) + "\n")
        else:
            sys.stdout.write(report(rp) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
