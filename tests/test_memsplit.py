"""benchmarks.memsplit (a forked game's private memory split into pages copied from the fork
server and pages new to it) reads page frames right: on a child forked from this process, the
page it wrote is copied and the object on it written, the page it wrote and put back is a copy
with the parent's bytes, the page it did not touch is shared, and the pages it was the first to
use are new. Needs root (page frames in /proc/PID/pagemap)."""

from __future__ import annotations

import array
import ctypes
import mmap
import os
from pathlib import Path

import pytest

from benchmarks.memsplit import PAGE, ObjectMap, page_counts, split, write_object_map

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="page frames need root")


def test_the_split_finds_copied_written_restored_shared_and_new_pages(tmp_path: Path) -> None:
    area = mmap.mmap(-1, 24 * PAGE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    base = ctypes.addressof(ctypes.c_char.from_buffer(area))
    for page in range(24):
        area[page * PAGE] = 1  # in memory in the parent
    # pages the parent never uses, and the child does: new. (Not a mapping the child makes
    # after the fork: the parent, allocating as it reads the child's pages, could map its own
    # memory at the same address, which the split then finds copied; it did when run alone.)
    unused = mmap.mmap(-1, 16 * PAGE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    kinds = ["written", "restored", "untouched"]
    starts = array.array("Q", [base + 2 * PAGE + 128, base + 5 * PAGE + 128, base + 23 * PAGE])
    ends = array.array("Q", [s + 64 for s in starts])
    write_object_map(tmp_path / "map", kinds, starts, ends, array.array("H", [0, 1, 2]))
    ready_r, ready_w = os.pipe()
    done_r, done_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: write one object, write another and put it back, use new pages
        try:
            area[2 * PAGE + 130] = 7
            for page in range(4, 20):  # 64 KiB written and put back
                area[page * PAGE + 130] = 9
                area[page * PAGE + 130] = 0
            for page in range(16):
                unused[page * PAGE] = 1
            os.write(ready_w, b"x")
            os.read(done_r, 1)
        finally:
            os._exit(0)
    try:
        assert os.read(ready_r, 1) == b"x"
        out = split(pid, os.getpid(), ObjectMap(tmp_path / "map"))
        copied: dict[int, str] = {}
        counts = page_counts(pid, os.getpid(), copied)  # (--steps: the same, without objects)
    finally:
        os.write(done_w, b"x")
        os.waitpid(pid, 0)
        for fd in (ready_r, ready_w, done_r, done_w):
            os.close(fd)
        unused.close()
    rows = {row["kind"]: row for row in out["by_kind_on_copied_pages"]}
    assert rows["written"]["objects_on_copied"] == 1 and rows["written"]["changed"] == 1
    assert rows["restored"]["objects_on_copied"] == 1 and rows["restored"]["changed"] == 0
    assert "untouched" not in rows  # its page is still the parent's
    pages = out["pages_mib"]
    sixteen = round(16 * PAGE / 2**20, 2)  # as the figures are rounded
    assert pages["copied"] >= sixteen
    assert pages["copied_unchanged"] >= sixteen
    assert pages["new"] >= sixteen
    assert counts["copied"] >= sixteen and counts["new"] >= sixteen and counts["private"] > 0
    assert base + 2 * PAGE in copied and base + 4 * PAGE in copied
    assert base + 23 * PAGE not in copied  # still the parent's


def test_nodes_alive_counts_textual_screens_and_widgets_only() -> None:
    from textual.screen import Screen
    from textual.widgets import Static

    from benchmarks.memsplit import nodes_alive

    class LobbyScreen(Screen[None]):
        pass

    objects = [LobbyScreen(), Static(), Static(), object(), "Static", 3]
    assert nodes_alive(objects) == {"Static": 2, "LobbyScreen": 1}
    assert list(nodes_alive(objects)) == ["Static", "LobbyScreen"]  # most first


@pytest.mark.parametrize(("stop", "keys"), [
    ("title", []),
    ("name", [b"t"]),
    ("list", [b"t", b"Ann\r"]),
    ("form", [b"t", b"Ann\r", b"n"]),
    ("waiting", [b"t", b"Ann\r", b"n", b"\r"]),
    ("hand", [b"t", b"Ann\r", b"n", b"\r", b"s"]),
])
def test_to_a_table_stops_at_the_step_asked(monkeypatch: pytest.MonkeyPatch, stop: str,
                                            keys: list[bytes]) -> None:
    """``memsplit --table --stop STEP`` measures a game on that screen of the way to a table:
    the keys up to it are typed, and none after (each game gets every key)."""
    import asyncio

    from benchmarks import forks, memsplit

    waited: list[bytes] = []

    async def seen(_game: object, text: bytes, _timeout: float) -> None:
        waited.append(text)

    async def no_pause(_seconds: float) -> None:
        return None

    monkeypatch.setattr(forks, "wait_for", seen)
    monkeypatch.setattr(memsplit.asyncio, "sleep", no_pause)
    pipes = [os.pipe() for _ in range(2)]

    class Game:
        def __init__(self, master: int) -> None:
            self.master = master

    try:
        asyncio.run(memsplit.to_a_table([Game(w) for _r, w in pipes], stop))
        for read, _w in pipes:
            os.set_blocking(read, False)
            try:
                typed = os.read(read, 1024)
            except BlockingIOError:
                typed = b""
            assert typed == b"".join(keys)
    finally:
        for read, write in pipes:
            os.close(read)
            os.close(write)
    assert waited[:2] == [b"play with people here"] * 2  # the title first, in each game
    assert len(waited) == 2 * (1 + len(keys))
    assert stop in memsplit.STOPS
