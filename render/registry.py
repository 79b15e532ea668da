"""Find a game's renderer and encode its images for delivery (design §6).

Each ``render/<game_id>.py`` exposes ``render_board(view, *, names, text, highlight=None)``
and, for games with hidden information, ``render_private(view, *, names, text)``; optionally
``render_decision(view, *, names, text)`` (an image for the seat's pending decision, or None) with
``draws_decision(view)`` (whether it draws one, asked before a job goes to a render worker)
and ``render_thumbnail(view, *, names, text)`` (the small board of DM turn notices, for a
board that does not read scaled down); optionally ``zoom_regions(view)`` (the parts of the table a
reader may look at closely: ``[(region key, label as a Msg)]``, from the reader's own view) with
``render_zoom(view, region, *, names, text)`` (that part drawn at phone size), the "🔍 Look at…"
select of the board message (bot/ui/looks.py).

``text`` formats the messages a view carries (``engines.base.Msg`` JSON: end reasons,
declarations): the host passes ``bot.text.Texts`` for the game, its names and the reader's
language, and a renderer passes its own labels to it as ``Msg`` objects; renderers never hold
English sentences of the rules.
"""

from __future__ import annotations

import importlib
import logging
import sys
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

from PIL import Image

from engines.base import Msg
from engines.registry import GAMES
from render import png
from render.base import TextFormatter, fit_under

log = logging.getLogger(__name__)

DEFAULT_LIMIT = 10 * 1024 * 1024
"""Discord's default attachment limit in bytes (10 MiB)."""


def module(game_id: str) -> ModuleType:
    """The renderer module of ``game_id``: the one its registry entry names
    (``engines.registry.Game.renderer``), ``render.<game_id>`` for a game the registry lacks.

    Raises:
        ModuleNotFoundError: the game has no renderer.
    """
    game = GAMES.get(game_id)
    return importlib.import_module(game.renderer if game is not None else f"render.{game_id}")




class OneImageTexts:
    """``text`` with its answers remembered while one image is drawn (``_draw``): a board formats the
    same message several times (an Ora board 137 calls, 87 distinct; a Canterbury board 87 and 65),
    and a call costs some 20 µs. Keyed by the message's ``repr`` (a ``Msg``, its JSON dict or a
    string: equal reprs are equal messages), so a formatter that gives the same text for the same
    message (``bot.text.Texts``) gives the same pixels. Lives for one image: a new formatter comes
    with every job.

    Args:
        text: the formatter (``TextFormatter``).
    """

    def __init__(self, text: TextFormatter) -> None:
        self._text = text
        self._said: dict[str, str] = {}

    def __call__(self, message: Any) -> str:
        key = repr(message)
        said = self._said.get(key)
        if said is None:
            said = self._said[key] = self._text(message)
        return said


def _draw(draw: Callable[..., Any], view: dict[str, Any], names: Sequence[str],
          text: TextFormatter | None) -> Any:
    kwargs: dict[str, Any] = {"names": list(names)}
    if text is not None:
        memo = getattr(sys.modules[draw.__module__], "MEMO_TEXTS", True)
        kwargs["text"] = OneImageTexts(text) if memo else text
    return draw(view, **kwargs)


def board_image(game_id: str, view: dict[str, Any], names: Sequence[str],
                text: TextFormatter | None = None) -> Image.Image:
    """The public board of a game as an image (``view`` must be the public view)."""
    image: Image.Image = _draw(module(game_id).render_board, view, names, text)
    return image


def _optional(game_id: str, function: str, view: dict[str, Any], names: Sequence[str],
              text: TextFormatter | None) -> Image.Image | None:
    """Call the game module's optional ``function(view, *, names, text)``; None when it has none."""
    draw = getattr(module(game_id), function, None)
    if draw is None:
        return None
    image: Image.Image | None = _draw(draw, view, names, text)
    return image


def private_image(game_id: str, view: dict[str, Any], names: Sequence[str],
                  text: TextFormatter | None = None) -> Image.Image | None:
    """A seat's private view as an image (``render_private``), or None when the game has
    no private renderer (no hidden information)."""
    return _optional(game_id, "render_private", view, names, text)


def thumbnail_image(game_id: str, view: dict[str, Any], names: Sequence[str],
                    text: TextFormatter | None = None) -> Image.Image | None:
    """The game's own small board for DM turn notices (``render_thumbnail``: a summary that
    reads at bot/render_pool.py ``THUMBNAIL_WIDTH``, for a board too dense to shrink), or
    None when the game has none (the board is then scaled down). ``view`` must be the
    public view."""
    return _optional(game_id, "render_thumbnail", view, names, text)


def has_decision(game_id: str) -> bool:
    """True when the game draws images for pending decisions (``render_decision``)."""
    return hasattr(module(game_id), "render_decision")


def draws_decision(game_id: str, private_view: dict[str, Any]) -> bool:
    """Whether ``decision_image`` may give an image for this view: the game draws decisions
    (``has_decision``) and, where its module says so cheaply (``draws_decision(view)``), this
    decision is one it draws; the bot asks before sending a job to a render worker (E
    Guan's panels ask for about three a move, most of them drawing nothing)."""
    if not has_decision(game_id):
        return False
    predicate = getattr(module(game_id), "draws_decision", None)
    return predicate is None or bool(predicate(private_view))


def decision_image(game_id: str, private_view: dict[str, Any], names: Sequence[str],
                   text: TextFormatter | None = None) -> Image.Image | None:
    """An image for the seat's pending decision, shown with its private Play panel (e.g.
    E Guan's placement preview): the game module's optional
    ``render_decision(view, *, names)``; None when the game has none or the decision
    needs no image. ``private_view`` must be the deciding seat's own view."""
    return _optional(game_id, "render_decision", private_view, names, text)


def has_zoom(game_id: str) -> bool:
    """True when the game lets a reader look closely at parts of its table (``zoom_regions`` and
    ``render_zoom``)."""
    game = module(game_id)
    return hasattr(game, "zoom_regions") and hasattr(game, "render_zoom")


def zoom_regions(game_id: str, view: dict[str, Any]) -> list[tuple[str, Msg]]:
    """The parts of the table ``view`` lets its reader look at closely (the game's
    ``zoom_regions(view)``): ``(region key, label)`` in the game's order; empty when the game has
    none. ``view`` is the reader's own view: a seated player's private view, else the public one."""
    if not has_zoom(game_id):
        return []
    return [(str(key), label) for key, label in module(game_id).zoom_regions(view)]


def zoom_image(game_id: str, view: dict[str, Any], region: str, names: Sequence[str],
               text: TextFormatter | None = None) -> Image.Image | None:
    """The part ``region`` of the table drawn from ``view`` at phone size (the game's
    ``render_zoom(view, region, *, names, text)``); None when the game has no zoom or ``view``
    offers no such region (``zoom_regions``)."""
    if not has_zoom(game_id) or region not in {key for key, _ in zoom_regions(game_id, view)}:
        return None
    game = module(game_id)
    kwargs: dict[str, Any] = {"names": list(names)}
    if text is not None:
        kwargs["text"] = OneImageTexts(text) if getattr(game, "MEMO_TEXTS", True) else text
    image: Image.Image = game.render_zoom(view, region, **kwargs)
    return image


def encode(image: Image.Image, limit: int = DEFAULT_LIMIT, game_id: str | None = None) -> tuple[bytes, str]:
    """PNG bytes, or a JPEG/downscaled version when the PNG exceeds ``limit`` bytes. With ``game_id``
    (an RGB image of that game drawn with its own colours: a board or a private view, not a scaled
    copy; or the key of another palette of the game, ``render.png.palette_key``: its decisions'
    images), the PNG is made against that fixed palette when there is one (``render.png.encode``: 2-4× less
    encoding CPU than a palette chosen per board, ``python -m bench.render --moves 30``), else as
    ``render.base.to_png`` makes it.

    Returns:
        (data, extension) with extension ``"png"`` or ``"jpg"``.
    """
    if game_id is not None:
        fixed = png.encode(image, game_id)
        if fixed is not None and len(fixed) <= limit:
            return fixed, "png"
    data, ext = fit_under(image, limit)
    if ext != "png":
        log.info("board image re-encoded as %s (%d bytes) to fit %d", ext, len(data), limit)
    return data, ext
