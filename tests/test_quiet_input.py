"""The keyboard thread sleeps while nobody types (casino_tui/app/quiet_input.py): an idle game
wakes no thread, and keys, a lone Escape and leaving still work after it has slept."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from pty_support import PtyApp, app_env
from textual.drivers.headless_driver import HeadlessDriver
from textual.drivers.linux_driver import LinuxDriver

from casino_tui.app.quiet_input import QuietLinuxDriver, quiet_input

QUIET = 1.0  # long enough without input for the keyboard thread to have gone to sleep

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="needs Linux (/proc, PTYs)")


def _wakeups(pid: int) -> int:
    """Every time a thread of ``pid`` went to sleep and was woken, so far."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            status = (task / "status").read_text()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("voluntary_ctxt_switches:"):
                total += int(line.split()[1])
    return total


@pytest.fixture
def app(tmp_path: Path) -> Iterator[PtyApp]:
    started = PtyApp([], app_env(tmp_path), size=(100, 30))
    yield started
    started.close()


def test_the_quiet_driver_stands_in_for_textuals_linux_driver_only() -> None:
    assert quiet_input(LinuxDriver) is QuietLinuxDriver
    assert quiet_input(HeadlessDriver) is HeadlessDriver


def test_an_idle_game_sleeps_and_still_answers_keys_escape_and_leaving(app: PtyApp) -> None:
    app.wait_for("fishing card game")
    time.sleep(QUIET)  # no input for a while: the keyboard thread sleeps
    before = _wakeups(app.pid)
    time.sleep(1.0)
    # Textual's own loop wakes ten times a second; asleep, nothing wakes (a little slack for
    # anything else the process might do once)
    assert _wakeups(app.pid) - before <= 3
    mark = app.mark()
    app.send("r")  # the rules, from a thread that was asleep
    app.wait_for("Esc close", since=mark)
    time.sleep(QUIET)
    mark = app.mark()
    app.send("\x1b")  # a lone Escape: told from a sequence's start by its timeout, as before
    app.wait_for("fishing card game", since=mark)
    time.sleep(QUIET)
    app.send("q")  # leaving wakes it: the program ends at once, as before
    assert app.wait_exit(10) == 0


def test_leaving_does_not_wait_for_a_key_when_the_app_is_slow_to_signal_the_stop(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Leaving wakes the sleeping keyboard thread and then signals it to stop; the app's
    thread may be held up in between for longer than the thread stays awake after a wake (a
    busy host, a game at a low priority: a crowd's player waited 60 s for their quit), and
    the thread must not go back to waiting for a key with no timeout then: Textual waits
    for it to end, and the game would not end until a key or a hang-up came (it stayed awake
    for half a second after a wake, and a game held up longer hung at its quit)."""
    import asyncio
    import os
    import signal
    import threading
    from unittest import mock

    HELD_UP = 1.5  # seconds
    handlers = {sig: signal.getsignal(sig) for sig in (signal.SIGTSTP, signal.SIGCONT,
                                                        signal.SIGWINCH)}
    master, slave = os.openpty()

    async def leave() -> tuple[float, bool]:
        driver = QuietLinuxDriver(mock.Mock(), mouse=False)  # (Textual's needs a loop)
        driver.fileno = slave
        keys = threading.Thread(target=driver.run_input_thread, daemon=True)
        driver._key_thread = keys
        keys.start()
        await asyncio.sleep(0.2)  # asleep: no key, no timeout pending
        # the app's thread held up between the wake and Textual's signal to stop
        monkeypatch.setattr(driver, "_disable_mouse_support", lambda: time.sleep(HELD_UP))
        # (a key after a while ends the wait, if it comes to that)
        rescue = threading.Timer(HELD_UP + 4.0, os.write, (master, b"x\n"))
        rescue.start()
        started = time.monotonic()
        driver.disable_input()  # Textual's: our wake first, then its stop, and it joins
        took = time.monotonic() - started
        rescue.cancel()
        driver.close()
        return took, keys.is_alive()

    try:
        took, alive = asyncio.run(leave())
    finally:
        for sig, handler in handlers.items():
            signal.signal(sig, handler)
        os.close(master)
        os.close(slave)
    assert not alive
    assert took < HELD_UP + 1.0, f"leaving waited {took:.1f}s for a key"


def test_the_input_thread_ends_as_soon_as_textual_tells_it_to(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Textual's signal to stop (``exit_event``, set when input is disabled: leaving or
    suspending) wakes the input thread, which ends without waiting for a poll: with the poll
    made a minute long, the thread still ends (it used to sleep up to two polls here)."""
    import asyncio
    import os
    import signal
    import threading

    from casino_tui.app import quiet_input as qi

    monkeypatch.setattr(qi, "POLL", 60.0)
    handlers = {sig: signal.getsignal(sig) for sig in (signal.SIGTSTP, signal.SIGCONT)}
    master, slave = os.openpty()

    async def run() -> tuple[bool, bool]:
        driver = QuietLinuxDriver(object())  # type: ignore[arg-type]
        driver.fileno = slave
        thread = threading.Thread(target=driver.run_input_thread, daemon=True)
        thread.start()
        time.sleep(0.2)  # asleep in its select, no timeout pending
        alive_before = thread.is_alive()
        driver.exit_event.set()
        thread.join(10)
        ended = not thread.is_alive()
        driver.close()
        return alive_before, ended

    try:
        alive_before, ended = asyncio.run(run())
    finally:
        for sig, handler in handlers.items():
            signal.signal(sig, handler)
        os.close(master)
        os.close(slave)
    assert alive_before
    assert ended
