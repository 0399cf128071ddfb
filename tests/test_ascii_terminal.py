"""The real program where the output encoding is not UTF-8 (``LC_ALL=C PYTHONUTF8=0``,
``PYTHONIOENCODING=ascii``), and with ``--ascii``: every byte it writes to the terminal is
ASCII (no ``\\u256d`` escape text), the borders are ``+-|``, and the game is played through
from the title to the table and its dialogs."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from pty_support import PtyApp, app_env

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="needs Linux PTYs")

CASES = [
    pytest.param({"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0"}, [], id="LC_ALL=C"),
    pytest.param({"PYTHONIOENCODING": "ascii"}, [], id="PYTHONIOENCODING=ascii"),
    pytest.param({}, ["--ascii"], id="--ascii"),
]


@pytest.fixture
def apps() -> Iterator[list[PtyApp]]:
    started: list[PtyApp] = []
    yield started
    for app in started:
        app.close()


def _ascii_only(app: PtyApp, since: int, where: str) -> None:
    raw = app.raw(since)
    bad = sorted({b for b in raw if b >= 0x80})
    assert not bad, f"{where}: bytes {bad} in {raw[-300:]!r}"
    assert b"\\u" not in raw and b"\\x" not in raw, f"{where}: escape text {raw[-300:]!r}"


@pytest.mark.parametrize(("env", "args"), CASES)
def test_a_terminal_without_unicode_gets_ascii_everywhere(
        env: dict[str, str], args: list[str], tmp_path: Path, apps: list[PtyApp]) -> None:
    app = PtyApp(args, app_env(tmp_path, **env))
    apps.append(app)
    app.wait_for("fishing card game")
    app.wait_for(r"\+-{40,}\+")  # the menu's border
    app.wait_for("S  H  D  C")
    app.wait_for(r"\^v choose - Enter select")
    _ascii_only(app, 0, "title")
    steps = (("n", "Preset"), ("\r", r"\+- Your hand - South -+"), ("?", "Game table"),
             ("\x1b", "Your hand"), ("r", r"scroll - Esc close"), ("\x1b", "Your hand"),
             ("o", "Card style"), ("\x1b", "Your hand"))
    for key, expected in steps:
        mark = app.mark()
        app.send(key)
        app.wait_for(expected, since=mark)
        _ascii_only(app, mark, repr(key))
    assert "Your turn" in app.text() or "thinking" in app.text()
    mark = app.mark()
    app.send("\x11")  # Ctrl+Q
    assert app.wait_exit() == 0
    _ascii_only(app, mark, "quit")
    assert b"\x1b[?1049l" in app.raw(mark)


def test_a_utf8_terminal_gets_unicode(tmp_path: Path, apps: list[PtyApp]) -> None:
    """The check above can fail: with UTF-8 the same screen has box drawing and symbols."""
    app = PtyApp([], app_env(tmp_path))
    apps.append(app)
    app.wait_for("fishing card game")
    app.wait_for("╭─")
    app.wait_for("↑↓ choose · Enter select")
    app.send("\x11")
    assert app.wait_exit() == 0


def test_bytes_that_are_not_utf8_do_not_end_the_game(tmp_path: Path,
                                                     apps: list[PtyApp]) -> None:
    """A stray byte (a Latin-1 terminal's é, a broken paste) is read as a key no one binds:
    Textual's strict decoder would end the program with a traceback."""
    app = PtyApp([], app_env(tmp_path))
    apps.append(app)
    app.wait_for("fishing card game")
    app.send(b"\x82\xe9\xff")
    mark = app.mark()
    app.send("n")
    app.wait_for("Preset", since=mark)
    assert "Traceback" not in app.text() and app.poll() is None
    mark = app.mark()
    app.send("\x11")  # Ctrl+Q
    assert app.wait_exit() == 0
