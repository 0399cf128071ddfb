"""Killing the game (SIGKILL) at random moments while it plays and saves never loses or damages
a save: every file on disk loads and replays, and at most the last move is lost.

Two lanes run side by side, each a directory of games. For each of the 300 iterations a child
process (forked, so it starts at once) plays as the app does, through the app's own code
without Textual (``casino_tui.app.session``): it continues the lane's latest unfinished game
(``latest_unfinished``, ``load``, ``loaded_config``, ``rebuild_log``) or starts a new one
(``save_seats``, ``new_game``), plays random moves with ``GameSession.apply`` and
``next_round``, and saves after the deal, every move and every new round with the game
screen's ``autosave``. It reports on a pipe what it applied and what it saved.

Half of the children are killed by the parent after a random delay. The other half kill
themselves inside the saving code: at the n-th call of one step of a save (creating or writing
or fsyncing the temporary file, linking and renaming the backup, renaming the new version over
the game, fsyncing the folder, creating a new game's lock), just before it, just after it, or
half-way through a write. After each death the parent opens the lane as a new run of the app
would and checks every file, and that this new run swept up the temporary files and the locks
of never-saved games that the killed child left behind (all of them: no process holds them).
The assertion messages say how many kills landed where.
"""

from __future__ import annotations

import hashlib
import os
import random
import re
import signal
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest

from casino_tui.app.cardfmt import CardPainter
from casino_tui.app.session import GameSession
from casino_tui.engine import Move
from casino_tui.saves import SaveStore
from casino_tui.table import (
    GameConfig,
    SeatConfig,
    autosave,
    loaded_config,
    save_seats,
)

ITERATIONS = 300
PARALLEL = 2
MAX_DELAY = 0.09  # seconds before the parent kills a child
SELF_KILL_DEADLINE = 3.0  # a child whose kill point never came is killed by the parent
LANES = (
    GameConfig(preset="classic", players=2, target=11,
               seats=(SeatConfig("Ann", True), SeatConfig("Bob", False, "medium"))),
    GameConfig(preset="classic", players=4, target=11,
               seats=(SeatConfig("S", True), SeatConfig("W", False, "easy"),
                      SeatConfig("N", True), SeatConfig("E", False, "hard"))),
)
pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork()")

# Where a child kills itself: (os function, the file it acts on, moment). The moments:
# "before" the call, "after" it, "half" of the bytes written ("write" only).
KILL_POINTS: tuple[tuple[str, str, str], ...] = (
    ("open", "lock", "after"),  # the lock of a game opened or of a new game's first save
    ("open", "game.tmp", "after"),  # the temporary file created, nothing written
    ("write", "game.tmp", "before"),
    ("write", "game.tmp", "half"),
    ("write", "game.tmp", "after"),
    ("fsync", "game.tmp", "before"),
    ("fsync", "game.tmp", "after"),
    ("link", "backup.tmp", "before"),
    ("link", "backup.tmp", "after"),
    ("replace", "backup", "before"),
    ("replace", "backup", "after"),
    ("replace", "game", "before"),
    ("replace", "game", "after"),
    ("fsync", "folder", "before"),
    ("fsync", "folder", "after"),
)
WRITE = os.O_WRONLY | os.O_RDWR
ALLOWED = re.compile(r"""(
      [\w.-]+\.json               # games (and damaged copies)
    | [\w.-]+\.json\.bak          # backups
    | \.[\w.-]+\.lock             # locks
    | \.[\w.-]+\.json(\.bak)?\.tmp  # writes cut short by a kill
    | \.verified\.json(\.[\w.]+\.tmp)?
)""", re.X)


def _file_kind(path: object) -> str:
    name = os.path.basename(os.fsdecode(path))  # type: ignore[arg-type]
    for suffix, kind in ((".json.bak.tmp", "backup.tmp"), (".json.tmp", "game.tmp"),
                         (".json.bak", "backup"), (".lock", "lock")):
        if name.endswith(suffix):
            return "cache" if name.startswith(".verified") else kind
    if name.endswith(".json"):
        return "cache" if name == ".verified.json" else "game"
    return "folder" if os.path.isdir(os.fsdecode(path)) else "other"  # type: ignore[arg-type]


# ----------------------------------------------------------------------------- the child
def _install_kill_point(point: tuple[str, str, str], nth: int,
                        report: Callable[[str], None]) -> None:
    """Kill this process at the ``nth`` call of ``point``'s os function on its kind of file."""
    op, kind, moment = point
    fds: dict[int, str] = {}  # open file descriptor: the kind of file
    count = [0]

    def die() -> None:
        report(f"K {op} {kind} {moment}")
        os.kill(os.getpid(), signal.SIGKILL)

    def hook(name: str, real: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            if name == "open":
                target = _file_kind(args[0])
            elif name in ("write", "fsync"):
                target = fds.get(args[0], "other")
            else:  # link, replace: the file made
                target = _file_kind(args[1])
            # opening counts when the file is opened to be written (not the reads)
            hit = name == op and target == kind and (op != "open" or args[1] & WRITE)
            if hit:
                count[0] += 1
                hit = count[0] == nth
            if hit and moment == "before":
                die()
            if hit and moment == "half":
                real(args[0], bytes(args[1][: max(1, len(args[1]) // 2)]))
                die()
            result = real(*args, **kwargs)
            if name == "open":
                fds[result] = target
            if hit:
                die()
            return result
        return call

    for name in ("open", "write", "fsync", "link", "replace"):
        setattr(os, name, hook(name, getattr(os, name)))


def _child(root: Path, lane: int, iteration: int, point: tuple[str, str, str] | None,
           nth: int, fd: int) -> None:
    """Play and save as the app does until killed (in the forked child; never returns)."""
    raw_write = os.write

    def report(text: str) -> None:
        raw_write(fd, (text + "\n").encode())

    try:
        report("O")
        rng = random.Random(f"kill/{lane}/{iteration}")
        if point is not None:
            _install_kill_point(point, nth, report)
        store = SaveStore(root)
        painter = CardPainter(symbols=True, four_colour=False)
        while True:
            entry = store.latest_unfinished()
            if entry is not None:  # Continue
                game = store.load(entry)
                session = GameSession(loaded_config(game), game.state, resumed=True)
                session.rebuild_log(painter, game.start_position)
                slot = game.slot
                assert slot is not None
            else:  # New game
                session = GameSession(replace(LANES[lane], seed=rng.randrange(10**6)))
                slot = store.new_game(save_seats(session.config, session.num_players))
            state = session.state
            report(f"G {slot.game_id} {len(state.history)}")
            if not slot.saved:  # the game screen saves a new game right after the deal
                _save(store, slot, session, report)
            while not state.is_game_over:
                if state.is_round_over:
                    session.next_round()  # the round summary was closed
                else:
                    legal = [m for m in state.legal_moves() if m.kind != "claim"]
                    session.apply(rng.choice(legal or state.legal_moves()), painter)
                report(f"A {len(state.history)}")
                _save(store, slot, session, report)
            store.close(slot)  # the game screen closes
    except BaseException as e:  # pragma: no cover - reported to the parent
        raw_write(fd, f"E {type(e).__name__}: {e}\n".encode())
    finally:
        os._exit(0)


def _save(store: SaveStore, slot: Any, session: GameSession,
          report: Callable[[str], None]) -> None:
    notice = autosave(store, slot, session.state)  # what the game screen calls
    if notice is not None:  # pragma: no cover - a failure
        raise AssertionError(f"the game screen would say: {notice.text}")
    report(f"S {len(session.state.history)}")


# ----------------------------------------------------------------------------- the parent
@dataclass
class Lane:
    root: Path
    games: dict[str, tuple[str, list[Move]]] = field(default_factory=dict)  # id: digest, moves
    swept: Counter[str] = field(default_factory=Counter)  # files left by kills, swept up


def _left_behind(names: list[str]) -> list[str]:
    """The temporary files, and the locks of games that have no file."""
    present = set(names)
    return sorted(n for n in names if n.endswith(".tmp") or (
        n.endswith(".lock") and not {f"{n[1:-5]}.json", f"{n[1:-5]}.json.bak"} & present))


@dataclass
class Report:
    game: str | None = None  # the last game the child opened
    opened: int = 0  # moves of that game when opened
    applied: int | None = None  # moves after the last move it applied
    saved: int | None = None  # moves in its last completed autosave
    killed_at: str | None = None
    last: str = ""  # the tag of the last line: where the child was when it died
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
        if tag in ("O", "G", "A", "S"):
            rep.last = tag
    return rep


def _check_lane(lane: Lane, rep: Report) -> None:
    """Check every file of the lane after a kill, and what the child reported."""
    assert rep.error is None, rep.error
    names = os.listdir(lane.root) if lane.root.exists() else []
    strange = [n for n in names if not ALLOWED.fullmatch(n)]
    assert not strange, strange
    left = _left_behind(names)
    store = SaveStore(lane.root)  # a new run of the app
    entries = {e.game_id: e for e in store.entries()}
    # (a child killed before it made its folder leaves none: a loaded machine does that)
    after = os.listdir(lane.root) if lane.root.exists() else []
    assert not _left_behind(after), "a new run left stale files"
    lane.swept.update("lock" if n.endswith(".lock") else "tmp" for n in left)
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
        lane.games[gid] = (digest, list(moves))
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


WHERE_RANDOM = {
    "": "just forked",
    "O": "opening a game (listing, replaying, locking)",
    "G": "a game open: saving a new one, or playing the first move",
    "A": "saving (a move played or a round started, its save not complete)",
    "S": "playing (the last save complete)",
}


def _summary(inside: Counter[str], missed: int, random_kills: Counter[str], moves: int,
             elapsed: float, swept: Counter[str]) -> str:
    lines = [f"{sum(inside.values()) + missed + sum(random_kills.values())} kills in "
             f"{elapsed:.1f} s; {moves} moves saved in all; swept up by the next run: "
             f"{swept['tmp']} temporary files, {swept['lock']} locks of unsaved games",
             f"inside the saving code ({sum(inside.values())}; {missed} never reached their "
             "point, killed by the parent):"]
    lines += [f"  {n:3}  {where}" for where, n in sorted(inside.items())]
    lines.append(f"after a random delay ({sum(random_kills.values())}), where the child was:")
    lines += [f"  {n:3}  {WHERE_RANDOM[tag]}" for tag, n in sorted(random_kills.items())]
    return "\n".join(lines)


def test_kill_during_play_and_saving(tmp_path: Path) -> None:
    rng = random.Random(2024)
    lanes = [Lane(tmp_path / f"lane{i}") for i in range(PARALLEL)]
    active: dict[int, tuple[int, int, float, bool]] = {}  # pid: lane, read end, deadline, self
    started = finished = missed = 0
    inside: Counter[str] = Counter()
    random_kills: Counter[str] = Counter()
    t0 = time.monotonic()
    while finished < ITERATIONS:
        busy = {lane for lane, *_ in active.values()}
        for i in range(PARALLEL):
            if i in busy or started >= ITERATIONS:
                continue
            self_kill = started % 2 == 1
            point = KILL_POINTS[(started // 2) % len(KILL_POINTS)] if self_kill else None
            nth = rng.randint(1, 3)
            r, w = os.pipe()
            pid = os.fork()
            if pid == 0:  # pragma: no cover - the child
                os.close(r)
                _child(lanes[i].root, i, started, point, nth, w)
            os.close(w)
            delay = SELF_KILL_DEADLINE if self_kill else rng.uniform(0, MAX_DELAY)
            active[pid] = (i, r, time.monotonic() + delay, self_kill)
            started += 1
        # the children that ended: dead by their own hand, or killed at their deadline
        ended: list[tuple[int, int]] = []
        while not ended:
            time.sleep(0.001)
            for pid, (_lane, _r, deadline, _self) in active.items():
                done, status = os.waitpid(pid, os.WNOHANG)
                if not done and time.monotonic() >= deadline:
                    os.kill(pid, signal.SIGKILL)
                    done, status = os.waitpid(pid, 0)
                if done:
                    ended.append((pid, status))
        for pid, status in ended:
            lane_no, r, _deadline, self_kill = active.pop(pid)
            assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
            rep = _parse(_read_all(r))
            if not self_kill:
                random_kills[rep.last] += 1
            elif rep.killed_at:
                inside[rep.killed_at] += 1
            else:
                missed += 1
            _check_lane(lanes[lane_no], rep)
            finished += 1
    elapsed = time.monotonic() - t0
    moves = sum(len(m) for lane in lanes for _digest, m in lane.games.values())
    swept = sum((lane.swept for lane in lanes), Counter[str]())
    summary = _summary(inside, missed, random_kills, moves, elapsed, swept)
    # the kills landed at every step of the saving code, and the games did move on
    assert {" ".join(p) for p in KILL_POINTS} <= set(inside), summary
    assert sum(inside.values()) >= 0.9 * ITERATIONS / 2, summary
    assert random_kills["A"] >= 10, summary  # in the middle of saving...
    assert sum(random_kills.values()) - random_kills["A"] >= 5, summary  # ...and elsewhere
    assert all(lane.games for lane in lanes) and moves > ITERATIONS, summary
    assert elapsed < 60, summary
    # kills did leave files behind, and the next run swept them all up (checked each time)
    assert swept["tmp"] >= 10 and swept["lock"] >= 1, summary
    print(summary)  # pytest -s shows it


@pytest.mark.parametrize("text", ["G g1 3\nA 4\nS 4\nA 5\n", "G g1 3\nA 4\nS 4\nA 5\nS 5"])
def test_reports_are_read_up_to_the_last_whole_line(text: str) -> None:
    rep = _parse(text)
    assert (rep.game, rep.opened, rep.applied, rep.saved, rep.last) == ("g1", 3, 5, 4, "A")
