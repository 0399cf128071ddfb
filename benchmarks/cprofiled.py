"""The game under cProfile, for :mod:`benchmarks.keycpu` (``--cprofile FILE``).

``python -m benchmarks.cprofiled FILE [casino-tui arguments]`` runs the game as ``python -m
casino_tui`` does; SIGUSR1 starts profiling its main thread (where Textual handles keys and
draws), SIGUSR2 pauses it (until the next SIGUSR1), and the statistics are written to FILE
(``pstats`` format) when the game ends. Read them with ``python -m pstats FILE`` or
:func:`pstats.Stats`. With ``CPROFILED_WARM=1`` in its environment the game first warms up
as ``serve``'s fork server does before it forks a game (``forkserver._warm_up``: the title
drawn once headless, every screen's CSS parsed), so that the profile is a served game's. A
measuring tool, not a test.
"""

from __future__ import annotations

import cProfile
import os
import signal
import sys
import time
from types import FrameType


def main() -> int:
    output, argv = sys.argv[1], sys.argv[2:]
    # wall time of the main thread: the game's own clock (CPU-time clocks cost a system call
    # each, which would swamp the many small calls of drawing)
    profile = cProfile.Profile(time.perf_counter)

    def start(signum: int, frame: FrameType | None) -> None:
        profile.enable()

    def pause(signum: int, frame: FrameType | None) -> None:
        profile.disable()

    if os.environ.get("CPROFILED_WARM"):
        from casino_tui.serve.forkserver import _warm_up

        _warm_up()
    signal.signal(signal.SIGUSR1, start)
    signal.signal(signal.SIGUSR2, pause)
    from casino_tui.__main__ import main as game

    try:
        return game(argv)
    finally:
        profile.disable()
        profile.dump_stats(output)


if __name__ == "__main__":
    sys.exit(main())
