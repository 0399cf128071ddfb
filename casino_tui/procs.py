"""Process helpers shared by the computer players' worker (``ai.worker``), the browser front
end (``web.server``) and the SSH server's games (``serve``): a process that must not outlive
its parent asks the kernel for a signal when the parent dies; a game runs below the server's
priority."""

from __future__ import annotations

import contextlib
import ctypes
import os
import random
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def parent_death_signal() -> Callable[[int], None] | None:
    """On Linux, a function that makes the kernel send the calling process ``sig`` when the
    thread that started it ends (``prctl(PR_SET_PDEATHSIG)``: call it in the child, after the
    fork); None elsewhere, or where the C library offers no ``prctl``. It is looked up here, in
    the parent, so that a child about to ``exec`` only calls it."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None

    def set_signal(sig: int) -> None:
        prctl(PR_SET_PDEATHSIG, sig, 0, 0, 0)

    return set_signal


# The kernel's scheduler groups the processes of each session (``setsid``) when "autogroup" is on
# (most desktop and many server kernels): CPU time is shared between the groups first, then
# within one. Every game is a session of its own, so without more each game's group weighs as
# much as the server's whole group (the server, the fork server, the pool of computer players):
# 200 games would leave the server and the pool 1/201 of the CPU. A process's nice value alone
# only counts within its group; the group's own nice value (``/proc/self/autogroup``) counts
# between groups. Both are set. Raising them needs no privilege; a process's nice value cannot
# be lowered again without it, an autogroup's can (down to 0: the tables, below).
# But the kernel lets unprivileged processes set an autogroup's value at most once every 0.1 s on
# the whole host (any other write fails with EAGAIN, whoever makes it): a crowd of games forked
# at once by a server that is not root would mostly stay in groups as high as the server's.
# Forked games try again (:func:`set_autogroup_nice`).
_AUTOGROUP = Path("/proc/self/autogroup")
AUTOGROUP_RETRY = (0.1, 0.3)  # seconds between two tries of a refused write, drawn at random


def autogroup_nice(pid: int | None = None) -> int | None:
    """The nice value of the scheduler autogroup of process ``pid`` (this one by default), or
    None: no autogroups here (no such file, or, on some kernels, an empty one)."""
    path = _AUTOGROUP if pid is None else Path(f"/proc/{pid}/autogroup")
    try:
        return int(path.read_text().split()[-1])
    except (OSError, ValueError, IndexError):
        return None


def lower_priority(steps: int, group_nice: int | None) -> None:
    """Run this process (and what it starts) ``steps`` nice values below its priority, and,
    after ``setsid``, its new autogroup ``steps`` below ``group_nice`` (that of the group it
    left: the server's). Best effort: a system that refuses keeps the priority as it is."""
    if steps <= 0:
        return
    with contextlib.suppress(OSError):
        os.nice(steps)
    if group_nice is not None:
        with contextlib.suppress(OSError):
            _AUTOGROUP.write_text(str(min(19, group_nice + steps)))


def lower_group_priority(base: int, steps: int, group_nice: int | None,
                         retry: float = 0.0) -> None:
    """Run every thread of every process of this process group ``steps`` nice values below
    ``base`` (``setpriority(PRIO_PGRP)``: on Linux a nice value is a thread's, and a process's
    threads started before now keep theirs otherwise), and this process's autogroup ``steps``
    below ``group_nice`` (as :func:`lower_priority`; a write the kernel refuses for now is
    tried again for ``retry`` seconds: :func:`set_autogroup_nice`). Best effort, as that."""
    if steps <= 0:
        return
    with contextlib.suppress(OSError):
        os.setpriority(os.PRIO_PGRP, 0, min(19, base + steps))
    if group_nice is not None:
        set_autogroup_nice(min(19, group_nice + steps), retry=retry)


_wanted: int | None = None  # the autogroup value last asked for (set_autogroup_nice)
_retrying = False  # a thread is trying it again
_wanted_lock = threading.Lock()


def set_autogroup_nice(value: int, retry: float = 0.0) -> bool:
    """Set this process's autogroup nice value; whether it was set now. A write the kernel
    refuses for now (EAGAIN: an unprivileged process may be refused for 0.1 s after anyone's
    write on the host) is tried again from a daemon thread, at random intervals
    (:data:`AUTOGROUP_RETRY`), for up to ``retry`` seconds; it then writes the value last asked
    for, so a later call wins over an earlier one still being tried."""
    global _wanted, _retrying
    with _wanted_lock:
        _wanted = value
    try:
        _AUTOGROUP.write_text(str(value))
        return True
    except BlockingIOError:
        if retry > 0:
            with _wanted_lock:
                start, _retrying = not _retrying, True
            if start:
                threading.Thread(target=_retry_autogroup, args=(time.monotonic() + retry,),
                                 name="autogroup", daemon=True).start()
        return False
    except OSError:
        return False


def _retry_autogroup(deadline: float) -> None:
    global _retrying
    try:
        while time.monotonic() < deadline:
            time.sleep(random.uniform(*AUTOGROUP_RETRY))
            with _wanted_lock:
                value = _wanted
            try:
                _AUTOGROUP.write_text(str(value))
            except BlockingIOError:
                continue
            except OSError:
                return
            with _wanted_lock:
                if _wanted == value:
                    return
    finally:
        with _wanted_lock:
            _retrying = False


# A game at a table of people runs fewer steps below the server than other games: a move there
# waits on two games (the mover's and the other person's), and the other person's game, idle
# until the move comes, then waited for a core behind every process at the server's priority
# (at 19 steps below it weighs 15 against their 1024: 68 times less). The server puts the
# scheduler autogroup value such a game takes in its environment (TABLE_NICE_ENV); the game
# takes it while it shows a table (:func:`at_table`), and goes back when it leaves.
TABLE_NICE_ENV = "CASINO_TUI_TABLE_NICE"
TABLE_NICE_STEPS = 10  # a table's game runs at most this many nice steps below the server
_before_table: int | None = None  # the autogroup value the game had before its table


def table_nice(group_nice: int | None, steps: int) -> int | None:
    """The autogroup value of a game at a table, under a server whose autogroup is at
    ``group_nice`` with its games ``steps`` below it (None: no autogroups, or games at the
    server's priority, which a table's game keeps)."""
    if group_nice is None or steps <= 0:
        return None
    return min(19, group_nice + min(steps, TABLE_NICE_STEPS))


def at_table(there: bool, env: dict[str, str] | None = None) -> None:
    """A game shows a table of people (``there``), or no longer: its autogroup takes the value
    the server gave for tables (``TABLE_NICE_ENV``), and the one it had before again. Only up
    (a game never goes above the value it had), best effort, a write the kernel refuses for
    now tried again (:func:`set_autogroup_nice`); nothing without the variable."""
    global _before_table
    if there:
        if _before_table is not None:
            return
        value = (os.environ if env is None else env).get(TABLE_NICE_ENV, "")
        with _wanted_lock:  # the value being set (tried again), else the one set
            now = _wanted if _wanted is not None else autogroup_nice()
        if not value.isdigit() or now is None or int(value) >= now:
            return
        _before_table = now
        set_autogroup_nice(int(value), retry=TABLE_NICE_RETRY)
    elif _before_table is not None:
        before, _before_table = _before_table, None
        set_autogroup_nice(before, retry=TABLE_NICE_RETRY)


TABLE_NICE_RETRY = 10.0  # seconds a refused write of a table's autogroup value is tried again
