"""The load tool's pieces (benchmarks/loadkit.py), without a server: the screen a scripted
player reads (matching across chunks, the true arrival of each chunk), the record of keys never
redrawn, the event loop's lag, the keys the script skips, and the memory sampler's own
process. The whole tool over SSH is tested in test_serve.py (test_load_tool_*)."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from benchmarks import loadkit
from benchmarks.loadkit import KEY_ENTER, KEY_RIGHT, Keyboard, LoopLag, Screen
from casino_tui.procs import autogroup_nice


def test_a_wait_matches_text_split_between_chunks_and_escape_sequences() -> None:
    async def go() -> tuple[int, int]:
        screen = Screen()
        waiting = asyncio.create_task(screen.wait("Round 1 summary", "✓ Your turn",
                                                  timeout=5))
        await asyncio.sleep(0)
        screen.feed(b"\x1b[1;1H\xe2\x9c", at=1.0)  # a character cut in its UTF-8 ...
        screen.feed(b"\x93 Your \x1b[", at=2.0)  # ... an escape sequence cut in two ...
        screen.feed(b"7mtu", at=3.0)
        assert not waiting.done()
        screen.feed(b"rn and more", at=4.0)
        first = await waiting
        # the mark moved past the match: the same words again are needed for the next wait
        second = asyncio.create_task(screen.wait("Your turn", timeout=5))
        await asyncio.sleep(0)
        assert not second.done()
        screen.feed(b"Your turn", at=5.0)
        return first, await second

    assert asyncio.run(go()) == (1, 0)


def test_a_wait_takes_the_patterns_in_order_and_only_after_the_mark() -> None:
    async def go() -> list[int]:
        screen = Screen()
        screen.feed(b"Your turn, long ago")
        screen.mark()
        screen.feed(b"South trailed 8 ... Round 2 summary")
        found = [await screen.wait("Round 2 summary", "South trailed", timeout=1)]
        with pytest.raises(TimeoutError, match=r"none of \('Your turn',\) within 0.05s"):
            await screen.wait("Your turn", timeout=0.05)
        screen.feed(b"x")
        screen.close()
        with pytest.raises(EOFError):
            await screen.wait("never", timeout=1)
        return found

    assert asyncio.run(go()) == [0]


def test_seen_after_gives_the_arrival_of_the_chunk_that_completed_the_match() -> None:
    async def go() -> tuple[int, float]:
        screen = Screen()
        screen.feed(b"Ann trailed 8", at=1.0)  # before the offset: not this move
        received = screen.received
        seen = asyncio.create_task(screen.seen_after(received, re.compile(r"Ann trailed \w+"),
                                                     "Round 1 summary", timeout=5))
        await asyncio.sleep(0)
        screen.feed(b"  Ann tra", at=2.0)
        screen.feed(b"iled K and then", at=3.0)
        screen.feed(b" Round 1 summary", at=4.0)
        return await seen

    assert asyncio.run(go()) == (0, 3.0)


def test_next_chunk_is_the_first_chunk_after_the_key_not_the_last_seen() -> None:
    async def go() -> tuple[float | None, float | None, float | None]:
        screen = Screen()
        screen.feed(b"before", at=1.0)
        before = screen.chunks
        waiting = asyncio.create_task(screen.next_chunk(before, timeout=5))
        await asyncio.sleep(0)
        # two chunks come before the waiting task runs again: the first one's time counts
        screen.feed(b"a", at=2.0)
        screen.feed(b"b", at=3.0)
        first = await waiting
        already = await screen.next_chunk(before, timeout=5)  # asked late: still chunk 2
        none = await screen.next_chunk(screen.chunks, timeout=0.05)
        return first, already, none

    assert asyncio.run(go()) == (2.0, 2.0, None)


def test_old_text_is_dropped_and_the_marks_and_waits_stay_right(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(loadkit, "KEEP_TEXT", 100)

    async def go() -> tuple[int, float, int]:
        screen = Screen()
        screen.feed(b"x" * 150, at=1.0)
        screen.mark()
        waiting = asyncio.create_task(screen.wait("Your turn", timeout=5))
        offset = screen.received
        seen = asyncio.create_task(screen.seen_after(offset, "Your turn", timeout=5))
        await asyncio.sleep(0)
        screen.feed(b"y" * 150, at=2.0)  # drops old text: offsets move
        screen.feed(b"Your turn", at=3.0)
        found = await waiting
        _, at = await seen
        assert len(screen.text) <= 2 * loadkit.KEEP_TEXT and screen.dropped > 0
        return found, at, len(screen.text) - screen.mark_at

    assert asyncio.run(go()) == (0, 3.0, 0)


def test_a_key_never_redrawn_is_kept_with_its_screen_and_its_late_output() -> None:
    async def go() -> Keyboard:
        screen = Screen()
        keys = Keyboard(lambda data: None, screen, redraw_timeout=0.05)
        screen.feed(b"\xe2\x9c\x93 Your turn")
        await keys.press(KEY_RIGHT, settle=0, measure=True)  # nothing comes
        screen.feed(b"late frame")  # ... until after the redraw timeout
        await keys.press(KEY_ENTER, settle=0, measure=True)  # nothing again, and none later
        keys.finish()
        await keys.press(b"m", settle=0, measure=False)
        return keys

    keys = asyncio.run(go())
    assert keys.no_redraw == 2 and keys.latencies == []
    right, enter = keys.unredrawn
    assert (right.key, enter.key) == ("Right", "Enter")
    assert right.before.endswith("✓ Your turn") and enter.before.endswith("late frame")
    assert right.later_s is not None and right.later_s >= 0.05
    assert enter.later_s is None
    assert len(keys.sent_at) == 3


def test_the_script_skips_right_only_at_the_last_card_of_a_deal() -> None:
    hands = [loadkit.cards_in_hand(turn) for turn in range(1, 10)]
    assert hands == [4, 3, 2, 1, 4, 3, 2, 1, 4]
    assert [t for t in range(1, 25) if not loadkit.right_changes_something(t)] == [
        4, 8, 12, 16, 20, 24]


def test_loop_lag_sees_a_busy_event_loop() -> None:
    async def go() -> list[float]:
        lag = LoopLag()
        lag.start()
        await asyncio.sleep(0.05)
        time.sleep(0.08)  # the loop is busy: the sleeper wakes late
        await asyncio.sleep(0.05)
        await lag.stop()
        return lag.samples

    samples = asyncio.run(go())
    assert len(samples) >= 3 and max(samples) >= 0.06
    assert sorted(samples)[len(samples) // 2] < 0.06  # most wake-ups were on time


def test_the_memory_sampler_measures_a_peak_in_full_only_when_it_grew_enough() -> None:
    """More games always; as many games only with over 1% more RSS than the peak."""
    assert loadkit.beats_peak((11, 1000), (10, 5000))
    assert not loadkit.beats_peak((9, 9000), (10, 5000))
    assert not loadkit.beats_peak((10, 5040), (10, 5000))
    assert loadkit.beats_peak((10, 5060), (10, 5000))
    assert loadkit.beats_peak((1, 10), (0, 0))


def test_the_memory_sampler_runs_in_its_own_process(tmp_path: Path) -> None:
    """``python -m benchmarks.loadkit sample``: a game the server's log names (leading its own
    process group) is found and measured by a process of its own, which reports its CPU; it
    runs below the games once it has sampled (nice 19, in a session and so a scheduler
    autogroup of its own, at 19 too), so that its reads of /proc never hold up the moves the
    tool measures."""
    game = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"],
                            start_new_session=True)
    try:
        log = tmp_path / "server.log"
        log.write_text(f"session 1 start: key SHA256:x pid {game.pid}\n")

        async def go() -> tuple[loadkit.MemoryPeak, float | None, int, int, int,
                                int | None]:
            sampler = await loadkit.start_sampler(os.getpid(), log)
            await asyncio.sleep(1.5)
            for _ in range(200):  # lowered after its first sample (slow on a busy machine)
                niceness = os.getpriority(os.PRIO_PROCESS, sampler.pid)
                if niceness == 19:
                    break
                await asyncio.sleep(0.1)
            session = os.getsid(sampler.pid)
            autogroup = autogroup_nice(sampler.pid)
            peak, cpu = await loadkit.stop_sampler(sampler)
            return peak, cpu, sampler.pid, niceness, session, autogroup

        peak, cpu, pid, niceness, session, autogroup = asyncio.run(go())
    finally:
        game.kill()
        game.wait()
    assert pid != os.getpid()
    assert niceness == 19 and session != os.getsid(0)  # below the games, in a group of its own
    if autogroup is not None:
        assert autogroup == 19
    assert list(peak.sessions) == [game.pid]
    rss, pss, processes = peak.sessions[game.pid]
    assert rss > 1000 and pss > 0 and processes == 1
    assert game.pid in peak.cpu and peak.server_rss > 0
    assert cpu is not None and cpu > 0
    assert subprocess.run([sys.executable, "-m", "benchmarks.loadkit", "what"],
                          capture_output=True, text=True).returncode == 2
