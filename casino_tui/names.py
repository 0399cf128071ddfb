"""Display names: the names people choose to be shown at tables on a server.

The one rule, pure Python and without imports of the game, so that the player's settings
(:mod:`casino_tui.settings`, where the name is kept), the Settings screen and the server's
table service (:mod:`casino_tui.table.service`, which checks every name an app sends) all apply
the same one.
"""

from __future__ import annotations

MAX_DISPLAY_NAME = 20


def clean_display_name(text: str) -> str:
    """``text`` as a display name (spaces around it removed), or ``ValueError`` saying why not:
    1 to 20 characters, all printable (no control characters, so no terminal escapes, and no
    line breaks, invisible formatting or direction marks). Names are always shown literally:
    ``[b]`` is two brackets and a letter, never markup."""
    if not isinstance(text, str):
        raise ValueError("a display name is text")
    name = text.strip()
    if not name:
        raise ValueError("a display name needs at least one character")
    if len(name) > MAX_DISPLAY_NAME:
        raise ValueError(f"a display name has at most {MAX_DISPLAY_NAME} characters")
    if not name.isprintable():
        raise ValueError("a display name cannot hold control characters or invisible ones")
    return name
