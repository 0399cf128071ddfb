"""Player settings: card style, four-colour deck, theme and computer move speed.

Stored as JSON in the platformdirs user config directory (``casino-tui``); the environment
variable ``CASINO_TUI_CONFIG_DIR`` overrides the directory (tests use it). A missing or damaged
file gives the defaults: settings never stop the game from starting.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any, Literal

APP_NAME = "casino-tui"
CONFIG_ENV = "CASINO_TUI_CONFIG_DIR"
SETTINGS_FILE = "settings.json"

CardStyle = Literal["unicode", "ascii"]
Speed = Literal["slow", "normal", "fast", "instant"]

CARD_STYLES: tuple[CardStyle, ...] = ("unicode", "ascii")
SPEEDS: tuple[Speed, ...] = ("slow", "normal", "fast", "instant")
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
            if not isinstance(v, type(default)):
                continue
            values[f.name] = v
        return cls(**values)


def config_dir() -> Path:
    """The directory holding settings (and, later, saved games)."""
    env = os.environ.get(CONFIG_ENV)
    if env:
        return Path(env)
    from platformdirs import user_config_dir

    return Path(user_config_dir(APP_NAME, appauthor=False))


def settings_path() -> Path:
    return config_dir() / SETTINGS_FILE


def load_settings() -> Settings:
    try:
        text = settings_path().read_text(encoding="utf-8")
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
