"""casino-tui: Cassino, the classic fishing card game, in the terminal."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("casino-tui")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0+source"
