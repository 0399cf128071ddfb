"""Exceptions raised by the engine. Messages are written for players."""

from __future__ import annotations


class CasinoError(Exception):
    """Base class of every engine error."""


class IllegalMoveError(CasinoError):
    """A move that the rules forbid. ``str(err)`` says why in a player's words."""


class NotationError(CasinoError, ValueError):
    """Card, move or position notation that cannot be parsed."""


class RulesError(CasinoError, ValueError):
    """Unknown preset, unknown option or a bad option value."""


class StateError(CasinoError):
    """A position or saved game that is inconsistent (duplicated or missing cards, ...)."""
