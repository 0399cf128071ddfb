"""Moves in words: the one-line preview of a move ("Take 3♣ 6♦ with 9♠ · sweep") and the move
log's past tense ("North took 3♣ 6♦ with 9♠: sweep").

The wording follows the player's card style (Unicode suits or ASCII) so the log matches the
table; it is written from the engine's public objects only (Move, MoveEvent, the table before
the move).
"""

from __future__ import annotations

from collections.abc import Sequence

from casino_tui.engine import Build, Move, MoveEvent, Pile

from .cardfmt import CardPainter


def _piles(table: Sequence[Pile], move: Move, p: CardPainter) -> str:
    return " ".join(p.pile_label(table[i]) for i in move.piles if 0 <= i < len(table))


def _build_parts(table: Sequence[Pile], move: Move) -> tuple[list[Build], bool]:
    builds = [table[i] for i in move.piles
              if 0 <= i < len(table) and isinstance(table[i], Build)]
    raised = any(b.value != move.value for b in builds)  # type: ignore[union-attr]
    return builds, raised  # type: ignore[return-value]


def move_preview(table: Sequence[Pile], move: Move, p: CardPainter, *,
                 sweeps: bool = True) -> str:
    """What ``move`` will do, for the player choosing it (present tense, one line).

    ``sweeps``: the rules score sweeps (otherwise clearing the table is not called one)."""
    kind = move.kind
    if kind == "trail":
        return f"Trail {p.label(move.card)} to the table"
    if kind == "capture":
        sweep = sweeps and len(move.piles) == len(table)
        return (f"Take {_piles(table, move, p)} with {p.label(move.card)}"
                + (" · sweep" if sweep else ""))
    if kind == "build":
        builds, raised = _build_parts(table, move)
        v = move.value_str()
        kind_word = "single" if move.single else "multiple"
        if raised:
            return f"Raise {_piles(table, move, p)} to {v} with {p.label(move.card)}"
        if builds and not move.single:
            return f"Add {p.label(move.card)} to {_piles(table, move, p)}: multiple {v}"
        return f"Build {v} ({kind_word}): {p.label(move.card)} on {_piles(table, move, p)}"
    if kind == "pluck":
        return f"Pluck {p.label(move.card)} from the table into your pile"
    if kind == "pass":
        return "Pass: no pluck this turn"
    if kind == "claim":
        return "Claim the game: call out that your side has reached the target"
    return str(move)  # pragma: no cover - every kind is handled above


def move_log_line(table_before: Sequence[Pile], ev: MoveEvent, names: Sequence[str],
                  side_names: Sequence[str], p: CardPainter, *, sweeps: bool = True) -> str:
    """What happened, in the past tense, naming the player (for the move log).

    ``sweeps``: the rules score sweeps (otherwise clearing the table is not called one)."""
    move = ev.move
    who = names[ev.seat]
    kind = move.kind
    if kind == "trail":
        text = f"{who} trailed {p.label(move.card)}"
    elif kind == "capture":
        taken = [c for c in ev.captured if c != move.card]
        text = f"{who} took {p.labels(taken)} with {p.label(move.card)}"
        if ev.sweep and sweeps:
            text += ": sweep"
    elif kind == "build":
        builds, raised = _build_parts(table_before, move)
        b = ev.build
        made = p.pile_label(b) if b is not None else move.value_str()
        kind_word = ("single" if move.single else "multiple")
        if raised:
            text = f"{who} raised {_piles(table_before, move, p)} to {move.value_str()} " \
                   f"with {p.label(move.card)}"
        elif builds:
            text = f"{who} added {p.label(move.card)}: {made} {kind_word}"
        else:
            text = f"{who} built {made} {kind_word}"
    elif kind == "pluck":
        text = f"{who} plucked {p.label(move.card)}"
    elif kind == "pass":
        text = f"{who} did not pluck"
    elif kind == "claim":
        text = f"{who} claimed the game" + (
            "" if ev.claim_won is None else " and won" if ev.claim_won else " too early, and lost")
    else:  # pragma: no cover
        text = f"{who}: {move}"
    extras: list[str] = []
    if ev.penalty:
        extras.append("broke the build duty (2 points to the other side)")
    for side, items in sorted(ev.immediate.items()):
        pts = sum(items.values())
        if pts and not ev.penalty:
            extras.append(f"+{pts} to {side_names[side]}")
    if ev.drew is not None:
        extras.append("drew a card")
    if extras:
        text += " (" + "; ".join(extras) + ")"
    return text
