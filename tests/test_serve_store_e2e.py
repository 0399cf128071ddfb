"""Three ``casino-tui serve`` processes on loopback ports share one PostgreSQL (issue 28):
Ann creates a table on host A, Bob joins it by its code on host B, and they play with real
``ssh`` clients in tmux; host A, which runs the table, is killed (SIGKILL) mid-round; host B or
C takes the table over, Bob plays on where he was, Ann logs in again on host C and finds her
seat and her hand as they were, and the round finishes. Every screen is checked against the
table's saved game in the store (the save format, written after every move) and shows no card
of another hand."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
import test_serve_tables_e2e as e2e
from serve_support import Server, Tmux, a_person_reacts, make_key, needs_ssh_tmux, wait_until
from test_serve_tables_e2e import (
    YOUR_TURN,
    Player,
    create_table,
    join_by_code,
    play_turns,
    start,
    whose_turn,
)

from casino_tui.engine import Phase, State
from casino_tui.store.docs import load_document

pytestmark = needs_ssh_tmux

def stored_state(url: str) -> State:
    """The game of the store's one open table, as its owner saved it last."""
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute(
            "select g.game_id, g.doc from casino_tables t join casino_table_games g "
            "using (game_id) where not t.closed").fetchone()
    assert row is not None
    return load_document(row[0], row[1]).state


def descendants(pid: int) -> set[int]:
    """The processes under ``pid`` (to clean up after a SIGKILL leaves them)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            children.setdefault(ppid, []).append(int(entry.name))
    out: set[int] = set()
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in out:
                out.add(child)
                todo.append(child)
    return out


def back_on(player: Player, port: int) -> None:
    """The player logs in on another host and is taken back to their table at once, as on
    the host they left (naming themselves first if that host asks)."""
    player.connect(port)
    wait_until(lambda: re.search("Your hand|Your display name", player.screen()), 30,
               f"{player.name} back at the table", detail=player.screen)
    if "Your hand" not in player.screen():
        player.type(player.name)
        player.send("Enter")
    player.wait_for("Your hand", timeout=30)
    a_person_reacts()


@pytest.fixture
def leftovers() -> Iterator[set[int]]:
    """Processes a killed server left behind: killed at the end."""
    found: set[int] = set()
    yield found
    for pid in found:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def test_three_hosts_one_store_the_owner_killed_mid_round(
        tmux: Tmux, tmp_path: Path, servers: list[Server], pg_url: str,
        monkeypatch: pytest.MonkeyPatch, leftovers: set[int]) -> None:
    monkeypatch.setattr(e2e, "saved_state", lambda data, scratch: stored_state(pg_url))
    hosts = []
    for name in ("A", "B", "C"):
        server = Server(tmp_path / f"data-{name}", "--rate-limit", "0", "--no-fork-server",
                        "--computers", "0", "--store", pg_url, "--host-name", f"host-{name}",
                        log_name=f"server-{name}.log")
        servers.append(server)
        server.wait_log(r"tables: shared in the store")
        hosts.append(server)
    a, b, c = hosts

    ann = Player(tmux, make_key(tmp_path, "ann"), "Ann")
    bob = Player(tmux, make_key(tmp_path, "bob"), "Bob")
    code = create_table(ann, a.port)
    join_by_code(bob, b.port, code, seat=1)
    start(ann, bob)
    scratch = tmp_path / "copy"
    played = play_turns([ann, bob], a.data_dir, scratch, moves=3)
    assert played == 3
    mover = whose_turn([ann, bob])
    assert mover is not None
    before = stored_state(pg_url)
    hands = {p.name: p.hand() for p in (ann, bob)}

    leftovers |= descendants(a.proc.pid)
    a.proc.send_signal(signal.SIGKILL)  # the owner dies: no goodbye, no last write
    killed = time.monotonic()
    a.proc.wait()
    tmux.wait_exit(ann.pane)
    found = wait_until(lambda: re.search(r"took over table \w+ .* at move (\d+)",
                                         b.log() + c.log()), 15, "a takeover",
                       detail=lambda: b.log() + c.log())
    assert isinstance(found, re.Match)
    took = time.monotonic() - killed
    assert took < 10, took
    assert int(found.group(1)) == len(before.history)

    # Ann logs in again, on host C: her seat, her hand (her name is asked: C is new to her)
    back_on(ann, c.port)
    wait_until(lambda: ann.hand() == hands["Ann"], 15, "Ann's hand", detail=ann.screen)
    wait_until(lambda: bob.hand() == hands["Bob"], 15, "Bob's hand", detail=bob.screen)
    mover.wait_for(YOUR_TURN, timeout=20)
    after = stored_state(pg_url)
    assert after.history == before.history
    played += play_turns([ann, bob], a.data_dir, scratch, moves=1000)
    final = stored_state(pg_url)
    assert final.phase in (Phase.ROUND_OVER, Phase.GAME_OVER)
    assert played == len(final.history), (played, len(final.history))
    for p in (ann, bob):
        p.wait_for("Round 1 summary")
