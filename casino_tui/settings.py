"""Player settings: card style, four-colour deck, theme, computer move speed, undo and display
name.

Stored as JSON in the platformdirs user config directory (``casino-tui``); the environment
variable ``CASINO_TUI_CONFIG_DIR`` overrides the directory (tests use it). A missing or damaged
file gives the defaults: settings never stop the game from starting.

The display name is what other people see at tables on a server. Over SSH every key has its
own settings file (the server gives each player's game its own ``CASINO_TUI_CONFIG_DIR``, see
:mod:`casino_tui.serve.players`), so the name is kept with the key's profile; it is empty until
the player chooses one.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any, Literal

# The display-name rule is shared with the server's tables (kept in casino_tui.names).
from casino_tui.names import MAX_DISPLAY_NAME as MAX_DISPLAY_NAME
from casino_tui.names import clean_display_name

APP_NAME = "casino-tui"
CONFIG_ENV = "CASINO_TUI_CONFIG_DIR"
SETTINGS_FILE = "settings.json"

CardStyle = Literal["unicode", "ascii"]
Speed = Literal["slow", "normal", "fast", "instant"]

CARD_STYLES: tuple[CardStyle, ...] = ("unicode", "ascii")
SPEEDS: tuple[Speed, ...] = ("slow", "normal", "fast", "instant")
PLAIN_CARD_STYLES: tuple[str, ...] = ("words", "short")
# Seconds a computer move stays on screen before the next one is played.
SPEED_DELAYS: dict[str, float] = {"slow": 1.6, "normal": 0.9, "fast": 0.35, "instant": 0.0}
DEFAULT_THEME = "textual-dark"


@dataclass(frozen=True)
class Settings:
    """What a player can change on the Settings screen."""

    card_style: CardStyle = "unicode"
    four_colour: bool = False
    theme: str = DEFAULT_THEME
    speed: Speed = "normal"
    display_name: str = ""  # empty: not chosen yet
    undo: bool = True  # u takes back the person's last play (games against the computer)
    # plain mode (casino-tui --plain): cards said as words ("ten of diamonds") or short ("10D"),
    # and the line with your hand and the table at the start of your turn
    plain_cards: str = "words"
    plain_summary: bool = True

    @property
    def symbols(self) -> bool:
        return self.card_style == "unicode"

    @property
    def delay(self) -> float:
        return SPEED_DELAYS[self.speed]

    def with_(self, **changes: Any) -> Settings:
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: object) -> Settings:
        """Settings from parsed JSON; unknown keys and bad values fall back to the defaults."""
        if not isinstance(data, dict):
            return cls()
        base = cls()
        values: dict[str, Any] = {}
        for f in fields(cls):
            if f.name not in data:
                continue
            v = data[f.name]
            default = getattr(base, f.name)
            if f.name == "card_style" and v not in CARD_STYLES:
                continue
            if f.name == "speed" and v not in SPEEDS:
                continue
            if f.name == "plain_cards" and v not in PLAIN_CARD_STYLES:
                continue
            if f.name == "display_name":
                try:
                    v = clean_display_name(v)
                except ValueError:
                    continue
            if not isinstance(v, type(default)):
                continue
            values[f.name] = v
        return cls(**values)


def config_dir() -> Path:
    """The directory holding settings."""
    env = os.environ.get(CONFIG_ENV)
    if env:
        return Path(env)
    from platformdirs import user_config_dir

    return Path(user_config_dir(APP_NAME, appauthor=False))


def settings_path() -> Path:
    return config_dir() / SETTINGS_FILE


def load_settings(directory: Path | None = None) -> Settings:
    """The settings in :func:`config_dir`, or in ``directory`` (the server reads a player's)."""
    path = settings_path() if directory is None else directory / SETTINGS_FILE
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return Settings()
    try:
        return Settings.from_dict(json.loads(text))
    except ValueError:
        return Settings()


def save_settings(settings: Settings) -> Path | None:
    """Write the settings; returns the file, or None if the directory cannot be written."""
    path = settings_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(settings.to_dict(), indent=2) + "\n", encoding="utf-8")
        tmp.replace(path)
    except OSError:
        return None
    return path
