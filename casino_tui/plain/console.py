"""Where plain mode's lines go and where its commands come from.

:class:`Console` is what the game needs: :meth:`~Console.say` appends a line (never redraws
anything), :meth:`~Console.ask` shows a prompt and reads one line (None at the end of input).
:class:`TerminalConsole` is the real one: standard input and output, lines wrapped at word
boundaries to the terminal's width, and, on a terminal, GNU readline for history and tab
completion, set up so that it writes no escape sequence of its own (no bracketed paste, no
meta-key or keypad switching).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import textwrap
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from types import ModuleType
from typing import Any, Protocol, TextIO

HISTORY_FILE = "plain_history"
HISTORY_LENGTH = 500


class Console(Protocol):
    def say(self, text: str = "") -> None:
        """Append ``text`` (one sentence or more; may hold line breaks)."""

    def ask(self, prompt: str) -> str | None:
        """Show ``prompt`` and read a line (None: the input has ended)."""

    def set_words(self, words: Callable[[], Iterable[str]]) -> None:
        """What tab completes, asked again at every completion."""


def wrap(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` characters, broken between words (a word longer
    than the line is broken too); blank lines kept."""
    out: list[str] = []
    for para in text.split("\n"):
        if not para.strip():
            out.append("")
            continue
        out += textwrap.wrap(para, width=max(width, 20), break_on_hyphens=False) or [""]
    return out


class TerminalConsole:
    """Plain lines on standard output; commands from standard input, through readline (history
    and tab completion) when it is a terminal."""

    def __init__(self, stdin: TextIO | None = None, stdout: TextIO | None = None, *,
                 history: Path | None = None, width: int | None = None) -> None:
        self.stdin = stdin or sys.stdin
        self.stdout = stdout or sys.stdout
        self._width = width
        self._words: Callable[[], Iterable[str]] = lambda: ()
        self._history = history
        self._prompt: str | None = None  # the prompt being answered (another thread may say)
        self._lock = threading.Lock()
        self._readline: Any = None
        if self.stdin is sys.stdin and _isatty(self.stdin) and _isatty(self.stdout):
            self._readline = _set_up_readline(self._complete, history)

    @property
    def width(self) -> int:
        if self._width is not None:
            return self._width
        with contextlib.suppress(OSError, ValueError, AttributeError):
            return os.get_terminal_size(self.stdout.fileno()).columns - 1
        return shutil.get_terminal_size((80, 24)).columns - 1

    def say(self, text: str = "") -> None:
        """Append ``text``. While another thread waits at a prompt (a table's events arrive as
        the player types), the text goes on lines of its own after the prompt, and the prompt
        is written again with what has been typed so far: appended, never redrawn."""
        lines = wrap(text, self.width)
        with self._lock:
            prompt = self._prompt
            if prompt is not None:
                typed = self._readline.get_line_buffer() if self._readline is not None else ""
                self.stdout.write("\n" + "\n".join(lines) + "\n" + prompt + typed)
            else:
                self.stdout.write("\n".join(lines) + "\n")
            self.stdout.flush()

    def ask(self, prompt: str) -> str | None:
        with self._lock:
            self.stdout.flush()
            self._prompt = prompt
        try:
            if self._readline is not None:
                try:
                    return input(prompt)
                except EOFError:
                    self.stdout.write("\n")
                    return None
            with self._lock:
                self.stdout.write(prompt)
                self.stdout.flush()
            line = self.stdin.readline()
            if not line:
                self.stdout.write("\n")
                return None
            return line.rstrip("\r\n")
        finally:
            with self._lock:
                self._prompt = None

    def set_words(self, words: Callable[[], Iterable[str]]) -> None:
        self._words = words

    def _complete(self, text: str, state: int) -> str | None:
        low = text.lower()
        matches = sorted({w for w in self._words() if w.startswith(low)})
        return matches[state] + " " if state < len(matches) else None

    def close(self) -> None:
        if self._readline is not None and self._history is not None:
            with contextlib.suppress(OSError):
                self._history.parent.mkdir(parents=True, exist_ok=True)
                self._readline.set_history_length(HISTORY_LENGTH)
                self._readline.write_history_file(str(self._history))


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _set_up_readline(complete: Callable[[str, int], str | None],
                     history: Path | None) -> ModuleType | None:
    """GNU readline for history and completion, told to write nothing but the line: no
    bracketed paste, no meta-key or keypad mode (escape sequences a screen reader would
    read out or a braille display would show)."""
    try:
        import readline
    except ImportError:  # pragma: no cover - Python built without readline
        return None
    for setting in ("set enable-bracketed-paste off", "set enable-meta-key off",
                    "set enable-keypad off", "set bell-style none",
                    "set horizontal-scroll-mode off", "tab: complete"):
        with contextlib.suppress(Exception):
            readline.parse_and_bind(setting)
    readline.set_completer_delims(" ")
    readline.set_completer(complete)
    if history is not None:
        with contextlib.suppress(OSError):
            readline.read_history_file(str(history))
    return readline
