"""The web front end at the protocol level, for the tests (also the SSH server's, with its web
port): sign in with a one-time link, open the game's websocket as the page does, and read the
screen as text through a terminal emulator (pyte). Keys go in as the page sends them."""

from __future__ import annotations

import asyncio
import json
import re
import sys
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from pathlib import Path
from typing import Any

import aiohttp
import pyte

from casino_tui.web.command import game_environment
from casino_tui.web.server import Launch, Launcher, WebLimits, WebServer
from casino_tui.web.tokens import CookieSigner, LinkIssuer

KEY = bytes(range(32))

# keys as a terminal (and the page) sends them
ENTER = "\r"
ESC = "\x1b"
UP, DOWN, RIGHT, LEFT = "\x1b[A", "\x1b[B", "\x1b[C", "\x1b[D"
TAB = "\t"


def origin_of(url: str) -> str:
    scheme, rest = url.split("://", 1)
    return f"{scheme}://{rest.split('/', 1)[0]}"


class WebClient:
    """One browser session at the protocol level: the websocket ``/ws?width=W&height=H`` with
    the session cookie and an Origin, its binary frames fed to a ``pyte.Screen``."""

    def __init__(self, http: aiohttp.ClientSession, ws: aiohttp.ClientWebSocketResponse,
                 width: int, height: int) -> None:
        self.http = http
        self.ws = ws
        self.screen = pyte.Screen(width, height)
        self.stream = pyte.ByteStream(self.screen)
        self.received = 0  # bytes of terminal output
        self.texts: list[object] = []  # the JSON text frames (meta: pong, open_url, ...)
        self.close_code: int | None = None
        self.close_reason = ""
        self._changed = asyncio.Event()
        self._text: tuple[int, str] | None = None  # (received, the text then) of text()
        self._reader = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        try:
            async for message in self.ws:
                if message.type == aiohttp.WSMsgType.BINARY:
                    self.stream.feed(message.data)
                    self.received += len(message.data)
                elif message.type == aiohttp.WSMsgType.TEXT:
                    self.texts.append(json.loads(message.data))
                self._changed.set()
        finally:
            self.close_code = self.ws.close_code
            reason = getattr(self.ws, "_close_message", None)  # not kept by aiohttp otherwise
            self.close_reason = reason if isinstance(reason, str) else ""
            self._changed.set()

    @property
    def closed(self) -> bool:
        return self._reader.done()

    def text(self) -> str:
        """The screen as text, a line per row (trailing spaces kept off); made again only
        after new output (about 2 ms of CPU each time, and the tests' waits poll it)."""
        if self._text is None or self._text[0] != self.received:
            self._text = (self.received,
                          "\n".join(line.rstrip() for line in self.screen.display))
        return self._text[1]

    async def wait_for(self, predicate: object, timeout: float) -> None:
        assert callable(predicate)
        deadline = time.monotonic() + timeout
        while not predicate():
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"timed out; the screen:\n{self.text()}")
            self._changed.clear()
            if predicate():
                return
            if self.closed:
                raise AssertionError(f"the session ended (code {self.close_code}); the "
                                     f"screen:\n{self.text()}")
            with suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), min(left, 0.5))

    async def wait_for_text(self, text: str, timeout: float = 15.0) -> None:
        await self.wait_for(lambda: text in self.text(), timeout)

    async def new_game(self) -> None:
        """From the title screen: a new game with the default choices, to the first turn."""
        await self.wait_for_text("fishing card game")
        await self.send_keys("n")
        await self.wait_for_text("Preset")
        await self.send_keys(ENTER)
        await self.wait_for_text("Your turn")

    async def wait_closed(self, timeout: float = 15.0) -> None:
        await asyncio.wait_for(asyncio.shield(self._reader), timeout)

    async def send_keys(self, keys: str) -> None:
        await self.ws.send_str(json.dumps(["stdin", keys]))

    async def resize(self, width: int, height: int) -> None:
        self.screen.resize(height, width)
        self._text = None
        await self.ws.send_str(json.dumps(["resize", {"width": width, "height": height}]))

    async def close(self) -> None:
        await self.ws.close()
        await asyncio.wait_for(asyncio.shield(self._reader), 10)


def _saved_game(data: Path) -> dict[str, Any] | None:
    """The one saved game in data directory ``data``, as its file's JSON (None: none yet, or
    not readable now)."""
    saves = list((data / "games").glob("*.json"))
    if len(saves) != 1:
        return None
    try:
        game = json.loads(saves[0].read_bytes())
    except (OSError, ValueError):
        return None
    return game if isinstance(game, dict) else None


def moves_saved(data: Path) -> int:
    """The moves of the one saved game in data directory ``data`` (-1: none yet)."""
    game = _saved_game(data)
    moves = game.get("moves") if game is not None else None
    return len(moves) if isinstance(moves, list) else -1


def saved_turn(data: Path) -> int | None:
    """Whose turn it is (a seat) in the one saved game of data directory ``data``: its
    position's ``turn=``; None when there is no save yet.

    A game saves after the frame of a move is written, so the screen can show a position
    ("Your turn", after the computer led) before its save is there: wait for the save whose
    turn is the player's before counting its moves."""
    game = _saved_game(data)
    position = game.get("position") if game is not None else None
    found = re.search(r"\bturn=(\d+)", position) if isinstance(position, str) else None
    return int(found.group(1)) if found else None


async def sign_in(http: aiohttp.ClientSession, link: str) -> str:
    """Open a one-time link (without following its redirect); the session cookie's value."""
    async with http.get(link, allow_redirects=False) as response:
        assert response.status == 303, (response.status, await response.text())
        assert response.headers["Location"] == "/"
        morsel = next(iter(response.cookies.values()))
        return morsel.value


@asynccontextmanager
async def open_game(base_url: str, cookie: str | None, *, cookie_name: str,
                    origin: str | None = "", width: int = 80,
                    height: int = 24) -> AsyncIterator[WebClient]:
    """A :class:`WebClient` on ``base_url``'s websocket with the cookie (None: without) and
    an Origin header ("" : the server's own; None: without)."""
    headers = {}
    if origin is not None:
        headers["Origin"] = origin or origin_of(base_url)
    if cookie is not None:
        headers["Cookie"] = f"{cookie_name}={cookie}"
    async with aiohttp.ClientSession() as http:
        url = f"{base_url.replace('http', 'ws', 1)}/ws?width={width}&height={height}"
        ws = await http.ws_connect(url, headers=headers, max_msg_size=0)
        client = WebClient(http, ws, width, height)
        try:
            yield client
        finally:
            if not client.closed:
                await client.close()


def game_launcher(data: Path, *extra: str, calls: list[str] | None = None) -> Launcher:
    """The real game (``python -m casino_tui --continue``) in data directory ``data``, its
    settings in ``data/config`` (computers that move at once); ``calls`` records the
    identities launched."""

    config = data / "config"
    config.mkdir(parents=True, exist_ok=True)
    settings = config / "settings.json"
    if not settings.exists():  # the computers move at once
        settings.write_text(json.dumps({"speed": "instant"}))

    async def launch(identity: str, width: int, height: int) -> Launch:
        if calls is not None:
            calls.append(identity)
        env = game_environment({"HOME": str(data)})
        env["CASINO_TUI_CONFIG_DIR"] = str(config)
        return Launch(argv=[sys.executable, "-m", "casino_tui", "--continue", "--data-dir",
                            str(data), *extra], env=env, cwd=data)

    return launch


@asynccontextmanager
async def running_server(launcher: Launcher, *, limits: WebLimits | None = None,
                         link_ttl: float = 300, quit_grace: float = 3.0,
                         clock: Callable[[], float] = time.monotonic
                         ) -> AsyncIterator[WebServer]:
    """A :class:`WebServer` on a free loopback port, closed (every app stopped) at the end."""
    server = WebServer(launcher, links=LinkIssuer(ttl_seconds=link_ttl),
                       signer=CookieSigner(KEY), limits=limits, host="127.0.0.1", port=0,
                       quit_grace=quit_grace, clock=clock)
    await server.start()
    try:
        yield server
    finally:
        await server.close()
