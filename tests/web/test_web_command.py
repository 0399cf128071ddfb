"""``casino-tui web`` as a program, without a browser: the link it prints signs in, Ctrl+C or
SIGTERM stops every game, a killed server leaves no game behind, a port in use is told."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import aiohttp
import pytest
from pty_support import session_processes

from casino_tui.web.command import build_parser, game_environment

from .browser_support import TITLE, WebCommand
from .web_support import open_game, sign_in

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs Linux")


def until(predicate: object, timeout: float = 15, what: str = "it") -> None:
    assert callable(predicate)
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


async def _open_title(web: WebCommand) -> list[int]:
    """Sign in with the printed link and open the game; the app's process ids meanwhile."""
    async with aiohttp.ClientSession() as http:
        cookie = await sign_in(http, web.link)
    port = web.base_url.rsplit(":", 1)[1]
    async with open_game(web.base_url, cookie, cookie_name=f"casino_tui_{port}") as page:
        await page.wait_for_text(TITLE)
        return web.app_processes()


def test_the_link_opens_the_game_and_sigterm_stops_everything(tmp_path: Path) -> None:
    web = WebCommand(tmp_path / "data")
    try:
        assert web.base_url.startswith("http://127.0.0.1:")  # loopback only
        assert "(this machine only)" in "".join(web.output)
        assert (tmp_path / "data" / "web" / "cookie.key").stat().st_mode & 0o077 == 0
        apps = asyncio.run(_open_title(web))
        assert len(apps) == 1
        # a second link, by Enter in its terminal; the first one is used up
        second = web.new_link()
        assert second != web.link
        web.link = second
        apps = asyncio.run(_open_title(web))
    finally:
        assert web.stop() == 0
    assert all(not session_processes(pid) for pid in apps)


def test_a_killed_server_leaves_no_game_behind(tmp_path: Path) -> None:
    web = WebCommand(tmp_path / "data")
    try:
        async def hold() -> list[int]:
            async with aiohttp.ClientSession() as http:
                cookie = await sign_in(http, web.link)
            port = web.base_url.rsplit(":", 1)[1]
            async with open_game(web.base_url, cookie, cookie_name=f"casino_tui_{port}") as page:
                await page.wait_for_text(TITLE)
                apps = web.app_processes()
                web.process.send_signal(signal.SIGKILL)  # no chance to stop its games
                await page.wait_closed()
                return apps

        apps = asyncio.run(hold())
        assert len(apps) == 1
        until(lambda: not session_processes(apps[0]), 15, "the game to end with its server")
    finally:
        web.kill()


def test_a_port_in_use_is_told(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run(
            [sys.executable, "-m", "casino_tui", "web", "--port", str(port), "--data-dir",
             str(tmp_path)], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert result.returncode == 2
    assert f"cannot listen on 127.0.0.1:{port}" in result.stderr
    assert "--port 0" in result.stderr


def test_the_command_and_the_game_start_without_the_web_libraries() -> None:
    code = ("import sys, casino_tui.__main__, casino_tui.web.command; "
            "print(sorted(m for m in ('aiohttp', 'textual_serve', 'jinja2') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60, check=True).stdout
    assert out.strip() == "[]"


def test_the_flags() -> None:
    args = build_parser().parse_args([])
    assert (args.port, args.data_dir, args.idle_minutes, args.link_minutes) == (8000, None, 60, 5)
    for bad in (["--port", "70000"], ["--port", "x"], ["--idle-minutes", "-1"]):
        with pytest.raises(SystemExit):
            build_parser().parse_args(bad)


def test_the_game_keeps_little_of_the_environment() -> None:
    env = game_environment({"HOME": "/h", "SECRET_TOKEN": "s", "XDG_CONFIG_HOME": "/c",
                            "CASINO_TUI_CONFIG_DIR": "/k", "LANG": "fr_FR.ISO-8859-1"})
    assert env == {"HOME": "/h", "XDG_CONFIG_HOME": "/c", "CASINO_TUI_CONFIG_DIR": "/k",
                   "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "PYTHONUTF8": "1"}
    assert os.environ is not env
