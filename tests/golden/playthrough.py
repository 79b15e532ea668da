"""The readable text of a golden playthrough (tests/golden/<game_id>-<seed>.txt).

Layout (one line per item, UTF-8):

    # <game_id> seed <seed>, <n> players, options {...}
    seats: A Ann · B 李白 · ...
    public = {compact sorted JSON}            the views before the first move
    private A = {...}
    #1 A Ann: <notation>  {action JSON}      a move (chance: "#2 chance: ...")
      prompt: <formatted prompt>
      event public: <formatted event>
      event 🔒 B: <event only B sees>
      public players[0].score = 3              what changed in the public view
      private B hand = [...]                   what changed in B's view
    … 120 log entries not shown (#81–#200) …
    end: scores [...] ranking A B winners A
    reason: <formatted end reason>
    final public = {...}

Views are shown whole at the start and the end, and as changed paths in between (a
dict key, or a list index when the list kept its length), so a rules change shows as a
few changed lines in review. Only the first ``HEAD`` and the last ``TAIL`` log entries
are written, to keep each file small.
"""

from __future__ import annotations

import json
from typing import Any

from bot.text import Texts
from engines.base import CHANCE, Engine, Event, GameError, Seat, State, seat_letter
from engines.notation import Notation
from tests.golden.cases import Case, play

HEAD = 80
"""Log entries written from the start of the game."""

TAIL = 20
"""Log entries written from the end of the game."""

REMOVED = "(removed)"


def dumps(value: Any) -> str:
    """Compact JSON with sorted keys, non-ASCII kept readable."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def changes(old: Any, new: Any, path: str = "") -> list[tuple[str, Any]]:
    """The changed places between two JSON values, as ``(path, new value)`` pairs in
    sorted key order; a removed dict key has the value ``REMOVED``. Dicts are compared
    key by key, lists of equal length item by item; anything else is replaced whole."""
    if old == new:
        return []
    if isinstance(old, dict) and isinstance(new, dict):
        out: list[tuple[str, Any]] = []
        for key in sorted(set(old) | set(new), key=str):
            sub = f"{path}.{key}" if path else str(key)
            if key not in new:
                out.append((sub, REMOVED))
            elif key not in old:
                out.append((sub, new[key]))
            else:
                out += changes(old[key], new[key], sub)
        return out
    if isinstance(old, list) and isinstance(new, list):
        return _list_changes(old, new, path)
    return [(path, new)]


def _list_changes(old: list[Any], new: list[Any], path: str) -> list[tuple[str, Any]]:
    """Item by item for equal lengths; items added at or removed from either end as
    ``path[i]`` / ``path[i:j]`` lines; anything else replaced whole."""
    n, m = len(old), len(new)
    if n == m:
        out: list[tuple[str, Any]] = []
        for i, (a, b) in enumerate(zip(old, new, strict=True)):
            out += changes(a, b, f"{path}[{i}]")
        return out
    if m > n and new[:n] == old:
        return [(f"{path}[{i}]", new[i]) for i in range(n, m)]
    if m > n and new[m - n:] == old:
        return [(f"{path}[0:{m - n}] inserted", new[: m - n])]
    if m < n and old[:m] == new:
        return [(f"{path}[{m}:{n}]", REMOVED)]
    if m < n and old[n - m:] == new:
        return [(f"{path}[0:{n - m}]", REMOVED)]
    return [(path, new)]


def _who(seat: Seat, names: list[str]) -> str:
    return "chance" if seat == CHANCE else f"{seat_letter(seat)} {names[seat]}"


def _audience(event: Event) -> str:
    if event.visible_to is None:
        return "public"
    seats = " ".join(seat_letter(s) for s in sorted(event.visible_to))
    return f"🔒 {seats or 'nobody'}"


def _notation(notation: Notation, state: State, seat: Seat, action: dict[str, Any]) -> str:
    try:
        return notation.describe_action(state, action)
    except GameError:
        if seat == CHANCE:  # the protocol does not ask engines to describe chance outcomes
            return "-"
        raise


class _Views:
    """The last written view of each viewer (``None`` = public), to write only changes."""

    def __init__(self, engine: Engine, players: int) -> None:
        self.engine = engine
        self.viewers: list[Seat | None] = [None, *range(players)]
        self.last: dict[Seat | None, Any] = {}

    @staticmethod
    def title(viewer: Seat | None) -> str:
        return "public" if viewer is None else f"private {seat_letter(viewer)}"

    def whole(self, state: State) -> list[str]:
        lines = []
        for viewer in self.viewers:
            view = self.engine.player_view(state, viewer)
            lines.append(f"{self.title(viewer)} = {dumps(view)}")
            self.last[viewer] = view
        return lines

    def changed(self, state: State) -> list[str]:
        """Changed paths of every view; a private view lists only the changes the
        public view does not already show."""
        lines = []
        public: set[str] = set()
        for viewer in self.viewers:
            view = self.engine.player_view(state, viewer)
            for path, value in changes(self.last.get(viewer), view):
                shown = value if value == REMOVED else dumps(value)
                line = f"{path or '(whole)'} = {shown}"
                if viewer is None:
                    public.add(line)
                elif line in public:
                    continue
                lines.append(f"  {self.title(viewer)} {line}")
            self.last[viewer] = view
        return lines


def playthrough(case: Case) -> str:
    """The golden text of ``case`` (see the module docstring).

    Raises:
        AssertionError: the game did not end (``tests.golden.cases.MAX_STEPS``).
        GameError: the engine refused a move it offered.
    """
    engine = case.engine
    names = case.names
    texts = Texts(case.game_id, names)
    views = _Views(engine, case.players)
    lines = [
        f"# {case.game_id} seed {case.seed}, {case.players} players, options {dumps(case.options)}",
        "# written by `make golden` (python -m tests.golden.generate); a diff here is a rules change",
        "seats: " + " · ".join(_who(s, names) for s in range(case.players)),
    ]
    steps = list(play(case))
    first = engine.new_game(case.players, case.seed, case.options)
    lines += views.whole(first)
    hidden_from = HEAD
    hidden_to = max(HEAD, len(steps) - TAIL)
    for step in steps:
        if hidden_from <= step.index < hidden_to:
            if step.index == hidden_from:
                lines.append(f"… {hidden_to - hidden_from} log entries not shown "
                             f"(#{hidden_from + 1}–#{hidden_to}) …")
            continue
        notation = _notation(case.notation, step.before, step.seat, step.action)
        lines.append(f"#{step.index + 1} {_who(step.seat, names)}: {notation}  {dumps(step.action)}")
        if step.seat != CHANCE:
            lines.append(f"  prompt: {texts(case.notation.prompt(step.before, step.seat))}")
            label = texts(case.notation.action_label(step.before, step.action))
            if label != notation:
                lines.append(f"  label: {label}")
        lines += [f"  event {_audience(e)}: {texts.event(e)}" for e in step.events]
        lines += views.changed(step.after)
    final = steps[-1].after if steps else first
    outcome = engine.outcome(final)
    if outcome is None:
        lines.append("end: none")
    else:
        ranking = " ".join(seat_letter(s) for s in outcome.ranking)
        winners = " ".join(seat_letter(s) for s in sorted(outcome.winners))
        lines.append(f"end after {len(steps)} log entries: scores {dumps(list(outcome.scores))} "
                     f"ranking {ranking} winners {winners}")
        lines.append(f"reason: {texts(outcome.reason)}")
    lines.append(f"final public = {dumps(engine.player_view(final, None))}")
    return "\n".join(lines) + "\n"
