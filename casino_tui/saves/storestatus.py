"""Whether the server's shared store of players is away (``casino-tui serve --store``).

A game served with a store saves into the player's directory on the host as always; the
server sends those files on to the store. While it cannot (the store is away) it writes a
small status file, named to the game by :data:`STORE_STATUS_ENV`, holding the sentence to show
(:data:`AWAY`), and removes it once a send works again. The game (the table's save line, or
plain mode's lines) looks at it after every save and, on a screen, every few seconds. A
dotfile: the server never sends it to the store. Pure Python, no Textual.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

STORE_STATUS_ENV = "CASINO_TUI_STORE_STATUS"
STATUS_FILE = ".store-away"  # in the player's data directory
AWAY = ("Saved on this server only: it cannot reach its store of players just now; your "
        "game is sent there when it is back")
BACK = "Saved again: the server has sent your game to its store of players"
_MAX_TEXT = 300  # characters of the file's sentence shown, at most


class StoreStatus:
    """The status file at ``path``: :meth:`look` says whether the store is away."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.away: str | None = None  # the sentence while the store is away, as last seen

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> StoreStatus | None:
        """The status file the server named, or None (no store: nothing to look at)."""
        value = (os.environ if env is None else env).get(STORE_STATUS_ENV, "")
        return cls(Path(value)) if value else None

    def look(self) -> bool:
        """Read the file again; True when the store's state changed since the last look
        (:attr:`away` says which way)."""
        before = self.away
        self.away = _read(self.path)
        return self.away != before


def _read(path: Path) -> str | None:
    """The file's sentence (its first line, printable; :data:`AWAY` when it has none), or
    None when there is no such file."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return None
    except OSError:
        return None  # unreadable: nothing known, say nothing
    line = text.strip().split("\n", 1)[0].strip()[:_MAX_TEXT]
    return line if line and line.isprintable() else AWAY


def write_away(path: Path, text: str = AWAY) -> None:
    """Say that the store is away (the server's side); raises OSError."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text + "\n", encoding="utf-8")
    os.replace(tmp, path)


def clear_away(path: Path) -> None:
    """Say that the store is back (the server's side); raises OSError but not for a file that
    is not there."""
    path.unlink(missing_ok=True)
