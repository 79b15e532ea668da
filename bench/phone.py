"""What a phone shows: the phone-first layout limits of every game's images, and the taps a turn
takes (docs/DISCORD.md "Phone limits").

Usage: ``python -m bench.phone [game_id …] [--details] [--taps]``

Images: for every game and player count (min..max), a seeded playout (``SEED``; uniformly random
legal actions, as the golden games are played: tests/golden/cases.py) gives the states drawn:

* ``board``: the public board at ``BOARD_POINTS`` of the playout (start once the opening chance is
  done, quarters, end);
* ``private``: every seat's private view at mid-game (games with ``render_private``);
* ``decision``: the pending decisions the game draws a picture for (``draws_decision``), the first
  of each prompt (``Notation.prompt``'s key) along the playout, at most ``DECISIONS`` a count;
* ``zoom``: every region of ``zoom_regions`` of the public view and of seat A's private view at
  mid-game, drawn by ``render_zoom`` (games that have them);
* ``dm``: the DM turn notice's board at mid-game (``render_thumbnail``; a game without one sends
  its board, measured as ``board``);

each in every language (``bot.text.LOCALES``), with the names of tests/golden/cases.py ``NAMES``,
and at the largest player count also with ``LONG_NAME`` in seat A (boards at mid-game, private
views, the DM board). Each image's layout is recorded (tests/render/text_sizes.py ``layout``) and
checked: effective text size ≥ ``BOARD_FLOOR`` (≥ ``DECISION_FLOOR`` on decision and zoom images),
no overlapping strings, no string outside its panel or the image, no '…' cut but inside a name
longer than 16 characters, board height spread ≤ 10 % (per player count, language and names),
and in Chinese and Japanese no Latin code letters without a legend.

Taps: over the same playouts played to the end (of two players or more: a solo game is one run of
decisions, its panel never waits for anyone), the interactions of each turn (a seat's run of
decisions while the game awaits it; others' moves in between, e.g. simultaneous choices, and
chance do not end it; a new unit of the rulebook, where ``Notation.replay_marks`` changes (a turn
of Illumination or Ora, a round), ends every turn under way, so a seat that plays on while the
other has passed takes one turn per turn of the rulebook: ``turn_taps``): one Play ▶ press (``bot/ui/moves.py``: after a pick the
panel redraws itself in place with the seat's next decision, so a run needs one press: a turn that
goes on from the same seat's run takes none; a panel parked while others play is not counted on,
its token lasts 15 minutes), then for each decision
the fewest presses through the real private panel (``bot.ui.panels.build_panel``: buttons, select
choices, steps, paging, the confirmation step of ``Notation.has_confirm``) to the action played; a decision the host plays at
once with the game's default preferences (``Engine.auto_action``: Heaven's advance and draw,
Illumination's discard that leaves no choice) takes no press.
Random play takes optional actions a player seldom takes (Illumination's Abbot moved again and
again), so its turns run longer than a person's.

One line per game::

    <game_id> size=<kind:w×h[-h]…> min_eff=<px> decision_min=<px> overlaps=<n> outside=<n> cut=<n>
    height=<min-max px,+spread%> latin=<n> taps=<median> ok|FAIL(<limits missed>)

The exit status is 1 when any game misses a limit. ``--details`` gives the count of each kind of
violation and lists them (kind, language, image, text, boxes), the same text of one kind once with
how many times and in which languages it was found (small texts: by image kind and font size),
and the taps by prompt; ``--taps`` prints only the table of taps per turn (turns, median, mean,
largest; with ``--details`` the presses of each prompt's decisions too).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any

from tests.render.text_sizes import (
    BOARD_FLOOR,
    DECISION_FLOOR,
    HEIGHT_SPREAD,
    PHONE,
    Layout,
    cut_labels,
    height_spread,
    latin_codes,
    layout,
    least_size,
    outside,
    overlaps,
    small_texts,
)

if TYPE_CHECKING:
    from bot.storage import GameRecord

SEED = 2
"""The seed of every playout (the golden games' seed 2)."""

LONG_NAME = "Bartholomew Kingsley"
"""A 20-character player name (seat A of the long-name set)."""

BOARD_POINTS = (0.0, 0.25, 0.5, 0.75, 1.0)
"""Where along a playout the boards are drawn (0: once the opening chance is done; 1: the end)."""

DECISIONS = 4
"""At most this many decision images per player count and language."""

TAPS_LIMIT = 4.0
"""Largest median of taps per turn."""

DECISION_KINDS = frozenset({"decision", "zoom"})
"""Image kinds attached to a decision (or drawn at phone size for one reader): ``DECISION_FLOOR``."""


@dataclass(frozen=True)
class Drawing:
    """One image to measure: ``kind``, a ``label`` naming the state, the language, the names and
    ``draw`` (returns the image or None)."""

    kind: str
    label: str
    lang: str
    names: tuple[str, ...]
    players: int
    draw: Callable[[], Any]


@dataclass(frozen=True)
class Measured:
    """A drawing and its layout, or the ``error`` its drawing raised."""

    drawing: Drawing
    layout: Layout
    error: str = ""


@dataclass
class Violation:
    """One miss: ``check`` (small, overlap, outside, cut, latin, or error: the drawing raised),
    where, and what."""

    check: str
    where: str
    lang: str
    text: str
    boxes: str
    group: str = ""
    """What ``--details`` lists violations of one kind under (small texts: the image kind and font size)."""


@dataclass
class GameReport:
    """Everything ``bench.phone`` says about one game."""

    game_id: str
    sizes: dict[str, tuple[set[int], int, int]] = field(default_factory=dict)
    min_eff: float | None = None
    decision_min: float | None = None
    violations: list[Violation] = field(default_factory=list)
    heights: tuple[int, int] = (0, 0)
    spread: float = 0.0
    spread_at: str = ""
    taps: list[int] = field(default_factory=list)

    def count(self, check: str) -> int:
        return sum(1 for v in self.violations if v.check == check)

    @property
    def taps_median(self) -> float:
        return statistics.median(self.taps) if self.taps else 0.0

    def missed(self) -> list[str]:
        """The limits this game misses (empty: it passes)."""
        out = []
        if self.min_eff is not None and self.min_eff < BOARD_FLOOR - 1e-9:
            out.append("min_eff")
        if self.decision_min is not None and self.decision_min < DECISION_FLOOR - 1e-9:
            out.append("decision_min")
        out += [check for check in ("overlap", "outside", "cut", "latin", "error") if self.count(check)]
        if self.spread > HEIGHT_SPREAD + 1e-9:
            out.append("height")
        if self.taps_median > TAPS_LIMIT:
            out.append("taps")
        return out

    def layout_missed(self) -> list[str]:
        """The layout limits missed (``missed`` without taps)."""
        return [m for m in self.missed() if m != "taps"]

    def line(self) -> str:
        sizes = ",".join(f"{kind}:{'/'.join(map(str, sorted(widths)))}×{lo}" + (f"-{hi}" if hi != lo else "")
                         for kind, (widths, lo, hi) in self.sizes.items())
        missed = self.missed()
        return (f"{self.game_id} size={sizes} min_eff={_px(self.min_eff)} decision_min={_px(self.decision_min)} "
                f"overlaps={self.count('overlap')} outside={self.count('outside')} cut={self.count('cut')} "
                f"height={self.heights[0]}-{self.heights[1]}px,+{self.spread:.0%} latin={self.count('latin')} "
                f"taps={self.taps_median:g} " + ("ok" if not missed else f"FAIL({','.join(missed)})"))


def _px(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


# -- playouts -------------------------------------------------------------------------------


@cache
def playout(game_id: str, players: int) -> tuple[list[Any], list[Any]]:
    """``(states, steps)`` of the seeded playout of ``game_id`` with ``players`` seats: the state
    before the first entry and after each, and the log entries (tests/golden/cases.py ``Step``)."""
    from tests.golden.cases import Case, initial_state, play

    case = Case(game_id, SEED, players)
    steps = list(play(case))
    return [initial_state(case)] + [s.after for s in steps], steps


def player_counts(game_id: str) -> range:
    from engines.registry import ENGINES

    info = ENGINES[game_id].info
    return range(info.min_players, info.max_players + 1)


def games() -> list[str]:
    from engines.registry import ENGINES

    return list(ENGINES)


# -- images ---------------------------------------------------------------------------------


def drawings(game_id: str) -> list[Drawing]:
    """Every image ``bench.phone`` measures for ``game_id`` (see the module docstring)."""
    from bot.text import LOCALES, Texts
    from engines.base import CHANCE
    from engines.registry import ENGINES
    from render import registry
    from tests.golden.cases import NAMES

    engine = ENGINES[game_id]
    module = registry.module(game_id)
    out: list[Drawing] = []
    counts = player_counts(game_id)
    for players in counts:
        states, _ = playout(game_id, players)
        opened = next((i for i, s in enumerate(states) if CHANCE not in engine.to_move(s)), 0)
        at = {f"{round(p * 100)}%": states[opened + round(p * (len(states) - 1 - opened))] for p in BOARD_POINTS}
        mid = at["50%"]
        name_sets = [tuple(NAMES[:players])]
        if players == counts[-1]:
            name_sets.append((LONG_NAME, *NAMES[1:players]))
        decisions = _decision_states(game_id, states)
        for lang in LOCALES:
            for names in name_sets:
                long = names[0] == LONG_NAME
                tx = Texts(game_id, list(names), lang)
                tag = f"{players}p" + (" long" if long else "")

                def add(kind: str, label: str, draw: Callable[[], Any], names: tuple[str, ...] = names,
                        tag: str = tag, lang: str = lang, players: int = players) -> None:
                    out.append(Drawing(kind, f"{kind} {tag} {label}", lang, names, players, draw))

                for label, state in at.items():
                    if long and label != "50%":
                        continue
                    add("board", label, _bind(registry.board_image, game_id, engine.player_view(state, None),
                                              names, tx))
                if hasattr(module, "render_private"):
                    for seat in range(players) if not long else (0,):
                        add("private", f"mid seat {seat}", _bind(registry.private_image, game_id,
                                                                 engine.player_view(mid, seat), names, tx))
                if hasattr(module, "render_thumbnail"):
                    add("dm", "mid", _bind(registry.thumbnail_image, game_id, engine.player_view(mid, None), names, tx))
                if long:
                    continue
                for label, state, seat in decisions:
                    add("decision", label, _bind(registry.decision_image, game_id, engine.player_view(state, seat),
                                                 names, tx))
                if hasattr(module, "zoom_regions") and hasattr(module, "render_zoom"):
                    seen: set[str] = set()
                    for reader, view in (("public", engine.player_view(mid, None)), ("A", engine.player_view(mid, 0))):
                        for region, _ in module.zoom_regions(view):
                            if region in seen:
                                continue
                            seen.add(region)
                            add("zoom", f"mid {region} ({reader})", _zoom(module.render_zoom, view, region, names, tx))
    return out


def _bind(function: Callable[..., Any], game_id: str, view: Any, names: Sequence[str], tx: Any) -> Callable[[], Any]:
    return lambda: function(game_id, view, list(names), tx)


def _zoom(function: Callable[..., Any], view: Any, region: str, names: Sequence[str], tx: Any) -> Callable[[], Any]:
    return lambda: function(view, region, names=list(names), text=tx)


def _decision_states(game_id: str, states: list[Any]) -> list[tuple[str, Any, int]]:
    """``(label, state, seat)`` of the decisions drawn (``draws_decision``): the first of each
    prompt along the playout, at most ``DECISIONS``."""
    from engines.base import CHANCE
    from engines.registry import ENGINES, NOTATIONS
    from render import registry

    if not registry.has_decision(game_id):
        return []
    engine = ENGINES[game_id]
    out: list[tuple[str, Any, int]] = []
    prompts: set[str] = set()
    for index, state in enumerate(states):
        for seat in sorted(engine.to_move(state) - {CHANCE}):
            if not registry.draws_decision(game_id, engine.player_view(state, seat)):
                continue
            prompt = NOTATIONS[game_id].prompt(state, seat)
            key = getattr(prompt, "key", str(prompt))
            if key in prompts:
                continue
            prompts.add(key)
            out.append((f"step {index} seat {seat} {key}", state, seat))
            if len(out) >= DECISIONS:
                return out
    return out


@cache
def measured(game_id: str) -> tuple[Measured, ...]:
    """The layouts of every drawing of ``game_id`` (``drawings``) that draws an image."""
    out: list[Measured] = []
    for drawing in drawings(game_id):
        try:
            _, shown = layout(drawing.draw)
        except Exception as exc:  # (a renderer's failure is reported as one, not a crash of the bench)
            out.append(Measured(drawing, Layout(0, 0), f"{type(exc).__name__}: {exc}"))
            continue
        if shown is not None:
            out.append(Measured(drawing, shown))
    return tuple(out)


def _box(box: Sequence[int]) -> str:
    return "(" + ",".join(map(str, box)) + ")"


def check(game_id: str, items: Sequence[Measured]) -> GameReport:
    """The report of ``game_id``'s measured images (without taps)."""
    report = GameReport(game_id)
    heights: dict[tuple[int, str, tuple[str, ...]], list[int]] = {}
    for item in items:
        d, shown = item.drawing, item.layout
        if item.error:
            report.violations.append(Violation("error", d.label, d.lang, item.error, ""))
            continue
        widths, lo, hi = report.sizes.get(d.kind, (set(), shown.height, shown.height))
        widths.add(shown.width)
        report.sizes[d.kind] = (widths, min(lo, shown.height), max(hi, shown.height))
        decision = d.kind in DECISION_KINDS
        least = least_size(shown)
        if least is not None:
            if decision:
                report.decision_min = least if report.decision_min is None else min(report.decision_min, least)
            else:
                report.min_eff = least if report.min_eff is None else min(report.min_eff, least)
        floor = DECISION_FLOOR if decision else BOARD_FLOOR
        v = report.violations
        for t in small_texts(shown, floor):
            v.append(Violation("small", d.label, d.lang, t.text, _box(t.box),
                               f"{d.kind} {t.size}px on {shown.width}px = {t.size * PHONE / shown.width:.1f}"))
        for a, b in overlaps(shown):
            v.append(Violation("overlap", d.label, d.lang, f"{a.text!r} × {b.text!r}", f"{_box(a.box)} {_box(b.box)}"))
        for t, panel in outside(shown):
            where = f"image {shown.width}×{shown.height}" if panel is None else f"panel {_box(panel.box)}"
            v.append(Violation("outside", d.label, d.lang, t.text, f"{_box(t.box)} leaves {where}"))
        for t in cut_labels(shown, d.names):
            v.append(Violation("cut", d.label, d.lang, f"{t.text!r} ← {t.full!r}", _box(t.box)))
        if d.lang != "en":
            for t in latin_codes(shown, d.names):
                v.append(Violation("latin", d.label, d.lang, t.text, _box(t.box)))
        if d.kind == "board":
            heights.setdefault((d.players, d.lang, d.names), []).append(shown.height)
    every = [h for hs in heights.values() for h in hs]
    if every:
        report.heights = (min(every), max(every))
        worst = max(heights.items(), key=lambda kv: height_spread(kv[1]))
        report.spread = height_spread(worst[1])
        report.spread_at = f"{worst[0][0]}p {worst[0][1]}: {sorted(worst[1])}"
    return report


# -- taps -----------------------------------------------------------------------------------


def panel_record(game_id: str, players: int) -> GameRecord:
    """A running game of ``players`` seats of ``game_id``, for ``build_panel``."""
    from bot.storage import GameRecord, SeatRecord

    seats = tuple(SeatRecord(1, s, 1000 + s, f"P{s + 1}") for s in range(players))
    return GameRecord(id=1, game_id=game_id, guild_id=1, channel_id=2, thread_id=None, board_channel_id=None,
                      board_message_id=None, lobby_message_id=None, host_user_id=1000, status="active",
                      paused=False, seed=SEED, options={}, players=players, state={}, version=1,
                      move_timeout=86400, deadline=None, reminded=0, waiting=[], deadline_window=None,
                      created_at=0.0, updated_at=0.0, seats=seats)


def presses(notation: Any, record: Any, state: Any, seat: int, index: int) -> int:
    """The fewest presses in ``seat``'s private panel (``build_panel``) from its first page to
    legal action ``index``: each step, page or choice one press.

    Raises:
        LookupError: the panel offers no way to the action.
    """
    from bot.ui.components import ActionButton, ActionSelect, NavButton
    from bot.ui.panels import build_panel

    start: tuple[int, tuple[int, ...]] = (0, ())
    seen = {start}
    frontier: list[tuple[int, tuple[int, ...]]] = [start]
    depth = 0
    while frontier:
        depth += 1
        following: list[tuple[int, tuple[int, ...]]] = []
        for page, path in frontier:
            panel = build_panel(notation, record, state, seat, page=page, path=path)
            for item in panel.view.children if panel.view is not None else ():
                targets: list[tuple[int, tuple[int, ...]]] = []
                if isinstance(item, ActionButton):
                    if item.index == index:
                        return depth
                elif isinstance(item, NavButton):
                    if not item.item.disabled:
                        targets.append((item.page, item.path))
                elif isinstance(item, ActionSelect):
                    for option in item.item.options:
                        if option.value == str(index):
                            return depth
                        if option.value.startswith("s"):
                            targets.append((0, (*item.path, int(option.value[1:]))))
                for target in targets:
                    if target not in seen:
                        seen.add(target)
                        following.append(target)
        frontier = following
    raise LookupError(f"{notation.engine.info.game_id}: no way to action {index} in the panel of seat {seat}")


def turn_taps(notation: Any, record: Any, steps: Sequence[Any],
              by_prompt: dict[str, list[int]] | None = None) -> list[int]:
    """Presses per turn of ``steps`` (log entries: ``seat``, ``action``, ``before``, ``after``)
    played in the game of ``record``, in the order the turns begin. A seat's turn lasts while the
    game awaits it: from its first decision until a state (once chance is done: the host applies
    chance at once) that does not await it, or until the position's ``Notation.replay_marks`` mark
    differs from the one before (the rulebook's next turn or round); it counts one Play ▶ press and the ``presses`` of each
    of its decisions (other seats' moves in between do not end it: the panel redraws in place). A turn
    that follows the same seat's decision while the game awaited no other seat in between (its turns
    in a row once the other has passed) takes no Play ▶ press: the panel of that decision redrew
    itself in place with this one.
    A decision the host plays at once with the game's default preferences (``Engine.auto_action``,
    as ``bot.service.GameService`` does: Heaven's advance and draw, Illumination's discard that
    leaves no choice) takes no press and opens no turn.
    ``by_prompt`` (when given) gets the presses of each decision under its prompt's key."""
    from engines.base import CHANCE

    engine = notation.engine
    out: list[int] = []
    open_turns: dict[int, int] = {}  # seat -> its turn's index in out
    showing: int | None = None  # the seat whose panel shows the game's decision now (no Play ▶ needed)
    states = [steps[0].before, *(step.after for step in steps)] if steps else []
    marks = [None if m is None else m.to_json()
             for m in notation.replay_marks(states, [engine.player_view(st, None) for st in states])]
    defaults = {spec.key: spec.default for spec in engine.info.preferences}
    for i, step in enumerate(steps):
        if step.seat != CHANCE and not (defaults and engine.auto_action(step.before, step.seat, defaults)):
            actions = list(engine.legal_actions(step.before, step.seat))
            pressed = presses(notation, record, step.before, step.seat, actions.index(step.action))
            if step.seat not in open_turns:
                open_turns[step.seat] = len(out)
                out.append(0 if showing == step.seat else 1)  # Play ▶, unless its panel already shows this
            out[open_turns[step.seat]] += pressed
            if by_prompt is not None:
                prompt = notation.prompt(step.before, step.seat)
                by_prompt.setdefault(str(getattr(prompt, "key", prompt)), []).append(pressed)
        awaited = engine.to_move(step.after)
        if step.seat != CHANCE:
            showing = step.seat  # (its panel redraws in place with its next decision)
        if CHANCE not in awaited and showing not in awaited:
            showing = None  # (parked while others play: not counted on)
        if marks[i + 1] != marks[i]:  # a new unit of the rulebook (a turn) begins: every turn ends
            open_turns.clear()
            continue
        if CHANCE not in awaited:
            for seat in [s for s in open_turns if s not in awaited]:
                del open_turns[seat]
    return out


@cache
def taps_of(game_id: str) -> tuple[tuple[int, ...], dict[str, list[int]]]:
    """Presses per turn over the playouts of every player count (see the module docstring), and
    the presses of the decisions of each prompt (its key)."""
    from engines.registry import NOTATIONS

    out: list[int] = []
    by_prompt: dict[str, list[int]] = {}
    for players in player_counts(game_id):
        if players == 1:
            continue  # (a solo game is one run of decisions: its panel never waits for anyone)
        out += turn_taps(NOTATIONS[game_id], panel_record(game_id, players), playout(game_id, players)[1], by_prompt)
    return tuple(out), by_prompt


def taps(game_id: str) -> tuple[int, ...]:
    """Presses per turn over the playouts of every player count (``taps_of``)."""
    return taps_of(game_id)[0]


# -- the report -----------------------------------------------------------------------------


@cache
def report(game_id: str, with_taps: bool = True) -> GameReport:
    """The full report of ``game_id`` (cached)."""
    out = check(game_id, measured(game_id))
    if with_taps:
        out.taps = list(taps(game_id))
    return out


def taps_table(game_ids: Sequence[str], prompts: bool = False) -> str:
    """The taps per turn of each game (turns, median, mean, largest); with ``prompts``, below each
    game the presses of its decisions by prompt (decisions, mean presses, largest), most presses
    first."""
    lines = [f"{'game':<13}{'turns':>6}{'median':>8}{'mean':>7}{'max':>5}"]
    for game_id in game_ids:
        t, by_prompt = taps_of(game_id)
        lines.append(f"{game_id:<13}{len(t):>6}{statistics.median(t):>8g}{statistics.mean(t):>7.2f}{max(t):>5}")
        if prompts:
            for key, pressed in sorted(by_prompt.items(), key=lambda kv: -sum(kv[1])):
                lines.append(f"  {key:<40}{len(pressed):>6} decisions{statistics.mean(pressed):>6.2f} presses"
                             f" (max {max(pressed)})")
    return "\n".join(lines)


def details(r: GameReport) -> str:
    counts = Counter(v.check for v in r.violations)
    lines = [f"{r.game_id}: " + (", ".join(f"{k} {n}" for k, n in sorted(counts.items())) or "no violations")
             + (f"; height spread +{r.spread:.0%} at {r.spread_at}" if r.spread > HEIGHT_SPREAD else "")]
    groups: dict[tuple[str, str], list[Violation]] = {}
    for v in r.violations:
        groups.setdefault((v.check, v.group or v.text), []).append(v)
    for (check_, key), found in sorted(groups.items(), key=lambda kv: kv[0][0] == "small"):
        first = found[0]
        langs = ",".join(dict.fromkeys(v.lang for v in found))
        more = f" (×{len(found)}, {langs})" if len(found) > 1 else ""
        if first.group:
            texts = list(dict.fromkeys(v.text for v in found))
            shown = ", ".join(repr(t) for t in texts[:SHOWN_TEXTS]) + (", …" if len(texts) > SHOWN_TEXTS else "")
            lines.append(f"  {check_:<8} {key}{more}: {shown}; e.g. {first.lang} {first.where} {first.boxes}")
            continue
        lines.append(f"  {check_:<8} {first.lang:<6} {first.where}: {key} {first.boxes}{more}")
    return "\n".join(lines)


SHOWN_TEXTS = 12
"""How many of the small texts of one image kind and font size ``--details`` names."""


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.phone", description=__doc__.split("\n\n")[0])
    parser.add_argument("games", nargs="*", help="game ids (default: every game)")
    parser.add_argument("--details", action="store_true", help="list every violation")
    parser.add_argument("--taps", action="store_true", help="print only the table of taps per turn")
    args = parser.parse_args(argv)
    chosen = args.games or games()
    unknown = [g for g in chosen if g not in games()]
    if unknown:
        parser.error(f"unknown game ids: {', '.join(unknown)} (known: {', '.join(games())})")
    if args.taps:
        print(taps_table(chosen, prompts=args.details))
        return 1 if any(statistics.median(taps(g)) > TAPS_LIMIT for g in chosen) else 0
    reports = [report(g) for g in chosen]
    for r in reports:
        print(r.line(), flush=True)
    if args.details:
        print()
        for r in reports:
            print(details(r))
        print()
        print(taps_table(chosen, prompts=True))
    return 1 if any(r.missed() for r in reports) else 0


if __name__ == "__main__":
    sys.exit(main())
