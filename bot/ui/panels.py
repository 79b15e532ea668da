"""Build messages from engine views: lobby and board embeds, button rows and the
private "Play" panel of a seat's legal actions (design §5: every action by taps).

A panel shows the engine's ``prompt`` and its legal actions: as buttons when there are
at most ``MAX_BUTTONS``; as select menus of 25 (paginated) when more; and in two steps
through the steps of ``Notation.action_path`` (``engines/decisions.py``) for long lists.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import discord
from cachetools import LRUCache

from bot.service import seat_names, texts
from bot.storage import GameRecord
from bot.text import LOCALES, Texts
from bot.ui.components import ActionButton, ActionSelect, BoardButton, LobbyButton, NavButton
from bot.ui.limits import (
    BUTTON_LABEL,
    BUTTONS_PER_ROW,
    EMBED_DESCRIPTION,
    EMBED_TITLE,
    ROWS,
    SELECT_LABEL,
    SELECT_OPTIONS,
    clip,
    distinct_labels,
    pages,
)
from bot.ui.lobby_options import AiLobbySelect, option_rows, option_text, value_text
from engines.base import NO_TIMER, Engine, Msg, State, seat_letter
from engines.decisions import Choice, DecisionTree
from engines.notation import Notation
from engines.registry import get as get_engine
from engines.registry import notation as get_notation

MAX_BUTTONS = 20
"""At most this many actions are shown as buttons (4 rows of 5; the 5th row navigates)."""

COLOUR = 0x6B3FA0

NAV_KEYS = ("ui.button.prev", "ui.button.next", "ui.button.back")
NAV_LABELS = ("◀ Prev", "Next ▶", "◀ Back")
"""Labels of the panel's paging and back buttons (everything else on a panel is a choice),
in English; ``nav_labels`` has them in every language."""


def nav_labels() -> frozenset[str]:
    """The paging and back labels in every catalog language."""
    return frozenset(Texts(None, [], lang)(Msg(key)) for lang in LOCALES for key in NAV_KEYS)


@dataclass
class Panel:
    """A private panel: text and components (``view`` is None when nothing to click);
    ``prompt``: its bold prompt line (``pointing_at_picture`` puts a line after it)."""

    content: str
    view: discord.ui.View | None
    prompt: str = ""


NUMBERED = re.compile(r"\d+\s")
"""The start of a choice that names a numbered candidate of the decision's picture ("3 · +2 coins",
E Guan's "5 ↓180° · Evil 3")."""


def numbered(view: discord.ui.View | None) -> bool:
    """Whether a panel's ``view`` offers a choice named by a number of the picture (``NUMBERED``):
    a button's label or a select option's."""
    for item in view.children if view is not None else []:
        inner = getattr(item, "item", item)  # (a persistent item wraps its button or select)
        labels = [getattr(inner, "label", None) or ""] + [o.label for o in getattr(inner, "options", [])]
        if any(NUMBERED.match(label) for label in labels):
            return True
    return False


def pointing_at_picture(content: str, prompt: str, locale: str = "en",
                        view: discord.ui.View | None = None) -> str:
    """A panel's ``content`` with a line after its ``prompt`` line (the whole line, as in
    ``Panel.prompt``) saying that the numbers of its choices are those of the decision's picture
    attached below (``render_decision``'s numbered candidates, "3 · +2 coins…"); at the end when
    the prompt line is not found. ``content`` as it is when ``view`` is given and names no number
    (a first step of kinds: the numbers come one step later)."""
    if view is not None and not numbered(view):
        return content
    line = Texts(None, [], locale)(Msg("ui.panel.picture"))
    lines = content.split("\n")
    at = lines.index(prompt) + 1 if prompt and prompt in lines else len(lines)
    return "\n".join([*lines[:at], line, *lines[at:]])


def game_title(engine: Engine, record: GameRecord, locale: str = "en") -> str:
    """``"Carnival of Sins (罪のカーニバル) #12"`` (``ui.title`` in ``locale``)."""
    tx = Texts(None, [], locale)
    return clip(tx(Msg("ui.title", {"game": {"msg": f"ui.game.{engine.info.game_id}"}, "id": record.id})),
                EMBED_TITLE)


def mention_list(record: GameRecord, seats: Sequence[int], locale: str = "en") -> str:
    """``"<@1>, <@2>"`` for the users at ``seats`` (an AI's seat by its name in ``locale``)."""
    names = seat_names(record, locale)
    bots = {s.seat: names[s.seat] for s in record.seats if s.is_bot}  # (an AI seat has no user to mention)
    return ", ".join(f"**{bots[s]}**" if s in bots else f"<@{record.user_of(s)}>"
                     for s in sorted(seats) if record.user_of(s))


def vacation_note(record: GameRecord, seat: int, locale: str = "en") -> str:
    """``" · 🏖 3 vacation days"`` for a player who set some in the lobby (``/game vacation``,
    bot/ui/clock.py), ``""`` otherwise."""
    if str(record.user_of(seat)) not in record.vacations:
        return ""
    days = record.vacation_left(seat)
    return Texts(None, [], locale)(Msg("ui.lobby.vacation_one" if days == 1 else "ui.lobby.vacation", {"n": days}))


def lobby_embed(engine: Engine, record: GameRecord, timeout_label: str, locale: str = "en") -> discord.Embed:
    """The lobby: players, options, timer and how to start (in ``locale``: the server's)."""
    info = engine.info
    tx = Texts(None, [], locale)
    names = seat_names(record, locale)
    players = "\n".join(f"{i + 1}. {f'🤖 {names[i]}' if s.is_bot else f'<@{s.user_id}>'}"
                        f"{vacation_note(record, s.seat, locale)}"
                        for i, s in enumerate(record.seats)) or "—"

    game_tx = Texts(info.game_id, [], locale)
    changed = [(spec, record.options[spec.key]) for spec in info.options
               if spec.key in record.options and record.options[spec.key] != spec.default]
    opts = tx(Msg("host.comma")).join(
        game_tx(Msg("options.label", {"name": option_text(game_tx, spec)[0], "value": value_text(game_tx, v, spec)}))
        for spec, v in changed) or tx(Msg("ui.lobby.defaults"))
    if record.status == "lobby":
        description = tx(Msg("ui.lobby.open", {"min": info.min_players, "max": info.max_players,
                                               "host": record.host_user_id}) if info.min_players != info.max_players
                         else Msg("ui.lobby.open_exact", {"n": info.min_players, "host": record.host_user_id}))
    else:
        description = tx(Msg(f"ui.lobby.{record.status}"))
    title = tx(Msg("ui.lobby.title", {"title": game_title(engine, record, locale)}))
    embed = discord.Embed(title=title, colour=COLOUR, description=description)
    embed.add_field(name=tx(Msg("ui.lobby.players", {"n": len(record.seats), "max": info.max_players})),
                    value=players, inline=True)
    embed.add_field(name=tx(Msg("ui.lobby.options")), value=clip(opts, 1024), inline=True)
    embed.add_field(name=tx(Msg("ui.lobby.timer")), value=timeout_label, inline=True)
    return embed


def lobby_view(record: GameRecord, locale: str = "en", key: str | None = None) -> discord.ui.View | None:
    """Join / Leave / Start buttons while the lobby is open, and the menus of its timer and
    options (``bot.ui.lobby_options``; ``key``: the option whose values are shown)."""
    if record.status != "lobby":
        return None

    view = discord.ui.View(timeout=None)
    for verb in ("join", "leave", "start"):
        view.add_item(LobbyButton(record.id, verb, locale))

    view.add_item(AiLobbySelect(record.id, locale))
    for item in option_rows(record, get_engine(record.game_id), key, locale):
        view.add_item(item)
    return view


def timer_shown(record: GameRecord) -> bool:
    """Whether the texts show ``record``'s deadline: it has one, the game is not paused (a
    paused game's timer stands still; resuming sets a new deadline) and its window is a move
    timer, not ``engines.base.NO_TIMER`` (a decision without a timer, e.g. Ora solo)."""
    return (record.deadline is not None and not record.paused
            and (record.deadline_window or record.move_timeout) < NO_TIMER)


def board_embed(engine: Engine, record: GameRecord, state: State | None, *, image_name: str,
                recent: Sequence[str] = (), locale: str = "en") -> discord.Embed:
    """The board message: title, who is waited for and why, recent public events, the image
    (in ``locale``: the server's)."""
    lines: list[str] = []
    tx = texts(record, locale)
    if record.status == "finished" and state is not None:
        outcome = engine.outcome(state)
        if outcome is not None:
            lines.append(tx(Msg("ui.board.game_over", {"reason": tx(outcome.reason)})))
    elif record.status == "abandoned":
        lines.append(tx(Msg("ui.board.ended_by_moderator")))
    elif state is not None:
        waiting = sorted(s for s in engine.to_move(state) if s >= 0)
        if waiting:
            prompt = tx(get_notation(record.game_id).public_prompt(state, waiting[0]))
            lines.append(tx(Msg("ui.board.waiting", {"who": mention_list(record, waiting, tx.locale), "prompt": prompt})))
            if record.deadline and timer_shown(record):
                lines.append(tx(Msg("ui.board.timer", {"when": f"<t:{int(record.deadline)}:R>"})))
        if record.paused:
            lines.append(tx(Msg("ui.board.paused")))
        if record.vacations:
            lines.append(tx(Msg("ui.board.vacations", {"days": " · ".join(
                f"{tx.name(s.seat)} {record.vacation_left(s.seat)}" for s in record.seats
                if str(s.user_id) in record.vacations)})))
    if recent:
        lines.append("")
        lines += [f"• {r}" for r in recent]
    embed = discord.Embed(title=game_title(engine, record, locale), colour=COLOUR,
                          description=clip("\n".join(lines), EMBED_DESCRIPTION))
    embed.set_image(url=f"attachment://{image_name}")
    # (an ended game has no Play button)
    embed.set_footer(text=tx(Msg("ui.board.footer" if record.status == "active" else "ui.board.footer_ended")))
    return embed


def board_view(record: GameRecord, *, play: bool = True, locale: str = "en",
               look: discord.ui.Item[Any] | None = None) -> discord.ui.View | None:
    """Play / My view / Log / Rules buttons for a running game (Log and Rules only after the end),
    and on a row of its own the board's "🔍 Look at…" select when given (``bot.ui.looks.board_look``)."""
    view = discord.ui.View(timeout=None)
    if record.status == "active" and play:
        view.add_item(BoardButton(record.id, record.version, "play", locale=locale))
        view.add_item(BoardButton(record.id, record.version, "hand", locale=locale))
    view.add_item(BoardButton(record.id, record.version, "log", locale=locale))
    view.add_item(BoardButton(record.id, record.version, "rules", locale=locale))
    if look is not None:
        view.add_item(look)
    return view


def build_panel(notation: Notation, record: GameRecord, state: State, seat: int, *, page: int = 0,
                path: tuple[int, ...] = (), note: str = "", locale: str = "en") -> Panel:
    """The private panel of ``seat``'s legal actions, one step of the game's
    ``DecisionTree`` (``engines/decisions.py``) at a time, with Back; an action's
    confirmation step shows the notation's summary above its one button.

    Args:
        page: the page of a long list (0-based).
        path: the steps taken so far (indices from the root; a stale path shows the root).
        note: a line shown above the prompt (e.g. "✓ You chose Lust.").
        locale: the reader's language.
    """
    tx = texts(record, locale)
    engine = notation.engine
    header = f"{note}\n" if note else ""
    you = tx(Msg("ui.panel.you", {"title": game_title(engine, record, locale), "letter": seat_letter(seat)}))
    tree = decision_tree(notation, state, seat)
    if not tree.actions:
        waiting = sorted(s for s in engine.to_move(state) if s >= 0)
        text = tx(Msg("ui.panel.nothing"))
        if waiting:
            text += tx(Msg("ui.panel.waiting", {"who": mention_list(record, waiting, tx.locale)}))
        return Panel(f"{header}{text}\n{you}", None)
    try:
        choices, trail = tree.node(path)
    except KeyError:
        path, page = (), 0
        choices, trail = tree.node(path)
    prompt = tx(notation.prompt(state, seat))
    title = " — ".join([prompt, *(tx(t) for t in trail)])
    view = discord.ui.View(timeout=None)
    inline = _inline_steps(tree, choices, path) if notation.inline_steps else []
    shown = [c for c in choices if all(c is not step for step, _ in inline)]
    steps = any(c.step is not None for c in shown)  # (a step shown as a select of its own opens nothing)
    lines = [f"{header}**{title}**"]
    prompt_line = lines[0].rpartition("\n")[2]
    summary = tree.summary(path)  # an action's confirmation step (Carnival's Wrath): what may happen
    if summary is not None:
        lines.append(tx(summary))
    if steps:
        lines.append(tx(Msg("ui.panel.steps")))
    lines.append(you)
    _add_choices(view, record.id, record.version, tx.plain(), shown, page, path,  # (labels are not markdown)
                 compact=bool(inline))
    for step, options in inline:
        assert step.step is not None
        view.add_item(ActionSelect(record.id, record.version, 0, _options(tx.plain(), options),
                                   tx.plain()(step.label).removesuffix(" ▸"), path=(*path, step.step)))
    if path:
        view.add_item(NavButton(record.id, record.version, 0, path[:-1], tx(Msg(NAV_KEYS[2]))))
    return Panel("\n".join(lines), view, prompt_line)


TREES_KEPT = 64
"""How many (state, seat) decision trees ``decision_tree`` remembers (the newest): a tree is
wanted again within one move or a few presses, and an entry keeps its state alive too (an
Illumination tree with its state is about 180 KB, so 64 entries stay under 12 MB)."""

_trees: LRUCache[tuple[int, int, int], tuple[Notation, State, DecisionTree]] = LRUCache(TREES_KEPT)


def decision_tree(notation: Notation, state: State, seat: int) -> DecisionTree:
    """``DecisionTree.of(notation, state, seat)``, built once per state object and seat (issue
    14: a move draws the mover's panel, then the parked panels and the Play presses of the
    same version; Carnival's Wrath confirmations alone cost 1.4 ms a tree). A hit needs the
    very same ``notation`` and ``state`` objects (the entry holds them, so their ids are not
    reused while it lives): the host's states are shared and read only
    (``GameService.state``: one parsed object per stored snapshot, a new one for every new
    version), and a tree holds no locale (its texts are ``Msg`` values). Nothing may change
    the returned tree (``build_panel`` only reads it)."""
    key = (id(notation), id(state), seat)
    hit = _trees.get(key)
    if hit is not None and hit[0] is notation and hit[1] is state:
        return hit[2]
    tree = DecisionTree.of(notation, state, seat)
    _trees[key] = (notation, state, tree)
    return tree


HINT_SEPARATOR = " — "
"""A legacy string label ``"Greed 貪欲 — Take 2 equal dice"`` is a name plus a hint."""


def _label_hint(tx: Texts, choice: Choice) -> tuple[str, str | None]:
    label = tx(choice.label)
    hint = tx(choice.hint) if choice.hint is not None else None
    if hint is None and isinstance(choice.label, str) and HINT_SEPARATOR in label:
        label, _, hint = label.partition(HINT_SEPARATOR)
    return label, hint or None


def _inline_steps(tree: DecisionTree, choices: list[Choice], path: tuple[int, ...]
                  ) -> list[tuple[Choice, list[Choice]]]:
    """The steps among ``choices`` (the node at ``path``) a panel shows as selects of their own
    (``Notation.inline_steps``), each with its options, in the node's order: of the steps whose
    options are all actions, at most ``SELECT_OPTIONS``, the largest (the first on a tie), as
    many as fit in ``ROWS`` beside the node's other choices (in one row: buttons, else a select,
    with a row of paging when it has more than ``SELECT_OPTIONS``), the Back button and the Undo
    button the host may add (``bot.ui.table.with_undo``): those two beside the buttons or in the
    paging row when there is room, else in a row of their own."""
    flat: list[tuple[Choice, list[Choice]]] = []
    for choice in choices:
        if choice.step is not None:
            options = tree.node((*path, choice.step))[0]
            if len(options) <= SELECT_OPTIONS and all(o.action is not None for o in options):
                flat.append((choice, options))
    flat.sort(key=lambda pair: -len(pair[1]))  # (stable: the first of equal size first)
    extra = 1 + bool(path)  # (the host's Undo button, ``bot.ui.table.with_undo``, and Back)
    for k in range(len(flat), 0, -1):
        rest = [c for c in choices if all(c is not step for step, _ in flat[:k])]
        buttons = len(rest) + extra <= BUTTONS_PER_ROW and all(  # (then Back and Undo go beside them)
            c.step is not None or (c.hint is None and not isinstance(c.label, str)) for c in rest)
        rows = (1 if rest else 0) + (len(rest) > SELECT_OPTIONS)
        if not (buttons and rest) and len(rest) <= SELECT_OPTIONS:
            rows += 1  # (Back and Undo: beside the buttons or the paging, else a row of their own)
        if rows + k <= ROWS:
            return sorted(flat[:k], key=lambda pair: next(i for i, c in enumerate(choices) if c is pair[0]))
    return []


def _options(tx: Texts, choices: list[Choice]) -> list[discord.SelectOption]:
    """Select options for ``choices`` (an action's index, or ``s<k>`` for a step, marked ▸),
    their labels cut apart (``bot.ui.limits.distinct_labels``)."""
    shown = [(c, *_label_hint(tx, c)) for c in choices]
    labels = distinct_labels([f"{label} ▸" if choice.step is not None and not label.endswith("▸") else label
                              for choice, label, _ in shown], SELECT_LABEL)  # (a step's own label may end in ▸)
    out = []
    for (choice, _, hint), label in zip(shown, labels, strict=True):
        if choice.step is not None:
            out.append(ActionSelect.option(f"s{choice.step}", label, hint))
        else:
            assert choice.action is not None
            out.append(ActionSelect.option(str(choice.action), label, hint))
    return out


def _add_choices(view: discord.ui.View, game: int, version: int, tx: Texts, choices: list[Choice],
                 page: int, path: tuple[int, ...], *, compact: bool = False) -> None:
    """Buttons (≤ MAX_BUTTONS short labels, no hints; ≤ BUTTONS_PER_ROW when ``compact``: one
    row, other selects follow) or a paginated select, plus Prev/Next. Steps are always buttons
    (a node has at most MAX_BUTTONS steps) or, when there are more, select options that open
    the step. Labels over Discord's limit are cut so that the choices of one panel still read
    apart (``bot.ui.limits.distinct_labels``)."""
    if not choices:
        return
    shown = [(c, *_label_hint(tx, c)) for c in choices]
    hinted = any(hint for _, _, hint in shown)
    if (len(shown) <= (BUTTONS_PER_ROW if compact else MAX_BUTTONS)
            and (not hinted or all(c.step is not None for c, _, _ in shown))):
        labels = distinct_labels([label for _, label, _ in shown], BUTTON_LABEL)
        for (choice, _, _), label in zip(shown, labels, strict=True):
            if choice.step is not None:
                view.add_item(NavButton(game, version, 0, (*path, choice.step), label,
                                        discord.ButtonStyle.primary))
            else:
                assert choice.action is not None
                view.add_item(ActionButton(game, version, choice.action, label))
        return
    total = pages(len(shown), SELECT_OPTIONS)
    page = max(0, min(page, total - 1))
    chunk = shown[page * SELECT_OPTIONS:(page + 1) * SELECT_OPTIONS]
    placeholder = tx(Msg("ui.panel.choose_page", {"page": page + 1, "pages": total}) if total > 1
                     else Msg("ui.panel.choose"))
    view.add_item(ActionSelect(game, version, page, _options(tx, [c for c, _, _ in chunk]), placeholder, path=path))
    if total > 1:
        view.add_item(NavButton(game, version, max(0, page - 1), path, tx(Msg(NAV_KEYS[0])), disabled=page == 0))
        view.add_item(NavButton(game, version, min(total - 1, page + 1), path, tx(Msg(NAV_KEYS[1])),
                                disabled=page >= total - 1))


def offered_choices(components: list[dict[str, Any]]) -> list[tuple[str, str, str | None]]:
    """What a posted panel offers, read back from its message payload's ``components``:
    ``(kind, custom_id, value)`` with kind ``"button"`` (an action), ``"select"`` (one
    option of an action select, ``value`` set) or ``"group"`` (a step of a multi-step
    choice: a button, or a select option when ``value`` is set). Disabled items and paging/back buttons are left out. Used by the test
    driver, the playground tools and the benchmark."""
    out: list[tuple[str, str, str | None]] = []
    nav = nav_labels()
    for row in components:
        for c in row.get("components", [row]):
            cid = c.get("custom_id", "")
            if c.get("disabled"):
                continue
            if cid.startswith("a:"):
                out.append(("button", cid, None))
            elif cid.startswith("as:"):
                out += [("group" if o["value"].startswith("s") else "select", cid, o["value"])
                        for o in c.get("options", [])]
            elif cid.startswith("n:") and c.get("label") not in nav:
                out.append(("group", cid, None))
    return out
