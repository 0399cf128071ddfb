"""The load tool's tables (``python -m benchmarks.load --tables 10 --players 2``): people
playing each other at the server's tables, each over their own SSH connection.

At every table, player A connects, waits for the title's Tables entry (added once the game has
reached the server's tables), presses ``t`` (Tables), types a display name and Enter, ``n``
(a new table) and Enter (the default game: Classic Cassino for 2), and reads the join code from
the waiting room ("N O N A D I"). Every other player connects with the command ``join CODE``
(``ssh -t HOST join CODE``), types a display name and Enter, and sits down; A sees them seated
and presses ``s``. Then each plays their turns as a person does: Right to look at the next card,
Enter to play the previewed move (``m`` and Enter from the list when that card has no move),
until the round's summary; then Ctrl+Q. ``moves`` stops after each player's first N moves.

Measured: from the key press that plays a move (Enter) to the move appearing on each other
player's screen (their log's line "NAME trailed 8♠", or the round's summary when the move ended
the round), the time of the chunk of output that completed it; a key press is sent only when
every screen at the table has been quiet for a moment, so nothing older is taken for the move.
Also key to one's own screen (Right), the time to seat everyone, and each round's length.

With a ``pace`` each player presses a key at most every ``pace`` seconds (the first one at a
random moment within it) and, as always, only after the previous key's effect is on the screen.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from casino_tui.table import trace

from .loadkit import (
    CONTEXT,
    HOST,
    KEY_ENTER,
    KEY_QUIT,
    KEY_RIGHT,
    MOVE_LIST,
    NO_MOVE,
    ROUND_OVER,
    TABLES_ENTRY,
    TITLE,
    YOUR_TURN,
    Keyboard,
    Screen,
    Unredrawn,
    moved,
    open_terminal,
    right_changes_something,
)

DISPLAY_NAME = "Your display name"
TABLES = "at these tables"  # the tables list: "You are NAME at these tables."
NEW_TABLE = "Listed"  # a field of the new table form
JOIN_CODE = "Join code"
WAITING = "A table waiting for players"
SPACED_CODE = re.compile(r"([BDFGKMNPRSTVZ] [AEIOU] [BDFGKMNPRSTVZ] [AEIOU] "
                         r"[BDFGKMNPRSTVZ] [AEIOU])")
KEY_DOWN = b"\x1b[B"


@dataclass
class PlayerResult:
    name: str
    exit_status: int | None = None
    moves: int = 0  # moves played
    move_list_used: int = 0
    round_over: bool = False  # saw the round's summary
    own_latencies: list[float] = field(default_factory=list)  # Right to own screen
    no_redraw: int = 0
    unredrawn: list[Unredrawn] = field(default_factory=list)  # those keys, and their screens
    keys_sent: list[float] = field(default_factory=list)  # when each key went (monotonic)


@dataclass
class TableResult:
    """One table's run: its players, and how long each move took to reach the others."""

    number: int
    players: list[PlayerResult]
    code: str = ""
    error: str = ""
    finished: bool = False
    seated_s: float = 0.0  # from the first connection to the game's start
    round_s: float = 0.0  # from the start to the round's end (or every player's last move)
    latencies: list[float] = field(default_factory=list)  # a move to another's screen
    missed: int = 0  # moves not seen on another's screen in time


class Terminal:
    """One player's SSH connection with a PTY, and the screen it shows."""

    def __init__(self, conn: Any, process: Any, screen: Screen, pace: float = 0.0,
                 rng: random.Random | None = None):
        self.conn = conn
        self.process = process  # the SSH channel (its output feeds ``screen``)
        self.screen = screen
        self.keys = Keyboard(self.send, screen, pace, rng)

    @classmethod
    async def open(cls, stack: contextlib.AsyncExitStack, port: int, user: str, key: Any,
                   size: tuple[int, int], command: str | None = None, pace: float = 0.0,
                   rng: random.Random | None = None) -> Terminal:
        import asyncssh

        conn = await stack.enter_async_context(asyncssh.connect(
            HOST, port, username=user, client_keys=[key], known_hosts=None, agent_path=None,
            preferred_auth="publickey"))
        screen = Screen()
        process = await open_terminal(conn, screen, size, command)
        return cls(conn, process, screen, pace, rng)

    def send(self, data: bytes) -> None:
        self.process.write(data)

    async def press(self, data: bytes, settle: float = 0.1) -> None:
        """At the player's pace, when the screen has been quiet for ``settle`` seconds: mark
        it, then send."""
        await self.keys.press(data, settle)


class Table:
    """The script of one table: ``players`` people over SSH, the first creating it."""

    def __init__(self, number: int, port: int, keys: list[Any], size: tuple[int, int],
                 step: float, moves: int, dump: Path | None = None, *, pace: float = 0.0,
                 rng: random.Random | None = None, every_right: bool = False) -> None:
        self.number = number
        self.every_right = every_right  # Right at a deal's last card too (it changes nothing)
        self.pace = pace
        self.rng = rng or random.Random(number)
        self.dump = dump
        self.port = port
        self.keys = keys
        self.size = size
        self.step = step
        self.moves = moves
        names = [f"T{number}{chr(ord('a') + i)}" for i in range(len(keys))]
        self.result = TableResult(number, [PlayerResult(n) for n in names])
        self.terminals: list[Terminal] = []
        self._done_moving = [asyncio.Event() for _ in keys]

    async def play(self) -> TableResult:
        res = self.result
        t0 = time.monotonic()
        try:
            async with contextlib.AsyncExitStack() as stack:
                await self._seat_everyone(stack)
                res.seated_s = time.monotonic() - t0
                started = time.monotonic()
                await asyncio.gather(*(self._play_seat(i) for i in range(len(self.keys))))
                res.round_s = time.monotonic() - started
                for term in self.terminals:
                    await term.press(KEY_QUIT, 0.2)
                for i, term in enumerate(self.terminals):
                    await asyncio.wait_for(term.process.wait_closed(), self.step)
                    res.players[i].exit_status = term.process.get_exit_status()
        except Exception as err:  # a load run reports what went wrong and goes on
            res.error = f"{type(err).__name__}: {err}".strip()
            if self.dump is not None:  # what each player saw, for finding out why
                for player, term in zip(res.players, self.terminals, strict=False):
                    (self.dump / f"{player.name}.txt").write_text(term.screen.text)
        enough = (lambda p: p.round_over or p.moves >= self.moves) if self.moves else \
            (lambda p: p.round_over)
        res.finished = not res.error and all(p.exit_status == 0 and enough(p)
                                             for p in res.players)
        return res

    # ------------------------------------------------------------------ to the table
    async def _seat_everyone(self, stack: contextlib.AsyncExitStack) -> None:
        players = self.result.players
        step = self.step
        creator = await Terminal.open(stack, self.port, f"t{self.number}a", self.keys[0],
                                      self.size, pace=self.pace, rng=self.rng)
        self.terminals.append(creator)
        screen = creator.screen
        await screen.wait(TITLE, timeout=step)
        await screen.wait(TABLES_ENTRY, timeout=step)  # ``t`` does nothing before it is there
        await creator.press(b"t")
        await screen.wait(DISPLAY_NAME, timeout=step)
        await creator.press(players[0].name.encode() + KEY_ENTER)
        await screen.wait(TABLES, timeout=step)
        await creator.press(b"n")
        await screen.wait(NEW_TABLE, timeout=step)
        if len(players) > 2:  # the form opens on the preset; Players is the next field
            await creator.press(KEY_DOWN)
            for _ in range(len(players) - 2):
                await creator.press(KEY_RIGHT)
        await creator.press(KEY_ENTER)
        await screen.wait(JOIN_CODE, timeout=step)
        await screen.wait(SPACED_CODE, timeout=step)
        found = SPACED_CODE.search(screen.text, screen.mark_at - 11)
        assert found is not None
        code = self.result.code = found.group(1).replace(" ", "")
        for i in range(1, len(players)):
            term = await Terminal.open(stack, self.port, f"t{self.number}{chr(97 + i)}",
                                       self.keys[i], self.size, command=f"join {code}",
                                       pace=self.pace, rng=self.rng)
            self.terminals.append(term)
            await term.screen.wait(DISPLAY_NAME, timeout=step)
            await term.press(players[i].name.encode() + KEY_ENTER)
            await term.screen.wait(WAITING, timeout=step)
            await screen.wait(re.compile(rf"{re.escape(players[i].name)}\s+person"),
                              timeout=step)
        await creator.press(b"s")

    # ------------------------------------------------------------------ the round
    async def _play_seat(self, i: int) -> None:
        """Seat ``i``'s turns until the round is over (or its ``moves`` are played)."""
        me = self.result.players[i]
        term = self.terminals[i]
        screen = term.screen
        mine = moved(me.name)
        try:
            while not (self.moves and me.moves >= self.moves):
                if await screen.wait(ROUND_OVER, YOUR_TURN, timeout=self.step) == 0:
                    me.round_over = True
                    return
                await term.keys.paced()
                await self._all_quiet()
                if self.every_right or right_changes_something(me.moves + 1):
                    # key to one's own screen: Right redraws the hand, the preview and the move
                    # line (not at a deal's last card: there is no other card to look at)
                    before = screen.chunks
                    sent = time.monotonic()
                    term.send(KEY_RIGHT)
                    term.keys.sent(sent)
                    arrived = await screen.next_chunk(before,
                                                      timeout=term.keys.redraw_timeout)
                    term.keys.timed(KEY_RIGHT, sent, before, arrived,
                                    screen.text[-CONTEXT:] if arrived is None else "")
                await term.keys.paced()
                await self._all_quiet(0.05)
                if ROUND_OVER.search(screen.text[screen.mark_at:]):
                    # the round ended meanwhile: the "Your turn" above was drawn again before
                    # our last move's events, and Enter would only close the summary
                    me.round_over = True
                    return
                screen.mark()
                seen_by = self._watch_move(i)
                term.send(KEY_ENTER)
                term.keys.sent(time.monotonic())
                seen = await screen.wait(ROUND_OVER, mine, NO_MOVE, timeout=self.step)
                if seen == 2:  # that card has no move: choose one from the list
                    for watcher in seen_by:
                        watcher.cancel()
                    me.move_list_used += 1
                    await term.press(b"m")
                    await screen.wait(MOVE_LIST, timeout=self.step)
                    await term.keys.paced()
                    await self._all_quiet()
                    screen.mark()
                    seen_by = self._watch_move(i)
                    term.send(KEY_ENTER)
                    term.keys.sent(time.monotonic())
                    seen = await screen.wait(ROUND_OVER, mine, timeout=self.step)
                me.moves += 1
                await asyncio.gather(*seen_by)
                if seen == 0:
                    me.round_over = True
                    return
        except TimeoutError as err:  # say whose screen did not show what
            raise TimeoutError(f"{me.name} after {me.moves} moves: {err}") from None
        finally:
            term.keys.finish()
            me.own_latencies, me.no_redraw = term.keys.latencies, term.keys.no_redraw
            me.unredrawn, me.keys_sent = term.keys.unredrawn, term.keys.sent_at
            self._done_moving[i].set()
        # done: wait for the others to play theirs (they need this screen to watch)
        await asyncio.gather(*(e.wait() for e in self._done_moving))

    def _watch_move(self, i: int) -> list[asyncio.Task[None]]:
        """Tasks that time seat ``i``'s move, played now, until it shows on each other
        screen."""
        sent = time.monotonic()
        name = self.result.players[i].name
        if trace.enabled():
            trace.note("tool-sent", f"L{self.number}", -1, who=name, sent=sent)
        pattern = moved(name)
        return [asyncio.create_task(self._seen_on(other.screen, other.screen.received,
                                                  pattern, sent, name,
                                                  self.result.players[j].name))
                for j, other in enumerate(self.terminals) if j != i]

    async def _seen_on(self, screen: Screen, received: int, pattern: re.Pattern[str],
                       sent: float, mover: str = "", watcher: str = "") -> None:
        try:
            _, arrived = await screen.seen_after(received, pattern, ROUND_OVER,
                                                 timeout=self.step)
        except (TimeoutError, EOFError):
            self.result.missed += 1
            return
        self.result.latencies.append(arrived - sent)
        if trace.enabled():
            trace.note("tool-seen", f"L{self.number}", -1, who=mover, to=watcher, sent=sent,
                       arrived=arrived)

    async def _all_quiet(self, period: float = 0.15) -> None:
        """Until no screen at the table has had output for ``period`` seconds."""
        for _ in range(20):
            for term in self.terminals:
                await term.screen.quiet(period)
            now = time.monotonic()
            if all(now - t.screen.last_chunk_at >= period for t in self.terminals):
                return
