"""Every part of the store's schema, in the order ``migrate`` applies them."""

from __future__ import annotations

from .db import Schema


def all_schemas() -> list[Schema]:
    """The schema of every component of the store (each part adds its own here)."""
    from .players import SCHEMA as players
    from .tables import SCHEMA as tables

    return [players, tables]
