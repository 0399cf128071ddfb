"""Where the .tcss files are: ``casino_tui/styles`` in a wheel, ``styles/`` in the source tree.

The app loads ``app.tcss``, ``title.tcss`` and the table's files (``game.tcss``,
``dialogs.tcss``) at start-up; each screen names its own files in ``CSS_PATH``, and a file the
app has not loaded yet is parsed when that screen is first shown (``setup.tcss``,
``load.tcss``; under ``serve``, the fork server parses them all before the games are forked:
:func:`screen_css_files`).
"""

from __future__ import annotations

from pathlib import Path, PurePath


def styles_dir() -> Path:
    package = Path(__file__).resolve().parent.parent
    installed = package / "styles"
    if installed.is_dir():
        return installed
    return package.parent / "styles"


def css(*names: str) -> list[str | PurePath]:
    """Paths of the named .tcss files (``css("game")`` is ``styles/game.tcss``)."""
    base = styles_dir()
    return [base / f"{name}.tcss" for name in names]


def screen_css_files() -> list[Path]:
    """Every .tcss file, in name order (those of the app and of every screen)."""
    return sorted(styles_dir().glob("*.tcss"))
