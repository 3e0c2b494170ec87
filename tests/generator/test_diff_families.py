"""x"""

from __future__ import annotations

from diff_support import Case

CASES: list[Case] = []
