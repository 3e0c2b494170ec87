"""The one pagination helper of the service: page-numbered listings (`page`, `limit`, `total`)."""

from __future__ import annotations

from dataclasses import dataclass

from outreach_api.models import Pagination


@dataclass(frozen=True)
class Page:
    """A page request, already validated by the generated router (page >= 1, 1 <= limit <= max)."""

    page: int
    limit: int

    @property
    def offset(self) -> int:
        return (self.page - 1) * self.limit

    def pagination(self, total: int) -> Pagination:
        """The response's pagination object; `next_cursor` is not used by page-numbered lists."""
        return Pagination(
            page=self.page,
            limit=self.limit,
            total=total,
            has_next=self.offset + self.limit < total,
            next_cursor=None,
        )
