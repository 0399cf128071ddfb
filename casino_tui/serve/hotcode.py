"""The code a game runs, packed together in the fork server before it forks.

Python 3.11 writes to a code object each time it runs it: the frame takes a reference to it
(its reference count) and the specialising interpreter writes into its bytecode. A game forked
from the fork server therefore copies, on write, every page that holds a code object it runs,
with everything else on that page: the code objects of a module are made together as it is
imported, in pools of Python's allocator by size, so the code a game runs lies among the code
it never runs (the rest of Textual, Rich, the standard library, the app's other screens). Three
moves into a game, about 3 MiB of code objects sat on the pages a game had copied.

So the fork server, after its warm-up, makes a new copy of each code object a game runs
(:meth:`types.CodeType.replace`: the same code, constants, names and tables, a new object),
all of them one after the other, so that they fill pages of their own, and gives every function
its copy (``function.__code__``). The old objects are kept (freed, their blocks would be reused
by a game's own allocations, which would copy their pages again); their pages are no longer
written by a game and stay shared. Which code a game runs is recorded while the fork server
warms up (:func:`used_by_a_game`: in a child of the fork server, the title, then a short
headless game against a computer player that plays the first legal move, under
:func:`recording`; kept for the installation, :func:`used_by_a_game_cached`), plus all of the
code of the modules that a served game runs and a headless one does not (:data:`SERVED_ONLY`:
the terminal's driver, the computer players' channel), and the functions it runs besides
(:data:`SERVED_ONLY_FUNCTIONS`: its start, the driver's threads, the computer players' pool),
each with the code nested in it. A code object with a nested one among
its constants (a function that makes a closure, a lambda) is copied with the nested one's copy,
so that the functions a game makes as it runs take the packed copy too.

Measured (``python -m benchmarks.forks``, docs/SERVE.md, "The code a game runs, packed"): a
game's own memory three moves in 17.5-17.6 MiB against 19.2, after a whole round 19.8 against
21.3.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import hashlib
import json
import os
import sys
import tempfile
import threading
import types
import warnings
import zlib
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# Modules whose code a served game runs that the fork server's headless warm-up does not: the
# terminal's driver, its threads and its input parser; the computer players' channel (a socket,
# its codec and wire format); the title's quiet input. All of their functions are packed.
SERVED_ONLY = (
    "textual.drivers.linux_driver", "textual.drivers._writer_thread", "textual._xterm_parser",
    "textual._parser", "asyncio.streams", "asyncio.selector_events", "asyncio.unix_events",
    "casino_tui.table.computers", "casino_tui.table.codec", "casino_tui.table.wire",
    "casino_tui.app.quiet_input", "casino_tui.app.signals", "casino_tui.app.output",
)
# Functions a served game runs that the warm-up does not, in modules not taken whole ("module:
# qualified name"): its start (the arguments, the settings, the terminal's size and encoding, the
# app's run and its first frame's hooks), the terminal driver's threads and queue, the computer
# players' pool (the warm-up's computer plays its first legal move in the game itself), saving a
# display name. Found with ``python -m benchmarks.memsplit --unpacked`` (the code a forked game
# ran that was not packed), a solo game's and a table's. An entry that this installation does
# not have is left out (tests/test_serve_hotcode.py checks them all).
SERVED_ONLY_FUNCTIONS = (
    "argparse:ArgumentParser._get_positional_actions",
    "argparse:ArgumentParser._match_arguments_partial",
    "argparse:ArgumentParser._parse_known_args", "argparse:ArgumentParser.parse_args",
    "argparse:ArgumentParser.parse_known_args", "argparse:Namespace.__init__",
    "asyncio.locks:Lock._wake_up_first", "asyncio.locks:Lock.acquire",
    "asyncio.locks:Lock.release", "asyncio.locks:_ContextManagerMixin.__aenter__",
    "asyncio.locks:_ContextManagerMixin.__aexit__", "asyncio.tasks:_cancel_and_wait",
    "casino_tui.__main__:_is_terminal", "casino_tui.__main__:_resume",
    "casino_tui.__main__:game_parser", "casino_tui.__main__:main",
    "casino_tui.__main__:terminal_lacks_symbols",
    "casino_tui.app.app:CasinoApp._first_frame_drawn",
    "casino_tui.app.cardfmt:CardPainter.build_text", "casino_tui.app.cardfmt:CardPainter.text",
    "casino_tui.app.describe:_build_parts", "casino_tui.app.firstframe:written",
    "casino_tui.app.glyphs:encoding_shows", "casino_tui.app.glyphs:output_needs_ascii",
    "casino_tui.app.input_bytes:_lenient", "casino_tui.app.moment:Moment.come",
    "casino_tui.app.players:PoolChooser.__init__", "casino_tui.app.players:PoolChooser._connect",
    "casino_tui.app.players:PoolChooser.choose", "casino_tui.app.players:PoolChooser.start",
    "casino_tui.app.screens.game:GameScreen._after_frame",
    "casino_tui.app.screens.game:GameScreen._ask",
    "casino_tui.app.screens.game:GameScreen._begin_computer_turn",
    "casino_tui.app.screens.game:GameScreen._begin_human_turn",
    "casino_tui.app.screens.game:GameScreen._frame_drawn",
    "casino_tui.app.screens.game:GameScreen._think",
    "casino_tui.app.screens.game:GameScreen._thought_done",
    "casino_tui.app.screens.tablegame:TableGameScreen._refresh_away",
    "casino_tui.app.screens.tablegame:TableGameScreen._send_move",
    "casino_tui.engine.movegen:_retain_enforced", "casino_tui.engine.movegen:capture_allowed",
    "casino_tui.engine.moves:Build.kind", "casino_tui.engine.moves:Build.value_str",
    "casino_tui.engine.moves:_value_str", "casino_tui.engine.moves:normalize_move",
    "casino_tui.engine.position:format_build", "casino_tui.engine.position:format_value",
    "casino_tui.serve.forkserver:collect_after_first_frame",
    "casino_tui.serve.forkserver:collect_sooner",
    "casino_tui.serve.forkserver:once_after_first_frame",
    "casino_tui.serve.forkserver:session_gc_thresholds",
    "casino_tui.settings:Settings.to_dict", "casino_tui.settings:config_dir",
    "casino_tui.settings:load_settings", "casino_tui.settings:save_settings",
    "casino_tui.settings:settings_path",
    "colorsys:rgb_to_hls", "copy:_deepcopy_atomic", "copy:deepcopy",
    "dataclasses:_asdict_inner", "dataclasses:asdict", "enum:Enum._missing_",
    "json.encoder:_make_iterencode", "pathlib:Path.replace", "pathlib:Path.write_text",
    "pathlib:PurePath.suffix", "pathlib:PurePath.with_suffix",
    "queue:Queue.__init__", "queue:Queue._get", "queue:Queue._init", "queue:Queue._put",
    "queue:Queue._qsize", "queue:Queue.get", "queue:Queue.put", "queue:Queue.qsize",
    "random:Random.uniform", "selectors:SelectSelector.__init__",
    "selectors:SelectSelector.register", "selectors:SelectSelector.select",
    "shutil:get_terminal_size", "signal:_enum_to_int", "signal:signal",
    "rich.color:Color.downgrade", "rich.color:Color.get_ansi_codes",
    "rich.color_triplet:ColorTriplet.normalized", "rich.console:Console.size",
    "rich.control:Control.__init__", "rich.control:Control.move_to",
    "rich.segment:Segment._split_cells",
    "textual._xterm_parser:XTermParser.parse", "textual.app:App._begin_update",
    "textual.app:App._end_update", "textual.app:App.run", "textual.app:App.run_async",
    "textual.color:Color.parse", "textual.driver:Driver.flush",
    "textual.driver:Driver.is_headless", "textual.driver:Driver.process_message",
    "textual.drivers.linux_driver:LinuxDriver.start_application_mode",
    "textual.events:Key.__rich_repr__", "textual.events:Key.copy",
    "textual.geometry:Offset.clamp", "textual.geometry:Size.clamp_offset",
    "textual.keys:Keys.value",
    "threading:Condition._acquire_restore", "threading:Condition._release_save",
    "threading:Condition.wait", "threading:Event.is_set", "threading:Event.wait",
    "threading:Thread.__init__", "threading:Thread._wait_for_tstate_lock",
    "threading:Thread.daemon", "threading:Thread.is_alive", "threading:Thread.run",
    "threading:Thread.start", "threading:Timer.cancel", "threading:_make_invoke_excepthook",
)
# What the computer players think with runs in the server's pool, not in a game: not packed,
# though the warm-up's own computer runs some of it; nor the server's side of its tables (the
# hub and the channel's service), which the warm-up table game runs in its own process
# (:func:`play_a_table_game`). (A table's controller is the solo game's too: packed.)
NOT_IN_A_GAME = ("/casino_tui/ai/", "/casino_tui/table/service.py", "/casino_tui/table/guard.py",
                 ":LocalHub.", ":_Table.", ":_Queue.")
WARM_UP_MOVES = 4  # the warm-up game's moves (Right to preview, Enter to play)
TABLE_NAME = "Warm"  # the warm-up table game's display name

_kept: list[types.CodeType] = []  # the code objects replaced by their packed copies


@dataclass(frozen=True)
class Packed:
    """What :func:`pack` did: the code objects copied, the functions given a copy."""

    codes: int
    functions: int


@contextlib.contextmanager
def recording() -> Iterator[set[types.CodeType]]:
    """The code objects run in this process (every thread started meanwhile too) while the
    ``with`` block runs; a profile hook, so the block runs about twice as slowly."""
    used: set[types.CodeType] = set()

    def profile(frame: types.FrameType, event: str, arg: Any) -> None:
        if event == "call":
            used.add(frame.f_code)

    sys.setprofile(profile)
    threading.setprofile(profile)
    try:
        yield used
    finally:
        sys.setprofile(None)
        threading.setprofile(None)  # type: ignore[arg-type]


def play_a_game(moves: int = WARM_UP_MOVES) -> None:
    """A short game from the title (``n``, Enter), headless at 100x30, against a computer that
    plays its first legal move, in a throwaway data directory: what a game runs, for
    :func:`recording`."""
    from casino_tui.app.app import CasinoApp
    from casino_tui.app.players import InProcessChooser
    from casino_tui.engine import Move, SeatView
    from casino_tui.saves import open_store
    from casino_tui.settings import Settings

    def first_move(view: SeatView, level: str, *, seed: int) -> Move:
        legal = view.legal_moves()
        return next((m for m in legal if m.kind != "claim"), legal[0])

    async def play() -> None:
        app = CasinoApp(store=open_store(None), settings=Settings(speed="instant"),
                        chooser_factory=lambda: InProcessChooser(first_move),
                        save_settings_to_disk=False)
        async with app.run_test(size=(100, 30), tooltips=True, notifications=True) as pilot:
            await pilot.press("n")
            await pilot.pause()
            await pilot.press("enter")
            await pilot.pause()
            for _ in range(moves):
                await pilot.press("right")
                await pilot.pause()
                await pilot.press("enter")
                for _ in range(10):
                    await pilot.pause(0)

    with _throwaway_home():
        asyncio.run(play())


def play_a_table_game(moves: int = WARM_UP_MOVES) -> None:
    """A short game at a server's table from the title, headless at 100x30, as a served
    player's game reaches it (the hub behind the table channel, in this process, on a Unix
    socket in a throwaway directory): ``t`` (Tables), a display name and Enter, ``n`` and
    Enter (a new table of two, the default), ``s`` (start: the open seat goes to a computer
    that plays its first legal move), then ``moves`` moves; for :func:`recording`, the code
    that a game at a table runs and a solo game does not."""
    from casino_tui.app.app import CasinoApp
    from casino_tui.app.screens.tablegame import TableGameScreen
    from casino_tui.engine import Move, SeatView
    from casino_tui.saves import open_store
    from casino_tui.settings import Settings
    from casino_tui.table.hub import LocalHub
    from casino_tui.table.service import HubService
    from casino_tui.table.wire import SECRET_ENV, SOCKET_ENV, Identity, new_secret

    class FirstMove:
        async def choose(self, view: SeatView, level: str, seed: int) -> Move:
            legal = view.legal_moves()
            return next((m for m in legal if m.kind != "claim"), legal[0])

    async def until(pilot: Any, check: Any, limit: int = 400) -> None:
        for _ in range(limit):
            if check():
                return
            await pilot.pause(0.01)
        raise RuntimeError("the warm-up table game did not get there")

    async def play(directory: Path) -> None:
        service = HubService(LocalHub(FirstMove()))
        await service.start(directory / "tables.sock")
        secret = new_secret()
        service.register(secret, Identity("warm-up", "warm-up", 1))
        app = CasinoApp(store=open_store(None), settings=Settings(speed="instant"),
                        save_settings_to_disk=False,
                        tables_link={SOCKET_ENV: str(directory / "tables.sock"),
                                     SECRET_ENV: secret})
        try:
            async with app.run_test(size=(100, 30), tooltips=True,
                                    notifications=True) as pilot:
                await until(pilot, lambda: app.hub is not None)
                await pilot.press("t")
                await pilot.pause()
                await pilot.press(*TABLE_NAME, "enter")
                await pilot.pause()
                await pilot.press("n")
                await pilot.pause()
                await pilot.press("enter")
                await pilot.pause()
                await pilot.press("s")
                await until(pilot, lambda: isinstance(app.screen, TableGameScreen))
                for _ in range(moves):
                    await pilot.press("right")
                    await pilot.pause()
                    await pilot.press("enter")
                    for _ in range(10):
                        await pilot.pause(0.01)
        finally:
            await service.close()

    with _throwaway_home(), warnings.catch_warnings(), \
            tempfile.TemporaryDirectory(prefix="casino-tui-warm-tables-") as tmp:
        # the look for a table to continue that the title starts as the app quits is never
        # started: not a warning in the server's log
        warnings.filterwarnings("ignore", "coroutine .* was never awaited", RuntimeWarning)
        asyncio.run(play(Path(tmp)))
        gc.collect()


@contextlib.contextmanager
def _throwaway_home() -> Iterator[None]:
    saved = dict(os.environ)
    with tempfile.TemporaryDirectory(prefix="casino-tui-warm-") as tmp:
        os.environ.update({"HOME": tmp, "CASINO_TUI_DATA_DIR": f"{tmp}/data",
                           "CASINO_TUI_CONFIG_DIR": f"{tmp}/config"})
        try:
            yield
        finally:
            os.environ.clear()
            os.environ.update(saved)


def code_key(code: types.CodeType) -> str:
    """A code object's file, first line and qualified name: the same in every process of one
    installation. Code made from a string (``<string>``: the ``__init__``, ``__eq__`` and
    ``__hash__`` that ``dataclasses`` and ``namedtuple`` write for each class, a few hundred of
    them at the same place) adds a checksum of its names, which tells most of them apart."""
    key = f"{code.co_filename}:{code.co_firstlineno}:{code.co_qualname}"
    if code.co_filename == "<string>":
        names = "\0".join((*code.co_varnames, *code.co_names, *code.co_freevars))
        key += f":{zlib.crc32(names.encode('utf-8', 'surrogatepass')):08x}"
    return key


def used_by_a_game(moves: int = WARM_UP_MOVES,
                   play: Callable[[int], None] = play_a_game) -> set[str]:
    """The code (:func:`code_key`) that a short game from the title runs (``play``:
    :func:`play_a_game`, or :func:`play_a_table_game`), in a child of this process: what the
    game leaves behind (its objects, its garbage, the blocks they freed) stays out of the fork
    server's memory. Empty if the child fails."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover (a forked child: its end is os._exit)
        status = 1
        try:
            os.close(read)
            with recording() as used:
                play(moves)
            with open(write, "w", encoding="utf-8") as out:
                json.dump(sorted({code_key(code) for code in used}), out)
            status = 0
        except BaseException as err:
            with contextlib.suppress(Exception):
                print(f"casino-tui fork server: the warm-up game failed: {err!r}",
                      file=sys.stderr)
        finally:
            os._exit(status)
    os.close(write)
    with open(read, encoding="utf-8") as answer:
        text = answer.read()
    _, status = os.waitpid(pid, 0)
    if status != 0 or not text:
        return set()
    return set(json.loads(text))


def cache_dir() -> Path:
    """Where the fork server keeps what :func:`used_by_a_game` found: a directory of this
    user's under the temporary directory (the fork server's environment has no home)."""
    return Path(tempfile.gettempdir()) / f"casino-tui-hotcode-{os.getuid()}"


def _fingerprint(moves: int, play: str = "play_a_game") -> str:
    """What the code a game runs depends on: Python, the warm-up, and every imported module's
    file (its path, size and time), so that any change to the installation finds it again."""
    digest = hashlib.sha256(repr((sys.version, sys.flags.optimize, moves, play, SERVED_ONLY,
                                  NOT_IN_A_GAME)).encode())
    for name in sorted(sys.modules):
        file = getattr(sys.modules[name], "__file__", None)
        if not isinstance(file, str):
            continue
        try:
            info = os.stat(file)
        except OSError:
            continue
        digest.update(f"{name}\0{file}\0{info.st_size}\0{info.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:32]


def used_by_a_game_cached(moves: int = WARM_UP_MOVES, directory: Path | None = None,
                          play: Callable[[int], None] = play_a_game) -> set[str]:
    """:func:`used_by_a_game`, kept in a file of :func:`cache_dir` for this installation
    (:func:`_fingerprint`) and this warm-up game (``play``), so that a fork server started
    again (or the next server on the same installation) does not play the warm-up game again.
    A directory that is not this user's own, or a file that cannot be read, is not used."""
    directory = cache_dir() if directory is None else directory
    kind = play.__name__
    path = directory / f"{kind}-{_fingerprint(moves, kind)}.json"
    with contextlib.suppress(OSError, ValueError):
        if os.stat(directory).st_uid == os.getuid():
            keys = json.loads(path.read_text(encoding="utf-8"))
            if isinstance(keys, list) and keys and all(isinstance(k, str) for k in keys):
                return set(keys)
    keys = used_by_a_game(moves, play)
    if keys:
        with contextlib.suppress(OSError):
            directory.mkdir(mode=0o700, exist_ok=True)
            if os.stat(directory).st_uid != os.getuid():
                return keys
            for old in directory.glob("*.json"):  # another version's: not needed again
                if old.name.startswith(f"{kind}-") or "-" not in old.name:
                    old.unlink(missing_ok=True)
            partial = path.with_suffix(f".{os.getpid()}.tmp")
            partial.write_text(json.dumps(sorted(keys)), encoding="utf-8")
            os.replace(partial, path)
    return keys


def named_functions(name: str) -> list[types.FunctionType]:
    """The functions ``"module:Qualified.name"`` names, in a module already imported (a
    property's getter and setter, a class or static method's function, a cached function's
    own); none if there is no such thing here."""
    module, _, qualname = name.partition(":")
    found: Any = sys.modules.get(module)
    for part in qualname.split("."):
        found = getattr(found, "__dict__", {}).get(part)
    if isinstance(found, property):
        return [f for f in (found.fget, found.fset, found.fdel)
                if type(f) is types.FunctionType]
    found = getattr(found, "__func__", found)  # classmethod, staticmethod
    found = getattr(found, "__wrapped__", found)  # functools.lru_cache
    return [found] if type(found) is types.FunctionType else []


def _with_nested(code: types.CodeType) -> Iterator[types.CodeType]:
    """``code`` and the code made inside it (comprehensions, closures, lambdas)."""
    yield code
    for const in code.co_consts:
        if type(const) is types.CodeType:
            yield from _with_nested(const)


def served_only_code(modules: Collection[str] = SERVED_ONLY,
                     functions: Collection[str] = SERVED_ONLY_FUNCTIONS) -> set[str]:
    """The code (:func:`code_key`) of every function defined in ``modules`` (those imported)
    and of the ``functions`` named (:func:`named_functions`), each with the code nested in it."""
    files = {getattr(sys.modules.get(name), "__file__", None) for name in modules}
    files.discard(None)
    codes = [f.__code__ for f in gc.get_objects()
             if type(f) is types.FunctionType and f.__code__.co_filename in files]
    codes += [f.__code__ for name in functions for f in named_functions(name)]
    return {code_key(nested) for code in codes for nested in _with_nested(code)}


def pack(used: Collection[str], then: Collection[str] = ()) -> Packed:
    """Give every function whose code is in ``used`` (:func:`code_key`), or has such code among
    its constants, a copy of it made now, all of them one after the other (see the module's
    description); then, after them, those whose code is in ``then`` (what fewer games run: a
    game that runs only ``used`` finds its code as densely packed as without them)."""
    hot = {key for key in used if not any(part in key for part in NOT_IN_A_GAME)}
    first = set(hot)
    hot |= {key for key in then if not any(part in key for part in NOT_IN_A_GAME)}
    functions = [f for f in gc.get_objects() if type(f) is types.FunctionType]
    functions.sort(key=lambda f: code_key(f.__code__) not in first)  # (stable: ``used`` first)
    # by identity: code objects compare equal by their contents (two generated functions alike)
    moving: dict[int, types.CodeType | None] = {}  # the code to copy; None: stays

    def find(code: types.CodeType) -> bool:
        if id(code) not in moving:
            inner = [find(c) for c in code.co_consts if type(c) is types.CodeType]
            moving[id(code)] = code if any(inner) or code_key(code) in hot else None
        return moving[id(code)] is not None

    for function in functions:
        find(function.__code__)
    # Python makes a code object's bytecode as bytes when first asked for it (code.replace()
    # does), and keeps them with the code: made first, for all, so that the copies lie
    # together rather than between those bytes.
    for code in moving.values():
        if code is not None:
            code.co_code  # noqa: B018
    copies: dict[int, types.CodeType] = {}

    def packed(code: types.CodeType) -> types.CodeType:
        if moving.get(id(code)) is None:
            return code
        copy = copies.get(id(code))
        if copy is None:
            consts = code.co_consts
            inner = tuple(packed(c) if type(c) is types.CodeType else c for c in consts)
            if any(new is not old for new, old in zip(inner, consts, strict=True)):
                copy = code.replace(co_consts=inner)
            else:
                copy = code.replace()
            _kept.append(code)
            copies[id(code)] = copy
        return copy

    replaced = 0
    for function in functions:
        copy = packed(function.__code__)
        if copy is not function.__code__:
            function.__code__ = copy
            replaced += 1
    return Packed(codes=len(copies), functions=replaced)


__all__ = ["NOT_IN_A_GAME", "SERVED_ONLY", "SERVED_ONLY_FUNCTIONS", "Packed", "cache_dir",
           "code_key", "named_functions", "pack",
           "play_a_game", "play_a_table_game", "recording", "served_only_code",
           "used_by_a_game", "used_by_a_game_cached"]
