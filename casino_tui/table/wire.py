"""The local channel between the server's table hub and each player's app process.

The SSH server runs one app process per session (:mod:`casino_tui.serve.pty_session`). Tables
live in the server process only; each app talks to them over a Unix socket that only the
server's user can open: the socket is made inside a directory of mode 0700 in the server's data
directory (a Unix socket's permissions follow its directory). On top of that, the server makes a
random secret for each session and gives it to that session's app in its environment
(:data:`SECRET_ENV`, never on a command line, which other users can read in ``ps``); the secret
names the session's player, so an app can only ever speak for its own player.

Frames: a 4-byte big-endian length, then that many bytes of UTF-8 JSON, one object per frame,
at most :data:`MAX_FRAME` bytes. A frame that is empty, too large, not UTF-8, not JSON or not an
object closes that connection (the other side is told why when it can be); never the server.

The exchange::

    app -> server   {"type": "hello", "secret": "...", "version": 1}      the first frame
                    (with "tries": N, "waited": SECONDS when it is not the app's first try:
                    the server logs that a busy moment made an app wait)
    server -> app   {"type": "welcome", "player": "...", "version": 1, ...}  or
    server -> app   {"type": "refused", "reason": "..."}                  and the socket closes
    then any JSON objects both ways, each with a "type"; the server closes a connection after
    {"type": "error", "reason": "..."} when a frame breaks the rules above.

A client that lost its connection may connect again with the same secret for as long as the
server keeps it registered (until the SSH session ends): the new connection replaces the old
one, and the server's ``on_connect`` hears of it again so the hub can send a fresh view.

Only asyncio and the standard library: no Textual, rich or asyncssh here.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import inspect
import json
import logging
import os
import socket
import stat
import struct
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

log = logging.getLogger("casino_tui.table.wire")

Message = dict[str, Any]  # one frame: a JSON object

PROTOCOL_VERSION = 1
SOCKET_ENV = "CASINO_TUI_TABLE_SOCKET"  # the app's environment: where the hub listens
SECRET_ENV = "CASINO_TUI_TABLE_SECRET"  # and its session's secret
SOCKET_DIR = "tables"  # in the server's data directory, mode 0700
SOCKET_NAME = "hub.sock"
MAX_FRAME = 64 * 1024  # bytes of JSON in one frame
HELLO_TIMEOUT = 5.0  # seconds a new connection has to send its hello
SLOW_WELCOME = 2.0  # seconds from a connection to its welcome that the log calls busy
BACKLOG = 1024  # connections waiting to be accepted (asyncio's default is 100)
MAX_BUFFERED = 1024 * 1024  # bytes waiting for a reader that does not read: then it is cut off
MAX_CONNECTIONS = 1024
SECRET_BYTES = 32

_HEADER = struct.Struct(">I")


class WireError(Exception):
    """The channel cannot be used: a socket directory that is not private, a socket in use."""


class FrameError(WireError):
    """A frame that breaks the rules: empty, too large, not UTF-8 JSON, not an object."""


class Refused(WireError):
    """The server refused the hello (an unknown secret, another protocol version)."""


# ---------------------------------------------------------------------- frames
def encode(message: Mapping[str, Any], max_size: int = MAX_FRAME) -> bytes:
    """One frame: the length and the compact JSON of ``message``."""
    try:
        text = json.dumps(message, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    except (TypeError, ValueError) as err:
        raise FrameError(f"cannot be sent as JSON: {err}") from None
    body = text.encode("utf-8")
    if len(body) > max_size:
        raise FrameError(f"a message of {len(body)} bytes (at most {max_size})")
    return _HEADER.pack(len(body)) + body


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def decode(body: bytes) -> Message:
    """The JSON object of a frame's body."""
    try:
        value = json.loads(body.decode("utf-8"), parse_constant=_no_constant)
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise FrameError("a frame that is not UTF-8 JSON") from None
    if not isinstance(value, dict):
        raise FrameError("a frame that is not a JSON object")
    return value


async def read_frame(reader: asyncio.StreamReader, max_size: int = MAX_FRAME) -> Message | None:
    """The next message, or None when the other side closed between frames."""
    try:
        header = await reader.readexactly(_HEADER.size)
    except asyncio.IncompleteReadError as err:
        if not err.partial:
            return None
        raise FrameError("the connection ended inside a frame") from None
    (size,) = _HEADER.unpack(header)
    if size == 0 or size > max_size:
        raise FrameError(f"a frame of {size} bytes (at most {max_size})")
    try:
        body = await reader.readexactly(size)
    except asyncio.IncompleteReadError:
        raise FrameError("the connection ended inside a frame") from None
    return decode(body)


# ---------------------------------------------------------------------- set-up helpers
def new_secret() -> str:
    """A session's secret: 256 random bits, URL-safe text."""
    import secrets

    return secrets.token_urlsafe(SECRET_BYTES)


def socket_path(data_dir: Path, folder: str = SOCKET_DIR, name: str = SOCKET_NAME) -> Path:
    """Where a server with this data directory listens (the hub's socket, unless ``folder``
    and ``name`` say another channel's, such as the computer players')."""
    return data_dir / folder / name


def session_environment(path: Path, secret: str, names: tuple[str, str] = (SOCKET_ENV, SECRET_ENV)
                        ) -> dict[str, str]:
    """The variables a session's app needs to reach the hub (add them to its environment);
    ``names``: another channel's variables (socket, secret)."""
    return {names[0]: str(path), names[1]: secret}


def link_from_environment(env: Mapping[str, str],
                          names: tuple[str, str] = (SOCKET_ENV, SECRET_ENV)
                          ) -> tuple[Path, str] | None:
    """(socket, secret) when the app runs under a server with tables (or, with ``names``,
    another channel), else None."""
    path, secret = env.get(names[0], ""), env.get(names[1], "")
    if not path or not secret:
        return None
    return Path(path), secret


def _digest(secret: str) -> bytes:
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).digest()


async def _call(fn: Callable[..., Awaitable[None] | None] | None, *args: Any) -> None:
    """Call a callback, awaiting it if it is a coroutine; its errors are logged, never raised
    (one player's message must not end the server)."""
    if fn is None:
        return
    try:
        result = fn(*args)
        if inspect.isawaitable(result):
            await result
    except asyncio.CancelledError:
        raise
    except Exception:
        log.exception("the table channel's callback %r failed", fn)


# ---------------------------------------------------------------------- the server
@dataclass(frozen=True)
class Identity:
    """Who a session's secret speaks for: its player (the id of their key's profile, see
    :func:`casino_tui.serve.players.player_id`), the key's fingerprint, the session and the
    address the player connected from ("" when not known: the limits per address, such as
    the wrong join codes of :mod:`casino_tui.table.guard`, then count the player alone)."""

    player: str
    fingerprint: str
    session: int = 0
    address: str = ""


Handler = Callable[[Identity, Message], Awaitable[None] | None]
Notify = Callable[[Identity], Awaitable[None] | None]
# More fields of the welcome for an identity (what the server offers it, say); never
# ``type``, ``player`` or ``version``.
Welcome = Callable[[Identity], Mapping[str, Any]]


class _Link:
    """One accepted connection."""

    def __init__(self, writer: asyncio.StreamWriter, max_buffered: int) -> None:
        self.writer = writer
        self.max_buffered = max_buffered
        self.identity: Identity | None = None
        self.secret: bytes | None = None
        self.closed = False

    def send(self, frame: bytes) -> bool:
        if self.closed or self.writer.transport.is_closing():
            return False
        if self.writer.transport.get_write_buffer_size() + len(frame) > self.max_buffered:
            log.warning("table channel: %s does not read its messages; disconnected",
                        self.identity)
            self.close()
            return False
        self.writer.write(frame)
        return True

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.writer.close()


class WireServer:
    """The server's end: call :meth:`start`, :meth:`register` each session's secret with its
    identity, and :meth:`close` at the end.

    ``handler(identity, message)`` receives every message after the hello, in order for each
    connection (it may be a coroutine function; its errors are logged). ``on_connect(identity)``
    is called after each accepted hello, reconnections included; ``on_disconnect(identity)``
    when the identity's current connection ends (not when a newer one replaced it).
    ``welcome(identity)``: more fields for the welcome (what the server offers that client).
    :meth:`send` never waits: a reader that lets :data:`MAX_BUFFERED` bytes pile up is cut off.
    """

    def __init__(self, handler: Handler, *, on_connect: Notify | None = None,
                 on_disconnect: Notify | None = None, welcome: Welcome | None = None,
                 max_frame: int = MAX_FRAME,
                 hello_timeout: float = HELLO_TIMEOUT, max_buffered: int = MAX_BUFFERED,
                 max_connections: int = MAX_CONNECTIONS) -> None:
        self.handler = handler
        self.on_connect = on_connect
        self.on_disconnect = on_disconnect
        self.welcome = welcome
        self.max_frame = max_frame
        self.hello_timeout = hello_timeout
        self.max_buffered = max_buffered
        self.max_connections = max_connections
        self.path: Path | None = None
        self._server: asyncio.Server | None = None
        self._secrets: dict[bytes, Identity] = {}
        self._current: dict[Identity, _Link] = {}
        self._links: set[_Link] = set()
        self._tasks: set[asyncio.Task[Any]] = set()

    # ------------------------------------------------------------------ life
    async def start(self, path: Path) -> None:
        """Listen on ``path``; its directory is made (or made again) private: mode 0700."""
        _private_directory(path.parent)
        _clear_stale_socket(path)
        try:
            self._server = await asyncio.start_unix_server(self._accept, path=str(path),
                                                           backlog=BACKLOG)
        except OSError as err:
            raise WireError(f"cannot listen on {path}: {err.strerror or err}") from None
        os.chmod(path, 0o600)
        self.path = path

    async def close(self) -> None:
        """Stop listening, close every connection and remove the socket."""
        if self._server is not None:
            self._server.close()
        for link in list(self._links):
            link.close()
        if self._tasks:  # closed connections end their tasks; cancel those that do not
            await asyncio.wait(list(self._tasks), timeout=1)
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.wait(self._tasks, timeout=5)
        if self._server is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 2)
            self._server = None
        if self.path is not None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.path)

    # ------------------------------------------------------------------ sessions
    def register(self, secret: str, identity: Identity) -> None:
        """Admit connections that say ``secret``: they speak for ``identity``."""
        if len(secret) < 16:
            raise ValueError("a session's secret must be long and random (new_secret())")
        if identity in self._secrets.values():
            raise ValueError(f"{identity} already has a secret")
        self._secrets[_digest(secret)] = identity

    def unregister(self, secret: str) -> None:
        """Forget ``secret`` (the session ended) and close its connection, if any."""
        identity = self._secrets.pop(_digest(secret), None)
        if identity is not None:
            link = self._current.get(identity)
            if link is not None:
                link.close()

    def connected(self, identity: Identity) -> bool:
        link = self._current.get(identity)
        return link is not None and not link.closed

    def send(self, identity: Identity, message: Mapping[str, Any]) -> bool:
        """Queue ``message`` for ``identity``'s connection; False when it has none (or was cut
        off now for not reading). Raises :class:`FrameError` for a message that cannot be a
        frame."""
        frame = encode(message, self.max_frame)
        link = self._current.get(identity)
        return link is not None and link.send(frame)

    def disconnect(self, identity: Identity) -> None:
        """Close ``identity``'s connection (its secret stays valid: it may connect again)."""
        link = self._current.get(identity)
        if link is not None:
            link.close()

    # ------------------------------------------------------------------ one connection
    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        link = _Link(writer, self.max_buffered)
        if len(self._links) >= self.max_connections:
            log.warning("table channel: %d connections already; one refused", len(self._links))
            link.close()
            return
        if task is not None:
            self._tasks.add(task)
        self._links.add(link)
        try:
            await self._serve(reader, link)
        except FrameError as err:
            log.warning("table channel: closed the connection of %s: %s",
                        link.identity or "a client before its hello", err)
            with contextlib.suppress(FrameError):
                link.send(encode({"type": "error", "reason": str(err)}))
        except (ConnectionError, OSError):
            pass
        finally:
            self._links.discard(link)
            link.close()
            if task is not None:
                self._tasks.discard(task)
            identity = link.identity
            if identity is not None and self._current.get(identity) is link:
                del self._current[identity]
                await _call(self.on_disconnect, identity)

    async def _serve(self, reader: asyncio.StreamReader, link: _Link) -> None:
        accepted = time.monotonic()
        try:
            hello = await asyncio.wait_for(read_frame(reader, self.max_frame),
                                           self.hello_timeout)
        except TimeoutError:
            raise FrameError(f"no hello within {self.hello_timeout:g}s") from None
        if hello is None:
            return
        if reader.at_eof():  # the app gave up waiting (and tries again): nothing to answer
            log.info("table channel: a connection closed before its hello was answered: the "
                     "server is busy")
            return
        identity, reason = self._check_hello(hello)
        if identity is None:
            log.warning("table channel: refused a connection: %s", reason)
            link.send(encode({"type": "refused", "reason": reason}))
            return
        link.identity = identity
        older = self._current.get(identity)
        self._current[identity] = link
        if older is not None:
            older.close()  # a reconnection replaces the connection before it
        extra = dict(self.welcome(identity)) if self.welcome is not None else {}
        link.send(encode({**extra, "type": "welcome", "player": identity.player,
                          "version": PROTOCOL_VERSION}))
        _log_busy(identity, hello, time.monotonic() - accepted)
        await _call(self.on_connect, identity)
        while not link.closed:
            message = await read_frame(reader, self.max_frame)
            if message is None or link.closed:
                return
            await _call(self.handler, identity, message)

    def _check_hello(self, hello: Message) -> tuple[Identity | None, str]:
        if hello.get("type") != "hello":
            return None, "the first message must be a hello"
        if hello.get("version", PROTOCOL_VERSION) != PROTOCOL_VERSION:
            return None, f"this server speaks version {PROTOCOL_VERSION} of the table channel"
        secret = hello.get("secret")
        if not isinstance(secret, str) or not secret:
            return None, "no secret"
        identity = self._secrets.get(_digest(secret))
        if identity is None:
            return None, "unknown secret"
        return identity, ""


def _log_busy(identity: Identity, hello: Message, took: float) -> None:
    """Say in the log when an app had to wait for the channel: its hello says it tried before
    (the server or the machine was too busy to answer in time), or the welcome was slow."""
    tries, waited = hello.get("tries"), hello.get("waited")
    if isinstance(tries, int) and not isinstance(tries, bool) and tries > 1:
        wait = float(waited) if isinstance(waited, int | float) else 0.0
        log.warning("table channel: session %d of %s reached the tables on its try %d, after "
                    "%.1fs: the server (or its machine) was too busy to answer sooner",
                    identity.session, identity.player, tries, wait)
    elif took > SLOW_WELCOME:
        log.warning("table channel: the welcome of session %d of %s took %.1fs: the server is "
                    "busy", identity.session, identity.player, took)


def _private_directory(directory: Path) -> None:
    """Make ``directory`` (and its parents) and make sure only this user can enter it."""
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    st = os.lstat(directory)
    if not stat.S_ISDIR(st.st_mode):
        raise WireError(f"{directory} is not a directory")
    if st.st_uid != os.getuid():
        raise WireError(f"{directory} belongs to another user")
    if stat.S_IMODE(st.st_mode) != 0o700:
        os.chmod(directory, 0o700)


def _clear_stale_socket(path: Path) -> None:
    """Remove the socket a server that stopped left behind; refuse one in use or a file."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if not stat.S_ISSOCK(st.st_mode):
        raise WireError(f"{path} exists and is not a socket")
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.settimeout(1.0)
        probe.connect(str(path))
    except OSError:
        os.unlink(path)  # nobody listens: left by a server that stopped
        return
    finally:
        probe.close()
    raise WireError(f"another server is using {path}")


# ---------------------------------------------------------------------- the client
class WireClient:
    """The app's end: ``client = await WireClient.connect(path, secret)``; then
    ``await client.send(message)`` and ``async for message in client`` (which ends when the
    connection does). :meth:`reconnect` connects again with the same secret."""

    def __init__(self, path: Path, secret: str, *, max_frame: int = MAX_FRAME,
                 timeout: float = HELLO_TIMEOUT, note: Mapping[str, Any] | None = None) -> None:
        self.path = Path(path)
        self.secret = secret
        self.max_frame = max_frame
        self.timeout = timeout
        self.note = dict(note or {})  # more fields of the hello (tries, waited)
        self.welcome: Message = {}
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    @classmethod
    async def connect(cls, path: Path, secret: str, *, max_frame: int = MAX_FRAME,
                      timeout: float = HELLO_TIMEOUT,
                      note: Mapping[str, Any] | None = None) -> WireClient:
        """Connect and say hello (``note``: more fields for it); raises :class:`Refused` for a
        secret the server does not know, ``OSError`` when nobody listens, ``TimeoutError``
        when the server does not answer."""
        client = cls(path, secret, max_frame=max_frame, timeout=timeout, note=note)
        await client._open()
        return client

    @property
    def player(self) -> str:
        """The player the server says this connection speaks for."""
        return str(self.welcome.get("player", ""))

    @property
    def connected(self) -> bool:
        return self._writer is not None and not self._writer.is_closing()

    async def _open(self) -> None:
        reader, writer = await asyncio.wait_for(
            asyncio.open_unix_connection(str(self.path)), self.timeout)
        try:
            writer.write(encode({**self.note, "type": "hello", "secret": self.secret,
                                 "version": PROTOCOL_VERSION}))
            await writer.drain()
            answer = await asyncio.wait_for(read_frame(reader, self.max_frame), self.timeout)
        except BaseException:
            writer.close()
            raise
        kind = answer.get("type") if answer is not None else None
        if kind != "welcome":
            writer.close()
            if answer is None:
                raise Refused("the server closed the connection")
            reason = answer.get("reason")
            raise Refused(reason if isinstance(reason, str) else f"the server said {kind!r}")
        assert answer is not None
        self.welcome = answer
        self._reader, self._writer = reader, writer

    async def send(self, message: Mapping[str, Any]) -> None:
        """Send one message; ``ConnectionError`` when the connection is gone."""
        if self._writer is None or self._writer.is_closing():
            raise ConnectionResetError("the table channel is closed")
        self._writer.write(encode(message, self.max_frame))
        await self._writer.drain()

    def send_nowait(self, message: Mapping[str, Any]) -> None:
        """Queue one message without waiting for it to be written (from a task being
        cancelled, say); nothing when the connection is gone."""
        if self._writer is not None and not self._writer.is_closing():
            self._writer.write(encode(message, self.max_frame))

    async def receive(self) -> Message | None:
        """The next message; None once the connection has ended. A frame that breaks the
        rules raises :class:`FrameError` (and the connection is closed)."""
        if self._reader is None:
            return None
        try:
            message = await read_frame(self._reader, self.max_frame)
        except (ConnectionError, OSError):
            message = None
        except FrameError:
            await self.close()
            raise
        if message is None:
            await self.close()
        return message

    async def __aiter__(self) -> AsyncIterator[Message]:
        while True:
            message = await self.receive()
            if message is None:
                return
            yield message

    async def reconnect(self, *, attempts: int = 5, delay: float = 0.2) -> None:
        """Close this connection and connect again with the same secret: up to ``attempts``
        tries, waiting ``delay`` seconds and twice as long after each failure. The last error
        is raised; :class:`Refused` at once (the secret is no longer valid)."""
        await self.close()
        for attempt in range(attempts):
            try:
                await self._open()
                return
            except Refused:
                raise
            except (OSError, TimeoutError):
                if attempt == attempts - 1:
                    raise
                await asyncio.sleep(delay * 2 ** attempt)

    def close_nowait(self) -> None:
        """Close the connection without waiting for it to be closed (the app is ending)."""
        writer, self._reader, self._writer = self._writer, None, None
        if writer is not None:
            writer.close()

    async def close(self) -> None:
        writer, self._reader, self._writer = self._writer, None, None
        if writer is not None:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()


async def connect(path: Path, secret: str, *, max_frame: int = MAX_FRAME,
                  timeout: float = HELLO_TIMEOUT) -> WireClient:
    """:meth:`WireClient.connect`."""
    return await WireClient.connect(path, secret, max_frame=max_frame, timeout=timeout)
