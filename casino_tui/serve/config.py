"""What ``casino-tui serve`` is asked for (:class:`ServeConfig`) and its defaults.

Shared by the command line (:mod:`casino_tui.serve`) and the server
(:mod:`casino_tui.serve.server`), which the command line starts.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 2222
# Players connected at once. What the project's 2-core host holds (README, "A server for a
# crowd"): a player in a game takes 16-23 MiB (PSS, one process forked from the fork server),
# so 200 take 3.2-4.6 GiB; the CPU their drawing needs at a brisk pace is the tighter bound
# (measured in the README), not their memory.
DEFAULT_MAX_SESSIONS = 200
# File descriptors the server holds per connected player, at most: the SSH connection, the
# game's PTY, its connections to the tables and the computers, a browser game's pipes.
FILES_PER_SESSION = 8
FILES_BASE = 256  # the server's own: listeners, the pool's and the fork server's sockets, logs
DEFAULT_IDLE_MINUTES = 30.0
DEFAULT_RATE_LIMIT = 10
# The shared store's URL, when --store is not given (casino_tui.store.db.STORE_ENV, the same).
STORE_ENV = "CASINO_TUI_STORE"
# Nice steps a session's game runs below the server and its pool of computer players: the
# server's own work (logins, relaying keys and screens, tables) and the computers' moves come
# before any game's drawing (casino_tui.serve.forkserver.lower_priority).
DEFAULT_SESSION_NICE = 19
# A logged-in connection without a game is closed after this many seconds (or --idle-timeout).
NO_GAME_SECONDS = 20.0


@dataclass(frozen=True)
class ServeConfig:
    """What ``casino-tui serve`` was asked for."""

    data_dir: Path
    host: str = "127.0.0.1"
    port: int = 2222
    authorized_keys: Path | None = None
    max_sessions: int = DEFAULT_MAX_SESSIONS  # players connected (logged in) at once
    idle_timeout: float | None = 30 * 60.0  # seconds; None: never
    rate_limit: int = 10  # new connections per address per minute; 0: no limit
    hangup_grace: float = 2.0  # seconds a hung-up game has to exit before SIGTERM
    # The web front end (issue 16): None: none; 0: a free port (logged).
    web_port: int | None = None
    web_host: str = "127.0.0.1"
    # The address browsers use (behind a reverse proxy that speaks TLS): scheme://host[:port]
    # without a path; None: http://web_host:web_port.
    web_public_url: str | None = None
    # Worker processes of the one pool of computer players (their searches; one more takes
    # the quick levels): None: the host's cores; 0: no pool for the games, each starts its
    # own computer player as on a player's own machine (the tables keep a small pool).
    computers: int | None = None
    # The Prometheus endpoint (GET /metrics): None: none; 0: a free port (logged).
    metrics_port: int | None = None
    metrics_host: str = "127.0.0.1"
    # Sessions are forked from a warm fork server (casino_tui.serve.forkserver); False: each
    # starts a fresh Python (``--no-fork-server``).
    fork_server: bool = True
    # The shared store (--store or CASINO_TUI_STORE): a PostgreSQL URL; None: the players'
    # files live in the data directory alone. ``host_name``: this server's id in the store
    # (--host-name; None: the machine's name and a random part, new at every start).
    store: str | None = None
    host_name: str | None = None
    # The host key from a file of the operator's (--host-key; the same file for every host of
    # a store, so players' ssh knows them all as one server); None: DATA/ssh_host_ed25519_key,
    # made on the first start.
    host_key: Path | None = None
    # CPU priority of each session's game, in nice steps below the server's (0: the same).
    session_nice: int = DEFAULT_SESSION_NICE


class StoreStartError(Exception):
    """The shared store cannot be used at start; ``str()`` says why (the server stops)."""


class StoreAway(Exception):
    """A login cannot be served: the shared store cannot be reached. ``str()`` says why (for
    the log), ``message`` what the player is told."""

    def __init__(self, why: str, message: str) -> None:
        super().__init__(why)
        self.message = message
