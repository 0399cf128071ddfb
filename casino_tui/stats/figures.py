"""The figures of a ledger: games played and won per preset and per opponent level, points and
sweeps per round, the highest score, winning streaks and the results over time; as JSON, as a
text table (``casino-tui stats``) and as a small chart."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from casino_tui.engine import PRESET_ALIASES

from .ledger import GameRecord

SPARKS = "▁▂▃▄▅▆▇█"
SPARKS_ASCII = "_.,-=+*#"
LEVEL_ORDER = ("random", "easy", "medium", "hard", "mixed", "people")


def preset_label(name: str) -> str:
    """A preset's name as players type it: its first alias (``french``), else itself."""
    for alias, full in PRESET_ALIASES.items():
        if full == name:
            return alias
    return name


@dataclass
class Tally:
    played: int = 0
    won: int = 0
    lost: int = 0
    drawn: int = 0

    def add(self, record: GameRecord) -> None:
        self.played += 1
        if record.result == "win":
            self.won += 1
        elif record.result == "loss":
            self.lost += 1
        else:
            self.drawn += 1

    @property
    def win_rate(self) -> float | None:
        return self.won / self.played if self.played else None

    def to_json(self) -> dict[str, Any]:
        rate = self.win_rate
        return {"played": self.played, "won": self.won, "lost": self.lost,
                "drawn": self.drawn, "win_rate": None if rate is None else round(rate, 4)}


@dataclass
class Figures:
    """The statistics of a list of records (the counted ones: see GameRecord.counted)."""

    total: Tally = field(default_factory=Tally)
    by_preset: dict[str, Tally] = field(default_factory=dict)
    by_level: dict[str, Tally] = field(default_factory=dict)
    rounds: int = 0
    points: int = 0
    sweeps: int = 0
    highest_score: int | None = None
    current_streak: int = 0
    best_streak: int = 0
    results: list[str] = field(default_factory=list)  # "win"/"loss"/"draw", oldest first
    by_day: dict[str, Tally] = field(default_factory=dict)  # "YYYY-MM-DD" (UTC), in order
    shared: int = 0  # games several people played at one keyboard: not counted
    daily: int = 0  # daily deals played
    undo: int = 0  # games in which undo was used

    @property
    def points_per_round(self) -> float | None:
        return self.points / self.rounds if self.rounds else None

    @property
    def sweeps_per_round(self) -> float | None:
        return self.sweeps / self.rounds if self.rounds else None

    @property
    def first_day(self) -> str | None:
        return next(iter(self.by_day), None)

    @property
    def last_day(self) -> str | None:
        return next(reversed(self.by_day), None) if self.by_day else None

    def to_json(self) -> dict[str, Any]:
        def rnd(v: float | None) -> float | None:
            return None if v is None else round(v, 4)

        return {
            "games": self.total.to_json(),
            "by_preset": {preset_label(k): v.to_json() for k, v in self.by_preset.items()},
            "by_opponent_level": {k: v.to_json() for k, v in self.by_level.items()},
            "rounds": self.rounds,
            "points_per_round": rnd(self.points_per_round),
            "sweeps_per_round": rnd(self.sweeps_per_round),
            "highest_score": self.highest_score,
            "current_streak": self.current_streak,
            "best_streak": self.best_streak,
            "over_time": [{"date": d, **t.to_json()} for d, t in self.by_day.items()],
            "daily_deals": self.daily,
            "undo_used": self.undo,
            "not_counted_shared_keyboard": self.shared,
        }


def _sorted(tallies: dict[str, Tally], order: Sequence[str] = ()) -> dict[str, Tally]:
    def key(name: str) -> tuple[int, int, str]:
        return (order.index(name) if name in order else len(order), -tallies[name].played, name)

    return {k: tallies[k] for k in sorted(tallies, key=key)}


def compute(records: Iterable[GameRecord], start: Figures | None = None) -> Figures:
    """The figures of ``records`` in the order they were written (the ledger's order, which
    is the order the games ended: streaks and the results over time follow it). ``start``:
    the figures of the records before these (they are added to it)."""
    f = start if start is not None else Figures()
    streak = f.current_streak
    by_preset = f.by_preset
    by_level = f.by_level
    by_day = f.by_day
    results = f.results
    for r in records:
        if r.side is None or r.result is None:
            f.shared += 1
            continue
        f.total.add(r)
        key = r.preset
        (by_preset.get(key) or by_preset.setdefault(key, Tally())).add(r)
        key = r.opponent_level
        (by_level.get(key) or by_level.setdefault(key, Tally())).add(r)
        key = r.ended.date().isoformat()
        (by_day.get(key) or by_day.setdefault(key, Tally())).add(r)
        f.rounds += len(r.rounds)
        f.points += sum(r.rounds)
        f.sweeps += sum(r.sweeps)
        score = r.scores[r.side] if 0 <= r.side < len(r.scores) else None
        if score is not None and (f.highest_score is None or score > f.highest_score):
            f.highest_score = score
        streak = streak + 1 if r.result == "win" else 0
        if streak > f.best_streak:
            f.best_streak = streak
        results.append(r.result)
        if r.daily is not None:
            f.daily += 1
        if r.undo:
            f.undo += 1
    f.current_streak = streak
    f.by_preset = _sorted(by_preset)
    f.by_level = _sorted(by_level, LEVEL_ORDER)
    f.by_day = dict(sorted(by_day.items()))
    return f


# ------------------------------------------------------------------ the figures kept on disk
STATE_FORMAT = "casino-tui-figures"
STATE_VERSION = 1
_RESULT_LETTERS = {"win": "W", "loss": "L", "draw": "D"}
_LETTER_RESULTS = {v: k for k, v in _RESULT_LETTERS.items()}


def figures_state(f: Figures) -> dict[str, Any]:
    """Everything :func:`compute` needs to go on from ``f``, as plain JSON."""
    def tallies(d: dict[str, Tally]) -> dict[str, list[int]]:
        return {k: [t.played, t.won, t.lost, t.drawn] for k, t in d.items()}

    return {"format": STATE_FORMAT, "version": STATE_VERSION,
            "total": [f.total.played, f.total.won, f.total.lost, f.total.drawn],
            "by_preset": tallies(f.by_preset), "by_level": tallies(f.by_level),
            "by_day": tallies(f.by_day), "rounds": f.rounds, "points": f.points,
            "sweeps": f.sweeps, "highest_score": f.highest_score,
            "current_streak": f.current_streak, "best_streak": f.best_streak,
            "results": "".join(_RESULT_LETTERS[r] for r in f.results),
            "shared": f.shared, "daily": f.daily, "undo": f.undo}


def figures_from_state(data: object) -> Figures:
    """The figures of :func:`figures_state`; raises ValueError if ``data`` is not one."""
    if not isinstance(data, dict) or data.get("format") != STATE_FORMAT \
            or data.get("version") != STATE_VERSION:
        raise ValueError("not a figures state")
    try:
        def tally(v: Any) -> Tally:
            played, won, lost, drawn = (int(x) for x in v)
            return Tally(played, won, lost, drawn)

        def tallies(v: Any) -> dict[str, Tally]:
            return {str(k): tally(t) for k, t in dict(v).items()}

        highest = data["highest_score"]
        return Figures(
            total=tally(data["total"]), by_preset=tallies(data["by_preset"]),
            by_level=tallies(data["by_level"]), by_day=tallies(data["by_day"]),
            rounds=int(data["rounds"]), points=int(data["points"]),
            sweeps=int(data["sweeps"]),
            highest_score=None if highest is None else int(highest),
            current_streak=int(data["current_streak"]), best_streak=int(data["best_streak"]),
            results=[_LETTER_RESULTS[c] for c in str(data["results"])],
            shared=int(data["shared"]), daily=int(data["daily"]), undo=int(data["undo"]))
    except (KeyError, TypeError, ValueError) as e:
        raise ValueError(f"not a figures state ({e})") from None


def chart(results: Sequence[str], width: int, *, ascii: bool = False) -> str:
    """A one-line chart of the results over time: the games, oldest first, in ``width`` (or
    fewer) groups of consecutive games; each mark is the group's win rate, from the lowest
    mark (none won) to the highest (all won)."""
    marks = SPARKS_ASCII if ascii else SPARKS
    n = len(results)
    if n == 0 or width < 1:
        return ""
    groups = min(width, n)
    out = []
    for g in range(groups):
        part = results[g * n // groups:(g + 1) * n // groups]
        rate = sum(r == "win" for r in part) / len(part)
        out.append(marks[round(rate * (len(marks) - 1))])
    return "".join(out)


def _pct(rate: float | None) -> str:
    return "-" if rate is None else f"{rate * 100:.0f}%"


def _num(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def tally_rows(tallies: dict[str, Tally], label: Any = str) -> list[tuple[str, str, str, str]]:
    return [(label(k), str(t.played), str(t.won), _pct(t.win_rate)) for k, t in tallies.items()]


def text_report(f: Figures, *, ascii: bool = False, width: int = 60) -> str:
    """The figures as a text table (``casino-tui stats``)."""
    if not f.total.played:
        lines = ["No finished games yet: play a game to the end to see your statistics."]
        if f.shared:
            lines.append(f"({f.shared} game{'s' if f.shared != 1 else ''} played by several "
                         "people at one keyboard are not counted.)")
        return "\n".join(lines)
    rows: list[tuple[str, str, str, str]] = [("", "Played", "Won", "Win rate")]
    rows.append(("All games", str(f.total.played), str(f.total.won), _pct(f.total.win_rate)))
    rows.append(("By preset", "", "", ""))
    rows += [("  " + a, b, c, d) for a, b, c, d in tally_rows(f.by_preset, preset_label)]
    rows.append(("By opponent level", "", "", ""))
    rows += [("  " + a, b, c, d) for a, b, c, d in tally_rows(f.by_level)]
    w0 = max(len(r[0]) for r in rows)
    lines = [f"{a:<{w0}}  {b:>6}  {c:>5}  {d:>8}".rstrip() for a, b, c, d in rows]
    lines.append("")
    others = [
        ("Points per round", _num(f.points_per_round)),
        ("Sweeps per round", _num(f.sweeps_per_round)),
        ("Highest game score", "-" if f.highest_score is None else str(f.highest_score)),
        ("Winning streak", f"{f.current_streak} now, best {f.best_streak}"),
        ("Daily deals played", str(f.daily)),
    ]
    w1 = max(len(a) for a, _ in others)
    lines += [f"{a:<{w1}}  {b}" for a, b in others]
    lines.append("")
    span = f"{f.first_day} to {f.last_day}" if f.first_day != f.last_day else f"{f.first_day}"
    lines.append(f"Results over time ({f.total.played} games, {span}; win rate, oldest first):")
    lines.append("  " + chart(f.results, width, ascii=ascii))
    if f.shared:
        lines.append(f"({f.shared} game{'s' if f.shared != 1 else ''} played by several people "
                     "at one keyboard are not counted.)")
    return "\n".join(lines)
