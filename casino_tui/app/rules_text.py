"""A concise player's summary of a preset, as styled text for the rules screen: the sentences
come from :mod:`casino_tui.table.rulebook` (plain mode speaks the same ones)."""

from __future__ import annotations

from rich.text import Text

from casino_tui.engine import Rules
from casino_tui.table.rulebook import rules_intro, rules_sections

from .cardfmt import CardPainter
from .session import preset_title


def rules_summary(rules: Rules, painter: CardPainter, num_players: int | None = None) -> Text:
    """The player's summary of ``rules`` as styled text (headings and short paragraphs)."""
    out = Text()
    out.append(preset_title(rules.preset_name) + "\n", style="bold reverse")
    what, players = rules_intro(rules)
    out.append(what + "\n", style="italic")
    out.append(players + "\n")
    for heading, lines in rules_sections(rules, symbols=painter.symbols,
                                         num_players=num_players):
        out.append("\n")
        out.append(heading + "\n", style="bold underline")
        for line in lines:
            out.append("• " + line + "\n")
    return out
