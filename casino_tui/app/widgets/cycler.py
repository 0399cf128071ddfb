"""A one-line form field that cycles through choices with Left/Right: ``Label  ◂ value ▸  note``."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any, ClassVar

from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widget import Widget


class Cycler(Widget, can_focus=True):
    """Choose one of ``choices`` (value, label) with Left/Right (Home/End for the ends), or
    with the mouse: a click on ``◂`` steps back, on the value or ``▸`` forward."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "step(-1)", "Previous", show=False, id="cycler.previous"),
        Binding("right", "step(1)", "Next", show=False, id="cycler.next"),
        Binding("home", "jump(0)", "First", show=False, id="cycler.first"),
        Binding("end", "jump(-1)", "Last", show=False, id="cycler.last"),
    ]

    class Changed(Message):
        def __init__(self, cycler: Cycler, value: Any) -> None:
            super().__init__()
            self.cycler = cycler
            self.value = value

        @property
        def control(self) -> Cycler:
            return self.cycler

    def __init__(self, label: str, choices: Sequence[tuple[Hashable, str]], value: Hashable,
                 *, note: str = "", label_width: int = 12, id: str | None = None,
                 classes: str | None = None, disabled: bool = False) -> None:
        super().__init__(id=id, classes=classes, disabled=disabled)
        self.label = label
        self.label_width = label_width
        self._choices = list(choices)
        self._index = self._find(value)
        self.note = note

    def _find(self, value: Hashable) -> int:
        for i, (v, _) in enumerate(self._choices):
            if v == value:
                return i
        return 0

    @property
    def value(self) -> Any:
        return self._choices[self._index][0] if self._choices else None

    @property
    def choices(self) -> list[tuple[Hashable, str]]:
        return list(self._choices)

    def set_choices(self, choices: Sequence[tuple[Hashable, str]], value: Hashable) -> None:
        self._choices = list(choices)
        self._index = self._find(value)
        self.refresh()

    def set_value(self, value: Hashable) -> None:
        self._index = self._find(value)
        self.refresh()

    def set_note(self, note: str) -> None:
        if note != self.note:
            self.note = note
            self.refresh()

    def action_step(self, delta: int) -> None:
        if not self._choices:
            return
        self._index = (self._index + delta) % len(self._choices)
        self.refresh()
        self.post_message(self.Changed(self, self.value))

    def action_jump(self, index: int) -> None:
        if not self._choices:
            return
        self._index = index % len(self._choices)
        self.refresh()
        self.post_message(self.Changed(self, self.value))

    def _widest(self) -> int:
        return max((len(text) for _, text in self._choices), default=1)

    def step_at(self, x: int) -> int:
        """What a click at column ``x`` does: -1 (on ``◂``), 1 (on the value or ``▸``), 0."""
        start = self.label_width
        end = start + 2 + self._widest() + 2 + 2  # "◂ ", " value ", " ▸"
        if start <= x < start + 2:
            return -1
        if start + 2 <= x < end:
            return 1
        return 0

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        step = 0 if offset is None else self.step_at(offset.x)
        if step:
            event.stop()
            self.action_step(step)

    def render(self) -> Text:
        label = self._choices[self._index][1] if self._choices else "-"
        widest = self._widest()
        label = label.ljust(widest)  # the arrows stay put as the value changes
        out = Text(self.label.ljust(self.label_width), style="bold")
        arrows = "dim" if self.disabled else ""
        out.append("◂ ", style=arrows)
        out.append(f" {label} ", style="reverse bold" if self.has_focus else "bold")
        out.append(" ▸", style=arrows)
        if self.note:
            out.append("  " + self.note, style="dim italic")
        return out

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()
