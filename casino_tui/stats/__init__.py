"""Statistics and the daily deal, without any UI.

* :mod:`~casino_tui.stats.ledger`: the per-player ledger (``DATA/ledger.jsonl``, one JSON line
  per finished game), :class:`GameRecord`, appending safely, reading past damaged lines,
  rebuilding from the finished saves; the daily deal's seed and how a game is known to be one.
* :mod:`~casino_tui.stats.figures`: the figures of a ledger (:func:`compute`), as JSON, as a
  text table and as a one-line chart.
* :mod:`~casino_tui.stats.daily`: today's date by an injectable clock, the day's results of a
  server's players ranked by points.
* :mod:`~casino_tui.stats.command`: ``casino-tui stats [--json]``.

The package uses the engine, the saves and the settings (display names); nothing above them.
"""

from __future__ import annotations

from casino_tui.stats.figures import Figures, Tally, chart, compute, preset_label, text_report
from casino_tui.stats.ledger import (
    DAILY_LEVEL,
    DAILY_PRESET,
    LEDGER_FILE,
    GameRecord,
    Ledger,
    LedgerError,
    LedgerRead,
    daily_date,
    daily_seed,
    parse_ledger,
    record_from_game,
    record_from_play,
)

__all__ = [
    "DAILY_LEVEL",
    "DAILY_PRESET",
    "LEDGER_FILE",
    "Figures",
    "GameRecord",
    "Ledger",
    "LedgerError",
    "LedgerRead",
    "Tally",
    "chart",
    "compute",
    "daily_date",
    "daily_seed",
    "parse_ledger",
    "preset_label",
    "record_from_game",
    "record_from_play",
    "text_report",
]
