"""Which spec node spec-gen is working on, for the one-line report of an unexpected error.

The IR and the targets wrap their per-node work in `at(pointer)`; an exception escaping
it carries the innermost pointer (`pointer_of(exc)`), and the CLI prints it as
`file:line:column` and exits 2 instead of showing a traceback.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_CURRENT: ContextVar[str | None] = ContextVar("spec_gen_node", default=None)
_ATTRIBUTE = "spec_gen_pointer"


@contextmanager
def at(pointer: str) -> Iterator[None]:
    """Mark `pointer` (a JSON pointer into the bundled document) as the node being processed."""
    token = _CURRENT.set(pointer)
    try:
        yield
    except Exception as exc:
        if getattr(exc, _ATTRIBUTE, None) is None:
            try:
                setattr(exc, _ATTRIBUTE, pointer)
            except AttributeError:  # an exception type with __slots__
                pass
        raise
    finally:
        _CURRENT.reset(token)


def current() -> str | None:
    return _CURRENT.get()


def pointer_of(exc: BaseException) -> str | None:
    found = getattr(exc, _ATTRIBUTE, None)
    return found if isinstance(found, str) else None
