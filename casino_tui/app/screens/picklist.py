"""A list to choose from, filtered as you type: every legal move, or every preset."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import PurePath
from typing import ClassVar, Generic, TypeVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from ..hanging import Hanging
from ..keylinks import key_link
from ..styles import css
from .firstshow import FirstShow

ASCII_SUITS = str.maketrans({"♠": "s", "♥": "h", "♦": "d", "♣": "c"})
SUIT_CHARS = "♠♥♦♣"
_WORD = re.compile(r"[0-9a-zà-ÿ♠♥♦♣]+")


def words(text: str) -> list[str]:
    """The words of ``text`` in lower case: ``[7♣ 2♦]=9`` is ``7♣``, ``2♦``, ``9``."""
    return _WORD.findall(text.lower())


def search_key(text: str) -> tuple[str, ...]:
    """The words of a list item, cards also with suits as letters (``10♦`` and ``10d``)."""
    out = words(text)
    return tuple(out + [w.translate(ASCII_SUITS) for w in out if any(s in w for s in SUIT_CHARS)])


def matches(query: str, key: tuple[str, ...]) -> bool:
    """Every word of ``query`` begins a word of the item (``take k`` finds "Take K♠ with K♦",
    not "Take 7♥ with 7♣"); a lone suit (``♦``) finds a card of that suit."""
    for q in words(query):
        if q in SUIT_CHARS:
            if not any(w.endswith(q) for w in key):
                return False
        elif not any(w.startswith(q) for w in key):
            return False
    return True


T = TypeVar("T")


class PickListScreen(FirstShow, ModalScreen[T | None], Generic[T]):
    """Type to filter; Up/Down choose; Enter picks (dismisses with the item); Esc gives None."""

    CSS_PATH: ClassVar[list[str | PurePath]] = css("dialogs")

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Back", id="picklist.cancel"),
        Binding("up", "move(-1)", "Up", show=False, id="picklist.up"),
        Binding("down", "move(1)", "Down", show=False, id="picklist.down"),
        Binding("pageup", "move(-10)", "Page up", show=False, id="picklist.pageup"),
        Binding("pagedown", "move(10)", "Page down", show=False, id="picklist.pagedown"),
    ]

    def __init__(self, items: Sequence[tuple[T, str]], *, title: str, noun: str,
                 placeholder: str, verb: str = "choose", highlight: int = 0,
                 numbered: bool = True, hang: int = 0) -> None:
        super().__init__()
        self.items = list(items)
        self.keys = [search_key(text) for _, text in self.items]
        self.shown: list[int] = list(range(len(self.items)))
        self.title_text = title
        self.noun = noun
        self.placeholder = placeholder
        self.verb = verb
        self.start = highlight
        self.numbered = numbered
        self.hang = hang  # wrapped lines of an item continue under this column of its text

    def help_sections(self) -> list[tuple[str, list[tuple[str, str]]]]:
        return [(self.title_text, [
            ("letters, digits", f"filter the {self.noun} (e.g. {self.placeholder})"),
            ("↑↓ PgUp PgDn", f"highlight one of the {self.noun}"),
            ("Enter", f"{self.verb} the highlighted one"),
            ("Esc", "go back"),
        ])]

    def compose(self) -> ComposeResult:
        with Vertical(id="picklist-box", classes="dialog wide"):
            yield Static(f"{self.title_text} ({len(self.items)})", classes="dialog-title",
                         id="picklist-title")
            yield Input(placeholder=f"type to filter: {self.placeholder}",
                        id="picklist-filter", compact=True)
            yield OptionList(*self._options(), id="picklist-options", markup=False)
            yield Static(key_link(f"Enter {self.verb}", "enter") + " · ↑↓ choose · "
                         + key_link("Esc back", "escape"), classes="dialog-keys")

    def on_mount(self) -> None:
        inp = self.query_one(Input)
        inp.cursor_blink = False
        inp.focus()
        options = self.query_one(OptionList)
        options.can_focus = False
        if self.shown:
            options.highlighted = min(self.start, len(self.shown) - 1)

    def _options(self) -> list[Option]:
        if not self.shown:
            query = self.query_one(Input).value.strip() if self.is_mounted else ""
            what = f"No {self.noun} match “{query}”" if query else f"There are no {self.noun}"
            return [Option(f"{what}.", disabled=True)]
        if not self.numbered:
            return [Option(Hanging(self.items[i][1], self.hang), id=str(i)) for i in self.shown]
        return [Option(Hanging(f"{n + 1:>3}. {self.items[i][1]}", 5 + self.hang), id=str(i))
                for n, i in enumerate(self.shown)]

    def on_input_changed(self, event: Input.Changed) -> None:
        self.shown = [i for i, k in enumerate(self.keys) if matches(event.value, k)]
        options = self.query_one(OptionList)
        options.clear_options()
        options.add_options(self._options())
        if self.shown:
            options.highlighted = 0
        self.query_one("#picklist-title", Static).update(
            f"{self.title_text}: {len(self.shown)} of {len(self.items)}")

    def action_move(self, delta: int) -> None:
        options = self.query_one(OptionList)
        if not self.shown:
            return
        cur = options.highlighted or 0
        options.highlighted = max(0, min(len(self.shown) - 1, cur + delta))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._choose()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self._choose()

    def _choose(self) -> None:
        options = self.query_one(OptionList)
        if not self.shown or options.highlighted is None:
            return
        option = options.get_option_at_index(options.highlighted)
        self.dismiss(self.items[int(option.id or 0)][0])

    def action_cancel(self) -> None:
        self.dismiss(None)
