"""The table channel (casino_tui.table.wire): a Unix socket in a private directory, a secret per
session, length-prefixed JSON frames; the server outlives any client."""

from __future__ import annotations

import asyncio
import os
import stat
import struct
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import pytest

from casino_tui.table.wire import (
    MAX_FRAME,
    SECRET_ENV,
    SOCKET_ENV,
    FrameError,
    Identity,
    Message,
    Refused,
    WireClient,
    WireError,
    WireServer,
    connect,
    decode,
    encode,
    link_from_environment,
    new_secret,
    read_frame,
    session_environment,
    socket_path,
)

ALICE = Identity("sha256-alice", "SHA256:alice", 1)
BOB = Identity("sha256-bob", "SHA256:bob", 2)


def run(coro: Coroutine[Any, Any, None]) -> None:
    asyncio.run(asyncio.wait_for(coro, 20))


class Recorder:
    """A server whose handler records (identity, message) and echoes each message back to its
    sender with ``"echo": True``."""

    def __init__(self, **kwargs: Any) -> None:
        self.received: list[tuple[Identity, Message]] = []
        self.connects: list[Identity] = []
        self.disconnects: list[Identity] = []
        self.server = WireServer(self.handle, on_connect=self.connects.append,
                                 on_disconnect=self.disconnects.append, **kwargs)

    def handle(self, identity: Identity, message: Message) -> None:
        self.received.append((identity, message))
        if message.get("type") == "crash":
            raise RuntimeError("a bug in the hub")
        self.server.send(identity, {**message, "echo": True})


async def until(predicate: Callable[[], object], what: str, timeout: float = 5) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.01)


async def raw_connection(path: Path) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    return await asyncio.open_unix_connection(str(path))


async def read_all(reader: asyncio.StreamReader) -> bytes:
    return await asyncio.wait_for(reader.read(), 5)


def frames(data: bytes) -> list[Message]:
    out = []
    while data:
        (size,) = struct.unpack(">I", data[:4])
        out.append(decode(data[4:4 + size]))
        data = data[4 + size:]
    return out


# ---------------------------------------------------------------------- frames
def test_frames_encode_and_decode() -> None:
    frame = encode({"type": "chat", "text": "Hé [b]bold[/b] \x1b[31m"})
    assert struct.unpack(">I", frame[:4])[0] == len(frame) - 4
    assert decode(frame[4:]) == {"type": "chat", "text": "Hé [b]bold[/b] \x1b[31m"}
    with pytest.raises(FrameError):
        encode({"text": "x" * MAX_FRAME})
    with pytest.raises(FrameError):
        encode({"bad": float("nan")})
    with pytest.raises(FrameError):
        encode({"bad": object()})
    for body in (b"[1, 2]", b"not json", b"\xff\xfe", b'{"a": NaN}', b"[" * 100_000, b'"x"'):
        with pytest.raises(FrameError):
            decode(body)


def test_environment_and_secrets(tmp_path: Path) -> None:
    env = session_environment(socket_path(tmp_path), "s" * 40)
    assert env == {SOCKET_ENV: str(tmp_path / "tables" / "hub.sock"), SECRET_ENV: "s" * 40}
    assert link_from_environment(env) == (tmp_path / "tables" / "hub.sock", "s" * 40)
    assert link_from_environment({}) is None
    assert link_from_environment({SOCKET_ENV: "/x", SECRET_ENV: ""}) is None
    secrets = {new_secret() for _ in range(100)}
    assert len(secrets) == 100 and all(len(s) >= 40 for s in secrets)


# ---------------------------------------------------------------------- the channel
def test_round_trip_and_welcome(tmp_path: Path) -> None:
    async def main() -> None:
        rec = Recorder()
        path = socket_path(tmp_path / "data")
        await rec.server.start(path)
        secret = new_secret()
        rec.server.register(secret, ALICE)
        client = await connect(path, secret)
        assert client.player == "sha256-alice" and client.welcome["version"] == 1
        await until(lambda: rec.connects == [ALICE], "on_connect")
        assert rec.server.connected(ALICE) and not rec.server.connected(BOB)
        await client.send({"type": "move", "n": 1, "text": "ünïcode"})
        await client.send({"type": "move", "n": 2})
        got = [await client.receive(), await client.receive()]
        assert got == [{"type": "move", "n": 1, "text": "ünïcode", "echo": True},
                       {"type": "move", "n": 2, "echo": True}]
        assert rec.received == [(ALICE, {"type": "move", "n": 1, "text": "ünïcode"}),
                                (ALICE, {"type": "move", "n": 2})]
        # The server speaks first too; iterating ends when the server closes.
        assert rec.server.send(ALICE, {"type": "view", "seat": 0})
        assert not rec.server.send(BOB, {"type": "view"})
        rec.server.unregister(secret)  # the session ended
        seen = [m async for m in client]
        assert seen == [{"type": "view", "seat": 0}]
        await until(lambda: rec.disconnects == [ALICE], "on_disconnect")
        assert not client.connected
        with pytest.raises(ConnectionError):
            await client.send({"type": "late"})
        await rec.server.close()
        assert not path.exists()

    run(main())


def test_socket_directory_is_private(tmp_path: Path) -> None:
    async def main() -> None:
        data = tmp_path / "data"
        data.mkdir(mode=0o755)
        (data / "tables").mkdir(mode=0o777)
        os.chmod(data / "tables", 0o777)  # made by hand, too open: made private again
        server = WireServer(lambda i, m: None)
        await server.start(socket_path(data))
        assert stat.S_IMODE(os.stat(data / "tables").st_mode) == 0o700
        assert stat.S_IMODE(os.stat(socket_path(data)).st_mode) == 0o600
        assert stat.S_ISSOCK(os.stat(socket_path(data)).st_mode)
        # A second server on the same socket is refused; the first one goes on.
        with pytest.raises(WireError, match="another server"):
            await WireServer(lambda i, m: None).start(socket_path(data))
        await server.close()
        # A fresh start in a new place makes the directory with 0700.
        other = WireServer(lambda i, m: None)
        await other.start(socket_path(tmp_path / "new"))
        assert stat.S_IMODE(os.stat(tmp_path / "new" / "tables").st_mode) == 0o700
        await other.close()

    run(main())


def test_stale_socket_is_replaced_and_a_file_is_not(tmp_path: Path) -> None:
    import socket

    path = socket_path(tmp_path)
    path.parent.mkdir(mode=0o700)
    left = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    left.bind(str(path))  # bound, never listening: what a killed server leaves
    left.close()

    async def main() -> None:
        server = WireServer(lambda i, m: None)
        await server.start(path)
        secret = new_secret()
        server.register(secret, ALICE)
        client = await connect(path, secret)
        assert client.player == ALICE.player
        await client.close()
        await server.close()
        path.write_text("not a socket")
        with pytest.raises(WireError, match="not a socket"):
            await WireServer(lambda i, m: None).start(path)

    run(main())


def test_wrong_or_missing_secret_is_refused(tmp_path: Path) -> None:
    async def main() -> None:
        rec = Recorder()
        path = socket_path(tmp_path)
        await rec.server.start(path)
        rec.server.register(new_secret(), ALICE)
        with pytest.raises(Refused, match="unknown secret"):
            await connect(path, new_secret())
        with pytest.raises(Refused, match="no secret"):
            await connect(path, "")
        # A first frame that is not a hello, or no frame at all: refused and closed.
        reader, writer = await raw_connection(path)
        writer.write(encode({"type": "move", "secret": "x"}))
        assert frames(await read_all(reader)) == [
            {"type": "refused", "reason": "the first message must be a hello"}]
        writer.close()
        reader, writer = await raw_connection(path)
        writer.write(encode({"type": "hello", "secret": new_secret(), "version": 99}))
        assert frames(await read_all(reader))[0]["type"] == "refused"
        writer.close()
        with pytest.raises(ValueError, match="long"):
            rec.server.register("short", BOB)
        assert rec.received == [] and rec.connects == []
        await rec.server.close()

    run(main())


def test_silent_client_is_closed_after_the_hello_timeout(tmp_path: Path) -> None:
    async def main() -> None:
        rec = Recorder(hello_timeout=0.2)
        path = socket_path(tmp_path)
        await rec.server.start(path)
        reader, writer = await raw_connection(path)
        answer = frames(await read_all(reader))  # closed without a word from us
        assert answer == [{"type": "error", "reason": "no hello within 0.2s"}]
        writer.close()
        await rec.server.close()

    run(main())


@pytest.mark.parametrize("bad", [
    struct.pack(">I", MAX_FRAME + 1) + b"{}",  # too large (the body is never read)
    struct.pack(">I", 0),  # empty
    struct.pack(">I", 8) + b"not json",
    struct.pack(">I", 6) + b"[1, 2]",  # JSON, not an object
    struct.pack(">I", 2) + b"\xff\xfe",  # not UTF-8
    struct.pack(">I", 100) + b"{}",  # the connection ends inside the frame
])
def test_oversized_or_malformed_frame_closes_that_connection_only(tmp_path: Path,
                                                                  bad: bytes) -> None:
    async def main() -> None:
        rec = Recorder()
        path = socket_path(tmp_path)
        await rec.server.start(path)
        good, evil = new_secret(), new_secret()
        rec.server.register(good, ALICE)
        rec.server.register(evil, BOB)
        alice = await connect(path, good)
        reader, writer = await raw_connection(path)
        writer.write(encode({"type": "hello", "secret": evil}))
        welcome = await read_frame(reader)
        assert welcome is not None and welcome["type"] == "welcome"
        writer.write(bad)
        writer.write_eof()  # (the last case: the connection ends inside the frame)
        error = await asyncio.wait_for(read_frame(reader), 5)
        assert error is not None and error["type"] == "error", error
        assert await asyncio.wait_for(read_frame(reader), 5) is None  # and closed
        writer.close()
        await until(lambda: rec.disconnects == [BOB], "bob's disconnection")
        # Alice is still served.
        await alice.send({"type": "ping"})
        assert await alice.receive() == {"type": "ping", "echo": True}
        assert [m for i, m in rec.received if i == BOB] == []
        await alice.close()
        await rec.server.close()

    run(main())


def test_two_clients_are_isolated(tmp_path: Path) -> None:
    async def main() -> None:
        rec = Recorder()
        path = socket_path(tmp_path)
        await rec.server.start(path)
        sa, sb = new_secret(), new_secret()
        rec.server.register(sa, ALICE)
        rec.server.register(sb, BOB)
        alice, bob = await connect(path, sa), await connect(path, sb)
        assert (alice.player, bob.player) == ("sha256-alice", "sha256-bob")
        for n in range(20):
            await alice.send({"type": "say", "from": "alice", "n": n})
            await bob.send({"type": "say", "from": "bob", "n": n})
        assert rec.server.send(ALICE, {"type": "hand", "cards": ["AS", "10D"]})
        got_a = [await alice.receive() for _ in range(21)]
        got_b = [await bob.receive() for _ in range(20)]
        assert all(m is not None and m.get("from") != "bob" for m in got_a)
        assert all(m is not None and m.get("from") == "bob" for m in got_b)
        assert {"type": "hand", "cards": ["AS", "10D"]} in got_a
        # Identities come from the secrets, never from what a client claims.
        assert {i for i, m in rec.received if m["from"] == "alice"} == {ALICE}
        assert {i for i, m in rec.received if m["from"] == "bob"} == {BOB}
        # Nothing else is waiting for bob: the hand was alice's only.
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(bob.receive(), 0.3)
        await alice.close()
        await bob.close()
        await rec.server.close()

    run(main())


def test_server_survives_a_client_dying_and_a_handler_failing(tmp_path: Path) -> None:
    import subprocess
    import sys

    async def main() -> None:
        rec = Recorder()
        path = socket_path(tmp_path)
        await rec.server.start(path)
        sa, sb = new_secret(), new_secret()
        rec.server.register(sa, ALICE)
        rec.server.register(sb, BOB)
        # Bob's client is another process, killed in the middle of a frame.
        script = (
            "import socket,struct,sys,json,time,os,signal\n"
            "s=socket.socket(socket.AF_UNIX);s.connect(sys.argv[1])\n"
            "b=json.dumps({'type':'hello','secret':sys.argv[2]}).encode()\n"
            "s.sendall(struct.pack('>I',len(b))+b);s.recv(4096)\n"
            "s.sendall(struct.pack('>I',1000)+b'{\"type\":');print('sent',flush=True)\n"
            "time.sleep(60)\n")
        child = subprocess.Popen([sys.executable, "-c", script, str(path), sb],
                                 stdout=subprocess.PIPE)
        try:
            assert child.stdout is not None
            line = await asyncio.to_thread(child.stdout.readline)
            assert line == b"sent\n"
            await until(lambda: rec.connects == [BOB], "bob's connection")
            child.kill()
        finally:
            child.wait()
        await until(lambda: rec.disconnects == [BOB], "bob's disconnection")
        # A failing handler is logged; the connection and the server go on.
        alice = await connect(path, sa)
        await alice.send({"type": "crash"})
        await alice.send({"type": "ping"})
        assert await alice.receive() == {"type": "ping", "echo": True}
        # Bob comes back with the same secret (reconnecting).
        bob = await connect(path, sb)
        await bob.send({"type": "ping"})
        assert await bob.receive() == {"type": "ping", "echo": True}
        assert rec.connects == [BOB, ALICE, BOB]
        for c in (alice, bob):
            await c.close()
        await rec.server.close()

    run(main())


def test_reconnect_with_the_same_secret_replaces_the_old_connection(tmp_path: Path) -> None:
    async def main() -> None:
        rec = Recorder()
        path = socket_path(tmp_path)
        await rec.server.start(path)
        secret = new_secret()
        rec.server.register(secret, ALICE)
        first = await connect(path, secret)
        second = await connect(path, secret)  # e.g. the old one is half-dead
        assert await first.receive() is None  # the older connection was closed
        await second.send({"type": "ping"})
        assert await second.receive() == {"type": "ping", "echo": True}
        assert rec.disconnects == []  # replaced, not gone
        # The server drops the connection (without forgetting the secret): reconnect.
        rec.server.disconnect(ALICE)
        assert await second.receive() is None
        await until(lambda: rec.disconnects == [ALICE], "the disconnection")
        await second.reconnect()
        assert second.connected and rec.connects == [ALICE, ALICE, ALICE]
        await second.send({"type": "ping", "n": 2})
        assert await second.receive() == {"type": "ping", "n": 2, "echo": True}
        # Once the session has ended its secret is refused.
        rec.server.unregister(secret)
        with pytest.raises(Refused):
            await second.reconnect()
        await rec.server.close()
        # Nobody listening: reconnect gives up after its attempts.
        client = WireClient(path, secret)
        with pytest.raises(OSError):
            await client.reconnect(attempts=2, delay=0.01)

    run(main())


def test_a_client_that_does_not_read_is_cut_off(tmp_path: Path) -> None:
    async def main() -> None:
        rec = Recorder(max_buffered=64 * 1024)
        path = socket_path(tmp_path)
        await rec.server.start(path)
        secret = new_secret()
        rec.server.register(secret, ALICE)
        client = await connect(path, secret)
        await until(lambda: rec.connects, "the connection")
        sent = 0
        while rec.server.send(ALICE, {"type": "spam", "pad": "x" * 4000}):
            sent += 1
            assert sent < 10_000
        assert sent > 10
        await until(lambda: rec.disconnects == [ALICE], "the cut-off")
        await client.close()
        await rec.server.close()

    run(main())


def test_a_server_frame_breaking_the_rules_raises_in_the_client(tmp_path: Path) -> None:
    async def main() -> None:
        path = tmp_path / "raw.sock"

        async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await reader.readexactly(4)
            writer.write(encode({"type": "welcome", "player": "p", "version": 1}))
            writer.write(struct.pack(">I", 5) + b"[1,2]")
            await writer.drain()
            await asyncio.sleep(1)
            writer.close()

        fake = await asyncio.start_unix_server(serve, path=str(path))
        client = await connect(path, new_secret())
        with pytest.raises(FrameError):
            await client.receive()
        assert not client.connected
        fake.close()

    run(main())


def test_too_long_socket_path_is_a_clear_error(tmp_path: Path) -> None:
    async def main() -> None:
        deep = tmp_path / ("d" * 120)
        with pytest.raises(WireError, match="cannot listen"):
            await WireServer(lambda i, m: None).start(socket_path(deep))

    run(main())
