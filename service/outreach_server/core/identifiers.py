"""Organisation ids (and other counts) read from text: ASCII digits only, everywhere.

`str.isdigit`, `int()` and the `re` module's `\\d` all accept every Unicode digit: `int("١")`
is 1 (ARABIC-INDIC DIGIT ONE), `"²".isdigit()` is true and `int("²")` raises. A claim or header
naming an organisation is read here, so `"١"`, `"１"`, `" 1"`, `"+1"`, `"1_0"` and `"1\\n"` are
refused the same way everywhere (issue 30, hole 8).
"""

from __future__ import annotations

import re

ASCII_DIGITS = re.compile(r"[0-9]+")  # an explicit class: `\d` matches every Unicode digit
MAX_ORG_ID = 2**31 - 1  # ids are 32-bit integers on both backends


def ascii_int(text: str, max_digits: int = 19) -> int | None:
    """The number `text` spells in ASCII digits alone (nothing else, no sign, no space), or None."""
    if len(text) > max_digits or ASCII_DIGITS.fullmatch(text) is None:
        return None
    return int(text)


def org_id_from_text(text: str) -> int | None:
    """An organisation id written as ASCII digits, in range; None for anything else."""
    number = ascii_int(text, max_digits=10)
    return number if number is not None and 0 < number <= MAX_ORG_ID else None
