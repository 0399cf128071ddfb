"""Join codes cannot be found by guessing: :class:`CodeGuard` limits the wrong codes a player
(their key) and an address may try.

Every code that names no open table counts against the player who tried it and against their
address (an IPv6 address counts with its whole /64, which one client usually holds). The first
:data:`FREE_TRIES` wrong codes cost nothing (typing mistakes); after that, each try must wait
twice as long as the one before, from 1 second up to :data:`MAX_DELAY`, after the last wrong
code of that player or that address (whichever makes the wait longer). A try made too soon is
refused at once with how long to wait, and is not looked up. Wrong codes are forgotten
:data:`FORGET_AFTER` seconds after they were tried.

At that pace one player, or one address, gets at most ``FREE_TRIES + 11`` tries in its first
hour and about ``86_400 / MAX_DELAY`` a day after that (:func:`tries_per_day`), which is what
the README's figures come from.

Pure Python (no asyncio): the table channel's service asks it before and tells it after each
``find`` and ``join``.
"""

from __future__ import annotations

import collections
import ipaddress
import math
import time
from collections.abc import Callable

FREE_TRIES = 5  # wrong codes without a wait
FIRST_DELAY = 1.0  # seconds to wait after the first wrong code past the free ones
MAX_DELAY = 600.0  # at most this long between two tries
FORGET_AFTER = 86_400.0  # a wrong code counts for a day
MAX_REMEMBERED = 100_000  # players and addresses remembered; quiet ones are forgotten first


def address_key(address: str) -> str:
    """What the limit per address counts: the address itself, an IPv6 address's /64."""
    if not address:
        return ""
    host = address
    try:
        ip = ipaddress.ip_address(host.strip("[]").split("%", 1)[0])
    except ValueError:
        return host
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


def delay_after(wrong: int) -> float:
    """Seconds to wait before the next try after ``wrong`` wrong codes."""
    if wrong < FREE_TRIES:
        return 0.0
    return min(MAX_DELAY, FIRST_DELAY * 2.0 ** (wrong - FREE_TRIES))


def tries_per_day() -> int:
    """Tries one player or one address gets in its first day (the free ones, then one per
    growing delay up to :data:`MAX_DELAY`, then one every :data:`MAX_DELAY`)."""
    spent, tries = 0.0, FREE_TRIES
    while True:
        wait = delay_after(tries)
        if spent + wait > FORGET_AFTER:
            return tries
        spent += wait
        tries += 1


class CodeGuard:
    """The wrong codes of each player and address; ``clock``: seconds (tests move it on).

    ``refused``: tries turned down for coming too soon (a metrics endpoint may read it);
    ``wrong``: wrong codes tried in all."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.refused = 0
        self.wrong = 0
        self._tries: dict[str, collections.deque[float]] = {}

    def wait(self, player: str, address: str = "") -> float:
        """Seconds ``player`` (from ``address``) must still wait before trying a code (0: they
        may try now)."""
        now = self.clock()
        longest = 0.0
        for key in self._keys(player, address):
            times = self._recent(key, now)
            if times:
                longest = max(longest, times[-1] + delay_after(len(times)) - now)
        return max(0.0, longest)

    def check(self, player: str, address: str = "") -> int:
        """0 when the try may go ahead, else the whole seconds to wait (counted as refused)."""
        wait = self.wait(player, address)
        if wait <= 0:
            return 0
        self.refused += 1
        return max(1, math.ceil(wait))

    def failed(self, player: str, address: str = "") -> None:
        """``player`` tried a code that names no table."""
        now = self.clock()
        self.wrong += 1
        for key in self._keys(player, address):
            self._recent(key, now).append(now)
        if len(self._tries) > MAX_REMEMBERED:
            self._forget(now)

    def _keys(self, player: str, address: str) -> list[str]:
        keys = [f"player {player}"]
        where = address_key(address)
        if where:
            keys.append(f"address {where}")
        return keys

    def _recent(self, key: str, now: float) -> collections.deque[float]:
        times = self._tries.setdefault(key, collections.deque())
        while times and times[0] <= now - FORGET_AFTER:
            times.popleft()
        return times

    def _forget(self, now: float) -> None:
        for key in [k for k, v in self._tries.items() if not v or v[-1] <= now - MAX_DELAY]:
            del self._tries[key]
