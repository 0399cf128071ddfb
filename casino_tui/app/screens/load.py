"""The saved games: open, replay, rename or delete one (and see why a file cannot be opened)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from casino_tui.saves import SaveEntry, SaveError, SaveStore

from ..keylinks import key_link
from ..saveproblems import failure_message
from ..styles import css
from .confirm import ConfirmScreen
from .name import NameScreen

if TYPE_CHECKING:  # pragma: no cover
    from ..app import CasinoApp


def when(t: datetime) -> str:
    """A time in the local time zone, to the minute (with its own offset if it cannot be
    converted: times near the ends of datetime's range overflow)."""
    try:
        return t.astimezone().strftime("%Y-%m-%d %H:%M")
    except (OverflowError, OSError, ValueError):
        return t.strftime("%Y-%m-%d %H:%M %z").rstrip()


def entry_text(entry: SaveEntry) -> Text:
    """Two or three lines about a saved game for the list."""
    from ..session import preset_title

    out = Text(entry.title, style="bold")
    if not entry.ok:
        out.append("  cannot be opened", style="bold red")
        out.append(f"\n  {entry.error}", style="italic")
        out.append(f"\n  {entry.path.name} · {entry.size} bytes", style="dim")
        return out
    if entry.finished:
        winner = entry.winner_name
        out.append(f"  finished · {winner} won" if winner else "  finished", style="green")
    if entry.in_use:
        out.append("  open in another window", style="yellow")
    try:
        preset = preset_title(entry.preset)
    except Exception:  # an unknown preset is still listed
        preset = entry.preset
    scores = " · ".join(f"{name} {score}" for name, score in
                        zip(entry.side_names(), entry.scores, strict=False))
    out.append(f"\n  {preset} · {scores} (to {entry.target}) · round {entry.round_no}")
    out.append(f"\n  last played {when(entry.last_played)}", style="dim")
    if entry.from_backup:
        out.append(f" · restored from backup ({entry.damage})", style="yellow")
    return out


class LoadScreen(Screen[SaveEntry | None]):
    """Every saved game, most recently played first; dismisses with the entry to open."""

    CSS_PATH: ClassVar[list[str | PurePath]] = css("load")

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "rename", "Rename", show=False, id="load.rename"),
        Binding("v", "replay", "Replay", show=False, id="load.replay"),
        Binding("d,delete", "delete", "Delete", show=False, id="load.delete"),
        Binding("escape", "back", "Back", show=False, id="load.back"),
    ]
    HELP_TITLE = "Saved games"

    def __init__(self, store: SaveStore) -> None:
        super().__init__()
        self.store = store
        self.entries: list[SaveEntry] = []

    @property
    def casino(self) -> CasinoApp:
        return self.app  # type: ignore[return-value]

    def help_sections(self) -> list[tuple[str, list[tuple[str, str]]]]:
        return [(self.HELP_TITLE, [
            ("↑↓ PgUp PgDn", "choose a saved game"), ("Enter", "open it"),
            ("v", "replay it, read only: step through its moves and rounds"),
            ("r", "rename it"), ("d / Delete", "delete it (asks first)"),
            ("Esc", "back to the title screen"),
        ])]

    def compose(self) -> ComposeResult:
        with Vertical(id="load-box"):
            yield Static("Saved games", id="load-title")
            yield OptionList(id="load-list")
            yield Static(" · ".join(["↑↓ choose", key_link("Enter open", "enter"),
                                     key_link("v replay", "v"), key_link("r rename", "r"),
                                     key_link("d delete", "d"), key_link("Esc back", "escape"),
                                     key_link("? help", "question_mark")]), id="load-keys")

    def on_mount(self) -> None:
        self.reload()

    def reload(self, keep: Path | None = None) -> None:
        try:
            self.entries = self.store.entries()
        except SaveError as e:
            self.entries = []
            self.notify(str(e), severity="error", markup=False)
        menu = self.query_one("#load-list", OptionList)
        old = menu.highlighted
        menu.clear_options()
        if not self.entries:
            menu.add_option(Option(Text("There are no saved games.", style="italic"),
                                   disabled=True))
            menu.focus()
            return
        menu.add_options([Option(entry_text(e), id=str(i)) for i, e in enumerate(self.entries)])
        index = next((i for i, e in enumerate(self.entries) if e.path == keep), None)
        if index is None:
            index = min(old or 0, len(self.entries) - 1)
        menu.highlighted = index
        menu.focus()

    def _current(self) -> SaveEntry | None:
        i = self.query_one("#load-list", OptionList).highlighted
        if i is None or not 0 <= i < len(self.entries):
            return None
        return self.entries[i]

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        entry = self._current()
        if entry is None:
            return
        if not entry.ok:
            self.notify(f"This file cannot be opened: {entry.error}.", severity="error",
                        markup=False)
            return
        self.dismiss(entry)

    def action_replay(self) -> None:
        entry = self._current()
        if entry is None:
            return
        if not entry.ok:
            self.notify(f"This file cannot be opened: {entry.error}.", severity="error",
                        markup=False)
            return
        self.casino.show_replay(entry)

    def action_rename(self) -> None:
        entry = self._current()
        if entry is None:
            return
        if not entry.ok:
            self.notify("A file that cannot be opened cannot be renamed.", severity="warning")
            return

        def done(name: str | None) -> None:
            if name is None:
                return
            try:
                self.store.rename(entry, name or None)
            except SaveError as e:
                self.notify(failure_message("Renaming", e), severity="error", markup=False)
            self.reload(keep=entry.path)

        self.app.push_screen(NameScreen(f"New name for “{entry.title}” (empty: no name)",
                                        entry.name or ""), done)

    def action_delete(self) -> None:
        entry = self._current()
        if entry is None:
            return

        def done(yes: bool | None) -> None:
            if not yes:
                return
            try:
                self.store.delete(entry)
            except SaveError as e:
                self.notify(failure_message("Deleting", e), severity="error", markup=False)
            else:
                self.notify(f"Deleted “{entry.title}”.", markup=False)
            self.reload()
            self.casino.saves_changed()

        self.app.push_screen(ConfirmScreen(
            f"Delete the saved game “{entry.title}”? This cannot be undone."), done)

    def action_back(self) -> None:
        self.dismiss(None)
