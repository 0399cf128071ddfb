"""The web server at the protocol level: sign-in pages, refusals before anything starts, the
bounds, one live session per identity, the idle timeout and a clean shutdown. The screen is
read through pyte (tests/web/web_support.py); the real game runs where a game is needed."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import AsyncIterator, Coroutine
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from pty_support import session_processes

from casino_tui.procs import autogroup_nice
from casino_tui.saves import open_store
from casino_tui.web.server import GameService, Launch, Launcher, WebLimits, WebServer
from casino_tui.web.tokens import CookieSigner, LinkIssuer

from .web_support import (
    ENTER,
    KEY,
    game_launcher,
    moves_saved,
    open_game,
    origin_of,
    running_server,
    sign_in,
)

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs Linux")

TITLE = "fishing card game"


def run(coro: Coroutine[Any, Any, None]) -> None:
    asyncio.run(asyncio.wait_for(coro, 90))


def fake_launcher(calls: list[str]) -> Launcher:
    """A stand-in app that starts as a Textual web app does and waits (cheap, for the bounds)."""

    async def launch(identity: str, width: int, height: int) -> Launch:
        calls.append(identity)
        code = ("import sys; sys.stdout.write('__GANGLION__\\n'); sys.stdout.flush(); "
                "sys.stdin.buffer.read()")
        return Launch(argv=[sys.executable, "-c", code], env={}, cwd=Path.cwd())

    return launch


def gone(pid: int) -> bool:
    """No live process is left of the app's session (the app leads it: setsid)."""
    return not session_processes(pid)


async def signed_in(server: WebServer, identity: str = "local") -> str:
    async with aiohttp.ClientSession() as http:
        return await sign_in(http, server.new_link(identity))


async def ws_status(server: WebServer, headers: dict[str, str],
                    base_url: str | None = None) -> int:
    """The status of a websocket handshake with these headers (101: accepted)."""
    base = server.public_url if base_url is None else base_url
    async with aiohttp.ClientSession() as http:
        try:
            ws = await http.ws_connect(f"{base.replace('http', 'ws', 1)}/ws", headers=headers)
        except aiohttp.WSServerHandshakeError as err:
            return err.status
        await ws.close()
        return 101


# ---------------------------------------------------------------------------------- pages
def test_a_link_signs_the_browser_in_once() -> None:
    async def main() -> None:
        calls: list[str] = []
        async with running_server(fake_launcher(calls)) as server:
            link = server.new_link("local")
            # (aiohttp keeps cookies of an IP address only when told to: unsafe)
            async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
                async with http.get(link, allow_redirects=False) as response:
                    assert response.status == 303 and response.headers["Location"] == "/"
                    cookie = response.headers["Set-Cookie"]
                    assert cookie.startswith(f"{server.cookie_name}=local.")
                    for attribute in ("HttpOnly", "SameSite=Strict", "Path=/"):
                        assert attribute in cookie
                    assert "Secure" not in cookie  # http on loopback
                    assert response.headers["Referrer-Policy"] == "no-referrer"
                async with http.get(server.public_url + "/") as page:
                    assert page.status == 200
                    body = await page.text()
                    assert "textual-terminal" in body and f"{server.origin}/ws" \
                        .replace("http", "ws") in body
                    assert "googleapis" not in body  # no third party learns who plays
                async with http.get(link) as again:
                    assert again.status == 403
                    text = await again.text()
                    assert "already used or has expired" in text and "press Enter" in text
                    assert "signed in already" in text  # this browser has its cookie
            async with aiohttp.ClientSession() as http, http.get(link) as elsewhere:
                assert elsewhere.status == 403
                assert "signed in already" not in await elsewhere.text()
            assert calls == []  # pages start nothing

    run(main())


def test_the_page_speaks_to_the_host_the_browser_asked_for() -> None:
    async def main() -> None:
        calls: list[str] = []
        async with running_server(fake_launcher(calls), quit_grace=0.2) as server:
            cookie = await signed_in(server)
            port = server.port
            for host, websocket in ((f"127.0.0.1:{port}", f"ws://127.0.0.1:{port}/ws"),
                                    (f"localhost:{port}", f"ws://localhost:{port}/ws"),
                                    ('x"><script>', "ws://x&quot;&gt;&lt;script&gt;/ws")):
                headers = {"Cookie": f"{server.cookie_name}={cookie}", "Host": host}
                async with aiohttp.ClientSession() as http, \
                        http.get(server.public_url + "/", headers=headers) as page:
                    body = await page.text()
                    assert f'data-session-websocket-url="{websocket}"' in body, host
                    assert "<script>/ws" not in body
            # a browser that typed localhost has its cookie there, and its page's Origin
            assert await ws_status(server, {"Cookie": f"{server.cookie_name}={cookie}",
                                            "Origin": f"http://localhost:{port}",
                                            "Host": f"localhost:{port}"}) == 101

    run(main())


def test_a_look_at_a_link_does_not_use_it_up() -> None:
    async def main() -> None:
        async with running_server(fake_launcher([])) as server:
            link = server.new_link("local")
            async with aiohttp.ClientSession() as http:
                async with http.head(link, allow_redirects=False) as look:
                    assert look.status == 405 and "Set-Cookie" not in look.headers
                assert await sign_in(http, link)

    run(main())


def test_a_public_url_is_used_for_the_page_and_the_cookie() -> None:
    async def main() -> None:
        server = WebServer(fake_launcher([]), links=LinkIssuer(), signer=CookieSigner(KEY),
                           port=0, public_url="https://casino.example/", quit_grace=0.2)
        await server.start()
        try:
            assert server.public_url == "https://casino.example"
            assert server.origin == "https://casino.example"
            assert server.new_link("local").startswith("https://casino.example/link/")
            local = f"http://127.0.0.1:{server.port}"
            async with aiohttp.ClientSession() as http:
                async with http.get(f"{local}/link/{server.links.issue('local')}",
                                    allow_redirects=False) as response:
                    assert "Secure" in response.headers["Set-Cookie"]
                    cookie = next(iter(response.cookies.values())).value
                headers = {"Cookie": f"{server.cookie_name}={cookie}"}
                async with http.get(f"{local}/", headers=headers) as page:
                    body = await page.text()
                    assert 'data-session-websocket-url="wss://casino.example/ws"' in body
            # the browser's Origin is the public one (the proxy's), not the listener's
            headers = {"Cookie": f"{server.cookie_name}={cookie}"}
            for origin, status in (("http://evil.example", 403), ("http://casino.example", 403),
                                   ("https://casino.example", 101)):
                assert await ws_status(server, {**headers, "Origin": origin},
                                       base_url=local) == status, origin
        finally:
            await server.close()

    run(main())


@contextlib.asynccontextmanager
async def stripping_proxy(prefix: str) -> AsyncIterator[tuple[str, list[str]]]:
    """A reverse proxy on a free loopback port that serves an upstream under ``prefix`` as
    nginx's ``location /casino/ { proxy_pass http://127.0.0.1:8080/; }`` does: it strips the
    prefix, passes websockets on, and answers 404 outside the prefix. Yields its address and
    a list to put the upstream's address in (known once the server listens)."""
    upstream: list[str] = []

    async def pump(src: Any, dst: Any) -> None:
        async for message in src:
            if message.type == aiohttp.WSMsgType.BINARY:
                await dst.send_bytes(message.data)
            elif message.type == aiohttp.WSMsgType.TEXT:
                await dst.send_str(message.data)
        await dst.close()

    async def handle(request: web.Request) -> web.StreamResponse:
        if not request.path.startswith(prefix + "/"):
            return web.Response(status=404, text="not under the prefix")
        target = upstream[0] + request.path_qs[len(prefix):]
        headers = {k: v for k, v in request.headers.items() if k.lower() in ("cookie", "origin")}
        headers["X-Forwarded-For"] = request.remote or ""
        async with aiohttp.ClientSession() as http:
            if request.headers.get("Upgrade", "").lower() == "websocket":
                try:
                    up = await http.ws_connect(target.replace("http", "ws", 1), headers=headers,
                                               max_msg_size=0)
                except aiohttp.WSServerHandshakeError as err:
                    return web.Response(status=err.status)
                down = web.WebSocketResponse(max_msg_size=0)
                await down.prepare(request)
                await asyncio.gather(pump(up, down), pump(down, up))
                return down
            async with http.get(target, headers=headers, allow_redirects=False) as r:
                out = web.Response(status=r.status, body=await r.read())
                for name in ("Content-Type", "Location", "Set-Cookie"):
                    for value in r.headers.getall(name, []):
                        out.headers.add(name, value)
                return out

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", handle)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    try:
        yield f"http://127.0.0.1:{runner.addresses[0][1]}", upstream
    finally:
        await runner.cleanup()


def test_a_game_served_under_a_path_by_a_reverse_proxy(tmp_path: Path) -> None:
    async def main() -> None:
        async with stripping_proxy("/casino") as (proxy, upstream):
            server = WebServer(game_launcher(tmp_path), links=LinkIssuer(),
                               signer=CookieSigner(KEY), port=0,
                               public_url=f"{proxy}/casino/", quit_grace=0.2)
            await server.start()
            upstream.append(f"http://127.0.0.1:{server.port}")
            try:
                public = f"{proxy}/casino"
                assert server.public_url == public and server.origin == proxy
                link = server.new_link("local")
                assert link.startswith(f"{public}/link/")
                async with aiohttp.ClientSession() as http:
                    async with http.get(link, allow_redirects=False) as response:
                        assert response.status == 303
                        assert response.headers["Location"] == "/casino/"
                        assert "Path=/casino;" in response.headers["Set-Cookie"] + ";"
                        cookie = next(iter(response.cookies.values())).value
                    headers = {"Cookie": f"{server.cookie_name}={cookie}"}
                    async with http.get(f"{public}/", headers=headers) as page:
                        body = await page.text()
                    ws = f"ws://{proxy.split('://', 1)[1]}/casino/ws"
                    assert f'data-session-websocket-url="{ws}"' in body
                    assert f"{public}/static/" in body
                    async with http.get(f"{public}/static/js/textual.js") as static:
                        assert static.status == 200
                    # a used link offers the way back to the game, under the path
                    async with http.get(link, headers=headers) as again:
                        assert again.status == 403
                        assert 'href="/casino/"' in await again.text()
                async with open_game(public, cookie, cookie_name=server.cookie_name) as page:
                    await page.wait_for_text(TITLE)
                    await page.new_game()
                    await page.wait_for_text("Your turn")
            finally:
                await server.close()

    run(main())


def test_the_page_needs_a_valid_cookie() -> None:
    async def main() -> None:
        calls: list[str] = []
        async with running_server(fake_launcher(calls)) as server:
            forged = CookieSigner(bytes(32)).sign("local")
            for headers in ({}, {"Cookie": f"{server.cookie_name}={forged}"},
                            {"Cookie": f"{server.cookie_name}=local.99999999999.x"}):
                async with aiohttp.ClientSession() as http, \
                        http.get(server.public_url + "/", headers=headers) as page:
                    assert page.status == 403
                    text = await page.text()
                    assert "You need a link to play" in text and "<script" not in text
            async with aiohttp.ClientSession() as http, \
                    http.get(server.public_url + "/static/js/textual.js") as static:
                assert static.status == 200  # static files stay public
            assert calls == []

    run(main())


def test_an_expired_link_is_refused() -> None:
    async def main() -> None:
        calls: list[str] = []
        async with running_server(fake_launcher(calls), link_ttl=0.2) as server:
            link = server.new_link("local")
            await asyncio.sleep(0.3)
            async with aiohttp.ClientSession() as http, \
                    http.get(link, allow_redirects=False) as response:
                assert response.status == 403
                assert "Set-Cookie" not in response.headers
            assert calls == []

    run(main())


# ---------------------------------------------------------------------------- the websocket
def test_the_websocket_refuses_before_starting_anything() -> None:
    async def main() -> None:
        calls: list[str] = []
        async with running_server(fake_launcher(calls), quit_grace=0.2) as server:
            good = await signed_in(server)
            name = server.cookie_name
            own = origin_of(server.public_url)
            expired = CookieSigner(KEY, clock=lambda: 0.0).sign("local")  # ended in 1970
            forged = CookieSigner(bytes(32)).sign("local")
            body, _, mac = good.rpartition(".")
            cases = {
                "no Origin": {"Cookie": f"{name}={good}"},
                "a foreign Origin": {"Cookie": f"{name}={good}", "Origin": "http://evil.example"},
                "another port's Origin": {"Cookie": f"{name}={good}",
                                          "Origin": "http://127.0.0.1:1"},
                "no cookie": {"Origin": own},
                "a forged cookie": {"Cookie": f"{name}={forged}", "Origin": own},
                "an altered cookie": {"Cookie": f"{name}={body.replace('local', 'other')}.{mac}",
                                      "Origin": own},
                "an expired cookie": {"Cookie": f"{name}={expired}", "Origin": own},
                "another server's cookie name": {"Cookie": f"casino_tui_1={good}",
                                                 "Origin": own},
            }
            for what, headers in cases.items():
                assert await ws_status(server, headers) == 403, what
            assert calls == [] and server.sessions() == []
            # and with both right, it opens
            assert await ws_status(server, {"Cookie": f"{name}={good}", "Origin": own}) == 101
            assert calls == ["local"]

    run(main())


def test_the_session_cap() -> None:
    async def main() -> None:
        calls: list[str] = []
        limits = WebLimits(max_sessions=1, rate_limit_per_minute=0, idle_timeout_seconds=None)
        async with running_server(fake_launcher(calls), limits=limits,
                                  quit_grace=0.2) as server:
            alice = await signed_in(server, "alice")
            bob = await signed_in(server, "bob")
            name = server.cookie_name
            async with open_game(server.public_url, alice, cookie_name=name):
                await _until(lambda: len(server.app_pids()) == 1)
                own = origin_of(server.public_url)
                assert await ws_status(server, {"Cookie": f"{name}={bob}", "Origin": own}) == 503
                assert calls == ["alice"]
                # the same player opening it again is not one more session: it replaces it
                assert await ws_status(server, {"Cookie": f"{name}={alice}",
                                                "Origin": own}) == 101
            await _until(lambda: server.sessions() == [])
            async with open_game(server.public_url, bob, cookie_name=name):
                await _until(lambda: server.sessions() == ["bob"])

    run(main())


def test_the_rate_limit_per_address() -> None:
    async def main() -> None:
        calls: list[str] = []
        now = [1000.0]
        limits = WebLimits(max_sessions=0, rate_limit_per_minute=2, idle_timeout_seconds=None)
        async with running_server(fake_launcher(calls), limits=limits, quit_grace=0.2,
                                  clock=lambda: now[0]) as server:
            cookie = await signed_in(server)
            headers = {"Cookie": f"{server.cookie_name}={cookie}",
                       "Origin": origin_of(server.public_url)}
            assert await ws_status(server, headers) == 101
            now[0] += 30
            assert await ws_status(server, headers) == 101
            now[0] += 29
            assert await ws_status(server, headers) == 429
            assert len(calls) == 2
            now[0] += 2  # the first start is more than a minute ago
            assert await ws_status(server, headers) == 101
            assert len(calls) == 3

    run(main())


async def _until(predicate: Any, timeout: float = 15) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        assert loop.time() < deadline, "timed out"
        await asyncio.sleep(0.05)


# ------------------------------------------------------------------------------ the game
def test_the_title_and_a_move_by_keys_then_a_reload_resumes(tmp_path: Path) -> None:
    async def main() -> None:
        calls: list[str] = []
        async with running_server(game_launcher(tmp_path, calls=calls)) as server:
            cookie = await signed_in(server)
            async with open_game(server.public_url, cookie,
                                 cookie_name=server.cookie_name) as page:
                await page.new_game()
                await _until(lambda: moves_saved(tmp_path) >= 0)
                before = moves_saved(tmp_path)
                await page.send_keys(ENTER)  # South plays the move shown
                await _until(lambda: moves_saved(tmp_path) >= before + 2)
                await page.wait_for_text("Your turn")
                pid = server.app_pids()[0]
            # the page is gone (a reload, a dropped connection): the app saved and ended
            await _until(lambda: gone(pid))
            played = moves_saved(tmp_path)
            async with open_game(server.public_url, cookie,
                                 cookie_name=server.cookie_name) as page:
                await page.wait_for_text("Your turn")  # straight back at the table
                assert TITLE not in page.text()
                assert moves_saved(tmp_path) == played
            assert calls == ["local", "local"]

    run(main())


def test_a_second_window_takes_the_game_over(tmp_path: Path) -> None:
    async def main() -> None:
        started: list[str] = []
        async with running_server(game_launcher(tmp_path)) as server:
            server.on_session_start = started.append
            cookie = await signed_in(server)
            name = server.cookie_name
            async with open_game(server.public_url, cookie, cookie_name=name) as first:
                await first.wait_for_text(TITLE)
                old = server.app_pids()[0]
                async with open_game(server.public_url, cookie, cookie_name=name) as second:
                    await first.wait_closed()
                    assert "continues in another window" in first.text()
                    assert gone(old)  # ended before the new one started
                    await second.wait_for_text(TITLE)
                    assert server.app_pids() != [old] and len(server.app_pids()) == 1
            assert started == ["local", "local"]

    run(main())


def test_hang_up_ends_a_session_with_its_reason(tmp_path: Path) -> None:
    async def main() -> None:
        async with running_server(game_launcher(tmp_path)) as server:
            cookie = await signed_in(server, "sha256-Abc_1=")
            assert not await server.hang_up("sha256-Abc_1=", "nothing to end")
            async with open_game(server.public_url, cookie,
                                 cookie_name=server.cookie_name) as page:
                await page.wait_for_text(TITLE)
                pid = server.app_pids()[0]
                assert await server.hang_up("sha256-Abc_1=", "Your game continues over SSH.")
                assert gone(pid) and server.sessions() == []
                await page.wait_closed()
                assert "Your game continues over SSH." in page.text()
                assert page.close_code == aiohttp.WSCloseCode.GOING_AWAY

    run(main())


def test_an_idle_session_is_stopped(tmp_path: Path) -> None:
    async def main() -> None:
        limits = WebLimits(idle_timeout_seconds=2.0)
        async with running_server(game_launcher(tmp_path), limits=limits) as server:
            cookie = await signed_in(server)
            async with open_game(server.public_url, cookie,
                                 cookie_name=server.cookie_name) as page:
                await page.wait_for_text(TITLE)
                pid = server.app_pids()[0]
                await page.wait_closed(timeout=15)
                assert "Nothing was typed for 2 seconds" in page.text()
                assert gone(pid)

    run(main())


def test_quitting_the_game_ends_the_session(tmp_path: Path) -> None:
    async def main() -> None:
        async with running_server(game_launcher(tmp_path)) as server:
            cookie = await signed_in(server)
            async with open_game(server.public_url, cookie,
                                 cookie_name=server.cookie_name) as page:
                await page.wait_for_text(TITLE)
                pid = server.app_pids()[0]
                await page.send_keys("q")
                await page.wait_closed()
                await _until(lambda: server.sessions() == [])
                assert gone(pid)

    run(main())


def test_shutdown_stops_every_app(tmp_path: Path) -> None:
    async def main() -> None:
        pids: list[int] = []
        async with contextlib.AsyncExitStack() as pages:
            async with running_server(game_launcher(tmp_path)) as server:
                for who in ("alice", "bob"):
                    cookie = await signed_in(server, who)
                    page = await pages.enter_async_context(
                        open_game(server.public_url, cookie, cookie_name=server.cookie_name))
                    await page.wait_for_text(TITLE)
                pids = server.app_pids()
                assert len(pids) == 2
            await page.wait_closed()
            assert "The server is shutting down. Your game is saved." in page.text()
        for pid in pids:
            assert gone(pid)

    run(main())


def test_an_app_that_will_not_quit_is_killed_with_its_group() -> None:
    async def main() -> None:
        code = ("import os, signal, subprocess, sys; signal.signal(signal.SIGTERM, signal.SIG_IGN);"
                "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']);"
                "sys.stdout.write('__GANGLION__\\n'); sys.stdout.flush(); "
                "import time; time.sleep(60)")

        async def launch(identity: str, width: int, height: int) -> Launch:
            return Launch(argv=[sys.executable, "-c", code], env={}, cwd=Path.cwd())

        async with running_server(launch, quit_grace=0.3) as server:
            cookie = await signed_in(server)
            async with open_game(server.public_url, cookie, cookie_name=server.cookie_name):
                await _until(lambda: server.app_pids() and
                             len(session_processes(server.app_pids()[0])) == 2)
                pid = server.app_pids()[0]
                await server.hang_up("local", "bye")
                assert gone(pid)

    run(main())


def test_an_app_runs_the_launchs_steps_below_the_servers_priority() -> None:
    """``serve --session-nice`` for browser games as for SSH ones: the app's process, and its
    scheduler group (a session of its own), run below the server's; the server's own priority
    and group stay as they were."""
    async def main() -> None:
        code = ("import sys, time; sys.stdout.write('__GANGLION__\\n'); sys.stdout.flush(); "
                "time.sleep(60)")

        async def launch(identity: str, width: int, height: int) -> Launch:
            return Launch(argv=[sys.executable, "-c", code], env={}, cwd=Path.cwd(), nice=3)

        mine, my_group = os.getpriority(os.PRIO_PROCESS, 0), autogroup_nice()
        async with running_server(launch, quit_grace=0.3) as server:
            cookie = await signed_in(server)
            async with open_game(server.public_url, cookie, cookie_name=server.cookie_name):
                await _until(lambda: bool(server.app_pids()))
                pid = server.app_pids()[0]
                assert os.getsid(pid) == pid != os.getsid(0)
                assert os.getpriority(os.PRIO_PROCESS, pid) == min(19, mine + 3)
                if my_group is not None:  # a kernel with autogroups
                    assert autogroup_nice(pid) == min(19, my_group + 3)
        assert os.getpriority(os.PRIO_PROCESS, 0) == mine and autogroup_nice() == my_group

    run(main())


# ------------------------------------------------------------------------- the app's side
def test_the_app_gets_a_fresh_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SERVER_SECRET", "x")
    monkeypatch.setenv("PATH", "/usr/bin")
    launch = Launch(argv=["true"], env={"HOME": "/h"}, cwd=Path.cwd())

    async def noop(data: object = None) -> None:
        return None

    server = WebServer(fake_launcher([]), links=LinkIssuer(), signer=CookieSigner(KEY))
    service = GameService(launch, write_bytes=noop, write_str=noop, close=noop, server=server)
    env = service._build_environment(100, 30)
    assert "SERVER_SECRET" not in env
    assert env["PATH"] == "/usr/bin" and env["HOME"] == "/h"
    assert env["TEXTUAL_DRIVER"] == "textual.drivers.web_driver:WebDriver"
    assert (env["COLUMNS"], env["ROWS"]) == ("100", "30")


def test_the_app_runs_under_the_web_driver_without_a_terminal(tmp_path: Path) -> None:
    """`python -m casino_tui` with pipes refuses without a terminal, but runs under Textual's
    web driver (the driver, not isatty, decides)."""
    import subprocess

    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path),
           "CASINO_TUI_DATA_DIR": str(tmp_path / "data"),
           "CASINO_TUI_CONFIG_DIR": str(tmp_path / "config")}
    plain = subprocess.run([sys.executable, "-m", "casino_tui"], env=env, input=b"",
                           capture_output=True, timeout=60)
    assert plain.returncode == 1 and b"needs a terminal" in plain.stderr
    web = subprocess.Popen([sys.executable, "-m", "casino_tui"],
                           env={**env, "TEXTUAL_DRIVER": "textual.drivers.web_driver:WebDriver"},
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert web.stdin is not None and web.stdout is not None
    out = b""
    while TITLE.encode() not in out:  # the title screen, drawn for the page
        chunk = os.read(web.stdout.fileno(), 65536)
        assert chunk, out
        out += chunk
    assert out.startswith(b"__GANGLION__\n")  # it started its driver
    quit_meta = b'{"type": "quit"}'  # what textual-serve sends to end the app
    web.stdin.write(b"M" + len(quit_meta).to_bytes(4, "big") + quit_meta)
    web.stdin.flush()
    _, err = web.communicate(timeout=30)
    assert web.returncode == 0 and b"needs a terminal" not in err


def test_a_game_started_in_the_browser_is_left_saved(tmp_path: Path) -> None:
    async def main() -> None:
        async with running_server(game_launcher(tmp_path)) as server:
            cookie = await signed_in(server)
            async with open_game(server.public_url, cookie,
                                 cookie_name=server.cookie_name) as page:
                await page.new_game()
                await _until(lambda: moves_saved(tmp_path) >= 0)
        store = open_store(tmp_path)
        entry = store.latest_unfinished()
        assert entry is not None
        game = store.load(entry)  # not locked by anything: the app ended
        store.close(game.slot)

    run(main())


def test_what_a_player_types_is_shown_literally(tmp_path: Path) -> None:
    async def main() -> None:
        async with running_server(game_launcher(tmp_path)) as server:
            cookie = await signed_in(server)
            async with open_game(server.public_url, cookie,
                                 cookie_name=server.cookie_name) as page:
                await page.new_game()
                await page.send_keys("\x13")  # ctrl+s: save a copy, named
                await page.wait_for_text("Save a copy of this game as")
                await page.send_keys("[bold red]x[/] [link=http://e]y")
                await page.send_keys(ENTER)
                await page.wait_for_text("Saved a copy: “[bold red]x[/]")
                assert "[link=http://e]y" in page.text()

    run(main())


def test_the_owner_hears_of_a_session_before_its_app_starts() -> None:
    async def main() -> None:
        order: list[str] = []
        calls: list[str] = []
        inner = fake_launcher(calls)

        async def launch(identity: str, width: int, height: int) -> Launch:
            order.append(f"launch {identity}")
            return await inner(identity, width, height)

        async def started(identity: str) -> None:
            await asyncio.sleep(0.05)  # awaited before the launch
            order.append(f"start {identity}")

        async with running_server(launch, quit_grace=0.2) as server:
            server.on_session_start = started
            cookie = await signed_in(server, "sha256-X")
            async with open_game(server.public_url, cookie, cookie_name=server.cookie_name):
                await _until(lambda: len(server.app_pids()) == 1)
            assert order == ["start sha256-X", "launch sha256-X"]

    run(main())


def test_a_launcher_that_fails_closes_the_page_with_a_reason() -> None:
    async def main() -> None:
        async def launch(identity: str, width: int, height: int) -> Launch:
            raise OSError("disk full")

        async with running_server(launch) as server:
            cookie = await signed_in(server)
            async with open_game(server.public_url, cookie,
                                 cookie_name=server.cookie_name) as page:
                await page.wait_closed()
                assert "The game could not be started" in page.text()
            await _until(lambda: server.sessions() == [])

    run(main())


def test_a_close_reason_fits_a_close_frame() -> None:
    from casino_tui.web.server import _close_reason

    assert _close_reason("Bye.") == b"Bye."
    long = "é" * 100  # 200 bytes
    cut = _close_reason(long)
    assert len(cut) <= 123 and cut.decode("utf-8").endswith("é...")


def test_quick_reloads_leave_one_game_and_no_stray_process(tmp_path: Path) -> None:
    """Pages opened at once and one after another for one player (a user reloading
    impatiently): the last one has the game, every other app ended."""

    async def main() -> None:
        pids: set[int] = set()
        async with running_server(game_launcher(tmp_path)) as server:
            cookie = await signed_in(server)
            name = server.cookie_name
            async with contextlib.AsyncExitStack() as stack:
                pages = [await stack.enter_async_context(
                    open_game(server.public_url, cookie, cookie_name=name)) for _ in range(3)]
                for _ in range(20):
                    pids.update(server.app_pids())
                    await asyncio.sleep(0.05)
                last = pages[-1]
                await last.wait_for_text(TITLE)
                pids.update(server.app_pids())
                for page in pages[:-1]:
                    await page.wait_closed()
                assert server.sessions() == ["local"] and len(server.app_pids()) == 1
                survivor = server.app_pids()[0]
                assert all(gone(pid) for pid in pids - {survivor})
        assert all(gone(pid) for pid in pids)

    run(main())


@pytest.mark.parametrize(("public_url", "peer", "forwarded", "counted"), [
    # no reverse proxy: the peer, whatever the request says
    (None, "127.0.0.1", "203.0.113.9", "127.0.0.1"),
    (None, "198.51.100.4", "203.0.113.9", "198.51.100.4"),
    # a proxy on this machine: the address it saw (the last entry; the client wrote the rest)
    ("https://casino.example", "127.0.0.1", "10.9.9.9, 203.0.113.9", "203.0.113.9"),
    ("https://casino.example", "::1", "2001:db8::7", "2001:db8::7"),
    # a peer that is not on this machine cannot name another address
    ("https://casino.example", "198.51.100.4", "203.0.113.9", "198.51.100.4"),
    # a proxy that sent nothing usable: its own address
    ("https://casino.example", "127.0.0.1", "", "127.0.0.1"),
    ("https://casino.example", "127.0.0.1", "not an address", "127.0.0.1"),
])
def test_the_address_the_rate_limit_counts(public_url: str | None, peer: str, forwarded: str,
                                           counted: str) -> None:
    from unittest import mock

    from aiohttp.test_utils import make_mocked_request

    async def launcher(identity: str, width: int, height: int) -> Launch:
        raise AssertionError("nothing is started")

    server = WebServer(launcher, links=LinkIssuer(), signer=CookieSigner(KEY),
                       host="127.0.0.1", port=0, public_url=public_url)
    transport = mock.Mock()
    transport.get_extra_info.side_effect = (
        lambda name, default=None: (peer, 5555) if name == "peername" else default)
    headers = {"X-Forwarded-For": forwarded} if forwarded else {}
    request = make_mocked_request("GET", "/ws", headers=headers, transport=transport)
    assert server.client_address(request) == counted
