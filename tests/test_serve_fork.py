"""Warm sessions: the fork server (casino_tui.serve.forkserver) keeps players apart.

First the fork server on its own, running a probe instead of the game (the same
``serve_forks`` loop, a ``main`` that reports what its process sees): each child gets exactly
the environment, directory and terminal it was given and no other descriptor, its own random
state and session, and its exit status; a crash of one child touches no other child and not the
fork server; a fork server that dies is started again and its children play on. Then the same
through the real server and real ``ssh`` clients.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import gc
import json
import os
import random
import re
import signal
import statistics
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from serve_support import (
    TITLE,
    Server,
    Tmux,
    _live_processes,
    make_key,
    needs_ssh_tmux,
    player_dir,
    process_alive,
    ssh_argv,
    wait_until,
)

from casino_tui import procs
from casino_tui.app import cellcache
from casino_tui.serve import forkserver
from casino_tui.serve.forkserver import ForkedGame, ForkServer, autogroup_nice
from casino_tui.serve.players import has_saved_game
from casino_tui.serve.pty_session import set_winsize

PROBE = textwrap.dedent('''
    import atexit, gc, json, os, random, signal, sys, threading, time
    from casino_tui.serve.forkserver import autogroup_nice, serve_forks

    def ksm_merge_any():
        try:
            with open("/proc/self/ksm_stat") as stat:
                for line in stat:
                    if line.startswith("ksm_merge_any:"):
                        return line.split()[1] == "yes"
        except OSError:
            pass
        return None

    def packed():
        """How many code objects the fork server replaced by packed copies, and whether the
        game screen's compose() runs a packed copy (its old code kept, not its own)."""
        hotcode = sys.modules.get("casino_tui.serve.hotcode")
        game = sys.modules.get("casino_tui.app.screens.game")
        if hotcode is None or game is None:
            return None
        def is_packed(code):
            key = hotcode.code_key(code)
            replaced = any(hotcode.code_key(old) == key for old in hotcode._kept)
            return replaced and all(old is not code for old in hotcode._kept)

        table = sys.modules["casino_tui.app.screens.tablegame"].TableGameScreen
        widths = sys.modules["rich.cells"].cached_cell_len.cache_info()
        return {"kept": len(hotcode._kept),
                "compose_packed": is_packed(game.GameScreen.compose.__code__),
                "table_packed": is_packed(table.__init__.__code__),
                "widths_kept": [widths.maxsize, widths.currsize]}

    def main(args):
        if args[0] == "crash":
            os.kill(os.getpid(), signal.SIGSEGV)
        if args[0] == "leave":  # what a process does at exit, after main() has returned
            out = args[1]

            def late():
                time.sleep(0.3)
                with open(f"{out}/thread", "w") as f:
                    f.write(str(os.path.exists(f"{out}/returned")))

            def at_exit():
                with open(f"{out}/atexit", "w") as f:
                    f.write(str(os.path.exists(f"{out}/thread")))

            threading.Thread(target=late).start()
            atexit.register(at_exit)
            sys.stdout.write("unflushed at return")  # no newline: still in the buffer
            open(f"{out}/returned", "w").close()
            return 7
        if args[0] == "sleep":
            time.sleep(float(args[1]))
            return 0
        if args[0] == "quit":  # the collector as the app quits, after or before a first frame
            from casino_tui.app import firstframe, quitting

            seen = {"start": gc.isenabled()}
            if args[2] == "after":
                firstframe.written()
                seen["frame"] = gc.isenabled()
            quitting.begun()
            seen["quitting"] = gc.isenabled()
            firstframe.written()  # (a frame drawn as it quits: the collector stays off)
            seen["end"] = gc.isenabled()
            with open(args[1], "w") as out:
                json.dump(seen, out)
            return 0
        if args[0] in ("frame", "noframe"):  # the priority before and after a first frame
            from casino_tui.app import firstframe

            def nices():
                out = {}
                for tid in os.listdir("/proc/self/task"):
                    try:  # (a timer cancelled by the first frame may have just ended)
                        with open(f"/proc/self/task/{tid}/stat") as f:
                            out[tid] = int(f.read().rpartition(")")[2].split()[16])
                    except FileNotFoundError:
                        pass
                return out

            started = threading.Event()
            helper = threading.Thread(target=started.wait, daemon=True)  # a thread of its own
            helper.start()
            before = {"nice": nices(), "autogroup": autogroup_nice(), "gc": gc.isenabled()}
            if args[0] == "frame":
                firstframe.written()
            else:
                time.sleep(float(args[2]))
            after = {"nice": nices(), "autogroup": autogroup_nice(), "gc": gc.isenabled()}
            started.set()
            with open(args[1], "w") as out:
                json.dump({"before": before, "after": after,
                           "threads": [os.getpid(), helper.native_id]}, out)
            return 0
        fds = {}
        for fd in os.listdir("/proc/self/fd"):
            try:
                fds[fd] = os.readlink(f"/proc/self/fd/{fd}")
            except OSError:
                pass
        tty = os.open("/dev/tty", os.O_RDWR)  # only with a controlling terminal
        os.close(tty)
        report = {"env": dict(os.environ), "cwd": os.getcwd(), "fds": fds,
                  "pid": os.getpid(), "sid": os.getsid(0), "pgid": os.getpgid(0),
                  "foreground": os.tcgetpgrp(0), "tty": os.ttyname(0), "argv": sys.argv[1:],
                  "random": random.random(), "stdout_tty": sys.stdout.isatty(),
                  "stdout_encoding": sys.stdout.encoding,
                  "nice": os.getpriority(os.PRIO_PROCESS, 0), "autogroup": autogroup_nice(),
                  "ksm": ksm_merge_any(), "gc_frozen": gc.get_freeze_count(),
                  "optimize": sys.flags.optimize, "docstring": serve_forks.__doc__,
                  "gc_before_frame": [gc.isenabled(), gc.get_threshold()],
                  "packed": packed()}
        from casino_tui.app import firstframe

        firstframe.written()  # the first frame is on the terminal
        report["gc_thresholds"] = gc.get_threshold()
        report["gc_after_frame"] = gc.isenabled()
        with open(args[0], "w") as out:
            json.dump(report, out)
        return int(args[1])

    if __name__ == "__main__":
        sys.exit(serve_forks(sys.argv[2:], main))
''')


@pytest.fixture
def probe(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A module ``fsprobe`` to start the fork server with (``python -m fsprobe``)."""
    mod = tmp_path / "mod"
    mod.mkdir()
    (mod / "fsprobe.py").write_text(PROBE)
    path = os.environ.get("PYTHONPATH")
    monkeypatch.setenv("PYTHONPATH", f"{mod}{os.pathsep}{path}" if path else str(mod))
    monkeypatch.setenv("FORK_TEST_SERVER_ONLY", "the server's own")
    monkeypatch.setattr(forkserver, "RESTART_PAUSE", 0.2)
    yield tmp_path


async def started(warm: bool = False) -> ForkServer:
    forker = ForkServer(main_module="fsprobe", warm=warm)
    forker.start()
    assert await forker.wait_ready(60), "the fork server did not start"
    return forker


async def forked_report(forker: ForkServer, args: list[str], out: Path, cwd: Path,
                        nice: int = 0) -> Any:
    """Fork a probe child with ``args`` on a PTY of its own, wait for it to end with status 0
    and read the report it wrote to ``out``."""
    child, master, _ = await fork(forker, args, {}, cwd, nice)
    try:
        assert await asyncio.wait_for(child.wait(), 30) == 0
    finally:
        os.close(master)
    return json.loads(out.read_text())


async def fork(forker: ForkServer, args: list[str], env: dict[str, str],
               cwd: Path, nice: int = 0) -> tuple[ForkedGame, int, str]:
    """A child on a new PTY: the child, the PTY's master (the caller closes it) and the
    terminal's name."""
    master, slave = os.openpty()
    try:
        name = os.ttyname(slave)
        child = await forker.spawn(slave, args, env, cwd, nice)
    finally:
        os.close(slave)
    return child, master, name


def test_children_get_their_own_environment_directory_terminal_and_status(probe: Path) -> None:
    homes = [probe / "alice", probe / "bob"]
    for home in homes:
        home.mkdir()

    async def scenario() -> list[tuple[dict[str, object], str, int]]:
        forker = await started()
        try:
            out = []
            for n, home in enumerate(homes):
                env = {"HOME": str(home), "TERM": "xterm-256color", "PYTHONUTF8": "1",
                       "CASINO_TUI_DATA_DIR": str(home / "data"), "SECRET": f"secret-{n}"}
                child, master, tty = await fork(
                    forker, [str(home / "report.json"), str(3 + n)], env, home)
                try:
                    status = await asyncio.wait_for(child.wait(), 30)
                    out.append((json.loads((home / "report.json").read_text()), tty,
                                status))
                finally:
                    os.close(master)
            return out
        finally:
            await forker.close()

    reports = asyncio.run(scenario())
    for n, (report, tty, status) in enumerate(reports):
        home = homes[n]
        assert status == 3 + n  # the exit status of main(), reported by the fork server
        assert report["env"] == {"HOME": str(home), "TERM": "xterm-256color",
                                 "PYTHONUTF8": "1", "CASINO_TUI_DATA_DIR": str(home / "data"),
                                 "SECRET": f"secret-{n}"}
        assert report["cwd"] == str(home)
        assert report["argv"] == [str(home / "report.json"), str(3 + n)]
        # Its own session, led by itself, with the PTY as its controlling terminal.
        assert report["sid"] == report["pid"] == report["pgid"] == report["foreground"]
        assert report["tty"] == tty  # the terminal it was given
        assert report["stdout_tty"] and report["stdout_encoding"] == "utf-8"
        fds = report["fds"]
        assert isinstance(fds, dict)
        assert {fds["0"], fds["1"], fds["2"]} == {report["tty"]}
        # Nothing else is open: no control socket, no pipe, no other terminal.
        assert set(fds) == {"0", "1", "2"}, fds
    assert reports[0][0]["random"] != reports[1][0]["random"]  # reseeded in each child


def process_nice(pid: int) -> int:
    return os.getpriority(os.PRIO_PROCESS, pid)


def test_children_run_below_the_servers_priority_when_asked(probe: Path) -> None:
    """A game forked with ``nice=N`` runs N nice steps below the fork server (and the server),
    and so does its scheduler autogroup (each game is a session, so a group of its own: its
    process's nice value alone would not put it below the server's group)."""
    async def scenario() -> list[dict[str, object]]:
        forker = await started()
        try:
            return [await forked_report(forker, [str(probe / f"{n}.json"), "0"],
                                        probe / f"{n}.json", probe, nice)
                    for n, nice in enumerate((0, 4))]
        finally:
            await forker.close()

    same, lower = asyncio.run(scenario())
    mine = process_nice(0)
    assert same["nice"] == mine
    assert lower["nice"] == min(19, mine + 4)
    group = autogroup_nice(os.getpid())
    if group is not None:  # a kernel with autogroups: the group is lowered too
        assert same["autogroup"] == 0  # a new session's group starts at 0
        assert lower["autogroup"] == min(19, group + 4)


def thread_nices(pid: int) -> dict[int, int]:
    """The nice value of every thread of process ``pid`` (on Linux a nice value is a
    thread's)."""
    out = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        with contextlib.suppress(OSError):
            stat = Path(f"/proc/{pid}/task/{tid}/stat").read_text()
            out[int(tid)] = int(stat.rpartition(")")[2].split()[16])
    return out


@pytest.mark.parametrize("first_frame", [True, False])
def test_a_login_runs_at_the_servers_priority_until_its_first_frame(
        probe: Path, first_frame: bool) -> None:
    """Forked with ``title_within``, a game runs at the server's priority (its new autogroup
    too) until its first frame is written, and then ``nice`` steps below it, every thread of
    it (those started before too) and its autogroup; a game that shows no frame is lowered
    after ``title_within`` seconds."""
    out = probe / "frame.json"
    args = [str(out)] if first_frame else [str(out), "1.0"]

    async def scenario() -> None:
        forker = await started()
        try:
            master, slave = os.openpty()
            try:
                child = await forker.spawn(slave, ["frame" if first_frame else "noframe",
                                                   *args], {}, probe, 4,
                                           title_within=60.0 if first_frame else 0.3)
            finally:
                os.close(slave)
            try:
                assert await asyncio.wait_for(child.wait(), 30) == 0
            finally:
                os.close(master)
        finally:
            await forker.close()

    asyncio.run(scenario())
    report = json.loads(out.read_text())
    mine = process_nice(0)
    before, after = report["before"], report["after"]
    # the main thread, one the game started before its frame (and the time limit's timer)
    assert {str(t) for t in report["threads"]} <= set(before["nice"])
    assert set(before["nice"].values()) == {mine}  # the server's
    assert set(after["nice"].values()) == {min(19, mine + 4)}  # every thread below it
    # no garbage collection before the first frame, or before the time limit without one
    assert before["gc"] is False
    assert after["gc"] is True
    group = autogroup_nice(os.getpid())
    if group is not None:  # a kernel with autogroups: the group is lowered then too
        assert before["autogroup"] == group  # at the server's group's, not above it
        assert after["autogroup"] == min(19, group + 4)


def test_a_forked_game_is_lowered_once_its_title_is_on_its_terminal(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The real game forked on a PTY (``title_within`` far longer than the test): at the
    server's priority as it starts, every thread of it ``nice`` steps below once its title has
    reached the terminal (the app tells its first frame from Textual's output thread)."""
    monkeypatch.setenv("PYTHONUTF8", "1")
    home = tmp_path / "home"
    home.mkdir()
    env = {"HOME": str(home), "TERM": "xterm-256color", "LANG": "C.UTF-8",
           "LC_ALL": "C.UTF-8", "PYTHONUTF8": "1",
           "CASINO_TUI_DATA_DIR": str(home / "data"),
           "CASINO_TUI_CONFIG_DIR": str(home / "config")}
    if "PYTHONPATH" in os.environ:
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    mine = process_nice(0)
    seen: dict[str, object] = {}

    async def scenario() -> None:
        forker = ForkServer(warm=False)
        forker.start()
        assert await forker.wait_ready(60), "the fork server did not start"
        try:
            master, slave = os.openpty()
            set_winsize(master, 100, 30)
            try:
                child = await forker.spawn(slave, [], env, home, 4, title_within=60.0)
            finally:
                os.close(slave)
            early = thread_nices(child.pid)
            os.set_blocking(master, False)
            screen = b""
            with contextlib.suppress(BlockingIOError):
                screen = os.read(master, 65536)
            if TITLE.encode() not in screen:  # (not yet written when the nices were read)
                seen["early"] = early
            try:
                deadline = time.monotonic() + 30
                while TITLE.encode() not in screen:
                    assert time.monotonic() < deadline, "no title"
                    with contextlib.suppress(BlockingIOError):
                        screen += os.read(master, 65536)
                        continue
                    await asyncio.sleep(0.01)
                deadline = time.monotonic() + 10
                group = autogroup_nice(os.getpid())
                # (the threads' nice values are set first, then the autogroup's: wait for
                # both, or a busy host shows the group a moment before its write)
                while set(thread_nices(child.pid).values()) != {min(19, mine + 4)} or (
                        group is not None and autogroup_nice(child.pid) != min(19, group + 4)):
                    assert time.monotonic() < deadline, (thread_nices(child.pid),
                                                         autogroup_nice(child.pid))
                    await asyncio.sleep(0.02)
                seen["after"] = thread_nices(child.pid)
                seen["group"] = autogroup_nice(child.pid)
                os.write(master, b"q")
                assert await asyncio.wait_for(child.wait(), 30) == 0
            finally:
                os.close(master)
        finally:
            await forker.close()

    asyncio.run(scenario())
    # read at once after the fork, before its title was written (almost always: the title
    # is 50 ms of the game's CPU away)
    if "early" in seen:
        assert set(seen["early"].values()) == {mine}  # type: ignore[union-attr]
    after = seen["after"]
    assert isinstance(after, dict) and len(after) >= 3  # Textual's input and output threads
    group = autogroup_nice(os.getpid())
    if group is not None:
        assert seen["group"] == min(19, group + 4)


def test_children_offer_their_memory_to_the_kernels_same_page_merging(probe: Path) -> None:
    """The fork server offers its memory to KSM (prctl PR_SET_MEMORY_MERGE), and every child
    inherits it: the pages a game copies on write and that hold the same bytes again can be
    shared again where the host runs KSM. Kernels that cannot say so (before 6.4) skip it."""
    async def scenario() -> dict[str, object]:
        forker = await started()
        try:
            return await forked_report(forker, [str(probe / "ksm.json"), "0"],
                                       probe / "ksm.json", probe)
        finally:
            await forker.close()

    report = asyncio.run(scenario())
    if report["ksm"] is None:
        pytest.skip("this kernel does not report ksm_merge_any in /proc/PID/ksm_stat")
    assert report["ksm"] is True


def test_children_collect_their_garbage_sooner_and_never_walk_the_frozen_objects(
        probe: Path) -> None:
    """A forked game collects cyclic garbage more often than Python's defaults (so that its
    new objects reuse the blocks of its garbage instead of new memory), which is cheap only
    because what the fork server froze stays frozen in the child: the collector never walks
    it."""
    async def scenario() -> list[dict[str, Any]]:
        forker = await started()
        try:
            # (one at a time: each one's thresholds are its own)
            return [await forked_report(forker, [str(probe / f"gc{n}.json"), "0"],
                                        probe / f"gc{n}.json", probe) for n in range(3)]
        finally:
            await forker.close()

    reports = asyncio.run(scenario())
    report = reports[0]
    # no collection before the first frame (a login's title is what a crowd waits for), then
    # the game's own thresholds: the youngest drawn within the spread, apart from the other
    # games' (three the same by chance: about one in 23,000 runs), the others as set
    assert report["gc_before_frame"][0] is False
    assert report["gc_after_frame"] is True
    young, middle, old = forkserver.SESSION_GC_THRESHOLDS
    spread = forkserver.GC_SPREAD
    for each in reports:
        assert (1 - spread) * young <= each["gc_thresholds"][0] <= (1 + spread) * young
        assert each["gc_thresholds"][1:] == [middle, old]
    assert len({each["gc_thresholds"][0] for each in reports}) > 1
    assert (1 + spread) * young < gc.get_threshold()[0]
    # ... but a full collection (every object the game kept, about 10 ms) no sooner, counted
    # in middle ones, than Python's own (700, 10, 10; the tests' process runs others): those
    # cost the game most of its collector's time
    assert forkserver.SESSION_GC_THRESHOLDS[2] >= 10
    assert isinstance(report["gc_frozen"], int) and report["gc_frozen"] > 10_000


def test_a_games_thresholds_are_spread_around_the_sessions_and_the_same_on_average() -> None:
    """Games that play alike at the same pace would otherwise collect at the same moments:
    each draws its youngest threshold at random within the spread, the others as they are."""
    young, middle, old = forkserver.SESSION_GC_THRESHOLDS
    spread = forkserver.GC_SPREAD
    drawn = [forkserver.session_gc_thresholds(random.Random(seed)) for seed in range(2000)]
    youngest = [t[0] for t in drawn]
    assert all(t[1:] == (middle, old) for t in drawn)
    assert min(youngest) >= round((1 - spread) * young)
    assert max(youngest) <= round((1 + spread) * young)
    assert max(youngest) - min(youngest) > spread * young  # spread, not one value
    assert abs(statistics.mean(youngest) - young) < 0.02 * young
    # without a generator of its own: one seeded afresh each time
    assert len({forkserver.session_gc_thresholds()[0] for _ in range(20)}) > 1


def test_a_forked_game_collects_no_garbage_once_it_quits(probe: Path) -> None:
    """A forked game ends with os._exit: once its app begins to quit, a collection would be
    work for nothing, so the collector stops, whether the game had drawn its first frame
    (the collector on) or not yet (it stays off, even if a frame comes after)."""
    async def scenario() -> list[dict[str, bool]]:
        forker = await started()
        try:
            return [await forked_report(forker, ["quit", str(probe / f"quit-{when}.json"), when],
                                        probe / f"quit-{when}.json", probe)
                    for when in ("after", "before")]
        finally:
            await forker.close()

    after, before = asyncio.run(scenario())
    assert after == {"start": False, "frame": True, "quitting": False, "end": False}
    assert before == {"start": False, "quitting": False, "end": False}


def test_a_warm_fork_server_packs_the_code_a_game_runs(probe: Path) -> None:
    """The warm fork server gives the code a game runs (found by short headless games in
    children of its own, solo and at a table) new copies made together
    (casino_tui.serve.hotcode), which its children run; a cold one packs nothing. Its
    children start with the bounded cache of texts' widths empty (casino_tui.app.cellcache):
    the widths its warm-up measured are not theirs to move about."""
    async def scenario(warm: bool) -> dict[str, object]:
        forker = await started(warm=warm)
        try:
            return await forked_report(forker, [str(probe / "pack.json"), "0"],
                                       probe / "pack.json", probe)
        finally:
            await forker.close()

    packed = asyncio.run(scenario(True))["packed"]
    assert isinstance(packed, dict)
    assert packed["kept"] > 1000 and packed["compose_packed"] is True
    assert packed["table_packed"] is True  # and what a game at a table runs (its screen)
    assert packed["widths_kept"] == [cellcache.SIZE, 0]
    assert asyncio.run(scenario(False))["packed"] is None  # cold: the app is not even imported


def test_children_run_without_docstrings(probe: Path) -> None:
    """The fork server runs Python with ``-OO`` (FORK_SERVER_FLAGS), and so does every game
    forked from it: no docstring sits among the objects whose pages a game copies."""
    async def scenario() -> dict[str, object]:
        forker = await started()
        try:
            return await forked_report(forker, [str(probe / "oo.json"), "0"],
                                       probe / "oo.json", probe)
        finally:
            await forker.close()

    assert forkserver.FORK_SERVER_FLAGS == ("-OO",)
    report = asyncio.run(scenario())
    assert report["optimize"] == 2
    assert report["docstring"] is None
    assert forkserver.serve_forks.__doc__  # this process (a fresh one) keeps them


def test_the_log_says_whether_the_kernel_merges_the_games_pages(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    run = tmp_path / "run"
    caplog.set_level("INFO", logger="casino_tui.serve")
    run.write_text("0\n")
    forkserver._log_merging(True, run)
    run.write_text("1\n")
    forkserver._log_merging(True, run)
    forkserver._log_merging(False, run)  # not offered (an old kernel): nothing to say
    forkserver._log_merging(True, tmp_path / "none")  # no KSM in this kernel: nothing either
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 2
    assert "is off" in lines[0] and f"echo 1 > {run}" in lines[0]
    assert "is on" in lines[1]
    assert forkserver.merging_on(run) is True
    assert forkserver.merging_on(tmp_path / "none") is None


def test_a_crash_touches_no_other_child_nor_the_fork_server(probe: Path) -> None:
    async def scenario() -> None:
        forker = await started()
        masters = []
        try:
            sleeper, m1, _ = await fork(forker, ["sleep", "60"], {}, probe)
            crasher, m2, _ = await fork(forker, ["crash"], {}, probe)
            masters += [m1, m2]
            assert await asyncio.wait_for(crasher.wait(), 30) == -signal.SIGSEGV
            assert forker.pid is not None and process_alive(forker.pid)
            assert process_alive(sleeper.pid) and sleeper.returncode is None
            # The fork server still forks.
            again, m3, _ = await fork(forker, [str(probe / "again.json"), "0"], {}, probe)
            masters.append(m3)
            assert await asyncio.wait_for(again.wait(), 30) == 0
            os.killpg(sleeper.pid, signal.SIGKILL)
            assert await asyncio.wait_for(sleeper.wait(), 30) == -signal.SIGKILL
        finally:
            for m in masters:
                os.close(m)
            await forker.close()

    asyncio.run(scenario())


def test_a_child_ends_as_a_process_does_after_main_returns(probe: Path) -> None:
    """The child leaves without tearing its interpreter down (os._exit), but only after what
    a process does at exit: its threads joined, then its atexit handlers, then its standard
    streams flushed; main()'s status is its exit status."""
    async def scenario() -> tuple[int, bytes]:
        forker = await started()
        try:
            child, master, _ = await fork(forker, ["leave", str(probe)], {}, probe)
            try:
                status = await asyncio.wait_for(child.wait(), 30)
                output = b""
                with contextlib.suppress(OSError):  # EIO once it is all read
                    while chunk := os.read(master, 4096):
                        output += chunk
            finally:
                os.close(master)
            return status, output
        finally:
            await forker.close()

    status, output = asyncio.run(scenario())
    assert status == 7
    assert (probe / "thread").read_text() == "True"  # it ran on after main() returned
    assert (probe / "atexit").read_text() == "True"  # and the handlers after the thread
    assert b"unflushed at return" in output


def test_a_fork_server_that_dies_is_started_again(probe: Path) -> None:
    async def scenario() -> None:
        forker = await started()
        master = -1
        try:
            sleeper, master, _ = await fork(forker, ["sleep", "60"], {}, probe)
            first = forker.pid
            assert first is not None
            os.kill(first, signal.SIGKILL)
            deadline = time.monotonic() + 60
            while forker.pid == first or not forker.ready:
                assert time.monotonic() < deadline, "the fork server was not started again"
                await asyncio.sleep(0.05)
            assert forker.starts == 2
            # Its child plays on, and its end is still noticed.
            assert process_alive(sleeper.pid)
            child, m, _ = await fork(forker, [str(probe / "after.json"), "0"], {}, probe)
            try:
                assert await asyncio.wait_for(child.wait(), 30) == 0
            finally:
                os.close(m)
            os.killpg(sleeper.pid, signal.SIGKILL)
            await asyncio.wait_for(sleeper.wait(), 30)
        finally:
            if master >= 0:
                os.close(master)
            await forker.close()

    asyncio.run(scenario())


def test_a_fork_server_that_cannot_start_leaves_fresh_processes(
        probe: Path, caplog: pytest.LogCaptureFixture) -> None:
    async def scenario() -> None:
        forker = ForkServer(main_module="fsprobe_missing")
        forker.start()
        assert not await forker.wait_ready(60)  # it failed: no need to wait longer
        master, slave = os.openpty()
        try:
            with pytest.raises(forkserver.ForkServerError, match="not running"):
                await forker.spawn(slave, ["x"], {}, probe)
        finally:
            os.close(master)
            os.close(slave)
        await forker.close()

    asyncio.run(scenario())
    assert "the fork server did not start" in caplog.text


def test_fork_server_is_not_for_people() -> None:
    from casino_tui.__main__ import main

    assert main(["_fork-server"]) == 2


# ====================================================================== through the server
def environ(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return dict(item.decode().split("=", 1) for item in raw if item)


def open_files(pid: int) -> dict[int, str]:
    out = {}
    for entry in Path(f"/proc/{pid}/fd").iterdir():
        with contextlib.suppress(OSError):
            out[int(entry.name)] = os.readlink(entry)
    return out


def sockets(pid: int) -> set[str]:
    return {t for t in open_files(pid).values() if t.startswith("socket:")}


def parent(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


@needs_ssh_tmux
def test_sessions_are_forked_apart_and_survive_crashes_and_a_fork_server_restart(
        tmp_path: Path, tmux: Tmux, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORK_TEST_SERVER_ONLY", "the server's own")
    keys = {name: make_key(tmp_path, name) for name in ("alice", "bob", "carol")}
    data = tmp_path / "data"
    server = Server(data, "--session-nice", "5")
    try:
        forker_pid = int(server.wait_log(r"fork server pid (\d+) ready").group(1))
        assert parent(forker_pid) == server.proc.pid
        tmux.start("a", ssh_argv(server.port, keys["alice"]), 100, 30)
        tmux.start("b", ssh_argv(server.port, keys["bob"]), 100, 30)
        tmux.wait_for("a", TITLE)
        tmux.wait_for("b", TITLE)
        pids = {name: server.session_pid(keys[name]) for name in ("alice", "bob")}
        assert len(re.findall(r"session \d+ start: .* pid \d+ forked ", server.log())) == 2
        server_sockets = sockets(server.proc.pid) | sockets(forker_pid)
        ttys = {}
        for name, pid in pids.items():
            home = player_dir(data, keys[name])
            assert parent(pid) == forker_pid
            assert os.getsid(pid) == os.getpgid(pid) == pid
            # What other processes see of its environment (/proc/PID/environ, ps e) is the
            # fork server's start-up environment, which has nothing of the server's and
            # nothing of any player's: no secret is shown there (the game's own environment
            # is checked with the probe above, and test_serve.py's test_players_are_isolated
            # sees each forked game write only to its own player's directories).
            env = environ(pid)
            assert env == environ(forker_pid)
            assert "FORK_TEST_SERVER_ONLY" not in env and "HOME" not in env
            assert not any("players" in value for value in env.values())
            assert Path(f"/proc/{pid}/cwd").resolve() == home.resolve()
            files = open_files(pid)
            ttys[name] = files[0]
            assert files[0] == files[1] == files[2] and files[0].startswith("/dev/pts/")
            # No other terminal, and no socket of the server's or the fork server's.
            assert [t for fd, t in files.items() if fd > 2 and "/dev/pt" in t] == []
            assert not sockets(pid) & server_sockets
        assert ttys["alice"] != ttys["bob"]
        # The games draw below the server's priority (--session-nice, here 5), every thread,
        # once their titles are on the screen (just after the title's bytes are written:
        # tmux may show the title a moment before)
        below = min(19, process_nice(server.proc.pid) + 5)
        for pid in pids.values():
            wait_until(lambda pid=pid: set(thread_nices(pid).values()) == {below}, 10,
                       "every thread of the game to run below the server",
                       detail=lambda pid=pid: str(thread_nices(pid)))
            group = autogroup_nice(server.proc.pid)
            if group is not None:
                wait_until(lambda pid=pid, group=group: autogroup_nice(pid) == min(19, group + 5),
                           10, "the game's autogroup to be below the server's")

        # A crash of Alice's game: Bob plays on, the fork server too.
        os.kill(pids["alice"], signal.SIGSEGV)
        assert tmux.wait_exit("a") == 1
        assert "The game stopped unexpectedly (SIGSEGV)" in tmux.screen("a")
        server.wait_log(r"session \d+ end: player .* reason killed \(SIGSEGV\) status 1")
        assert process_alive(pids["bob"]) and process_alive(forker_pid)
        tmux.send("b", "n")
        tmux.wait_for("b", "Preset")
        tmux.send("b", "Escape")
        tmux.wait_for("b", TITLE)

        # The fork server dies: it is started again, Bob plays on, and a new login is forked
        # from the new one.
        os.kill(forker_pid, signal.SIGKILL)
        server.wait_log(r"the fork server \(pid \d+\) ended with status -9; 1 of its sessions "
                        r"play on")
        again = int(server.wait_log(r"fork server pid (\d+) ready in [\d.]+s \(started "
                                    r"again", timeout=60).group(1))
        assert again != forker_pid and process_alive(pids["bob"])
        tmux.start("c", ssh_argv(server.port, keys["carol"]), 100, 30)
        tmux.wait_for("c", TITLE)
        carol = server.session_pid(keys["carol"])
        assert parent(carol) == again
        # Bob's end is still noticed, though his fork server is gone.
        tmux.send("b", "q")
        assert tmux.wait_exit("b") == 0
        server.wait_log(rf"end: player {re.escape(keys['bob'].fingerprint)} .* reason quit")
        tmux.send("c", "q")
        assert tmux.wait_exit("c") == 0
    finally:
        assert server.stop() == 0
    wait_until(lambda: not process_alive(forker_pid), 10, "the old fork server to go")


@needs_ssh_tmux
def test_without_the_fork_server_a_session_is_a_fresh_process(tmp_path: Path,
                                                              tmux: Tmux) -> None:
    key = make_key(tmp_path, "alice")
    server = Server(tmp_path / "data", "--no-fork-server", "--session-nice", "5")
    try:
        assert "no fork server: every session starts a fresh process" in server.log()
        assert "fork server pid" not in server.log()
        tmux.start("a", ssh_argv(server.port, key), 100, 30)
        tmux.wait_for("a", TITLE)
        pid = server.session_pid(key)
        assert parent(pid) == server.proc.pid
        assert re.search(r"session 1 start: .* pid \d+ fresh ", server.log())
        # A fresh game runs below the server's priority too (the start shim lowers it).
        assert process_nice(pid) == min(19, process_nice(server.proc.pid) + 5)
        group = autogroup_nice(server.proc.pid)
        if group is not None:
            assert autogroup_nice(pid) == min(19, group + 5)
        tmux.send("a", "q")
        assert tmux.wait_exit("a") == 0
        server.wait_log(r"session 1 end: .* reason quit status 0")
    finally:
        assert server.stop() == 0



def test_a_fork_that_times_out_leaves_its_terminal_and_the_game_starts_fresh_on_another(
        probe: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A fork server too busy to answer in time may still fork the game late on the terminal
    it was given (a crowd of 200 logging in at once: 23 games ended at their start, two games
    on one terminal): the fork is reported as sent, its late child is killed, and the fresh
    game the server starts instead gets a terminal of its own."""
    from casino_tui.serve.pty_session import PtyGame, get_winsize, set_winsize

    monkeypatch.setattr(forkserver, "SPAWN_TIMEOUT", 0.0)

    async def scenario() -> None:
        forker = await started()
        try:
            master, slave = os.openpty()
            try:
                with pytest.raises(forkserver.ForkServerError) as err:
                    await forker.spawn(slave, ["sleep", "60"], {}, probe)
            finally:
                os.close(slave)
            os.close(master)
            assert err.value.sent
            # the late child is killed when the fork server's answer comes
            def children() -> list[int]:
                found = []
                for d in os.listdir("/proc"):
                    with contextlib.suppress(OSError):  # (a process gone meanwhile)
                        if d.isdigit() and parent(int(d)) == forker.pid:
                            found.append(int(d))
                return found

            for _ in range(400):  # the fork server's late answer comes (it may not have forked
                if forker.late_forks:  # yet when the session gives up)
                    break
                await asyncio.sleep(0.05)
            assert forker.late_forks == 1
            for _ in range(200):  # the late child (it would sleep a minute) is killed
                if not children():
                    break
                await asyncio.sleep(0.05)
            assert not children() and forker.pid is not None and process_alive(forker.pid)

            game = PtyGame(process=None, term="xterm", size=(90, 20, 0, 0),  # type: ignore[arg-type]
                           env={"PATH": os.environ["PATH"], **({"PYTHONPATH": os.environ[
                               "PYTHONPATH"]} if "PYTHONPATH" in os.environ else {})},
                           args=["--version"], cwd=probe, forker=forker)
            old, slave = os.openpty()
            game._master = old
            os.set_blocking(old, False)
            set_winsize(old, 90, 20)
            try:
                proc = await game._start(slave)
            finally:
                os.close(slave)
            assert not game.forked and game._master != old
            with pytest.raises(OSError):
                os.fstat(old)  # the terminal the fork server was given is closed
            assert get_winsize(game._master) == (90, 20)
            assert await asyncio.wait_for(proc.wait(), 30) == 0  # on a terminal of its own
            os.set_blocking(game._master, True)
            assert b"casino-tui" in os.read(game._master, 4096)
            os.close(game._master)
        finally:
            await forker.close()

    asyncio.run(scenario())


@pytest.mark.parametrize(("text", "expected"), [
    ("/autogroup-20138 nice 3\n", 3), ("", None), ("/autogroup-1 nice x\n", None)])
def test_the_autogroup_nice_value_is_read_or_none_on_kernels_without_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, expected: int | None) -> None:
    """Some kernels have an empty /proc/PID/autogroup (the CI machine's): that is no autogroup,
    not an error (the fork server and the tests read it alike)."""
    fake = tmp_path / "autogroup"
    fake.write_text(text)
    monkeypatch.setattr(procs, "_AUTOGROUP", fake)
    assert autogroup_nice() == expected
    assert autogroup_nice(2 ** 22 + 1) is None  # no such process


class RefusingAutogroup:
    """/proc/self/autogroup as the kernel answers an unprivileged process right after someone's
    write on the host: EAGAIN, ``refusals`` times, then the value is taken."""

    def __init__(self, refusals: int) -> None:
        self.refusals = refusals
        self.written: list[str] = []
        self.lock = threading.Lock()

    def write_text(self, text: str) -> int:
        with self.lock:
            if self.refusals > 0:
                self.refusals -= 1
                raise BlockingIOError(errno.EAGAIN, "write could not complete without blocking")
            self.written.append(text)
        return len(text)


def test_an_autogroup_value_the_kernel_refuses_for_now_is_set_again_later(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """An unprivileged server's crowd of games is refused most autogroup writes (one every
    0.1 s on the host): a forked game tries again, and the value it asked for last wins."""
    fake = RefusingAutogroup(refusals=3)
    monkeypatch.setattr(procs, "_AUTOGROUP", fake)
    monkeypatch.setattr(procs, "AUTOGROUP_RETRY", (0.005, 0.01))
    assert procs.set_autogroup_nice(5, retry=10.0) is False  # refused now...
    assert procs.set_autogroup_nice(19, retry=10.0) is False  # ... and a lower one asked for
    wait_until(lambda: fake.written, 5, "the write to be tried again")
    wait_until(lambda: not procs._retrying, 5, "the retries to end")
    assert fake.written == ["19"]  # the last value asked for, once
    # Without retry (as before a fork: lower_priority), a refused write is only refused.
    fake.refusals = 1
    assert procs.set_autogroup_nice(7) is False
    time.sleep(0.05)
    assert fake.written == ["19"]


@needs_ssh_tmux
def test_a_forked_game_with_its_own_computer_player_ends_it_and_is_saved_when_quit(
        tmp_path: Path, tmux: Tmux) -> None:
    """A forked game leaves with os._exit once main() has returned: with ``--computers 0``
    its own computer-player worker and multiprocessing's resource tracker still end with it
    (their exit handlers ran), the game was saved and can be continued, the status is 0."""
    key = make_key(tmp_path, "alice")
    data = tmp_path / "data"
    server = Server(data, "--computers", "0")
    try:
        server.wait_log(r"fork server pid \d+ ready")
        tmux.start("a", ssh_argv(server.port, key), 100, 30)
        tmux.wait_for("a", TITLE)
        tmux.send("a", "n")
        tmux.wait_for("a", "Preset")
        tmux.send("a", "Enter")
        tmux.wait_for("a", "Your hand", timeout=20)
        tmux.send("a", "s")  # skip the computer's pause
        tmux.wait_for("a", "Your turn", timeout=20)
        pid = server.session_pid(key)
        assert re.search(rf"pid {pid} forked", server.log())

        def session() -> list[int]:
            return [p for p, fields in _live_processes() if int(fields[3]) == pid]

        assert len(session()) == 3  # the game, its worker, the resource tracker
        tmux.send("a", "C-q")
        assert tmux.wait_exit("a") == 0
        wait_until(lambda: not session(), 10, "every process of the game to end")
        server.wait_log(r"session \d+ end: .* status 0")
        assert has_saved_game(player_dir(data, key) / "data")
    finally:
        server.stop()


def test_a_forked_game_uses_the_parser_the_fork_server_built(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The game's command-line parser is built once per process (the fork server builds it
    before it forks): main() parses with it and builds no other."""
    import casino_tui.__main__ as game

    monkeypatch.setattr(game, "_parser", None)
    built = game.game_parser()

    def no_second(*_args: object) -> None:
        raise AssertionError("the parser was built again")

    monkeypatch.setattr(game, "build_parser", no_second)
    assert game.game_parser() is built
    assert game.main(["--list-presets"]) == 0
    assert "classic" in capsys.readouterr().out
