"""``casino-tui serve`` runs the tables: one hub (its saved tables restored at start, its
computers thinking in worker processes, its saves in the data directory) served on the table
channel; each SSH session's game gets a secret of its own in its environment, naming its
player, valid until the session ends."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from serve_support import (
    TITLE,
    Key,
    Server,
    Tmux,
    make_key,
    needs_ssh_tmux,
    ssh_argv,
    wait_until,
)

from casino_tui.procs import TABLE_NICE_ENV, autogroup_nice
from casino_tui.serve.config import ServeConfig
from casino_tui.serve.players import player_id
from casino_tui.serve.server import TABLES_DIR, GameServer
from casino_tui.table import GameConfig, SeatConfig
from casino_tui.table.hub import HubError, Person
from casino_tui.table.remote import hub_from_environment
from casino_tui.table.wire import SECRET_ENV, SOCKET_ENV, Refused, WireClient, socket_path

FINGERPRINT = "SHA256:ann+key/1"


def test_the_server_serves_its_tables_and_restores_them(tmp_path: Path) -> None:
    data = tmp_path / "d"

    # No game process starts here (no fork server); the table's computer moves in the pool.
    async def first() -> str:
        server = GameServer(ServeConfig(data_dir=data, port=0, fork_server=False))
        await server.start()
        try:
            service = server.hub_service
            assert service is not None and service.path == socket_path(data)
            assert stat.S_IMODE(os.stat(service.path.parent).st_mode) == 0o700
            env: dict[str, str] = {}
            secret = server._table_secret(7, FINGERPRINT, env)
            assert secret is not None and env[SECRET_ENV] == secret
            assert env[SOCKET_ENV] == str(socket_path(data))
            # the game at a table runs at most 10 steps below the server (19 for the others)
            group = autogroup_nice()
            if group is not None:
                assert env[TABLE_NICE_ENV] == str(min(19, group + 10))
            hub = await hub_from_environment(env)
            assert hub is not None and hub.player == player_id(FINGERPRINT)
            ann = Person("", "Ann")
            seats = (SeatConfig("South", True), SeatConfig("North", False, "easy"))
            info = await hub.create_table(GameConfig(players=2, seats=seats, seed=3), ann)
            await hub.start(info.table_id, ann)
            assert server.hub is not None
            ctl = server.hub.controller(info.table_id)
            # The computer moves in a worker process of the hub, never in the server's.
            await asyncio.wait_for(server.hub.idle(info.table_id), 60)
            view = await hub.snapshot(info.table_id, ann)
            await hub.submit_move(info.table_id, ann, 0, view.seat_view().legal_moves()[0])
            await asyncio.wait_for(server.hub.idle(info.table_id), 60)
            assert any(e.kind == "move" and e.seat == 1 for e in ctl.events)
            assert multiprocessing.active_children(), "no worker process"
            assert server.pool is not None and server.pool.size >= 2
            # The session ends: its secret no longer opens the channel.
            await service.end_session(secret)
            await asyncio.wait_for(_closed(hub), 10)
            with pytest.raises(Refused):
                await WireClient.connect(socket_path(data), secret)
            assert server.hub.controller(info.table_id).seats[0].away_since is not None
            return info.table_id
        finally:
            await server.close()
            assert server.hub is None and not socket_path(data).exists()

    async def second(table_id: str) -> None:
        server = GameServer(ServeConfig(data_dir=data, port=0, fork_server=False))
        await server.start()
        try:
            assert server.hub is not None and server.hub.table_ids() == [table_id]
            env: dict[str, str] = {}
            server._table_secret(8, FINGERPRINT, env)
            hub = await hub_from_environment(env)
            assert hub is not None
            # Back at her seat of the restored table, at the position it was saved in.
            assert await hub.come_back(table_id, Person("", "Ann")) == 0
            view = await hub.snapshot(table_id, Person("", "Ann"))
            assert view.seat == 0 and len(view.hand) >= 1
            await hub.close()
        finally:
            await server.close()

    table_id = asyncio.run(asyncio.wait_for(first(), 120))
    saves = list((data / TABLES_DIR / "games").glob("*.json"))
    assert len(saves) == 1 and table_id in saves[0].read_text()
    asyncio.run(asyncio.wait_for(second(table_id), 120))


async def _closed(hub: object) -> None:
    while not getattr(hub, "closed", False):
        await asyncio.sleep(0.02)


def test_a_server_without_a_usable_table_socket_still_serves(tmp_path: Path) -> None:
    """A socket path too long for a Unix socket: logged, the tables stay closed, the games
    still start (with no table channel in their environment)."""
    data = tmp_path / ("d" * 120)

    async def main() -> None:  # (no game starts, no computer moves: neither is started)
        server = GameServer(ServeConfig(data_dir=data, port=0, fork_server=False,
                                        computers=0))
        await server.start()
        try:
            assert server.hub is None and server.hub_service is None
            env: dict[str, str] = {}
            assert server._table_secret(1, FINGERPRINT, env) is None and env == {}
            with pytest.raises(HubError, match="cannot be reached"):
                await hub_from_environment({SOCKET_ENV: str(socket_path(data)),
                                            SECRET_ENV: "s" * 40})
        finally:
            await server.close()

    asyncio.run(asyncio.wait_for(main(), 60))


# ====================================================================== over SSH
@pytest.fixture
def key(tmp_path: Path) -> Key:
    return make_key(tmp_path, "alice")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    s = Server(tmp_path / "data")
    yield s
    s.stop()


def environ(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return dict(item.decode().split("=", 1) for item in raw if b"=" in item)


@needs_ssh_tmux
def test_each_session_gets_a_secret_of_its_own(tmp_path: Path, key: Key) -> None:
    # The game's environment is read from /proc/PID/environ, which shows the environment a
    # process was started with: for a game forked from the fork server, the fork server's
    # (tests/test_serve_fork.py checks that a forked game gets exactly its environment).
    server = Server(tmp_path / "data", "--no-fork-server")
    server.wait_log(r"tables: 0 restored")
    tmux = Tmux(tmp_path)
    try:
        tmux.start("a", ssh_argv(server.port, key, "-t"), 100, 30)
        tmux.wait_for("a", TITLE, timeout=30)
        pid = server.session_pid(key)
        env = environ(pid)
        secret = env[SECRET_ENV]
        assert env[SOCKET_ENV] == str(socket_path(server.data_dir))
        assert secret not in Path(f"/proc/{pid}/cmdline").read_text()

        async def speak() -> str:
            client = await WireClient.connect(Path(env[SOCKET_ENV]), secret)
            player = client.player
            await client.close()
            return player

        assert asyncio.run(speak()) == player_id(key.fingerprint)
        tmux.send("a", "q")
        assert tmux.wait_exit("a") == 0
        server.wait_log(rf"session 1 end: player {re.escape(key.fingerprint)}")

        async def refused() -> bool:
            try:
                await WireClient.connect(Path(env[SOCKET_ENV]), secret)
            except Refused:
                return True
            return False

        wait_until(lambda: asyncio.run(refused()), 10, "the secret to be forgotten")
    finally:
        tmux.close()
        server.stop()
    assert "Traceback" not in server.log()
