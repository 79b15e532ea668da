"""Build messages from engine views: lobby and board embeds, button rows and the
private "Play" panel of a seat's legal actions (design §5: every action by taps).

A panel shows the engine's ``prompt`` and its legal actions: as buttons when there are
at most ``MAX_BUTTONS``; as select menus of 25 (paginated) when more; and in two steps
(first the ``action_group``, then the action) when the engine groups a long list.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import discord

from bot.service import format_names
from bot.storage import GameRecord
from bot.ui.components import ActionButton, ActionSelect, BoardButton, LobbyButton, NavButton
from bot.ui.limits import EMBED_DESCRIPTION, EMBED_TITLE, SELECT_OPTIONS, clip, pages
from engines.base import Engine, State

MAX_BUTTONS = 20
"""At most this many actions are shown as buttons (4 rows of 5; the 5th row navigates)."""

GROUP_THRESHOLD = 20
"""Lists longer than this are shown in two steps when the engine groups them."""

COLOUR = 0x6B3FA0

NAV_LABELS = ("◀ Prev", "Next ▶", "◀ Back")
"""Labels of the panel's paging and back buttons (everything else on a panel is a choice)."""


@dataclass
class Panel:
    """A private panel: text and components (``view`` is None when nothing to click)."""

    content: str
    view: discord.ui.View | None


def game_title(engine: Engine, record: GameRecord) -> str:
    """``"Carnival of Sins (罪のカーニバル) #12"``."""
    native = (f" ({engine.info.native_name})"
              if engine.info.native_name and engine.info.native_name != engine.info.name else "")
    return clip(f"{engine.info.name}{native} #{record.id}", EMBED_TITLE)


def mention_list(record: GameRecord, seats: Sequence[int]) -> str:
    """``"<@1>, <@2>"`` for the users at ``seats``."""
    return ", ".join(f"<@{record.user_of(s)}>" for s in sorted(seats) if record.user_of(s))


def lobby_embed(engine: Engine, record: GameRecord, timeout_label: str) -> discord.Embed:
    """The lobby: players, options, timer and how to start."""
    info = engine.info
    players = "\n".join(f"{i + 1}. <@{s.user_id}>" for i, s in enumerate(record.seats)) or "—"
    changed = {k: v for k, v in record.options.items() if v != info.defaults().get(k)}
    opts = ", ".join(f"{k}={v}" for k, v in changed.items()) or "defaults"
    if record.status == "lobby":
        description = (f"Open — press **Join**. {info.min_players}–{info.max_players} players.\n"
                       f"The host (<@{record.host_user_id}>) or a moderator presses **Start**.")
    else:
        description = {"active": "▶ Started — the game is in its thread (or below).",
                       "abandoned": "⛔ Closed.", "finished": "🏁 Finished."}[record.status]
    embed = discord.Embed(title=f"Lobby: {game_title(engine, record)}", colour=COLOUR, description=description)
    embed.add_field(name=f"Players ({len(record.seats)}/{info.max_players})", value=players, inline=True)
    embed.add_field(name="Options", value=clip(opts, 1024), inline=True)
    embed.add_field(name="Move timer", value=timeout_label, inline=True)
    return embed


def lobby_view(record: GameRecord) -> discord.ui.View | None:
    """Join / Leave / Start buttons while the lobby is open."""
    if record.status != "lobby":
        return None
    view = discord.ui.View(timeout=None)
    for verb in ("join", "leave", "start"):
        view.add_item(LobbyButton(record.id, verb))
    return view


def board_embed(engine: Engine, record: GameRecord, state: State | None, *, image_name: str,
                recent: Sequence[str] = ()) -> discord.Embed:
    """The board message: title, who is waited for and why, recent public events, the image."""
    lines: list[str] = []
    if record.status == "finished" and state is not None:
        outcome = engine.outcome(state)
        if outcome is not None:
            lines.append(f"🏁 **Game over.** {format_names(outcome.reason, record.names)}")
    elif record.status == "abandoned":
        lines.append("⛔ This game was ended by a moderator.")
    elif state is not None:
        waiting = sorted(s for s in engine.to_move(state) if s >= 0)
        if waiting:
            prompt = engine.prompt(state, waiting[0])
            lines.append(f"⏳ Waiting for {mention_list(record, waiting)}: {prompt}")
            if record.deadline:
                lines.append(f"Timer: <t:{int(record.deadline)}:R>")
        if record.paused:
            lines.append("⏸ Paused by a moderator.")
    if recent:
        lines.append("")
        lines += [f"• {r}" for r in recent]
    embed = discord.Embed(title=game_title(engine, record), colour=COLOUR,
                          description=clip("\n".join(lines), EMBED_DESCRIPTION))
    embed.set_image(url=f"attachment://{image_name}")
    embed.set_footer(text="Play ▶ opens your private move panel · My view shows your hand")
    return embed


def board_view(record: GameRecord, *, play: bool = True) -> discord.ui.View | None:
    """Play / My view / Log / Rules buttons for a running game (Log and Rules only after the end)."""
    view = discord.ui.View(timeout=None)
    if record.status == "active" and play:
        view.add_item(BoardButton(record.id, record.version, "play"))
        view.add_item(BoardButton(record.id, record.version, "hand"))
    view.add_item(BoardButton(record.id, record.version, "log"))
    view.add_item(BoardButton(record.id, record.version, "rules"))
    return view


def build_panel(engine: Engine, record: GameRecord, state: State, seat: int, *, page: int = 0,
                group: int | None = None, note: str = "") -> Panel:
    """The private panel of ``seat``'s legal actions.

    Args:
        page: the page of a long list (0-based).
        group: None = decide automatically; -1 = show the group list; -2 = ungrouped;
            k ≥ 0 = the actions of group k (groups in order of first appearance).
        note: a line shown above the prompt (e.g. "✓ You chose Lust.").
    """
    header = f"{note}\n" if note else ""
    you = f"*{game_title(engine, record)} · you are seat {'ABCDEF'[seat]}*"
    actions = list(engine.legal_actions(state, seat))
    if not actions:
        waiting = sorted(s for s in engine.to_move(state) if s >= 0)
        text = "Nothing for you to decide right now."
        if waiting:
            text += f" Waiting for {mention_list(record, waiting)}."
        return Panel(f"{header}{text}\n{you}", None)
    prompt = engine.prompt(state, seat)
    labels = [engine.action_label(state, a) for a in actions]
    groups = [engine.action_group(state, a) for a in actions]
    group_names = list(dict.fromkeys(g for g in groups if g is not None))
    view = discord.ui.View(timeout=None)
    version = record.version

    if group is None:
        two_step = 1 < len(group_names) <= MAX_BUTTONS and len(actions) > GROUP_THRESHOLD
        group = -1 if two_step else -2
    if group == -1 and 1 < len(group_names) <= MAX_BUTTONS:
        # step 1: choose a group
        lines = [f"{header}**{prompt}**", "Step 1 of 2 — pick one; its choices follow:", you]
        _add_choices(view, record.id, version,
                     [(i, name) for i, name in enumerate(group_names)], page, group, nav_groups=True)
        return Panel("\n".join(lines), view)
    indices = list(range(len(actions)))
    title = prompt
    if group >= 0:
        if group >= len(group_names):
            group = -2
        else:
            name = group_names[group]
            indices = [i for i in indices if groups[i] == name]
            title = f"{prompt} — {name}"
    choices = [(i, labels[i]) for i in indices]
    _add_choices(view, record.id, version, choices, page, group, nav_groups=False)
    if group >= 0:
        view.add_item(NavButton(record.id, version, 0, -1, NAV_LABELS[2]))
    return Panel(f"{header}**{title}**\n{you}", view)


HINT_SEPARATOR = " — "
"""An action label ``"Greed 貪欲 — Take 2 equal dice"`` is a name plus a hint: such lists
are shown as a select menu with the hint as each option's description."""


def _add_choices(view: discord.ui.View, game: int, version: int, choices: list[tuple[int, str]],
                 page: int, group: int, *, nav_groups: bool) -> None:
    """Buttons (≤ MAX_BUTTONS short labels) or a paginated select (long lists, or labels
    with hints), plus Prev/Next. With ``nav_groups`` the choices are groups (never more
    than MAX_BUTTONS, see build_panel) and always buttons."""
    hinted = any(HINT_SEPARATOR in label for _, label in choices)
    if nav_groups or (len(choices) <= MAX_BUTTONS and not hinted):
        for index, label in choices:
            if nav_groups:
                view.add_item(NavButton(game, version, 0, index, label, discord.ButtonStyle.primary))
            else:
                view.add_item(ActionButton(game, version, index, label))
        return
    total = pages(len(choices), SELECT_OPTIONS)
    page = max(0, min(page, total - 1))
    chunk = choices[page * SELECT_OPTIONS:(page + 1) * SELECT_OPTIONS]
    placeholder = f"Choose… (page {page + 1}/{total})" if total > 1 else "Choose…"
    options = []
    for index, label in chunk:
        name, _, hint = label.partition(HINT_SEPARATOR)
        options.append(ActionSelect.option(index, name, hint or None))
    view.add_item(ActionSelect(game, version, page, options, placeholder))
    if total > 1:
        view.add_item(NavButton(game, version, max(0, page - 1), group, NAV_LABELS[0], disabled=page == 0))
        view.add_item(NavButton(game, version, min(total - 1, page + 1), group, NAV_LABELS[1],
                                disabled=page >= total - 1))


def offered_choices(components: list[dict[str, Any]]) -> list[tuple[str, str, str | None]]:
    """What a posted panel offers, read back from its message payload's ``components``:
    ``(kind, custom_id, value)`` with kind ``"button"`` (an action), ``"select"`` (one
    option of an action select, ``value`` set) or ``"group"`` (step one of a two-step
    choice). Disabled items and paging/back buttons are left out. Used by the test
    driver, the playground tools and the benchmark."""
    out: list[tuple[str, str, str | None]] = []
    for row in components:
        for c in row.get("components", [row]):
            cid = c.get("custom_id", "")
            if c.get("disabled"):
                continue
            if cid.startswith("a:"):
                out.append(("button", cid, None))
            elif cid.startswith("as:"):
                out += [("select", cid, o["value"]) for o in c.get("options", [])]
            elif cid.startswith("n:") and c.get("label") not in NAV_LABELS:
                out.append(("group", cid, None))
    return out
