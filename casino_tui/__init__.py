"""casino-tui: Cassino, the classic fishing card game, in the terminal."""

from __future__ import annotations


def __getattr__(name: str) -> str:
    # looked up lazily: importlib.metadata costs tens of milliseconds at start-up
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("casino-tui")
        except PackageNotFoundError:  # pragma: no cover - running from a bare source tree
            return "0.0.0+source"
    raise AttributeError(name)
