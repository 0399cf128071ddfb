"""The real ``casino-tui web`` and a real Chromium (Debian's ``chromium`` through Playwright's
``executable_path``: these machines cannot download a browser), for the browser tests. The
command and a page's screen (read from the page's own websocket through pyte) come from
:mod:`casino_tui.web.drive`, which the benchmark uses too."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from casino_tui.web.drive import CHROMIUM, TITLE, PageScreen, WebCommand, chromium_missing

__all__ = ["CHROMIUM", "TITLE", "PageScreen", "WebCommand", "chromium_missing", "screenshot"]


def screenshot(page: Any, name: str) -> None:
    """A screenshot into $CASINO_TUI_SCREENSHOTS (when set), to look at."""
    folder = os.environ.get("CASINO_TUI_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / f"{name}.png"))
