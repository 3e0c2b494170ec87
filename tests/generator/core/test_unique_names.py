"""One helper makes every generated name unique (`core.naming.unique`); each kind of name keeps
the numbering style it had, so no name in generated output changes."""

from __future__ import annotations

from spec_gen.core.naming import unique


def test_numbered_from_two_and_claimed() -> None:
    taken = {"get_pet"}
    assert unique("get_pet", taken) == "get_pet2"
    assert unique("get_pet", taken) == "get_pet3"
    assert unique("list_pets", taken) == "list_pets"
    assert taken == {"get_pet", "get_pet2", "get_pet3", "list_pets"}


def test_a_separator_for_credential_options() -> None:
    taken = {"token"}
    assert unique("token", taken, separator="_") == "token_2"
    assert unique("token", taken, separator="_") == "token_3"


def test_a_prefix_put_before_until_free() -> None:
    taken = {"accept", "response_accept"}
    assert unique("accept", taken, prefix="response_") == "response_response_accept"
    assert unique("other", taken, prefix="response_") == "other"
