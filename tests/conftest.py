"""Fixtures shared by several test modules."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from serve_support import Server, Tmux


@pytest.fixture
def tmux(tmp_path: Path) -> Iterator[Tmux]:
    """A tmux server of the test's own, for terminal windows (closed afterwards)."""
    t = Tmux(tmp_path)
    yield t
    t.close()


@pytest.fixture
def servers() -> Iterator[list[Server]]:
    """The casino-tui servers a test starts (stopped afterwards; none may have logged a
    traceback)."""
    started: list[Server] = []
    yield started
    for s in started:
        s.stop()
    for s in started:
        assert "Traceback" not in s.log(), s.log()
