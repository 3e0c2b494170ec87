"""String formats kept as written.

Each type is a `str` whose text is checked as its `format` says and never rewritten: a value
read from JSON dumps back as the same text (`2019-10-29T07:34:24.202Z` keeps its three
digits and its `Z`, `https://example.com` gets no trailing slash, an upper-case UUID stays
upper-case). `SecretText` (`format: password`) hides its value from `repr` and `str` and
gives it back whole in JSON. See docs/models.md.

This module is copied as it is into the generated packages that use it (`_formats.py`):
it imports only the standard library and pydantic.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date
from decimal import Decimal, InvalidOperation
from ipaddress import IPv4Address, IPv6Address
from typing import Annotated
from uuid import UUID

from pydantic import AfterValidator, PlainSerializer, SecretStr

_OFFSET = r"(?:[Zz]|[+-](?:[01]\d|2[0-3])(?::?[0-5]\d)?)"
_CLOCK = r"([01]\d|2[0-3]):([0-5]\d)(?::([0-5]\d|60)(?:[.,]\d+)?)?"
_DATE = r"(\d{4})-(\d{2})-(\d{2})"
_DATE_TIME = re.compile(rf"{_DATE}[Tt ]{_CLOCK}{_OFFSET}")
_DATE_ONLY = re.compile(_DATE)
_TIME = re.compile(rf"{_CLOCK}{_OFFSET}?")
_NUMBER = r"\d+(?:[.,]\d+)?"
_DURATION = re.compile(
    rf"-?P(?!$)(?:{_NUMBER}Y)?(?:{_NUMBER}M)?(?:{_NUMBER}W)?(?:{_NUMBER}D)?"
    rf"(?:T(?=\d)(?:{_NUMBER}H)?(?:{_NUMBER}M)?(?:{_NUMBER}S)?)?"
    rf"|-?(?:\d+ days?, )?\d+:\d{{2}}(?::\d{{2}}(?:\.\d+)?)?"
)
_URI = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:[^\s]*")
_EMAIL = re.compile(r"[^@\s]+@[^@\s]+")
_BASE64 = re.compile(r"[A-Za-z0-9+/\-_\s]*={0,2}\s*")


def _fails(what: str) -> ValueError:
    return ValueError(f"not {what}")


def _calendar(text: str, match: re.Match[str] | None, what: str) -> str:
    """`text` if `match` found it and its year, month and day make a date."""
    if match is None:
        raise _fails(what)
    try:
        date(int(match[1]), int(match[2]), int(match[3]))
    except ValueError:
        raise _fails(what) from None
    return text


def date_time(text: str) -> str:
    """An RFC 3339 date-time with its offset (`Z`, `+02:00`), any number of second digits."""
    return _calendar(text, _DATE_TIME.fullmatch(text), "an RFC 3339 date-time with an offset")


def date_text(text: str) -> str:
    return _calendar(text, _DATE_ONLY.fullmatch(text), "a date (YYYY-MM-DD)")


def _matching(pattern: re.Pattern[str], what: str) -> Callable[[str], str]:
    def check(text: str) -> str:
        if pattern.fullmatch(text) is None:
            raise _fails(what)
        return text

    return check


def _parsed_by(parse: Callable[[str], object], what: str) -> Callable[[str], str]:
    def check(text: str) -> str:
        try:
            parse(text)
        except (ValueError, ArithmeticError):
            raise _fails(what) from None
        return text

    return check


def _finite_decimal(text: str) -> Decimal:
    value = Decimal(text)
    if not value.is_finite():
        raise InvalidOperation(text)
    return value


DateTimeText = Annotated[str, AfterValidator(date_time)]
DateText = Annotated[str, AfterValidator(date_text)]
TimeText = Annotated[str, AfterValidator(_matching(_TIME, "a time (HH:MM[:SS][offset])"))]
DurationText = Annotated[str, AfterValidator(_matching(_DURATION, "an ISO 8601 duration"))]
UriText = Annotated[str, AfterValidator(_matching(_URI, "a URI with a scheme"))]
EmailText = Annotated[str, AfterValidator(_matching(_EMAIL, "an email address"))]
UuidText = Annotated[str, AfterValidator(_parsed_by(UUID, "a UUID"))]
IPv4Text = Annotated[str, AfterValidator(_parsed_by(IPv4Address, "an IPv4 address"))]
IPv6Text = Annotated[str, AfterValidator(_parsed_by(IPv6Address, "an IPv6 address"))]
Base64Text = Annotated[str, AfterValidator(_matching(_BASE64, "base64 text"))]
DecimalText = Annotated[str, AfterValidator(_parsed_by(_finite_decimal, "a decimal number"))]
SecretText = Annotated[
    SecretStr, PlainSerializer(lambda secret: secret.get_secret_value(), when_used="json")
]
