"""Textual's keyboard thread asleep while nobody types.

Textual 8's Linux driver reads the terminal in a thread that wakes ten times a second
(``selector.select(0.1)``) to see whether input came and whether a lone Escape's sequence has
timed out, whether anything came or not: about 1 ms of CPU a second for every game, idle or
not, which at 200 players is a fifth of a core (and at a key every two seconds, as much as a
tenth of what a key costs the game: benchmarks/keycpu.py). :func:`quiet_input` gives the app
that driver with the same loop, except that once :data:`QUIET_AFTER` seconds have passed since
the last input (a lone Escape's timeout is long over by then) it waits for input without a
timeout; disabling input (suspending, leaving) wakes it through a pipe of its own.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import time
from typing import Any

from textual.drivers import linux_driver

# Seconds after the last input during which the thread still wakes ten times a second (as
# Textual's does), so that a lone Escape (Textual's escape delay is 0.1 s) is told from the
# start of a sequence as quickly as before.
QUIET_AFTER = 0.5
POLL = 0.1  # Textual's own interval, while input is recent


class QuietLinuxDriver(linux_driver.LinuxDriver):
    """Textual's Linux driver whose input thread sleeps while no input comes."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._wake_r, self._wake_w = os.pipe()  # (not inherited by child processes)
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)

    def _wake(self) -> None:
        with contextlib.suppress(OSError):  # full (it is awake already) or closed
            os.write(self._wake_w, b"w")

    def disable_input(self) -> None:
        # The thread wakes and waits ten times a second again, so it sees the exit Textual
        # signals next (and joins) as soon as it would have before.
        self._wake()
        super().disable_input()

    def close(self) -> None:
        super().close()
        for fd in (self._wake_r, self._wake_w):
            with contextlib.suppress(OSError):
                os.close(fd)

    def run_input_thread(self) -> None:
        """Textual's ``LinuxDriver.run_input_thread`` (8.2), waiting without a timeout once
        input is no longer recent."""
        selector = selectors.SelectSelector()
        fileno = self.fileno
        wake = self._wake_r
        selector.register(fileno, selectors.EVENT_READ)
        selector.register(wake, selectors.EVENT_READ)
        EVENT_READ = selectors.EVENT_READ

        parser = linux_driver.XTermParser(self._debug)
        feed = parser.feed
        tick = parser.tick

        # the module's decoder, as Textual's loop takes it (casino_tui.app.input_bytes makes
        # it lenient)
        decode = linux_driver.getincrementaldecoder("utf-8")().decode
        read = os.read
        monotonic = time.monotonic

        def process_selector_events(
                selector_events: list[tuple[selectors.SelectorKey, int]],
                final: bool = False) -> None:
            for last, (_selector_key, mask) in linux_driver.loop_last(selector_events):
                if mask & EVENT_READ:
                    unicode_data = decode(read(fileno, 1024 * 4), final=final and last)
                    if not unicode_data:
                        # This can occur if the stdin is piped
                        break
                    for event in feed(unicode_data):
                        self.process_message(event)
            for event in tick():
                self.process_message(event)

        def select(timeout: float | None) -> list[tuple[selectors.SelectorKey, int]]:
            ready = selector.select(timeout)
            if any(key.fd == wake for key, _mask in ready):
                with contextlib.suppress(OSError):
                    while read(wake, 512):
                        pass
            return [(key, mask) for key, mask in ready if key.fd == fileno]

        last_input = monotonic()
        try:
            while not self.exit_event.is_set():
                quiet = monotonic() - last_input >= QUIET_AFTER
                ready = select(None if quiet else POLL)
                if ready or quiet:  # input, or woken: ten times a second again for a while
                    last_input = monotonic()
                process_selector_events(ready)
            selector.unregister(fileno)
            process_selector_events(select(POLL), final=True)

        finally:
            selector.close()
            try:
                for _event in feed(""):
                    pass
            except (EOFError, linux_driver.ParseError):
                pass


def quiet_input(driver_class: type) -> type:
    """``driver_class``, or the quiet one in its place when it is Textual's Linux driver."""
    if driver_class is linux_driver.LinuxDriver:
        return QuietLinuxDriver
    return driver_class
