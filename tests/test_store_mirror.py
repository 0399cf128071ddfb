"""A player's files mirrored with the store (casino_tui/store/mirror.py), against a real
PostgreSQL: push and pull, versions, tombstones, merged ledgers, never half a file."""

from __future__ import annotations

import asyncio
import fcntl
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

import pytest

pytest.importorskip("psycopg")

from casino_tui.store import db
from casino_tui.store import players as P
from casino_tui.store.mirror import LEDGER, PlayerMirror, merge_ledgers, scan
from casino_tui.store.schemas import all_schemas

T = TypeVar("T")
PLAYER = "sha256-AbCdEf"


def run(url: str, work: Callable[[db.Conn], Awaitable[T]]) -> T:
    async def go() -> T:
        conn = await db.connect(url)
        try:
            await db.migrate(conn, all_schemas())
            await P.ensure(conn, PLAYER, "SHA256:AbCdEf")
            return await work(conn)
        finally:
            await conn.close()

    return asyncio.run(go())


def host(tmp_path: Path, name: str) -> PlayerMirror:
    root = tmp_path / name / "players" / PLAYER
    (root / "data" / "games").mkdir(parents=True)
    (root / "config").mkdir()
    return PlayerMirror(PLAYER, root, tmp_path / name / "store" / f"{PLAYER}.json", name)


def write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_files_pushed_on_one_host_are_pulled_on_another(pg_url: str, tmp_path: Path) -> None:
    a, b = host(tmp_path, "a"), host(tmp_path, "b")
    write(a.root, "data/games/g1.json", '{"game": 1}')
    write(a.root, "config/settings.json", '{"display_name": "Ann"}')
    write(a.root, LEDGER, '{"game":"g0","result":"win"}\n')
    # locks, temporary files and caches stay on their host
    write(a.root, "data/games/.g1.lock", "")
    write(a.root, "data/games/.g1.json.tmp", "half a fi")
    write(a.root, "config/settings.tmp", "{")
    write(a.root, "data/games/.verified.json", "{}")
    os.utime(a.root / "data/games/g1.json", ns=(1_700_000_000_123_456_789,) * 2)

    assert run(pg_url, lambda c: a.push(c, force=True)) == 3
    assert run(pg_url, lambda c: a.push(c, force=True)) == 0  # nothing changed
    assert run(pg_url, b.pull) == 3
    assert sorted(scan(b.root)) == ["config/settings.json", "data/games/g1.json", LEDGER]
    assert (b.root / "data/games/g1.json").read_text() == '{"game": 1}'
    # the mtime travels with the file (the saves list orders games by it)
    assert (b.root / "data/games/g1.json").stat().st_mtime_ns == 1_700_000_000_123_456_789
    assert not list((b.root / "data/games").glob(".*"))  # no temporary file left behind
    row = run(pg_url, lambda c: P.get_player(c, PLAYER))
    assert row is not None and row.display_name == "Ann"
    assert run(pg_url, b.pull) == 0  # in step


def test_versions_grow_and_the_newer_file_wins(pg_url: str, tmp_path: Path) -> None:
    a, b = host(tmp_path, "a"), host(tmp_path, "b")
    write(a.root, "data/games/g1.json", "one")
    run(pg_url, lambda c: a.push(c, force=True))
    first = run(pg_url, lambda c: P.files(c, PLAYER))["data/games/g1.json"].version
    run(pg_url, b.pull)
    write(b.root, "data/games/g1.json", "two, on b")
    run(pg_url, lambda c: b.push(c, force=True))
    second = run(pg_url, lambda c: P.files(c, PLAYER))["data/games/g1.json"].version
    assert second > first
    # a, unchanged since it was in step, takes b's version
    assert run(pg_url, a.pull) == 1
    assert (a.root / "data/games/g1.json").read_text() == "two, on b"
    # a host that did not play the player since cannot overwrite it unforced: another wrote
    write(b.root, "data/games/g1.json", "three, on b")
    run(pg_url, lambda c: b.push(c, force=True))
    write(a.root, "data/games/g1.json", "stale, on a")
    os.utime(a.root / "data/games/g1.json", ns=(1_000_000_000,) * 2)
    assert run(pg_url, lambda c: a.push(c, force=False)) == 0
    assert run(pg_url, a.pull) == 1  # the store's is newer (by its mtime): it wins here
    assert (a.root / "data/games/g1.json").read_text() == "three, on b"


def test_a_deleted_file_is_deleted_on_every_host(pg_url: str, tmp_path: Path) -> None:
    a, b = host(tmp_path, "a"), host(tmp_path, "b")
    write(a.root, "data/games/g1.json", "one")
    write(a.root, "data/games/g2.json", "two")
    run(pg_url, lambda c: a.push(c, force=True))
    run(pg_url, b.pull)
    (a.root / "data/games/g1.json").unlink()
    assert run(pg_url, lambda c: a.push(c, force=True)) == 1
    meta = run(pg_url, lambda c: P.files(c, PLAYER))["data/games/g1.json"]
    assert meta.deleted  # a tombstone, no content
    assert run(pg_url, lambda c: P.contents(c, PLAYER, ["data/games/g1.json"])) == {}
    assert run(pg_url, b.pull) == 1
    assert sorted(scan(b.root)) == ["data/games/g2.json"]
    # a new host never sees the deleted file
    c_host = host(tmp_path, "c")
    run(pg_url, c_host.pull)
    assert sorted(scan(c_host.root)) == ["data/games/g2.json"]


def test_a_ledger_changed_on_two_hosts_keeps_every_game(pg_url: str, tmp_path: Path) -> None:
    a, b = host(tmp_path, "a"), host(tmp_path, "b")
    write(a.root, LEDGER, "g1\n")
    run(pg_url, lambda c: a.push(c, force=True))
    run(pg_url, b.pull)
    write(a.root, LEDGER, "g1\ng2-on-a\n")
    run(pg_url, lambda c: a.push(c, force=True))
    write(b.root, LEDGER, "g1\ng3-on-b\n")  # b could not push it (the store was away)
    run(pg_url, b.pull)
    assert (b.root / LEDGER).read_text() == "g1\ng2-on-a\ng3-on-b\n"
    run(pg_url, lambda c: b.push(c, force=False))
    run(pg_url, a.pull)
    assert (a.root / LEDGER).read_text() == "g1\ng2-on-a\ng3-on-b\n"
    assert merge_ledgers(b"x\n", b"x\ny") == b"x\ny\n"


def test_a_ledger_being_appended_is_not_read(pg_url: str, tmp_path: Path) -> None:
    a = host(tmp_path, "a")
    write(a.root, LEDGER, "g1\n")
    fd = os.open(a.root / "data/.ledger.lock", os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # the game is appending
        assert run(pg_url, lambda c: a.push(c, force=True)) == 0
    finally:
        os.close(fd)
    assert run(pg_url, lambda c: a.push(c, force=True)) == 1


def test_the_manifest_survives_a_restart_of_the_server(pg_url: str, tmp_path: Path) -> None:
    a = host(tmp_path, "a")
    write(a.root, "data/games/g1.json", "one")
    run(pg_url, lambda c: a.push(c, force=True))
    again = PlayerMirror(PLAYER, a.root, a.manifest_path, "a")
    assert run(pg_url, lambda c: again.push(c, force=False)) == 0
    assert run(pg_url, again.pull) == 0


def test_a_pulled_file_is_never_seen_half_written(pg_url: str, tmp_path: Path) -> None:
    """A reader of the file (the game) sees the old version or the new one, never a mix."""
    import threading

    a, b = host(tmp_path, "a"), host(tmp_path, "b")
    versions = [bytes([65 + i]) * 3_000_000 for i in range(4)]  # 3 MB each: many writes
    seen: set[bytes] = set()
    stop = threading.Event()
    target = b.root / "data/games/big.json"

    def read() -> None:
        while not stop.is_set():
            try:
                content = target.read_bytes()
            except FileNotFoundError:
                continue
            seen.add(content[:1] + content[-1:] + str(len(content)).encode())

    reader = threading.Thread(target=read)
    reader.start()
    try:
        for content in versions:
            write(a.root, "data/games/big.json", content.decode())
            run(pg_url, lambda c: a.push(c, force=True))
            assert run(pg_url, b.pull) == 1
    finally:
        stop.set()
        reader.join()
    whole = {v[:1] + v[-1:] + str(len(v)).encode() for v in versions}
    assert seen and seen <= whole, seen - whole


def test_a_path_from_the_store_never_leaves_the_players_directory(pg_url: str,
                                                                   tmp_path: Path) -> None:
    b = host(tmp_path, "b")

    async def plant(conn: db.Conn) -> None:
        for rel in ("data/../../evil.json", "/etc/evil", "config/.hidden", "other/x.json",
                    "data/games/ok.json"):
            await P.put(conn, PLAYER, rel, b"x", sha256="", size=1, mtime_ns=0, expected=0,
                        host="a", force=True)

    run(pg_url, plant)
    assert run(pg_url, b.pull) == 1
    assert sorted(scan(b.root)) == ["data/games/ok.json"]
    assert not (tmp_path / "b" / "evil.json").exists()
