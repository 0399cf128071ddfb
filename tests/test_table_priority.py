"""A game at a table of people runs fewer nice steps below the server than other games
(casino_tui.procs.table_nice, at_table): the value the server gives, taken only upwards, and
the one the game had before given back when it leaves the table."""

from __future__ import annotations

import pytest
from table_support import FakeAutogroup

from casino_tui import procs
from casino_tui.procs import TABLE_NICE_ENV, at_table, table_nice


@pytest.fixture
def group(monkeypatch: pytest.MonkeyPatch) -> FakeAutogroup:
    fake = FakeAutogroup(19)
    monkeypatch.setattr(procs, "_AUTOGROUP", fake)
    monkeypatch.setattr(procs, "_wanted", None)
    monkeypatch.setattr(procs, "_before_table", None)
    return fake


def test_a_tables_value_is_at_most_ten_steps_below_the_server() -> None:
    assert table_nice(0, 19) == 10
    assert table_nice(0, 4) == 4  # games already closer to the server keep their value
    assert table_nice(12, 19) == 19
    assert table_nice(0, 0) is None  # games at the server's priority
    assert table_nice(None, 19) is None  # no autogroups


def test_a_game_takes_the_tables_value_and_gives_it_back(group: FakeAutogroup) -> None:
    env = {TABLE_NICE_ENV: "10"}
    at_table(True, env)
    assert group.value == 10
    at_table(True, env)  # a second table screen: still once
    assert group.written == [10]
    at_table(False, env)
    assert group.value == 19 and group.written == [10, 19]
    at_table(False, env)  # left already: nothing more
    assert group.written == [10, 19]


def test_a_game_never_goes_above_its_value_nor_moves_without_the_variable(
        group: FakeAutogroup) -> None:
    group.value = 5  # a server whose games run 5 steps below it
    at_table(True, {TABLE_NICE_ENV: "10"})
    at_table(False, {TABLE_NICE_ENV: "10"})
    group.value = 19
    at_table(True, {})  # a game of no server, or one without tables' priority
    at_table(True, {TABLE_NICE_ENV: "fast"})
    at_table(False, {})
    assert group.written == []


def test_the_value_a_game_is_still_trying_to_set_is_the_one_given_back(
        group: FakeAutogroup, monkeypatch: pytest.MonkeyPatch) -> None:
    """A game whose lowering the kernel refused for now (tried again) is still at the server's
    value: the table's value is taken against the one it is going to, and that one is given
    back."""
    group.value = 0
    monkeypatch.setattr(procs, "_wanted", 19)
    at_table(True, {TABLE_NICE_ENV: "10"})
    at_table(False, {TABLE_NICE_ENV: "10"})
    assert group.written == [10, 19]
