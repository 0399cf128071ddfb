"""What one stranger can cost a public ``casino-tui serve`` is bounded, checked over real SSH
(asyncssh as the client, since the OpenSSH client in a terminal cannot ask for such sizes):
the terminal size a client asks for is capped, window changes are passed on at a bounded pace,
a flood of keys is slowed down, a client that does not read holds up its own game and not the
server's memory, and join codes cannot be found by trying them."""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
import os
import re
import struct
import termios
import time
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

import asyncssh
import pytest

from casino_tui.serve.config import ServeConfig
from casino_tui.serve.pty_session import (
    INPUT_BURST,
    INPUT_RATE,
    MAX_COLUMNS,
    MAX_ROWS,
    OUTPUT_BUFFER,
    InputBudget,
    PtyGame,
    clamp_size,
)
from casino_tui.serve.server import GameServer
from casino_tui.table.guard import FREE_TRIES

ESCAPES = re.compile(r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[()][0-9A-Za-z]|.)")
TITLE = "the classic fishing card game"


def run(coro: Coroutine[Any, Any, None], timeout: float = 120) -> None:
    asyncio.run(asyncio.wait_for(coro, timeout))


class Client:
    """One asyncssh connection with a PTY; ``text``: what it showed (escapes removed)."""

    def __init__(self, conn: asyncssh.SSHClientConnection,
                 process: asyncssh.SSHClientProcess[bytes], read: bool) -> None:
        self.conn = conn
        self.process = process
        self.text = ""
        self._reader = asyncio.get_running_loop().create_task(self._read()) if read else None

    @classmethod
    async def open(cls, port: int, key: asyncssh.SSHKey, size: tuple[int, int], *,
                   command: str | None = None, read: bool = True,
                   window: int = 2 * 1024 * 1024) -> Client:
        conn = await asyncssh.connect("127.0.0.1", port, username="stranger",
                                      client_keys=[key], known_hosts=None, agent_path=None,
                                      preferred_auth="publickey")
        process = await conn.create_process(command, term_type="xterm-256color",
                                            term_size=size, encoding=None, window=window)
        return cls(conn, process, read)

    async def _read(self) -> None:
        while True:
            data = await self.process.stdout.read(65536)
            if not data:
                return
            self.text += ESCAPES.sub("", data.decode("utf-8", "replace"))

    async def wait(self, text: str, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while text not in self.text and text not in self.flowing():
            if time.monotonic() > deadline:
                raise AssertionError(f"{text!r} not shown; the end of the screen: "
                                     f"{self.text[-800:]!r}")
            await asyncio.sleep(0.05)

    def flowing(self) -> str:
        """The text with a notification's wrapped lines joined again (each line of it begins
        with a cursor move, stripped here, and a new line only where the app sends one)."""
        return re.sub(r" +", " ", re.sub(r"\s*(?:\r\n)?▌\s*", " ", self.text))

    async def close(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
        self.conn.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.conn.wait_closed(), 5)


async def until(predicate: Any, what: str, timeout: float = 20) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.05)


def pty_size(pid: int) -> tuple[int, int]:
    """(columns, rows) of the terminal of process ``pid`` (its standard input, the PTY)."""
    fd = os.open(f"/proc/{pid}/fd/0", os.O_RDONLY | os.O_NOCTTY | os.O_NONBLOCK)
    try:
        rows, cols, _x, _y = struct.unpack(
            "HHHH", fcntl.ioctl(fd, termios.TIOCGWINSZ, b"\0" * 8))
    finally:
        os.close(fd)
    return cols, rows


async def the_game(server: GameServer) -> PtyGame:
    game = await until(lambda: next((g for g in server.sessions.values() if g.pid), None),
                       "the game to start")
    assert isinstance(game, PtyGame)
    return game


def serving(tmp_path: Path, **config: Any) -> GameServer:
    # (its games at its own priority: the suite beside them must not starve them)
    config.setdefault("session_nice", 0)
    # No computer moves in these tests (each session stays at the title or the Join screen):
    # no pool of computer players to start and warm (processes of its own, about 0.6 CPU-s).
    config.setdefault("computers", 0)
    return GameServer(ServeConfig(data_dir=tmp_path / "data", port=0, rate_limit=0,
                                  hangup_grace=0.5, **config))


def test_clamp_size_and_the_input_budget() -> None:
    assert clamp_size(100_000, 100_000) == (MAX_COLUMNS, MAX_ROWS) == (400, 200)
    assert clamp_size(80, 24) == (80, 24) and clamp_size(0, 0) == (80, 24)
    assert clamp_size(65535, 10) == (400, 10)
    now = [0.0]
    budget = InputBudget(clock=lambda: now[0])
    assert budget.take(INPUT_BURST) == 0  # a burst goes at once
    assert budget.take(INPUT_RATE) == pytest.approx(1.0)  # then the rate: a second's worth
    now[0] += 1.0
    assert budget.take(0) == 0
    now[0] += 100.0  # saved up: never more than a burst
    assert budget.take(INPUT_BURST) == 0 and budget.take(1) > 0


def test_the_terminal_size_a_client_asks_for_is_capped(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="casino_tui.serve")

    async def main() -> None:
        server = serving(tmp_path)
        await server.start()
        client = None
        try:
            key = asyncssh.generate_private_key("ssh-ed25519")
            client = await Client.open(server.port, key, (100_000, 100_000))
            game = await the_game(server)
            assert game.pid is not None
            await client.wait(TITLE)
            assert pty_size(game.pid) == (400, 200)
            assert "asked for a terminal of 100000x100000: clamped to 400x200" in caplog.text
            assert re.search(r"session \d+ start: .* size 400x200 ", caplog.text)
            # a window change: clamped too
            client.process.change_terminal_size(65535, 65535)
            client.process.change_terminal_size(120, 65535)
            await until(lambda: pty_size(game.pid or 0) == (120, 200), "the new size")
            # a burst of window changes: at most ten a second reach the game, the last one
            # last
            for i in range(40):
                client.process.change_terminal_size(100 + i, 30)
            await until(lambda: pty_size(game.pid or 0) == (139, 30), "the last size")
            assert caplog.text.count("clamped to") == 1  # said once a session
        finally:
            if client is not None:
                await client.close()
            await server.close()

    run(main())


def test_a_client_that_does_not_read_holds_up_its_game_not_the_server(
        tmp_path: Path) -> None:
    async def main() -> None:
        server = serving(tmp_path)
        await server.start()
        client = None
        try:
            key = asyncssh.generate_private_key("ssh-ed25519")
            # a client with a small window that never reads what the game sends
            client = await Client.open(server.port, key, (400, 200), read=False,
                                       window=16384)
            game = await the_game(server)
            channel = game.process.channel
            # every window change redraws the whole 400x200 screen: far more than it reads
            for i in range(12):
                client.process.change_terminal_size(400 - i % 2, 200)
                await asyncio.sleep(0.3)
            peak = 0
            for _ in range(20):
                peak = max(peak, channel.get_write_buffer_size())
                await asyncio.sleep(0.1)
            assert 0 < peak <= OUTPUT_BUFFER + 16384  # held at the PTY, not in the server
            assert game.process.channel.get_write_buffer_size() > 0  # still waiting
        finally:
            if client is not None:
                await client.close()
            await server.close()

    run(main())


def test_a_flood_of_keys_is_slowed_down(tmp_path: Path,
                                        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="casino_tui.serve")

    async def main() -> None:
        server = serving(tmp_path)
        await server.start()
        client = None
        try:
            key = asyncssh.generate_private_key("ssh-ed25519")
            client = await Client.open(server.port, key, (80, 24))
            await client.wait(TITLE)
            # 240,000 bytes of a key the title does nothing with. (Not arrow keys: the slowed
            # input can pause between the two halves of a key's escape sequence, and the
            # game then reads a lone Escape, which quits from the title: the session ended,
            # and its channel's buffer with it, once in a suite on a busy host.)
            flood = b"z" * 240_000
            client.process.stdin.write(flood)
            began = time.monotonic()
            await until(lambda: "faster than" in caplog.text, "the log line", 10)
            # the flood is held at the client (SSH flow control): what has gone to the game
            # after a second is a burst and a second's worth, far from all of it
            await asyncio.sleep(1.0)
            sent = len(flood) - client.process.channel.get_write_buffer_size()
            elapsed = time.monotonic() - began
            # what went: the budget's, what the server's channel window holds and the PTY's
            # own buffer
            assert sent < INPUT_BURST + INPUT_RATE * (elapsed + 1) + 2 * 65536 + 32768
            assert re.search(r"player \S+ sends input faster than 4096 bytes a second: "
                             r"slowed down", caplog.text)
            assert "session 1 end" not in caplog.text  # (the game goes on)
        finally:
            if client is not None:
                await client.close()
            await server.close()

    run(main())


def test_join_codes_cannot_be_guessed_over_ssh(tmp_path: Path,
                                               caplog: pytest.LogCaptureFixture) -> None:
    """``ssh HOST join CODE`` with a wrong code, then more through the Join screen (``j``): a
    few are answered "no table has this code", then the player is told to wait, and the log
    says so."""
    caplog.set_level(logging.INFO)

    async def main() -> None:
        server = serving(tmp_path)
        await server.start()
        assert server.hub_service is not None
        server.hub_service.codes.clock = lambda: 1000.0  # the waits never run out here
        client = None
        try:
            key = asyncssh.generate_private_key("ssh-ed25519")
            client = await Client.open(server.port, key, (100, 30), command="join BABABA")
            await client.wait("Your display name")  # the name the others would see
            client.process.stdin.write(b"Eve\r")
            await client.wait("There is no table BABABA to join: no table has this code")
            client.process.stdin.write(b"j")
            await client.wait("as its creator read it to you")
            await asyncio.sleep(0.5)  # a person reads the dialog before typing
            service = server.hub_service
            for attempt in range(1, FREE_TRIES + 1):
                code = f"BEBEB{'AEIOU'[attempt - 1]}"
                for key in [b"\x7f"] * 6 + [c.encode() for c in code] + [b"\r"]:
                    client.process.stdin.write(key)  # typed at a person's pace
                    await asyncio.sleep(0.1)
                if attempt < FREE_TRIES:  # (the screen redraws only what changed: the count)
                    await until(lambda n=attempt: service.codes.wrong == n + 1, "wrong code")
                else:
                    await until(lambda: service.refused_joins == 1, "the refusal")
                    await client.wait("too many wrong codes")
            service = server.hub_service
            assert service.refused_joins == 1 and service.codes.wrong == FREE_TRIES
            assert "tries join codes too fast: refused" in caplog.text
            assert re.search(r"sha256-\S+ \(session 1, address 127\.0\.0\.1\) tries join "
                             r"codes too fast", caplog.text)
        finally:
            if client is not None:
                await client.close()
            await server.close()

    run(main())


def test_an_output_in_full_pty_chunks_is_gathered_into_one_write(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A read of the game's terminal that fills a PTY chunk (4,095 bytes) is part of a longer
    output: the server reads on while the game writes (waiting a moment for each next chunk)
    and sends it all as one piece, up to 16 KiB; a shorter read is the whole output and goes
    at once."""
    import threading

    from casino_tui.serve import pty_session

    # (a wait far longer than the game's pauses below: the test does not hang on timing; an
    # output that ends in a shorter read is not waited for at all)
    monkeypatch.setattr(pty_session, "GATHER_WAIT", 30.0)

    async def gather(first: bytes, then: list[bytes]) -> bytes:
        r, w = os.pipe()
        os.set_blocking(r, False)

        def game() -> None:  # the rest of the frame, a chunk at a time, as a PTY passes it
            for part in then:
                time.sleep(0.001)
                os.write(w, part)

        writer = threading.Thread(target=game)
        writer.start()
        try:
            return await pty_session._gather_output(asyncio.get_running_loop(), r, first)
        finally:
            writer.join()
            os.close(r)
            os.close(w)

    chunk = pty_session.PTY_CHUNK
    frame = [b"a" * chunk, b"b" * chunk, b"c" * 1500]
    began = time.monotonic()
    assert asyncio.run(gather(frame[0], frame[1:])) == b"".join(frame)
    assert time.monotonic() - began < 20  # the last, shorter read ended it
    # a late reader of a pipe gets the last two writes in one read, longer than a chunk: it
    # ended in a shorter write, so that ends it too
    began = time.monotonic()
    assert asyncio.run(gather(frame[0], [frame[1] + frame[2]])) == b"".join(frame)
    assert time.monotonic() - began < 20
    # at most 16 KiB gathered: the rest is the next read's
    many = [bytes([65 + i]) * chunk for i in range(6)]
    got = asyncio.run(gather(many[0], many[1:]))
    assert got == b"".join(many)[:16384]
    # ... also when a pipe gives two whole chunks in one read: they were cut short as well
    got = asyncio.run(gather(many[0], [many[1] + many[2], *many[3:]]))
    assert got == b"".join(many)[:16384]
