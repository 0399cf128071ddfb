"""``casino-tui web`` in a real browser: Debian's Chromium driven by Playwright. One browser for
the module; every test runs its own ``casino-tui web`` with its own data directory.

The page draws the terminal on a canvas, so what it shows is read from the frames its own
websocket receives, through pyte (tests/web/browser_support.py). Set CASINO_TUI_SCREENSHOTS to
a folder to keep screenshots of the pages."""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from pty_support import PtyApp

from casino_tui.web.tokens import CookieSigner

from .browser_support import (
    CHROMIUM,
    TITLE,
    PageScreen,
    WebCommand,
    chromium_missing,
    screenshot,
)
from .web_support import moves_saved, saved_turn

pytestmark = [
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs Linux (/proc)"),
    pytest.mark.skipif(chromium_missing() is not None, reason=chromium_missing() or ""),
]

VIEWPORT = {"width": 1000, "height": 640}


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def context(browser: Any) -> Iterator[Any]:
    """A fresh browser profile (no cookies) for one test."""
    ctx = browser.new_context(viewport=VIEWPORT)
    try:
        yield ctx
    finally:
        ctx.close()


@pytest.fixture
def web(tmp_path: Path) -> Iterator[WebCommand]:
    command = WebCommand(tmp_path / "data")
    try:
        yield command
    finally:
        status = command.stop()
        command.kill()
        assert status == 0


def until(predicate: Any, timeout: float = 15, what: str = "it") -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def start_game_and_move(page: Any, screen: PageScreen, data: Path) -> int:
    """From the title: a new game against the computer by keys; South plays the move shown
    and the computer answers. The moves saved then."""
    screen.wait_for_text(TITLE)
    page.keyboard.press("n")
    screen.wait_for_text("Preset")
    page.keyboard.press("Enter")
    screen.wait_for_text("Your turn")
    screen.wait_for(lambda: saved_turn(data) == 0, what="the save of South's turn")
    before = moves_saved(data)
    page.keyboard.press("Enter")  # South plays the move shown
    screen.wait_for(lambda: moves_saved(data) >= before + 2, what="a move and the reply")
    screen.wait_for_text("Your turn")
    return moves_saved(data)


def cell_of(screen: PageScreen, text: str) -> tuple[int, int]:
    """The column and row where ``text`` begins on the page's terminal."""
    for row, line in enumerate(screen.text().splitlines()):
        col = line.find(text)
        if col >= 0:
            return col, row
    raise AssertionError(f"{text!r} is not on the screen:\n{screen.text()}")


def cell_centre(page: Any, screen: PageScreen, col: int, row: int) -> tuple[float, float]:
    """The page coordinates of the middle of a cell of the page's terminal."""
    box = page.locator(".xterm-screen").bounding_box()
    assert box is not None and screen.screen is not None
    width = box["width"] / screen.screen.columns
    height = box["height"] / screen.screen.lines
    return box["x"] + (col + 0.5) * width, box["y"] + (row + 0.5) * height


def click_cell(page: Any, screen: PageScreen, col: int, row: int) -> None:
    """A real mouse click (Playwright's, on the page's terminal) in the middle of a cell."""
    page.mouse.click(*cell_centre(page, screen, col, row))


def click_text(page: Any, screen: PageScreen, text: str, right: int = 0, down: int = 0) -> None:
    col, row = cell_of(screen, text)
    click_cell(page, screen, col + right, row + down)


def test_the_title_and_a_whole_move_by_clicks_alone(context: Any, web: WebCommand) -> None:
    """A mouse and nothing else: New game on the title, Start on the setup screen, then the
    first card twice (chosen, then played); the computer answers."""
    page = context.new_page()
    screen = PageScreen(page)
    page.goto(web.link)
    screen.wait_for_text(TITLE)
    click_text(page, screen, "New game", right=2)
    screen.wait_for_text("Preset")
    click_text(page, screen, "Enter start", right=2)
    screen.wait_for_text("Your turn")
    screen.wait_for(lambda: saved_turn(web.data) == 0, what="the save of South's turn")
    before = moves_saved(web.data)
    hand = "Your hand"
    assert hand in screen.text()
    # the first card of the hand: its number is in its top edge, its face below it
    first = next(mark for mark in ("┏1", "┌1") if mark in screen.text())
    click_text(page, screen, first, right=2, down=2)
    screen.wait_for_text("again to play")
    assert moves_saved(web.data) == before  # one click only chooses the card
    screenshot(page, "clicked-a-card")
    click_text(page, screen, first, right=2, down=2)
    screen.wait_for(lambda: moves_saved(web.data) >= before + 2, what="the move and the reply")
    screen.wait_for_text("Your turn")
    screenshot(page, "played-by-clicks")


def tap_cell(page: Any, screen: PageScreen, col: int, row: int) -> None:
    """A finger's tap (Playwright's touchscreen) in the middle of a cell."""
    page.touchscreen.tap(*cell_centre(page, screen, col, row))


def test_a_phone_turned_to_portrait_gets_letters_that_fit_and_plays_by_taps_alone(
        browser: Any, web: WebCommand) -> None:
    """A phone: a small touch screen (no mouse, no keyboard). Turned from landscape to
    portrait, the landscape letters would leave the game under 80 columns: the page loads
    again with letters that fit the game's 80 columns into the phone's width (nothing cut
    off). There, taps alone start a game from the title and play a card (one tap chooses it,
    a second plays it)."""
    phone = browser.new_context(viewport={"width": 915, "height": 412}, is_mobile=True,
                                has_touch=True)
    try:
        page = phone.new_page()
        screen = PageScreen(page)
        page.goto(web.link)
        screen.wait_for_text(TITLE)
        font = "document.getElementById('terminal').dataset.fontSize"
        assert page.evaluate(font) == "13"  # 24 rows in 412 px
        page.set_viewport_size({"width": 412, "height": 915})
        screen.wait_for(lambda: len(screen.sockets) == 2, what="the page loaded again")
        screen.wait_for_text(TITLE)
        assert page.evaluate(font) == "8"
        assert screen.screen is not None
        assert screen.screen.columns >= 80 and screen.screen.lines >= 24
        box = page.locator(".xterm-screen").bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 412

        def tap(text: str, right: int = 0, down: int = 0) -> None:
            col, row = cell_of(screen, text)
            tap_cell(page, screen, col + right, row + down)

        tap("New game", right=2)
        screen.wait_for_text("Preset")
        tap("Enter start", right=2)
        screen.wait_for_text("Your turn")
        screen.wait_for(lambda: saved_turn(web.data) == 0, what="the save of South's turn")
        before = moves_saved(web.data)
        first = next(mark for mark in ("┏1", "┌1") if mark in screen.text())
        tap(first, right=2, down=2)
        screen.wait_for_text("again to play")
        assert moves_saved(web.data) == before  # one tap only chooses the card
        tap(first, right=2, down=2)
        screen.wait_for(lambda: moves_saved(web.data) >= before + 2,
                        what="the move and the reply")
        screen.wait_for_text("Your turn")
        screenshot(page, "phone-played-by-taps")
    finally:
        phone.close()


def test_the_title_a_move_by_keys_and_a_reload_mid_game_that_resumes(
        context: Any, web: WebCommand) -> None:
    """The link signs in and opens the title; a game started and a move played by keys (one
    game process); a reload puts the page back at the table, in a new process, and play goes
    on there."""
    page = context.new_page()
    screen = PageScreen(page)
    page.goto(web.link)
    assert page.url == f"{web.base_url}/"  # the link signed in and went to the game
    screen.wait_for_text(TITLE)
    assert "New game" in screen.text()
    screenshot(page, "title")
    played = start_game_and_move(page, screen, web.data)
    assert played >= 2
    assert "South" in screen.text() and "Your hand" in screen.text()
    screenshot(page, "after-a-move")
    first = web.app_processes()
    assert len(first) == 1
    page.reload()
    screen.wait_for(lambda: len(screen.sockets) == 2, what="the new websocket")
    screen.wait_for_text("Your turn")  # back at the table, not at the title
    assert TITLE not in screen.text()
    screenshot(page, "after-reload")
    assert moves_saved(web.data) == played
    until(lambda: len(web.app_processes()) == 1 and web.app_processes() != first,
          what="one app, a new one")
    # and the game goes on from there
    page.keyboard.press("Enter")
    screen.wait_for(lambda: moves_saved(web.data) >= played + 2, what="the next move")


def test_refused_without_a_valid_link_or_cookie(context: Any, web: WebCommand) -> None:
    page = context.new_page()
    response = page.goto(web.base_url + "/")
    assert response is not None and response.status == 403
    assert "You need a link to play" in page.inner_text("body")
    screenshot(page, "no-cookie")
    # a forged cookie
    context.add_cookies([{"name": f"casino_tui_{web.base_url.rsplit(':', 1)[1]}",
                          "value": CookieSigner(bytes(32)).sign("local"),
                          "url": web.base_url}])
    response = page.goto(web.base_url + "/")
    assert response is not None and response.status == 403
    # a link used once already: someone else opened it first (another browser profile; its
    # request alone, so that no page and no game is started for it)
    link = web.link
    other = context.browser.new_context(viewport=VIEWPORT)
    try:
        opened = other.request.get(link, max_redirects=0)
        assert opened.status == 303 and opened.headers["location"] == "/"  # signed in
        assert any(c["name"].startswith("casino_tui_") for c in other.cookies())
    finally:
        other.close()
    response = page.goto(link)
    assert response is not None and response.status == 403
    assert "already used or has expired" in page.inner_text("body")
    screenshot(page, "used-link")
    assert web.app_processes() == []


def test_an_expired_link_is_refused_and_a_new_one_works_with_localhost_too(
        context: Any, tmp_path: Path) -> None:
    """A link past its time is refused; Enter in the command's terminal prints a new one,
    which works, here with ``localhost`` for ``127.0.0.1`` (the page's websocket too)."""
    web = WebCommand(tmp_path / "data", "--link-minutes", "0.04")  # 2.4 seconds
    try:
        time.sleep(2.6)
        page = context.new_page()
        response = page.goto(web.link)
        assert response is not None and response.status == 403
        assert "already used or has expired" in page.inner_text("body")
        fresh = web.new_link()  # Enter in its terminal
        screen = PageScreen(page)
        page.goto(fresh.replace("127.0.0.1", "localhost"))
        screen.wait_for_text(TITLE)
        assert screen.sockets[0].startswith("ws://localhost:")
    finally:
        assert web.stop() == 0


class _ForeignPage(BaseHTTPRequestHandler):
    """A page of another origin (another port of 127.0.0.1: the same site, so the browser
    sends the game's cookie) that tries the game's websocket."""

    target = ""

    def do_GET(self) -> None:
        body = ("<!DOCTYPE html><html><body><script>window.result = 'pending';"
                f"var ws = new WebSocket({json.dumps(self.target)});"
                "ws.onopen = function () { window.result = 'open'; };"
                "ws.onclose = function (e) { if (window.result === 'pending') "
                "window.result = 'refused'; };"
                "</script></body></html>").encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


def test_a_foreign_origin_is_refused(context: Any, web: WebCommand) -> None:
    # Signed in: the browser has the cookie (the link opened by the browser profile's own
    # request, which shares its cookies; no game page, so no game is started).
    opened = context.request.get(web.link, max_redirects=0)
    assert opened.status == 303
    assert any(c["name"].startswith("casino_tui_") for c in context.cookies())
    assert web.app_processes() == []
    handler = type("Foreign", (_ForeignPage,), {
        "target": web.base_url.replace("http:", "ws:") + "/ws?width=80&height=24"})
    foreign = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=foreign.serve_forever, daemon=True)
    thread.start()
    try:
        evil = context.new_page()
        evil.goto(f"http://127.0.0.1:{foreign.server_address[1]}/")
        evil.wait_for_function("window.result !== 'pending'", timeout=10000)
        assert evil.evaluate("window.result") == "refused"
        time.sleep(0.3)
        assert web.app_processes() == []  # nothing was started
    finally:
        foreign.shutdown()
        foreign.server_close()


def test_a_game_goes_from_the_browser_to_the_terminal_and_back(context: Any,
                                                             tmp_path: Path) -> None:
    data = tmp_path / "data"
    web = WebCommand(data)
    try:
        page = context.new_page()
        screen = PageScreen(page)
        page.goto(web.link)
        played = start_game_and_move(page, screen, data)
        page.close()  # the tab is closed: the app saves and ends
        until(lambda: not web.app_processes(), what="the app to end")
        # in a terminal, the same data directory: Continue opens the browser's game
        env = {k: v for k, v in os.environ.items() if k in ("PATH", "PYTHONPATH", "TMPDIR")}
        env.update(HOME=str(data), TERM="xterm-256color", LANG="C.UTF-8", LC_ALL="C.UTF-8",
                   CASINO_TUI_CONFIG_DIR=str(data / "config"))
        terminal = PtyApp(["--continue", "--data-dir", str(data)], env)
        try:
            terminal.wait_for("Your turn")
            mark = terminal.mark()
            terminal.send("\r")  # South's next move, in the terminal
            until(lambda: moves_saved(data) >= played + 2, what="the terminal's move")
            terminal.wait_for("Your turn", since=mark)
            in_terminal = moves_saved(data)
            os.kill(terminal.pid, signal.SIGTERM)  # closes the game (saved)
            terminal.wait_exit()
        finally:
            terminal.close()
        # and back in the browser: a new link, the game where the terminal left it
        page = context.new_page()
        screen = PageScreen(page)
        page.goto(web.new_link())
        screen.wait_for_text("Your turn")
        assert TITLE not in screen.text()
        assert moves_saved(data) == in_terminal
        screenshot(page, "back-from-the-terminal")
    finally:
        assert web.stop() == 0
        assert not web.app_processes()


def test_an_idle_game_is_stopped_and_the_page_says_why(context: Any, tmp_path: Path) -> None:
    web = WebCommand(tmp_path / "data", "--idle-minutes", "0.04")  # 2.4 seconds
    try:
        page = context.new_page()
        screen = PageScreen(page)
        page.goto(web.link)
        screen.wait_for_text(TITLE)
        screen.wait_for(lambda: screen.closed == 1, 20, "the session's end")
        page.wait_for_selector("body.-closed")
        message = page.inner_text(".closed-dialog .message")
        assert message.startswith("Nothing was typed for 2.4 seconds, so the game was stopped.")
        screenshot(page, "idle")
        until(lambda: not web.app_processes(), what="the app to end")
        page.click(".closed-dialog button")  # the page's own Restart: a reload
        screen.wait_for(lambda: len(screen.sockets) == 2, what="a new session")
        screen.wait_for_text(TITLE)
    finally:
        assert web.stop() == 0
