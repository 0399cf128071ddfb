"""Browser players on the SSH server (``casino-tui serve --web-port PORT``, issue 16).

The server runs a :class:`casino_tui.web.server.WebServer` in its own event loop. A browser
gets in only with a one-time link the player asked for from their game over SSH (the title
screen's Browser entry asks the table channel, whose service calls :meth:`BrowserFront.mint`
with the player the session's secret names). The link sets a signed cookie naming the player
(their id, ``sha256-...``); each browser session then runs the normal app with exactly what an
SSH session of that key gets (:meth:`BrowserFront.launch`): the player's directories (saves,
statistics, settings and display name), the players' directory (the daily deal's ranking), a
secret of the table channel registered for the player (forgotten when the app ends), and the
notice when their files cannot be written.

A player has one live game: a browser session starting hangs up their SSH game ("Your game
continues in the browser.") and waits until it saved and ended; an SSH session starting ends
their browser session likewise (:meth:`BrowserFront.hang_up`).

aiohttp and textual-serve are imported only when the web front end starts.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from casino_tui.saves.storestatus import STORE_STATUS_ENV
from casino_tui.table.hub import HubError
from casino_tui.table.weblink import WebLink

from .config import StoreAway
from .players import PlayerDirs, fingerprint_of, prepare_player
from .pty_session import NOTICE_ENV, SessionEnd, child_environment

if TYPE_CHECKING:  # pragma: no cover
    from casino_tui.web.server import Launch, WebServer

    from .server import GameServer

log = logging.getLogger("casino_tui.serve")

COOKIE_KEY_FILE = "web/cookie.key"  # in the server's data directory (mode 0600)
LINK_MINUTES = 5  # a link works once, within this many minutes
NEW_LINK_HINT = ("For a new link, connect to the server over SSH and choose Browser on the "
                 "title screen.")
# What a browser session's page says when the player's SSH game takes over, or the server stops.
TO_SSH = "Your game continues over SSH. Open a new link from there to play here again."
SHUTDOWN = "The server is shutting down. Your game is saved: come back later."
WEB_TERM = "xterm-256color"  # TERM of a browser session's app (textual-serve's terminal)


class WebFrontError(Exception):
    """The web front end (or the metrics endpoint) cannot listen; ``str()`` says where and
    why."""


class BrowserFront:
    """The web front end of ``server``: :meth:`start` (after the tables are open), :meth:`close`
    at the end. ``web``: the WebServer, once started."""

    def __init__(self, server: GameServer) -> None:
        self.server = server
        self.web: WebServer | None = None

    @property
    def url(self) -> str:
        return self.web.public_url if self.web is not None else ""

    async def start(self) -> None:
        """Listen, and let the table channel mint links. Raises :class:`WebFrontError`."""
        from casino_tui.web.server import WebLimits, WebServer
        from casino_tui.web.tokens import CookieSigner, LinkIssuer, load_or_create_key

        cfg = self.server.config
        assert cfg.web_port is not None
        key = await asyncio.to_thread(load_or_create_key, cfg.data_dir / COOKIE_KEY_FILE)
        limits = WebLimits(max_sessions=cfg.max_sessions,
                           rate_limit_per_minute=cfg.rate_limit,
                           idle_timeout_seconds=cfg.idle_timeout)
        web = WebServer(self.launch, links=LinkIssuer(ttl_seconds=LINK_MINUTES * 60),
                        signer=CookieSigner(key), limits=limits, host=cfg.web_host,
                        port=cfg.web_port, public_url=cfg.web_public_url,
                        new_link_hint=NEW_LINK_HINT, quit_grace=cfg.hangup_grace + 1)
        try:
            await web.start()
        except OSError as err:
            raise WebFrontError(f"cannot serve browsers on {cfg.web_host} port "
                                f"{cfg.web_port}: {err.strerror or err}") from None
        self.web = web
        service = self.server.hub_service
        if service is not None:
            service.offer_web(self.mint)
        log.info("browser players: %s (web front end on %s, port %d); links from the title "
                 "screen over SSH%s", web.public_url, cfg.web_host, web.port,
                 "" if service is not None else
                 " (none now: the tables, which carry the links, are closed)")

    async def close(self) -> None:
        """End every browser session (their games save) and stop listening."""
        web, self.web = self.web, None
        service = self.server.hub_service
        if service is not None:
            service.offer_web(None)
        if web is not None:
            await web.end_all(SHUTDOWN)
            await web.close()

    # ------------------------------------------------------------------ links
    def mint(self, player: str) -> WebLink:
        """A one-time link for ``player`` (the id the table channel's secret names)."""
        web = self.web
        if web is None:
            raise HubError("the server's web front end is not running")
        return WebLink(web.new_link(player), web.links.ttl_seconds)

    # ------------------------------------------------------------------ sessions
    async def hang_up(self, player: str, why: str = TO_SSH) -> bool:
        """End ``player``'s browser session (their SSH game takes over; ``why`` is what the
        page says) and wait until its app saved and ended; False when they had none."""
        web = self.web
        if web is None:
            return False
        return await web.hang_up(player, why)

    async def launch(self, player: str, width: int, height: int) -> Launch:
        """How to start ``player``'s app for a browser: what their SSH session gets."""
        from casino_tui.web.server import Launch

        server = self.server
        cfg = server.config
        fingerprint = fingerprint_of(player)
        dirs = PlayerDirs.for_fingerprint(cfg.data_dir, fingerprint)
        problem = await asyncio.to_thread(prepare_player, dirs, fingerprint)
        number = server.new_session_number()
        async with server.player_lock(fingerprint):
            # One live game: the player's SSH game ends first (it saves), so this one can
            # continue it.
            await server.hang_up_ssh(fingerprint, SessionEnd("browser", 1), number,
                                     "started a game in a browser")
            store_session = None
            if server.shared is not None:  # their files from the store, as over SSH
                try:
                    store_session = await server.shared.begin(fingerprint, number, dirs)
                except StoreAway as err:
                    from casino_tui.web.server import LaunchRefused

                    log.warning("refused %s in a browser: %s", fingerprint, err)
                    raise LaunchRefused(err.message.removeprefix("casino-tui: ")) from None
            args = await server.game_arguments(dirs, fingerprint)
        env = child_environment(WEB_TERM, {}, dirs.root, dirs.data, dirs.config,
                                players_dir=dirs.root.parent)
        if problem is not None:
            env[NOTICE_ENV] = problem
        if store_session is not None:  # the game says when the store is away
            env[STORE_STATUS_ENV] = str(store_session.status)
        secret = server._table_secret(number, fingerprint, env)
        computers = server._computers_secret(number, fingerprint, env)
        log.info("session %d start: player %s in a browser size %dx%d args [%s]", number,
                 fingerprint, width, height, " ".join(args))
        started = asyncio.get_running_loop().time()

        async def ended() -> None:
            server.end_computers(computers)
            if store_session is not None and server.shared is not None:
                await server.shared.end(store_session)
            if secret is not None and server.hub_service is not None:
                await server.hub_service.end_session(secret)
            log.info("session %d end: player %s in a browser duration %.1fs", number,
                     fingerprint, asyncio.get_running_loop().time() - started)

        cwd = next((d for d in (dirs.root, cfg.data_dir) if d.is_dir()), Path("/"))
        return Launch(argv=[sys.executable, "-m", "casino_tui", *args], env=env, cwd=cwd,
                      on_end=ended, nice=cfg.session_nice)
