"""The daily deal: one seed per UTC date, the same for everyone (classic, a person against
Hard), and the day's results of a server's players ranked by points.

The seed comes from the date alone (:func:`~casino_tui.stats.ledger.daily_seed`); the clock is
passed in, so tests fix the day. Under ``casino-tui serve`` each player has a directory
``DATA/players/<id>/`` with ``data/`` (their saves and ledger) and ``config/`` (their settings,
with their display name): the server tells the game where the players' directories are in
:data:`PLAYERS_ENV`, and :func:`daily_ranking` reads every player's ledger (never writing).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path

from casino_tui.settings import load_settings

from .ledger import (
    DAILY_LEVEL,
    DAILY_PRESET,
    LEDGER_FILE,
    GameRecord,
    Result,
    daily_seed,
    parse_ledger,
)

# The game's environment under ``casino-tui serve``: the directory of every player's files
# (casino_tui.serve.pty_session sets it; the layout is casino_tui.serve.players.PlayerDirs').
PLAYERS_ENV = "CASINO_TUI_PLAYERS_DIR"
PLAYER_DATA = "data"
PLAYER_CONFIG = "config"

__all__ = ["DAILY_LEVEL", "DAILY_PRESET", "PLAYERS_ENV", "DailyRow", "daily_ranking",
           "daily_result", "daily_seed", "players_dir_from_environment", "utc_now", "utc_today"]


def utc_now(clock: Callable[[], datetime] | None = None) -> datetime:
    """The time by ``clock`` (default: the system clock), in UTC (a naive time is UTC)."""
    now = clock() if clock is not None else datetime.now(UTC)
    if now.tzinfo is None:
        now = now.replace(tzinfo=UTC)
    return now.astimezone(UTC)


def utc_today(clock: Callable[[], datetime] | None = None) -> date:
    """Today's UTC date by ``clock`` (default: the system clock)."""
    return utc_now(clock).date()


def players_dir_from_environment(env: Mapping[str, str]) -> Path | None:
    """The server's players directory when the game runs under ``casino-tui serve``."""
    value = env.get(PLAYERS_ENV, "")
    return Path(value) if value else None


def daily_result(records: list[GameRecord], day: date) -> GameRecord | None:
    """The player's daily deal of ``day``: the first one they finished (only it counts)."""
    return next((r for r in records if r.daily == day and r.counted), None)


@dataclass(frozen=True)
class DailyRow:
    """One player's daily deal: rank (equal points share a rank), name, points, the
    opponent's points and the result; ``you``: the player looking."""

    rank: int
    name: str
    points: int
    opponent: int
    result: Result
    rounds: int
    you: bool = False


def _display_name(player: Path, fallback: str) -> str:
    try:
        name = load_settings(player / PLAYER_CONFIG).display_name
    except (OSError, ValueError):
        name = ""
    return name or fallback


def _ledger_daily(path: Path, day: date) -> GameRecord | None:
    """The first daily deal of ``day`` in the ledger at ``path`` (lines of other days are not
    even parsed)."""
    try:
        raw = path.read_bytes()
    except OSError:
        return None
    needle = f'"daily":"{day.isoformat()}"'.encode()
    lines = b"\n".join(line for line in raw.split(b"\n") if needle in line)
    return daily_result(parse_ledger(lines).records, day)


def daily_ranking(players: Path, day: date, *, me: Path | None = None) -> list[DailyRow]:
    """The day's daily deals of every player under ``players`` (``<id>/data/ledger.jsonl``),
    ranked by points (then by the opponent's points, lower first). ``me``: the data directory
    of the player looking (their row is marked)."""
    found: list[tuple[str, GameRecord, bool]] = []
    try:
        dirs = sorted(p for p in players.iterdir() if p.is_dir())
    except OSError:
        return []
    mine = me.resolve() if me is not None else None
    for player in dirs:
        data = player / PLAYER_DATA
        record = _ledger_daily(data / LEDGER_FILE, day)
        if record is None or record.side is None or record.result is None:
            continue
        fallback = f"Player {player.name.rpartition('-')[2][:6] or player.name[:6]}"
        you = mine is not None and data.resolve() == mine
        found.append((_display_name(player, fallback), record, you))

    def opponent(r: GameRecord) -> int:
        return max((s for i, s in enumerate(r.scores) if i != r.side), default=0)

    found.sort(key=lambda f: (-(f[1].score or 0), opponent(f[1]), f[0].casefold()))
    rows: list[DailyRow] = []
    for i, (name, r, you) in enumerate(found):
        points = r.score or 0
        rank = rows[-1].rank if rows and rows[-1].points == points else i + 1
        assert r.result is not None
        rows.append(DailyRow(rank, name, points, opponent(r), r.result, len(r.rounds), you))
    return rows


def ranking_text(rows: list[DailyRow], day: date) -> str:
    """The ranking as a text table."""
    if not rows:
        return f"Nobody has finished the daily deal of {day.isoformat()} yet."
    w = max(4, *(len(r.name) for r in rows))
    lines = [f"Daily deal {day.isoformat()}", f"{'#':>3}  {'Name':<{w}}  Points  Opp.  Result"]
    for r in rows:
        mark = " <- you" if r.you else ""
        lines.append(f"{r.rank:>3}  {r.name:<{w}}  {r.points:>6}  {r.opponent:>4}  "
                     f"{r.result}{mark}")
    return "\n".join(lines)

