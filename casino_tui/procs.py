"""Process helpers shared by the computer players' worker (``ai.worker``) and the browser front
end (``web.server``): a process that must not outlive its parent asks the kernel for a signal
when the parent dies."""

from __future__ import annotations

import ctypes
import sys
from collections.abc import Callable

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
