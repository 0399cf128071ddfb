"""The web server: textual-serve's ``Server`` and ``AppService``, subclassed with sign-in, bounds
and one live game per player.

textual-serve (frozen upstream) serves a page whose canvas terminal speaks to ``/ws``, and runs
one app process per websocket. Here:

- ``GET /link/{token}`` redeems a one-time link (:class:`~casino_tui.web.tokens.LinkIssuer`)
  and sets a signed session cookie (:class:`~casino_tui.web.tokens.CookieSigner`); ``GET /``
  shows the game's page only with a valid cookie; ``GET /ws`` refuses, before the websocket
  handshake and before anything is started, a missing or foreign Origin or a missing, forged or
  expired cookie (403), one session too many (503) and an address starting sessions too fast
  (429).
- The app process is started from an argv (no shell) that the owner's *launcher* gives for the
  identity (:class:`Launch`), in a session of its own (``setsid``) with an environment built
  afresh: never the server's whole environment.
- One live session per identity: a new websocket of an identity stops the old session's app
  first (textual-serve's quit, then SIGTERM and SIGKILL to its process group) and waits until
  it ended, so the new app can open the saves; a page reload therefore resumes the game (solo:
  ``--continue``; at a table: the hub).
- An idle session (nothing typed for ``idle_timeout_seconds``) is stopped; the server's
  shutdown stops every app: no process outlives it.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import inspect
import ipaddress
import logging
import os
import shlex
import signal
import time
from asyncio.subprocess import Process
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from aiohttp import WSCloseCode, web
from textual_serve.app_service import AppService
from textual_serve.server import Server, to_int

from ..procs import autogroup_nice, lower_priority, parent_death_signal
from .listen import listen
from .tokens import CookieSigner, LinkIssuer

__all__ = ["GameService", "Launch", "LaunchRefused", "WebLimits", "WebServer"]

log = logging.getLogger("casino_tui.web")

# what the app process keeps of the server's environment (besides the launcher's and the
# variables textual-serve sets for its driver)
SERVER_ENV_KEEP = ("PATH", "PYTHONPATH", "TMPDIR")
# the variables textual-serve's AppService sets for the app (its web driver, the colours, size)
TEXTUAL_SERVE_ENV = ("TEXTUAL_DRIVER", "TEXTUAL_FPS", "TEXTUAL_COLOR_SYSTEM", "TERM_PROGRAM",
                     "TERM_PROGRAM_VERSION", "COLUMNS", "ROWS")
MAX_COLUMNS = 400
MAX_ROWS = 200
MAX_MESSAGE_BYTES = 64 * 1024  # a browser's stdin frame (a paste) is far smaller
RATE_WINDOW_SECONDS = 60.0
# Added to textual-serve's page. Its terminal takes keys only once focused: focus it when it
# appears, so keys go to the game at once (as in a terminal window), without a click first.
# And when the server ends a session it gives the reason with the websocket's close: the
# page's "Session ended" box shows it (as plain text).
PAGE_SCRIPT = """<script>
(function () {
  var Native = window.WebSocket;
  function GameSocket(url, protocols) {
    var ws = protocols === undefined ? new Native(url) : new Native(url, protocols);
    ws.addEventListener("close", function (event) {
      var message = document.querySelector(".closed-dialog .message");
      if (message && event.reason) { message.textContent = event.reason; }
    });
    return ws;
  }
  GameSocket.prototype = Native.prototype;
  ["CONNECTING", "OPEN", "CLOSING", "CLOSED"].forEach(function (k) { GameSocket[k] = Native[k]; });
  window.WebSocket = GameSocket;
})();
(function () {
  // The largest font, up to the page's own, that still gives the game 80x24: a phone or a
  // small window gets smaller letters rather than a cut table. When the window turns (a phone
  // rotated) and the letters no longer fit, the page is loaded again (the game resumes).
  var term = document.getElementById("terminal");
  if (!term || /[?&]fontsize=/.test(window.location.search)) { return; }
  var base = parseInt(term.dataset.fontSize, 10) || 16;
  function fitting() {
    var w = window.innerWidth, h = window.innerHeight;
    return Math.max(6, Math.min(base, Math.floor(Math.min(w / 80 / 0.62, h / 24 / 1.25))));
  }
  var chosen = fitting();
  term.dataset.fontSize = String(chosen);
  var timer = null;
  window.addEventListener("resize", function () {
    clearTimeout(timer);
    timer = setTimeout(function () {
      if (fitting() < chosen) { window.location.reload(); }
    }, 400);
  });
})();
(function () {
  var tries = 0, timer = setInterval(function () {
    var input = document.querySelector(".xterm-helper-textarea");
    if (input) { input.focus(); clearInterval(timer); }
    else if (++tries > 400) { clearInterval(timer); }
  }, 25);
})();
</script>
"""
DEFAULT_HINT = ("For a new link, press Enter in the terminal where 'casino-tui web' runs, or "
                "start it again.")


@dataclass(frozen=True)
class Launch:
    """How to start one player's app: the command (``argv[0]`` is the program: no shell), the
    environment to add to the few variables kept of the server's (see
    :data:`SERVER_ENV_KEEP`), the working directory, ``on_end``, awaited once when the app
    process has ended (e.g. to forget the session's hub secret), and ``nice``: how many steps
    of priority below the server's the app runs (``serve --session-nice``, as its SSH games)."""

    argv: list[str]
    env: dict[str, str]
    cwd: Path
    on_end: Callable[[], Awaitable[None]] | None = None
    nice: int = 0  # steps of CPU priority below the server's (and its scheduler group's)


Launcher = Callable[[str, int, int], Awaitable[Launch]]
"""identity, width, height -> how to start that player's app."""


class LaunchRefused(Exception):
    """Raised by a launcher: the game is not started now, and the page says ``str()`` (why,
    for the player; the launcher logged it)."""


@dataclass(frozen=True)
class WebLimits:
    """Bounds of the browser sessions: how many run at once (``max_sessions``; 0: no cap), how
    many new sessions one address may start in a minute (``rate_limit_per_minute``; 0: no
    limit), and how long a session may go without a key before it is ended
    (``idle_timeout_seconds``; None: never)."""

    max_sessions: int = 20
    rate_limit_per_minute: int = 10
    idle_timeout_seconds: float | None = 3600.0


class GameService(AppService):
    """textual-serve's ``AppService`` for one browser session's app: started from the
    :class:`Launch` (``exec``, no shell, its own session and process group, a fresh
    environment), terminal sizes bounded, the time of the last key noted (for the idle
    timeout), and a stop that is bounded in time and leaves no process behind."""

    def __init__(self, launch: Launch, *, write_bytes: Callable[[bytes], Awaitable[None]],
                 write_str: Callable[[str], Awaitable[None]],
                 close: Callable[[], Awaitable[None]], server: Server,
                 clock: Callable[[], float] = time.monotonic,
                 quit_grace: float = 3.0, term_grace: float = 2.0) -> None:
        super().__init__(shlex.join(launch.argv), write_bytes=write_bytes, write_str=write_str,
                         close=close, download_manager=server.download_manager)
        self.launch = launch
        self._clock = clock
        self.last_input = clock()
        self.quit_grace = quit_grace
        self.term_grace = term_grace
        self._stopping: asyncio.Task[None] | None = None
        self._ended = False
        self._drawn = False

    @property
    def process(self) -> Process | None:
        return self._process

    @property
    def pid(self) -> int | None:
        return None if self._process is None else self._process.pid

    @property
    def task(self) -> asyncio.Task[None] | None:
        """The task reading the app's output (it ends when the app's output ends)."""
        return self._task

    def _build_environment(self, width: int = 80, height: int = 24) -> dict[str, str]:
        textual = super()._build_environment(width=width, height=height)
        env = {k: os.environ[k] for k in SERVER_ENV_KEEP if k in os.environ}
        env.update(self.launch.env)
        env.update({k: textual[k] for k in TEXTUAL_SERVE_ENV if k in textual})
        return env

    async def _open_app_process(self, width: int = 80, height: int = 24) -> Process:
        environment = self._build_environment(width=width, height=height)
        self._process = process = await asyncio.create_subprocess_exec(
            *self.launch.argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=environment,
            cwd=self.launch.cwd,
            start_new_session=True,
            preexec_fn=_in_child(self.launch.nice),
        )
        assert process.stdin is not None
        self._stdin = process.stdin
        return process

    async def on_data(self, payload: bytes) -> None:
        if not self._drawn:  # the idle time counts from the app's first output
            self._drawn = True
            self.last_input = self._clock()
        await super().on_data(payload)

    async def send_bytes(self, data: bytes) -> bool:
        self.last_input = self._clock()
        if self._stdin is None:
            return False
        return await super().send_bytes(data)

    async def send_meta(self, data: dict[str, str | int | bool | None]) -> bool:
        if self._stdin is None:
            return False
        return await super().send_meta(data)

    async def set_terminal_size(self, width: int, height: int) -> None:
        await super().set_terminal_size(_bounded(width, MAX_COLUMNS), _bounded(height, MAX_ROWS))

    async def stop(self) -> None:
        """Stop the app and wait until it ended (at most ``quit_grace + term_grace`` and a
        moment): textual-serve's quit (the app saves and exits), then SIGTERM to its process
        group, then SIGKILL; then whatever is left of the group is killed, and the launch's
        ``on_end`` is awaited. Safe to call more than once, also concurrently."""
        if self._stopping is None:
            self._stopping = asyncio.ensure_future(self._stop())
        await asyncio.shield(self._stopping)

    async def _stop(self) -> None:
        process = self._process
        try:
            if process is not None:
                if process.returncode is None:
                    with contextlib.suppress(Exception):
                        await self._download_manager.cancel_app_downloads(
                            app_service_id=self.app_service_id)
                    await self.send_meta({"type": "quit"})
                    if not await _wait_exit(process, self.quit_grace):
                        _killpg(process.pid, signal.SIGTERM)
                        if not await _wait_exit(process, self.term_grace):
                            _killpg(process.pid, signal.SIGKILL)
                            await process.wait()
                _killpg(process.pid, signal.SIGKILL)  # anything the app left in its group
                await _group_gone(process.pid, 1.0)
                if self._stdin is not None:
                    self._stdin.close()
            if self._task is not None:
                try:
                    await asyncio.wait_for(asyncio.shield(self._task), 2.0)
                except TimeoutError:
                    self._task.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await self._task
                self._task = None
        finally:
            if not self._ended:
                self._ended = True
                if self.launch.on_end is not None:
                    try:
                        await self.launch.on_end()
                    except Exception:
                        log.exception("a session's on_end failed")


def _in_child(nice: int) -> Callable[[], None] | None:
    """What the app's process runs before the program, in its new session: ``nice`` steps
    below the server's priority and its scheduler group's (as a game over SSH), and (Linux)
    the kernel sends it SIGTERM when the server dies, as the server's own shutdown would
    (Textual's web driver quits on it; the game is saved after every move). Otherwise an app
    whose server was killed would wait for the page forever: its input's end does not end it."""
    set_signal = parent_death_signal()
    if set_signal is None and nice <= 0:
        return None
    parent = os.getpid()
    group_nice = autogroup_nice() if nice > 0 else None  # the server's, read before the fork

    def in_child() -> None:
        lower_priority(nice, group_nice)
        if set_signal is not None:
            set_signal(signal.SIGTERM)
            if os.getppid() != parent:  # the server died before that
                os.kill(os.getpid(), signal.SIGTERM)

    return in_child


def _bounded(value: object, top: int) -> int:
    return max(1, min(top, value)) if isinstance(value, int) else 1


async def _wait_exit(process: Process, timeout: float) -> bool:
    try:
        await asyncio.wait_for(process.wait(), timeout)
    except TimeoutError:
        return False
    return True


async def _group_gone(pgid: int, timeout: float) -> None:
    """Wait (at most ``timeout``) until process group ``pgid`` has no process left: one that
    was sent SIGKILL takes a moment to go."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        try:
            os.killpg(pgid, 0)
        except (ProcessLookupError, PermissionError):
            return
        await asyncio.sleep(0.02)


def _killpg(pgid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


class _Session:
    """One browser session: its identity, websocket, app and why it is being ended."""

    def __init__(self, identity: str, address: str) -> None:
        self.identity = identity
        self.address = address
        self.websocket: web.WebSocketResponse | None = None
        self.service: GameService | None = None
        self.end_reason: str | None = None
        self.stop_requested = asyncio.Event()
        self.ended = asyncio.Event()

    async def end(self, reason: str) -> None:
        if self.end_reason is None:
            self.end_reason = reason
        self.stop_requested.set()
        await self.ended.wait()


class WebServer(Server):
    """textual-serve's server with one-time links, signed cookies, Origin checks, bounds and
    one live session per identity; see the module's text. ``launcher`` tells how to start an
    identity's app. ``on_session_start`` (set by the owner) is called with the identity when a
    browser session starts, after the websocket's handshake and before the launcher and the
    app (its result is awaited if it is awaitable), so the owner can end another game of that
    player first.

    Run it in a running event loop: ``await server.start()`` (binds; ``port`` 0 picks a free
    one, then ``server.port`` and ``server.public_url`` tell it), ``await server.close()``
    (ends every session, then stops listening).
    """

    COOKIE_PREFIX = "casino_tui_"

    def __init__(self, launcher: Launcher, *, links: LinkIssuer, signer: CookieSigner,
                 limits: WebLimits | None = None, host: str = "127.0.0.1", port: int = 8000,
                 public_url: str | None = None, title: str = "casino-tui",
                 new_link_hint: str = DEFAULT_HINT,
                 clock: Callable[[], float] = time.monotonic,
                 quit_grace: float = 3.0) -> None:
        if public_url is not None:
            public_url = public_url.rstrip("/")  # textual-serve appends "/ws", "/static/"
        super().__init__(command="casino-tui", host=host, port=port, title=title,
                         public_url=public_url)
        self.launcher = launcher
        self.links = links
        self.signer = signer
        self.limits = limits if limits is not None else WebLimits()
        self.new_link_hint = new_link_hint
        self.on_session_start: Callable[[str], object] | None = None
        self.quit_grace = quit_grace
        self._fixed_public_url = public_url is not None
        # where a reverse proxy serves the game under a path (it strips the path before it
        # passes a request on): "" at the root of its address, else "/casino" and the like
        self.base_path = urlsplit(public_url).path if public_url is not None else ""
        self._clock = clock
        self._sessions: dict[str, _Session] = {}
        self._starts: dict[str, deque[float]] = {}  # address -> times of its new sessions
        self._runner: web.AppRunner | None = None
        self._closing = False

    # ------------------------------------------------------------------ running
    @property
    def cookie_name(self) -> str:
        """The session cookie's name: one per port, so two servers on one host (cookies ignore
        the port) do not overwrite each other's."""
        return f"{self.COOKIE_PREFIX}{self.port}"

    @property
    def origin(self) -> str:
        """scheme://host[:port] of the public URL."""
        parts = urlsplit(self.public_url)
        return f"{parts.scheme}://{parts.netloc}".lower()

    def link_url(self, token: str) -> str:
        return f"{self.public_url.rstrip('/')}/link/{token}"

    def new_link(self, identity: str) -> str:
        """A one-time link for ``identity`` (see :class:`LinkIssuer`)."""
        return self.link_url(self.links.issue(identity))

    async def start(self) -> None:
        """Listen (on ``host``:``port``; port 0 picks a free one)."""
        app = await self._make_app()
        chosen = self.port
        self._runner, self.port = await listen(app, self.host, self.port)
        if chosen == 0 and not self._fixed_public_url:
            host = self.host if ":" not in self.host else f"[{self.host}]"
            self.public_url = f"http://{host}:{self.port}"
        log.info("serving the game in a browser on %s", self.public_url)

    async def close(self) -> None:
        """End every session (their apps stop and save), then stop listening."""
        self._closing = True
        await self.end_all("The server is shutting down. Your game is saved.")
        if self._runner is not None:
            runner, self._runner = self._runner, None
            await runner.cleanup()

    def client_address(self, request: web.Request) -> str:
        """The browser's address, which the per-address rate limit counts: the peer's, or,
        behind a reverse proxy on this machine (a public URL is set and the peer is a loopback
        address), the address that proxy puts last in ``X-Forwarded-For`` (the one it saw;
        earlier entries come from the client and prove nothing)."""
        peer = request.remote or "?"
        if not self._fixed_public_url:
            return peer
        try:
            loopback = ipaddress.ip_address(peer).is_loopback
        except ValueError:
            return peer
        forwarded = request.headers.get("X-Forwarded-For", "")
        last = forwarded.rsplit(",", 1)[-1].strip()
        if not loopback or not last:
            return peer
        try:
            return str(ipaddress.ip_address(last))
        except ValueError:
            return peer

    async def on_startup(self, app: web.Application) -> None:
        """textual-serve prints its banner here; the address is logged by :meth:`start` once
        it is known (port 0 picks one only when the site starts)."""

    async def on_shutdown(self, app: web.Application) -> None:
        await self.end_all("The server is shutting down. Your game is saved.")

    async def _make_app(self) -> web.Application:
        app = await super()._make_app()
        # GET only: a HEAD (a link preview's look) must not use the link up
        app.router.add_get("/link/{token}", self.handle_link, name="link", allow_head=False)
        app.on_response_prepare.append(self._security_headers)
        return app

    async def _security_headers(self, request: web.Request,
                                response: web.StreamResponse) -> None:
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("X-Frame-Options", "DENY")

    # ------------------------------------------------------------------ sessions
    def sessions(self) -> list[str]:
        """The identities with a live browser session."""
        return list(self._sessions)

    def app_pids(self) -> list[int]:
        """The process ids of the running apps."""
        return [s.service.pid for s in self._sessions.values()
                if s.service is not None and s.service.pid is not None]

    async def hang_up(self, identity: str, reason: str) -> bool:
        """End ``identity``'s browser session (the app stops and saves; the page is told
        ``reason``) and wait until it ended. False when it had none."""
        session = self._sessions.get(identity)
        if session is None:
            return False
        await session.end(reason)
        return True

    async def end_all(self, reason: str) -> None:
        sessions = list(self._sessions.values())
        if sessions:
            await asyncio.gather(*(s.end(reason) for s in sessions))

    # ------------------------------------------------------------------ pages
    def identity_of(self, request: web.Request) -> str | None:
        """The identity of the request's session cookie, if it is valid."""
        return self.signer.verify(request.cookies.get(self.cookie_name))

    async def handle_link(self, request: web.Request) -> web.StreamResponse:
        identity = self.links.redeem(request.match_info["token"])
        if identity is None:
            minutes = self.links.ttl_seconds / 60
            signed_in = self.identity_of(request) is not None
            return _page(403, "This link was already used or has expired",
                         f"Each link opens the game once, within {minutes:g} minute"
                         f"{'s' if minutes != 1 else ''} of being made. {self.new_link_hint}",
                         ("This browser is signed in already: open the game",
                          f"{self.base_path}/") if signed_in else None)
        response = web.Response(status=303, headers={"Location": f"{self.base_path}/"})
        response.set_cookie(self.cookie_name, self.signer.sign(identity),
                            max_age=int(self.signer.max_age_seconds),
                            path=self.base_path or "/", httponly=True,
                            samesite="Strict", secure=self.public_url.startswith("https:"))
        response.headers["Cache-Control"] = "no-store"
        return response

    async def handle_index(self, request: web.Request) -> web.StreamResponse:
        if self.identity_of(request) is None:
            return _page(403, "You need a link to play",
                         "This page opens the game only from a one-time link (it signs this "
                         f"browser in). {self.new_link_hint}")
        response: web.StreamResponse = await super().handle_index(request)
        if isinstance(response, web.Response) and response.text is not None:
            # no request to a font service (it would tell a third party who plays), and the
            # way back after a session ended
            text = response.text.replace(
                '<link\n      rel="stylesheet"\n      href="https://fonts.googleapis.com/css?'
                'family=Roboto%20Mono"\n    />', "")
            text = text.replace('<div class="message">Session ended.</div>',
                                '<div class="message">Session ended. Your game is saved: '
                                'Restart (or reload the page) to go on.</div>')
            text = text.replace("</body>", PAGE_SCRIPT + "</body>", 1)
            # a phone lays the page out at its own width (not a desktop's 980 px, zoomed out)
            text = text.replace("<head>", '<head>\n    <meta name="viewport" '
                                'content="width=device-width, initial-scale=1" />', 1)
            if not self._fixed_public_url:
                text = self._as_requested(request, text)
            response.text = text
        response.headers["Cache-Control"] = "no-store"
        return response

    def _as_requested(self, request: web.Request, text: str) -> str:
        """The page's addresses (its script, the websocket) on the host the browser asked
        for: textual-serve writes the public URL, which without ``public_url`` is only a guess
        from the listening address (127.0.0.1 where the browser typed localhost, or 0.0.0.0);
        the cookie is kept per host, so the websocket must go to the page's own host."""
        parts = urlsplit(self.public_url)
        host = html.escape(request.host, quote=True)
        if not host or host.lower() == parts.netloc.lower():
            return text
        scheme = "https" if request.secure else "http"
        for old, new in ((f"{parts.scheme}://{parts.netloc}/", f"{scheme}://{host}/"),
                         (f"ws://{parts.netloc}/", f"{'wss' if request.secure else 'ws'}://"
                                                   f"{host}/")):
            text = text.replace(f'"{old}', f'"{new}')
        return text

    def _origin_ok(self, request: web.Request) -> bool:
        origin = request.headers.get("Origin")
        if not origin:
            return False
        origin = origin.lower().rstrip("/")
        own = f"{request.scheme}://{request.host}".lower()
        return origin in (own, self.origin)

    def _refusal(self, request: web.Request, identity: str | None) -> web.Response | None:
        if not self._origin_ok(request):
            return web.Response(status=403, text="Refused: this page's origin may not open "
                                "a game here.\n")
        if identity is None:
            return web.Response(status=403, text="Refused: sign in with a one-time link "
                                "first.\n")
        others = sum(1 for s in self._sessions.values() if s.identity != identity)
        if self.limits.max_sessions and others >= self.limits.max_sessions:
            return web.Response(status=503, text="Too many games are being played in browsers "
                                "right now. Try again in a few minutes.\n",
                                headers={"Retry-After": "60"})
        address = self.client_address(request)
        if self.limits.rate_limit_per_minute:
            now = self._clock()
            starts = self._starts.get(address)
            if starts is not None:
                while starts and starts[0] <= now - RATE_WINDOW_SECONDS:
                    starts.popleft()
                if not starts:
                    del self._starts[address]
                elif len(starts) >= self.limits.rate_limit_per_minute:
                    return web.Response(status=429, text="Too many new games from this "
                                        "address: wait a minute.\n",
                                        headers={"Retry-After": "60"})
        if self._closing:
            return web.Response(status=503, text="The server is shutting down.\n")
        return None

    async def handle_websocket(self, request: web.Request) -> web.StreamResponse:  # type: ignore[override]
        identity = self.identity_of(request)
        refusal = self._refusal(request, identity)
        if refusal is not None:  # before the handshake: nothing is started
            return refusal
        assert identity is not None
        address = self.client_address(request)
        if self.limits.rate_limit_per_minute:
            self._starts.setdefault(address, deque()).append(self._clock())
        # one live session per identity: the old one ends first (its app saves and exits)
        while (old := self._sessions.get(identity)) is not None:
            await old.end("Your game continues in another window.")
        session = _Session(identity, address)
        self._sessions[identity] = session
        try:
            return await self._run_session(request, session)
        finally:
            if self._sessions.get(identity) is session:
                del self._sessions[identity]
            session.ended.set()

    async def _run_session(self, request: web.Request,
                           session: _Session) -> web.WebSocketResponse:
        width = _bounded(to_int(request.query.get("width", "80"), 80), MAX_COLUMNS)
        height = _bounded(to_int(request.query.get("height", "24"), 24), MAX_ROWS)
        websocket = web.WebSocketResponse(heartbeat=15, max_msg_size=MAX_MESSAGE_BYTES)
        session.websocket = websocket
        await websocket.prepare(request)
        if session.stop_requested.is_set():
            await _close(websocket, session.end_reason or "")
            return websocket
        if self.on_session_start is not None:  # before the app: the owner may end another
            try:                                # game of the player's first (its saves)
                result = self.on_session_start(session.identity)
                if inspect.isawaitable(result):
                    await result
            except Exception:
                log.exception("on_session_start failed")
        try:
            launch = await self.launcher(session.identity, width, height)
        except LaunchRefused as err:
            await _close(websocket, str(err))
            return websocket
        except Exception:
            log.exception("could not launch the game of %s", session.identity)
            await _close(websocket, "The game could not be started. Try again later.")
            return websocket

        async def close() -> None:
            # the app says it exits: when the player quit it, the page is closed now; when
            # the server stops it, the page is told why first (below)
            if session.end_reason is None:
                await websocket.close()

        service = GameService(launch, write_bytes=websocket.send_bytes,
                              write_str=websocket.send_str, close=close,
                              server=self, clock=self._clock, quit_grace=self.quit_grace)
        session.service = service
        messages: asyncio.Task[None] | None = None
        waits: list[asyncio.Future[Any]] = []
        try:
            await service.start(width, height)
            log.info("browser session started for %s (pid %s)", session.identity, service.pid)
            messages = asyncio.ensure_future(self._process_messages(websocket, service))
            stop = asyncio.ensure_future(session.stop_requested.wait())
            idle = asyncio.ensure_future(self._idle_watch(service, session))
            output = service.task
            waits = [messages, stop, idle, *([output] if output is not None else [])]
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        except Exception:
            log.exception("browser session of %s failed", session.identity)
        finally:
            for waiter in waits:
                if waiter is not messages and waiter is not service.task:
                    waiter.cancel()
            await service.stop()
            if messages is not None:
                messages.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await messages
            await _close(websocket, session.end_reason or "")
            log.info("browser session ended for %s%s", session.identity,
                     f" ({session.end_reason})" if session.end_reason else "")
        return websocket

    async def _idle_watch(self, service: GameService, session: _Session) -> None:
        timeout = self.limits.idle_timeout_seconds
        if timeout is None:
            await asyncio.Event().wait()
            return
        while True:
            left = service.last_input + timeout - self._clock()
            if left <= 0:
                minutes = timeout / 60
                span = f"{minutes:g} minute{'s' if minutes != 1 else ''}" if timeout >= 60 \
                    else f"{timeout:g} seconds"
                if session.end_reason is None:
                    session.end_reason = (f"Nothing was typed for {span}, so the game was "
                                          "stopped. It is saved: Restart (or reload the "
                                          "page) to go on.")
                return
            await asyncio.sleep(min(left, 30.0))


async def _close(websocket: web.WebSocketResponse, reason: str) -> None:
    """Tell the page why the session ended (as terminal text and as the close reason, cut to
    what a close frame holds) and close the websocket."""
    if websocket.closed:
        return
    with contextlib.suppress(Exception):
        if reason:
            await websocket.send_bytes(b"\x1b[?1049l\x1b[2J\x1b[H\r\n  "
                                       + reason.encode("utf-8") + b"\r\n")
        await websocket.close(code=WSCloseCode.GOING_AWAY if reason else WSCloseCode.OK,
                              message=_close_reason(reason))


def _close_reason(reason: str) -> bytes:
    """``reason`` as a close frame holds it: at most 123 bytes of UTF-8, cut at a character."""
    data = reason.encode("utf-8")
    if len(data) <= 123:
        return data
    return data[:120].decode("utf-8", "ignore").encode("utf-8") + b"..."


def _page(status: int, title: str, text: str,
          link: tuple[str, str] | None = None) -> web.Response:
    """A plain HTML page (no script) for a refusal; ``link``: (its text, where it goes)."""
    more = "" if link is None else \
        f'<p><a href="{html.escape(link[1])}">{html.escape(link[0])}</a></p>'
    body = (f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{html.escape(title)}"
            "</title><style>body{background:#0c181f;color:#e8e8e8;font-family:monospace;"
            "max-width:44em;margin:4em auto;line-height:1.5}a{color:#8cf}</style></head><body>"
            f"<h1>{html.escape(title)}</h1><p>{html.escape(text)}</p>{more}</body></html>\n")
    return web.Response(status=status, text=body, content_type="text/html",
                        headers={"Cache-Control": "no-store"})
