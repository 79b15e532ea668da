"""Multi-step decisions: the one shared helper every engine's choices go through.

A game's notation says, per legal action, the steps a player taps through before it
(``Notation.action_path``: a card, then a target, …) and the action's own label
(``Notation.action_label``). ``DecisionTree`` arranges the legal actions of a seat into
those steps, so the host can show one step at a time with Back, and no state changes
until a whole action is chosen (nothing half-applied, DESIGN.md §5 "every action is
reachable by taps").

Shapes: a *path* is a tuple of step indices from the root (``()`` is the root, ``(2,)``
the third option of the root, ``(2, 0)`` the first option inside it). A node's options
are ``Choice`` values: a leaf (``action`` = index into the legal actions) or a step
(``step`` = the index to append to the path).

Policy (the same for every game):

* a seat with at most ``FLAT_LIMIT`` legal actions sees them all at once, labelled by
  their last step and their own label, unless the engine marks steps as ``forced``;
* a step with a single option is skipped (its option is shown in its place);
* an action with a confirmation (``Notation.action_confirm``) is a step of its own: choosing
  it shows the engine's summary (``DecisionTree.summary``) and one button that applies it;
* paths longer than ``MAX_DEPTH`` are refused (``ValueError``): custom ids carry them.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field

from engines.base import Action, Msg, Seat, State, Text
from engines.notation import Notation

FLAT_LIMIT = 20
"""At most this many legal actions are listed flat, without steps."""

MAX_DEPTH = 4
"""The deepest path an engine may declare."""


@dataclass(frozen=True)
class Choice:
    """One option of a decision node.

    Attributes:
        label: what the option says (a step's label, or the action's label).
        hint: a short description under the label, or None.
        action: index into ``DecisionTree.actions`` when choosing this applies an action.
        step: index to append to the path when choosing this opens a step.
        size: how many legal actions lie under this option (1 for a leaf).
    """

    label: Text
    hint: Text | None = None
    action: int | None = None
    step: int | None = None
    size: int = 1


@dataclass
class _Node:
    label: Text | None  # (None for an action's own node: its label is the action's, ``DecisionTree.label``)
    children: list[_Node] = field(default_factory=list)
    keys: dict[Hashable, int] = field(default_factory=dict)
    action: int | None = None
    confirm: int | None = None  # the action whose confirmation this shows: its step (the summary), its button
    members: list[int] = field(default_factory=list)  # the actions whose own nodes are children here

    def count(self) -> int:
        return 1 if self.action is not None else sum(c.count() for c in self.children)


def _key(text: Text) -> Hashable:
    """The grouping key of a path step or a label: a plain string itself, a ``Msg`` its key and
    parameters, equal for equal messages as their JSON texts are (flat parameters of strings and
    integers as a tuple of them, others as their JSON text)."""
    if not isinstance(text, Msg):
        return text
    params = text.params
    if all(type(v) is str or type(v) is int for v in params.values()):
        return ("\0", text.key, tuple(params.items()))
    return ("\0", text.key, json.dumps(dict(params)))


def action_labels(notation: Notation, state: State, actions: Sequence[Action]) -> list[Text]:
    """``action_label`` of each of ``actions`` (one decision's), but ``action_label_full``
    (where the notation has one) for the actions whose labels read alike, so that the buttons
    of one decision tell them apart (Heaven's "get G1" twice)."""
    labels = notation.action_labels_of(state, actions)
    near: dict[Hashable, list[int]] = {}  # (by ``_near``: the labels that may read alike)
    for index, label in enumerate(labels):
        near.setdefault(_near(label), []).append(index)
    if len(near) == len(labels):
        return labels
    for candidates in near.values():
        if len(candidates) < 2:
            continue
        alike: dict[Hashable, list[int]] = {}
        for index in candidates:
            alike.setdefault(_key(labels[index]), []).append(index)
        for indices in alike.values():
            if len(indices) > 1:
                for index in indices:
                    labels[index] = notation.action_label_full(state, actions[index]) or labels[index]
    return labels


def _near(text: Text) -> Hashable:
    """A key equal for texts of equal ``_key`` (and for some others): a plain string itself, a
    ``Msg`` its key and its parameters of strings and integers (no JSON text made)."""
    if not isinstance(text, Msg):
        return text
    return text.key, tuple((k, v) for k, v in text.params.items() if type(v) is str or type(v) is int)


Labeller = Callable[[Sequence[int]], Sequence[Text]]
"""The labels of some legal actions, by their indices (the actions of one decision)."""

Hinter = Callable[[int], "Text | None"]
"""The hint of one legal action, by its index."""


class DecisionTree:
    """The legal actions of one seat arranged into steps (see the module docstring).

    Args:
        actions: the legal actions, in the engine's order.
        labels: ``action_label`` of each action, or a function giving the labels of the
            actions of one decision (the actions whose buttons one step shows side by side),
            called once per decision and only when one of them is shown (``of``: the labels
            of steps not opened are never made).
        hints: ``action_hint`` of each action, or a function of an action's index giving it,
            called once per action when it is shown.
        paths: ``action_path`` of each action.
        flat: list everything at once (the caller decided the list is short).
        confirms: ``action_confirm`` of each action (``(summary, button)`` or None), or a
            function of no arguments giving that pair, called only when the step or its
            button is shown (``of``: the texts of a page not shown are never made);
            None: no action asks for a confirmation.

    Raises:
        ValueError: the sequences differ in length, or a path is deeper than MAX_DEPTH.
    """

    def __init__(self, actions: Sequence[Action], labels: Sequence[Text] | Labeller,
                 hints: Sequence[Text | None] | Hinter, paths: Sequence[tuple[Text, ...]], *, flat: bool = False,
                 confirms: Sequence[tuple[Text, Text] | Callable[[], tuple[Text, Text] | None] | None] | None = None
                 ) -> None:
        confirms = [None] * len(actions) if confirms is None else list(confirms)
        given = [len(x) for x in (labels, hints) if not callable(x)]
        if not all(n == len(actions) for n in (*given, len(paths), len(confirms))):
            raise ValueError("actions, labels, hints, paths and confirms must have one entry per action")
        self.actions = list(actions)
        self._labeller = labels if callable(labels) else None
        self._labels: list[Text | None] = [None] * len(actions) if callable(labels) else list(labels)
        self._hinter = hints if callable(hints) else None
        self._hints: list[Text | None] = [None] * len(actions) if callable(hints) else list(hints)
        self._hinted = [not callable(hints)] * len(actions)
        self.paths = [() if flat else tuple(p) for p in paths]
        self._confirms = confirms
        self.root = _Node(None)
        self._decision: list[_Node] = []  # per action: the node its own node hangs under (its decision)
        said: dict[int, Hashable] = {}  # (``_key`` by step object: a notation may give many actions one step object)
        for index, path in enumerate(self.paths):
            if len(path) > MAX_DEPTH:
                raise ValueError(f"action {index} has a path of {len(path)} steps (max {MAX_DEPTH})")
            node = self.root
            for step in path:
                key = said.get(id(step))
                if key is None:
                    key = said[id(step)] = _key(step)
                if key not in node.keys:
                    node.keys[key] = len(node.children)
                    node.children.append(_Node(step))
                node = node.children[node.keys[key]]
            self._decision.append(node)
            node.members.append(index)
            if confirms[index] is not None:  # a step of its own: the summary, then one button
                node.children.append(_Node(None, confirm=index))
                node = node.children[-1]
                node.children.append(_Node(None, action=index, confirm=index))
            else:
                node.children.append(_Node(None, action=index))

    @classmethod
    def of(cls, notation: Notation, state: State, seat: Seat) -> DecisionTree:
        """The tree of ``seat``'s legal actions in ``state`` (flat when there are at most
        ``FLAT_LIMIT`` of them), labelled by ``action_labels`` one decision at a time when
        it is shown, and hinted one action at a time."""
        actions = list(notation.engine.legal_actions(state, seat))
        return cls(
            actions,
            lambda indices: action_labels(notation, state, [actions[k] for k in indices]),
            lambda index: notation.action_hint(state, actions[index]),
            notation.action_paths_of(state, actions),
            flat=len(actions) <= FLAT_LIMIT,
            confirms=[functools.partial(notation.action_confirm, state, a) if notation.has_confirm(state, a) else None
                      for a in actions],
        )

    def label(self, index: int) -> Text:
        """The label of action ``index`` (its decision's labels made on first use)."""
        label = self._labels[index]
        if label is None:
            assert self._labeller is not None  # (given labels are all set)
            members = self._decision[index].members
            for k, made in zip(members, self._labeller(members), strict=True):
                self._labels[k] = made
            label = self._labels[index]
            assert label is not None
        return label

    def hint(self, index: int) -> Text | None:
        """The hint of action ``index`` (made on first use)."""
        if not self._hinted[index]:
            assert self._hinter is not None
            self._hints[index] = self._hinter(index)
            self._hinted[index] = True
        return self._hints[index]

    @property
    def labels(self) -> list[Text]:
        """The label of every action (each decision's made)."""
        return [self.label(index) for index in range(len(self.actions))]

    @property
    def hints(self) -> list[Text | None]:
        """The hint of every action."""
        return [self.hint(index) for index in range(len(self.actions))]

    def _confirm(self, index: int) -> tuple[Text, Text]:
        """Action ``index``'s ``(summary, button)``, made on first use (a function given as
        its confirmation is called once).

        Raises:
            ValueError: the function gave None (an engine whose ``has_confirm`` said yes).
        """
        confirm = self._confirms[index]
        if callable(confirm):
            confirm = self._confirms[index] = confirm()
            if confirm is None:
                raise ValueError(f"action {index} has no confirmation although has_confirm said so")
        assert confirm is not None  # (a node names only an action with a confirmation)
        return confirm

    def _label(self, node: _Node) -> Text | None:
        """``node``'s label: a confirmation's button says the engine's button text, an action's
        own node (its leaf, its confirmation step) the action's label."""
        if node.confirm is not None:
            return self._confirm(node.confirm)[1] if node.action is not None else self.label(node.confirm)
        return self.label(node.action) if node.action is not None else node.label

    def _summary(self, node: _Node) -> Text | None:
        """The summary ``node`` shows when it is a confirmation step, else None."""
        return self._confirm(node.confirm)[0] if node.confirm is not None and node.action is None else None

    def _walk(self, path: Sequence[int]) -> tuple[_Node, tuple[Text, ...], tuple[int, ...]]:
        node, trail, real = self._skip(self.root, (), ())
        for index in path:
            if node.action is not None or not 0 <= index < len(node.children):
                raise KeyError(tuple(path))
            node, trail, real = self._skip(node.children[index], (*trail, self._label(node.children[index]) or ""),
                                           (*real, index))
        return node, trail, real

    def _skip(self, node: _Node, trail: tuple[Text, ...], real: tuple[int, ...]
              ) -> tuple[_Node, tuple[Text, ...], tuple[int, ...]]:
        # a step with one option opens that option at once
        while node.action is None and len(node.children) == 1 and node.children[0].action is None:
            node = node.children[0]
            trail = (*trail, self._label(node) or "")
            real = (*real, 0)
        return node, trail, real

    def node(self, path: Sequence[int] = ()) -> tuple[list[Choice], tuple[Text, ...]]:
        """The options at ``path`` and the labels of the steps taken to get there.

        Raises:
            KeyError: ``path`` does not lead to a step (stale or forged).
        """
        node, trail, _ = self._walk(path)
        if node.action is not None:
            raise KeyError(tuple(path))
        out: list[Choice] = []
        for index, child in enumerate(node.children):
            if child.action is not None:  # (a confirmation step's one option: its button, no hint)
                out.append(Choice(self._label(child) or self.label(child.action),
                                  None if node.confirm is not None else self.hint(child.action),
                                  action=child.action))
                continue
            leaf, skipped = child, 0
            while leaf.action is None and leaf.confirm is None and len(leaf.children) == 1:  # (a confirmation
                # step is never skipped: it is opened like any step)
                leaf, skipped = leaf.children[0], skipped + 1
            if leaf.action is not None:  # a step with a single action: offer that action, named by that step
                # when it is the action's last step; past several steps (a group such as Ora's "Free
                # actions" holding one action) by the action's own label, which says what it does
                label = child.label if skipped == 1 else self._label(leaf) or self.label(leaf.action)
                out.append(Choice(label or "", self.hint(leaf.action), action=leaf.action))
            else:
                out.append(Choice(self._label(child) or "", None, step=index, size=child.count()))
        return out, trail

    def summary(self, path: Sequence[int] = ()) -> Text | None:
        """The engine's confirmation text when ``path`` is an action's confirmation step
        (its one option applies the action), else None.

        Raises:
            KeyError: ``path`` does not lead to a step.
        """
        node = self._walk(path)[0]
        if node.action is not None:
            raise KeyError(tuple(path))
        return self._summary(node)

    def depth_of(self, path: Sequence[int]) -> int:
        """How many steps ``path`` has taken (0 at the root); KeyError for a bad path."""
        return len(self._walk(path)[1])

    def describe(self) -> list[dict[str, object]]:
        """Every action with its full path of step labels (for tests and golden files)."""
        return [{"path": list(p), "label": lab} for p, lab in zip(self.paths, self.labels, strict=True)]
