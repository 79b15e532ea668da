"""``/illumination …``: the Illumination (闡明) cog. Every decision is reachable from the board's
Play ▶ panel (activate a line by one tap; each staged tile a select of legal cells with its
reward; Redirect, Abbot, Buy card, Exchange, Play card, End turn; the Exilium cell select for the
opponent; the discard stepper), and from ``/illumination play action:<notation>`` with
autocomplete (``II-b3``, ``2b3``, ``row1``, ``exchange candle-5``)."""

from __future__ import annotations

from cogs.base import GameCog, make_setup


class IlluminationCog(GameCog, group_name="illumination"):
    """Commands for Illumination games."""

    game_id = "illumination"


setup = make_setup(IlluminationCog)
