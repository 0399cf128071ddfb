"""The title under a server with tables (casino_tui/app/app.py, _connect_tables): Tables is on
the menu from the first frame, the menu is not shown again when the tables are reached (no
layout, no repaint), the tables are asked once whether the player has a game to go back to,
and Tables pressed before they are reached says so."""

from __future__ import annotations

import asyncio
import gc
import socket
import warnings
from pathlib import Path
from typing import Any

import pytest
from table_support import SeededThinker
from textual.screen import Screen

from casino_tui.app.screens.title import TitleScreen
from casino_tui.table.hub import LocalHub
from casino_tui.table.wire import new_secret, socket_path

from .conftest import asynctest
from .test_tables_channel import ANN, served_app, serving, title_text, until


def counted(hub: LocalHub, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Who asks ``hub`` for its tables, in order."""
    listed: list[str] = []
    list_tables = hub.list_tables

    async def counting(person: Any) -> Any:
        listed.append(person.id)
        return await list_tables(person)

    monkeypatch.setattr(hub, "list_tables", counting)
    return listed


@asynctest
async def test_tables_are_offered_from_the_first_frame_and_asked_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    hub = LocalHub(SeededThinker())
    listed = counted(hub, monkeypatch)
    layouts: list[str] = []
    layout = Screen._refresh_layout

    def laying_out(self: Screen[Any], *args: Any, **kwargs: Any) -> None:
        layout(self, *args, **kwargs)
        layouts.append(type(self).__name__)

    monkeypatch.setattr(Screen, "_refresh_layout", laying_out)
    service, app = await serving(hub, tmp_path)
    try:
        first: list[str] = []
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, TitleScreen)
                        and bool(app.screen.query("OptionList")))
            first.append(title_text(app))
            await until(pilot, lambda: app.hub is not None and listed)
            await pilot.pause(0.3)
            assert "Tables" in first[0] and title_text(app) == first[0]
            assert listed == [ANN.player]  # once: the table to go back to, and Continue's note
            # the first frame's layout and Textual's own after it: none when the tables answer
            assert layouts == ["TitleScreen"] * 2
            assert app.hub is not None
            await app.hub.close()  # type: ignore[attr-defined]
    finally:
        await service.close()
        hub.shutdown()


@asynctest
async def test_tables_pressed_before_the_tables_answer_says_so(tmp_path: Path) -> None:
    """A server that has not answered yet (a busy one): Tables is offered, and pressing it
    says the tables are still being reached instead of doing nothing."""
    path = socket_path(tmp_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    silent = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    silent.bind(str(path))
    silent.listen(4)  # takes the connection, never says hello
    try:
        app = served_app(path, new_secret())
        async with app.run_test(size=(80, 24), notifications=True) as pilot:
            await until(pilot, lambda: "Tables" in title_text(app))
            assert app.hub is None and app.reaching_tables
            await pilot.press("t")
            await until(pilot, lambda: bool(app._notifications))
            text = " ".join(str(n.message) for n in app._notifications)
            assert "Still reaching the server's tables" in text
            assert isinstance(app.screen, TitleScreen)
            app.exit()
            await asyncio.sleep(0)
    finally:
        silent.close()


@asynctest
async def test_a_look_replaced_before_it_starts_leaves_no_coroutine_never_awaited(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two looks for a table to go back to, one right after the other (the title resumed as
    the tables answer): the second replaces the first before it starts, and runs. The first
    leaves no coroutine that was never awaited: Python warns of each one, and to say where it
    reads a whole source file into memory that the game keeps (0.7 MB at a table)."""
    hub = LocalHub(SeededThinker())
    listed = counted(hub, monkeypatch)
    service, app = await serving(hub, tmp_path)
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: app.hub is not None and listed)
            await pilot.pause(0.1)
            listed.clear()
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                app.refresh_table_to_continue()
                app.refresh_table_to_continue()
                await until(pilot, lambda: bool(listed))
                await pilot.pause(0.1)
                gc.collect()
            assert listed == [ANN.player]  # the second look ran, the first never began
            assert [str(w.message) for w in caught if "never awaited" in str(w.message)] == []
            assert app.hub is not None
            await app.hub.close()  # type: ignore[attr-defined]
    finally:
        await service.close()
        hub.shutdown()
