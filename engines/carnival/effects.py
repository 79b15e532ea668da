"""The sin table: one entry per sin card, registered in ``SIN_TABLE`` (spec
docs/rules/carnival.md §5.3).

Each ``SinEffect`` says when the sin acts, what its player may choose (the legal
actions), what a choice does to the state, how each choice is labelled (and grouped into
steps for ``engines.decisions.DecisionTree``) and what the player is asked. The engine's
flow, ``notation.py`` and the host read this one table instead of parallel if/elif
chains. Text is ``Msg`` only (catalog ``bot/text/en/carnival.toml``).

Floor: imports ``rules.py`` and ``data.py``; ``chance.py``, ``notation.py``, ``view.py``
and ``engine.py`` sit above it. The ``apply`` functions mutate the state copy the engine
hands them (never a caller's state).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from engines.base import Event, Msg, Seat, msg, seat_ref, term
from engines.carnival import rules
from engines.carnival.data import FACES, RESOLVES, SINS, SIZE
from engines.carnival.types import Action, Die, State, TakeKind

# --------------------------------------------------------------------------- message parts


def sin_term(sin: str) -> dict[str, str]:
    """The term parameter of a sin (catalog ``term.sin.<id>``)."""
    return term(f"sin.{sin}")


def die_value(state: State, die: str) -> str:
    """Notation of a die with its value: ``"d12=5"``."""
    return f"{die}={rules.value(state, die)}"


def dice_values(state: State, dice: Sequence[str]) -> str:
    """Notation of several dice with their values: ``"d10=7 + d12=7"``."""
    return " + ".join(die_value(state, d) for d in dice)


def die_ref(die: str, info: Die) -> Msg:
    """Where a die lies, as a message: ``d20 on Bo's card`` / ``d20 on the table``."""
    if info["place"] == "card":
        return msg("die.card", die=die, seat=seat_ref(rules.card_owner(info)))
    return msg("die.table", die=die)


def where_ref(state: State, die: str) -> Msg:
    """``table`` or ``Bo's card`` for a die (labels)."""
    info = state["dice"][die]
    if info["place"] == "card":
        return msg("where.card", seat=seat_ref(rules.card_owner(info)))
    return msg("where.table")


def zone_ref(zone: str) -> Msg:
    """``the centre`` or ``Bo's zone`` (spec §2.6 zones)."""
    seat = rules.zone_seat(zone)
    return msg("zone.centre") if seat is None else msg("zone.seat", seat=seat_ref(seat))


# --------------------------------------------------------------------------- the table


@dataclass(frozen=True)
class SinEffect:
    """One sin card (spec §5.3).

    Attributes:
        sin: the sin id (``"greed"``).
        when: ``reveal`` (resolved at its reveal, R3), ``scoring`` (Envy, §8.1) or
            ``round_end`` (Pride, R4).
        options: ``(state, seat) -> actions``: the legal choices of the sin's player,
            in §11 button order (0 → nothing happens, 1 → applied automatically, §5.2).
        apply: ``(state, seat, action, events) -> done``: does the chosen action to the
            state copy; ``done`` is False when a chance outcome must follow (Wrath).
        label: ``(state, action) -> Msg``: the button/select text of a choice.
        path: ``(state, action) -> steps``: steps before the choice (Wrath: the target).
        prompt: ``(state) -> Msg``: what the player is asked.
        confirm: ``(state, action) -> (summary, button)`` or None: what a panel shows
            before the choice is applied (Wrath: knock candidates and the off-table
            chance, §11 Prompts), with the button that applies it.
        rule: the English rule an illegal choice is refused with (``IllegalAction``).
    """

    sin: str
    when: str
    options: Callable[[State, Seat], list[Action]]
    apply: Callable[[State, Seat, Action, list[Event]], bool]
    label: Callable[[State, Action], Msg]
    prompt: Callable[[State], Msg]
    rule: str
    path: Callable[[State, Action], tuple[Msg, ...]] = lambda state, action: ()
    confirm: Callable[[State, Action], tuple[Msg, Msg]] | None = None


def take(state: State, seat: Seat, dice: Sequence[str]) -> None:
    """Move ``dice`` onto ``seat``'s card, values unchanged: "take" (spec §5.3)."""
    for d in dice:
        state["dice"][d].update({"place": "card", "owner": seat, "pos": None, "zone": None})


def action_dice(action: Action) -> list[str]:
    """The dice an action takes: ``dice`` (pairs) or ``[die]``."""
    return list(action["dice"]) if "dice" in action else [action["die"]]


def take_event(state: State, seat: Seat, sin: str, dice: Sequence[str]) -> Event:
    """The public line of a take (before the dice move), spec §11 Announcements."""
    who = {"seat": seat_ref(seat), "sin": sin_term(sin)}
    if not dice:
        return Event("take_nothing", params=who)
    if len(dice) == 1:
        return Event("take", params=who | {"dice": die_value(state, dice[0])})
    total = sum(rules.value(state, d) for d in dice)
    params = who | {"dice": dice_values(state, dice), "total": total}
    stolen = [d for d in dice if state["dice"][d]["place"] == "card"]
    if stolen:
        owner = rules.card_owner(state["dice"][stolen[0]])
        return Event("take_steal", params=params | {"stolen": stolen[0], "owner": seat_ref(owner)})
    return Event("take_pair", params=params)


def _apply_take(sin: str) -> Callable[[State, Seat, Action, list[Event]], bool]:
    def apply(state: State, seat: Seat, action: Action, events: list[Event]) -> bool:
        dice = action_dice(action)
        events.append(take_event(state, seat, sin, dice))
        take(state, seat, dice)
        return True
    return apply


def _label_take(state: State, action: Action) -> Msg:
    if "dice" not in action:
        return msg("label.take", die=action["die"], value=rules.value(state, action["die"]))
    a, b = rules.sorted_pair(action_dice(action))
    total = rules.value(state, a) + rules.value(state, b)
    stolen = [d for d in (a, b) if state["dice"][d]["place"] == "card"]
    if stolen:
        owner = rules.card_owner(state["dice"][stolen[0]])
        return msg("label.take_pair_steal", a=a, b=b, total=total, stolen=stolen[0], owner=seat_ref(owner))
    return msg("label.take_pair", a=a, b=b, total=total)


def _no_options(state: State, seat: Seat) -> list[Action]:
    return []


def _not_at_reveal(state: State, seat: Seat, action: Action, events: list[Event]) -> bool:
    raise AssertionError("this sin has no choice at its reveal")  # pragma: no cover


# -- Wrath (§5.3, §6): target + aim, then chance ``wrath_result``


def _wrath_options(state: State, seat: Seat) -> list[Action]:
    """Every target with every aim; on the spatial table the targets in the order of their numbers
    on the Wrath picture (``wrath_number``: size order), so the target step's buttons read 1, 2,
    3 … as the picture does (the aims are in that order already)."""
    targets = rules.wrath_targets(state, seat)
    if rules.spatial(state):
        targets = sorted(targets, key=lambda t: wrath_number(state, t))
    return [{"type": "wrath", "target": t, "aim": a} for t in targets for a in rules.wrath_aims(state, t)]


def _wrath_apply(state: State, seat: Seat, action: Action, events: list[Event]) -> bool:
    """Wrath's choice (spec §5.3): the throw waits for the chance ``wrath_result``. No event
    here: the result's one line (``wrath_reroll`` / ``wrath_aimed`` / ``wrath_off_table``)
    names the thrower, the die and where it landed, after the card's ``reveal`` line."""
    state["throw"] = {"target": action["target"], "aim": action["aim"]}
    state["phase"] = "wrath_chance"
    return False


def wrath_number(state: State, key: str) -> int:
    """The number of a die (spatial table: dice in size order from 1) or of a zone (zone table:
    ``rules.zone_names`` order from 1) on the Wrath picture of the thrower's panel
    (render/carnival.py ``render_decision``) and on its buttons ("3 · d8=8 …")."""
    if rules.spatial(state):
        return SIZE[key] + 1
    return rules.zone_names(state["players"]).index(key) + 1


def _wrath_label(state: State, action: Action) -> Msg:
    aim = action["aim"]
    if aim == "none":
        return msg("label.aim_none")
    near = rules.knock_candidates(state, action["target"], rules.aim_landing(state, aim))
    knocks = msg("label.may_knock", dice=near) if near else msg("label.knocks_nothing")
    n = wrath_number(state, aim)
    if not rules.spatial(state):
        return msg("label.aim_zone", n=n, zone=zone_ref(aim), knocks=knocks)
    return msg("label.aim_die", n=n, die=aim, value=rules.value(state, aim), where=where_ref(state, aim),
               knocks=knocks)


def _wrath_path(state: State, action: Action) -> tuple[Msg, ...]:
    target = action["target"]
    step = {"target": die_ref(target, state["dice"][target]), "value": rules.value(state, target)}
    if rules.spatial(state):  # (the picture numbers the dice; the zone table's numbers are its zones)
        return (msg("step.target_n", n=wrath_number(state, target), **step),)
    return (msg("step.target", **step),)


def _wrath_confirm(state: State, action: Action) -> tuple[Msg, Msg]:
    """The Wrath confirmation (spec §11 Prompts: "show the knock candidates for the chosen
    aim and the off-table chance before confirming"): the throw, the dice within the knock
    radius of the aim point (or in the aim zone) with their values and the chance each is
    knocked, the off-table chance and its penalty (§6 wrath: minus a roll of the target's
    faces, D10); and the Throw button. ``aim none`` knocks nothing (D8)."""
    target, aim = action["target"], action["aim"]
    options = state["options"]
    head = {"target": die_ref(target, state["dice"][target]), "value": rules.value(state, target)}
    if aim == "none":
        throw = msg("confirm.gentle", **head)
    else:
        near = rules.knock_candidates(state, target, rules.aim_landing(state, aim))
        aimed = (msg("aim.zone", zone=zone_ref(aim)) if not rules.spatial(state)
                 else msg("confirm.aim_die", die=die_value(state, aim), where=where_ref(state, aim)))
        knocks = (msg("confirm.knocks", dice=", ".join(die_value(state, d) for d in near),
                      percent=round(options["wrath_knock_prob"] * 100))
                  if near else msg("confirm.knocks_none"))
        zone_or_radius = (msg("confirm.in_zone") if not rules.spatial(state)
                          else msg("confirm.in_radius", radius=options["wrath_knock_radius"]))
        throw = msg("confirm.aimed", **head, aim=aimed, near=zone_or_radius, knocks=knocks)
    off = msg("confirm.off_table", percent=round(options["wrath_off_table_prob"] * 100),
              faces=FACES[target])
    return msg("confirm.wrath", throw=throw, off=off), msg("label.throw")


def _wrath_prompt(state: State) -> Msg:
    return msg("prompt.wrath", sin=sin_term("wrath"),
               percent=round(state["options"]["wrath_off_table_prob"] * 100))


def _ask(sin: str) -> Callable[[State], Msg]:
    return lambda state: msg(f"prompt.{sin}", sin=sin_term(sin))


# -- Pride (§5.3): nothing at its reveal; in R4 each pick is one table die


def _pride_options(state: State, seat: Seat) -> list[Action]:
    return [{"type": "pride", "die": d}
            for d in sorted(rules.table_dice(state), key=lambda d: rules.single_key(state, d))]


def _pride_apply(state: State, seat: Seat, action: Action, events: list[Event]) -> bool:
    die = action["die"]
    events.append(Event("pride_pick", params={"seat": seat_ref(seat), "sin": sin_term("pride"),
                                              "die": die_value(state, die)}))
    take(state, seat, [die])
    return True


def _singles(choose: Callable[[State, Seat], list[str]], kind: TakeKind) -> Callable[[State, Seat], list[Action]]:
    return lambda state, seat: [{"type": kind, "die": d} for d in choose(state, seat)]


SIN_TABLE: dict[str, SinEffect] = {
    "greed": SinEffect(
        "greed", "reveal",
        options=lambda state, seat: [{"type": "greed", "dice": p} for p in rules.greed_options(state)],
        apply=_apply_take("greed"), label=_label_take, prompt=_ask("greed"),
        rule="Greed takes two table dice showing the same value."),
    "gluttony": SinEffect(
        "gluttony", "reveal",
        options=_singles(lambda state, seat: rules.gluttony_options(state), "gluttony"),
        apply=_apply_take("gluttony"), label=_label_take, prompt=_ask("gluttony"),
        rule="Gluttony takes a table die with the highest value."),
    "envy": SinEffect(
        "envy", RESOLVES["envy"], options=_no_options, apply=_not_at_reveal, label=_label_take,
        prompt=_ask("envy"), rule="Envy is scored at the end of the round."),
    "lust": SinEffect(
        "lust", "reveal",
        options=lambda state, seat: [{"type": "lust", "dice": p} for p in rules.lust_options(state, seat)],
        apply=_apply_take("lust"), label=_label_take, prompt=_ask("lust"),
        rule="Lust takes one odd and one even die, at least one from the table, "
             "the other from the table or another player's card."),
    "pride": SinEffect(
        "pride", RESOLVES["pride"], options=_pride_options, apply=_pride_apply, label=_label_take,
        prompt=_ask("pride"),
        rule="You can only take a die that is lying on the table (not locked)."),
    "sloth": SinEffect(
        "sloth", "reveal", options=_singles(rules.sloth_options, "sloth"),
        apply=_apply_take("sloth"), label=_label_take, prompt=_ask("sloth"),
        rule="Sloth takes a table die from the nearest zone holding one."),
    "wrath": SinEffect(
        "wrath", "reveal", options=_wrath_options, apply=_wrath_apply, label=_wrath_label,
        path=_wrath_path, prompt=_wrath_prompt, confirm=_wrath_confirm,
        rule="Wrath targets a black die not on your card and aims at another die (or a zone), or none."),
}
"""Every sin card by id (spec §2.2, §5.3)."""

if set(SIN_TABLE) != set(SINS):
    raise RuntimeError("engines.carnival.effects: SIN_TABLE must hold exactly the sins of carnival.json")
if any(SIN_TABLE[s].when != RESOLVES[s] for s in SINS):
    raise RuntimeError("engines.carnival.effects: SIN_TABLE timing differs from carnival.json")


def effect_of(action: Action) -> SinEffect | None:
    """The table entry whose choice ``action`` is (``{"type": "greed", ...}``), else None."""
    return SIN_TABLE.get(str(action.get("type")))
