"""What the load tool (:mod:`benchmarks.load`) is made of: the screen a scripted SSH
player reads, the keyboard it presses at a human pace, memory sampling of the server's games, a
server of its own on loopback.

:class:`Screen` keeps the text a terminal has received with the escape sequences removed, so that
a script can wait for words ("Your turn") and tell when each chunk of output arrived
(:func:`open_terminal` feeds it from the SSH session's callback). :class:`LoopLag` measures how
late the clients' event loop runs.
:class:`Keyboard` sends one player's keys: at most one every ``pace`` seconds, each only once the
screen has been quiet for a moment, and times each key to the first output after it.
:func:`session_memory` finds each game the server runs (the process the server's log names at
the session's start, leading its own process group) and adds up the RSS and PSS of its group's
processes; the processes below the server are counted too. :class:`LoopbackServer` runs
``casino-tui serve`` on 127.0.0.1 (a free port, its own data directory, no rate limit, its
metrics on a free port: ``curl`` them while it runs) and
samples its games' memory while it runs, in a process of its own (:func:`start_sampler`).
"""

from __future__ import annotations

import asyncio
import bisect
import codecs
import contextlib
import json
import os
import random
import re
import signal
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from casino_tui.procs import lower_group_priority

HOST = "127.0.0.1"
KEEP_TEXT = 50_000  # characters of a screen's text kept (a frame is a few thousand)
# characters before a chunk's new text searched with it, for a match that straddles chunks
# (longer than any pattern the scripts wait for: a line of the widest terminal)
OVERLAP = 512
TITLE = "the classic fishing card game"
# The title's Tables entry, added once the game has reached the server's tables (after the
# title itself is drawn): ``t`` before it does nothing.
TABLES_ENTRY = "play with people here"
YOUR_TURN = "Your turn"
ROUND_OVER = re.compile(r"Round \d+ summary")
MOVED = r"(trailed|took|raised|added|built|plucked|did not pluck)"  # the log's verbs
NO_MOVE = re.compile(r"there is no move to play|has no legal move here")
MOVE_LIST = "All legal moves"
KEY_RIGHT = b"\x1b[C"
KEY_ENTER = b"\r"
KEY_QUIT = b"\x11"  # Ctrl+Q
CONTEXT = 600  # characters of the screen's text kept with a key that was never redrawn
ESCAPES = re.compile(r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[PX^_][^\x1b]*\x1b\\"
                     r"|[()][0-9A-Za-z]|[@-Z\\-_=>])")


# Cards in a hand after each deal of the game the scripts play (Classic Cassino, the default:
# four each, for two, three or four players): a player's turn number ``n`` (from 1) has
# ``cards_in_hand(n)`` cards to choose from.
HAND = 4


def cards_in_hand(turn: int) -> int:
    """Cards in the player's hand at their ``turn`` (1 for the first) of a Classic round."""
    return HAND - (turn - 1) % HAND


def right_changes_something(turn: int) -> bool:
    """Whether Right (the next card) changes the screen at the player's ``turn``: not with
    one card left, the last of each deal (there is no other card to look at, so the game
    rightly draws nothing). The scripts skip it then, rather than count a key that nothing
    answers as one never redrawn."""
    return cards_in_hand(turn) > 1


# The player's hand as the game draws it: a row of the cards' top edges, each numbered from 1
# (the chosen one in heavy lines), read only whole (spaces after the last card, then the hand's
# border or the line's end: a row cut by a dialog over it, or by the end of a chunk of output,
# is not one), or the words of an empty hand.
HAND_ROW = re.compile(r"│ (?:[┌┏]\d+[─━]{2}[┐┓] )*[┌┏]\d+[─━]{2}[┐┓] {2,}[│\r]"
                      r"|\(no cards in hand\)")
_CARD_TOP = re.compile(r"[┌┏](\d+)")


def cards_shown(row: str) -> int:
    """Cards in a hand row matched by :data:`HAND_ROW` (0 for an empty hand)."""
    numbers = _CARD_TOP.findall(row)
    return int(numbers[-1]) if numbers else 0


def moved(name: str) -> re.Pattern[str]:
    """A move of the player called ``name`` in the game's log (``Ann trailed 8♠``)."""
    return re.compile(rf"(?<![\w]){re.escape(name)} {MOVED}")


class Screen:
    """The text a session has received (escape sequences removed), with waiting helpers.

    Output is fed in as it arrives (:meth:`feed`, from the SSH session's callback, stamped
    with the moment the event loop handed over its bytes) and matched only while someone waits
    for it: each wait registers its patterns, and every chunk is searched only in its own
    new text (with :data:`OVERLAP` characters before it, for a match that straddles chunks), the
    waiter being woken once, when its pattern is there."""

    def __init__(self, transcript: Transcript | None = None) -> None:
        self.transcript = transcript  # every chunk, key and wait, with times (or None)
        self.text = ""
        self.chunks = 0
        self.last_chunk_at = 0.0
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._raw_tail = ""
        self.mark_at = 0
        self.dropped = 0  # characters dropped from the start of ``text``
        self.closed = False
        # where each chunk's text ends and when it arrived (for :meth:`arrival`)
        self._ends: list[int] = []
        self._times: list[float] = []
        self._chunks_dropped = 0  # chunks whose end and time were dropped with their text
        self._waiters: list[_Waiter] = []

    def feed(self, data: bytes, at: float | None = None) -> None:
        """Take a chunk of output that arrived ``at`` (default: now)."""
        self.last_chunk_at = time.monotonic() if at is None else at
        self.chunks += 1
        if self.transcript is not None:
            self.transcript.add(self.last_chunk_at, "out", data.decode("latin-1"))
        text = self._raw_tail + self._decoder.decode(data)
        # keep an unfinished escape sequence for the next chunk
        cut = text.rfind("\x1b")
        if cut != -1 and not ESCAPES.match(text, cut):
            text, self._raw_tail = text[:cut], text[cut:]
        else:
            self._raw_tail = ""
        start = len(self.text)
        # appended in place: ``self.text += ...`` would copy the whole text every chunk, while
        # a local holding the only reference is resized where it is
        whole, self.text = self.text, ""
        whole += ESCAPES.sub("", text)
        self.text = whole
        self._ends.append(len(whole))
        self._times.append(self.last_chunk_at)
        if len(whole) > KEEP_TEXT * 2:  # drop old text, keep the marks meaningful
            drop = len(whole) - KEEP_TEXT
            self.text = whole[drop:]
            self.dropped += drop
            start = max(0, start - drop)
            self.mark_at = max(0, self.mark_at - drop)
            keep = bisect.bisect_right(self._ends, drop)
            self._ends = [end - drop for end in self._ends[keep:]]
            self._times = self._times[keep:]
            self._chunks_dropped += keep
        if self._waiters:
            self._waiters = [w for w in self._waiters if not w.check(self, start)]

    def arrival(self, offset: int) -> float:
        """When the chunk holding the text at ``offset`` arrived."""
        i = bisect.bisect_right(self._ends, offset)
        return self._times[min(i, len(self._times) - 1)] if self._times else self.last_chunk_at

    def chunk_time(self, number: int) -> float:
        """When chunk ``number`` (1 for the first) arrived (the last one's time if it is
        long gone)."""
        i = number - 1 - self._chunks_dropped
        return self._times[i] if 0 <= i < len(self._times) else self.last_chunk_at

    def close(self) -> None:
        self.closed = True
        waiters, self._waiters = self._waiters, []
        for w in waiters:
            w.closed()

    def mark(self) -> None:
        """Later waits look only at text that arrives after this."""
        self.mark_at = len(self.text)

    async def wait(self, *patterns: str | re.Pattern[str], timeout: float) -> int:
        """Index of the first pattern seen after the mark, which moves past it (text after the
        match still counts for the next wait); TimeoutError if none comes. Patterns are tried
        in order on the text after the mark each time a chunk arrives."""
        compiled = _compiled(patterns)
        if self.transcript is not None:
            self.transcript.add(time.monotonic(), "wait", [p.pattern for p in compiled])
        index, _text = await self._next(compiled, patterns, timeout, first_in_order=True)
        return index

    async def next_match(self, *patterns: str | re.Pattern[str],
                         timeout: float) -> tuple[int, str]:
        """The next match of any of ``patterns`` after the mark (the one that ends first):
        its index and its text; the mark moves past it. Successive calls read the text in
        order, match after match (TimeoutError if none comes)."""
        compiled = _compiled(patterns)
        if self.transcript is not None:
            self.transcript.add(time.monotonic(), "wait", [p.pattern for p in compiled])
        return await self._next(compiled, patterns, timeout, first_in_order=False)

    async def _next(self, compiled: list[re.Pattern[str]],
                    patterns: tuple[str | re.Pattern[str], ...], timeout: float, *,
                    first_in_order: bool) -> tuple[int, str]:
        find = _first_in_order if first_in_order else _earliest_end
        found = find(compiled, self.text, self.mark_at)
        if found is None:
            waiter = _Waiter(self, compiled, self.mark_at, first_in_order=first_in_order)
            index, end, _at, matched = await self._until(waiter, patterns, timeout)
        else:
            index, end, matched = found[0], self.dropped + found[1], found[2]
        if self.transcript is not None:
            self.transcript.add(time.monotonic(), "found", index)
        self.mark_at = max(0, end - self.dropped)
        return index, matched

    def last_match(self, pattern: re.Pattern[str], received: int) -> str | None:
        """The last match of ``pattern`` in the text after the first ``received``
        characters (see :attr:`received`), or None."""
        last = None
        for last in pattern.finditer(self.text, max(0, received - self.dropped)):  # noqa: B007
            pass
        return last.group() if last is not None else None

    @property
    def received(self) -> int:
        """Characters of text received so far (dropped ones included): an offset for
        :meth:`seen_after`."""
        return self.dropped + len(self.text)

    async def seen_after(self, received: int, *patterns: str | re.Pattern[str],
                         timeout: float) -> tuple[int, float]:
        """The first of ``patterns`` in the text after the first ``received`` characters
        (the mark stays where it is): its index and when the chunk that completed it
        arrived."""
        compiled = _compiled(patterns)
        offset = max(0, received - self.dropped)
        found = _earliest_end(compiled, self.text, offset)
        if found is not None:
            return found[0], self.arrival(found[1] - 1)
        index, _end, at, _matched = await self._until(
            _Waiter(self, compiled, offset, first_in_order=False), patterns, timeout)
        return index, at

    async def _until(self, waiter: _Waiter, patterns: tuple[str | re.Pattern[str], ...],
                     timeout: float) -> tuple[int, int, float, str]:
        """Until ``waiter`` matches: EOFError when the session ended, TimeoutError (naming
        the ``patterns`` waited for) after ``timeout``."""
        if self.closed:
            raise EOFError("the session ended")
        self._waiters.append(waiter)
        try:
            return await asyncio.wait_for(waiter.future, timeout)
        except TimeoutError:
            raise TimeoutError(f"none of {patterns} within {timeout}s") from None
        finally:
            if waiter in self._waiters:
                self._waiters.remove(waiter)

    async def read_from(self, stream: Any) -> None:
        """Take everything ``stream`` (an SSH process's standard output, as bytes) sends,
        until it ends; then the screen is closed."""
        try:
            while data := await stream.read(65536):
                self.feed(data)
        finally:
            self.close()

    async def quiet(self, period: float, timeout: float = 5.0) -> None:
        """Until no output has come for ``period`` seconds."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            idle = time.monotonic() - self.last_chunk_at
            if idle >= period:
                return
            await asyncio.sleep(period - idle)

    async def next_chunk(self, after: int, timeout: float) -> float | None:
        """When chunk number ``after + 1`` (the first after chunk number ``after``) arrived
        (None: none came within ``timeout``, or the session ended first)."""
        if self.chunks > after:
            return self.chunk_time(after + 1)
        if self.closed:
            return None
        waiter = _Waiter(self, (), 0, first_in_order=True, chunks_after=after)
        self._waiters.append(waiter)
        try:
            return await asyncio.wait_for(waiter.future, timeout)
        except (TimeoutError, EOFError):
            return None
        finally:
            if waiter in self._waiters:
                self._waiters.remove(waiter)


class _Waiter:
    """One wait on a :class:`Screen`: its patterns, searched in the text from ``offset`` (of
    each new chunk, only its own text and :data:`OVERLAP` characters before it), or the next
    chunk after number ``chunks_after``. :attr:`future` gets (index, end of the match counted
    from the screen's first character ever, when the chunk that completed it arrived), or the
    next chunk's time."""

    def __init__(self, screen: Screen, patterns: Sequence[re.Pattern[str]], offset: int, *,
                 first_in_order: bool, chunks_after: int | None = None) -> None:
        self.patterns = patterns
        self.offset = screen.dropped + offset  # from the screen's first character ever
        self.first_in_order = first_in_order
        self.chunks_after = chunks_after
        self.future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()

    def check(self, screen: Screen, start: int) -> bool:
        """Called with each new chunk, whose text begins at ``start``: True when this wait
        is over (its future set, or given up)."""
        if self.future.done():
            return True
        if self.chunks_after is not None:
            self.future.set_result(screen.last_chunk_at)
            return True
        since = max(self.offset - screen.dropped, start - OVERLAP, 0)
        find = _first_in_order if self.first_in_order else _earliest_end
        found = find(self.patterns, screen.text, since)
        if found is None:
            return False
        index, end, matched = found
        self.future.set_result((index, screen.dropped + end, screen.arrival(end - 1), matched))
        return True

    def closed(self) -> None:
        if not self.future.done():
            self.future.set_exception(EOFError("the session ended"))


def _compiled(patterns: Sequence[str | re.Pattern[str]]) -> list[re.Pattern[str]]:
    return [p if isinstance(p, re.Pattern) else re.compile(re.escape(p)) for p in patterns]


def _first_in_order(patterns: Sequence[re.Pattern[str]], text: str,
                    offset: int) -> tuple[int, int, str] | None:
    """(index, end, text) of the first of ``patterns``, in their order, found in ``text``
    from ``offset``."""
    for i, pattern in enumerate(patterns):
        found = pattern.search(text, offset)
        if found:
            return i, found.end(), found.group()
    return None


def _earliest_end(patterns: Sequence[re.Pattern[str]], text: str,
                  offset: int) -> tuple[int, int, str] | None:
    """(index, end, text) of the match of ``patterns`` in ``text`` from ``offset`` that ends
    first."""
    best: tuple[int, int, str] | None = None
    for i, pattern in enumerate(patterns):
        found = pattern.search(text, offset)
        if found and (best is None or found.end() < best[1]):
            best = (i, found.end(), found.group())
    return best


class Transcript:
    """What one scripted player received and did, with times (``time.monotonic()``): each
    chunk of output as it came (its bytes), each key sent, each wait (its patterns) and which
    pattern ended it. :meth:`write` puts it in a file of JSON lines, which
    ``python -m benchmarks.loadkit replay FILE`` plays into a terminal emulator to show the
    screen as the player had it at any moment (the load tool's ``--transcripts DIR``)."""

    def __init__(self) -> None:
        self.events: list[tuple[float, str, Any]] = []

    def add(self, at: float, kind: str, value: Any) -> None:
        """``kind``: ``out`` (the output's bytes as latin-1 text), ``key`` (its name),
        ``wait`` (the patterns), ``found`` (the index of the one seen)."""
        self.events.append((at, kind, value))

    def write(self, path: Path, header: dict[str, Any]) -> None:
        """The header (who, the terminal's ``size``, what went wrong), then one line per
        event: ``{"t": seconds after the first event, KIND: value}``."""
        start = self.events[0][0] if self.events else 0.0
        with path.open("w") as out:
            out.write(json.dumps({**header, "start": start}) + "\n")
            for at, kind, value in self.events:
                out.write(json.dumps({"t": round(at - start, 4), kind: value}) + "\n")


def replay(path: Path, at: float | None = None, actions: int = 12) -> str:
    """The screen of a transcript (:class:`Transcript`) at ``at`` seconds after its start (the
    end if None), as text, under the header and followed by the last ``actions`` keys and
    waits until then, each with its time (what the script did, and what it waited for)."""
    import pyte

    lines = path.read_text().splitlines()
    header = json.loads(lines[0])
    width, height = header.get("size", (100, 30))
    term = pyte.Screen(width, height)
    stream = pyte.ByteStream(term)
    done: list[str] = []
    last_out = 0.0
    for line in lines[1:]:
        event = json.loads(line)
        if at is not None and event["t"] > at:
            break
        if "out" in event:
            stream.feed(event["out"].encode("latin-1"))
            last_out = event["t"]
        else:
            kind = next(k for k in event if k != "t")
            done.append(f"{event['t']:9.3f}  {kind} {event[kind]}")
    rule = "-" * width
    return "\n".join([json.dumps({k: v for k, v in header.items() if k != "start"}),
                      f"the screen at {at if at is not None else 'the end'} "
                      f"(its last output at {last_out:.3f} s):", rule,
                      *(row.rstrip() for row in term.display), rule, *done[-actions:]])


KEY_NAMES = {KEY_RIGHT: "Right", KEY_ENTER: "Enter", KEY_QUIT: "Ctrl+Q"}


def key_name(data: bytes) -> str:
    """A key as a person would name it (``Right``, ``Enter``, ``m``)."""
    return KEY_NAMES.get(data) or data.decode(errors="replace")


@dataclass
class Unredrawn:
    """A measured key with no output within the redraw timeout: which key, what the screen
    showed last before it (its text, escape sequences removed), and how long after the key
    its first output came after all (None: none before the player's next key)."""

    key: str
    before: str
    later_s: float | None = None
    hand: int | None = None  # the cards in the player's hand on screen then (None: unknown)

    @property
    def verdict(self) -> str:
        """``drawn late`` (output came after the redraw timeout, before the next key),
        ``nothing to draw`` (Right with at most one card in hand: there is no other card to
        choose, and the game rightly draws nothing) or ``never drawn`` (a key lost, or one
        the game ignored: look at the player's transcript)."""
        if self.later_s is not None:
            return "drawn late"
        if self.key == "Right" and self.hand is not None and self.hand <= 1:
            return "nothing to draw"
        return "never drawn"


class Keyboard:
    """One player's keys, at a human pace: a key goes no sooner than ``pace`` seconds after the
    player's previous key (the first within ``pace`` of the start, at random, so that a crowd
    does not press in step), and only when the screen has been quiet for ``settle`` seconds.
    :meth:`press` returns once the key's first output arrived (or ``redraw_timeout`` passed):
    the caller then waits for the key's effect before the next key. ``pace`` 0: as fast as the
    screen allows."""

    def __init__(self, send: Any, screen: Screen, pace: float = 0.0,
                 rng: random.Random | None = None, redraw_timeout: float = 5.0,
                 late_timeout: float = 0.0) -> None:
        self.send = send
        self.screen = screen
        # after a measured key's redraw timeout, how much longer to wait for its output
        # before the caller goes on (0: not at all; its output may then come after the next
        # key, and be taken for that key's)
        self.late_timeout = late_timeout
        self.pace = pace
        self.redraw_timeout = redraw_timeout
        self.next_at = time.monotonic() + (rng or random.Random()).uniform(0, pace)
        self.latencies: list[float] = []  # measured keys: sent to the first output after it
        self.no_redraw = 0  # measured keys with no output within redraw_timeout
        self.unredrawn: list[Unredrawn] = []  # those keys, and what the screen showed
        self.sent_at: list[float] = []  # when each key went
        self.measured_at: list[float] = []  # when each key of :attr:`latencies` went
        self.measured_keys: list[str] = []  # which key each of :attr:`latencies` was
        self._pending: tuple[Unredrawn, int, float] | None = None  # (key, chunks, sent)
        self.last_key = b""  # the last key sent
        # the cards in the player's hand on screen, as the script last read them (kept with a
        # key never redrawn: a Right with one card changes nothing)
        self.hand: int | None = None

    async def paced(self) -> None:
        """Until the player's next key may go (``pace`` after the previous one)."""
        wait = self.next_at - time.monotonic()
        if wait > 0:
            await asyncio.sleep(wait)

    def sent(self, at: float) -> None:
        """A key went at ``at`` (for a caller that sends by itself, after :meth:`paced`)."""
        self._late_output()
        self.next_at = at + self.pace
        self.sent_at.append(at)

    def timed(self, data: bytes, sent: float, before: int, arrived: float | None,
              context: str) -> None:
        """Record a measured key sent at ``sent`` when the screen had ``before`` chunks: its
        first output ``arrived`` then (None: not within the redraw timeout; ``context``, the
        screen's last text before it, is kept to say which key and screen it was)."""
        if arrived is not None:
            self.latencies.append(arrived - sent)
            self.measured_at.append(sent)
            self.measured_keys.append(key_name(data))
            return
        self.no_redraw += 1
        miss = Unredrawn(key_name(data), context, hand=self.hand)
        self.unredrawn.append(miss)
        self._pending = (miss, before, sent)

    def _late_output(self) -> None:
        """Before the next key: did the last unredrawn key's output come after all?"""
        if self._pending is not None:
            miss, before, sent = self._pending
            self._pending = None
            if self.screen.chunks > before:
                miss.later_s = self.screen.chunk_time(before + 1) - sent

    async def press(self, data: bytes, settle: float = 0.1, measure: bool = False,
                    drawn: bool = True) -> None:
        """Send ``data`` (after the pace and the quiet) with the screen marked just before;
        ``measure``: time it to the first output after it (:attr:`latencies`, or
        :attr:`no_redraw` when none comes within :attr:`redraw_timeout`; then, if the key
        should be ``drawn``, its output is waited for :attr:`late_timeout` more, so that the
        next key's output is never taken for this one's: :attr:`Unredrawn.later_s`)."""
        await self.paced()
        await self.screen.quiet(settle)
        self.screen.mark()
        before = self.screen.chunks
        sent = time.monotonic()
        self.send(data)
        self.sent(sent)
        self.last_key = data
        if self.screen.transcript is not None:
            self.screen.transcript.add(sent, "key", key_name(data))
        if not measure:
            return
        arrived = await self.screen.next_chunk(before, timeout=self.redraw_timeout)
        self.timed(data, sent, before, arrived,
                   self.screen.text[-CONTEXT:] if arrived is None else "")
        if arrived is None and drawn and self.late_timeout > 0:
            await self.screen.next_chunk(before, timeout=self.late_timeout)
            self._late_output()

    def relabel_last(self, name: str) -> None:
        """Name the last key sent ``name`` among the measured keys (the player's last play of
        the round: ``last_play``), if it was measured."""
        if self.measured_at and self.sent_at and self.measured_at[-1] == self.sent_at[-1]:
            self.measured_keys[-1] = name

    def finish(self) -> None:
        """The player's last key went: settle what the last unredrawn key showed."""
        self._late_output()


def ssh_session_class() -> type:
    """An asyncssh client session that feeds a :class:`Screen` from its callback (no reader
    task to wake per chunk; each chunk stamped when the event loop hands its bytes over)."""
    global _SESSION_CLASS
    if _SESSION_CLASS is None:
        import asyncssh

        class ScreenSession(asyncssh.SSHClientSession[bytes]):
            def __init__(self, screen: Screen) -> None:
                self.screen = screen

            def data_received(self, data: bytes, datatype: Any) -> None:
                self.screen.feed(data, time.monotonic())

            def connection_lost(self, exc: Exception | None) -> None:
                self.screen.close()

        _SESSION_CLASS = ScreenSession
    return _SESSION_CLASS


_SESSION_CLASS: type | None = None


async def open_terminal(conn: Any, screen: Screen, size: tuple[int, int],
                        command: str | None = None) -> Any:
    """A session with a PTY (xterm-256color, ``size``) on the asyncssh connection ``conn``,
    its output fed to ``screen``: the channel (``write`` sends keys, ``wait_closed``,
    ``get_exit_status``)."""
    session = ssh_session_class()
    chan, _ = await conn.create_session(lambda: session(screen), command,
                                        term_type="xterm-256color", term_size=size,
                                        encoding=None)
    return chan


class LoopLag:
    """How late this process's event loop wakes a task that sleeps ``period`` seconds: the
    load tool's own delay (a key that is due goes late, bytes that came are read late, by as
    much as the loop is busy with other clients' work). :meth:`start`, :meth:`stop`; the
    delays in seconds in :attr:`samples`."""

    def __init__(self, period: float = 0.01) -> None:
        self.period = period
        self.samples: list[float] = []
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run())

    async def _run(self) -> None:
        while True:
            asked = time.monotonic()
            await asyncio.sleep(self.period)
            self.samples.append(max(0.0, time.monotonic() - asked - self.period))

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None


def _proc_stat(pid: int) -> tuple[int, int] | None:
    """(ppid, pgid) of a live process."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    if fields[0] == "Z":
        return None
    return int(fields[1]), int(fields[2])


def _cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of a live process."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _children_cpu_seconds(pid: int) -> float:
    """User + system CPU time of the ended children a live process has reaped (0 if gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return (int(fields[13]) + int(fields[14])) / os.sysconf("SC_CLK_TCK")


def _memory_kb(pid: int) -> tuple[int, int]:
    """(RSS, PSS) of a process in KiB (0, 0 if it is gone)."""
    rss = pss = 0
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Rss:"):
                rss = int(line.split()[1])
            elif line.startswith("Pss:"):
                pss = int(line.split()[1])
    except (OSError, ValueError):
        pass
    return rss, pss


SESSION_PID = re.compile(r"session \d+ start: .* pid (\d+)")


def session_pid_of(log_path: Path, user: str) -> int | None:
    """The game process the server's log names at the start of ``user``'s session."""
    try:
        text = log_path.read_text(errors="replace")
    except OSError:
        return None
    found = re.findall(rf"session \d+ start: .* user '{re.escape(user)}' .* pid (\d+)", text)
    return int(found[-1]) if found else None


def process_report(pid: int) -> dict[str, Any]:
    """What a process is doing, from ``/proc``: whether it is alive, its state, and for each
    of its threads its name, state and where in the kernel it waits (``wchan``); its children
    likewise, by pid. For a game that did not end when it should have."""
    def task(path: Path) -> dict[str, str]:
        out = {}
        for name in ("comm", "wchan"):
            with contextlib.suppress(OSError):
                out[name] = (path / name).read_text().strip()
        with contextlib.suppress(OSError, IndexError):
            out["state"] = (path / "stat").read_text().rsplit(")", 1)[1].split()[0]
        return out

    base = Path(f"/proc/{pid}")
    if not base.exists() or _proc_stat(pid) is None:
        return {"pid": pid, "alive": False}
    threads = {}
    with contextlib.suppress(OSError):
        for tid in sorted(os.listdir(base / "task"), key=int):
            threads[tid] = task(base / "task" / tid)
    stats = _all_stats()
    children = [child for child, (ppid, _pgid) in stats.items() if ppid == pid]
    return {"pid": pid, "alive": True, **task(base), "threads": threads,
            "children": {str(c): task(Path(f"/proc/{c}")) for c in children}}



def session_pids(log_path: Path) -> list[int]:
    """The game processes the server's log names at each session's start."""
    try:
        text = log_path.read_text(errors="replace")
    except OSError:
        return []
    return [int(pid) for pid in SESSION_PID.findall(text)]


def _rss_kb(pid: int) -> int:
    """Resident memory of a process in KiB, from ``/proc/PID/statm`` (cheap: no walk of its
    pages, as ``smaps_rollup`` does, which costs about a millisecond for a game)."""
    try:
        return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE_KB
    except (OSError, ValueError, IndexError):
        return 0


PAGE_KB = os.sysconf("SC_PAGE_SIZE") // 1024


def _all_stats() -> dict[int, tuple[int, int]]:
    """(ppid, pgid) of every live process."""
    stats = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            st = _proc_stat(int(entry))
            if st is not None:
                stats[int(entry)] = st
    return stats


def session_memory(server_pid: int, cpu: dict[int, float] | None = None,
                   named: Sequence[int] | None = None, *,
                   stats: dict[int, tuple[int, int]] | None = None,
                   measure: Any = None) -> dict[int, tuple[int, int, int]]:
    """For each game (each of ``named`` still alive, the pids the server's log gives; without
    them, each child of the server, or of its fork server, leading its own process group):
    total RSS and PSS in KiB of its process group, and the number of processes in it. ``cpu``:
    gets each game's CPU seconds so far (its processes' user and system time). ``stats``: the
    processes' (ppid, pgid) if already read; ``measure``: (RSS, PSS) of a pid (default: from
    its ``smaps_rollup``)."""
    if stats is None:
        stats = _all_stats()
    measure = measure or _memory_kb
    if named is not None:
        leaders = [pid for pid in named if pid in stats and stats[pid][1] == pid]
    else:
        parents = {server_pid, *fork_servers(server_pid, stats)}
        leaders = [pid for pid, (ppid, pgid) in stats.items()
                   if ppid in parents and pgid == pid]
    members: dict[int, list[int]] = {leader: [] for leader in leaders}
    for pid, (_ppid, pgid) in stats.items():
        if pgid in members:
            members[pgid].append(pid)
    out: dict[int, tuple[int, int, int]] = {}
    for leader in leaders:
        rss = pss = 0
        seconds = 0.0
        for pid in members[leader]:
            r, p = measure(pid)
            rss += r
            pss += p
            if cpu is not None:
                seconds += _cpu_seconds(pid) or 0.0
        out[leader] = (rss, pss, len(members[leader]))
        if cpu is not None:
            cpu[leader] = max(cpu.get(leader, 0.0), seconds)
    return out


def _below(root: int, stats: dict[int, tuple[int, int]]) -> list[int]:
    """Every live process below ``root`` (children, their children, ...)."""
    children: dict[int, list[int]] = {}
    for pid, (ppid, _pgid) in stats.items():
        children.setdefault(ppid, []).append(pid)
    out, todo = [], list(children.get(root, ()))
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo.extend(children.get(pid, ()))
    return out


def fork_servers(server_pid: int, stats: dict[int, tuple[int, int]] | None = None) -> list[int]:
    """The server's fork server(s): its children in its own process group that have children
    leading their own groups (the games), or none yet. The server's other children in its group
    are the tables' computer workers."""
    if stats is None:
        stats = {int(e): st for e in os.listdir("/proc") if e.isdigit()
                 and (st := _proc_stat(int(e))) is not None}
    helpers = {pid for pid, (ppid, pgid) in stats.items() if ppid == server_pid and pgid != pid}
    out = []
    for pid in helpers:
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"_fork-server" in cmdline:
            out.append(pid)
    return out


def groups_alive(pgids: Sequence[int]) -> int:
    """How many of these process groups still have a live process."""
    wanted = set(pgids)
    alive = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            st = _proc_stat(int(entry))
            if st is not None and st[1] in wanted:
                alive.add(st[1])
    return len(alive)


@dataclass
class MemoryPeak:
    """The memory at the busiest moment (the most games, then the most RSS), in KiB."""

    sessions: dict[int, tuple[int, int, int]] = field(default_factory=dict)
    server_rss: int = 0
    server_pss: int = 0
    forker_pss: int = 0  # the fork server's PSS in KiB (0: none)
    at: float = 0.0
    cpu: dict[int, float] = field(default_factory=dict)  # each game's CPU seconds, last seen
    # every process below the server then (games, their workers, shared workers, forks)
    tree_processes: int = 0
    tree_pss: int = 0
    tree_rss: int = 0


async def sample_memory(server_pid: int, peak: MemoryPeak, every: float = 1.0,
                        log_path: Path | None = None,
                        after_first: Callable[[], None] | None = None) -> None:
    """Every ``every`` seconds, the games' memory and CPU; ``peak`` keeps the busiest moment
    (the most games, then the most RSS). Each second costs a read of every process's ``stat``
    and each game's ``statm``; only a moment that beats the peak is measured in full (PSS from
    ``smaps_rollup``, each process read once for the games and for the whole tree)."""
    start = time.monotonic()
    pids = LogPids(log_path) if log_path is not None else None
    best = (0, 0)  # (games, their total RSS from statm) at the peak
    while True:
        named = pids.read() if pids is not None else None
        best = await asyncio.to_thread(_sample_once, server_pid, peak, named, best,
                                       time.monotonic() - start)
        if after_first is not None:
            after_first()
            after_first = None
        await asyncio.sleep(every)


PEAK_MARGIN = 0.01  # a moment with as many games beats the peak with this much more RSS


def beats_peak(now: tuple[int, int], best: tuple[int, int]) -> bool:
    """Whether a moment of ``now`` (games, their total RSS) is measured in full as the new
    peak over ``best``: more games, or as many with over :data:`PEAK_MARGIN` more RSS. A
    full measure costs about a millisecond a game, and the games' RSS grows a little nearly
    every second as they play: measuring each such second cost the sampler about 0.1 s of
    CPU a second at 100 games."""
    games, rss = now
    return games > best[0] or (games == best[0] and rss > best[1] * (1 + PEAK_MARGIN))


def _sample_once(server_pid: int, peak: MemoryPeak, named: Sequence[int] | None,
                 best: tuple[int, int], at: float) -> tuple[int, int]:
    stats = _all_stats()
    quick = session_memory(server_pid, peak.cpu, named, stats=stats,
                           measure=lambda pid: (_rss_kb(pid), 0))
    now = (len(quick), sum(v[0] for v in quick.values()))
    if not beats_peak(now, best):
        return best
    read: dict[int, tuple[int, int]] = {}

    def measure(pid: int) -> tuple[int, int]:
        if pid not in read:
            read[pid] = _memory_kb(pid)
        return read[pid]

    peak.sessions = session_memory(server_pid, None, named, stats=stats, measure=measure)
    peak.server_rss, peak.server_pss = measure(server_pid)
    below = [measure(pid) for pid in _below(server_pid, stats)]
    peak.tree_rss = sum(r for r, _ in below)
    peak.tree_pss = sum(p for _, p in below)
    peak.tree_processes = len(below)
    peak.forker_pss = sum(measure(pid)[1] for pid in fork_servers(server_pid, stats))
    peak.at = at
    return now


class LogPids:
    """The game processes the server's log names at each session's start, read as the log
    grows (each read takes only the new lines)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.pids: list[int] = []
        self._offset = 0

    def read(self) -> list[int]:
        try:
            with self.path.open("rb") as log:
                log.seek(self._offset)
                new = log.read()
        except OSError:
            return self.pids
        cut = new.rfind(b"\n") + 1  # whole lines only
        self._offset += cut
        self.pids += [int(pid) for pid in SESSION_PID.findall(new[:cut].decode(errors="replace"))]
        return self.pids


async def start_sampler(server_pid: int, log_path: Path) -> asyncio.subprocess.Process:
    """:func:`sample_memory` in a process of its own (``python -m benchmarks.loadkit sample``),
    so that reading ``/proc`` every second neither takes the clients' event loop (nor their
    interpreter lock) nor is counted as their CPU; :func:`stop_sampler` gets what it saw."""
    home = str(Path(__file__).resolve().parents[1])  # this copy of the benchmarks, not the cwd's
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        filter(None, (home, os.environ.get("PYTHONPATH"))))}
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "benchmarks.loadkit", "sample", str(server_pid),
        str(log_path.resolve()), stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        env=env, cwd=home, start_new_session=True)


async def stop_sampler(process: asyncio.subprocess.Process) -> tuple[MemoryPeak, float | None]:
    """Stop a sampler of :func:`start_sampler`: the memory at the busiest moment it saw, and
    its CPU seconds (None, and no figures, if it failed)."""
    assert process.stdin is not None
    process.stdin.close()
    try:
        out, _ = await asyncio.wait_for(process.communicate(), 30)
        found = json.loads(out)
    except (TimeoutError, ValueError):
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        await process.wait()
        return MemoryPeak(), None
    peak = MemoryPeak(
        sessions={int(pid): (rss, pss, n) for pid, (rss, pss, n) in found["sessions"].items()},
        cpu={int(pid): seconds for pid, seconds in found["cpu"].items()},
        **{name: found[name] for name in ("server_rss", "server_pss", "forker_pss", "at",
                                          "tree_processes", "tree_pss", "tree_rss")})
    return peak, found["cpu_s"]


async def _sample_until_eof(server_pid: int, log_path: Path) -> dict[str, Any]:
    peak = MemoryPeak()
    # After its first sample (before the players come), below the games: a session, so a
    # scheduler autogroup, of its own, every thread at the lowest priority. At the tool's
    # priority its reads of /proc took the cores from the games for tens of milliseconds
    # every second, in the middle of the moves the tool measures.
    sampler = asyncio.create_task(sample_memory(
        server_pid, peak, log_path=log_path,
        after_first=lambda: lower_group_priority(os.getpriority(os.PRIO_PROCESS, 0), 19, 0)))
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.buffer.read)
    sampler.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await sampler
    return {"sessions": peak.sessions, "cpu": peak.cpu, "server_rss": peak.server_rss,
            "server_pss": peak.server_pss, "forker_pss": peak.forker_pss, "at": peak.at,
            "tree_processes": peak.tree_processes, "tree_pss": peak.tree_pss,
            "tree_rss": peak.tree_rss, "cpu_s": time.process_time()}


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    k = (len(ordered) - 1) * q
    lo = int(k)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


async def _wait_port(log_path: Path, server: asyncio.subprocess.Process, timeout: float) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = re.search(r"listening on \S+ port (\d+)", log_path.read_text(errors="replace"))
        if found:
            return int(found.group(1))
        if server.returncode is not None:
            break
        await asyncio.sleep(0.05)
    raise RuntimeError(f"the server did not start:\n{log_path.read_text(errors='replace')}")


class LoopbackServer:
    """``casino-tui serve`` on 127.0.0.1 for a load run: :meth:`start` (the port), then
    :meth:`stop`; its games' memory is sampled every second in between (:attr:`peak`).
    ``work`` gets the data directory (``data``) and the server's log (``server.log``)."""

    def __init__(self, work: Path, max_sessions: int, fork_server: bool = True,
                 store: str | None = None, session_nice: int | None = None) -> None:
        self.work = work
        self.store = store  # serve --store URL (the shared store), or None
        self.session_nice = session_nice  # --session-nice (None: the server's default)
        self.data_dir = work / "data"
        self.log_path = work / "server.log"
        self.max_sessions = max(max_sessions, 1)
        self.fork_server = fork_server
        self.peak = MemoryPeak()
        self.cpu: float | None = None  # the server process's CPU seconds when it stopped
        self.leftovers = 0  # game process groups still running after the server stopped
        # the CPU seconds of the games the fork server forked and reaped (every game that
        # ended before the server stopped; its own warm-up not counted)
        self.forked_cpu: float | None = None
        self._process: asyncio.subprocess.Process | None = None
        self._sampler: asyncio.Task[None] | None = None  # (a subclass's own sampling)
        self._sampler_process: asyncio.subprocess.Process | None = None
        self.sampler_cpu: float | None = None  # the memory sampler's CPU seconds
        self._log_file: Any = None

    @property
    def pid(self) -> int:
        assert self._process is not None
        return self._process.pid

    async def start(self) -> int:
        """Start the server; its port once it listens."""
        self._log_file = open(self.log_path, "wb")  # noqa: SIM115 (closed in stop)
        self._process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "casino_tui", "serve", "--host", HOST, "--port", "0",
            "--data-dir", str(self.data_dir), "--max-sessions", str(self.max_sessions),
            "--rate-limit", "0", "--idle-timeout", "0", "--metrics-port", "0",
            *(() if self.fork_server else ("--no-fork-server",)),
            *(("--store", self.store) if self.store else ()),
            *(() if self.session_nice is None else ("--session-nice", str(self.session_nice))),
            stdin=asyncio.subprocess.DEVNULL, stdout=self._log_file, stderr=self._log_file)
        port = await _wait_port(self.log_path, self._process, 30)
        metrics = re.search(r"metrics: (\S+)", self.log_path.read_text(errors="replace"))
        print(f"server pid {self._process.pid} on {HOST}:{port}, data in {self.data_dir}"
              f"{f', metrics at {metrics.group(1)}' if metrics else ''}", file=sys.stderr)
        self._sampler_process = await start_sampler(self._process.pid, self.log_path)
        return port

    async def stop(self) -> None:
        """Stop sampling and the server (SIGTERM, then SIGKILL after 20 s); count the games
        that outlived it."""
        if self._sampler is not None:
            self._sampler.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sampler
        if self._sampler_process is not None:
            self.peak, self.sampler_cpu = await stop_sampler(self._sampler_process)
            self._sampler_process = None
        server = self._process
        if server is not None:
            self.cpu = _cpu_seconds(server.pid)
            forkers = fork_servers(server.pid)
            if forkers:
                self.forked_cpu = sum(_children_cpu_seconds(pid) for pid in forkers)
            if server.returncode is None:
                server.send_signal(signal.SIGTERM)
                try:
                    await asyncio.wait_for(server.wait(), 20)
                except TimeoutError:
                    server.kill()
                    await server.wait()
            # every game seen while sampling or named in the log (the fork server's children
            # outlive the server as orphans if they are not hung up)
            self.leftovers = groups_alive([*self.peak.cpu, *session_pids(self.log_path),
                                           *session_memory(server.pid)])
        if self._log_file is not None:
            self._log_file.close()


def main(argv: Sequence[str]) -> int:
    """``python -m benchmarks.loadkit sample SERVER_PID LOG``: sample the server's games'
    memory every second until standard input ends, then print the busiest moment as JSON.
    ``python -m benchmarks.loadkit replay FILE [SECONDS]``: the screen of a player's
    transcript (``--transcripts``) at SECONDS after its start, or at its end, with the script's
    last keys and waits."""
    if len(argv) in (2, 3) and argv[0] == "replay":
        print(replay(Path(argv[1]), float(argv[2]) if len(argv) == 3 else None))
        return 0
    if len(argv) != 3 or argv[0] != "sample":
        print("usage: python -m benchmarks.loadkit sample SERVER_PID SERVER_LOG\n"
              "       python -m benchmarks.loadkit replay TRANSCRIPT [SECONDS]", file=sys.stderr)
        return 2
    figures = asyncio.run(_sample_until_eof(int(argv[1]), Path(argv[2])))
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
