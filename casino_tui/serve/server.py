"""The asyncssh server: who may connect, the limits, and one :class:`PtyGame` per session."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import itertools
import logging
import time
from collections.abc import Callable
from typing import Any

import asyncssh

from . import ServeConfig
from .players import (
    CONTINUE_FLAG,
    AuthorizedKeys,
    PlayerDirs,
    app_arguments,
    app_supports_flag,
    load_or_create_host_key,
)
from .pty_session import (
    PtyGame,
    SessionEnd,
    child_environment,
    client_wants_ascii,
    valid_term,
)

log = logging.getLogger("casino_tui.serve")

LOGIN_TIMEOUT = 30.0  # seconds to finish authentication
KEEPALIVE_INTERVAL = 15.0  # a silent client is asked every 15 s; 3 unanswered: gone


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
        if self.limit <= 0:
            return True
        now = self.clock()
        q = self._events.setdefault(key, collections.deque())
        while q and q[0] <= now - self.window:
            q.popleft()
        q.append(now)
        if len(self._events) > 10_000:  # forget quiet addresses
            for k in [k for k, v in self._events.items() if not v or v[-1] <= now - self.window]:
                del self._events[k]
        return len(q) <= self.limit


class _Connection(asyncssh.SSHServer):
    """One SSH connection: public-key authentication only; the key names the player."""

    def __init__(self, server: GameServer) -> None:
        self.server = server
        self.conn: asyncssh.SSHServerConnection | None = None
        self.peer = "?"
        self.throttled = False
        self.fingerprint: str | None = None
        self.username = ""

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self.conn = conn
        peer = conn.get_extra_info("peername") or ("?", 0)
        self.peer = f"{peer[0]}:{peer[1]}"
        self.throttled = not self.server.rate.allow(str(peer[0]))
        if self.throttled:
            log.warning("connection from %s over the limit of %d per minute",
                        self.peer, self.server.config.rate_limit)

    def connection_lost(self, exc: Exception | None) -> None:
        if exc is not None and self.fingerprint is None:
            log.debug("connection from %s closed before login: %s", self.peer, exc)

    def begin_auth(self, username: str) -> bool:
        self.username = username
        if self.server.authorized is not None:
            self.server.authorized.reload()
        return True

    def public_key_auth_supported(self) -> bool:
        return True

    def password_auth_supported(self) -> bool:
        return False

    def kbdint_auth_supported(self) -> bool:
        return False

    def host_based_auth_supported(self) -> bool:
        return False

    def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        fingerprint = key.get_fingerprint("sha256")
        authorized = self.server.authorized
        if authorized is not None and not authorized.admits(key):
            log.info("refused key %s from %s (not in %s)", fingerprint, self.peer,
                     authorized.path)
            return False
        # The last key accepted here is the one the successful login signs with.
        self.fingerprint = fingerprint
        return True


class GameServer:
    """``casino-tui serve``: start with :meth:`start`, end with :meth:`close`."""

    def __init__(self, config: ServeConfig) -> None:
        self.config = config
        self.rate = RateLimiter(config.rate_limit)
        self.authorized = (AuthorizedKeys(config.authorized_keys)
                           if config.authorized_keys is not None else None)
        self.sessions: dict[int, PtyGame] = {}
        self.active = 0  # sessions admitted (starting or playing), for --max-sessions
        self.closing = False
        self._ids = itertools.count(1)
        self._acceptor: asyncssh.SSHAcceptor | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self.continue_supported = app_supports_flag(CONTINUE_FLAG)
        self.port = config.port

    async def start(self) -> None:
        cfg = self.config
        cfg.data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        host_key = load_or_create_host_key(cfg.data_dir)
        self._acceptor = await asyncssh.create_server(
            lambda: _Connection(self), cfg.host, cfg.port,
            server_host_keys=[host_key], process_factory=self._session,
            encoding=None, line_editor=False, allow_pty=True,
            agent_forwarding=False, x11_forwarding=False, gss_host=None,
            login_timeout=LOGIN_TIMEOUT, keepalive_interval=KEEPALIVE_INTERVAL,
            server_version="casino-tui")
        sockets = self._acceptor.sockets
        if sockets:
            self.port = sockets[0].getsockname()[1]
        log.info("host key %s (%s)", host_key.get_fingerprint("sha256"),
                 cfg.data_dir / "ssh_host_ed25519_key.pub")
        if self.authorized is None:
            log.warning("OPEN MODE: any SSH key is admitted and becomes a new player "
                        "(use --authorized-keys FILE to admit only listed keys)")
        idle = (f"{cfg.idle_timeout / 60:g} min" if cfg.idle_timeout else "off")
        rate = f"{cfg.rate_limit}/min per address" if cfg.rate_limit > 0 else "off"
        log.info("limits: %d sessions, idle timeout %s, new connections %s",
                 cfg.max_sessions, idle, rate)
        if not self.continue_supported:
            log.info("the game has no %s flag yet: players resume from the title screen",
                     CONTINUE_FLAG)
        log.info("data in %s", cfg.data_dir)
        hosts = sorted({s.getsockname()[0] for s in sockets})
        log.info("listening on %s port %d", ", ".join(hosts) or cfg.host, self.port)

    async def close(self) -> None:
        """Stop accepting, hang up every game (they are saved) and wait for them."""
        self.closing = True
        if self._acceptor is not None:
            self._acceptor.close()
        for game in list(self.sessions.values()):
            game.stop(SessionEnd("shutdown", 1))
        if self._tasks:
            await asyncio.wait(self._tasks, timeout=self.config.hangup_grace + 5)
        if self._acceptor is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._acceptor.wait_closed(), 2.0)

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
        if owner.throttled:
            _refuse(process, f"casino-tui: too many connections from your address (limit "
                             f"{self.config.rate_limit} a minute). Wait a minute and try again.",
                    pty)
            return
        if process.command is not None or process.subsystem is not None:
            _refuse(process, "casino-tui: this server only runs the game; connect without a "
                             "command: ssh -t -p PORT HOST", pty)
            return
        if not pty:
            _refuse(process, "casino-tui: the game needs a terminal. Connect without -T (use "
                             "ssh -t if your client does not ask for one).")
            return
        if self.active >= self.config.max_sessions:
            log.warning("refused %s from %s: the server is full (%d sessions)",
                        owner.fingerprint, owner.peer, self.config.max_sessions)
            _refuse(process, f"casino-tui: the server is full ({self.config.max_sessions} "
                             f"games are being played). Try again in a few minutes.", pty)
            return
        self.active += 1
        try:
            await self._play(process, owner)
        finally:
            self.active -= 1

    async def _play(self, process: asyncssh.SSHServerProcess[bytes], owner: _Connection) -> None:
        assert owner.fingerprint is not None
        cfg = self.config
        number = next(self._ids)
        dirs = PlayerDirs.for_fingerprint(cfg.data_dir, owner.fingerprint)
        dirs.ensure()
        dirs.record_visit(owner.fingerprint)
        term = valid_term(process.get_terminal_type())
        client_env = dict(process.env)
        # A reconnect right after a drop: let the old game finish hanging up (and release
        # its save) so that this one can continue it.
        closing = [asyncio.ensure_future(g.ended.wait()) for g in self.sessions.values()
                   if g.player == owner.fingerprint and g.hanging_up]
        if closing:
            _done, pending = await asyncio.wait(closing, timeout=cfg.hangup_grace + 3)
            for waiter in pending:
                waiter.cancel()
        args = await asyncio.to_thread(app_arguments, dirs,
                                       continue_supported=self.continue_supported,
                                       ascii=client_wants_ascii(client_env))
        if self.closing:
            _refuse(process, "casino-tui: the server is shutting down. Try again later.", True)
            return
        cols, rows, pw, ph = process.get_terminal_size()
        game = PtyGame(
            process=process, term=term, size=(cols, rows, pw, ph),
            env=child_environment(term, client_env, dirs.root, dirs.data, dirs.config),
            args=args, cwd=dirs.root, idle_timeout=cfg.idle_timeout,
            hangup_grace=cfg.hangup_grace, player=owner.fingerprint)
        self.sessions[number] = game

        def started(pid: int) -> None:
            log.info("session %d start: player %s user %r from %s term %s size %dx%d pid %d "
                     "args [%s] (%d/%d sessions)", number, owner.fingerprint, owner.username,
                     owner.peer, term, cols, rows, pid, " ".join(args), self.active,
                     cfg.max_sessions)

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
            detail = f" ({end.detail})" if end.detail else ""
            log.info("session %d end: player %s duration %.1fs reason %s%s status %d", number,
                     owner.fingerprint, game.duration, end.reason, detail, end.status)
        with contextlib.suppress(Exception):
            process.exit(end.status)


def _refuse(process: asyncssh.SSHServerProcess[bytes], message: str, pty: bool = False) -> None:
    """Tell the client why, and end the session with status 1."""
    text = message.replace("\n", "\r\n") + "\r\n" if pty else message + "\n"
    with contextlib.suppress(Exception):
        process.stderr.write(text.encode())
        process.exit(1)
