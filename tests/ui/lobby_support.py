"""Helpers of the lobby tests: an in-process hub with fixed join codes, people, and apps that
speak to it as one of them."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from table_support import SeededThinker

from casino_tui.app.app import CasinoApp
from casino_tui.settings import Settings
from casino_tui.table import GameConfig, SeatConfig, seat_names
from casino_tui.table.hub import LocalHub, Person, TableHub

from .conftest import make_app

ANN = Person("key-ann", "Ann")
BOB = Person("key-bob", "Bob")
EVE = Person("key-eve", "Eve")
CODES = ("KAMIRO", "BODEFU", "TUSAVE", "NIPOGA", "ZEKUMA", "DIRAPO")


def make_hub(codes: Iterable[str] = CODES) -> LocalHub:
    """A hub that saves nothing, whose tables get ``codes`` in turn (never a random one)."""
    pending = list(codes)
    return LocalHub(SeededThinker(), new_code=lambda: pending.pop(0))


def lobby_app(hub: TableHub, person: Person = ANN, **kw: Any) -> CasinoApp:
    """An app at ``hub``'s tables as ``person`` (whose display name is chosen), with no timer
    refreshing the list of tables (the tests refresh it)."""
    app = make_app(hub=hub, person=person,
                   settings=Settings(speed="instant", display_name=person.name), **kw)
    app.tables_refresh = None
    return app


def people(*kinds: str, preset: str = "classic") -> GameConfig:
    """A game whose seats are ``person`` (open) or a computer's level, in order."""
    names = seat_names(len(kinds))
    seats = tuple(SeatConfig(names[i], kind == "person",
                             kind if kind != "person" else "medium")
                  for i, kind in enumerate(kinds))
    return GameConfig(preset=preset, players=len(kinds), seats=seats, seed=7)
