"""The engine protocol every game implements (design §3).

An engine is a stateless object; all game data lives in a ``State``: a plain
JSON-ready ``dict`` (str keys; values are str, int, float, bool, None, lists and
dicts of those). Actions are small JSON-ready dicts with a ``"type"`` key, e.g.
``{"type": "choose", "sin": "lust"}``. Events are ``Event`` values that carry who
may see them. Randomness is the ``CHANCE`` seat: while ``to_move(state) ==
{CHANCE}`` the host calls ``sample_chance`` and applies the outcome like any
action, so the action log is the save file.

Errors are raised, never returned: ``GameError`` and its four subclasses each carry
a stable ``code``, the ``params`` that filled the message, and an English message a
player can read. The host shows them privately and changes nothing.
"""

from __future__ import annotations

import copy
import json
import marshal
import math
import random
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import (
    Any,
    ClassVar,
    Final,
    Generic,
    SupportsFloat,
    SupportsInt,
    TypeAlias,
    TypedDict,
    TypeVar,
    cast,
)

Seat = int
"""A player's seat: 0..n-1 in the order the host lists the players."""

CHANCE: Final[int] = -1
"""The seat of randomness (dice, shuffles, draws, timeouts that pick at random)."""

NO_TIMER: Final[int] = 365 * 86400
"""What ``Engine.timeout_seconds`` returns for a decision without a move timer (e.g. Ora's
solo game, docs/rules/ora.md §11): a year, the abandonment horizon only. The host shows no
deadline for a window this long (``bot.ui.panels.timer_shown``)."""

JSON: TypeAlias = "str | int | float | bool | None | list[JSON] | dict[str, JSON]"
"""A JSON-ready value: what states, actions, views and message params are made of."""

JSONObject: TypeAlias = dict[str, JSON]
"""A JSON object (a dict with str keys and JSON-ready values)."""

OptionValue: TypeAlias = str | int | float | bool
"""An option's value after ``OptionSpec.coerce``."""

State = dict[str, Any]
"""A game state at the host's side of the engine protocol: a plain JSON-ready dict. Each
game types its own (``engines/<game>/types.py``). Engines never mutate a state they were given."""

S = TypeVar("S", bound=Mapping[str, object])
"""A game's state type (a TypedDict of ``engines/<game>/types.py``)."""

A = TypeVar("A", bound=Mapping[str, object])
"""A game's action type (the union of its action TypedDicts)."""

V = TypeVar("V", bound=Mapping[str, object])
"""A game's view type (what ``player_view`` returns, the renderer's input)."""


T = TypeVar("T")


def present(value: T | None, what: str) -> T:
    """``value``, which the state's phase guarantees is set (``what`` says why); an
    ``AssertionError`` naming ``what`` on a state that breaks that promise."""
    assert value is not None, what
    return value


def copy_state(state: T) -> T:
    """A deep copy of ``state`` (a JSON-ready dict, see ``State``, or any JSON-ready value), about four times faster
    than ``copy.deepcopy``: ``marshal`` round-trips the built-in types (objects that appear
    twice stay shared, as with ``deepcopy``); a value ``marshal`` cannot write (not JSON-ready)
    falls back to ``copy.deepcopy``. Engines' ``apply`` copies with it (the AI's playouts,
    engines/ai/search.py, spend most of their time there)."""
    try:
        copied: T = marshal.loads(marshal.dumps(cast(JSONObject, state)))
    except ValueError:
        return copy.deepcopy(state)
    return copied

Action = dict[str, Any]
"""An action: a JSON-ready dict with at least ``"type"``. Compared by equality."""


# --------------------------------------------------------------------------- errors


class GameError(Exception):
    """Base of every rules error.

    Attributes:
        code: stable machine-readable code (``"illegal_action"``, ``"not_your_turn"``, ...).
        message: English sentence for the player ("You can only take a table die.").
        params: the values the message talks about (JSON-ready).
    """

    code: ClassVar[str] = "game_error"

    def __init__(self, message: str, *, code: str | None = None, **params: object) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code  # type: ignore[misc]
        self.params = params

    def __str__(self) -> str:
        return self.message


class InvalidOptions(GameError):
    """An option key is unknown or its value is outside the allowed values."""

    code = "invalid_options"


class NotYourTurn(GameError):
    """The seat is not among ``to_move(state)``."""

    code = "not_your_turn"


class IllegalAction(GameError):
    """The action is malformed or not legal in this state."""

    code = "illegal_action"


class GameOver(GameError):
    """The game has ended; no action is accepted."""

    code = "game_over"


class InvalidState(GameError):
    """A stored state or a scripted chance outcome failed validation."""

    code = "invalid_state"


# --------------------------------------------------------------------------- values


SEAT_LETTERS: Final[str] = "ABCDEF"
"""Seat badges, seat 0 = ``A``: the one seat naming shared by every game (notation and
image badges; text shows display names, see ``Msg``)."""


def seat_letter(seat: Seat) -> str:
    """The badge letter of ``seat`` (0 → ``"A"``).

    Raises:
        ValueError: ``seat`` is not 0..5.
    """
    if not 0 <= seat < len(SEAT_LETTERS):
        raise ValueError(f"no seat letter for seat {seat}")
    return SEAT_LETTERS[seat]


def seat_ref(seat: Seat) -> dict[str, int]:
    """A message parameter that names a seat: ``{"seat": 2}``. The host replaces it by
    the player's display name (design §3: no state holds display text)."""
    return {"seat": int(seat)}


def seats_ref(seats: Iterable[Seat]) -> dict[str, list[int]]:
    """A message parameter that names several seats, in seat order: ``{"seats": [0, 2]}``;
    the host writes "Ann and Cy"."""
    return {"seats": sorted(int(s) for s in seats)}


def term(key: str) -> dict[str, str]:
    """A message parameter that is a game term (``term("sin.lust")``): the host writes the
    published name of that term in the reader's language (catalog key ``term.<key>``)."""
    return {"term": key}


@dataclass(frozen=True)
class Msg:
    """A sentence, label or prompt as a kind plus parameters (design §3: "Events,
    prompts and labels are a kind plus parameters; the host formats them").

    Attributes:
        key: catalog key inside the game's namespace (``"prompt.choose_sin"``) or the
            host's (``"host.your_move"``); the host looks it up in ``bot/text/``.
        params: JSON-ready values: numbers, strings (notation, never prose),
            ``seat_ref``/``seats_ref``/``term`` dicts, nested ``Msg.to_json()`` dicts, or
            lists of those.

    ``Msg`` compares by value; ``to_json``/``from_json`` round-trip.
    """

    key: str
    params: Mapping[str, object] = field(default_factory=dict)
    _plain_data: ClassVar[bool] = False
    """Set on a message ``msg`` made of plain JSON data only (``_plain``): nested in another, its
    JSON form holds these very parameters."""

    def to_json(self) -> JSONObject:
        """``{"msg": key, "params": {...}}`` (a fresh copy of the params: flat ones of strings and
        numbers copied directly, the others through JSON, ``json_copy``; the same result)."""
        params = self.params
        if all(type(k) is str and type(v) in _FLAT for k, v in params.items()):
            return {"msg": self.key, "params": cast(JSONObject, dict(params))}
        return {"msg": self.key, "params": json_copy(dict(params))}

    @classmethod
    def from_json(cls, obj: object) -> Msg:
        """Inverse of ``to_json``.

        Raises:
            InvalidState: not a message object.
        """
        if not isinstance(obj, Mapping) or not isinstance(obj.get("msg"), str):
            raise InvalidState("A message must be an object with a 'msg' key.")
        return cls(str(obj["msg"]), dict(obj.get("params") or {}))


def msg(key: str, **params: object) -> Msg:
    """Shorthand: ``msg("event.picked", seat=seat_ref(1))``. A ``Msg`` value among the
    params is stored as its JSON form, so it can nest: the form of a message ``msg`` made of
    plain JSON data only (``_plain``) holds that message's own parameters, not a copy of them
    (messages are never changed), so a message nested three deep is not copied three times."""
    values: dict[str, object] = {}
    plain = True
    for k, v in params.items():
        if type(v) in _FLAT:
            values[k] = v
        elif isinstance(v, Msg):
            if v._plain_data:
                values[k] = {"msg": v.key, "params": v.params}
            else:
                values[k] = v.to_json()
        else:
            values[k] = v
            plain = plain and _plain(v)
    made = Msg(key, values)
    if plain:
        object.__setattr__(made, "_plain_data", True)
    return made


def _plain(value: object) -> bool:
    """Whether ``value`` is plain JSON data that a trip through JSON gives back equal and of the
    same types: ``_FLAT`` values, dicts with string keys and lists of such (not tuples, which
    come back as lists, nor subclasses)."""
    kind = type(value)
    if kind in _FLAT:
        return True
    if kind is dict:
        return all(type(k) is str and (type(v) in _FLAT or _plain(v)) for k, v in cast("dict[object, object]", value).items())
    if kind is list:
        return all(type(v) in _FLAT or _plain(v) for v in cast("list[object]", value))
    return False


Text = Msg | str
"""What the text hooks return: a ``Msg`` (every engine after the engine-shape change) or,
for the transition only, an English string with ``{p0}`` placeholders."""


@dataclass(frozen=True)
class Event:
    """Something that happened, for the log and the notifications.

    Construct with keywords only: ``Event("picked", params={"seat": seat_ref(1)},
    visible_to=frozenset({1}))``.

    Attributes:
        kind: short stable name (``"reveal"``, ``"roll"``, ``"round_scored"``); the host
            formats it with the catalog key ``event.<kind>`` of the game.
        params: JSON-ready parameters of the message (see ``Msg``).
        visible_to: seats that may see it; ``None`` means public.
        text / data: legacy fields of events stored before the engine-shape change
            (an English line with ``{p0}`` placeholders); ``params`` is ``None`` there.
    """

    kind: str
    text: str = ""
    data: Mapping[str, object] = field(default_factory=dict)
    visible_to: frozenset[Seat] | None = None
    params: Mapping[str, object] | None = None

    @property
    def message(self) -> Text:
        """The event as a message: ``Msg("event.<kind>", params)``; for a legacy event its
        English text."""
        if self.params is None:
            return self.text
        return Msg(f"event.{self.kind}", self.params)

    def visible(self, seat: Seat | None) -> bool:
        """True when ``seat`` (``None`` = public/spectator) may see this event."""
        return self.visible_to is None or (seat is not None and seat in self.visible_to)

    def to_json(self) -> JSONObject:
        """Plain JSON form (visible_to as a sorted list or None)."""
        out: JSONObject = {"kind": self.kind}
        if self.params is None:
            out |= {"text": self.text, "data": json_copy(dict(self.data))}
        else:
            out["params"] = json_copy(dict(self.params))
        out["visible_to"] = None if self.visible_to is None else cast("list[JSON]", sorted(self.visible_to))
        return out

    @classmethod
    def from_json(cls, obj: Mapping[str, object]) -> Event:
        """Inverse of ``to_json``; also reads events stored before the engine-shape change."""
        vis = cast("list[int] | None", obj.get("visible_to"))
        visible_to = None if vis is None else frozenset(int(s) for s in vis)
        if "params" in obj:
            params = cast("Mapping[str, object] | None", obj["params"])
            return cls(kind=str(obj["kind"]), params=dict(params or {}), visible_to=visible_to)
        return cls(
            kind=str(obj["kind"]),
            text=str(obj.get("text", "")),
            data=dict(cast("Mapping[str, object] | None", obj.get("data")) or {}),
            visible_to=visible_to,
        )


class OutcomeJSON(TypedDict):
    """``Outcome.to_json()``: the outcome's fields as JSON (``reason`` a ``Msg.to_json()``, or a
    legacy English string)."""

    scores: list[float]
    ranking: list[int]
    winners: list[int]
    reason: JSONObject | str


@dataclass(frozen=True)
class Outcome:
    """The end of a game.

    Attributes:
        scores: final score per seat (index = seat).
        ranking: seats best first; tied seats keep seat order.
        winners: the seats that share the win.
        reason: why it ended as it did, a ``Msg`` (``"reason.best_round"`` with the
            winner and the score); a legacy English string only during the transition.
    """

    scores: tuple[float, ...]
    ranking: tuple[Seat, ...]
    winners: frozenset[Seat]
    reason: Text

    def to_json(self) -> OutcomeJSON:
        """Plain JSON form."""
        return {
            "scores": list(self.scores),
            "ranking": list(self.ranking),
            "winners": sorted(self.winners),
            "reason": self.reason.to_json() if isinstance(self.reason, Msg) else self.reason,
        }


@dataclass(frozen=True)
class OptionSpec:
    """One game option (design §3 option schema).

    Attributes:
        key: the option key as the spec names it (``"table_model"``).
        default: the default value.
        choices: allowed values for enumerated options (empty for numeric ranges).
        minimum / maximum: inclusive bounds for numeric options.
        kind: ``"choice"``, ``"int"``, ``"float"`` or ``"bool"``.
        description: one English line for the lobby and ``/game rules``.
    """

    key: str
    default: OptionValue
    kind: str = "choice"
    choices: tuple[OptionValue, ...] = ()
    minimum: float | None = None
    maximum: float | None = None
    description: str = ""

    def allowed(self) -> str:
        """Human description of the allowed values."""
        if self.kind == "choice":
            return ", ".join(str(c) for c in self.choices)
        if self.kind == "bool":
            return "true, false"
        return f"{self.kind} from {self.minimum} to {self.maximum}"

    def allowed_msg(self) -> Msg:
        """``allowed`` as a message for the reader's language (bot/text/en/refusal.toml):
        the choices, ``true, false``, or ``refusal.option_range``."""
        if self.kind == "choice":
            return Msg("host.notation", {"text": ", ".join(str(c) for c in self.choices)})
        if self.kind == "bool":
            return Msg("host.notation", {"text": "true, false"})
        return msg("refusal.option_range", kind=Msg(f"refusal.kind_{self.kind}"), minimum=self.minimum,
                   maximum=self.maximum)

    def coerce(self, value: object) -> OptionValue:
        """Return ``value`` converted to this option's type (``int()`` and ``float()`` refuse what
        they cannot convert with the errors caught here).

        Raises:
            InvalidOptions: naming the key and the allowed values.
        """
        bad = InvalidOptions(
            f"Option '{self.key}' cannot be {value!r}; allowed: {self.allowed()}.",
            key=self.key,
            value=str(value),
            allowed=self.allowed(),
            text=Msg("refusal.option_value", {"key": self.key, "value": str(value)[:40],
                                               "allowed": self.allowed_msg().to_json()}).to_json(),
        )
        try:
            if self.kind == "choice":
                for c in self.choices:
                    if str(c).lower() == str(value).strip().lower():
                        return c
                raise bad
            if self.kind == "bool":
                if isinstance(value, bool):
                    return value
                text = str(value).strip().lower()
                if text in ("true", "yes", "1", "on"):
                    return True
                if text in ("false", "no", "0", "off"):
                    return False
                raise bad
            if self.kind == "int":
                if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
                    raise bad
                num: float = int(str(value).strip()) if isinstance(value, str) else int(cast("SupportsInt", value))
            else:
                if isinstance(value, bool):
                    raise bad
                num = float(value.strip() if isinstance(value, str) else cast("SupportsFloat", value))
                if not math.isfinite(num):
                    raise bad
        except (TypeError, ValueError, OverflowError):
            raise bad from None
        if (self.minimum is not None and num < self.minimum) or (
            self.maximum is not None and num > self.maximum
        ):
            raise bad
        return num


@dataclass(frozen=True)
class EngineInfo:
    """Facts a game declares about itself (design §3 ``EngineInfo``).

    Attributes:
        game_id: registry key (``"carnival"``).
        name: English display name.
        native_name: name in the seed's language (``"罪のカーニバル"``).
        min_players / max_players: inclusive player-count range.
        options: the option schema, in display order.
        has_hidden_info: True when some state is secret from some seat.
        state_version: bumped when the state layout changes; stored states of an
            older version are refused with ``InvalidState``.
        preferences: per-player settings a player may pre-set (e.g. Heaven's
            ``auto_defend``), read by ``Engine.auto_action``.
    """

    game_id: str
    name: str
    native_name: str
    min_players: int
    max_players: int
    options: tuple[OptionSpec, ...] = ()
    has_hidden_info: bool = False
    state_version: int = 1
    preferences: tuple[OptionSpec, ...] = ()

    def option(self, key: str) -> OptionSpec:
        """The ``OptionSpec`` for ``key``; ``KeyError`` when unknown."""
        for spec in self.options:
            if spec.key == key:
                return spec
        raise KeyError(key)

    def defaults(self) -> dict[str, OptionValue]:
        """Every option at its default value."""
        return {spec.key: spec.default for spec in self.options}


def validate_options(info: EngineInfo, options: Mapping[str, object] | None) -> dict[str, OptionValue]:
    """Fill defaults and check every option (design §3 ``new_game``).

    Returns:
        A new dict with every key of ``info.options``, values coerced to their type.

    Raises:
        InvalidOptions: an unknown key (naming the known keys) or a bad value
            (naming the key and the allowed values).
    """
    result = info.defaults()
    known = {spec.key for spec in info.options}
    for key, value in (options or {}).items():
        if key not in known:
            raise InvalidOptions(
                f"Unknown option '{key}' for {info.name}; known options: "
                f"{', '.join(sorted(known)) or 'none'}.",
                key=key,
                known=sorted(known),
                text=Msg("refusal.option_unknown", {
                    "key": str(key)[:40],
                    "known": ", ".join(sorted(known)) or Msg("refusal.option_none").to_json()}).to_json(),
            )
        result[key] = info.option(key).coerce(value)
    return result


def check_player_count(info: EngineInfo, players: int) -> None:
    """Raise ``InvalidOptions`` unless ``min_players <= players <= max_players``."""
    if not isinstance(players, int) or not info.min_players <= players <= info.max_players:
        raise InvalidOptions(
            f"{info.name} needs {info.min_players}–{info.max_players} players, not {players}.",
            key="players",
            value=players,
            text=msg("refusal.player_count", game=Msg(f"ui.game.{info.game_id}"), min=info.min_players,
                     max=info.max_players, n=players).to_json(),
        )


_FLAT = frozenset({str, int, float, bool, type(None)})
"""The param value types ``Msg.to_json`` copies as they are (JSON gives back equal values)."""


class _NotPlain(Exception):
    """A value ``_plain_copy`` leaves to JSON (a key that is not a string, a type of its own)."""


def _plain_copy(value: Any) -> Any:
    """A deep copy of plain JSON data (dicts with string keys, lists and tuples, and the
    ``_FLAT`` types), equal to what a trip through JSON gives (tuples become lists).

    Raises:
        _NotPlain: anything else (a subclass of str or int too: JSON may write it otherwise).
    """
    kind = type(value)
    if kind in _FLAT:
        return value
    if kind is dict:
        out = {}
        for k, v in value.items():
            if type(k) is not str:
                raise _NotPlain
            out[k] = v if type(v) in _FLAT else _plain_copy(v)
        return out
    if kind is list or kind is tuple:
        return [v if type(v) in _FLAT else _plain_copy(v) for v in value]
    raise _NotPlain


def json_copy(obj: object) -> JSONObject:
    """A deep copy of a JSON-ready dict as a trip through JSON gives it (tuples become lists,
    it checks that ``obj`` is serialisable): plain data copied directly (``_plain_copy``, a
    third of the trip's cost: a panel's labels nest messages, ``msg``), the rest through JSON.

    Raises:
        TypeError: ``obj`` holds something JSON cannot encode.
    """
    try:
        copied: JSONObject = _plain_copy(obj)
    except (_NotPlain, RecursionError):
        copied = json.loads(json.dumps(obj))
    return copied


def normalize_text(text: str) -> str:
    """Lower-case and fold whitespace: the comparison form of action notation."""
    return re.sub(r"\s+", " ", text.strip().lower())


# --------------------------------------------------------------------------- engine


class GameEngine(Generic[S, A, V]):
    """Base class of every game engine (design §3): the rules. Subclasses set ``info`` and
    implement the abstract methods; the rest have working defaults. What a reader sees of a
    move (notation, prompts, labels, steps, confirmations) lives on the game's
    ``engines.notation.Notation``, which the registry pairs with the engine.

    Every method is a pure function of its arguments: no method mutates a state
    it was given, and the same inputs give the same outputs.
    """

    info: ClassVar[EngineInfo]

    # -- lifecycle ------------------------------------------------------------
    def new_game(self, players: int, seed: int, options: Mapping[str, object] | None = None) -> S:
        """Return the initial state for ``players`` seats.

        ``seed`` is stored by the host, not needed by the engine (chance is sampled
        by the host); engines must not put it in the state.

        Raises:
            InvalidOptions: bad player count, unknown option key, value out of range.
        """
        raise NotImplementedError

    def to_move(self, state: S) -> frozenset[Seat]:
        """Seats that may act now: one, several (simultaneous choices, reaction
        windows), ``{CHANCE}`` when randomness is pending, empty when the game is over."""
        raise NotImplementedError

    def legal_actions(self, state: S, seat: Seat) -> Sequence[A]:
        """Every legal action of ``seat`` in a deterministic order (empty when the
        seat is not to move). For ``CHANCE`` it may be empty (continuous outcomes)."""
        raise NotImplementedError

    def sample_chance(self, state: S, rng: random.Random) -> A:
        """Sample the pending chance outcome with ``rng``. Only valid while
        ``CHANCE`` is to move; raises ``NotYourTurn`` otherwise."""
        raise NotImplementedError

    def apply(self, state: S, seat: Seat, action: A) -> tuple[S, tuple[Event, ...]]:
        """Validate and apply ``action`` by ``seat``; return the new state and events.

        Raises:
            GameOver: the game has ended.
            NotYourTurn: ``seat`` is not to move.
            IllegalAction: malformed or illegal action (also for invalid scripted
                chance outcomes).
        """
        raise NotImplementedError

    def outcome(self, state: S) -> Outcome | None:
        """The final result, or ``None`` while the game goes on."""
        raise NotImplementedError

    def scores(self, state: S) -> tuple[float, ...]:
        """Current public score per seat (what a scoreboard shows)."""
        raise NotImplementedError

    def player_view(self, state: S, seat: Seat | None) -> V:
        """JSON-ready view for ``seat``; ``None`` is the public/spectator view, which
        holds no secret. Renderers and every channel message use only views."""
        raise NotImplementedError

    # -- host hooks (defaults suit most games) ---------------------------------
    def replay_stages(self, state: S, seat: Seat, action: A) -> list[tuple[S, tuple[Event, ...]]]:
        """The states a replay shows for one log entry, each with the events that led to it
        from the one before (``/game replay``, ``bot.service.GameService.replay_steps``).
        Default: ``[apply(state, seat, action)]``. An engine whose one entry plays a stretch
        by itself may pause in it (Carnival: round 7's table after its roll, before its
        automatic reveals, docs/rules/carnival.md E14); the last stage is ``apply``'s result
        and the events of the stages, in order, are ``apply``'s events.

        Raises:
            GameError: as ``apply``.
        """
        return [self.apply(state, seat, action)]

    def undoable(self, before: S, seat: Seat, action: A, after: S) -> bool:
        """Whether the spec lets ``seat`` take back ``action`` (applied to ``before``,
        giving ``after``) at all; the host's own checks (docs/DESIGN.md §4: no one else acted,
        nothing revealed or drawn, ``bot.service.GameService.undo_candidate``) come on top.
        Default: True. An engine whose spec makes some actions final although they reveal
        nothing hidden says so here (Carnival: a pick is final once every player has picked,
        docs/rules/carnival.md §5.4)."""
        return True

    def reveals(self, before: S, seat: Seat, action: A, after: S) -> bool:
        """Whether ``action`` of ``seat`` (applied to ``before``, giving ``after``) drew,
        rolled or showed anyone something hidden from them: a card of a hand, a face-down
        pick or choice, the order of a deck (docs/DESIGN.md §4: no undo once something was
        revealed or drawn; ``bot.service.GameService.undo_candidate``). Each engine declares
        it from its spec's hidden information; a chance step is an entry of its own and
        needs no declaration. The conformance suite checks the declaration on every move of
        seeded playouts against ``shuffle_hidden``: some state ``before`` a viewer cannot
        tell apart where the action is refused or its view after it differs
        (tests/engines/reveal_oracle.py). Default: False, which is right for an engine
        without hidden information (``shuffle_hidden``'s default); an engine with hidden
        information overrides it. Kept apart from ``undoable`` (the spec's finality)."""
        return False

    def timeout_action(self, state: S, seat: Seat) -> A:
        """What is played for ``seat`` when its move timer expires (each spec's
        Digital play notes). Default: its first legal action.

        Raises:
            NotYourTurn: the seat is not to move.
        """
        self._check_can_act(state, seat)
        actions = self.legal_actions(state, seat)
        if not actions:
            raise NotYourTurn("Nothing to play for this seat.", seat=seat)
        return copy.deepcopy(actions[0])

    def timeout_seconds(self, state: S, seats: frozenset[Seat], default: int) -> int:
        """How many seconds the host waits for ``seats`` before it plays their
        ``timeout_action`` (design §5 Time control). Default: the game's move timer
        ``default``; a spec's own timeout options (e.g. a reaction window) override it."""
        return default

    def auto_action(self, state: S, seat: Seat, preferences: Mapping[str, object]) -> A | None:
        """A move the host plays at once for ``seat`` because of the player's pre-set
        ``preferences`` (keys of ``info.preferences``, values coerced), or None to ask
        the player. The returned action must be legal. Default: None."""
        return None

    def shuffle_hidden(self, state: S, seat: Seat | None, rng: random.Random) -> S:
        """Return a state that differs from ``state`` only in what ``seat`` cannot see
        (``None``: what the public cannot see), for the no-leak conformance test.
        Games without hidden information return an equal copy."""
        return copy_state(state)

    # -- JSON codecs ------------------------------------------------------------
    def action_to_json(self, action: A) -> JSONObject:
        """Plain JSON form of an action (a deep copy)."""
        return json_copy(action)

    def action_from_json(self, obj: object) -> A:
        """Validate the shape of a stored action (a dict with a str ``type``).

        Raises:
            IllegalAction: not a dict with a ``type``.
        """
        if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
            raise IllegalAction("An action must be an object with a 'type'.", code="malformed_action")
        return cast(A, json_copy(obj))

    def state_to_json(self, state: S) -> JSONObject:
        """Plain JSON form of a state (a deep copy)."""
        return json_copy(state)

    def upgrade_action(self, obj: JSONObject, state_version: int) -> JSONObject:
        """Rewrite an action stored under an older ``state_version`` into today's shape
        (default: unchanged). With ``upgrade_state`` absent, the host rebuilds an old
        game's snapshot by replaying its log through this hook (design §4: the log is
        the truth, the snapshot a cache)."""
        return obj

    def state_from_json(self, obj: object) -> S:
        """Load a stored state and check its game and version.

        Raises:
            InvalidState: not a dict, another game's state, or an old ``state_version``.
        """
        if not isinstance(obj, dict):
            raise InvalidState("A stored state must be an object.")
        if obj.get("game") != self.info.game_id:
            raise InvalidState(f"S belongs to {obj.get('game')!r}, not {self.info.game_id!r}.")
        if obj.get("state_version") != self.info.state_version:
            raise InvalidState(
                f"S version {obj.get('state_version')!r} is not {self.info.state_version}."
            )
        return cast(S, json_copy(obj))

    # -- helpers for subclasses ---------------------------------------------------
    def _check_can_act(self, state: S, seat: Seat) -> None:
        """Raise ``GameOver`` / ``NotYourTurn`` unless ``seat`` is to move."""
        if self.outcome(state) is not None:
            raise GameOver("The game is over.")
        if seat not in self.to_move(state):
            raise NotYourTurn("It is not your turn.", seat=seat)


View = dict[str, Any]
"""A view at the host's side of the engine protocol (``player_view``'s JSON-ready dict)."""

Engine: TypeAlias = GameEngine[State, Action, View]
"""An engine of any game as the host holds it: states, actions and views as plain JSON dicts
(the registry loads each game's ``ENGINE``, typed by its own ``types.py``, as one of these)."""


def replay(
    engine: Engine,
    players: int,
    seed: int,
    options: Mapping[str, object] | None,
    log: Iterable[tuple[Seat, Action]],
) -> State:
    """Rebuild a state from ``new_game`` and a log of ``(seat, action)`` pairs (seat
    may be ``CHANCE``). Raises what ``apply`` raises when the log is inconsistent."""
    state = engine.new_game(players, seed, options)
    for seat, action in log:
        state, _ = engine.apply(state, seat, action)
    return state


def rank_seats(scores: Sequence[float], *tiebreaks: Sequence[float]) -> tuple[Seat, ...]:
    """Seats ordered best first by score, then by each tie-break sequence (higher
    is better), then by seat number."""
    seats = range(len(scores))
    return tuple(
        sorted(seats, key=lambda s: (tuple(-t[s] for t in (scores, *tiebreaks)), s))
    )
