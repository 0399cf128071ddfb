"""The asyncssh server: who may connect, the limits, and one :class:`PtyGame` per session."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import itertools
import logging
import os
import platform
import sys
import time
import weakref
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import asyncssh

from casino_tui.procs import TABLE_NICE_ENV, autogroup_nice, table_nice
from casino_tui.saves.storestatus import STORE_STATUS_ENV
from casino_tui.table.wire import Identity, new_secret, session_environment, socket_path

from .config import (
    FILES_BASE,
    FILES_PER_SESSION,
    NO_GAME_SECONDS,
    ServeConfig,
    StoreAway,
    StoreStartError,
)
from .forkserver import ForkServer
from .metrics import MetricsEndpoint, ServerMetrics
from .players import (
    CONTINUE_FLAG,
    AuthorizedKeys,
    PlayerDirs,
    app_arguments,
    app_supports_flag,
    check_data_dir,
    host_key_problem,
    join_command,
    latest_save_time,
    load_or_create_host_key,
    plain_command,
    player_id,
    prepare_player,
    read_host_key_file,
)
from .pty_session import (
    INPUT_WINDOW,
    NOTICE_ENV,
    PtyGame,
    SessionEnd,
    child_environment,
    clamp_size,
    client_wants_ascii,
    valid_term,
)
from .webfront import BrowserFront, WebFrontError

if TYPE_CHECKING:  # pragma: no cover
    from casino_tui.ai.pool import ComputerPool
    from casino_tui.store.tables import PgHub
    from casino_tui.table.computers import ComputerService
    from casino_tui.table.hub import LocalHub
    from casino_tui.table.service import HubService

    from .shared import SharedPlayers

log = logging.getLogger("casino_tui.serve")


def raise_open_files_limit(sessions: int) -> tuple[int, int]:
    """Raise this process's soft limit of open files (often 1,024) to what ``sessions``
    players need (:data:`FILES_PER_SESSION` each, and :data:`FILES_BASE`), as far as the hard
    limit allows; the soft limit before and after (a warning in the log when it stays short:
    the logins past it would fail)."""
    import resource

    need = FILES_BASE + FILES_PER_SESSION * sessions
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or soft >= need:
        return soft, soft
    target = need if hard == resource.RLIM_INFINITY else min(need, hard)
    if target > soft:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        except (ValueError, OSError) as err:
            log.warning("cannot raise the limit of open files from %d to %d: %s", soft,
                        target, err)
            target = soft
    if target < need:
        log.warning("open files are limited to %d (hard limit %s): %d players need about "
                    "%d; raise the limit (ulimit -n, LimitNOFILE= in a systemd unit) or "
                    "lower --max-sessions", target, hard, sessions, need)
    return soft, target

LOGIN_TIMEOUT = 30.0  # seconds to finish authentication
# The ciphers offered, cheapest first: AES in GCM mode (its own MAC), then in CTR mode (with
# the client's choice of MAC), both done in one call of the `cryptography` library (AES-NI).
# ChaCha20-Poly1305, asyncssh's and OpenSSH's first choice, is left out: asyncssh makes it of
# three ChaCha20 ciphers and a Poly1305 for every packet, which cost the server 1.5-3.5 ms
# more per login (a key exchange and the title, 40 logins in a row, three runs) and the
# client as much. A client picks the first of its own list that the server offers, so
# OpenSSH takes aes128-ctr with umac-64-etm (as cheap: measured), asyncssh aes256-gcm.
CIPHERS = ("aes128-gcm@openssh.com", "aes256-gcm@openssh.com", "aes128-ctr", "aes192-ctr",
           "aes256-ctr")
KEEPALIVE_INTERVAL = 15.0  # a silent client is asked every 15 s; 3 unanswered: gone
# A logged-in connection without a game (``ssh -N``, or one whose game has ended) is closed
# after this many seconds, or after --idle-timeout if that is shorter: real clients open their
# session at once, and an idle connection must not hold one of the --max-sessions places.
NO_GAME_TIMEOUT = NO_GAME_SECONDS
# How long a new session waits for the same player's previous game to be hung up (the hang-up
# itself takes at most hangup_grace + about 4 s: SIGTERM, SIGKILL, the goodbye message).
REPLACE_WAIT_EXTRA = 6.0
# The tables: their channel's socket is DATA/tables/hub.sock (a directory of mode 0700, see
# casino_tui.table.wire) and their saves DATA/tables/games/ (the save format of every game).
TABLES_DIR = "tables"
CLOSE_IDLE_EVERY = 600.0  # seconds between two looks for tables nobody came back to


class RateLimiter:
    """At most ``limit`` events per ``window`` seconds for each key (a sliding window)."""

    def __init__(self, limit: int, window: float = 60.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.limit = limit
        self.window = window
        self.clock = clock
        self._events: dict[str, collections.deque[float]] = {}

    def allow(self, key: str) -> bool:
        """Record an attempt; False when it is over the limit (rejected attempts count too,
        so a client that keeps hammering stays out until it pauses)."""
        return self.limit <= 0 or self.attempt(key) <= self.limit

    def attempt(self, key: str) -> int:
        """Record an attempt; the number of attempts in the window, this one included (0 when
        there is no limit)."""
        if self.limit <= 0:
            return 0
        now = self.clock()
        q = self._events.setdefault(key, collections.deque())
        while q and q[0] <= now - self.window:
            q.popleft()
        q.append(now)
        if len(self._events) > 10_000:  # forget quiet addresses
            for k in [k for k, v in self._events.items() if not v or v[-1] <= now - self.window]:
                del self._events[k]
        return len(q)


class _GameProcess(asyncssh.SSHServerProcess[bytes]):
    """A session channel, handled by :meth:`GameServer._session`.

    The same as asyncssh makes for a ``process_factory``, made here only to see an sftp
    request: asyncssh turns that down itself (the server has no SFTP), so the session
    handler, which refuses and logs every other request, would never hear of it."""

    def __init__(self, connection: _Connection,
                 handler: Callable[[asyncssh.SSHServerProcess[bytes]], Awaitable[None]]
                 ) -> None:
        super().__init__(handler, None, 0, False)
        self._connection = connection

    def subsystem_requested(self, subsystem: str) -> bool:
        if subsystem == "sftp":
            c = self._connection
            log.info("refused %s from %s: asked for a subsystem %s", c.fingerprint, c.peer,
                     _shown(subsystem))
            c.server.metrics.refuse("command")
            return False  # the client says "subsystem request failed"
        return bool(super().subsystem_requested(subsystem))


class _Connection(asyncssh.SSHServer):
    """One SSH connection: public-key authentication only; the key names the player."""

    def __init__(self, server: GameServer) -> None:
        self.server = server
        self.conn: asyncssh.SSHServerConnection | None = None
        self.peer = "?"
        self.address = ""  # the client's address alone (the peer without its port)
        self.throttled = False
        self.fingerprint: str | None = None
        self.username = ""
        self.games = 0  # game sessions running on this connection
        self.closed = False
        self.key_refused = False  # a key not in --authorized-keys was offered
        self.authenticated = False
        self._no_game_timer: asyncio.TimerHandle | None = None

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self.conn = conn
        peer = conn.get_extra_info("peername") or ("?", 0)
        self.peer = f"{peer[0]}:{peer[1]}"
        self.address = str(peer[0])
        limit = self.server.config.rate_limit
        attempts = self.server.rate.attempt(str(peer[0]))
        if attempts <= limit:
            return
        self.throttled = True
        self.server.metrics.refuse("rate_limit")
        if attempts > 2 * limit:
            # A client that goes on after being told (below) is dropped at once, before the
            # key exchange, the costly part of a connection: a flood costs us next to nothing.
            if attempts == 2 * limit + 1:
                log.warning("dropping further connections from %s without a word: more than "
                            "%d in a minute", peer[0], 2 * limit)
            conn.abort()
            return
        log.warning("connection from %s over the limit of %d per minute", self.peer, limit)

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self._cancel_no_game_timer()
        self.server.connection_closed(self)
        if self.key_refused and not self.authenticated and not self.throttled:
            self.server.metrics.refuse("not_listed")
        if exc is not None and self.fingerprint is None and not self.throttled:
            log.debug("connection from %s closed before login: %s", self.peer, exc)

    def begin_auth(self, username: str) -> bool:
        self.username = username
        if self.throttled and self.conn is not None:
            # Refused here, right after the key exchange, and not in connection_made: a
            # disconnect sent before the key exchange is lost (the OpenSSH client, busy
            # sending its own key exchange, only reports "Broken pipe" or nothing), while
            # this one it prints: "Received disconnect from ...: casino-tui: too many ...".
            self.conn.disconnect(
                asyncssh.DISC_TOO_MANY_CONNECTIONS,
                f"casino-tui: too many connections from your address (limit "
                f"{self.server.config.rate_limit} a minute). Wait a minute and try again.")
            return True  # never False: that would mean "no authentication needed"
        if self.server.authorized is not None:
            self.server.authorized.reload()
        return True

    def auth_completed(self) -> None:
        self.authenticated = True
        self.server.connection_authenticated(self)

    def session_requested(self) -> _GameProcess:
        return _GameProcess(self, self.server._session)

    def public_key_auth_supported(self) -> bool:
        return True

    def password_auth_supported(self) -> bool:
        return False

    def kbdint_auth_supported(self) -> bool:
        return False

    def host_based_auth_supported(self) -> bool:
        return False

    def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        if self.throttled:
            return False
        fingerprint = key.get_fingerprint("sha256")
        authorized = self.server.authorized
        if authorized is not None and not authorized.admits(key):
            log.info("refused key %s from %s (not in %s)", fingerprint, self.peer,
                     authorized.path)
            self.key_refused = True
            return False
        # The last key accepted here is the one the successful login signs with.
        self.fingerprint = fingerprint
        return True

    # ------------------------------------------------------------------ without a game
    def game_started(self) -> None:
        self.games += 1
        self._cancel_no_game_timer()

    def game_ended(self) -> None:
        self.games -= 1
        if self.games == 0:
            self.start_no_game_timer()

    def start_no_game_timer(self) -> None:
        self._cancel_no_game_timer()
        if self.conn is None or self.closed:
            return
        wait = self.server.no_game_timeout
        self._no_game_timer = asyncio.get_running_loop().call_later(
            wait, self._close_without_game, wait)

    def _cancel_no_game_timer(self) -> None:
        if self._no_game_timer is not None:
            self._no_game_timer.cancel()
            self._no_game_timer = None

    def _close_without_game(self, wait: float) -> None:
        self._no_game_timer = None
        if self.games or self.conn is None or self.closed:
            return
        log.info("closed the connection of %s from %s: no game on it for %gs",
                 self.fingerprint, self.peer, wait)
        self.conn.disconnect(
            asyncssh.DISC_BY_APPLICATION,
            f"casino-tui: no game was started on this connection within {wait:g} seconds. "
            f"To play, connect without -N and without a command: "
            f"ssh -t -p {self.server.port} HOST")


class GameServer:
    """``casino-tui serve``: start with :meth:`start`, end with :meth:`close`."""

    def __init__(self, config: ServeConfig) -> None:
        self.config = config
        self.rate = RateLimiter(config.rate_limit)
        self.authorized = (AuthorizedKeys(config.authorized_keys)
                           if config.authorized_keys is not None else None)
        self.sessions: dict[int, PtyGame] = {}
        self.connections: set[_Connection] = set()  # logged in, for --max-sessions
        self.active = 0  # game sessions admitted (starting or playing)
        self.closing = False
        self._ids = itertools.count(1)
        self._acceptor: asyncssh.SSHAcceptor | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        # One player's sessions start one at a time (each hangs up the one before).
        self._player_locks: weakref.WeakValueDictionary[str, asyncio.Lock] = (
            weakref.WeakValueDictionary())
        self.continue_supported = app_supports_flag(CONTINUE_FLAG)
        self.port = config.port
        # The tables people play at together: one hub (every table's one authority) and its
        # service on the table channel; None while closed (a problem at start is logged and
        # the server runs without tables).
        self.hub: LocalHub | PgHub | None = None
        self.hub_service: HubService | None = None
        # The computer players of every session and table: one pool of worker processes
        # (sized to the host's cores), reached by each session's game over its own channel
        # (None: closed; the games then start their own computer player).
        self.pool: ComputerPool | None = None
        self.computers: ComputerService | None = None
        self._warming: asyncio.Task[None] | None = None
        self._idle_task: asyncio.Task[None] | None = None
        # Browser players (--web-port): None without a web front end.
        self.web_front: BrowserFront | None = None
        # What the operator sees (--metrics-port, SIGUSR1): recorded into as things happen.
        self.metrics = ServerMetrics()
        self.metrics_endpoint: MetricsEndpoint | None = None
        # Where sessions are forked from (None: --no-fork-server).
        self.forker: ForkServer | None = None
        # The players in the shared store (--store): None without a store.
        self.shared: SharedPlayers | None = None

    @property
    def no_game_timeout(self) -> float:
        """Seconds a logged-in connection may stay without a game."""
        idle = self.config.idle_timeout
        return min(NO_GAME_TIMEOUT, idle) if idle else NO_GAME_TIMEOUT

    async def start(self) -> None:
        """Check the data directory and the host key (:class:`DataDirError` if they cannot
        be used), then listen (OSError if the address or port cannot be used)."""
        cfg = self.config
        check_data_dir(cfg.data_dir)
        raise_open_files_limit(cfg.max_sessions * (2 if cfg.web_port is not None else 1))
        if cfg.host_key is not None:
            host_key = read_host_key_file(cfg.host_key)
        else:
            try:
                host_key = load_or_create_host_key(cfg.data_dir)
            except (OSError, asyncssh.KeyImportError) as err:
                raise host_key_problem(err, cfg.data_dir) from err
        if cfg.store is not None:  # before listening: a server without its store refuses
            await self._open_store()
        self._acceptor = await asyncssh.create_server(
            lambda: _Connection(self), cfg.host, cfg.port,
            server_host_keys=[host_key],  # sessions: _Connection.session_requested
            encoding=None, line_editor=False, allow_pty=True,
            agent_forwarding=False, x11_forwarding=False, gss_host=None,
            login_timeout=LOGIN_TIMEOUT, keepalive_interval=KEEPALIVE_INTERVAL,
            window=INPUT_WINDOW,  # what the server holds of a session's input, at most
            encryption_algs=list(CIPHERS),
            server_version="casino-tui")
        sockets = self._acceptor.sockets
        if sockets:
            self.port = sockets[0].getsockname()[1]
        await self._open_computers()
        if cfg.fork_server:  # warms up while the rest starts; until then: fresh processes
            self.forker = ForkServer()
            self.forker.start()
        else:
            log.info("no fork server: every session starts a fresh process")
        await self._open_tables()
        if cfg.web_port is not None:
            front = BrowserFront(self)
            try:
                await front.start()
            except WebFrontError:
                await self.close()
                raise
            self.web_front = front
        if cfg.metrics_port is not None:
            endpoint = MetricsEndpoint(self, cfg.metrics_host, cfg.metrics_port)
            try:
                await endpoint.start()
            except OSError as err:
                await self.close()
                raise WebFrontError(f"cannot serve the metrics on {cfg.metrics_host} port "
                                    f"{cfg.metrics_port}: {err.strerror or err}") from None
            self.metrics_endpoint = endpoint
            log.info("metrics: http://%s/metrics (Prometheus text format)",
                     _host_port(cfg.metrics_host, endpoint.port))
        log.info("host key %s (%s)", host_key.get_fingerprint("sha256"),
                 cfg.host_key or cfg.data_dir / "ssh_host_ed25519_key.pub")
        if self.authorized is None:
            log.warning("OPEN MODE: any SSH key is admitted and becomes a new player "
                        "(use --authorized-keys FILE to admit only listed keys)")
        idle = (f"{cfg.idle_timeout / 60:g} min" if cfg.idle_timeout else "off")
        rate = f"{cfg.rate_limit}/min per address" if cfg.rate_limit > 0 else "off"
        log.info("limits: %d players connected, idle timeout %s (without a game %gs), new "
                 "connections %s; games run %s", cfg.max_sessions, idle, self.no_game_timeout,
                 rate, f"{cfg.session_nice} nice steps below the server" if cfg.session_nice
                 else "at the server's priority")
        if not self.continue_supported:
            log.info("the game has no %s flag yet: players resume from the title screen",
                     CONTINUE_FLAG)
        log.info("data in %s", cfg.data_dir)
        # the games run on the server's own interpreter (forked from it, or started with it),
        # and how that Python was built weighs on every game's CPU (docs/SERVE.md)
        log.info("games run on Python %s (%s)%s", platform.python_version(), sys.executable,
                 interpreter_note(sys.version_info[:2]))
        if self.forker is not None and not await self.forker.wait_ready():
            log.warning("the fork server is not ready: sessions start as fresh processes "
                        "until it is")
        hosts = sorted({s.getsockname()[0] for s in sockets})
        log.info("listening on %s port %d", ", ".join(hosts) or cfg.host, self.port)

    async def close(self) -> None:
        """Stop accepting, hang up every game (they are saved) and wait for them."""
        self.closing = True
        if self._acceptor is not None:
            self._acceptor.close()
        for game in list(self.sessions.values()):
            game.stop(SessionEnd("shutdown", 1))
        for connection in list(self.connections):
            if not connection.games and connection.conn is not None:
                connection.conn.disconnect(asyncssh.DISC_BY_APPLICATION,
                                           "casino-tui: the server is shutting down.")
        front, self.web_front = self.web_front, None
        endpoint, self.metrics_endpoint = self.metrics_endpoint, None
        if endpoint is not None:
            await endpoint.close()
        if self._tasks or front is not None:
            await asyncio.wait([*self._tasks, asyncio.ensure_future(
                front.close() if front is not None else asyncio.sleep(0))],
                timeout=self.config.hangup_grace + 5)
        await self._close_tables()
        await self._close_computers()
        shared, self.shared = self.shared, None
        if shared is not None:
            await shared.close()
        if self.forker is not None:
            await self.forker.close()
        if self._acceptor is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._acceptor.wait_closed(), 2.0)

    # ------------------------------------------------------------------ the shared store
    async def _open_store(self) -> None:
        """Connect to the store, bring its schema up to date, listen (StoreStartError if it
        cannot be used: the server does not start)."""
        from casino_tui.store.db import StoreError
        from casino_tui.store.link import new_host_id

        from .shared import SharedPlayers

        assert self.config.store is not None
        shared = SharedPlayers(self, self.config.store, self.config.host_name or new_host_id())
        try:
            await shared.start()
        except StoreError as err:
            raise StoreStartError(f"{err}; the server does not start without its store "
                                  "(--store or CASINO_TUI_STORE)") from None
        self.shared = shared

    # ------------------------------------------------------------------ computer players
    async def _open_computers(self) -> None:
        """The pool of computer players (worker processes, warmed in the background) and its
        channel for the sessions' games. A channel that cannot be opened is logged: the
        tables still use the pool, and each game starts its own computer player."""
        from casino_tui.ai.pool import ComputerPool
        from casino_tui.table.computers import ComputerService, socket_path
        from casino_tui.table.wire import WireError

        count = self.config.computers
        if count == 0:  # no pool for the games: the tables' computers think in a small one
            self.pool = ComputerPool(min(2, os.cpu_count() or 1), fast_workers=0)
            log.info("computer players: each game starts its own (--computers 0); the "
                     "tables' think in %d processes", self.pool.size)
            return
        pool = ComputerPool(count)
        self.pool = pool
        self._warming = asyncio.get_running_loop().create_task(pool.start())
        service = ComputerService(pool)
        try:
            await service.start(socket_path(self.config.data_dir))
        except (OSError, WireError) as err:
            log.warning("the computer players' channel is closed (each game starts its own "
                        "computer player): %s", err)
            return
        self.computers = service
        stats = pool.stats()
        log.info("computer players: one pool of %d processes for searches and %d for the "
                 "quick levels, for every game", stats.workers, stats.fast_workers)

    async def _close_computers(self) -> None:
        service, pool = self.computers, self.pool
        self.computers = self.pool = None
        if self._warming is not None:
            self._warming.cancel()
            self._warming = None
        if service is not None:
            await service.close()
        if pool is not None:
            log.info("computer players: %s", pool.stats().summary())
            pool.shutdown()

    def _computers_secret(self, number: int, fingerprint: str,
                          env: dict[str, str]) -> str | None:
        """Admit session ``number``'s game to the pool of computer players: a new secret in
        its environment (never on its command line). None when the channel is closed."""
        from casino_tui.table.computers import computers_environment

        service = self.computers
        if service is None or service.path is None:
            return None
        secret = new_secret()
        service.register(secret, Identity(player_id(fingerprint), fingerprint, number))
        env.update(computers_environment(service.path, secret))
        return secret

    def end_computers(self, secret: str | None) -> None:
        """A session ended: its requests to the pool are dropped, its secret forgotten."""
        if secret is not None and self.computers is not None:
            self.computers.end_session(secret)

    # ------------------------------------------------------------------ tables
    @property
    def tables_dir(self) -> Path:
        return self.config.data_dir / TABLES_DIR

    async def _open_tables(self) -> None:
        """The hub with the tables saved before (restored), its computers' worker processes
        and its channel. A problem (a full disk, a socket path too long) is logged: the
        server runs on without tables."""
        from casino_tui.ai.pool import ComputerPool
        from casino_tui.saves import SaveStore, games_dir
        from casino_tui.table.hub import LocalHub
        from casino_tui.table.service import HubService
        from casino_tui.table.wire import WireError

        thinker = self.pool or ComputerPool()
        if self.config.store is not None:  # the tables of every host, in the shared store
            await self._open_shared_tables(thinker)
            return
        hub = LocalHub(self.metrics.timed(thinker), SaveStore(games_dir(self.tables_dir)),
                       save_in_background=True)  # the disk never holds up the SSH sessions
        service = HubService(hub)
        try:
            restored = await asyncio.to_thread(hub.restore)
            await service.start(socket_path(self.config.data_dir))
        except (OSError, WireError) as err:
            log.warning("the tables are closed (people can play alone): %s", err)
            hub.shutdown()
            if thinker is not self.pool:
                thinker.shutdown()
            return
        self.hub, self.hub_service = hub, service
        self._idle_task = asyncio.get_running_loop().create_task(self._close_idle())
        log.info("tables: %d restored, saved in %s", len(restored), games_dir(self.tables_dir))

    async def _open_shared_tables(self, thinker: ComputerPool) -> None:
        """With --store: a PgHub, this host's share of the tables of every host (each run by
        one host at a time; docs/STORE.md, Tables)."""
        from casino_tui.store.db import StoreError, redact
        from casino_tui.store.tables import open_hub
        from casino_tui.table.hub import HubError
        from casino_tui.table.service import HubService
        from casino_tui.table.wire import WireError

        assert self.config.store is not None
        try:
            hub = await open_hub(self.config.store, self.metrics.timed(thinker),
                                 host=self.config.host_name)
        except StoreError as err:
            log.warning("the tables are closed (people can play alone): %s", err)
            if thinker is not self.pool:
                thinker.shutdown()
            return
        service = HubService(hub)
        try:
            restored = await hub.restore()
            await service.start(socket_path(self.config.data_dir))
        except (OSError, WireError, HubError) as err:
            log.warning("the tables are closed (people can play alone): %s", err)
            await hub.aclose()
            if thinker is not self.pool:
                thinker.shutdown()
            return
        self.hub, self.hub_service = hub, service
        self._idle_task = asyncio.get_running_loop().create_task(self._close_idle())
        log.info("tables: shared in the store %s as host %s; %d taken over",
                 redact(self.config.store), hub.host, len(restored))

    async def _close_idle(self) -> None:
        while self.hub is not None:
            await asyncio.sleep(CLOSE_IDLE_EVERY)
            if self.hub is None:
                return
            try:
                closed = self.hub.close_idle()
            except Exception:
                log.exception("closing the idle tables failed")
                continue
            if closed:
                log.info("closed %d table(s) nobody came back to for a day", len(closed))

    async def _close_tables(self) -> None:
        hub, service = self.hub, self.hub_service
        self.hub = self.hub_service = None
        if self._idle_task is not None:
            self._idle_task.cancel()
            self._idle_task = None
        if service is not None:
            await service.close()
        if hub is not None:
            closer = getattr(hub, "aclose", None)  # a PgHub gives up its leases
            if closer is not None:
                await closer()
            else:
                hub.shutdown()

    # ------------------------------------------------------------------ connections
    def connection_authenticated(self, connection: _Connection) -> None:
        """A login: it takes one of the --max-sessions places, game or not."""
        conn, fingerprint = connection.conn, connection.fingerprint
        if conn is None or fingerprint is None:  # pragma: no cover - asyncssh checked the key
            return
        limit = self.config.max_sessions
        mine = sum(1 for c in self.connections if c.fingerprint == fingerprint)
        if len(self.connections) >= limit and mine != 1:
            log.warning("refused %s from %s: the server is full (%d players connected)",
                        fingerprint, connection.peer, limit)
            self.metrics.refuse("full")
            conn.disconnect(asyncssh.DISC_TOO_MANY_CONNECTIONS,
                            f"casino-tui: the server is full ({limit} players connected). "
                            f"Try again in a few minutes.")
            return
        self.connections.add(connection)
        self.metrics.logins += 1
        # Over the limit, a player who already holds a place may come back once: their old
        # connection may be dead but not yet noticed, and their new game replaces it.
        back = " (coming back: over the limit until the old connection goes)" if (
            len(self.connections) > limit) else ""
        log.info("login: player %s user %r from %s (%d/%d connected)%s", fingerprint,
                 connection.username, connection.peer, len(self.connections), limit, back)
        connection.start_no_game_timer()

    def connection_closed(self, connection: _Connection) -> None:
        self.connections.discard(connection)

    # ------------------------------------------------------------------ one session
    async def _session(self, process: asyncssh.SSHServerProcess[bytes]) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        try:
            await self._serve(process)
        finally:
            if task is not None:
                self._tasks.discard(task)

    async def _serve(self, process: asyncssh.SSHServerProcess[bytes]) -> None:
        conn = process.get_extra_info("connection")
        owner = conn.get_owner() if conn is not None else None
        if not isinstance(owner, _Connection) or owner.fingerprint is None:
            _refuse(process, "casino-tui: no player key on this connection.")
            return
        pty = process.get_terminal_type() is not None
        # The commands accepted: ``join CODE`` (ssh -t -p PORT HOST join CODE), ``plain`` (the
        # game as lines of text, for screen readers) and ``plain join CODE``.
        join = join_command(process.command) if process.command is not None else None
        plain = False
        if process.command is not None and join is None:
            plain, join = plain_command(process.command)
        if (process.command is not None and join is None and not plain) \
                or process.subsystem is not None:
            what = (f"subsystem {_shown(process.subsystem)}" if process.subsystem is not None
                    else f"command {_shown(process.command or '')}")
            log.info("refused %s from %s: asked for a %s", owner.fingerprint, owner.peer, what)
            self.metrics.refuse("command")
            _refuse(process, "casino-tui: this server only runs the game; connect without a "
                             "command: ssh -t -p PORT HOST (or ssh -t -p PORT HOST plain for "
                             "plain text, for screen readers)", pty)
            return
        if not pty:
            log.info("refused %s from %s: no terminal (ssh -T)", owner.fingerprint, owner.peer)
            self.metrics.refuse("no_terminal")
            _refuse(process, "casino-tui: the game needs a terminal. Connect without -T (use "
                             "ssh -t if your client does not ask for one).")
            return
        # No separate limit on games: every connection already holds a --max-sessions place,
        # and a player has one game at a time (a new one hangs up the one before).
        owner.game_started()
        self.active += 1
        try:
            await self._play(process, owner, join, plain=plain)
        finally:
            self.active -= 1
            owner.game_ended()

    async def log_status(self) -> None:
        """Log one line of what the metrics say now (SIGUSR1)."""
        try:
            snapshot = await self.metrics.snapshot(self)
        except Exception:
            log.exception("reading the status failed")
            return
        log.info("%s", snapshot.summary())

    def new_session_number(self) -> int:
        """The number of a new session (SSH or browser), for the log and its table secret."""
        return next(self._ids)

    def player_lock(self, fingerprint: str) -> asyncio.Lock:
        """One player's games start one at a time (each hangs up the one before)."""
        lock = self._player_locks.get(fingerprint)
        if lock is None:
            lock = asyncio.Lock()
            self._player_locks[fingerprint] = lock
        return lock

    async def _replace_older(self, number: int, owner: _Connection) -> None:
        """Hang up the player's other games and wait (bounded) until they have ended.

        A player has one game at a time. Their other session may be on a connection that is
        dead but not yet noticed (the client's machine slept, the network dropped): it still
        runs the game and holds its save open, so this one could not continue it. The hang-up
        saves the game; once it has ended, this session starts with --continue."""
        assert owner.fingerprint is not None
        await self.hang_up_ssh(owner.fingerprint, SessionEnd("replaced", 1), number,
                               f"connected again from {owner.peer}")

    async def hang_up_ssh(self, fingerprint: str, end: SessionEnd, number: int,
                          why: str) -> None:
        """Hang up the SSH games of the player of ``fingerprint`` (``end`` says why to them;
        ``why`` is for the log of session ``number``, which takes over) and wait, bounded,
        until they have ended."""
        older = {n: g for n, g in self.sessions.items() if g.player == fingerprint}
        if not older:
            return
        for n, game in older.items():
            if not game.hanging_up:
                log.info("session %d: player %s %s: hanging up their session %d", number,
                         fingerprint, why, n)
            game.stop(end)
        wait = self.config.hangup_grace + REPLACE_WAIT_EXTRA
        waiters = [asyncio.ensure_future(g.ended.wait()) for g in older.values()]
        _done, pending = await asyncio.wait(waiters, timeout=wait)
        for waiter in pending:
            waiter.cancel()
        if pending:
            log.warning("session %d: the player's earlier session did not end within %gs",
                        number, wait)

    async def _play(self, process: asyncssh.SSHServerProcess[bytes], owner: _Connection,
                    join: str | None = None, *, plain: bool = False) -> None:
        assert owner.fingerprint is not None
        cfg = self.config
        number = self.new_session_number()
        dirs = PlayerDirs.for_fingerprint(cfg.data_dir, owner.fingerprint)
        # A full disk (or a data directory gone read-only) keeps nobody out: the game starts
        # and tells the player, and the log says so.
        problem = prepare_player(dirs, owner.fingerprint)
        term = valid_term(process.get_terminal_type())
        client_env = dict(process.env)
        async with self.player_lock(owner.fingerprint):
            await self._replace_older(number, owner)
            if self.web_front is not None and await self.web_front.hang_up(
                    player_id(owner.fingerprint)):
                log.info("session %d: player %s connected over SSH: ended their game in a "
                         "browser", number, owner.fingerprint)
            store_session = None
            if self.shared is not None:
                try:
                    store_session = await self.shared.begin(owner.fingerprint, number, dirs)
                except StoreAway as err:
                    log.warning("refused %s from %s: %s", owner.fingerprint, owner.peer, err)
                    self.metrics.refuse("store")
                    _refuse(process, err.message, True)
                    return
            args = await self.game_arguments(dirs, owner.fingerprint,
                                             ascii=client_wants_ascii(client_env), join=join,
                                             plain=plain)
            if self.closing:
                if store_session is not None and self.shared is not None:
                    await self.shared.end(store_session)
                _refuse(process, "casino-tui: the server is shutting down. Try again later.",
                        True)
                return
            cols, rows, pw, ph = process.get_terminal_size()
            env = child_environment(term, client_env, dirs.root, dirs.data, dirs.config,
                                    players_dir=dirs.root.parent)
            if problem is not None:
                env[NOTICE_ENV] = problem
            if store_session is not None:  # the game says when the store is away
                env[STORE_STATUS_ENV] = str(store_session.status)
            secret = self._table_secret(number, owner.fingerprint, env, owner.address)
            computers = self._computers_secret(number, owner.fingerprint, env)
            game = PtyGame(
                process=process, term=term, size=(cols, rows, pw, ph), env=env, args=args,
                cwd=next((d for d in (dirs.root, cfg.data_dir) if d.is_dir()), Path("/")),
                idle_timeout=cfg.idle_timeout,
                hangup_grace=cfg.hangup_grace, player=owner.fingerprint,
                on_key_latency=self.metrics.key_answered, forker=self.forker,
                nice=cfg.session_nice)
            self.sessions[number] = game

        def started(pid: int) -> None:
            log.info("session %d start: player %s user %r from %s term %s size %dx%d pid %d "
                     "%s args [%s] (%d games, %d/%d connected)", number, owner.fingerprint,
                     owner.username, owner.peer, term, *clamp_size(cols, rows), pid,
                     "forked" if game.forked else "fresh", " ".join(args),
                     self.active, len(self.connections), cfg.max_sessions)

        game.on_started = started
        end = SessionEnd("error", 1)
        try:
            end = await game.run()
        except Exception:
            log.exception("session %d failed", number)
            _refuse(process, "casino-tui: the game could not be started.", True)
            return
        finally:
            self.sessions.pop(number, None)
            self.end_computers(computers)
            if store_session is not None and self.shared is not None:
                await self.shared.end(store_session)
            if secret is not None and self.hub_service is not None:
                await self.hub_service.end_session(secret)
            detail = f" ({end.detail})" if end.detail else ""
            log.info("session %d end: player %s duration %.1fs reason %s%s status %d", number,
                     owner.fingerprint, game.duration, end.reason, detail, end.status)
        with contextlib.suppress(Exception):
            process.exit(end.status)


    async def game_arguments(self, dirs: PlayerDirs, fingerprint: str, *,
                             ascii: bool = False, join: str | None = None,
                             plain: bool = False) -> list[str]:
        """The game's arguments for a new session of the player (SSH or browser): as
        :func:`app_arguments`, but without ``--continue`` when the game they left last is at
        a table (their seat in a game in progress, opened or played after their latest solo
        save): the game then goes back to that table at start, as after a dropped
        connection. Call it once the player's earlier session has ended."""
        args = await asyncio.to_thread(app_arguments, dirs,
                                       continue_supported=self.continue_supported,
                                       ascii=ascii, join=join, plain=plain)
        service, hub = self.hub_service, self.hub
        if CONTINUE_FLAG not in args or service is None or hub is None:
            return args
        last = service.last_at_table(player_id(fingerprint))
        if last is None:
            return args
        table_id, when = last
        saved = await asyncio.to_thread(latest_save_time, dirs.data)
        if saved is not None and saved > when:
            return args
        from casino_tui.table.hub import HubError, Person

        try:
            tables = await hub.list_tables(Person(player_id(fingerprint), "?"))
        except HubError:
            return args
        if any(t.table_id == table_id and t.your_seat is not None and t.started
               and not t.finished for t in tables):
            return [a for a in args if a != CONTINUE_FLAG]
        return args

    def _table_secret(self, number: int, fingerprint: str, env: dict[str, str],
                      address: str = "") -> str | None:
        """Admit session ``number``'s game to the tables: a new secret naming the player's
        identity (and the ``address`` they connected from, for the limits per address), put
        in the game's environment (never on its command line). None when the tables are
        closed."""
        service = self.hub_service
        if service is None or service.path is None:
            return None
        secret = new_secret()
        service.register(secret, Identity(player_id(fingerprint), fingerprint, number, address))
        env.update(session_environment(service.path, secret))
        nice = table_nice(autogroup_nice(), self.config.session_nice)
        if nice is not None:  # how far below the server the game runs at a table
            env[TABLE_NICE_ENV] = str(nice)
        return secret


def interpreter_note(version: tuple[int, int]) -> str:
    """What the server's log adds to the Python the games run on: on Python 3.11, which
    writes the reference count of every object a game uses (and so copies more of the fork
    server's pages), that 3.12 or later saves memory (measured: the README's "Which Python for
    a server" and docs/SERVE.md's "Python 3.12 for a server short of memory")."""
    if version >= (3, 12):
        return ""
    return ("; on Python 3.12 or later each game keeps about 1.7 MiB less memory of its own "
            "(install the server with it: README, \"Which Python for a server\")")


def _host_port(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _shown(text: str, limit: int = 60) -> str:
    """A client's command or subsystem name as it may appear in the log: quoted, cut short."""
    return repr(text if len(text) <= limit else text[:limit] + "...")


def _refuse(process: asyncssh.SSHServerProcess[bytes], message: str, pty: bool = False) -> None:
    """Tell the client why, and end the session with status 1."""
    text = message.replace("\n", "\r\n") + "\r\n" if pty else message + "\n"
    with contextlib.suppress(Exception):
        process.stderr.write(text.encode())
        process.exit(1)
