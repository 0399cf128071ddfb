"""``casino-tui serve --store``: two real servers on loopback share one PostgreSQL, and real
``ssh`` clients play on them (a solo game started on one host goes on on the other, with the
player's name, settings and statistics; a second connection takes over across hosts; a store
that is away refuses logins and everything resumes when it is back)."""

from __future__ import annotations

import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from pg_support import PgCluster
from serve_support import (
    LOGO_ASCII_TOP,
    SOUTH_MOVED,
    TITLE,
    Key,
    Server,
    Tmux,
    hand_cards,
    make_key,
    needs_ssh_tmux,
    player_dir,
    ssh_argv,
    wait_until,
)
from stats_support import record, write_ledger

pytest.importorskip("psycopg")

from casino_tui.saves.storestatus import STATUS_FILE
from casino_tui.settings import SETTINGS_FILE, Settings
from casino_tui.stats.daily import daily_ranking


@pytest.fixture
def keys(tmp_path: Path) -> dict[str, Key]:
    return {name: make_key(tmp_path, name) for name in ("alice", "bob")}


def host(servers: list[Server], tmp_path: Path, name: str, url: str) -> Server:
    (tmp_path / name).mkdir(exist_ok=True)
    server = Server(tmp_path / name / "data", "--store", url, "--host-name", name,
                    log_name=f"{name}.log")
    servers.append(server)
    return server


def store_rows(url: str, sql: str, *params: object) -> list[Any]:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        return conn.execute(sql, params).fetchall()  # type: ignore[arg-type]


def new_game_and_one_move(tmux: Tmux, name: str) -> list[str]:
    tmux.send(name, "n")
    tmux.wait_for(name, "Preset")
    tmux.send(name, "Enter")
    tmux.wait_for(name, "Your hand", timeout=20)
    tmux.send(name, "s")  # skip the computer's pause
    tmux.wait_for(name, "Your turn", timeout=20)
    tmux.send(name, "Enter")
    tmux.wait_match(name, SOUTH_MOVED)
    hand = hand_cards(tmux.screen(name))
    assert len(hand) == 3, tmux.screen(name)
    return hand


@needs_ssh_tmux
def test_a_player_goes_on_on_another_host(tmp_path: Path, keys: dict[str, Key], tmux: Tmux,
                                          servers: list[Server], pg_url: str) -> None:
    a = host(servers, tmp_path, "host-a", pg_url)
    b = host(servers, tmp_path, "host-b", pg_url)
    for s, name in ((a, "host-a"), (b, "host-b")):
        s.wait_log(rf"store postgresql://postgres@/\S+ as host {name}; schema: players")
    alice = keys["alice"]
    # Alice has a name, and played today's daily deal on host A (her ledger says so)
    mine = player_dir(a.data_dir, alice)
    (mine / "config").mkdir(parents=True)
    (mine / "config" / SETTINGS_FILE).write_text(
        json.dumps(Settings(display_name="Alice").to_dict()), encoding="utf-8")
    today = datetime.now(UTC).date()
    write_ledger(mine / "data", [record(1, "win", scores=(23, 12), daily=today)])
    tmux.start("a", ssh_argv(a.port, alice), 100, 30)
    tmux.wait_for("a", TITLE)
    tmux.send("a", "s")  # ASCII cards: her settings change on host A
    tmux.wait_for("a", "Card style")
    tmux.send("a", "Right", "Enter")
    tmux.wait_for("a", LOGO_ASCII_TOP)
    hand = new_game_and_one_move(tmux, "a")
    # host B ranks her daily deal before she ever came there
    ranked = wait_until(lambda: daily_ranking(b.data_dir / "players", today), 15,
                        "Alice in host B's daily ranking")
    assert [(r.name, r.points) for r in ranked] == [("Alice", 23)]  # type: ignore[attr-defined]
    # She connects to host B while her game on A still runs: B takes over, A hangs up and
    # says why; B opens her game under Continue, with her settings
    tmux.start("b", ssh_argv(b.port, alice), 100, 30)
    fp = re.escape(alice.fingerprint)
    a.wait_log(rf"session 1: player {fp} connected on host host-b: hanging up", 15)
    assert tmux.wait_exit("a") == 1
    assert "You connected again from somewhere else" in tmux.screen("a")
    args = b.wait_log(rf"session 1 start: player {fp} .* args \[([^\]]*)\]", 30).group(1)
    assert "--continue" in args.split()
    tmux.wait_for("b", "Your hand", timeout=20)
    wait_until(lambda: hand_cards(tmux.screen("b")) == hand, 10, f"the hand {hand}",
               detail=lambda: tmux.screen("b"))
    theirs = player_dir(b.data_dir, alice)
    settings = json.loads((theirs / "config" / SETTINGS_FILE).read_text())
    assert settings["display_name"] == "Alice" and settings["card_style"] == "ascii"
    assert (theirs / "data" / "ledger.jsonl").read_bytes() == \
        (mine / "data" / "ledger.jsonl").read_bytes()
    assert json.loads((theirs / "player.json").read_text())["sessions"] == 2
    assert store_rows(pg_url, "select display_name, sessions from players") == [("Alice", 2)]
    # a second connection on B takes over from the first there, as on one host
    tmux.start("b2", ssh_argv(b.port, alice), 100, 30)
    assert tmux.wait_exit("b") == 1
    assert "You connected again from somewhere else" in tmux.screen("b")
    tmux.wait_for("b2", "Your hand", timeout=20)
    tmux.send("b2", "C-q")
    assert tmux.wait_exit("b2") == 0
    b.wait_log(rf"session 2 end: player {fp} .* reason quit")
    assert store_rows(pg_url, "select count(*) from player_sessions") == [(0,)]


@needs_ssh_tmux
def test_a_store_that_is_away_refuses_logins_and_everything_resumes(
        tmp_path: Path, keys: dict[str, Key], tmux: Tmux, servers: list[Server],
        pg_cluster: PgCluster, pg_url: str) -> None:
    a = host(servers, tmp_path, "host-a", pg_url)
    alice, bob = keys["alice"], keys["bob"]
    tmux.start("a", ssh_argv(a.port, alice), 100, 30)
    tmux.wait_for("a", TITLE)
    new_game_and_one_move(tmux, "a")
    games = player_dir(a.data_dir, alice) / "data" / "games"
    away = games.parent / STATUS_FILE
    assert not away.exists()
    pg_cluster.pause()
    try:
        # Alice plays on: her saves are kept here, and she is told
        tmux.wait_for("a", "Your turn", timeout=20)
        tmux.send("a", "Enter")
        wait_until(lambda: len(re.findall(SOUTH_MOVED, tmux.screen("a"))) >= 2, 20,
                   "alice's second move", detail=lambda: tmux.screen("a"))
        wait_until(away.exists, 20, "the status file while the store is away")
        tmux.wait_for("a", "Saved on this server only: it cannot reach its store of",
                      timeout=10)
        started = time.monotonic()
        tmux.start("b", ssh_argv(a.port, bob), 100, 30)
        assert tmux.wait_exit("b", timeout=30) == 1
        waited = time.monotonic() - started
        assert "Nothing is lost: try again in a minute." in tmux.screen("b")
        assert waited < 15, waited  # refused, not hung
        a.wait_log(r"the store postgresql://\S+ is away \(")
        a.wait_log(rf"refused {re.escape(bob.fingerprint)} from \S+: the store is away")
        os.kill(a.proc.pid, signal.SIGUSR1)  # the operator asks
        a.wait_log(r"status: .*refused: .*, store 1; store away\n")
    finally:
        pg_cluster.resume()
    a.wait_log(r"the store postgresql://\S+ is back after \d+ s", 20)
    wait_until(lambda: not away.exists(), 20, "the status file gone once the store is back")
    tmux.wait_for("a", "Saved again: the server has sent your game to its store", timeout=10)
    os.kill(a.proc.pid, signal.SIGUSR1)
    a.wait_log(r"status: .*; store up\n")

    def in_step() -> bool:
        local = {p.relative_to(games.parent.parent).as_posix():
                 hashlib.sha256(p.read_bytes()).hexdigest()
                 for p in games.glob("*.json")}
        stored = dict(store_rows(pg_url, "select path, sha256 from player_files where "
                                 "path like 'data/games/%%' and not deleted"))
        return bool(local) and all(stored.get(k) == v for k, v in local.items())

    wait_until(in_step, 15, "alice's saves sent once the store is back")
    assert store_rows(pg_url, "select count(*) from player_files where path like "
                      "'%%store-away%%'") == [(0,)]  # the status file stays here
    tmux.start("b2", ssh_argv(a.port, bob), 100, 30)
    tmux.wait_for("b2", TITLE, timeout=20)
    for name in ("a", "b2"):
        tmux.send(name, "C-q")


def serve(*args: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "casino_tui", "serve", "--port", "0", *args],
                          capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)


def test_a_bad_store_url_or_an_unreachable_store_stops_the_server(tmp_path: Path) -> None:
    bad = serve("--data-dir", str(tmp_path / "d"), "--store", "mysql://casino:pw@db/casino")
    assert bad.returncode == 2
    assert "--store: 'mysql://casino:***@db/casino' is not a store URL" in bad.stderr
    lonely = serve("--data-dir", str(tmp_path / "d"), "--host-name", "a")
    assert lonely.returncode == 2 and "--host-name needs a store" in lonely.stderr
    away = serve("--data-dir", str(tmp_path / "d"), "--store",
                 f"postgresql://casino:pw@/casino?host={tmp_path}")
    assert away.returncode == 1, away.stderr
    assert "cannot reach the store postgresql://casino:***@/casino" in away.stderr
    assert "the server does not start without its store" in away.stderr
    assert "listening on" not in away.stderr and "pw@" not in away.stderr


def store_cmd(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "casino_tui", "store", *args],
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)


def test_store_migrate_and_import_twice_changes_nothing(tmp_path: Path, pg_url: str) -> None:
    import asyncio

    from casino_tui.serve.players import PlayerDirs
    from casino_tui.store import db
    from casino_tui.store.mirror import PlayerMirror, scan
    from casino_tui.store.tables import SCHEMA as TABLES

    async def pull(mirror: PlayerMirror) -> int:
        conn = await db.connect(pg_url)
        try:
            return await mirror.pull(conn)
        finally:
            await conn.close()

    tables = TABLES.version
    assert store_cmd("migrate", pg_url).stdout.strip() == (
        f"schema: players 0 -> 1, tables 0 -> {tables}")
    assert store_cmd("migrate", pg_url).stdout.strip() == (
        f"schema: players 1 (current), tables {tables} (current)")
    data = tmp_path / "server"
    people = {"SHA256:AAAA": "Ann", "SHA256:BBB+/b": "Bo"}
    for fingerprint, name in people.items():
        dirs = PlayerDirs.for_fingerprint(data, fingerprint)
        dirs.ensure()
        dirs.record_visit(fingerprint)
        (dirs.config / SETTINGS_FILE).write_text(
            json.dumps(Settings(display_name=name).to_dict()), encoding="utf-8")
        write_ledger(dirs.data, [record(1, "win"), record(2, "loss")])
        (dirs.data / "games").mkdir()
        (dirs.data / "games" / "g1.json").write_bytes(b'{"a save": "\xc3\xa9"}')
        (dirs.data / "games" / ".g1.lock").write_bytes(b"")
    (data / "players" / "sha256-stray").mkdir()  # no player.json: said and skipped
    (data / "tables" / "games").mkdir(parents=True)
    (data / "tables" / "games" / "t1.json").write_text("{}")

    first = store_cmd("import", str(data), pg_url)
    assert first.returncode == 0, first.stderr
    assert "imported 2 player(s)" in first.stdout and "6 file(s) added" in first.stdout
    assert "sha256-stray skipped: no readable player.json" in first.stderr
    # t1.json is no table's save: said and skipped (tests/test_store_tables.py imports real ones)
    assert "the tables from" in first.stdout and "0 table(s) and 0 game(s) added; 1 file(s) " \
        "skipped" in first.stdout
    before = store_rows(pg_url, "select player, path, version, sha256 from player_files "
                                "order by 1, 2")
    players = store_rows(pg_url, "select id, fingerprint, display_name, sessions from players "
                                 "order by 1")
    second = store_cmd("import", str(data), pg_url)
    assert second.returncode == 0 and "0 file(s) added, 6 already in the store" in second.stdout
    assert store_rows(pg_url, "select player, path, version, sha256 from player_files "
                              "order by 1, 2") == before
    assert store_rows(pg_url, "select id, fingerprint, display_name, sessions from players "
                              "order by 1") == players
    assert [(f, s) for _id, f, _n, s in players] == [("SHA256:AAAA", 1), ("SHA256:BBB+/b", 1)]
    # nothing lost: every file comes back byte for byte
    for fingerprint in people:
        dirs = PlayerDirs.for_fingerprint(data, fingerprint)
        stored = dict(store_rows(pg_url, "select path, content from player_files where "
                                 "player = %s", dirs.root.name))
        assert sorted(stored) == sorted(scan(dirs.root))
        for rel, content in stored.items():
            assert bytes(content) == (dirs.root / rel).read_bytes()
        # and a new host gets them all at the player's login
        mirror = PlayerMirror(dirs.root.name, tmp_path / "new-host" / dirs.root.name,
                              tmp_path / "new-host-store" / "m.json", "new-host")
        assert asyncio.run(pull(mirror)) == len(stored)
        for rel in stored:
            assert (mirror.root / rel).read_bytes() == (dirs.root / rel).read_bytes()


def test_store_command_errors_are_clear(tmp_path: Path) -> None:
    out = store_cmd("import", str(tmp_path), "postgresql://u@/db?host=/nowhere")
    assert out.returncode == 2 and "has no players/ directory" in out.stderr
    out = store_cmd("migrate", "sqlite:///x")
    assert out.returncode == 2 and "is not a store URL" in out.stderr
    out = store_cmd("migrate", f"postgresql://u@/db?host={tmp_path}")
    assert out.returncode == 1 and "cannot reach the store" in out.stderr


@needs_ssh_tmux
def test_a_host_that_hangs_loses_its_player_to_another_host(
        tmp_path: Path, keys: dict[str, Key], tmux: Tmux, servers: list[Server],
        pg_url: str) -> None:
    a = host(servers, tmp_path, "host-a", pg_url)
    b = host(servers, tmp_path, "host-b", pg_url)
    alice = keys["alice"]
    tmux.start("a", ssh_argv(a.port, alice), 100, 30)
    tmux.wait_for("a", TITLE)
    hand = new_game_and_one_move(tmux, "a")
    games = player_dir(a.data_dir, alice) / "data" / "games"
    wait_until(lambda: store_rows(pg_url, "select count(*) from player_files where path like "
                                  "'data/games/%%.json'") == [(len(list(games.glob("*.json"))),)],
               10, "alice's saves in the store")
    time.sleep(2)  # the last push after the move
    os.kill(a.proc.pid, signal.SIGSTOP)  # host A hangs (its games too, in effect)
    try:
        started = time.monotonic()
        tmux.start("b", ssh_argv(b.port, alice), 100, 30)
        fp = re.escape(alice.fingerprint)
        b.wait_log(rf"session 1: player {fp} was playing on host host-a: waiting", 15)
        b.wait_log(r"session 1: host host-a (is gone|did not hand the player over)", 20)
        tmux.wait_for("b", "Your hand", timeout=30)
        assert time.monotonic() - started < 25
        wait_until(lambda: hand_cards(tmux.screen("b")) == hand, 10, f"the hand {hand}",
                   detail=lambda: tmux.screen("b"))
    finally:
        os.kill(a.proc.pid, signal.SIGCONT)
    # host A wakes up, sees the player is B's now and hangs up its session
    assert tmux.wait_exit("a", timeout=20) == 1
    assert "You connected again from somewhere else" in tmux.screen("a")
    tmux.send("b", "C-q")
    assert tmux.wait_exit("b") == 0


def test_a_browser_session_pulls_and_pushes_like_an_ssh_one(
        tmp_path: Path, pg_cluster: PgCluster, pg_url: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Two servers in one process, each with a web front end: a browser game on host A
    leaves a save; a browser session on host B gets it (and --continue); while the store is
    away a browser is refused with the message, then admitted again."""
    import asyncio

    from casino_tui.serve.config import ServeConfig
    from casino_tui.serve.players import PlayerDirs, player_id
    from casino_tui.serve.server import GameServer
    from casino_tui.web.server import LaunchRefused

    ann = "SHA256:ann+key/1"
    monkeypatch.setattr("casino_tui.serve.players._unfinished_via_saves",
                        lambda data_dir: any((data_dir / "games").glob("*.json")))

    def server(name: str) -> GameServer:
        return GameServer(ServeConfig(data_dir=tmp_path / name, port=0, web_port=0,
                                      hangup_grace=0.5, computers=0, fork_server=False,
                                      store=pg_url, host_name=name))

    async def main() -> None:
        a, b = server("a"), server("b")
        await a.start()
        await b.start()
        try:
            assert a.web_front is not None and b.web_front is not None
            launch = await a.web_front.launch(player_id(ann), 100, 30)
            assert "--continue" not in launch.argv
            mine = PlayerDirs.for_fingerprint(tmp_path / "a", ann)
            (mine.data / "games").mkdir()
            (mine.data / "games" / "x.json").write_text('{"saved": "on a"}')
            assert launch.on_end is not None
            await launch.on_end()  # the app ended: its last files go to the store
            launch = await b.web_front.launch(player_id(ann), 100, 30)
            theirs = PlayerDirs.for_fingerprint(tmp_path / "b", ann)
            assert (theirs.data / "games" / "x.json").read_text() == '{"saved": "on a"}'
            assert launch.argv[-1] == "--continue"
            assert launch.on_end is not None
            await launch.on_end()
            pg_cluster.pause()
            try:
                with pytest.raises(LaunchRefused, match="cannot reach its store of players"):
                    await asyncio.wait_for(b.web_front.launch(player_id(ann), 100, 30), 15)
            finally:
                pg_cluster.resume()
            for _ in range(60):
                try:
                    launch = await b.web_front.launch(player_id(ann), 100, 30)
                    break
                except LaunchRefused:
                    await asyncio.sleep(0.25)
            assert launch.on_end is not None
            await launch.on_end()
        finally:
            await b.close()
            await a.close()

    asyncio.run(main())
