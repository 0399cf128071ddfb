"""Browser players on the SSH server end to end (issue 16): a real ``casino-tui serve
--web-port``, real ``ssh`` clients in tmux, and a browser at the protocol level (the page's
websocket, its output read through a terminal emulator: tests/web/web_support.py) or in real
Chromium (Playwright driving Debian's ``chromium``).

A player asks for a one-time link from the title screen over SSH, opens it in the browser and
is the same player there: their SSH game ends and goes on in the browser, with the same saves
and display name; at a table they play a whole round with a person over SSH, each screen
checked against the hub's own record; a reload mid-game puts them back at their seat."""

from __future__ import annotations

import asyncio
import contextlib
import re
import shutil
import threading
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
from serve_support import (
    SOUTH_MOVED,
    TITLE,
    Key,
    Server,
    Tmux,
    a_person_reacts,
    make_key,
    needs_ssh_tmux,
    player_dir,
    wait_until,
)
from stats_support import record, write_ledger
from test_serve_tables_e2e import (
    HEIGHT,
    PEOPLE_ONLY,
    SUMMARY,
    TITLE_WITH_TABLES,
    WIDTH,
    Player,
    check_hands,
    create_table,
    join_by_code,
    play_turns,
    saved_state,
    serve,
    start,
    wait_summary,
    whose_turn,
)
from web.web_support import WebClient, open_game, sign_in

from casino_tui.engine import Phase, State

pytestmark = needs_ssh_tmux

T = TypeVar("T")
CHROMIUM = shutil.which("chromium")
LINK = re.compile(r"(http://127\.0\.0\.1:\d+/link/[A-Za-z0-9_-]+)")
MOVED_TO_BROWSER = "Your game continues in the browser."
# Keys as a terminal (and the page) sends them, by tmux's names.
KEYS = {"Enter": "\r", "Escape": "\x1b", "Up": "\x1b[A", "Down": "\x1b[B", "Right": "\x1b[C",
        "Left": "\x1b[D", "Tab": "\t"}


class Loop:
    """An event loop in a thread of its own, for the browser's websocket while the test waits
    on tmux."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def run(self, coro: Coroutine[Any, Any, T], timeout: float = 60) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


class ScreenPlayer(Player):
    """A player whose screen is read by :meth:`screen` (not from tmux): waits poll it."""

    where = "screen"

    def wait_for(self, text: str, timeout: float = 20) -> str:
        found = wait_until(lambda: text in (s := self.screen()) and s, timeout,
                           f"{text!r} on {self.name}'s {self.where}", detail=self.screen)
        assert isinstance(found, str)
        return found

    def wait_match(self, pattern: str, timeout: float = 20) -> re.Match[str]:
        found = wait_until(lambda: re.search(pattern, self.screen()), timeout,
                           f"{pattern!r} on {self.name}'s {self.where}", detail=self.screen)
        assert isinstance(found, re.Match)
        return found


class BrowserPlayer(ScreenPlayer):
    """A person in a browser tab (at the protocol level), with the methods of an SSH
    :class:`Player` (their key names them) so that the table's helpers play for either."""

    where = "browser screen"

    def __init__(self, tmux: Tmux, key: Key, name: str, loop: Loop, base_url: str,
                 cookie: str) -> None:
        super().__init__(tmux, key, name)
        self.loop = loop
        self.base_url = base_url
        self.cookie = cookie
        self.cookie_name = f"casino_tui_{base_url.rsplit(':', 1)[1]}"
        self.client: WebClient | None = None
        self._stack: contextlib.AsyncExitStack | None = None

    def open(self) -> None:
        async def opened() -> WebClient:
            self._stack = contextlib.AsyncExitStack()
            return await self._stack.enter_async_context(open_game(
                self.base_url, self.cookie, cookie_name=self.cookie_name, width=WIDTH,
                height=HEIGHT))

        self.client = self.loop.run(opened())

    def close(self) -> None:
        stack, self._stack, self.client = self._stack, None, None
        if stack is not None:
            self.loop.run(stack.aclose())

    def reload(self) -> None:
        """The page is reloaded: its websocket closes and a new one opens."""
        self.close()
        self.open()

    def screen(self) -> str:
        client = self.client
        assert client is not None

        async def text() -> str:
            return client.text()

        return self.loop.run(text())

    def send(self, *keys: str) -> None:
        client = self.client
        assert client is not None
        for key in keys:
            self.loop.run(client.send_keys(KEYS.get(key, key)))

    def type(self, text: str) -> None:
        self.send(text)



@pytest.fixture
def loop() -> Iterator[Loop]:
    running = Loop()
    yield running
    running.close()


def reload_at_the_same_position(player: Player, reload: Callable[[], None],
                                players: list[Player], data_dir: Path, scratch: Path) -> None:
    """``reload`` the player's page mid-game: they are back at their seat with the same hand,
    and nothing was played meanwhile."""
    before = check_hands(players, data_dir, scratch)
    hand = player.hand()
    reload()
    player.wait_for("Your hand", timeout=30)
    wait_until(lambda: player.hand() == hand, 10, f"{player.name}'s hand {hand}",
               detail=player.screen)
    a_person_reacts()
    after = check_hands(players, data_dir, scratch)
    assert after.history == before.history


def finish_round(players: list[Player], data_dir: Path, scratch: Path, played: int) -> State:
    """Play on to the end of the round (``played`` moves so far): the saved game, which holds
    every move played."""
    played += play_turns(players, data_dir, scratch, moves=1000)
    state = saved_state(data_dir, scratch)
    assert state.phase in (Phase.ROUND_OVER, Phase.GAME_OVER)
    assert played == len(state.history)
    return state


def web_url(server: Server) -> str:
    return server.wait_log(r"browser players: (http://\S+)").group(1)


def link_from_title(player: Player) -> str:
    """On the title screen over SSH: the Browser entry (b) shows a one-time link; closed
    again with Enter."""
    player.wait_for("a link to play in a browser")
    player.send("b")
    found = player.wait_match(rf"{LINK.pattern}\s*│")
    screen = found.string
    assert "It works once, for 5 minutes (until " in screen
    player.send("Enter")
    player.wait_for(TITLE)
    return found.group(1)


def statistics(player: Player) -> list[str]:
    """From the title screen: the Statistics screen's lines of all games and by level (then
    back to the title)."""
    player.send("i")
    player.wait_for("All games")
    seen: list[list[str]] = []

    def settled() -> list[str] | None:
        """The lines, once two looks a moment apart agree (the screen may arrive in parts)."""
        seen.append([line.strip() for line in player.screen().splitlines()
                     if re.search(r"All games|\b(?:easy|hard)\b", line)])
        return seen[-1] if len(seen) > 1 and seen[-1] == seen[-2] else None

    lines = wait_until(settled, 10, "the statistics screen to settle", interval=0.3,
                       detail=player.screen)
    assert isinstance(lines, list)
    player.send("Escape")
    player.wait_for(TITLE)
    return lines


def name_at_the_tables(player: Player, port: int) -> None:
    """Connect, choose a display name at the tables, back to the title screen."""
    player.to_tables(port)
    player.send("Escape")
    player.wait_for(TITLE_WITH_TABLES)


# ====================================================================== the tests
def test_an_ssh_player_takes_their_game_to_a_browser_and_plays_a_round_at_a_table(
        tmux: Tmux, tmp_path: Path, servers: list[Server], loop: Loop) -> None:
    """Ann names herself, looks at her statistics and plays a solo move over SSH, then opens
    the title's one-time link in a browser: her SSH game ends ("continues in the browser"),
    the browser continues her saved game, shows the same statistics, and at the tables she
    has the same name. She creates a table; Bob joins it over SSH; they play a whole round,
    Ann's page reloaded in the middle of it, every screen checked against the hub's record;
    both see the round's summary, and the next round is dealt at the same table."""
    server = serve(servers, tmp_path / "data", "--web-port", "0")
    base = web_url(server)
    ann_ssh = Player(tmux, make_key(tmp_path, "ann"), "Ann")
    name_at_the_tables(ann_ssh, server.port)
    # Three finished games in her statistics (her ledger, in her data directory).
    write_ledger(player_dir(server.data_dir, ann_ssh.key) / "data",
                 [record(1, "win"), record(2, "loss"), record(3, "win", level="easy")])
    ssh_figures = statistics(ann_ssh)
    assert re.search(r"All games\s+3\s+2\s+67%", ssh_figures[0]), ssh_figures
    # A solo game over SSH: one move, then back to the title (it is saved).
    ann_ssh.send("n")
    ann_ssh.wait_for("Preset")
    ann_ssh.send("Enter")
    ann_ssh.wait_for("Your hand")
    ann_ssh.send("s")  # skip the computer's pause
    ann_ssh.wait_for("Your turn")
    ann_ssh.send("Enter")
    ann_ssh.wait_match(SOUTH_MOVED)
    solo_hand = wait_until(lambda: len(hand := ann_ssh.hand()) == 3 and hand, 10,
                           "three cards in Ann's hand", detail=ann_ssh.screen)
    ann_ssh.send("q")
    ann_ssh.wait_for("Leave this game")
    ann_ssh.send("y")
    link = link_from_title(ann_ssh)
    assert link.startswith(f"{base}/link/")

    # The link signs a browser in as Ann, once.
    async def signed_in() -> tuple[str, int]:
        import aiohttp

        async with aiohttp.ClientSession() as http:
            cookie = await sign_in(http, link)
            async with http.get(link, allow_redirects=False) as again:
                return cookie, again.status

    cookie, again = loop.run(signed_in())
    assert again == 403
    ann = BrowserPlayer(tmux, ann_ssh.key, "Ann", loop, base, cookie)
    ann.open()
    try:
        # Her SSH game ends and goes on in the browser: her saved solo game, same hand.
        assert tmux.wait_exit(ann_ssh.pane) == 1
        assert MOVED_TO_BROWSER in tmux.screen(ann_ssh.pane)
        fp = re.escape(ann_ssh.key.fingerprint)
        server.wait_log(rf"session \d+ start: player {fp} in a browser size "
                        rf"{WIDTH}x{HEIGHT} args \[--continue\]")
        server.wait_log(rf"player {fp} started a game in a browser: hanging up their "
                        r"session \d+")
        ann.wait_for("Your hand", timeout=30)
        wait_until(lambda: ann.hand() == solo_hand, 10, f"Ann's solo hand {solo_hand}",
                   detail=ann.screen)
        ann.send("q")
        ann.wait_for("Leave this game")
        ann.send("y")
        ann.wait_for(TITLE_WITH_TABLES)
        assert statistics(ann) == ssh_figures  # the same statistics
        # The same display name: the tables do not ask for one.
        ann.send("t")
        ann.wait_for("You are Ann at these tables")
        ann.send("n")
        ann.wait_for("New table")
        ann.send("Enter")
        code = ann.wait_match(r"say “([a-z]{2}-[a-z]{2}-[a-z]{2})”").group(1)
        ann.seat = 0
        bob = Player(tmux, make_key(tmp_path, "bob"), "Bob")
        join_by_code(bob, server.port, code.replace("-", "").upper(), seat=1)
        ann.wait_match(r"Seat 2\s+Bob\s+person")
        ann.send("s")
        for p in (ann, bob):
            p.wait_for("Your hand")
        scratch = tmp_path / "copy"
        played = play_turns([ann, bob], server.data_dir, scratch, moves=6)
        assert played == 6

        # A reload mid-game: Ann is back at her seat with the same hand.
        reload_at_the_same_position(ann, ann.reload, [ann, bob], server.data_dir, scratch)
        state = finish_round([ann, bob], server.data_dir, scratch, played)
        totals = []
        for p in (ann, bob):
            screen = wait_summary(p)
            totals.append(re.search(r"Round total\s+(\d+)\s+(\d+)", screen))
        assert totals[0] and totals[1] and totals[0].groups() == totals[1].groups()
        assert [int(t) for t in totals[0].groups()] == list(state.scores)
        assert whose_turn([ann, bob]) is None
        assert SUMMARY.search(ann.screen())
        # Everyone has seen the summary: the next round is dealt at the same table.
        ann.send("Enter")
        bob.send("Enter")
        for p in (ann, bob):
            p.wait_match(r"Round 2 · Deal 1 of 6")
        assert whose_turn([ann, bob]) is not None
    finally:
        ann.close()


def test_an_ssh_session_takes_the_game_back_from_the_browser(
        tmux: Tmux, tmp_path: Path, servers: list[Server], loop: Loop) -> None:
    """One live game per player: when Ann connects over SSH again, her browser session ends
    and its page says where the game went."""
    server = serve(servers, tmp_path / "data", "--web-port", "0", *PEOPLE_ONLY)
    base = web_url(server)
    ann_ssh = Player(tmux, make_key(tmp_path, "ann"), "Ann")
    ann_ssh.connect(server.port)
    link = link_from_title(ann_ssh)

    async def cookie() -> str:
        import aiohttp

        async with aiohttp.ClientSession() as http:
            return await sign_in(http, link)

    ann = BrowserPlayer(tmux, ann_ssh.key, "Ann", loop, base, loop.run(cookie()))
    ann.open()
    try:
        ann.wait_for(TITLE_WITH_TABLES, timeout=30)
        assert tmux.wait_exit(ann_ssh.pane) == 1
        ann_ssh.connect(server.port)
        ann_ssh.wait_for(TITLE_WITH_TABLES, timeout=30)
        client = ann.client
        assert client is not None
        loop.run(client.wait_closed())
        assert "Your game continues over SSH" in ann.screen()
        server.wait_log(r"connected over SSH: ended their game in a browser")
    finally:
        ann.close()


# ====================================================================== in Chromium
CHROMIUM_KEYS = {"Right": "ArrowRight", "Left": "ArrowLeft", "Up": "ArrowUp",
                 "Down": "ArrowDown"}
# The page's terminal at least WIDTH x HEIGHT (the table's helpers read its boxes whole).
VIEWPORT = {"width": 1160, "height": 780}


class ChromiumPlayer(ScreenPlayer):
    """A person at a Chromium tab: keys pressed in the page, its screen read from the frames
    its own websocket receives (casino_tui/web/drive.py)."""

    where = "page"

    def __init__(self, tmux: Tmux, key: Key, name: str, page: Any) -> None:
        from web.browser_support import PageScreen

        super().__init__(tmux, key, name)
        self.page = page
        self.page_screen = PageScreen(page)

    def screen(self) -> str:
        self.page.wait_for_timeout(20)  # Playwright delivers the frames meanwhile
        return self.page_screen.text()

    def send(self, *keys: str) -> None:
        for key in keys:
            self.page.keyboard.press(CHROMIUM_KEYS.get(key, key))

    def type(self, text: str) -> None:
        self.page.keyboard.type(text)

    def size(self) -> tuple[int, int]:
        found = re.search(r"width=(\d+)&height=(\d+)", self.page_screen.sockets[-1])
        assert found is not None
        return int(found.group(1)), int(found.group(2))


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    from web.browser_support import CHROMIUM, chromium_missing

    missing = chromium_missing()
    if missing is not None:
        pytest.skip(missing)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM)
        try:
            yield browser
        finally:
            browser.close()


def test_in_chromium_a_player_sits_with_an_ssh_player_and_plays_a_round(
        tmux: Tmux, tmp_path: Path, servers: list[Server], chromium: Any) -> None:
    """Ann opens the title's link in Chromium: her SSH game ends and she is at the title in
    the page, with her name. She takes the open seat at Bob's table from the list (t, Enter);
    Bob, over SSH, starts; they play moves on both sides of a reload of the page, every screen
    checked against the hub's record. (A whole round with a browser player at a table, to its
    summary on both screens and the next round, is played at the page's protocol level in
    test_an_ssh_player_takes_their_game_to_a_browser_and_plays_a_round_at_a_table: the page
    shows the same frames; here the real page's keys, drawing and reload are what is new.)"""
    from web.browser_support import screenshot

    server = serve(servers, tmp_path / "data", "--web-port", "0", *PEOPLE_ONLY)
    ann_ssh = Player(tmux, make_key(tmp_path, "ann"), "Ann")
    name_at_the_tables(ann_ssh, server.port)
    link = link_from_title(ann_ssh)
    bob = Player(tmux, make_key(tmp_path, "bob"), "Bob")
    code = create_table(bob, server.port)
    context = chromium.new_context(viewport=VIEWPORT)
    try:
        ann = ChromiumPlayer(tmux, ann_ssh.key, "Ann", context.new_page())
        ann.page.goto(link)
        assert ann.page.url == f"{web_url(server)}/"  # signed in, at the game's page
        ann.wait_for(TITLE_WITH_TABLES, timeout=30)
        width, height = ann.size()
        assert width >= WIDTH and height >= HEIGHT, (width, height)
        assert tmux.wait_exit(ann_ssh.pane) == 1
        assert MOVED_TO_BROWSER in tmux.screen(ann_ssh.pane)
        screenshot(ann.page, "serve-title")
        ann.send("t")
        ann.wait_for("You are Ann at these tables")  # her name, chosen over SSH
        ann.wait_match(rf"{code}\s+Standard Cassino · 2 players")
        ann.send("Enter")
        ann.wait_match(r"Seat 2\s+Ann\s+person \(you\)")
        ann.seat = 1
        start(bob, ann)
        scratch = tmp_path / "copy"
        played = play_turns([bob, ann], server.data_dir, scratch, moves=5)
        assert played == 5
        screenshot(ann.page, "serve-table")

        def reload() -> None:
            ann.page.reload()
            wait_until(lambda: ann.screen() is not None and len(ann.page_screen.sockets) == 2,
                       20, "the reloaded page's websocket")

        reload_at_the_same_position(ann, reload, [bob, ann], server.data_dir, scratch)
        # the reloaded page plays on: a move of each, seen on both screens
        assert play_turns([bob, ann], server.data_dir, scratch, moves=2) == 2
        state = saved_state(server.data_dir, scratch)
        assert len(state.history) == played + 2
        screenshot(ann.page, "serve-table-after-reload")
    finally:
        context.close()


def test_the_server_stopping_ends_the_browser_game_cleanly(
        tmux: Tmux, tmp_path: Path, servers: list[Server], loop: Loop) -> None:
    """SIGTERM: the browser's game is stopped (it saves), its page is told, no process of it
    is left, and the server exits 0."""
    from serve_support import group_alive, process_alive

    server = serve(servers, tmp_path / "data", "--web-port", "0", *PEOPLE_ONLY)
    ann_ssh = Player(tmux, make_key(tmp_path, "ann"), "Ann")
    ann_ssh.connect(server.port)
    link = link_from_title(ann_ssh)

    async def cookie() -> str:
        import aiohttp

        async with aiohttp.ClientSession() as http:
            return await sign_in(http, link)

    ann = BrowserPlayer(tmux, ann_ssh.key, "Ann", loop, web_url(server), loop.run(cookie()))
    ann.open()
    try:
        ann.wait_for(TITLE_WITH_TABLES, timeout=30)
        pid = int(server.wait_log(r"browser session started for \S+ \(pid (\d+)\)").group(1))
        assert process_alive(pid)
        assert server.stop() == 0
        client = ann.client
        assert client is not None
        loop.run(client.wait_closed())
        assert "The server is shutting down. Your game is saved" in ann.screen()
        assert not process_alive(pid) and not group_alive(pid)  # its session: nothing left
        assert re.search(r"session \d+ end: player \S+ in a browser", server.log())
    finally:
        ann.close()
