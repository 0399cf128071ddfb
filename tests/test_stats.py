"""The statistics ledger, its figures, ``casino-tui stats`` and the daily deal (no UI)."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from stats_support import (
    YOU_V_EASY,
    YOU_V_HARD,
    finished_save,
    play_out,
    record,
    store_of,
    write_ledger,
)

from casino_tui.__main__ import main
from casino_tui.engine import Rules, State
from casino_tui.saves import Seat
from casino_tui.settings import SETTINGS_FILE, Settings
from casino_tui.stats import (
    LEDGER_FILE,
    GameRecord,
    Ledger,
    chart,
    compute,
    daily_date,
    daily_seed,
    record_from_game,
    record_from_play,
)
from casino_tui.stats.daily import daily_ranking, ranking_text, utc_today
from casino_tui.stats.ledger import DAMAGED_FILE

NOW = datetime(2026, 11, 24, 20, 0, tzinfo=UTC)


# ------------------------------------------------------------------ records and the ledger
def test_record_of_a_finished_game() -> None:
    state = play_out(State(Rules.preset("classic"), 2, 5), 5)
    r = record_from_game(state, YOU_V_HARD, game="x", ended=NOW)
    assert r.seat == 0 and r.side == 0 and r.opponents == ("hard",)
    assert r.result == ("win" if state.winner == 0 else "loss")
    assert len(r.rounds) == len(state.round_summaries) == len(r.sweeps)
    assert sum(r.rounds) == state.scores[0] == r.score  # classic scores at the round's end
    assert sum(r.sweeps) == sum(s.sweeps[0] for s in state.round_summaries)
    assert r.scores == tuple(state.scores) and not r.undo and r.daily is None
    assert GameRecord.from_json(json.loads(r.to_line())) == r
    with pytest.raises(ValueError, match="not over"):
        record_from_game(State(Rules.preset("classic"), 2, 5), YOU_V_HARD, game="y", ended=NOW)


def test_partnership_and_shared_keyboard_records() -> None:
    seats = (Seat.human("S"), Seat.computer("W", "easy"), Seat.computer("N", "medium"),
             Seat.computer("E", "easy"))
    state = play_out(State(Rules.preset("classic"), 4, 2), 2)
    r = record_from_game(state, seats, game="p", ended=NOW)
    assert r.side == 0 and sorted(r.opponents) == ["easy", "easy"] and r.opponent_level == "easy"
    two = (Seat.human("A"), Seat.human("B"))
    shared = record_from_game(play_out(State(Rules.preset("classic"), 2, 3), 3), two,
                              game="h", ended=NOW)
    assert shared.seat is None and shared.result is None and not shared.counted
    figures = compute([r, shared])
    assert figures.total.played == 1 and figures.shared == 1


def test_a_tables_record_from_what_the_seat_saw_is_the_games_record() -> None:
    """A table's game is recorded from the public things its seat saw (the rounds' summaries,
    the final scores): the same record as from the game's State, seat by seat."""
    seats = (Seat.human("S"), Seat.computer("W", "easy"), Seat.human("N"),
             Seat.computer("E", "hard"))
    state = play_out(State(Rules.preset("classic"), 4, 2), 2)
    for seat in (0, 2):
        from_state = record_from_game(state, seats, game="t", ended=NOW, seat=seat)
        seen = record_from_play(
            preset="classic", players=4, sides=state.sides, seats=seats,
            summaries=list(state.round_summaries), round_no=state.round_no,
            scores=state.scores, sweeps=state.sweeps, winner=state.winner, game="t",
            ended=NOW, seat=seat)
        assert seen == from_state and seen.side == 0 and seen.opponents == ("easy", "hard")
    other = record_from_play(
        preset="classic", players=4, sides=state.sides, seats=seats,
        summaries=list(state.round_summaries), round_no=state.round_no, scores=state.scores,
        sweeps=state.sweeps, winner=state.winner, game="t", ended=NOW, seat=1)
    assert other.side == 1 and other.opponents == ("person", "person")


def test_append_and_read(tmp_path: Path) -> None:
    records = [record(1, "win"), record(2, "loss", level="easy"), record(3, "win")]
    ledger = write_ledger(tmp_path, records)
    found = ledger.read()
    assert found.records == records and not found.damaged and not found.missing
    assert (tmp_path / LEDGER_FILE).read_bytes().count(b"\n") == 3
    assert Ledger(tmp_path / "none").read().missing


def test_damaged_lines_are_skipped_and_reported(tmp_path: Path) -> None:
    good = [record(1, "win"), record(2, "loss"), record(3, "win")]
    lines = [r.to_line() for r in good]
    bad_record = json.dumps({**good[0].to_json(), "result": "maybe"}).encode() + b"\n"
    # a crash in the middle of an append leaves the last line cut short
    raw = lines[0] + b"\x00\xffnot json\n" + bad_record + lines[1] + lines[2][:25]
    (tmp_path / LEDGER_FILE).write_bytes(raw)
    ledger = Ledger(tmp_path)
    found = ledger.read()
    assert found.records == good[:2]
    assert [n for n, _ in found.damaged] == [2, 3, 5]
    assert "unknown result" in found.damaged[1][1] and found.damaged[0][1] == "not JSON"
    # an append after the cut line starts on a line of its own
    ledger.append(good[2])
    again = ledger.read()
    assert again.records == good and [n for n, _ in again.damaged] == [2, 3, 5]


def test_a_damaged_ledger_is_rebuilt(tmp_path: Path) -> None:
    data = tmp_path / "data"
    store = store_of(data)
    game_id, _ = finished_save(store, 11)
    kept = record(1, "win")
    data.mkdir(exist_ok=True)
    (data / LEDGER_FILE).write_bytes(kept.to_line() + b'{"v": 1, "game": "cut')
    found = Ledger(data).load(store)
    assert found.rebuilt and found.added == 1 and [n for n, _ in found.damaged] == [2]
    report = found.report() or ""
    assert "1 damaged line" in report and "line 2" in report and DAMAGED_FILE in report
    assert [r.game for r in found.records] == ["g1", game_id]
    assert (data / DAMAGED_FILE).read_bytes().endswith(b'"cut')
    clean = Ledger(data).read()
    assert clean.records == found.records and not clean.damaged
    assert Ledger(data).load(store).report() is None  # nothing to say any more


def test_rebuilt_from_finished_saves_and_survives_their_deletion(tmp_path: Path) -> None:
    data = tmp_path / "data"
    store = store_of(data)
    finished = [finished_save(store, seed) for seed in (1, 2, 3)]
    finished_save(store, 4, YOU_V_EASY, finish=False)  # unfinished: not in the statistics
    finished_save(store, 5, (Seat.human("A"), Seat.computer("B", "medium"),
                             Seat.computer("C", "easy")), preset="classic")
    found = Ledger(data).load(store)
    assert found.rebuilt and found.added == 4 and not found.damaged
    assert "rebuilt from 4 finished saved games" in (found.report() or "")
    by_id = {r.game: r for r in found.records}
    for game_id, state in finished:
        r = by_id[game_id]
        assert r.scores == tuple(state.scores) and r.rounds and r.opponents == ("hard",)
    assert sorted(r.players for r in found.records) == [2, 2, 2, 3]
    for entry in store.entries(verify=False):
        store.delete(entry)
    assert Ledger(data).load(store).records == found.records


def test_record_adds_a_game_once(tmp_path: Path) -> None:
    data = tmp_path / "data"
    store = store_of(data)
    game_id, state = finished_save(store, 6)
    r = record_from_game(state, YOU_V_HARD, game=game_id, ended=NOW)
    ledger = Ledger(data)
    ledger.record(r, store)  # missing: rebuilt from the saves, which have this game already
    ledger.record(r, store)
    other = record(9, "win")
    ledger.record(other, store)
    assert [x.game for x in ledger.read().records] == [game_id, "g9"]


# ------------------------------------------------------------------ figures
FIXED = [
    record(1, "win", rounds=(10, 11), sweeps=(1, 0)),
    record(2, "loss", level="easy", rounds=(4, 6, 3), sweeps=(0, 0, 2)),
    record(3, "win", preset="royal_cassino", rounds=(12, 10), sweeps=(1, 1)),
    record(4, "win", rounds=(7, 8, 9), sweeps=(0, 0, 0)),
    record(5, "loss", rounds=(2, 3), sweeps=(0, 0), day=2),
    record(6, "win", level="easy", rounds=(20, 5), sweeps=(2, 0), day=2, daily=date(2026, 3, 3)),
]


def test_figures_of_fixed_records() -> None:
    f = compute(FIXED)
    assert (f.total.played, f.total.won, f.total.lost) == (6, 4, 2)
    assert {k: (t.played, t.won) for k, t in f.by_preset.items()} == {
        "classic": (5, 3), "royal_cassino": (1, 1)}
    assert {k: (t.played, t.won) for k, t in f.by_level.items()} == {
        "easy": (2, 1), "hard": (4, 3)}
    assert f.rounds == 14 and f.points == 110 and f.sweeps == 7
    assert f.points_per_round == pytest.approx(110 / 14)
    assert f.highest_score == 25
    assert (f.current_streak, f.best_streak) == (1, 2)
    assert f.results == ["win", "loss", "win", "win", "loss", "win"]
    assert list(f.by_day) == ["2026-03-01", "2026-03-03"] and f.daily == 1


def test_chart() -> None:
    assert chart(["win", "loss", "win", "win"], 10) == "█▁██"
    assert chart(["win", "loss"] * 4, 4) == "▅▅▅▅"
    assert chart(["win", "win", "loss", "loss"], 2, ascii=True) == "#_"
    assert chart([], 5) == ""


# ------------------------------------------------------------------ casino-tui stats
def test_stats_json_of_a_data_directory(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    store = store_of(data)
    write_ledger(data, FIXED)
    finished_save(store, 7)  # a save the ledger lacks: the ledger is not missing, not added
    assert main(["stats", "--json", "--data-dir", str(data)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["games"] == {"played": 6, "won": 4, "lost": 2, "drawn": 0, "win_rate": 0.6667}
    assert out["by_preset"] == {
        "classic": {"played": 5, "won": 3, "lost": 2, "drawn": 0, "win_rate": 0.6},
        "royal": {"played": 1, "won": 1, "lost": 0, "drawn": 0, "win_rate": 1.0}}
    assert out["by_opponent_level"]["easy"]["win_rate"] == 0.5
    assert out["by_opponent_level"]["hard"]["played"] == 4
    assert out["points_per_round"] == round(110 / 14, 4)
    assert out["sweeps_per_round"] == 0.5
    assert out["highest_score"] == 25
    assert (out["current_streak"], out["best_streak"]) == (1, 2)
    assert out["over_time"] == [
        {"date": "2026-03-01", "played": 4, "won": 3, "lost": 1, "drawn": 0, "win_rate": 0.75},
        {"date": "2026-03-03", "played": 2, "won": 1, "lost": 1, "drawn": 0, "win_rate": 0.5}]
    assert out["daily_deals"] == 1 and out["damaged_lines"] == []


def test_stats_text_and_a_missing_ledger(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    store = store_of(data)
    finished_save(store, 8)
    finished_save(store, 9)
    assert main(["stats", "--data-dir", str(data)]) == 0
    captured = capsys.readouterr()
    assert "rebuilt from 2 finished saved games" in captured.err
    assert "All games" in captured.out and "Winning streak" in captured.out
    assert (data / LEDGER_FILE).exists()
    assert main(["stats", "--data-dir", str(tmp_path / "empty")]) == 0
    assert "No finished games yet" in capsys.readouterr().out
    assert not (tmp_path / "empty" / LEDGER_FILE).exists()


def test_stats_reports_damaged_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    write_ledger(data, FIXED[:2])
    with open(data / LEDGER_FILE, "ab") as f:
        f.write(b"garbage\n")
    assert main(["stats", "--json", "--data-dir", str(data)]) == 0
    captured = capsys.readouterr()
    assert "1 damaged line of the statistics ledger (line 3" in captured.err
    out = json.loads(captured.out)
    assert out["games"]["played"] == 2 and out["damaged_lines"] == [
        {"line": 3, "reason": "not JSON"}]


# ------------------------------------------------------------------ the daily deal
def test_daily_seed_for_a_fixed_date() -> None:
    day = date(2026, 11, 24)
    # the first 8 bytes of sha256("casino-tui daily deal 2026-11-24"), modulo 2**53: the
    # same on every machine and in every version (a player's daily deal must not change)
    assert daily_seed(day) == 6207990720021953
    assert daily_seed(day) == daily_seed(date(2026, 11, 24))
    assert len({daily_seed(date(2026, 1, d)) for d in range(1, 32)}) == 31
    assert 0 <= daily_seed(day) < 2**53
    assert utc_today(lambda: datetime(2026, 11, 24, 23, 59, tzinfo=UTC)) == day
    assert utc_today(lambda: datetime.fromisoformat("2026-11-25T01:00+02:00")) == day


def test_a_daily_game_is_known_by_its_seed() -> None:
    day = date(2026, 11, 24)
    state = play_out(State(Rules.preset("classic"), 2, daily_seed(day)), 1)
    created = datetime(2026, 11, 24, 9, 0, tzinfo=UTC)
    assert daily_date(state, YOU_V_HARD, created) == day
    just_after = datetime(2026, 11, 25, 0, 0, 1, tzinfo=UTC)  # started a moment before midnight
    assert daily_date(state, YOU_V_HARD, just_after) == day
    assert daily_date(state, YOU_V_HARD, datetime(2026, 11, 27, tzinfo=UTC)) is None
    assert daily_date(state, YOU_V_EASY, created) is None
    r = record_from_game(state, YOU_V_HARD, game="d", ended=NOW, created=created)
    assert r.daily == day and GameRecord.from_json(r.to_json()).daily == day
    other = play_out(State(Rules.preset("classic"), 2, 12345), 1)
    assert daily_date(other, YOU_V_HARD, created) is None


def _player(players: Path, pid: str, name: str, records: list[GameRecord]) -> Path:
    root = players / pid
    write_ledger(root / "data", records)
    if name:
        (root / "config").mkdir(parents=True)
        (root / "config" / SETTINGS_FILE).write_text(
            json.dumps(Settings(display_name=name).to_dict()), encoding="utf-8")
    return root


def test_serve_daily_ranking_from_players_dirs(tmp_path: Path) -> None:
    day = date(2026, 11, 24)
    players = tmp_path / "players"

    def daily(n: int, result: str, scores: tuple[int, int], d: date = day) -> GameRecord:
        return record(n, result, scores=scores, daily=d)

    _player(players, "sha256-aaaa", "Ada", [daily(1, "win", (23, 12))])
    _player(players, "sha256-bbbb", "Bo", [record(2, "win"), daily(3, "loss", (15, 21)),
                                          daily(4, "win", (30, 2))])  # only the first counts
    me = _player(players, "sha256-cccc", "", [daily(5, "win", (23, 9))])
    _player(players, "sha256-dddd", "Dee", [daily(6, "win", (25, 3), date(2026, 11, 23))])
    (players / "sha256-eeee").mkdir()  # a player with no ledger
    rows = daily_ranking(players, day, me=me / "data")
    assert [(r.rank, r.name, r.points, r.result, r.you) for r in rows] == [
        (1, "Player cccc", 23, "win", True), (1, "Ada", 23, "win", False),
        (3, "Bo", 15, "loss", False)]
    text = ranking_text(rows, day)
    assert "Daily deal 2026-11-24" in text and "<- you" in text
    assert daily_ranking(players, date(2026, 1, 1)) == []
    assert daily_ranking(tmp_path / "nowhere", day) == []


def test_the_players_layout_is_the_servers(tmp_path: Path) -> None:
    from casino_tui.serve.players import PlayerDirs
    from casino_tui.serve.pty_session import PLAYERS_ENV, child_environment
    from casino_tui.stats import daily

    dirs = PlayerDirs.for_fingerprint(tmp_path, "SHA256:abc+/d")
    assert dirs.data == dirs.root / daily.PLAYER_DATA
    assert dirs.config == dirs.root / daily.PLAYER_CONFIG
    assert PLAYERS_ENV == daily.PLAYERS_ENV
    env = child_environment("xterm", {}, dirs.root, dirs.data, dirs.config,
                            players_dir=dirs.root.parent)
    assert daily.players_dir_from_environment(env) == tmp_path / "players"
    assert daily.players_dir_from_environment({}) is None


# ------------------------------------------------------------------ the figures kept on disk
def test_figures_kept_with_the_ledger(tmp_path: Path) -> None:
    from casino_tui.stats.cache import CACHE_FILE, ledger_figures
    from casino_tui.stats.figures import figures_from_state, figures_state

    assert figures_from_state(json.loads(json.dumps(figures_state(compute(FIXED))))) \
        == compute(FIXED)
    data = tmp_path / "data"
    ledger = write_ledger(data, FIXED[:3])
    assert ledger_figures(data).figures == compute(FIXED[:3])
    kept = json.loads((data / CACHE_FILE).read_text())
    assert kept["bytes"] == (data / LEDGER_FILE).stat().st_size
    for r in FIXED[3:]:
        ledger.append(r)  # only the new lines are read
    assert ledger_figures(data).figures == compute(FIXED)
    # the kept figures are used while the ledger's bytes are the same ...
    cached = json.loads((data / CACHE_FILE).read_text())
    cached["figures"]["total"] = [99, 99, 0, 0]
    (data / CACHE_FILE).write_text(json.dumps(cached))
    assert ledger_figures(data).figures.total.played == 99
    # ... and not once they changed otherwise than by appends, or when they are damaged
    (data / LEDGER_FILE).write_bytes(b"".join(r.to_line() for r in reversed(FIXED)))
    assert ledger_figures(data).figures == compute(list(reversed(FIXED)))
    (data / CACHE_FILE).write_text("{damaged")
    assert ledger_figures(data).figures == compute(list(reversed(FIXED)))
    # a damaged ledger: rebuilt and reported, as the ledger itself does
    with open(data / LEDGER_FILE, "ab") as f:
        f.write(b"oops\n")
    found = ledger_figures(data)
    assert found.figures == compute(list(reversed(FIXED)))
    assert found.damaged == [(7, "not JSON")] and "1 damaged line" in (found.report or "")


def test_statistics_screen_benchmark_prints_its_figures(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    from benchmarks import stats_screen as statsbench
    from casino_tui.settings import CONFIG_ENV

    monkeypatch.setenv(CONFIG_ENV, str(tmp_path / "config"))

    assert statsbench.main(["--games", "50", "--runs", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["games"] == 50 and out["ledger_bytes"] > 0
    for key in ("figures_ms_median", "screen_first_ms_median", "screen_ms_median"):
        assert out[key] > 0, key


def test_daily_flag_on_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    from casino_tui.cli import build_parser

    assert build_parser().parse_args(["--daily"]).daily
    assert not build_parser().parse_args([]).daily
    for other in (["--seed", "3"], ["--preset", "royal"], ["--continue"]):
        with pytest.raises(SystemExit) as exc:
            main(["--daily", *other])
        assert exc.value.code == 2
    assert "--daily" in capsys.readouterr().err
