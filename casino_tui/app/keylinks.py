"""Key hints that are also buttons: a click (or a tap) on one presses its key.

The dialogs' key lines (``Enter start   Esc back``) are Textual markup; :func:`key_link` wraps
a hint in an ``@click`` action that sends the key to the app (Textual's own
``App.action_simulate_key``), so a click does exactly what the key does and the keyboard stays
the one way everything is done. They look as before (``styles/app.tcss``: no link colour or
underline) and light up under the mouse."""

from __future__ import annotations


def key_link(text: str, key: str) -> str:
    """Markup: ``text`` (markup itself) as a hint that presses ``key`` when clicked."""
    return f"[@click=app.simulate_key({key!r})]{text}[/]"
