"""Where a forked game's own memory comes from, object by object: ``python -m benchmarks.memsplit``.

    .venv/bin/python -m benchmarks.memsplit [--games 3] [--moves 3] [--settle 5] [--trace]
                                            [--table] [--snapshot FILE] [--stop STEP]
                                            [--unpacked] [--steps KEYS]

Run as root (it reads page frames in ``/proc/PID/pagemap`` and memory in ``/proc/PID/mem``). It
starts a fork server warmed up as under ``serve`` (this module's own ``_fork-server`` mode, which
is ``casino_tui``'s with two probes added), forks ``--games`` games on PTYs (100x30, the pool of
computer players on its channel, as :mod:`benchmarks.forks` does), starts a game in each and
plays ``--moves`` moves (Right, Enter), waits ``--settle`` seconds, then splits the first game's
private memory in two, page by page, against the fork server's:

* **copied**: the fork server had a page at that address and the game now has its own frame
  there (copied on write); ``copied_unchanged`` of those hold the fork server's bytes again;
* **new**: the fork server had no page there (a new mapping, or a part of one it had not used).

The probe in the fork server maps its objects before the fork: in a child of the fork server
forked right after ``gc.freeze()`` (so the fork server's own memory is not disturbed), every
object reachable from the collector's objects (code, strings and other untracked objects
included) with its address range (its collector header and managed-dict pointers before it),
and the separate blocks of dicts (their keys and values), lists and sets; each has a kind (its
type; a code object or function with its package; a dict with whose it is: a module's, a
class's, an instance's). For every copied page the objects on it are counted, and those whose
bytes now differ from the fork server's (at least those were written: a reference count raised
and lowered again looks unchanged), and the bytes on copied pages by kind. ``dense_mib`` is
what the changed objects would take if they were packed together: the least a layout could
copy.

``--table``: each game is played at a table of the server's (a hub on its channel in this
process, as under ``serve``, its computers in the pool): from the title ``t`` (Tables), a
display name and Enter, ``n`` and Enter (a new table of two), ``s`` (start: the open seat goes
to a computer), then the moves; what a player at a table of the load tool's runs
(``python -m benchmarks.load --tables``) against a computer.

``--stop STEP``: measure the games there instead, to see what each step costs: ``title``
(with or without ``--table``: the title with the tables' link, or a solo one's), and with
``--table`` ``name`` (the display name asked), ``list`` (the list of tables), ``form`` (the
new table's form), ``waiting`` (the waiting room) or ``hand`` (the default: the first hand,
then the moves).

``--unpacked``: the games run under :func:`casino_tui.serve.hotcode.recording` from their start,
and the first one reports the code it ran that the fork server did not pack
(``unpacked_code``, by file in ``unpacked_code_by_file``): what
:data:`~casino_tui.serve.hotcode.SERVED_ONLY_FUNCTIONS` should name. The profile hook costs the
games memory and time: no split then.

``--trace``: the games run ``tracemalloc`` from their start (after the fork: it sees only what
the game allocates itself) and, at the end, the first game reports its largest allocations by
line and by traceback, what ``gc`` finds (its collections so far, and the screens and widgets
still alive after a collection), the modules it imported itself, and
``sys._debugmallocstats()``. ``--snapshot FILE`` keeps that game's ``tracemalloc`` snapshot, to
compare two runs (a table game's and a solo one's, say) with ``Snapshot.load(...).compare_to``.
The report is made in a signal handler, wherever the game is: its own allocations (the
snapshot's, megabytes) count in ``tracemalloc``'s peak from then on. Tracing costs the game
memory of its own, so its page split is not measured then. Prints JSON; a measuring tool, not a
test.

``--steps m,esc,m,esc`` (after the moves and the settling): each key in turn to every game (a
character, ``esc``, ``enter``, ``right``, ``left``; ``gc``: a full collection in the game;
``to-summary``: Right and Enter until the first game shows its round's summary), and
``--settle`` seconds after each, the first game's private memory, its pages copied from the
fork server and new, the pages it copied since the step before (by mapping) and the fork
server's objects on them whose bytes differ, and whether it drew a round's summary: what a
dialog's first showing costs, say. With ``--trace --snapshot FILE``, that game's
``tracemalloc`` snapshot after each step too (``FILE.0`` before the first), to compare.
"""

from __future__ import annotations

import argparse
import array
import asyncio
import bisect
import contextlib
import gc
import json
import os
import signal
import statistics
import sys
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

TRACE_ENV = "CASINO_TUI_MEMSPLIT_TRACE"  # the games' report file (with --trace)
SNAPSHOT_ENV = "CASINO_TUI_MEMSPLIT_SNAPSHOT"  # where the report keeps its snapshot (--snapshot)
RECORD_ENV = "CASINO_TUI_MEMSPLIT_RECORD"  # the games' file of code run and not packed (--unpacked)
STEP_SIGNAL = signal.SIGRTMIN + 3  # (--steps --trace --snapshot) a snapshot, numbered
COLLECT_SIGNAL = signal.SIGRTMIN + 4  # (--steps gc) a full collection in the game
_GC_FLAG, _MANAGED_DICT = 1 << 14, 1 << 4
PAGE = os.sysconf("SC_PAGE_SIZE")
# (the benchmark's side imports benchmarks.forks only when it runs, so that the fork server, which
# runs this module too, imports nothing a served one does not)


def object_map_path(fork_server_pid: int) -> Path:
    return Path(tempfile.gettempdir()) / f"casino-memsplit-{fork_server_pid}.map"


# ====================================================================== in the fork server
def _package(filename: str) -> str:
    for name in ("casino_tui", "textual", "rich", "asyncssh", "asyncio", "markdown_it",
                 "platformdirs", "pygments"):
        if f"/{name}/" in filename:
            return name
    return "stdlib" if "/python3." in filename else "other"


def _dump_objects(path: Path) -> None:
    """Write the address range and kind of every object reachable from the collector's (in a
    throwaway child of the fork server: unfreezing and walking allocate)."""
    import ctypes

    gc.unfreeze()
    owners: dict[int, str] = {}
    for module in list(sys.modules.values()):
        with contextlib.suppress(Exception):
            owners[id(vars(module))] = "dict:module"
    kinds: dict[str, int] = {}
    starts, ends, codes = array.array("Q"), array.array("Q"), array.array("H")

    def add(begin: int, size: int, kind: str) -> None:
        if begin and size > 0:
            starts.append(begin)
            ends.append(begin + size)
            codes.append(kinds.setdefault(kind, len(kinds)))

    def ptr(address: int) -> int:
        return ctypes.c_void_p.from_address(address).value or 0

    seen: set[int] = set()
    stack: list[Any] = gc.get_objects()
    # this walk's own containers, made in this child: not the fork server's
    seen.update(id(x) for x in (seen, stack, starts, ends, codes, owners, kinds))
    while stack:
        obj = stack.pop()
        address = id(obj)
        if address in seen:
            continue
        seen.add(address)
        kind_type = type(obj)
        kind = kind_type.__name__
        try:
            size = sys.getsizeof(obj)
            own = obj.__sizeof__()
        except Exception:
            continue
        before = size - own if kind_type.__flags__ & _GC_FLAG else 0
        if isinstance(obj, type):
            for ref in gc.get_referents(obj):
                if type(ref) is dict:
                    owners[id(ref)] = "dict:class"
        if kind_type is dict:
            kind = owners.get(address, "dict")
            keys, values = ptr(address + 32), ptr(address + 40)
            keys_size = own - 48 - (8 * len(obj) if values else 0)
            add(keys, keys_size, kind + ":keys")
            add(values, 8 * len(obj), kind + ":values")
            own = 48
        elif kind_type is list:
            add(ptr(address + 24), 8 * ptr(address + 32), "list:items")
            own = 40
        elif kind_type in (set, frozenset):
            table = ptr(address + 40)
            if table != address + 64:
                add(table, 16 * (ptr(address + 32) + 1), "set:table")
                own = 200
        elif kind == "code":
            kind = f"code:{_package(obj.co_filename)}"
            stack.extend((obj.co_consts, obj.co_names, obj.co_varnames, obj.co_freevars,
                          obj.co_cellvars, obj.co_filename, obj.co_name, obj.co_qualname,
                          obj.co_linetable, obj.co_exceptiontable))
        elif kind == "function":
            kind = f"function:{_package(obj.__code__.co_filename)}"
        elif isinstance(obj, type):
            kind = f"type:{_package(str(getattr(sys.modules.get(obj.__module__), '__file__', '')))}"
        if kind_type.__flags__ & _MANAGED_DICT and not isinstance(obj, type):
            values = ptr(address - 32)
            if values:  # the instance's attribute values, beside its class's shared keys
                add(values - 8, 8 * 8, "instance values")
            dict_ = ptr(address - 24)
            if dict_:
                owners[dict_] = "dict:instance"
        add(address - before, own + before, kind)
        stack.extend(gc.get_referents(obj))
    write_object_map(path, sorted(kinds, key=kinds.__getitem__), starts, ends, codes)


def write_object_map(path: Path, kinds: list[str], starts: array.array[int],
                     ends: array.array[int], codes: array.array[int]) -> None:
    """The objects' ranges [start, end) and their kinds (an index in ``kinds``), as
    :class:`ObjectMap` reads them."""
    with open(path, "wb") as out:
        header = json.dumps(kinds).encode()
        out.write(len(header).to_bytes(8, "little") + header)
        out.write(len(starts).to_bytes(8, "little"))
        starts.tofile(out)
        ends.tofile(out)
        codes.tofile(out)


def _probe_merge_pages(original: Callable[[], bool]) -> Callable[[], bool]:
    """``merge_pages`` as the fork server calls it right after ``gc.freeze()``: first the
    object map, by a child of its own."""
    def probe() -> bool:
        pid = os.fork()
        if pid == 0:
            try:
                _dump_objects(object_map_path(os.getppid()))
            finally:
                os._exit(0)
        os.waitpid(pid, 0)
        return original()

    return probe


# ====================================================================== in a forked game
def _report(path: str, snapshot_to: str | None = None) -> None:
    """The game's allocations since its fork (tracemalloc), its collector and its allocator;
    with ``snapshot_to``, its tracemalloc snapshot dumped there (for ``compare_to``)."""
    import tracemalloc

    snapshot = tracemalloc.take_snapshot()
    if snapshot_to:
        snapshot.dump(snapshot_to)
    by_line = snapshot.statistics("lineno")
    by_trace = snapshot.statistics("traceback")
    garbage_before = len(gc.get_objects())
    collector = gc.get_stats()  # since the fork server started (the game's collections too)
    unreachable = gc.collect()
    report: dict[str, Any] = {
        "traced_mib": round(sum(s.size for s in by_line) / 2**20, 2),
        "gc_objects": garbage_before, "gc_unreachable_collected": unreachable,
        "gc_counts": gc.get_count(), "gc_threshold": gc.get_threshold(), "gc_stats": collector,
        "top_lines": [{"kib": round(s.size / 1024, 1), "count": s.count,
                       "at": str(s.traceback[0])} for s in by_line[:40]],
        "top_tracebacks": [{"kib": round(s.size / 1024, 1), "count": s.count,
                            "frames": [str(f) for f in s.traceback[:8]]}
                           for s in by_trace[:25]],
    }
    by_type = Counter(type(o).__name__ for o in gc.get_objects())
    report["gc_types"] = by_type.most_common(25)
    report["nodes_alive"] = nodes_alive(gc.get_objects())
    report["modules_since_fork"] = sorted(set(sys.modules) - _modules_at_fork)
    with open(path, "w") as out:
        json.dump(report, out)
    with open(path + ".malloc", "w") as out:  # _debugmallocstats writes to C's stderr
        saved = os.dup(2)
        try:
            os.dup2(out.fileno(), 2)
            sys._debugmallocstats()
        finally:
            os.dup2(saved, 2)
            os.close(saved)


def nodes_alive(objects: Iterable[object]) -> dict[str, int]:
    """Textual's screens and widgets among ``objects`` (after a collection: alive), by class
    name, most first: whether a screen gone from the stack (the lobby's, under a table's game)
    is still held."""
    from textual.dom import DOMNode

    counts = Counter(type(o).__name__ for o in objects if isinstance(o, DOMNode))
    return dict(counts.most_common())


_modules_at_fork: set[str] = set()  # (--trace: the modules a game imports itself are reported)


_recordings: list[Any] = []


def _record_unpacked(path: str) -> None:
    """From now on, record the code this game runs (a profile hook); on SIGUSR2, write to
    ``path`` the keys (:func:`~casino_tui.serve.hotcode.code_key`) of what it ran that the
    fork server did not pack."""
    from casino_tui.serve import hotcode

    recording = hotcode.recording()
    used = recording.__enter__()
    _recordings.append(recording)  # (kept: a context manager collected would end the hook)

    def report(*_: object) -> None:
        packed = {hotcode.code_key(code) for code in hotcode._kept}
        ran = {hotcode.code_key(code) for code in list(used)}
        with open(path + ".tmp", "w") as out:
            json.dump({"ran": len(ran), "packed": len(packed), "unpacked": sorted(ran - packed)},
                      out)
        os.replace(path + ".tmp", path)

    signal.signal(signal.SIGUSR2, report)


def _game_main(main: Callable[[Sequence[str]], int]) -> Callable[[Sequence[str]], int]:
    def traced(args: Sequence[str]) -> int:
        path = os.environ.pop(TRACE_ENV, None)
        snapshot_to = os.environ.pop(SNAPSHOT_ENV, None)
        record_to = os.environ.pop(RECORD_ENV, None)
        if record_to:
            _record_unpacked(record_to)
        signal.signal(COLLECT_SIGNAL, lambda *_: gc.collect())
        if path:
            import tracemalloc

            _modules_at_fork.update(sys.modules)
            tracemalloc.start(10)
            signal.signal(signal.SIGUSR2, lambda *_: _report(path, snapshot_to))
            if snapshot_to:  # --steps: a snapshot after each step, nothing collected
                steps = iter(range(1000))
                signal.signal(STEP_SIGNAL, lambda *_: tracemalloc.take_snapshot().dump(
                    f"{snapshot_to}.{next(steps)}"))
        return main(args)

    return traced


def fork_server(argv: Sequence[str]) -> int:
    from casino_tui.__main__ import game_parser, main
    from casino_tui.serve import forkserver

    forkserver.merge_pages = _probe_merge_pages(forkserver.merge_pages)  # type: ignore[assignment]
    game_parser()
    return forkserver.serve_forks(argv, _game_main(main))


# ====================================================================== the benchmark's side
class ObjectMap:
    def __init__(self, path: Path) -> None:
        with open(path, "rb") as data:
            header = data.read(int.from_bytes(data.read(8), "little"))
            self.kinds: list[str] = json.loads(header)
            count = int.from_bytes(data.read(8), "little")
            starts, ends, codes = array.array("Q"), array.array("Q"), array.array("H")
            starts.fromfile(data, count)
            ends.fromfile(data, count)
            codes.fromfile(data, count)
        order = sorted(range(count), key=starts.__getitem__)
        self.starts = [starts[i] for i in order]
        self.ends = [ends[i] for i in order]
        self.codes = [codes[i] for i in order]
        self.longest = max((e - s for s, e in zip(self.starts, self.ends, strict=True)),
                           default=0)

    def on_page(self, page: int) -> list[tuple[int, int, int]]:
        """(start, end, kind) of each range overlapping [page, page + PAGE)."""
        first = bisect.bisect_left(self.starts, page - self.longest)
        last = bisect.bisect_left(self.starts, page + PAGE)
        return [(self.starts[i], self.ends[i], self.codes[i]) for i in range(first, last)
                if self.ends[i] > page]


def _read(mem: Any, address: int, size: int) -> bytes:
    with contextlib.suppress(OSError):
        mem.seek(address)
        return bytes(mem.read(size))
    return b""


def classified_pages(child: int, parent: int) -> Iterator[tuple[int, str, str]]:
    """Each page the child has (in user space), with its mapping's name and its kind against
    the parent's: ``new`` (the parent had no page there), ``shared`` (the same frame) or
    ``copied`` (a frame of the child's own where the parent had one)."""
    from .forks import _frames, _mappings

    parent_frames: dict[int, int] = {}
    with open(f"/proc/{parent}/pagemap", "rb") as pagemap:
        for begin, end, _name in _mappings(parent):
            if begin < 1 << 47:
                for i, frame in enumerate(_frames(pagemap, begin, end)):
                    if frame:
                        parent_frames[begin + i * PAGE] = frame
    with open(f"/proc/{child}/pagemap", "rb") as pagemap:
        for begin, end, name in _mappings(child):
            if begin < 1 << 47:
                for i, frame in enumerate(_frames(pagemap, begin, end)):
                    if frame:
                        parents = parent_frames.get(begin + i * PAGE)
                        yield begin + i * PAGE, name, (
                            "new" if parents is None else "shared" if parents == frame
                            else "copied")


def page_counts(child: int, parent: int, copied_pages: dict[int, str] | None = None
                ) -> dict[str, float]:
    """The child's private memory and its pages copied from the parent or new, in MiB (the
    split's totals, without the objects: cheap enough to take after every step)."""
    from .forks import smaps_rollup

    counts = Counter[str]()
    for address, name, kind in classified_pages(child, parent):
        counts[kind] += 1
        if kind == "copied" and copied_pages is not None:
            copied_pages[address] = name
    rollup = smaps_rollup(child)
    return {"private": round((rollup["Private_Dirty"] + rollup["Private_Clean"]) / 1024, 2),
            "copied": round(counts["copied"] * PAGE / 2**20, 2),
            "new": round(counts["new"] * PAGE / 2**20, 2)}


STEP_KEYS = {"esc": b"\x1b", "enter": b"\r", "right": b"\x1b[C", "left": b"\x1b[D"}


def split(child: int, parent: int, objects: ObjectMap) -> dict[str, Any]:
    """The child's private pages against the parent's, and the objects on the copied ones."""
    pages: dict[str, dict[str, int]] = {}
    copied: list[int] = []
    mapping_of: dict[int, str] = {}
    for address, name, kind in classified_pages(child, parent):
        pages.setdefault(name, {"shared": 0, "copied": 0, "new": 0})[kind] += 1
        if kind == "copied":
            copied.append(address)
            mapping_of[address] = name
    copied_set = set(copied)
    on_copied: Counter[str] = Counter()  # bytes of each kind on copied pages
    changed: Counter[str] = Counter()  # ... of objects whose bytes differ from the parent's
    changed_count: Counter[str] = Counter()
    objects_on_copied: Counter[str] = Counter()
    unchanged_pages = 0
    unattributed = 0
    unattributed_by_mapping: Counter[str] = Counter()
    changed_fraction: list[float] = []
    with open(f"/proc/{child}/mem", "rb") as child_mem, \
            open(f"/proc/{parent}/mem", "rb") as parent_mem:
        for page in copied:
            mine, theirs = _read(child_mem, page, PAGE), _read(parent_mem, page, PAGE)
            if mine == theirs:
                unchanged_pages += 1
            covered = 0
            written = 0
            for begin, end, code in objects.on_page(page):
                kind = objects.kinds[code]
                lo, hi = max(begin, page), min(end, page + PAGE)
                on_copied[kind] += hi - lo
                covered += hi - lo
                if begin < page:
                    continue  # counted once, on the page where it starts
                objects_on_copied[kind] += 1
                # whole range, even past this page: compare where both pages are copied
                if end <= page + PAGE:
                    differs = mine[begin - page:end - page] != theirs[begin - page:end - page]
                else:
                    differs = (_read(child_mem, begin, end - begin)
                               != _read(parent_mem, begin, end - begin))
                if differs:
                    changed[kind] += end - begin
                    changed_count[kind] += 1
                    written += min(end, page + PAGE) - lo
            unattributed += max(PAGE - covered, 0)
            unattributed_by_mapping[mapping_of[page]] += max(PAGE - covered, 0)
            changed_fraction.append(written / PAGE)
    mib = 2**20
    totals = {kind: round(sum(row[kind] for row in pages.values()) * PAGE / mib, 2)
              for kind in ("shared", "copied", "new")}
    totals["copied_unchanged"] = round(unchanged_pages * PAGE / mib, 2)
    totals["copied_in_mapped_objects"] = round(sum(on_copied.values()) / mib, 2)
    totals["copied_not_in_mapped_objects"] = round(unattributed / mib, 2)
    totals["changed_objects_mib"] = round(sum(changed.values()) / mib, 2)
    totals["dense_mib"] = round(sum(changed.values()) / mib, 2)
    totals["changed_bytes_per_copied_page_median"] = round(
        statistics.median(changed_fraction) if changed_fraction else 0, 3)
    by_mapping = sorted(pages.items(), key=lambda kv: -(kv[1]["copied"] + kv[1]["new"]))
    # the parent's objects that are on pages the child did not copy: their kinds' share
    on_shared: Counter[str] = Counter()
    for begin, end, code in zip(objects.starts, objects.ends, objects.codes, strict=True):
        if begin // PAGE * PAGE not in copied_set:
            on_shared[objects.kinds[code]] += end - begin
    kinds = sorted(on_copied, key=lambda k: -on_copied[k])[:30]
    return {
        "pages_mib": totals,
        "by_mapping_kib": {name: {k: row[k] * PAGE // 1024 for k in ("copied", "new")}
                           for name, row in by_mapping[:10] if row["copied"] + row["new"]},
        "copied_not_in_mapped_objects_kib": {
            name: size // 1024 for name, size in unattributed_by_mapping.most_common(5)},
        "by_kind_on_copied_pages": [
            {"kind": k, "on_copied_kib": on_copied[k] // 1024,
             "on_other_kib": on_shared[k] // 1024,
             "changed_kib": changed[k] // 1024,
             "objects_on_copied": objects_on_copied[k], "changed": changed_count[k]}
            for k in kinds],
    }


class Tables:
    """The server's tables for the games: a hub on its channel (in this process), whose
    computers are the pool's; each game its own identity on the channel."""

    def __init__(self, work: Path, computers: Any) -> None:
        from casino_tui.table.hub import LocalHub
        from casino_tui.table.service import HubService

        self.path = work / "tables.sock"
        self.service = HubService(LocalHub(computers.pool))
        self.count = 0

    async def start(self) -> None:
        await self.service.start(self.path)

    def environment(self) -> dict[str, str]:
        from casino_tui.table.wire import Identity, new_secret, session_environment

        self.count += 1
        secret = new_secret()
        self.service.register(secret, Identity(f"t{self.count}", f"tfp{self.count}",
                                               1000 + self.count))
        return session_environment(self.path, secret)

    async def close(self) -> None:
        await self.service.close()


STOPS = ("title", "name", "list", "form", "waiting", "hand")  # --stop: where a game is measured


async def to_a_table(games: list[Any], stop: str = "hand") -> None:
    """From the title to a game at a table of their own against a computer (``--table``), or
    only as far as ``stop`` (the title, the display name asked, the list of tables, the new
    table's form, the waiting room)."""
    from .forks import wait_for

    async def keys(text: bytes, wait: bytes, timeout: float = 60) -> None:
        for g in games:
            os.write(g.master, text)
        await asyncio.gather(*(wait_for(g, wait, timeout) for g in games))

    await asyncio.gather(*(wait_for(g, b"play with people here", 60) for g in games))
    steps = ((b"t", b"display name", "name"), (b"Ann\r", b"at these tables", "list"),
             (b"n", b"Listed", "form"), (b"\r", b"A table waiting for players", "waiting"),
             (b"s", b"Your hand", "hand"))
    if stop == "title":
        return
    for key, wait, step in steps:
        if key in (b"n", b"s"):
            await asyncio.sleep(0.5)
        await keys(key, wait)
        if step == stop:
            return


def _add_environment(computers: Any, extra: Callable[[], dict[str, str]]) -> None:
    """The games' environment from now on: what ``computers`` gave them, and ``extra``'s."""
    given = computers.environment
    computers.environment = lambda: given() | extra()


async def _until_written(path: Path, seconds: float = 20.0) -> bool:
    """Wait (up to ``seconds``) until a game has written ``path``; whether it has."""
    for _ in range(round(seconds / 0.2)):
        await asyncio.sleep(0.2)
        if path.exists():
            return True
    return False


async def run(games: int, moves: int, settle: float, trace: bool,
              table: bool = False, snapshot: Path | None = None,
              stop: str = "hand", unpacked: bool = False,
              steps: Sequence[str] = ()) -> dict[str, Any]:
    from casino_tui.serve.forkserver import ForkServer

    from .forks import TITLE, Computers, ksm_merged_kib, smaps_rollup, start, wait_for

    forker = ForkServer(main_module="benchmarks.memsplit")
    forker.start()
    if not await forker.wait_ready(120) or forker.pid is None:
        raise SystemExit("the fork server did not start")
    load = os.getloadavg()
    out: dict[str, Any] = {"games": games, "moves": moves, "trace": trace, "table": table,
                           "stop": stop,
                           "load_before": [round(x, 1) for x in load]}
    with tempfile.TemporaryDirectory(prefix="casino-memsplit-") as tmp:
        report = Path(tmp) / "trace.json"
        computers = Computers(Path(tmp))
        await computers.start()
        tables = Tables(Path(tmp), computers) if table else None
        if tables is not None:
            await tables.start()
            _add_environment(computers, tables.environment)
        if unpacked:
            _add_environment(computers, lambda: {RECORD_ENV: str(report) + ".code"})
        if trace:
            _add_environment(computers, lambda: {TRACE_ENV: str(report)} | (
                {SNAPSHOT_ENV: str(snapshot.resolve())} if snapshot is not None else {}))
        started = await asyncio.gather(*(start(forker, Path(tmp) / f"p{i}", computers)
                                         for i in range(games)))
        try:
            await asyncio.gather(*(wait_for(g, TITLE, 120) for g in started))
            await asyncio.sleep(1.0)
            if table:
                await to_a_table(started, stop)
            elif stop != "title":
                for g in started:
                    os.write(g.master, b"n")
                await asyncio.gather(*(wait_for(g, b"Preset", 60) for g in started))
                for g in started:
                    os.write(g.master, b"\r")
                await asyncio.gather(*(wait_for(g, b"Your hand", 60) for g in started))
            for _ in range(moves if stop == "hand" else 0):
                await asyncio.sleep(3.0)
                for g in started:
                    os.write(g.master, b"\x1b[C")
                    await asyncio.sleep(0.1)
                    os.write(g.master, b"\r")
            await asyncio.sleep(settle)
            if steps:
                out["steps"] = await _steps(started, forker.pid, steps, settle,
                                            trace and snapshot is not None)
            memory = [smaps_rollup(g.proc.pid) for g in started]
            out["pss_mib"] = [round(m["Pss"] / 1024, 1) for m in memory]
            out["private_mib"] = [round((m["Private_Dirty"] + m["Private_Clean"]) / 1024, 1)
                                  for m in memory]
            out["ksm_merged_mib"] = [round(ksm_merged_kib(g.proc.pid) / 1024, 1)
                                     for g in started]
            out["fork_server_pss_mib"] = round(smaps_rollup(forker.pid)["Pss"] / 1024, 1)
            if unpacked:
                os.kill(started[0].proc.pid, signal.SIGUSR2)
                code_file = Path(str(report) + ".code")
                await _until_written(code_file)
                recorded = json.loads(code_file.read_text())
                keys = recorded["unpacked"]
                out["code_run"], out["code_packed"] = recorded["ran"], recorded["packed"]
                out["unpacked_code_run"] = len(keys)
                out["unpacked_code_by_file"] = Counter(
                    k.split(":", 1)[0] for k in keys).most_common(40)
                out["unpacked_code"] = keys
            elif trace:
                os.kill(started[0].proc.pid, signal.SIGUSR2)
                malloc_file = Path(str(report) + ".malloc")
                if await _until_written(malloc_file):
                    await asyncio.sleep(0.5)
                out["trace"] = json.loads(report.read_text())
                out["debugmallocstats"] = malloc_file.read_text()
            else:
                objects = ObjectMap(object_map_path(forker.pid))
                out |= split(started[0].proc.pid, forker.pid, objects)
        finally:
            for g in started:
                asyncio.get_running_loop().remove_reader(g.master)
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(g.proc.pid, signal.SIGKILL)
            for g in started:
                await g.proc.wait()
                os.close(g.master)
            with contextlib.suppress(OSError):
                object_map_path(forker.pid).unlink()
            await forker.close()
            if tables is not None:
                await tables.close()
            await computers.close()
    return out


async def _steps(games: list[Any], fork_server: int, steps: Sequence[str], settle: float,
                 snapshots: bool) -> list[dict[str, Any]]:
    """``--steps``: each key in turn to every game, then, ``settle`` seconds later, the first
    game's private memory split (and its tracemalloc snapshot, numbered from 0 at the start)."""
    objects = ObjectMap(object_map_path(fork_server))
    child = games[0].proc.pid
    copied_before: set[int] = set()

    def measure(step: str) -> dict[str, Any]:
        if snapshots:
            os.kill(child, STEP_SIGNAL)
        copied: dict[int, str] = {}
        row: dict[str, Any] = {"after": step} | page_counts(child, fork_server, copied)
        fresh = sorted(copied.keys() - copied_before)
        row["newly_copied_by_mapping"] = Counter(copied[p] for p in fresh).most_common(4)
        copied_before.update(copied)
        written: Counter[str] = Counter()
        uncovered = 0
        with open(f"/proc/{child}/mem", "rb") as mine_mem, \
                open(f"/proc/{fork_server}/mem", "rb") as theirs_mem:
            for page in fresh:
                mine, theirs = _read(mine_mem, page, PAGE), _read(theirs_mem, page, PAGE)
                covered = 0
                for begin, end, code in objects.on_page(page):
                    lo, hi = max(begin, page), min(end, page + PAGE)
                    covered += hi - lo
                    if mine[lo - page:hi - page] != theirs[lo - page:hi - page]:
                        written[objects.kinds[code]] += 1
                uncovered += max(PAGE - covered, 0)
        row["drew_a_summary"] = b"summary" in games[0].screen
        row["newly_copied_pages"] = len(fresh)
        row["newly_copied_uncovered_kib"] = uncovered // 1024
        row["written_objects_on_them"] = written.most_common(12)
        return row

    rows = [measure("start")]
    for step in steps:
        if step == "to-summary":  # Right, Enter until the first game shows its round's summary
            for _ in range(40):
                for g in games:
                    g.screen = b""
                    os.write(g.master, STEP_KEYS["right"])
                await asyncio.sleep(0.1)
                for g in games:
                    os.write(g.master, STEP_KEYS["enter"])
                await asyncio.sleep(settle)
                rows.append(measure("right+enter"))
                if rows[-1]["drew_a_summary"]:
                    break
            continue
        for g in games:
            g.screen = b""
            if step == "gc":
                os.kill(g.proc.pid, COLLECT_SIGNAL)
            else:
                os.write(g.master, STEP_KEYS.get(step, step.encode()))
        await asyncio.sleep(settle)
        rows.append(measure(step))
    await asyncio.sleep(1.0)  # (the last snapshot written)
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list and args_list[0] == "_fork-server":
        return fork_server(args_list[1:])
    parser = argparse.ArgumentParser(prog="python -m benchmarks.memsplit", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=3, help="games at once (default 3)")
    parser.add_argument("--moves", type=int, default=3, help="moves to play (default 3)")
    parser.add_argument("--settle", type=float, default=5.0,
                        help="seconds after the last key before measuring (default 5)")
    parser.add_argument("--trace", action="store_true",
                        help="tracemalloc in the games; the first one's report")
    parser.add_argument("--table", action="store_true",
                        help="each game at a table of the server's, against a computer")
    parser.add_argument("--snapshot", type=Path, metavar="FILE",
                        help="with --trace: the first game's tracemalloc snapshot, saved there")
    parser.add_argument("--unpacked", action="store_true",
                        help="the code the first game ran that the fork server did not pack "
                             "(a profile hook in the games: no memory figures then)")
    parser.add_argument("--stop", choices=STOPS, default="hand",
                        help="measure there instead of after the moves: the title, or (--table) "
                             "a lobby's screen (default: the moves, from the first hand)")
    parser.add_argument("--steps", default="", metavar="KEYS",
                        help="after the moves, these keys in turn (comma-separated: a "
                             "character, esc, enter, right, left, or gc: a full collection "
                             "in the game; to-summary: Right and Enter until the first game's "
                             "round summary shows), the first game's pages "
                             "split after each (with --trace --snapshot FILE: FILE.0, FILE.1... "
                             "its snapshots)")
    args = parser.parse_args(args_list)
    if not args.table and args.stop not in ("title", "hand"):
        parser.error(f"--stop {args.stop} is a screen on the way to a table: with --table")
    root = str(Path(__file__).resolve().parent.parent)
    os.environ["PYTHONPATH"] = os.pathsep.join(
        p for p in (root, os.environ.get("PYTHONPATH", "")) if p)
    print(json.dumps(asyncio.run(run(args.games, args.moves, args.settle, args.trace,
                                         args.table, args.snapshot, args.stop,
                                         args.unpacked,
                                         [k for k in args.steps.split(",") if k])),
                     indent=1), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
