"""Killing the game (SIGKILL) at random moments while it plays and saves never loses or damages
a save: every file on disk loads and replays, and at most the last move is lost.

Two lanes run side by side, each a directory of games. For each of ~200 iterations a child
process (forked, so it starts at once) continues the lane's latest unfinished game (or starts a
new one) and plays random moves, autosaving after each, reporting on a pipe what it applied and
what it saved. It is killed either by the parent after a random delay, or by itself at a random
step of the saving code (in the middle of writing the temporary file, before or after an fsync,
a link or the rename). After each death the parent opens the lane as a new run of the app would
and checks every file.
"""

from __future__ import annotations

import hashlib
import os
import random
import re
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from saves_support import random_move

from casino_tui.engine import Move, Rules, State
from casino_tui.saves import SaveStore, Seat

ITERATIONS = 200
PARALLEL = 2
MAX_DELAY = 0.09  # seconds before the parent kills a child
LANES = (
    (Rules.preset("classic", target=11),
     (Seat.human("Ann"), Seat.computer("Bob", "medium"))),
    (Rules.preset("classic", target=11),
     (Seat.human("S"), Seat.computer("W", "easy"), Seat.human("N"),
      Seat.computer("E", "hard"))),
)
pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork()")
HOOKED = ("write", "fsync", "replace", "link", "open")
ALLOWED = re.compile(r"""(
      [\w.-]+\.json               # games (and damaged copies)
    | [\w.-]+\.json\.bak          # backups
    | \.[\w.-]+\.lock             # locks
    | \.[\w.-]+\.json(\.bak)?\.tmp  # writes cut short by a kill
    | \.verified\.json(\.[\w.]+\.tmp)?
)""", re.X)


# ----------------------------------------------------------------------------- the child
def _child(root: Path, lane: int, iteration: int, self_kill: bool, fd: int) -> None:
    """Play and autosave until killed (runs in the forked child; never returns)."""
    try:
        raw_write = os.write

        def report(text: str) -> None:
            raw_write(fd, (text + "\n").encode())

        rng = random.Random(f"kill/{lane}/{iteration}")
        if self_kill:
            countdown = [rng.randrange(1, 45)]

            def hook(name: str, real: Callable[..., Any]) -> Callable[..., Any]:
                def call(*args: Any) -> Any:
                    countdown[0] -= 1
                    if countdown[0] == 0:
                        report(f"K {name}")
                        if name == "write" and len(args[1]) > 1:  # die half-way through
                            real(args[0], bytes(args[1][: len(args[1]) // 2]))
                        elif name in ("replace", "link") and rng.random() < 0.5:
                            real(*args)  # die just after it
                        os.kill(os.getpid(), signal.SIGKILL)
                    return real(*args)
                return call

            for name in HOOKED:
                setattr(os, name, hook(name, getattr(os, name)))
        rules, seats = LANES[lane]
        store = SaveStore(root)
        while True:
            entry = store.latest_unfinished()
            if entry is not None:
                game = store.load(entry)
                state, slot = game.state, game.slot
                assert slot is not None
            else:
                state = State(rules, len(seats), rng.randrange(10**6))
                slot = store.new_game(seats)
            report(f"G {slot.game_id} {len(state.history)}")
            store.autosave(slot, state)  # the app saves when a game starts or resumes
            report(f"S {len(state.history)}")
            while not state.is_game_over:
                random_move(state, rng)
                report(f"A {len(state.history)}")
                store.autosave(slot, state)
                report(f"S {len(state.history)}")
            store.close(slot)
    except BaseException as e:  # pragma: no cover - reported to the parent
        raw_write(fd, f"E {type(e).__name__}: {e}\n".encode())
    finally:
        os._exit(0)


# ----------------------------------------------------------------------------- the parent
@dataclass
class Lane:
    root: Path
    games: dict[str, tuple[str, list[Move]]] = field(default_factory=dict)  # id: digest, moves


@dataclass
class Report:
    game: str | None = None  # the last game the child opened
    opened: int = 0  # moves of that game when opened
    applied: int | None = None  # moves after the last move it applied
    saved: int | None = None  # moves in its last completed autosave
    killed_at: str | None = None
    error: str | None = None


def _parse(text: str) -> Report:
    rep = Report()
    for line in text.splitlines()[: -1 if text and not text.endswith("\n") else None]:
        tag, _, rest = line.partition(" ")
        if tag == "G":
            name, count = rest.rsplit(" ", 1)
            rep = Report(game=name, opened=int(count), killed_at=rep.killed_at)
        elif tag == "A":
            rep.applied = int(rest)
        elif tag == "S":
            rep.saved = int(rest)
        elif tag == "K":
            rep.killed_at = rest
        elif tag == "E":  # pragma: no cover - a failure
            rep.error = rest
    return rep


def _check_lane(lane: Lane, rep: Report) -> None:
    """Check every file of the lane after a kill, and what the child reported."""
    assert rep.error is None, rep.error
    names = os.listdir(lane.root) if lane.root.exists() else []
    strange = [n for n in names if not ALLOWED.fullmatch(n)]
    assert not strange, strange
    store = SaveStore(lane.root)  # a new run of the app
    entries = {e.game_id: e for e in store.entries()}
    for e in entries.values():
        assert e.ok and not e.from_backup and not e.in_use, e
    assert set(lane.games) <= set(entries), "a game disappeared"
    for gid, e in entries.items():
        raw = e.path.read_bytes()
        digest = hashlib.sha256(raw).hexdigest()
        if gid in lane.games and lane.games[gid][0] == digest:
            continue
        moves = store.load(e, read_only=True).state.history
        old = lane.games.get(gid, ("", []))[1]
        assert moves[: len(old)] == old, "a saved move changed"
        bak = e.path.with_name(e.path.name + ".bak")
        if bak.exists():
            prev = store.load(bak, read_only=True).state.history
            assert moves[: len(prev)] == prev and len(moves) - len(prev) <= 1
        lane.games[gid] = (digest, moves)
    if rep.game is None:
        return
    if rep.game not in entries:  # killed before its first save completed
        assert rep.saved is None and rep.opened == 0
        return
    on_disk = len(lane.games[rep.game][1])
    applied = rep.applied if rep.applied is not None else rep.opened
    assert on_disk >= applied - 1, "more than the last move was lost"
    assert on_disk <= max(applied, rep.opened)
    if rep.saved is not None:
        assert on_disk >= rep.saved, "a completed save was lost"


def _read_all(fd: int) -> str:
    chunks = []
    while True:
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(fd)
    return b"".join(chunks).decode()


def test_kill_during_play_and_saving(tmp_path: Path) -> None:
    rng = random.Random(2024)
    lanes = [Lane(tmp_path / f"lane{i}") for i in range(PARALLEL)]
    active: dict[int, tuple[int, int, float, bool]] = {}  # pid: lane, read end, deadline, self
    started = 0
    finished = 0
    killed_at: set[str] = set()
    t0 = time.monotonic()
    while finished < ITERATIONS:
        busy = {lane for lane, *_ in active.values()}
        for i in range(PARALLEL):
            if i in busy or started >= ITERATIONS:
                continue
            self_kill = started % 2 == 1
            r, w = os.pipe()
            pid = os.fork()
            if pid == 0:  # pragma: no cover - the child
                os.close(r)
                _child(lanes[i].root, i, started, self_kill, w)
            os.close(w)
            delay = 3.0 if self_kill else rng.uniform(0, MAX_DELAY)
            active[pid] = (i, r, time.monotonic() + delay, self_kill)
            started += 1
        # the next child to end: killed at its deadline, or dead by its own hand
        pid = min(active, key=lambda p: active[p][2])
        lane_no, r, deadline, self_kill = active[pid]
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            if time.monotonic() >= deadline:
                os.kill(pid, signal.SIGKILL)
                _, status = os.waitpid(pid, 0)
                break
            time.sleep(0.002)
        del active[pid]
        assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
        rep = _parse(_read_all(r))
        if self_kill and rep.killed_at:
            killed_at.add(rep.killed_at)
        _check_lane(lanes[lane_no], rep)
        finished += 1
    elapsed = time.monotonic() - t0
    # the kills landed everywhere in the saving code, and the games did move on
    assert killed_at >= {"write", "fsync", "replace", "link"}, killed_at
    moves = sum(len(m) for lane in lanes for _digest, m in lane.games.values())
    assert all(lane.games for lane in lanes) and moves > ITERATIONS, moves
    assert elapsed < 50, elapsed


@pytest.mark.parametrize("text", ["G g1 3\nA 4\nS 4\nA 5\n", "G g1 3\nA 4\nS 4\nA 5\nS 5"])
def test_reports_are_read_up_to_the_last_whole_line(text: str) -> None:
    rep = _parse(text)
    assert (rep.game, rep.opened, rep.applied, rep.saved) == ("g1", 3, 5, 4)
