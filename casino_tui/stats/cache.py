"""The figures of a player's ledger, quickly: :func:`ledger_figures`.

The ledger only grows (appends), so the figures of its first N bytes are kept in
``DATA/.ledger.figures.json`` with the SHA-256 of those bytes; the next time only the lines
after them are read and added. When the ledger was changed in any other way (rebuilt, edited,
damaged) the digest differs and everything is read again. The file is only a cache: it may be
deleted at any time, and a cache that cannot be read or written is ignored.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from casino_tui.saves import SaveStore

from .figures import Figures, compute, figures_from_state, figures_state
from .ledger import Ledger, parse_ledger

CACHE_FILE = ".ledger.figures.json"


@dataclass
class LedgerFigures:
    """The figures; ``report``: what was wrong with the ledger (it was rebuilt), if anything;
    ``damaged``: the damaged lines that were skipped (line number, why)."""

    figures: Figures
    report: str | None = None
    damaged: list[tuple[int, str]] = field(default_factory=list)


def ledger_figures(data: Path, store: SaveStore | None = None) -> LedgerFigures:
    """The figures of the ledger of data directory ``data``; a missing or damaged ledger is
    rebuilt (from the finished games of ``store``) as :meth:`Ledger.load` does."""
    ledger = Ledger(data)
    try:
        raw: bytes | None = ledger.path.read_bytes()
    except OSError:
        raw = None
    if raw is not None and raw.endswith(b"\n"):
        cached = _read_cache(data)
        if cached is not None:
            size, digest, start = cached
            if size <= len(raw) and hashlib.sha256(raw[:size]).hexdigest() == digest:
                tail = parse_ledger(raw[size:])
                if not tail.damaged:
                    figures = compute(tail.records, start)
                    if tail.records:
                        _write_cache(data, raw, figures)
                    return LedgerFigures(figures)
        found = parse_ledger(raw)
        if not found.damaged:
            figures = compute(found.records)
            _write_cache(data, raw, figures)
            return LedgerFigures(figures)
    found = ledger.load(store)
    return LedgerFigures(compute(found.records), found.report(), found.damaged)


def _read_cache(data: Path) -> tuple[int, str, Figures] | None:
    try:
        cache = json.loads((data / CACHE_FILE).read_bytes())
        size, digest = cache["bytes"], cache["sha256"]
        if not isinstance(size, int) or not isinstance(digest, str):
            return None
        return size, digest, figures_from_state(cache["figures"])
    except (OSError, ValueError, TypeError, KeyError, RecursionError):
        return None


def _write_cache(data: Path, raw: bytes, figures: Figures) -> None:
    payload = json.dumps({"bytes": len(raw), "sha256": hashlib.sha256(raw).hexdigest(),
                          "figures": figures_state(figures)}, separators=(",", ":"))
    tmp = data / f".{CACHE_FILE}.{os.getpid()}.tmp"
    try:
        tmp.write_text(payload, encoding="ascii")
        os.replace(tmp, data / CACHE_FILE)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink()
