"""The code a game runs, packed together in the fork server (casino_tui.serve.hotcode)."""

from __future__ import annotations

import json
import sys
import threading
import types
from collections.abc import Callable
from pathlib import Path

import pytest

from casino_tui.serve import hotcode
from casino_tui.serve.hotcode import code_key


def _adder(n: int) -> int:
    return n + 1


def _maker(k: int) -> Callable[[int], int]:
    def inner(n: int) -> int:
        return n * k

    return inner


def _cold(n: int) -> int:
    return n - 1


def test_a_used_function_gets_a_new_copy_of_its_code_that_runs_the_same() -> None:
    old = _adder.__code__
    cold = _cold.__code__
    packed = hotcode.pack({code_key(old)})
    assert packed.functions >= 1 and packed.codes >= 1
    assert _adder.__code__ is not old
    assert _adder.__code__ == old  # the same code, constants, names, lines: a copy
    assert _adder(41) == 42
    assert _cold.__code__ is cold  # code a game does not run stays where it is
    assert old in hotcode._kept  # ... and the replaced object is kept, not freed


def test_a_closure_made_after_packing_takes_the_packed_copy_of_its_code() -> None:
    before = _maker(3)
    old_inner, old_outer = before.__code__, _maker.__code__
    hotcode.pack({code_key(old_inner)})
    assert _maker.__code__ is not old_outer  # copied with its nested code's copy
    after = _maker(5)
    assert after.__code__ is not old_inner
    assert any(c is after.__code__ for c in _maker.__code__.co_consts)
    assert before.__code__ is after.__code__  # a closure made before packing: given it too
    assert after(2) == 10 and before(2) == 6


def test_the_computer_players_code_is_not_packed() -> None:
    from casino_tui.ai import choose_move

    old = choose_move.__code__
    assert "/casino_tui/ai/" in old.co_filename
    hotcode.pack({code_key(old)})
    assert choose_move.__code__ is old


def test_the_server_side_of_the_tables_is_not_packed() -> None:
    """The warm-up table game runs the hub and its channel's service in its own process; a
    served game never runs them (the server does), so their code is not packed."""
    from casino_tui.table import hub
    from casino_tui.table.guard import CodeGuard
    from casino_tui.table.hub import LocalHub
    from casino_tui.table.service import HubService

    functions = [HubService._handle, LocalHub.create_table, CodeGuard.check]
    old = [f.__code__ for f in functions]
    hotcode.pack({code_key(code) for code in old})
    assert [f.__code__ for f in functions] == old
    # ... while the rest of the hub's module (what a game's side of a table uses) is, and a
    # table's controller (a solo game runs one)
    from casino_tui.table.controller import TableController

    for function in (hub._opt_seat, TableController.level):
        before = function.__code__
        hotcode.pack({code_key(before)})
        assert function.__code__ is not before
        assert code_key(function.__code__) == code_key(before)


def test_what_fewer_games_run_is_packed_too() -> None:
    """``then`` (what a game at a table runs besides): packed as well, after ``used``."""
    olds = (_adder.__code__, _cold.__code__)
    packed = hotcode.pack({code_key(olds[0])}, then={code_key(olds[1])})
    assert packed.codes == 2 and packed.functions == 2
    assert _adder.__code__ is not olds[0] and _cold.__code__ is not olds[1]
    assert _adder(1) == 2 and _cold(1) == 0


def test_recording_sees_the_code_run_in_the_block_and_in_its_threads() -> None:
    def in_thread() -> None:
        _cold(1)

    with hotcode.recording() as used:
        _maker(2)
        thread = threading.Thread(target=in_thread)
        thread.start()
        thread.join()
    _adder(1)  # after the block: not recorded
    keys = {code_key(code) for code in used}
    assert code_key(_maker.__code__) in keys
    assert code_key(_cold.__code__) in keys
    assert code_key(_adder.__code__) not in keys


def test_a_warm_up_game_in_a_child_names_the_code_a_game_runs() -> None:
    from casino_tui.app.screens.game import GameScreen

    before = threading.active_count()
    used = hotcode.used_by_a_game(moves=2)
    files = {key.rsplit(":", 2)[0] for key in used}
    assert GameScreen.__init__.__code__.co_filename in files  # the game screen was shown
    assert any("/textual/" in f for f in files) and any("/rich/" in f for f in files)
    assert threading.active_count() == before  # it ran in a child, which has ended


def test_a_warm_up_table_game_names_the_code_a_game_at_a_table_runs() -> None:
    """From the title to a table's game (a display name, a new table, started with a computer
    in the open seat), through the table channel as a served game reaches it."""
    from casino_tui.app.screens.displayname import DisplayNameScreen
    from casino_tui.app.screens.tablegame import TableGameScreen
    from casino_tui.app.screens.tables import TablesScreen
    from casino_tui.app.screens.waiting import WaitingScreen
    from casino_tui.table.remote import RemoteHub

    used = hotcode.used_by_a_game(moves=2, play=hotcode.play_a_table_game)
    files = {key.rsplit(":", 2)[0] for key in used}
    for shown in (DisplayNameScreen, TablesScreen, WaitingScreen, TableGameScreen):
        assert code_key(shown.__init__.__code__) in used, shown
    assert RemoteHub.__init__.__code__.co_filename in files  # the table channel's client
    solo = hotcode.used_by_a_game(moves=2)
    assert TableGameScreen.__init__.__code__.co_filename not in {
        key.rsplit(":", 2)[0] for key in solo}


def test_the_served_only_modules_are_taken_whole() -> None:
    import casino_tui.table.codec as codec

    keys = hotcode.served_only_code(["casino_tui.table.codec"])
    functions = [f for f in vars(codec).values()
                 if isinstance(f, types.FunctionType) and f.__module__ == codec.__name__]
    assert functions
    assert {code_key(f.__code__) for f in functions} <= keys
    assert hotcode.served_only_code(["no.such.module"], functions=()) == set()


def test_the_served_only_modules_nested_code_is_taken_too() -> None:
    """The code made inside a served-only module's functions (the input thread's inner
    functions and comprehensions) is packed with them: a served game runs it."""
    from casino_tui.app.quiet_input import QuietLinuxDriver

    keys = hotcode.served_only_code(["casino_tui.app.quiet_input"], functions=())
    run = QuietLinuxDriver.run_input_thread.__code__
    nested = [c for c in run.co_consts if isinstance(c, types.CodeType)]
    assert nested
    assert {code_key(run), *(code_key(c) for c in nested)} <= keys


def test_the_served_only_functions_are_found_with_their_nested_code() -> None:
    import queue

    from casino_tui.app.screens.game import GameScreen

    keys = hotcode.served_only_code(
        (), functions=["queue:Queue.get", "threading:Thread.daemon",
                       "casino_tui.app.screens.game:GameScreen._begin_human_turn",
                       "rich.color:Color.downgrade", "textual.color:Color.parse"])
    assert code_key(queue.Queue.get.__code__) in keys
    daemon = threading.Thread.daemon
    assert isinstance(daemon, property) and daemon.fget is not None
    assert code_key(daemon.fget.__code__) in keys  # a property: its getter (and setter)
    human = GameScreen._begin_human_turn.__code__
    assert {code_key(c) for c in human.co_consts if isinstance(c, types.CodeType)} <= keys
    from rich.color import Color

    assert code_key(Color.downgrade.__wrapped__.__code__) in keys  # behind lru_cache
    assert hotcode.named_functions("no.such.module:f") == []
    assert hotcode.named_functions("queue:Queue.no_such_method") == []
    assert hotcode.named_functions("queue:Empty") == []  # a class, not a function


def test_every_served_only_function_is_in_this_installation() -> None:
    """A guard: each function named in SERVED_ONLY_FUNCTIONS is found here (Textual, Rich,
    Python or the app renamed one: find what a served game runs again, with
    ``python -m benchmarks.memsplit --unpacked``, and update the list)."""
    from casino_tui.serve import forkserver

    forkserver._import_game_modules()  # what the fork server imports before packing
    import casino_tui.__main__
    import casino_tui.app.app  # noqa: F401

    missing = [name for name in hotcode.SERVED_ONLY_FUNCTIONS
               if not hotcode.named_functions(name)]
    ours = ("casino_tui.", "textual.", "rich.")
    assert [name for name in missing if name.startswith(ours)] == []
    # The standard library's names were found on Python 3.11 and 3.12 (each has them all);
    # Python 3.13 moved three (PurePath.suffix and .with_suffix, Thread._wait_for_tstate_lock),
    # which are then left unpacked there, at a little memory a game and nothing else.
    if sys.version_info[:2] in ((3, 11), (3, 12)):
        assert missing == []


def test_what_the_warm_up_game_found_is_kept_for_the_installation(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    games: list[int] = []

    def played(moves: int = hotcode.WARM_UP_MOVES,
               play: Callable[[int], None] = hotcode.play_a_game) -> set[str]:
        games.append(moves)
        return {"a.py:1:f", "b.py:2:g"}

    monkeypatch.setattr(hotcode, "used_by_a_game", played)
    cache = tmp_path / "cache"
    assert hotcode.used_by_a_game_cached(directory=cache) == {"a.py:1:f", "b.py:2:g"}
    assert hotcode.used_by_a_game_cached(directory=cache) == {"a.py:1:f", "b.py:2:g"}
    assert len(games) == 1  # the second fork server start read it
    assert cache.stat().st_mode & 0o777 == 0o700
    (kept,) = cache.glob("*.json")
    kept.write_text("not json")  # unreadable: played again, and written again
    assert hotcode.used_by_a_game_cached(directory=cache) == {"a.py:1:f", "b.py:2:g"}
    assert len(games) == 2 and json.loads(kept.read_text()) == ["a.py:1:f", "b.py:2:g"]
    # another installation (here another warm-up) finds it again, and the old file goes
    assert hotcode.used_by_a_game_cached(moves=1, directory=cache) == {"a.py:1:f", "b.py:2:g"}
    assert games == [hotcode.WARM_UP_MOVES, hotcode.WARM_UP_MOVES, 1]
    assert len(list(cache.glob("*.json"))) == 1


def test_the_solo_and_the_table_warm_up_games_are_kept_apart(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    games: list[str] = []

    def played(moves: int = hotcode.WARM_UP_MOVES,
               play: Callable[[int], None] = hotcode.play_a_game) -> set[str]:
        games.append(play.__name__)
        return {f"{play.__name__}.py:1:f"}

    monkeypatch.setattr(hotcode, "used_by_a_game", played)
    cache = tmp_path / "cache"
    (cache).mkdir(mode=0o700)
    (cache / ("0" * 32 + ".json")).write_text("[]")  # an older version's file: it goes
    table = hotcode.play_a_table_game
    for _ in range(2):
        assert hotcode.used_by_a_game_cached(directory=cache) == {"play_a_game.py:1:f"}
        assert hotcode.used_by_a_game_cached(directory=cache, play=table) == {
            "play_a_table_game.py:1:f"}
    assert games == ["play_a_game", "play_a_table_game"]  # each played once, then read
    assert sorted(p.name.split("-")[0] for p in cache.glob("*.json")) == [
        "play_a_game", "play_a_table_game"]


def test_a_changed_module_changes_the_installations_fingerprint(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    module = types.ModuleType("hotcode_probe_module")
    source = tmp_path / "hotcode_probe_module.py"
    source.write_text("x = 1\n")
    module.__file__ = str(source)
    monkeypatch.setitem(sys.modules, module.__name__, module)
    before = hotcode._fingerprint(3)
    assert hotcode._fingerprint(3) == before
    source.write_text("x = 22\n")
    assert hotcode._fingerprint(3) != before


def test_code_made_from_strings_is_told_apart_by_its_names() -> None:
    import dataclasses

    @dataclasses.dataclass
    class Seat:
        name: str
        score: int

    @dataclasses.dataclass
    class Pile:
        cards: list[int]

    seat, pile = Seat.__init__.__code__, Pile.__init__.__code__
    assert seat.co_filename == pile.co_filename == "<string>"
    assert (seat.co_firstlineno, seat.co_qualname) == (pile.co_firstlineno, pile.co_qualname)
    assert code_key(seat) != code_key(pile)
    assert code_key(seat) == code_key(Seat.__init__.__code__)
    assert code_key(_adder.__code__) == (f"{__file__}:{_adder.__code__.co_firstlineno}:_adder")
