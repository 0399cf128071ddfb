"""Where the .tcss files are: ``casino_tui/styles`` in a wheel, ``styles/`` in the source tree.

The app loads ``app.tcss`` and ``title.tcss`` at start-up; each other screen names its own file
in ``CSS_PATH``, so its rules are parsed only when that screen is first shown (under
``serve``, the fork server parses them all before the games are forked: :func:`screen_css_files`).
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
