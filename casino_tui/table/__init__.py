"""Tables: one game with its seats, without any user interface (no Textual, no rich).

- :mod:`~casino_tui.table.config`: what a game is (:class:`GameConfig`, :class:`SeatConfig`);
- :mod:`~casino_tui.table.controller`: :class:`TableController`, one game at one table (turns,
  computer turns, autosave, numbered events, per-seat views);
- :mod:`~casino_tui.table.events`: :class:`TableEvent`, :class:`TableView` (JSON on the wire);
- :mod:`~casino_tui.table.codec`: JSON forms of cards, moves, move events, round summaries;
- :mod:`~casino_tui.table.hub`: :class:`TableHub` (the interface) and :class:`LocalHub` (the
  in-process hub the server runs: every table's one authority);
- :mod:`~casino_tui.table.wire`: the local channel between the server (its table hub) and each
  player's app process: a Unix socket, a per-session secret, length-prefixed JSON frames;
- :mod:`~casino_tui.table.codes`: short join codes that are easy to read aloud (``KAMIRO``);
- :mod:`~casino_tui.table.service`: :class:`HubService`, the server's hub on the channel (each
  app's calls made on behalf of its own identity);
- :mod:`~casino_tui.table.remote`: :class:`RemoteHub`, the :class:`TableHub` of a player's app
  over the channel (:func:`hub_from_environment`).

Solo and hot-seat games run a controller in the app's process; a server's tables run in its hub.
"""

from .config import (
    DEFAULT_LEVEL,
    MAX_TARGET,
    SEED_MAX,
    GameConfig,
    SeatConfig,
    default_seats,
    loaded_config,
    parse_seed,
    save_seats,
    seat_names,
)
from .controller import ComputerTurn, MoveRefused, SaveNotice, TableController, Thinker, autosave
from .events import SPECTATOR, SeatInfo, TableEvent, TableView

__all__ = [
    "DEFAULT_LEVEL", "MAX_TARGET", "SEED_MAX", "SPECTATOR", "ComputerTurn", "GameConfig",
    "MoveRefused", "SaveNotice", "SeatConfig", "SeatInfo", "TableController", "TableEvent",
    "TableView", "Thinker", "autosave", "default_seats", "loaded_config", "parse_seed",
    "save_seats", "seat_names",
]
