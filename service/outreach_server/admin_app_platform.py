"""Operator commands of the app_platform area, added to `outreach-server admin`."""

from __future__ import annotations

import click


def register(admin: click.Group) -> None:
    """Add this area's commands to the admin group."""
