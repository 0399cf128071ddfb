"""The code a game runs, packed together in the fork server (casino_tui.serve.hotcode)."""

from __future__ import annotations

import threading
import types
from collections.abc import Callable

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


def test_the_served_only_modules_are_taken_whole() -> None:
    import casino_tui.table.codec as codec

    keys = hotcode.served_only_code(["casino_tui.table.codec"])
    functions = [f for f in vars(codec).values()
                 if isinstance(f, types.FunctionType) and f.__module__ == codec.__name__]
    assert functions
    assert {code_key(f.__code__) for f in functions} <= keys
    assert hotcode.served_only_code(["no.such.module"]) == set()
