"""The one interpreter of the building effect notation (spec docs/rules/ora.md §2.6).

``parse_effect(text)`` reads the ``effect`` column of ``ora_buildings.csv`` into an
``Effect``: a tuple of ``Part`` values resolved in written order (``A ; B``). Each part is
``cap`` repetitions (``Nx``, ``inf x`` = ``None``) of one alternative (``CHOOSE(a | b)``: one
per repetition) that pays a ``Pay`` and receives ``Term`` values. Parenthesised remarks are
reading aids; two of them carry rules and are read as flags: "(energy pooled over both parts)"
merges two parts into one pooled choice (Cloister Workshop), "(the second part needs the
first)" makes a part depend on the previous one (Forger's Workshop).

The notation cannot say three things; each is a named term, not a building branch:
``livestock_tiers`` (Spinning Mill: the tier table is read from the text), ``points``
(point goods up to an entitlement: ``cards`` = forest + moor cards, ``cloisters`` = k × cloister
buildings) and ``borrow`` (the target set of ``USE_OTHER``: ``prior``, ``neighbour``,
``occupied``, ``display``; FR7).

``EFFECTS`` maps every building id to its parsed ``Effect``; a row that does not parse stops the
import with ``ValueError``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Final

from engines.ora.data import BUILDINGS, GOODS

VALUE_KINDS: Final[tuple[str, ...]] = ("food", "energy", "points")
"""Kinds of value payment (G5); ``points`` uses scoring values (Round Tower, D42)."""

TERM_KINDS: Final[frozenset[str]] = frozenset({
    "goods", "choice", "basic", "wheel", "joker", "points", "livestock_tiers", "borrow", "build",
    "settle", "fell_cut", "recall_all", "recall_prior", "landscape"})
"""What a received term may be (§2.6 table)."""

CHOICE_TERMS: Final[frozenset[str]] = frozenset({"choice", "basic", "wheel", "joker", "points"})
"""Terms the user chooses something for when the part resolves (one pick each)."""

FRAME_TERMS: Final[frozenset[str]] = frozenset({"borrow", "build", "settle", "fell_cut", "landscape"})
"""Terms that open a further decision after the goods are settled."""


@dataclass(frozen=True)
class Pay:
    """What one repetition pays: ``named`` goods (G4), ``value`` payments by kind (G5),
    ``different`` = k different goods (G7), ``forest`` = forest cards removed."""

    named: tuple[tuple[str, int], ...] = ()
    value: tuple[tuple[str, float], ...] = ()
    different: int = 0
    forest: int = 0

    @property
    def empty(self) -> bool:
        """True when nothing is paid."""
        return not (self.named or self.value or self.different or self.forest)


@dataclass(frozen=True)
class Term:
    """One thing received. ``kind`` in ``TERM_KINDS``; ``good``/``n`` for ``goods``;
    ``n`` and ``options`` (good ids) for ``choice``/``basic``/``wheel``/``joker``;
    ``arg`` for ``points`` (entitlement) and ``borrow`` (target set); ``tiers`` for
    ``livestock_tiers`` as ``(minimum livestock, coins)`` rows."""

    kind: str
    good: str = ""
    n: int = 0
    options: tuple[str, ...] = ()
    arg: str = ""
    tiers: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class Alt:
    """One alternative: pay, receive; ``cap`` limits how often it may be chosen within a
    pooled part (``None``: only the part's cap)."""

    pay: Pay
    get: tuple[Term, ...]
    cap: int | None = None


@dataclass(frozen=True)
class Part:
    """One part of an effect (§2.6).

    Attributes:
        cap: repetitions allowed (``None`` = any number).
        alts: one alternative, or the ``CHOOSE`` options.
        choose: the user picks an alternative per repetition (``alts`` in the action).
        auto: a ``GAIN`` without picks: resolves by itself (receiving never hurts, FR2).
        needs_previous: only if the previous part was carried out (Forger's Workshop).
        ordered: the order of chosen alternatives matters (a later one may pay with what an
            earlier one produced, Pilgrimage Site); otherwise alternatives are listed sorted.
    """

    cap: int | None
    alts: tuple[Alt, ...]
    choose: bool = False
    auto: bool = False
    needs_previous: bool = False
    ordered: bool = False

    @cached_property
    def picks(self) -> tuple[Term, ...]:
        """The terms that need a pick (only single-alternative parts have them; computed once,
        the part being frozen)."""
        return tuple(t for t in self.alts[0].get if t.kind in CHOICE_TERMS) if not self.choose else ()


@dataclass(frozen=True)
class Effect:
    """A parsed effect: ``parts`` in order; ``passive`` for FR6 (Winery, Distillery)."""

    parts: tuple[Part, ...]
    passive: bool = False
    remarks: tuple[str, ...] = field(default=())


# --------------------------------------------------------------------------- scanning

_CALLS = ("CHOOSE", "WHEEL", "USE_OTHER", "REMOVE_FOREST")


def _strip_remarks(text: str) -> tuple[str, list[str]]:
    """Drop parenthesised remarks that are not a call's argument; return them too."""
    out: list[str] = []
    remarks: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "(":
            depth, j = 1, i + 1
            while depth:
                if j >= len(text):
                    raise ValueError(f"unbalanced parentheses in {text!r}")
                depth += {"(": 1, ")": -1}.get(text[j], 0)
                j += 1
            head = "".join(out).rstrip()
            if any(head.endswith(c) for c in _CALLS):
                inner, more = _strip_remarks(text[i + 1:j - 1])
                remarks += more
                # USE_OTHER keeps its description whole (the target set is read from it)
                out.append("(" + (text[i + 1:j - 1] if head.endswith("USE_OTHER") else inner) + ")")
            else:
                remarks.append(text[i + 1:j - 1])
            i = j
            continue
        out.append(ch)
        i += 1
    return re.sub(r"\s+", " ", "".join(out)).strip(), remarks


def _split(text: str, sep: str) -> list[str]:
    """Split at ``sep`` outside parentheses."""
    parts: list[str] = []
    depth, start, i = 0, 0, 0
    while i < len(text):
        ch = text[i]
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth == 0 and text.startswith(sep, i):
            parts.append(text[start:i].strip())
            i += len(sep)
            start = i
            continue
        i += 1
    parts.append(text[start:].strip())
    return [p for p in parts if p]


def _call_arg(text: str, name: str) -> str:
    if not (text.startswith(name + "(") and text.endswith(")")):
        raise ValueError(f"expected {name}(...) in {text!r}")
    return text[len(name) + 1:-1].strip()


def _good(word: str) -> str:
    if word not in GOODS:
        raise ValueError(f"unknown good {word!r}")
    return word


def _amount(text: str) -> float:
    if "/" in text:
        num, den = text.split("/")
        return int(num) / int(den)
    return float(text)


# --------------------------------------------------------------------------- terms


def _borrow_target(desc: str) -> str:
    low = desc.lower()
    for key, target in (("prior", "prior"), ("adjacent", "neighbour"), ("display", "display"),
                        ("occupied", "occupied")):
        if key in low:
            return target
    raise ValueError(f"USE_OTHER target not understood: {desc!r}")


def _get_terms(text: str, full: str) -> tuple[Term, ...]:
    """Parse received terms (``GAIN``/``GET`` lists and the primitives of §2.6)."""
    text = text.strip().rstrip(".")
    if text.startswith("GET "):
        text = text[4:]
    pieces: list[str] = []
    for chunk in _split(text, " + "):
        for sub in re.split(r",? then ", chunk):
            pieces += [p for p in _split(sub, " and/or ")]
    terms: list[Term] = []
    for piece in pieces:
        piece = piece.strip().removeprefix("GET ").strip()
        if piece in ("BUILD", "SETTLE", "RECALL_ALL", "RECALL_PRIOR"):
            terms.append(Term(piece.lower()))
        elif piece in ("FELL", "CUT"):
            if not terms or terms[-1].kind != "fell_cut":
                terms.append(Term("fell_cut"))
        elif piece in ("TAKE_DISTRICT", "TAKE_PLOT"):
            if not terms or terms[-1].kind != "landscape":
                terms.append(Term("landscape"))
        elif piece.startswith("USE_OTHER("):
            terms.append(Term("borrow", arg=_borrow_target(_call_arg(piece, "USE_OTHER"))))
        elif piece.startswith("WHEEL(") or piece.startswith("CHOOSE(WHEEL("):
            inner = piece if piece.startswith("WHEEL(") else _call_arg(piece, "CHOOSE")
            goods = tuple(_good(_call_arg(w.strip(), "WHEEL")) for w in _split(inner, "|"))
            terms.append(Term("wheel", n=1, options=goods))
        elif piece.startswith("J x CHOOSE("):
            opts = tuple(_good(o.strip()) for o in _call_arg(piece[4:].split(",")[0].strip(), "CHOOSE").split("|"))
            terms.append(Term("joker", n=1, options=opts))
        elif piece.startswith("CHOOSE("):
            choices: list[str] = []
            n = 0
            for o in _split(_call_arg(piece, "CHOOSE"), "|"):
                count, good = o.split()
                n = n or int(count)
                if int(count) != n:
                    raise ValueError(f"CHOOSE with different counts: {piece!r}")
                choices.append(_good(good))
            terms.append(Term("choice", n=n, options=tuple(choices)))
        elif piece.startswith("point goods"):
            found = re.search(r"<= (F|k x C)", piece)
            if not found:
                raise ValueError(f"point-goods entitlement not understood: {piece!r}")
            terms.append(Term("points", n=1, arg="cards" if found.group(1) == "F" else "cloisters"))
        elif piece.startswith("coin by the livestock"):
            rows = re.findall(r"(\d+)(?:-\d+| or more)? (?:livestock )?gives? (\d+)", full)
            if not rows:
                raise ValueError("livestock tiers not found")
            terms.append(Term("livestock_tiers", tiers=tuple((int(a), int(b)) for a, b in rows)))
        else:
            found = re.fullmatch(r"(\d+) (?:of one basic good|of basic good [A-Z])", piece)
            if found:
                terms.append(Term("basic", n=int(found.group(1)), options=tuple(
                    g for g, good in GOODS.items() if good.basic)))
                continue
            found = re.fullmatch(r"(\d+) (\w+)(?: per forest card removed)?", piece)
            if not found:
                raise ValueError(f"term not understood: {piece!r}")
            terms.append(Term("goods", good=_good(found.group(2)), n=int(found.group(1))))
    return tuple(terms)


def _pay(text: str) -> Pay:
    named: list[tuple[str, int]] = []
    value: list[tuple[str, float]] = []
    different = forest = 0
    for piece in _split(text.strip().removeprefix("PAY ").strip(), " + "):
        piece = piece.replace("from your landscape", "").strip()
        found = re.fullmatch(r"(?:further goods worth )?(food|energy|points) ([\d/]+)", piece)
        if found:
            value.append((found.group(1), _amount(found.group(2))))
            continue
        found = re.fullmatch(r"(\d+) different goods", piece)
        if found:
            different = int(found.group(1))
            continue
        if piece.startswith("REMOVE_FOREST("):
            forest = int(_call_arg(piece, "REMOVE_FOREST"))
            continue
        found = re.fullmatch(r"(\d+) (\w+)", piece)
        if not found:
            raise ValueError(f"payment not understood: {piece!r}")
        named.append((_good(found.group(2)), int(found.group(1))))
    return Pay(tuple(named), tuple(value), different, forest)


def _alt(text: str, full: str) -> Alt:
    pay_text, _, get_text = text.partition("->")
    if not text.strip().startswith(("PAY", "REMOVE_FOREST")):
        return Alt(Pay(), _get_terms(text, full))
    return Alt(_pay(pay_text), _get_terms(get_text, full) if get_text.strip() else ())


def _part(text: str, full: str) -> Part:
    text = text.strip().rstrip(".").strip()
    text = text.removeprefix("then ").strip()
    if text.startswith("GAIN "):
        get = _get_terms(text[5:], full)
        return Part(1, (Alt(Pay(), get),), auto=not any(t.kind in CHOICE_TERMS for t in get))
    if text.startswith(("WHEEL(", "CHOOSE(WHEEL(", "USE_OTHER(")):
        return Part(1, (Alt(Pay(), _get_terms(text, full)),))
    if text.startswith("SETTLE"):
        return Part(1, (Alt(Pay(), (Term("settle"),)),))
    if text.startswith("REMOVE_FOREST(0.."):
        top = int(re.match(r"REMOVE_FOREST\(0\.\.(\d+)\)", text).group(1))  # type: ignore[union-attr]
        _, _, get_text = text.partition("->")
        return Part(top, (Alt(Pay(forest=1), _get_terms(get_text, full)),))
    found = re.match(r"(inf|\d+) ?x (.*)", text)
    if not found:
        raise ValueError(f"part not understood: {text!r}")
    cap = None if found.group(1) == "inf" else int(found.group(1))
    rest = found.group(2).strip()
    if rest.startswith("CHOOSE("):
        close = _split(rest, "->")
        alts_text = _call_arg(close[0], "CHOOSE")
        shared = _get_terms(close[1], full) if len(close) > 1 else ()
        alts = []
        for a in _split(alts_text, "|"):
            alt = _alt(a, full)
            alts.append(Alt(alt.pay, alt.get + shared))
        return _with_order(Part(cap, tuple(alts), choose=True))
    return Part(cap, (_alt(rest, full),))


def _with_order(part: Part) -> Part:
    produced = {t.good for a in part.alts for t in a.get if t.kind == "goods"}
    paid = {g for a in part.alts for g, _ in a.pay.named}
    if produced & paid:
        return Part(part.cap, part.alts, part.choose, part.auto, part.needs_previous, ordered=True)
    return part


def _definitions(text: str) -> tuple[str, str, str]:
    found = re.search(r", [JFC] = ", text)
    if not found:
        return text, "", ""
    return text[:found.start()], found.group(), text[found.end():]


def parse_effect(text: str) -> Effect:
    """Parse one ``effect`` cell (§2.6) into an ``Effect``.

    Raises:
        ValueError: the text uses notation this interpreter does not know.
    """
    passive = "PASSIVE:" in text
    body = text.split("PASSIVE:")[0].strip()
    clean, remarks = _strip_remarks(body)
    sentences = _split(clean, ". ")
    clean, remarks = sentences[0], remarks + sentences[1:]
    # "J = …", "F = …", "C = …": definitions of the letters a term names (read by the term)
    clean, _, definition = _definitions(clean)
    remarks += [definition] if definition else []
    parts = [_part(p, body) for p in _split(clean, ";")]
    joined = " ".join(remarks).lower()
    if "needs the first" in joined and len(parts) == 2:
        p = parts[1]
        parts[1] = Part(p.cap, p.alts, p.choose, p.auto, needs_previous=True, ordered=p.ordered)
    if "pooled over both parts" in joined and len(parts) == 2:
        alts = tuple(Alt(p.alts[0].pay, p.alts[0].get, p.cap) for p in parts)
        caps = [p.cap for p in parts]
        total = None if None in caps else sum(c for c in caps if c is not None)
        parts = [_with_order(Part(total, alts, choose=True))]
    for p in parts:
        if p.picks and p.cap != 1:
            raise ValueError(f"a part with picks must be 1x: {text!r}")
    return Effect(tuple(parts), passive, tuple(remarks))


EFFECTS: Final[dict[str, Effect]] = {bid: parse_effect(b.effect) for bid, b in BUILDINGS.items()}
"""Building id → parsed ``Effect`` (every row of the data file)."""
