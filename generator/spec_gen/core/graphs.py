"""Walks over the graphs the generator builds (schemas naming schemas, classes naming
classes)."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import TypeVar

Node = TypeVar("Node", bound=Hashable)


def reached(start: Iterable[Node], successors: Callable[[Node], Iterable[Node]]) -> set[Node]:
    """Every node `start` reaches, `start` included: depth first, without recursion (a chain
    of thousands of schemas is no deeper on the stack)."""
    seen: set[Node] = set()
    todo = list(start)
    while todo:
        node = todo.pop()
        if node not in seen:
            seen.add(node)
            todo.extend(successors(node))
    return seen
