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


def test_each_measured_key_keeps_its_name_and_the_rounds_last_play_can_be_named() -> None:
    """The figures by key (benchmarks.load, ``key_to_screen_by_key``) need each measured key's
    name beside its latency; the player's last play of the round is named ``last_play``, and
    only if it was the last key sent and was measured."""
    async def go() -> Keyboard:
        screen = Screen()
        keys = Keyboard(lambda data: screen.feed(b"drawn"), screen)
        await keys.press(KEY_RIGHT, settle=0, measure=True)
        await keys.press(KEY_ENTER, settle=0, measure=True)
        keys.relabel_last("last_play")
        await keys.press(b"m", settle=0, measure=True)
        await keys.press(KEY_ENTER, settle=0, measure=False)  # not measured: not renamed
        keys.relabel_last("last_play")
        return keys

    keys = asyncio.run(go())
    assert keys.measured_keys == ["Right", "last_play", "m"]
    assert len(keys.latencies) == len(keys.measured_at) == 3


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


def test_a_transcript_keeps_output_keys_and_waits_and_replays_the_screen(
        tmp_path: Path) -> None:
    """``--transcripts``: every chunk (raw, escape sequences and all), key and wait with its
    time; ``replay`` plays the chunks into a terminal emulator to show the screen then."""
    async def go() -> loadkit.Transcript:
        transcript = loadkit.Transcript()
        screen = Screen(transcript)
        keys = Keyboard(lambda data: None, screen)
        screen.feed(b"\x1b[2J\x1b[1;1HSouth trailed 8\xe2\x99\xa0", at=1.0)
        await keys.press(KEY_ENTER, settle=0)
        with pytest.raises(TimeoutError):
            await screen.wait("Your turn", timeout=0.01)
        screen.feed(b"\x1b[2;3HYour turn", at=time.monotonic() + 10)
        return transcript

    transcript = asyncio.run(go())
    path = tmp_path / "load1.jsonl"
    transcript.write(path, {"player": "load1", "size": [20, 3], "error": "TimeoutError"})
    shown = loadkit.replay(path)
    lines = shown.splitlines()
    assert '"error": "TimeoutError"' in lines[0]
    rule = lines.index("-" * 20)
    assert lines[rule + 1: rule + 4] == ["South trailed 8♠", "  Your turn", ""]
    assert "key Enter" in shown and "wait ['Your\\\\ turn']" in shown
    # at a moment before the second chunk: only the first one's text
    early = loadkit.replay(path, at=0.5).splitlines()
    assert early[rule + 1: rule + 3] == ["South trailed 8♠", ""]
    out = subprocess.run([sys.executable, "-m", "benchmarks.loadkit", "replay", str(path)],
                         capture_output=True, text=True)
    assert out.returncode == 0 and "  Your turn" in out.stdout


class _StaleRedrawGame:
    """A solo game as the load script reads it (South against North, ``deal`` cards a deal).
    It takes its keys one at a time, in order, a move taking it ``busy`` seconds (a game
    waiting for a core); North answers ``busy`` seconds after the move. With ``stale``, each
    Enter is first answered by a redraw of the whole screen as it was before the move (the
    log's old lines and "Your turn" again: the game redraws everything when a dialog closes
    or a deal comes), and only then by the move."""

    def __init__(self, screen: Screen, deal: int = 4, stale: bool = True,
                 busy: float = 0.3) -> None:
        self.screen, self.deal, self.stale, self.busy = screen, deal, stale, busy
        self.hand = deal
        self.phase = "title"
        self.players_turn = True
        self.moves = 0
        self.wasted: list[str] = []  # keys that did nothing: Right at one card, out of turn
        self.free_at = 0.0

    def row(self) -> str:
        cards = " ".join(f"{'┏' if i == 1 else '┌'}{i}──{'┓' if i == 1 else '┐'}"
                         for i in range(1, self.hand + 1))
        return f"│ {cards or '(no cards in hand)'}      │\r\n"

    def whole(self) -> str:
        turn = "✓ Your turn" if self.players_turn else "… North is thinking…"
        return f"Deal 1\r\n│ South trailed 9♦ │\r\n╭─ Your hand ─╮\r\n{self.row()}{turn}\r\n"

    def draw(self, text: str) -> None:
        self.screen.feed(text.encode())

    def send(self, data: bytes) -> None:
        loop = asyncio.get_running_loop()
        start = max(loop.time(), self.free_at)
        self.free_at = start + (self.busy if data == KEY_ENTER else 0.01)
        loop.call_at(start, self.take, data)

    def take(self, data: bytes) -> None:
        loop = asyncio.get_running_loop()
        if self.phase == "title":
            self.phase = "setup"
            self.draw("Preset: Classic")
        elif self.phase == "setup":
            self.phase = "play"
            self.draw(self.whole())
        elif data == KEY_RIGHT:
            if self.players_turn and self.hand > 1:
                self.draw(self.row() + "▸ Trail 4♣\r\n")
            else:
                self.wasted.append(f"Right with {self.hand} card(s)")
        elif data == KEY_ENTER:
            if not self.players_turn:
                self.wasted.append("Enter in North's turn")
                self.draw("✗ It is North's turn: wait for your turn\r\n")
                return
            if self.stale:
                self.draw(self.whole())  # the position before the move, drawn again
            loop.call_later(self.busy, self.play)

    def play(self) -> None:
        self.moves += 1
        self.hand -= 1
        self.players_turn = False
        self.draw(f"│ South trailed K♠ │\r\n{self.row()}… North is thinking…\r\n")
        asyncio.get_running_loop().call_later(self.busy, self.answer)

    def answer(self) -> None:
        self.players_turn = True
        dealt = "" if self.hand else "New deal\r\n"
        self.hand = self.hand or self.deal
        self.draw(f"│ North trailed 2♥ │\r\n{dealt}{self.row()}✓ Your turn\r\n")


def test_the_script_counts_a_move_when_the_hand_changes_not_at_a_redraw_of_old_words(
        ) -> None:
    """A turn is taken only once the move before it is on the screen, and Right is skipped
    exactly when the hand on screen holds one card, also when the game redraws the old
    position (old log lines, "Your turn") between a key and its effect: the script once took
    such a redraw for its move and the next turn, and then pressed Right and Enter in the
    computer's turn, one turn ahead of the game for the rest of the round."""
    from benchmarks.load import Result, _script

    async def go() -> tuple[_StaleRedrawGame, Result, Keyboard]:
        screen = Screen()
        game = _StaleRedrawGame(screen, busy=0.2)
        keys = Keyboard(game.send, screen)
        res = Result(1)
        screen.feed(f"{loadkit.TITLE}\r\n".encode())
        await _script(keys, screen, res, time.monotonic(), 5.0, moves=5)  # a deal and one
        return game, res, keys

    game, res, keys = asyncio.run(go())
    assert (res.turns, game.moves) == (5, 5)  # each turn the script took was the game's
    assert game.wasted == []
    assert keys.unredrawn == []


def test_a_key_never_redrawn_is_told_apart_drawn_late_nothing_to_draw_or_never_drawn() -> None:
    from benchmarks.load import unredrawn_figures

    missed = [loadkit.Unredrawn("Enter", "", later_s=6.2, hand=3),
              loadkit.Unredrawn("Right", "", hand=1),  # one card: nothing else to choose
              loadkit.Unredrawn("Right", "", hand=0),
              loadkit.Unredrawn("Right", "", hand=3),  # a card to choose: it should show
              loadkit.Unredrawn("Right", ""),  # the hand never read: not excused
              loadkit.Unredrawn("m", "", hand=2)]
    assert [m.verdict for m in missed] == ["drawn late", "nothing to draw", "nothing to draw",
                                           "never drawn", "never drawn", "never drawn"]
    figures = unredrawn_figures(missed)
    assert figures["never_redrawn_by_key"] == {"Enter": 1, "Right": 4, "m": 1}
    assert (figures["never_redrawn_drawn_later"], figures["never_redrawn_nothing_to_draw"]) == (
        1, 2)
    assert figures["never_drawn_by_key"] == {"Right": 2, "m": 1}


def test_the_hand_is_read_from_whole_rows_only() -> None:
    rows = ["│ ┌1──┐ ┏2━━┓ ┌3──┐ ┌4──┐        │", "│ ┏1━━┓      \r",
            "│ (no cards in hand)   │"]
    assert [loadkit.cards_shown(m.group()) for r in rows
            for m in [loadkit.HAND_ROW.search(r)] if m] == [4, 1, 0]
    # cut by a dialog drawn over it, or by the end of a chunk: not read
    for cut in ["│ ┌1──┐ ┏2━━│ │ All legal moves", "│ ┌1──┐ ┏2━━┓ ┌3──┐  "]:
        assert loadkit.HAND_ROW.search(cut) is None


def test_a_key_drawn_late_is_waited_for_before_the_next_key() -> None:
    """With ``late_timeout``, a key with no output within the redraw timeout is waited for
    longer, so its late output is its own (not taken for the next key's), and one that
    should draw nothing (``drawn=False``) is not."""
    async def go() -> tuple[Keyboard, float]:
        screen = Screen()
        keys = Keyboard(lambda data: None, screen, redraw_timeout=0.05, late_timeout=5)
        asyncio.get_running_loop().call_later(0.2, screen.feed, b"late frame")
        started = time.monotonic()
        await keys.press(KEY_RIGHT, settle=0, measure=True)  # returns with its late output
        took = time.monotonic() - started
        await keys.press(KEY_RIGHT, settle=0, measure=True, drawn=False)  # not waited for
        return keys, took

    keys, took = asyncio.run(go())
    late, nothing = keys.unredrawn
    assert 0.2 <= took < 1.0 and late.later_s is not None and late.later_s >= 0.2
    assert late.verdict == "drawn late"
    assert nothing.later_s is None and len(keys.sent_at) == 2


def test_memory_figures_give_each_game_in_the_order_they_started() -> None:
    """``pss_mib_by_start``: each game's PSS at the peak, in the order of their pids (at
    tables the creators first, then those who joined by code), beside the mean and max."""
    from benchmarks.load import memory_figures
    from benchmarks.loadkit import MemoryPeak

    peak = MemoryPeak(sessions={300: (30000, 20480, 1), 100: (30000, 19456, 1),
                                200: (30000, 21504, 2)})
    figures = memory_figures(peak)
    assert figures["pss_mib_by_start"] == [19.0, 21.0, 20.0]
    assert figures["pss_mib_per_player"] == 20.0
    assert figures["pss_mib_per_player_max"] == 21.0
