"""Typed moves (``/<game> play action:<notation>``): what a keyboard user's text means.

The game reads its own notation first (``Notation.parse_action``: its spellings, pairs in
either order, …). When it finds no move there (``unknown_move`` / ``ambiguous_move``), the
host matches the text against the notation of the seat's whole moves
(``Notation.typed_moves`` described by ``Notation.describe_action``), forgiving what a phone
keyboard does: case, full-width characters (NFKC), extra spaces around and inside the text
and around signs (``greed d10 + d12``); and a unique prefix of one move's notation
(``choose gl`` → ``choose gluttony``), also word by word (``ch l`` → ``choose lust``). When nothing fits, the refusal lists up to
``CLOSEST`` legal notations closest to the text (``difflib``), in the catalog's sentence
(``refusal.typed_closest`` / ``refusal.typed_ambiguous``, bot/text/en/refusal.toml).
"""

from __future__ import annotations

import copy
import difflib
import re
import unicodedata
from collections.abc import Callable, Sequence

from engines.base import Action, IllegalAction, Msg, Seat, State
from engines.notation import Notation

CLOSEST = 5
"""How many legal notations a refusal of a typed move lists at most."""

_SIGN_SPACES = re.compile(r"\s*([^\w\s])\s*")
_SPACES = re.compile(r"\s+")


def notation_key(text: str) -> str:
    """The comparison form of typed notation: NFKC, case folded, no spaces around signs
    (``+ = , :`` …), runs of spaces as one, stripped (``" Greed  d10 + d12"`` →
    ``"greed d10+d12"``)."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return _SPACES.sub(" ", _SIGN_SPACES.sub(r"\1", folded)).strip()


def closest(text: str, notations: Sequence[str], n: int = CLOSEST) -> list[str]:
    """Up to ``n`` of ``notations`` closest to ``text`` (``difflib`` ratio of their
    ``notation_key``), best first; ties keep the order given."""
    keys: dict[str, str] = {}
    for notation in notations:
        keys.setdefault(notation_key(notation), notation)
    return [keys[k] for k in difflib.get_close_matches(notation_key(text), list(keys), n=n, cutoff=0.0)]


def _word_prefix(key: str, notation: str) -> bool:
    """Whether each word of ``key`` begins the notation's word at its place (``ch l`` →
    ``choose lust``)."""
    typed, words = key.split(), notation.split()
    return bool(typed) and len(typed) <= len(words) and all(w.startswith(t) for t, w in zip(typed, words, strict=False))


def _fitting(key: str, moves: Sequence[tuple[Sequence[str], Action]]) -> tuple[list[Action], list[int]]:
    """The moves (with their indices) one of whose spellings ``key`` fits, at the first of
    the stages (equal; equal without spaces; begun; begun word by word) where exactly one
    move fits; else all those of the first stage where several fit (indices), and no move."""
    several: list[int] = []
    bare = key.replace(" ", "")
    for fits in (lambda n: n == key, lambda n: n.replace(" ", "") == bare,
                 lambda n: bool(key) and n.startswith(key), lambda n: _word_prefix(key, n)):
        found = [i for i, (spellings, _) in enumerate(moves) if any(fits(notation_key(n)) for n in spellings)]
        if len(found) == 1:
            return [moves[found[0]][1]], found
        several = several or found
    return [], several


def label_spellings(notation: Notation, state: State, action: Action, written: str,
                    formatters: Sequence[Callable[[Msg | str], str]]) -> list[str]:
    """How a player may name ``action`` by what the panel and the autocomplete show: its
    label in each language of ``formatters`` (``"Use Wrath G3"``), the label after the
    notation's first word (``"split Greed R1 + …"``), and the autocomplete's whole
    ``notation · label``."""
    out: list[str] = []
    verb = written.split()[0] if written.split() else ""
    label = notation.action_label(state, action)
    for tx in formatters:
        shown = tx(label)
        out += [shown, f"{verb} {shown}", f"{written} · {shown}"]
    return out


def parse_typed(notation: Notation, state: State, seat: Seat, text: str) -> Action:
    """The move ``seat`` means by ``text``: the notation's own reading, else the one typed
    move whose notation equals ``text`` (``notation_key``), then with every space left out
    (``Row 1`` → ``row1``, as the autocomplete's label spells it), else the one it begins, else the
    one whose words it begins word by word (``ch l`` → ``choose lust``); when no notation
    fits, the same by the moves' labels (``label_spellings``: a card by its name, ``use
    wrath g3`` for ``use N54``, as the autocomplete shows it).

    Raises:
        NotYourTurn, GameOver: as ``Notation.parse_action``.
        IllegalAction: the notation's refusal when it is not about the notation (its own
            code), or none / several of the moves fit: code ``unknown_move`` /
            ``ambiguous_move``, ``params["text"]`` the catalog sentence listing the closest
            (or the fitting) notations.
    """
    try:
        return notation.parse_action(state, seat, text)
    except IllegalAction as exc:
        if exc.code not in ("unknown_move", "ambiguous_move"):
            raise
        refused = exc
    moves = [(notation.describe_action(state, a), a) for a in notation.typed_moves(state, seat)]
    if not moves:
        raise refused
    key = notation_key(text)
    found, fitting = _fitting(key, [([n], a) for n, a in moves])
    if not found and not fitting:  # (no notation fits: the names the panel shows)
        from bot.text import LOCALES, Texts

        formatters = [Texts(notation.engine.info.game_id, [], locale) for locale in LOCALES]
        found, fitting = _fitting(key, [(label_spellings(notation, state, a, n, formatters), a) for n, a in moves])
    if found:
        return copy.deepcopy(found[0])
    several = [moves[i][0] for i in fitting]
    if refused.code == "ambiguous_move" and not several:
        raise refused  # (the notation's own sentence says how to name the move)
    sentence = "refusal.typed_ambiguous" if several else "refusal.typed_closest"
    names = closest(text, several or [n for n, _ in moves])
    raise IllegalAction(f"'{text.strip()[:80]}' is not a legal move now; closest: {', '.join(names)}.",
                        code="ambiguous_move" if several else "unknown_move",
                        text=Msg(sentence, {"closest": [f"`{n}`" for n in names]}).to_json())
