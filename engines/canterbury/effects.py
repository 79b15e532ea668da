"""The card table of The Road to Canterbury: one entry per playable card (a Sin card, a
Pardon card, each of the twelve relics), registered in ``EFFECTS``
(docs/rules/canterbury.md §5.2, §5.3, §5.6).

An ``Effect`` says whom the card can target (``targets``: the legal whole actions, e.g.
``{"type": "relic", "relic": "felix", "company": "red", "sin": "greed"}``), what it does
(``resolve``, on the engine's working copy of the state), how each target is labelled
(``label``, a ``Msg``) and which steps a player taps through after picking the card
(``steps``: e.g. the pilgrim before St. Felix's sin). The card itself is always the first
step (``card_step``). Also here: the board changes the cards and the turn share
(placing a card, doom and tokens, Circle cubes, forgiving a sin) and the message
parameters that name game things (``term`` keys of ``bot/text/en/canterbury.toml``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

from engines.base import Event, Msg, msg, seat_ref, term
from engines.canterbury.data import (
    CARDS,
    DECKS,
    DOOM_CARDS,
    FOLLOWUP_TYPES,
    HILDEGARD_COINS,
    ISIDORE_DRAWS,
    NICHOLAS,
    PASS_FINE,
    SINS,
    VITUS_PLAYS,
    awards,
)
from engines.canterbury.rules import (
    can_draw,
    card_of,
    distinct,
    dooms,
    hand_type,
    living,
    pardon_coins,
    pardon_value,
    pardonable,
    pilgrim_sin,
    sin_on,
    sort_cards,
)
from engines.canterbury.types import Action, Frame, State

# --------------------------------------------------------------------------- message parameters


def card_t(kind: str) -> dict[str, str]:
    """A card's full name (``term.card.<kind>``: "Greed (Sin card)", "Pardon of Greed")."""
    return term(f"card.{kind}")


def short_t(kind: str) -> dict[str, str]:
    """A card's short name (``term.short.<kind>``: "Greed", "Death (red)", "St. Felix")."""
    return term(f"short.{kind}")


def sin_t(sin: str) -> dict[str, str]:
    """A sin's name (``term.sin.<sin>``)."""
    return term(f"sin.{sin}")


def company_t(company: str) -> dict[str, str]:
    """A company colour (``term.company.<colour>``)."""
    return term(f"company.{company}")


def deck_t(deck: str) -> dict[str, str]:
    """A deck's name (``term.deck.<deck>``: "Sin", "Pardon", "Relic")."""
    return term(f"deck.{deck}")


def pilgrim_t(state: State, company: str) -> dict[str, str]:
    """The name of ``company``'s living pilgrim (``term.pilgrim.<id>``)."""
    return term(f"pilgrim.{state['companies'][company]['pilgrim']}")


def on(state: State, company: str) -> dict[str, dict[str, str]]:
    """``pilgrim`` and ``company`` parameters for a message about a living pilgrim."""
    return {"pilgrim": pilgrim_t(state, company), "company": company_t(company)}


def cards_list(kinds: list[str], *, short: bool = False) -> Msg:
    """A list of cards as a nested message ("Greed (Sin card), Pardon of Lust"; "no cards")."""
    if not kinds:
        return msg("text.no_cards")
    return msg("text.cards", cards=[short_t(k) if short else card_t(k) for k in kinds])


EMPTY = msg("text.empty")
"""A message that writes nothing (an optional part of a sentence that does not apply)."""


# --------------------------------------------------------------------------- frames and board changes


def play_frame(ctx: str) -> Frame:
    """A card-choice frame: ``main`` (T1), ``followup`` (a relic's follow-up, D22) or
    ``vitus`` (a St. Vitus extra play, D27)."""
    return {"f": "play", "ctx": ctx}


def allowed_types(ctx: str) -> tuple[str, ...]:
    """The card types a card-choice frame accepts (§5.6: follow-ups are Sin or Pardon)."""
    return FOLLOWUP_TYPES if ctx == "followup" else DECKS


def take_from_hand(s: State, seat: int, kind: str) -> None:
    """Remove one ``kind`` from ``seat``'s hand."""
    s["hands"][seat].remove(kind)


def add_to_hand(s: State, seat: int, kind: str) -> None:
    """Put ``kind`` into ``seat``'s hand (kept in card order)."""
    s["hands"][seat] = sort_cards(s["hands"][seat] + [kind])


def place_on(s: State, company: str, kind: str) -> None:
    """Lay ``kind`` face up on ``company``'s pilgrim (§5.2 step 1)."""
    s["companies"][company]["cards"].append({"kind": kind, "up": True})


def check_doom(s: State, company: str, events: list[Event], token_seat: int | None) -> None:
    """§5.7: the 7th card dooms; the active player's own placement (``token_seat``)
    earns a Last Rites token while the supply lasts."""
    comp = s["companies"][company]
    if comp["doomed"] or comp["pilgrim"] is None or len(comp["cards"]) < DOOM_CARDS:
        return
    comp["doomed"] = True
    s["doom_order"].append(company)
    events.append(Event("doom", params=on(s, company)))
    if token_seat is not None and s["token_supply"] > 0:
        s["token_supply"] -= 1
        s["tokens"][token_seat] += 1
        events.append(Event("token", params={"seat": seat_ref(token_seat)}))


def circle_cube(s: State, seat: int, sin: str, events: list[Event]) -> None:
    """§5.2 step 2 and §5.4: a cube on ``sin`` if ``seat`` has none there; all seven →
    completion (award by completion rank, once per player), one cube to the centre."""
    circle = s["circle"][seat]
    if sin in circle:
        return
    s["circle"][seat] = [x for x in SINS if x in circle or x == sin]
    if len(s["circle"][seat]) < len(SINS):
        return
    award = 0
    if seat not in s["completions"]:
        rank = len(s["completions"])
        s["completions"].append(seat)
        table = awards("completion_awards", s["players"])
        award = table[rank] if rank < len(table) else 0
        s["coins"][seat] += award
    s["centre"][seat] += 1
    s["circle"][seat] = []
    if award:
        events.append(Event("completion", params={"seat": seat_ref(seat), "award": award}))
    else:
        events.append(Event("completion_again", params={"seat": seat_ref(seat)}))


def forgive(s: State, company: str, sin: str, events: list[Event], *, paid: bool) -> None:
    """Turn every face-up card with ``sin`` on ``company``'s pilgrim face down and put
    the active player's cube there: a Pardon (§5.3, ``paid``: points, coins, the Parson
    moves on) or St. Felix (§5.6, D24: nothing else)."""
    seat = s["active"]
    comp = s["companies"][company]
    psin = pilgrim_sin(s, company)
    n = 0
    for card in comp["cards"]:
        if card["up"] and sin_on(card["kind"], psin) == sin:
            card["up"] = False
            n += 1
    comp["cubes"][seat] += 1
    params = {"seat": seat_ref(seat), "sin": sin_t(sin), **on(s, company), "cards": n}
    if not paid:
        events.append(Event("felix", params=params))
        return
    on_parson = s["parson"] == sin
    points = n + (1 if on_parson else 0)
    coins = pardon_coins(points)
    s["coins"][seat] += coins
    events.append(Event("pardon", params=params | {
        "parson": (msg("text.plus_parson") if on_parson else EMPTY).to_json(), "points": points, "coins": coins}))
    if on_parson:
        nxt = SINS[(SINS.index(sin) + 1) % len(SINS)]
        s["parson"] = nxt
        events.append(Event("parson_moves", params={"sin": sin_t(nxt)}))


def remove_card(s: State, company: str, kind: str, up: bool) -> None:
    """Take the last ``kind`` card with face ``up`` off ``company``'s pilgrim."""
    cards = s["companies"][company]["cards"]
    cards.pop(max(i for i, cd in enumerate(cards) if cd["kind"] == kind and cd["up"] == up))


# --------------------------------------------------------------------------- the table


def _no_steps(state: State, action: Action) -> tuple[Msg, ...]:
    return ()


def _pilgrim_step(state: State, action: Action) -> tuple[Msg, ...]:
    return (msg("step.pilgrim", **on(state, action["company"])),)


@dataclass(frozen=True)
class Effect:
    """One playable card (§5.1 action list).

    Attributes:
        targets: ``(state, kind) -> [action]``: every legal way for the active player to
            play ``kind`` now (empty when it cannot be played).
        resolve: ``(working state, action, events)``: what the card does; it may push
            frames (follow-ups, sub-steps, chance draws) on ``state["stack"]``.
        label: ``(state, action) -> Msg``: the target's button text, saying its effect.
        steps: ``(state, action) -> (Msg, ...)``: steps after the card step (e.g. a pilgrim).
        followup: a relic that is followed by an optional Sin or Pardon card (§5.6).
    """

    targets: Callable[[State, str], list[Action]]
    resolve: Callable[[State, Action, list[Event]], None]
    label: Callable[[State, Action], Msg]
    steps: Callable[[State, Action], tuple[Msg, ...]] = _no_steps
    followup: bool = False


# -- Sin and Pardon cards (§5.2, §5.3)

def _sin_targets(state: State, kind: str) -> list[Action]:
    return [{"type": "sin", "sin": CARDS[kind].sin, "company": co} for co in living(state)]


def _sin_resolve(s: State, action: Action, events: list[Event]) -> None:
    seat, co, sin = s["active"], action["company"], action["sin"]
    take_from_hand(s, seat, f"sin-{sin}")
    place_on(s, co, f"sin-{sin}")
    events.append(Event("sin", params={"seat": seat_ref(seat), "sin": sin_t(sin), **on(s, co)}))
    circle_cube(s, seat, sin, events)
    check_doom(s, co, events, token_seat=seat)


def _sin_label(state: State, action: Action) -> Msg:
    co = action["company"]
    doom = EMPTY
    if dooms(state, co):
        doom = msg("label.doom_token" if state["token_supply"] > 0 else "label.doom")
    new = action["sin"] not in state["circle"][state["active"]]
    return msg("label.sin", sin=sin_t(action["sin"]), **on(state, co),
               count=len(state["companies"][co]["cards"]) + 1, doom=doom,
               cube=msg("label.new_cube") if new else EMPTY)


def _pardon_targets(state: State, kind: str) -> list[Action]:
    sin = CARDS[kind].sin
    return [{"type": "pardon", "sin": sin, "company": co} for co in living(state) if pardonable(state, co, sin)]


def _pardon_resolve(s: State, action: Action, events: list[Event]) -> None:
    kind = f"pardon-{action['sin']}"
    take_from_hand(s, s["active"], kind)
    forgive(s, action["company"], action["sin"], events, paid=True)
    s["discards"]["pardon"].append(kind)


def _pardon_label(state: State, action: Action) -> Msg:
    co, sin = action["company"], action["sin"]
    return msg("label.pardon", sin=sin_t(sin), **on(state, co), cards=pardonable(state, co, sin),
               parson=msg("text.plus_parson") if state["parson"] == sin else EMPTY,
               coins=pardon_value(state, co, sin))


# -- relics (§5.6); ``_relic(name)`` is the action's base

def _relic(name: str, **params: str | int) -> Action:
    return cast(Action, {"type": "relic", "relic": name, **params})


def _others(state: State) -> list[int]:
    """Opponents clockwise from the seat after the actor (§11 display orders)."""
    seat, n = state["active"], state["players"]
    return [(seat + i) % n for i in range(1, n)]


def _just(name: str) -> Callable[[State, str], list[Action]]:
    return lambda state, kind: [_relic(name)]


def _felix_targets(state: State, kind: str) -> list[Action]:
    return [_relic("felix", company=co, sin=s) for co in living(state) for s in SINS if pardonable(state, co, s)]


def _felix_resolve(s: State, action: Action, events: list[Event]) -> None:
    forgive(s, action["company"], action["sin"], events, paid=False)


def _felix_label(state: State, a: Action) -> Msg:
    return msg("label.felix", sin=sin_t(a["sin"]), **on(state, a["company"]),
               cards=pardonable(state, a["company"], a["sin"]))


def _bernard_resolve(s: State, action: Action, events: list[Event]) -> None:
    kind = f"pardon-{action['sin']}"
    for q in range(s["players"]):
        if q == s["active"]:
            continue
        n = s["hands"][q].count(kind)
        s["hands"][q] = [k for k in s["hands"][q] if k != kind]
        s["discards"]["pardon"] += [kind] * n
        events.append(Event("bernard", params={"seat": seat_ref(q), "card": card_t(kind), "count": n}))


def _hildegard_resolve(s: State, action: Action, events: list[Event]) -> None:
    s["coins"][s["active"]] += HILDEGARD_COINS
    events.append(Event("hildegard", params={"seat": seat_ref(s["active"]), "coins": HILDEGARD_COINS}))


def _vincent_targets(state: State, kind: str) -> list[Action]:
    return [_relic("vincent", company=co, player=q) for co in living(state)
            for q in [*_others(state), state["active"]] if state["companies"][co]["cubes"][q] > 0]


def _vincent_resolve(s: State, action: Action, events: list[Event]) -> None:
    co, q = action["company"], action["player"]
    s["companies"][co]["cubes"][q] -= 1
    events.append(Event("vincent", params={"player": seat_ref(q), **on(s, co)}))


def _vincent_label(state: State, a: Action) -> Msg:
    key = "label.vincent_own" if a["player"] == state["active"] else "label.vincent"
    return msg(key, player=seat_ref(a["player"]), **on(state, a["company"]))


def _benedict_targets(state: State, kind: str) -> list[Action]:
    return [_relic("benedict", player=q, deck=y) for q in _others(state) for y in DECKS
            if any(hand_type(k) == y for k in state["hands"][q])]


def _benedict_resolve(s: State, action: Action, events: list[Event]) -> None:
    q = action["player"]
    s["stack"].append({"f": "give", "target": q})
    s["stack"].append({"f": "chance", "what": "steal", "target": q, "deck": action["deck"]})
    events.append(Event("benedict", params={"seat": seat_ref(s["active"]), "player": seat_ref(q),
                                            "deck": deck_t(action["deck"])}))


def _philip_resolve(s: State, action: Action, events: list[Event]) -> None:
    s["stack"].append({"f": "philip", "stage": "before", "moved": False})


def _wilgefortis_targets(state: State, kind: str) -> list[Action]:
    alive = living(state)
    if len(alive) < 2:
        return []
    out: list[Action] = []
    for src in alive:
        for k in distinct([cd["kind"] for cd in state["companies"][src]["cards"] if cd["up"]]):
            out += [_relic("wilgefortis", company=src, card=k, to=to) for to in alive if to != src]
    return out


def _wilgefortis_resolve(s: State, action: Action, events: list[Event]) -> None:
    src, kind, to = action["company"], action["card"], action["to"]
    remove_card(s, src, kind, up=True)
    place_on(s, to, kind)
    events.append(Event("wilgefortis", params={
        "card": short_t(kind), "from_pilgrim": pilgrim_t(s, src), "from_company": company_t(src), **on(s, to)}))
    check_doom(s, to, events, token_seat=s["active"])


def _wilgefortis_label(state: State, a: Action) -> Msg:
    return msg("label.wilgefortis", card=short_t(a["card"]), **on(state, a["to"]))


def _wilgefortis_steps(state: State, action: Action) -> tuple[Msg, ...]:
    return (msg("step.from", **on(state, action["company"])),)


def _company_targets(name: str) -> Callable[[State, str], list[Action]]:
    return lambda state, kind: [_relic(name, company=co) for co in living(state)]


def _nicholas_resolve(s: State, action: Action, events: list[Event]) -> None:
    co = action["company"]
    place_on(s, co, NICHOLAS)
    events.append(Event("nicholas", params=on(s, co)))
    check_doom(s, co, events, token_seat=s["active"])


def _vitus_resolve(s: State, action: Action, events: list[Event]) -> None:
    s["stack"].append({"f": "vitus", "left": VITUS_PLAYS})


def _anselm_targets(state: State, kind: str) -> list[Action]:
    return ([_relic("anselm", pilgrim=co) for co in living(state)]
            + [_relic("anselm", circle=s) for s in SINS if s not in state["circle"][state["active"]]])


def _anselm_resolve(s: State, action: Action, events: list[Event]) -> None:
    seat = s["active"]
    if "pilgrim" in action:
        co = action["pilgrim"]
        s["companies"][co]["cubes"][seat] += 1
        events.append(Event("anselm", params={"seat": seat_ref(seat), **on(s, co)}))
    else:
        circle_cube(s, seat, action["circle"], events)


def _anselm_label(state: State, a: Action) -> Msg:
    if "pilgrim" in a:
        return msg("label.anselm_pilgrim", **on(state, a["pilgrim"]))
    return msg("label.anselm_circle", sin=sin_t(a["circle"]))


def _isidore_targets(state: State, kind: str) -> list[Action]:
    return [_relic("isidore", deck=d) for d in DECKS if can_draw(state, d)]


def _isidore_resolve(s: State, action: Action, events: list[Event]) -> None:
    s["stack"].append({"f": "isidore", "deck": action["deck"], "left": ISIDORE_DRAWS, "drawn": [],
                       "stage": "draw"})


def _jonah_targets(state: State, kind: str) -> list[Action]:
    out: list[Action] = []
    for co in living(state):
        cards = state["companies"][co]["cards"]
        for k in distinct([cd["kind"] for cd in cards]):
            out += [_relic("jonah", company=co, card=k, face=face) for face, up in (("up", True), ("down", False))
                    if any(cd["kind"] == k and cd["up"] == up for cd in cards)]
    return out


def _jonah_resolve(s: State, action: Action, events: list[Event]) -> None:
    co, kind = action["company"], action["card"]
    remove_card(s, co, kind, up=action["face"] == "up")
    s["discards"][hand_type(kind)].append(kind)
    events.append(Event("jonah", params={"card": short_t(kind), "face": term(f"face.{action['face']}"),
                                         **on(s, co)}))


def _jonah_label(state: State, a: Action) -> Msg:
    return msg("label.jonah", card=short_t(a["card"]), face=term(f"face.{a['face']}"), **on(state, a["company"]))


def _fixed(key: str, **params: object) -> Callable[[State, Action], Msg]:
    return lambda state, action: msg(key, **params)


EFFECTS: dict[str, Effect] = {
    "sin": Effect(_sin_targets, _sin_resolve, _sin_label),
    "pardon": Effect(_pardon_targets, _pardon_resolve, _pardon_label),
    "relic-felix": Effect(_felix_targets, _felix_resolve, _felix_label, _pilgrim_step),
    "relic-bernard": Effect(lambda state, kind: [_relic("bernard", sin=s) for s in SINS], _bernard_resolve,
                            lambda state, a: msg("label.bernard", sin=sin_t(a["sin"]))),
    "relic-hildegard": Effect(_just("hildegard"), _hildegard_resolve,
                              _fixed("label.hildegard", coins=HILDEGARD_COINS)),
    "relic-vincent": Effect(_vincent_targets, _vincent_resolve, _vincent_label, _pilgrim_step),
    "relic-benedict": Effect(_benedict_targets, _benedict_resolve,
                             lambda state, a: msg("label.benedict", deck=deck_t(a["deck"]),
                                                  player=seat_ref(a["player"]))),
    "relic-philip": Effect(_just("philip"), _philip_resolve, _fixed("label.philip")),
    "relic-wilgefortis": Effect(_wilgefortis_targets, _wilgefortis_resolve, _wilgefortis_label,
                                _wilgefortis_steps),
    "relic-nicholas": Effect(_company_targets("nicholas"), _nicholas_resolve,
                             lambda state, a: msg("label.nicholas", **on(state, a["company"])), followup=True),
    "relic-vitus": Effect(_just("vitus"), _vitus_resolve, _fixed("label.vitus", plays=VITUS_PLAYS)),
    "relic-anselm": Effect(_anselm_targets, _anselm_resolve, _anselm_label),
    "relic-isidore": Effect(_isidore_targets, _isidore_resolve,
                            lambda state, a: msg("label.isidore", deck=deck_t(a["deck"]), n=ISIDORE_DRAWS),
                            followup=True),
    "relic-jonah": Effect(_jonah_targets, _jonah_resolve, _jonah_label, _pilgrim_step, followup=True),
}
"""Every playable card: ``sin`` and ``pardon`` cover the seven kinds each; relics by id."""


def effect_of(kind: str) -> Effect:
    """The table entry of a hand card.

    Raises:
        KeyError: ``kind`` is not playable (a Death card never is, §2.3).
    """
    card = CARDS[kind]
    return EFFECTS[kind if card.kind == "relic" else card.kind]


if set(EFFECTS) != {"sin", "pardon"} | {k for k, c in CARDS.items() if c.kind == "relic"}:
    raise RuntimeError("canterbury effects: every relic needs exactly one entry")


# --------------------------------------------------------------------------- plays


def targets(state: State, kind: str) -> list[Action]:
    """Every legal whole action playing ``kind`` from the active player's hand (§5.1)."""
    return effect_of(kind).targets(state, kind)


def card_step(kind: str) -> Msg:
    """The first step of a card play: the card ("Play Greed (Sin card)"; a relic says
    what it does)."""
    if CARDS[kind].kind == "relic":
        return msg("step.relic", card=card_t(kind), help=msg(f"help.{kind[len('relic-'):]}"))
    return msg("step.card", card=card_t(kind))


def play_path(state: State, action: Action) -> tuple[Msg, ...]:
    """The steps before a card play: the card, then the effect's own steps; none for a
    card with a single target, so its button says what it does (§11 "Prompts")."""
    kind = card_of(action)
    if kind is None or len(targets(state, kind)) == 1:
        return ()
    return (card_step(kind), *effect_of(kind).steps(state, action))


def play_label(state: State, action: Action) -> Msg:
    """The label of a card play (the effect's own)."""
    kind = card_of(action)
    assert kind is not None
    return effect_of(kind).label(state, action)


def card_plays(state: State, ctx: str) -> list[Action]:
    """Every card play of the active player in a card-choice frame ``ctx``, in hand order."""
    allow = allowed_types(ctx)
    hand = state["hands"][state["active"]]
    return [a for k in distinct(hand) if hand_type(k) in allow for a in targets(state, k)]


def any_play(state: State) -> bool:
    """The active player holds a playable card (§5.1 pass)."""
    return any(targets(state, k) for k in distinct(state["hands"][state["active"]]))


def pass_legal(state: State) -> bool:
    """§5.1 pass: ≥3 coins, or nothing playable (D16)."""
    return state["coins"][state["active"]] >= PASS_FINE or not any_play(state)


def play(s: State, action: Action, events: list[Event]) -> None:
    """Resolve a card play on the working copy ``s`` (§5.2, §5.3, §5.6). A relic is
    announced, goes to the Relic discard pile once resolved (the Underpants stay on
    their pilgrim) and pushes its follow-up before its own effect."""
    kind = card_of(action)
    assert kind is not None
    effect = effect_of(kind)
    if CARDS[kind].kind == "relic":
        seat = s["active"]
        take_from_hand(s, seat, kind)
        events.append(Event("relic", params={"seat": seat_ref(seat), "card": card_t(kind),
                                             "native": CARDS[kind].name_zh}))
        if kind != NICHOLAS:
            s["stack"].append({"f": "discard_relic", "card": kind})
        if effect.followup:
            s["stack"].append(play_frame("followup"))
    effect.resolve(s, action, events)


def timeout_play(state: State) -> Action | None:
    """The T1 timeout play (§11 Timeouts): the best-paying Pardon (ties: company, then
    sin order), else a Sin card (a new Circle sin first, else the first held) on the
    pilgrim with the fewest cards, else St. Hildegard; None (= pass, when legal), else
    the first legal Relic."""
    seat = state["active"]
    hand = state["hands"][seat]
    best: tuple[int, Action] | None = None
    for co in living(state):
        for sin in SINS:
            if f"pardon-{sin}" in hand and pardonable(state, co, sin):
                value = pardon_value(state, co, sin)
                if best is None or value > best[0]:
                    best = (value, {"type": "pardon", "sin": sin, "company": co})
    if best is not None:
        return best[1]
    held = [s for s in SINS if f"sin-{s}" in hand]
    if held:
        new = [s for s in held if s not in state["circle"][seat]]
        alive = living(state)
        co = min(alive, key=lambda c: (len(state["companies"][c]["cards"]), alive.index(c)))
        return {"type": "sin", "sin": (new or held)[0], "company": co}
    if "relic-hildegard" in hand:
        return _relic("hildegard")
    if pass_legal(state):
        return None
    for kind in distinct(hand):
        if CARDS[kind].kind == "relic" and targets(state, kind):
            return targets(state, kind)[0]
    return None
