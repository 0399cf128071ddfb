"""Text with a hanging indent: wrapped lines continue under a column instead of at the left edge
(a bullet's text, a list entry's description)."""

from __future__ import annotations

from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.text import Text

MIN_BODY = 12  # narrower than this for the wrapped part, the text wraps normally


class Hanging:
    """``text`` whose first ``indent`` cells stay on the first line (a bullet, a number, a
    name column); the rest wraps in the column after them."""

    def __init__(self, text: str | Text, indent: int) -> None:
        self.text = Text(text) if isinstance(text, str) else text
        self.indent = indent

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        text = self.text
        indent = self.indent
        if width - indent < MIN_BODY or text.cell_len <= width:
            lines = list(text.wrap(console, width))
        else:
            head, body = text[:indent], text[indent:]
            lines = []
            for i, line in enumerate(body.wrap(console, width - indent)):
                out = head.copy() if i == 0 else Text(" " * indent)
                out.append_text(line)
                lines.append(out)
        yield Text("\n").join(lines)

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement(min(self.text.cell_len, self.indent + MIN_BODY),
                           self.text.cell_len)


def hanging_bullets(text: Text, bullet: str = "• ") -> list[Text | Hanging]:
    """``text`` line by line, the lines starting with ``bullet`` with a hanging indent."""
    out: list[Text | Hanging] = []
    for line in text.split("\n"):
        out.append(Hanging(line, len(bullet)) if line.plain.startswith(bullet) else line)
    return out
