"""core/graphs.py: the walk the schema and class caches share."""

from __future__ import annotations

from spec_gen.core.graphs import reached


def test_reached_follows_every_edge_through_cycles_and_leaves_the_rest() -> None:
    graph = {"a": ["b"], "b": ["c", "a"], "c": [], "d": ["a"], "e": ["e"]}
    assert reached(["a"], graph.__getitem__) == {"a", "b", "c"}
    assert reached(["d"], graph.__getitem__) == {"a", "b", "c", "d"}
    assert reached(["e"], graph.__getitem__) == {"e"}
    assert reached([], graph.__getitem__) == set()


def test_a_chain_deeper_than_the_stack_is_walked() -> None:
    depth = 50_000  # far past the interpreter's recursion limit
    assert len(reached([0], lambda n: [n + 1] if n < depth else [])) == depth + 1
