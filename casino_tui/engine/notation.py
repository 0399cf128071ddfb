"""Text notation for cards, moves and whole positions (see ``docs/NOTATION.md``).

Moves are written by their cards, never by table indices, so a move string means the same thing
whatever order the table is drawn in::

    3S                  trail the three of spades
    9Cx4S+5D+[5H4C]     the nine of clubs takes 4S, 5D and the build made of 5H and 4C
    2H>7C=9             build nine: the two of hearts on the seven of clubs
    2H>[5S3H]+6D=8      build eights: 2H on the build [5S 3H] and on 6D (kind suffix s/m optional)
    KS>KH+KD=K          court build of kings (variants with court builds)
    ^7C                 pluck the seven of clubs (Pluck Cassino)
    -                   decline the pluck
    claim               call the game out (Call-out 21)

A position is a line of ``key=value`` fields, like a FEN with named fields::

    turn=1 dealer=0 round=1 deal=1 phase=play table=3C,6D,[2H7C=9s@0] hands=AS4H/KD5C ...

Everything needed to continue a game identically is in it: hands and the stock in order, the
table with each build's value, kind and owner, capture piles, sweeps, scores, the seed for later
rounds, and so on. :func:`format_position` and :func:`parse_position` round-trip exactly.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from .cards import CARD_RE, Card, card_str, cards_str, parse_card, parse_cards
from .errors import NotationError, StateError
from .moves import Build, Move, Pile
from .position import format_build, format_position, format_value
from .rules import Rules
from .state import MoveEvent, Phase, State

__all__ = [
    "PositionError",
    "compass_names",
    "describe_initial_grant",
    "describe_move",
    "describe_pile",
    "format_build",
    "format_move",
    "format_pile",
    "format_position",
    "legal_move_notations",
    "parse_move",
    "parse_move_text",
    "parse_position",
]


class PositionError(NotationError, StateError):
    """A position string that parses but does not describe a consistent position."""


COURT_LETTERS = {"J": 11, "Q": 12, "K": 13}


# ----------------------------------------------------------------------------- piles
def _parse_value(text: str, where: str) -> tuple[int, bool]:
    t = text.strip().upper()
    if t in COURT_LETTERS:
        return COURT_LETTERS[t], True
    if t.isdigit() and 1 <= int(t) <= 99:
        return int(t), False
    raise NotationError(f"bad build value {text!r} in {where!r}: use a number, or J, Q or K "
                        "for a court build")


def format_pile(pile: Pile, symbols: bool = False) -> str:
    """A pile as named in a move: a loose card ``5D`` or a build's cards ``[5H4C]``."""
    if isinstance(pile, Build):
        return "[" + cards_str(pile.cards, "", symbols) + "]"
    return card_str(pile, symbols)


def describe_pile(pile: Pile) -> str:
    """A pile in words for logs: ``5D`` or ``the 9 build (5H 4C)``."""
    if isinstance(pile, Build):
        v = format_value(pile.value, pile.court) + ("" if pile.single else "s")
        return f"the {v} build ({cards_str(pile.cards)})"
    return card_str(pile)


# ----------------------------------------------------------------------------- moves
def format_move(state: State, move: Move, symbols: bool = False) -> str:
    """``move`` in notation; ``state`` is the position before the move."""
    kind = move.kind
    if kind == "pass":
        return "-"
    if kind == "claim":
        return "claim"
    if not 0 <= move.card < 52:
        raise NotationError(f"move {move!r} has no card")
    c = card_str(move.card, symbols)
    if kind == "trail":
        return c
    if kind == "pluck":
        return "^" + c
    if kind not in ("capture", "build"):
        raise NotationError(f"unknown move kind {kind!r}")
    table = state.table
    if not move.piles or any(not 0 <= i < len(table) for i in move.piles):
        raise NotationError(f"move {move!r} names piles that are not on the table "
                            f"({len(table)} piles)")
    piles = "+".join(format_pile(table[i], symbols) for i in move.piles)
    if kind == "capture":
        return f"{c}x{piles}"
    if move.value is None:
        raise NotationError(f"build move {move!r} has no value")
    return f"{c}>{piles}={format_value(move.value, move.court)}"


_PILE_TOKEN = re.compile(r"\[([^\[\]]*)\]|" + CARD_RE.pattern)
_SEPARATORS = re.compile(r"[\s,+]*")


def _parse_pile_list(text: str, whole: str) -> list[tuple[Card, ...] | Card]:
    """``5D+4S+[5H4C]`` -> [5D, 4S, (5H, 4C)]: loose cards as ints, builds as card tuples."""
    out: list[tuple[Card, ...] | Card] = []
    pos = _SEPARATORS.match(text, 0).end()  # type: ignore[union-attr]
    if pos >= len(text):
        raise NotationError(f"{whole!r} names no table piles")
    while pos < len(text):
        m = _PILE_TOKEN.match(text, pos)
        if not m:
            raise NotationError(f"cannot read the piles of {whole!r} at {text[pos:]!r}: name "
                                "loose cards like 5D and builds by their cards like [5H4C]")
        if m.group(0).startswith("["):
            cards = parse_cards(m.group(1))
            if not cards:
                raise NotationError(f"empty build [] in {whole!r}")
            out.append(tuple(cards))
        else:
            out.append(parse_card(m.group(0)))
        pos = _SEPARATORS.match(text, m.end()).end()  # type: ignore[union-attr]
    return out


def _pile_index(table: Sequence[Pile], ref: tuple[Card, ...] | Card, whole: str) -> int:
    if isinstance(ref, tuple):
        want = sorted(ref)
        for i, p in enumerate(table):
            if isinstance(p, Build) and sorted(p.cards) == want:
                return i
        builds = [format_pile(p) for p in table if isinstance(p, Build)]
        have = (" (builds on the table: " + " ".join(builds) + ")") if builds else \
            " (there are no builds on the table)"
        raise NotationError(f"no build [{cards_str(ref, '')}] on the table{have}")
    for i, p in enumerate(table):
        if not isinstance(p, Build) and p == ref:
            return i
    for p in table:
        if isinstance(p, Build) and ref in p.cards:
            raise NotationError(f"{card_str(ref)} is inside a build: name the whole build, "
                                f"{format_pile(p)}")
    raise NotationError(f"{card_str(ref)} is not on the table")


def parse_move_text(state: State, text: str) -> tuple[Move, bool | None]:
    """Read ``text`` against ``state`` without checking legality.

    Returns the move (build kind unset) and the build kind the text asked for (``True`` single,
    ``False`` multiple, ``None`` not given).
    """
    if not isinstance(text, str):
        raise NotationError(f"a move must be text, not {type(text).__name__}")
    s = text.strip()
    low = s.lower()
    if not s:
        raise NotationError("empty move")
    if low in ("-", "pass"):
        return Move.pass_(), None
    if low == "claim":
        return Move.claim(), None
    if s.startswith("^"):
        return Move.pluck(_card(s[1:], s)), None
    if ">" in s:
        head, _, rest = s.partition(">")
        card = _card(head, s)
        body, eq, value_text = rest.rpartition("=")
        if not eq:
            raise NotationError(f"build {s!r} needs a value: write it like 2H>7C=9")
        kind: bool | None = None
        vt = value_text.strip()
        if len(vt) > 1 and vt[-1] in "sSmM" and vt[:-1].strip():
            kind = vt[-1] in "sS"
            vt = vt[:-1]
        value, court = _parse_value(vt, s)
        refs = _parse_pile_list(body, s)
        piles = _indices(state.table, refs, s)
        return Move("build", card, piles, value, kind, court), kind
    if "x" in low or "×" in s:
        head, rest = re.split(r"[xX×]", s, maxsplit=1)
        card = _card(head, s)
        refs = _parse_pile_list(rest, s)
        return Move.capture(card, _indices(state.table, refs, s)), None
    if CARD_RE.fullmatch(s):
        return Move.trail(parse_card(s)), None
    raise NotationError(
        f"cannot read move {text!r}: write a trail as 3S, a capture as 9Cx5D+4S, a build as "
        "2H>7C=9, a pluck as ^7C, '-' to pass or 'claim'")


def _card(text: str, whole: str) -> Card:
    t = text.strip()
    if not t:
        raise NotationError(f"{whole!r} does not say which card is played")
    if not CARD_RE.fullmatch(t):
        raise NotationError(f"{t!r} in {whole!r} is not a card (write cards like 10D, AS, 7C)")
    return parse_card(t)


def _indices(table: Sequence[Pile], refs: list[tuple[Card, ...] | Card],
             whole: str) -> tuple[int, ...]:
    idx = [_pile_index(table, r, whole) for r in refs]
    if len(set(idx)) != len(idx):
        raise NotationError(f"{whole!r} names the same pile twice")
    return tuple(sorted(idx))


def parse_move(state: State, text: str) -> Move:
    """The legal move ``text`` names in ``state`` (build kind filled in).

    Raises :class:`NotationError` if the text cannot be read or names piles that are not on the
    table, and :class:`~casino_tui.engine.errors.IllegalMoveError` (with the reason) if the move
    is not allowed.
    """
    move, kind = parse_move_text(state, text)
    legal = state.check_move(move)
    if kind is not None and legal.single is not None and legal.single != kind:
        actual = "single" if legal.single else "multiple"
        raise NotationError(f"{text.strip()!r}: that build would be {actual}, not "
                            f"{'single' if kind else 'multiple'}")
    return legal


def legal_move_notations(state: State, symbols: bool = False) -> dict[str, Move]:
    """Every legal move of ``state`` keyed by its notation (for text input and completion)."""
    return {format_move(state, m, symbols): m for m in state.legal_moves()}


# ------------------------------------------------------------------------- describing
def compass_names(num_players: int) -> list[str]:
    """Default seat names: South, West, North, East clockwise from seat 0 (then Player 5, 6)."""
    if num_players == 2:
        return ["South", "North"]
    base = ["South", "West", "North", "East"]
    return [base[i] if i < 4 and num_players <= 4 else f"Player {i + 1}"
            for i in range(num_players)]


def _name(names: Sequence[str], seat: int) -> str:
    return names[seat] if 0 <= seat < len(names) else f"Player {seat + 1}"


def describe_move(state_before: State, move: Move, event: MoveEvent | None,
                  names: Sequence[str], *, details: bool = True) -> str:
    """A move in players' words for the move log, e.g. ``North took 3C 6D with 9S: sweep``.

    ``state_before`` is the position before the move; ``event`` is what :meth:`State.apply`
    returned (``None`` describes the move alone). With ``details`` the line also mentions
    immediate points, penalties and the end of the deal, round or game. A drawn card is never
    mentioned (it is hidden information).
    """
    seat = event.seat if event is not None else state_before.to_move
    who = _name(names, seat)
    kind = move.kind
    c = card_str(move.card) if 0 <= move.card < 52 else "?"
    table = state_before.table
    piles = [table[i] for i in move.piles if 0 <= i < len(table)]
    notes: list[str] = []
    if kind == "trail":
        text = f"{who} trailed {c}"
    elif kind == "capture":
        loose = [p for p in piles if not isinstance(p, Build)]
        builds = [p for p in piles if isinstance(p, Build)]
        parts = []
        if loose:
            parts.append(cards_str(loose))
        parts += [describe_pile(b) for b in builds]
        text = f"{who} took {' and '.join(parts)} with {c}"
        if event is not None and event.sweep:
            text += ": sweep"
    elif kind == "build":
        v = format_value(move.value or 0, move.court)
        multiple = move.single is False or (event is not None and event.build is not None
                                            and not event.build.single)
        raised = [p for p in piles if isinstance(p, Build) and p.single and p.value != move.value]
        on = " ".join(cards_str(p.cards).join("[]") if isinstance(p, Build) else card_str(p)
                      for p in piles)
        vs = v + ("s" if multiple else "")
        if raised:
            old = format_value(raised[0].value, raised[0].court)
            text = f"{who} raised {old} to {vs} ({c} on {on})"
        else:
            text = f"{who} built {vs} ({c} on {on})"
    elif kind == "pluck":
        text = f"{who} plucked {c}"
    elif kind == "pass":
        text = f"{who} did not pluck"
    elif kind == "claim":
        text = f"{who} claimed the game"
        if event is not None and event.claim_credit is not None:
            side = state_before.side_of[seat]
            total = state_before.scores[side] + sum(event.claim_credit.values())
            text += f" with {total} points and {'won' if event.claim_won else 'lost'}"
    else:
        text = f"{who}: {kind}"
    if details and event is not None:
        mine = state_before.side_of[seat]
        for side, items in sorted(event.immediate.items()):
            pts = sum(v for k, v in items.items() if k != "penalties")
            if pts:
                whom = "" if side == mine else f" for {_side_name(state_before, side, names)}"
                notes.append(f"{pts} point{'s' if pts != 1 else ''} at once{whom}")
        if event.penalty:
            notes.append("left a build without a card to take it: 2 points to each opponent")
        if event.redeal:
            notes.append("new deal")
        if event.game_over and kind != "claim":
            notes.append("game over")
        elif event.round_over:
            notes.append("round over")
    return text + ("; " + "; ".join(notes) if notes else "")


def _side_name(state: State, side: int, names: Sequence[str]) -> str:
    return " & ".join(_name(names, s) for s in state.sides[side])


def describe_initial_grant(state: State, names: Sequence[str]) -> str | None:
    """The Initial-pairs grant of the current round in words, or None if there was none."""
    grant = state.initial_grant
    if grant is None:
        return None
    seat, cards = grant
    text = f"{_name(names, seat)} was given the pairs {cards_str(cards)} from the table"
    if not state.table and state.round_no and state.sweeps[seat]:
        text += ": sweep"
    return text


# ------------------------------------------------------------------------- positions
FIELD_ORDER = (
    "turn", "dealer", "round", "deal", "phase", "table", "hands", "stock", "taken", "sweeps",
    "last", "score", "target", "plucked", "unassigned", "immediate", "penalties", "winner", "seed",
)
_PHASES = {p.value: p for p in Phase}


_FIELD_RE = re.compile(r'\s*([A-Za-z_]+)=("(?:[^"\\]|\\.)*"|[^\s"]*)(?=\s|$)')


def _split_fields(text: str) -> dict[str, str]:
    if not isinstance(text, str):
        raise NotationError(f"a position must be text, not {type(text).__name__}")
    out: dict[str, str] = {}
    pos = 0
    s = text.strip()
    if not s:
        raise NotationError("empty position")
    while pos < len(s):
        m = _FIELD_RE.match(s, pos)
        if not m:
            bad = s[pos:].split()[0] if s[pos:].split() else s[pos:]
            raise NotationError(f"cannot read position field {bad!r}: fields look like "
                                "key=value, separated by spaces")
        key = m.group(1).lower()
        if key not in FIELD_ORDER:
            raise NotationError(f"unknown position field {key!r}; known fields: "
                                + ", ".join(FIELD_ORDER))
        if key in out:
            raise NotationError(f"position field {key!r} is given twice")
        out[key] = m.group(2)
        pos = m.end()
        while pos < len(s) and s[pos].isspace():
            pos += 1
    return out


def _int(text: str, key: str, lo: int | None = None) -> int:
    if not re.fullmatch(r"-?\d+", text):
        raise NotationError(f"position field {key}={text!r} must be a whole number")
    v = int(text)
    if lo is not None and v < lo:
        raise NotationError(f"position field {key}={text!r} must be at least {lo}")
    return v


def _seat(text: str, key: str, n: int, allow_none: bool = False) -> int | None:
    if allow_none and text == "-":
        return None
    v = _int(text, key)
    if not 0 <= v < n:
        raise NotationError(f"position field {key}={text!r}: seats are 0..{n - 1}")
    return v


def _cards_of(text: str, key: str) -> list[Card]:
    if text in ("-", ""):
        return []
    try:
        return parse_cards(text)
    except NotationError as e:
        raise NotationError(f"position field {key}: {e}") from None


def _per_seat(text: str, key: str, count: int, what: str) -> list[str]:
    parts = text.split("/")
    if len(parts) != count:
        raise NotationError(f"position field {key} has {len(parts)} entries separated by '/', "
                            f"but there are {count} {what}")
    return parts


def _parse_table(text: str, n: int) -> list[Pile]:
    if text in ("-", ""):
        return []
    piles: list[Pile] = []
    for item in text.split(","):
        item = item.strip()
        if item.startswith("["):
            m = re.fullmatch(r"\[([^=\]@]*)=([0-9]+|[JQKjqk])([sSmM])@(\d+)\]", item)
            if not m:
                raise NotationError(f"bad build {item!r} in the table: write builds like "
                                    "[2H7C=9s@0] (cards = value, s single or m multiple, "
                                    "@ owner seat)")
            cards = _cards_of(m.group(1), "table")
            if len(cards) < 2:
                raise NotationError(f"build {item!r} needs at least two cards")
            value, court = _parse_value(m.group(2), item)
            owner = _int(m.group(4), "table build owner")
            if not 0 <= owner < n:
                raise NotationError(f"build {item!r}: owner seat {owner} is not at the table "
                                    f"(seats 0..{n - 1})")
            piles.append(Build(tuple(cards), value, m.group(3) in "sS", owner, court))
        else:
            if not CARD_RE.fullmatch(item):
                raise NotationError(f"bad table pile {item!r}: a loose card like 3C or a build "
                                    "like [2H7C=9s@0]")
            piles.append(parse_card(item))
    return piles


def _parse_seed(text: str) -> int | str:
    if text.startswith('"'):
        try:
            v = json.loads(text)
        except json.JSONDecodeError:
            raise NotationError(f"bad quoted seed {text!r}") from None
        return str(v)
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    if not text:
        raise NotationError("empty seed")
    return text


def parse_position(text: str, rules: Rules, *, complete: bool = True) -> State:
    """The :class:`State` written by :func:`format_position`.

    Only ``table``, ``hands`` and ``turn`` are required; the other fields default to the start
    of a round (see ``docs/NOTATION.md``). With ``complete`` every card of the deck must be in
    exactly one place. Raises :class:`NotationError` (or its subclass :class:`PositionError`
    for a readable but inconsistent position).
    """
    f = _split_fields(text)
    for key in ("table", "hands", "turn"):
        if key not in f:
            raise NotationError(f"position has no {key}= field")
    hands_text = f["hands"].split("/")
    n = len(hands_text)
    hands = [_cards_of(h, "hands") for h in hands_text]
    nsides = 2 if n == 4 and rules.partnerships_for_4 else n
    to_move = _seat(f["turn"], "turn", n)
    assert to_move is not None
    dealer = _seat(f["dealer"], "dealer", n) if "dealer" in f else None
    round_no = _int(f.get("round", "1"), "round", 0)
    deal_no = _int(f["deal"], "deal", 0) if "deal" in f else None
    phase_text = f.get("phase", "play")
    played: Card | None = None
    name, colon, card_text = phase_text.partition(":")
    if name not in _PHASES:
        raise NotationError(f"bad phase {phase_text!r}; use one of "
                            + ", ".join(sorted(_PHASES)))
    phase = _PHASES[name]
    if colon:
        if phase != Phase.PLUCK:
            raise NotationError(f"phase {phase_text!r}: only the pluck phase names a card")
        played = _card(card_text, "phase")
    table = _parse_table(f["table"], n)
    stock = _cards_of(f.get("stock", "-"), "stock")[::-1]
    taken = ([_cards_of(t, "taken") for t in _per_seat(f["taken"], "taken", n, "players")]
             if "taken" in f else [[] for _ in range(n)])
    sweeps = ([_int(x, "sweeps", 0) for x in _per_seat(f["sweeps"], "sweeps", n, "players")]
              if "sweeps" in f else [0] * n)
    last = _seat(f.get("last", "-"), "last", n, allow_none=True)
    sides_what = "sides (partnerships)" if nsides != n else "players"
    scores = ([_int(x, "score") for x in _per_seat(f["score"], "score", nsides, sides_what)]
              if "score" in f else [0] * nsides)
    target = _int(f["target"], "target", 1) if "target" in f else None
    plucked = [False] * n
    if "plucked" in f:
        p = f["plucked"]
        if len(p) != n or set(p) - {"0", "1"}:
            raise NotationError(f"position field plucked={p!r} needs one 0 or 1 per player "
                                f"({n})")
        plucked = [ch == "1" for ch in p]
    unassigned = _cards_of(f.get("unassigned", "-"), "unassigned")
    immediate = ([_int(x, "immediate") for x in
                  _per_seat(f["immediate"], "immediate", nsides, sides_what)]
                 if "immediate" in f else [0] * nsides)
    penalties = ([_int(x, "penalties", 0) for x in
                  _per_seat(f["penalties"], "penalties", nsides, sides_what)]
                 if "penalties" in f else [0] * nsides)
    winner: int | None = None
    if "winner" in f:
        winner = _int(f["winner"], "winner")
        if not 0 <= winner < nsides:
            raise NotationError(f"winner={winner} is not a side (sides 0..{nsides - 1})")
    seed = _parse_seed(f["seed"]) if "seed" in f else 0
    try:
        st = State.from_position(
            rules, n, table=table, hands=hands, to_move=to_move, dealer=dealer, stock=stock,
            captured=taken, sweeps=sweeps, last_capturer=last, scores=scores, round_no=round_no,
            deal_no=deal_no, pluck_used=plucked, seed=seed, target=target, phase=phase,
            unassigned=unassigned, played_card=played, complete=complete)
    except StateError as e:
        raise PositionError(f"inconsistent position: {e}") from None
    st.round_immediate = immediate
    st.penalties = penalties
    st.winner = winner
    return st
