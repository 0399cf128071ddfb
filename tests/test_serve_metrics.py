"""What ``casino-tui serve`` tells its operator (issue 27, item 6): ``GET /metrics`` on
``--metrics-port`` in Prometheus's text format 0.0.4, and one line in the log on SIGUSR1.

The text is read with prometheus_client's own parser, and checked line by line against the
format's grammar; over a real server and the real OpenSSH client, the figures move as players
come and go, and every kind of refused login is counted."""

from __future__ import annotations

import math
import os
import re
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from serve_support import (
    TITLE,
    Key,
    Server,
    Tmux,
    make_key,
    needs_ssh_tmux,
    ssh_argv,
    ssh_run,
    wait_until,
)

from casino_tui.serve import build_parser, config_from_args, metrics_flags_problem
from casino_tui.serve.metrics import (
    CONTENT_TYPE,
    REFUSAL_REASONS,
    Histogram,
    ServerMetrics,
    Snapshot,
    descendants,
    tree_memory,
)

parser = pytest.importorskip("prometheus_client.parser")

# One line of the text format 0.0.4: a comment (HELP or TYPE) or a sample.
NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
LABEL = r'[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*"'
VALUE = r"(?:[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+)|[+-]Inf|NaN)"
SAMPLE = re.compile(rf"{NAME}(?:\{{{LABEL}(?:,{LABEL})*\}})? {VALUE}")
COMMENT = re.compile(rf"# (?:HELP {NAME} .*|TYPE {NAME} (?:counter|gauge|histogram|summary|"
                     r"untyped))")


def families(text: str) -> dict[str, dict[tuple[tuple[str, str], ...], float]]:
    """The text, strictly checked, read by prometheus_client's parser: each family's samples
    by (sample name and labels)."""
    assert text.endswith("\n")
    types: dict[str, str] = {}
    for line in text.splitlines():
        assert SAMPLE.fullmatch(line) or COMMENT.fullmatch(line), line
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split()
            assert name not in types, f"{name} declared twice"
            types[name] = kind
    out: dict[str, dict[tuple[tuple[str, str], ...], float]] = {}
    for family in parser.text_string_to_metric_families(text):
        # the parser names a counter's family without its _total
        declared = types.get(family.name) or types[family.name + "_total"]
        assert family.type == declared, family.name
        out[family.name] = {
            (("__name__", s.name), *sorted(s.labels.items())): s.value
            for s in family.samples}
    return out


def value(fams: dict[str, dict[tuple[tuple[str, str], ...], float]], sample: str,
          **labels: str) -> float:
    for fam in fams.values():
        key = (("__name__", sample), *sorted(labels.items()))
        if key in fam:
            return fam[key]
    raise KeyError((sample, labels))


# ====================================================================== pieces
def test_histogram_buckets_are_cumulative_and_bounds_inclusive() -> None:
    h = Histogram((0.01, 0.1, 1.0))
    for v in (0.005, 0.01, 0.05, 0.1, 0.5, 3.0):
        h.observe(v)
    assert h.cumulative() == [("0.01", 2), ("0.1", 4), ("1.0", 5), ("+Inf", 6)]
    assert h.count == 6 and math.isclose(h.sum, 3.665)
    assert h.percentile(0.5) == 0.05 and h.percentile(1.0) == 3.0
    assert Histogram((1.0,)).percentile(0.5) is None


def test_the_pool_of_computer_players_is_reported() -> None:
    from casino_tui.ai.pool import PoolStats

    pool = PoolStats(workers=2, fast_workers=1, busy=2, waiting=3, waiting_search=2,
                     waiting_fast=1, oldest_wait=0.4, started=10, answered=9, refused=0,
                     dropped=0, rushed=1, crashes=0, wait_sum=1.5, wait_max=0.6,
                     wait_buckets=((0.005, 2), (0.5, 8), (2.5, 10)), answer_sum=8.0,
                     answer_max=1.2, late=2)
    snap = Snapshot({"ssh": 1, "browser": 0}, {"ssh": 1, "browser": 0},
                    {"open": 0, "in_play": 0, "finished": 0}, 0, 3, 1, 1, 1, 1, 1,
                    metrics=ServerMetrics(), pool=pool, joins_refused=4, wrong_codes=9)
    fams = families(snap.exposition())
    assert value(fams, "casino_join_codes_total", refused="wrong") == 9
    assert value(fams, "casino_join_codes_total", refused="too_soon") == 4
    assert value(fams, "casino_computer_moves_waiting") == 3
    assert value(fams, "casino_computer_workers") == 3
    assert value(fams, "casino_computer_queue_wait_seconds_bucket", le="0.5") == 8
    assert value(fams, "casino_computer_queue_wait_seconds_bucket", le="+Inf") == 10
    assert value(fams, "casino_computer_queue_wait_seconds_count") == 10
    assert value(fams, "casino_computer_answers_total", when="late") == 2
    assert value(fams, "casino_computer_answers_total", when="in_time") == 7
    assert "computer moves waiting 3" in snap.summary()


def test_exposition_parses_and_holds_every_figure() -> None:
    m = ServerMetrics()
    m.refuse("full")
    m.refuse("full")
    m.refuse("not_listed")
    m.logins = 3
    m.key_answered(0.012)
    m.key_answered(0.3)
    m.key_answered(7.0)  # nothing was drawn for it: not a sample
    m.computer_wait.observe(0.2)
    snap = Snapshot({"ssh": 2, "browser": 1}, {"ssh": 1, "browser": 1},
                    {"open": 1, "in_play": 2, "finished": 0}, 1, 2, 50 << 20, 40 << 20,
                    300 << 20, 200 << 20, 7, metrics=m)
    text = snap.exposition()
    fams = families(text)
    assert value(fams, "casino_players_connected", front="ssh") == 2
    assert value(fams, "casino_players_connected", front="browser") == 1
    assert value(fams, "casino_sessions_in_game", front="ssh") == 1
    assert value(fams, "casino_tables", state="in_play") == 2
    assert value(fams, "casino_tables", state="open") == 1
    assert value(fams, "casino_computer_moves_waiting") == 1
    assert value(fams, "casino_computer_move_wait_seconds_count") == 1
    assert value(fams, "casino_key_to_screen_seconds_count") == 2
    assert value(fams, "casino_key_to_screen_seconds_bucket", le="0.025") == 1
    assert value(fams, "casino_key_to_screen_seconds_bucket", le="+Inf") == 2
    assert math.isclose(value(fams, "casino_key_to_screen_seconds_sum"), 0.312)
    assert value(fams, "casino_keys_without_output_total") == 1
    assert value(fams, "casino_server_memory_bytes", kind="rss") == 50 << 20
    assert value(fams, "casino_children_memory_bytes", kind="pss") == 200 << 20
    assert value(fams, "casino_children_processes") == 7
    assert value(fams, "casino_logins_total") == 3
    for reason in REFUSAL_REASONS:
        expected = {"full": 2, "not_listed": 1}.get(reason, 0)
        assert value(fams, "casino_refused_logins_total", reason=reason) == expected
    line = snap.summary()
    assert "\n" not in line
    assert line.startswith("status: 3 players connected (2 ssh, 1 browser), 2 in a game; "
                           "tables 1 open, 2 in play;")
    assert "refused: full 2, rate_limit 0, not_listed 1, no_terminal 0, command 0" in line


def test_memory_of_the_process_tree(tmp_path: Path) -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        wait_until(lambda: child.pid in descendants(os.getpid()), 10,
                   "the child in the tree")
        rss, pss, crss, cpss, n = tree_memory(os.getpid())
        assert rss > 1 << 20 and 0 < pss <= rss
        assert n >= 1 and crss > 1 << 20 and 0 < cpss <= crss
    finally:
        child.kill()
        child.wait()


def test_metrics_flags() -> None:
    p = build_parser()
    args = p.parse_args(["--metrics-port", "9100"])
    config = config_from_args(args)
    assert (config.metrics_port, config.metrics_host) == (9100, "127.0.0.1")
    assert config_from_args(p.parse_args([])).metrics_port is None
    assert metrics_flags_problem(p.parse_args(["--metrics-host", "::1"])) == (
        "--metrics-host needs --metrics-port PORT")
    assert "is the SSH port" in (metrics_flags_problem(
        p.parse_args(["--port", "2222", "--metrics-port", "2222"])) or "")
    assert "web front end's port" in (metrics_flags_problem(
        p.parse_args(["--web-port", "8080", "--metrics-port", "8080"])) or "")
    assert metrics_flags_problem(p.parse_args(["--metrics-port", "0", "--port", "0"])) is None


# ====================================================================== a real server
@pytest.fixture
def keys(tmp_path: Path) -> dict[str, Key]:
    return {name: make_key(tmp_path, name) for name in ("alice", "bob", "carol", "mallory")}


@pytest.fixture
def server(tmp_path: Path, keys: dict[str, Key]) -> Iterator[Server]:
    listed = tmp_path / "authorized_keys"
    listed.write_text("".join(f"{keys[k].public}\n" for k in ("alice", "bob", "carol")))
    s = Server(tmp_path / "data", "--metrics-port", "0", "--max-sessions", "2",
               "--rate-limit", "6", "--authorized-keys", str(listed))
    yield s
    s.stop()


def scrape(server: Server) -> dict[str, dict[tuple[tuple[str, str], ...], float]]:
    found = server.wait_log(r"metrics: http://127\.0\.0\.1:(\d+)/metrics")
    with urllib.request.urlopen(f"http://127.0.0.1:{found.group(1)}/metrics",
                                timeout=10) as response:
        assert response.status == 200
        assert response.headers["Content-Type"] == CONTENT_TYPE
        return families(response.read().decode())


def connected(server: Server) -> float:
    return value(scrape(server), "casino_players_connected", front="ssh")


@needs_ssh_tmux
def test_metrics_over_a_real_server(server: Server, keys: dict[str, Key], tmux: Tmux) -> None:
    port = int(server.wait_log(r"metrics: http://127\.0\.0\.1:(\d+)/metrics").group(1))
    with pytest.raises(urllib.error.HTTPError) as missing:  # only /metrics
        urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10)
    assert missing.value.code == 404
    first = scrape(server)
    assert value(first, "casino_players_connected", front="ssh") == 0
    assert value(first, "casino_server_memory_bytes", kind="rss") > 10 << 20
    assert value(first, "casino_computer_workers") >= 1

    # Alice plays: one player connected, one game, and her keys reach the screen.
    tmux.start("a", ssh_argv(server.port, keys["alice"]), 100, 30)  # connection 1
    tmux.wait_for("a", TITLE)
    tmux.send("a", "n")
    tmux.wait_for("a", "Preset")
    tmux.send("a", "Escape")
    tmux.wait_for("a", TITLE)
    playing = scrape(server)
    assert value(playing, "casino_players_connected", front="ssh") == 1
    assert value(playing, "casino_sessions_in_game", front="ssh") == 1
    assert value(playing, "casino_logins_total") == 1
    assert value(playing, "casino_key_to_screen_seconds_count") >= 2
    assert value(playing, "casino_children_processes") >= 1
    assert value(playing, "casino_children_memory_bytes", kind="pss") > 10 << 20

    # Every kind of refusal, counted by reason (connections 2 to 8 of this minute).
    assert ssh_run(server.port, keys["bob"], "-T").returncode != 0  # no terminal
    assert ssh_run(server.port, keys["bob"], "-tt", command=["ls"]).returncode != 0
    server.wait_log(r"asked for a command 'ls'")
    holder = subprocess.Popen(ssh_argv(server.port, keys["bob"], "-N"),  # holds place 2
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        wait_until(lambda: connected(server) == 2, 15, "two players connected", interval=0.2)
        assert ssh_run(server.port, keys["carol"], "-tt").returncode == 255  # full
    finally:
        holder.kill()
        holder.wait()
    assert ssh_run(server.port, keys["mallory"], "-tt").returncode == 255  # not listed
    for _ in range(2):  # the 7th and 8th in a minute, over 6: the rate limit
        assert ssh_run(server.port, keys["carol"], "-tt").returncode == 255
    wait_until(lambda: connected(server) == 1, 15, "Bob gone", interval=0.2)
    refused = scrape(server)
    counts = {r: value(refused, "casino_refused_logins_total", reason=r)
              for r in REFUSAL_REASONS}
    assert counts == {"full": 1, "rate_limit": 2, "not_listed": 1, "no_terminal": 1,
                      "command": 1, "store": 0}, counts
    assert value(refused, "casino_logins_total") == 4  # Alice; Bob three times

    # SIGUSR1: one line in the log.
    server.proc.send_signal(signal.SIGUSR1)
    server.wait_log(r"status: 1 players connected \(1 ssh, 0 browser\), 1 in a game; "
                    r"tables 0 open, 0 in play; .*key to screen p50 \d+ ms p95 \d+ ms .*"
                    r"logins 4; refused: full 1, rate_limit 2, not_listed 1, no_terminal 1, "
                    r"command 1, store 0\n")

    # Alice leaves: nobody connected, no game.
    tmux.send("a", "q")
    assert tmux.wait_exit("a") == 0
    wait_until(lambda: connected(server) == 0, 15, "players connected back to 0",
               interval=0.3)
    assert value(scrape(server), "casino_sessions_in_game", front="ssh") == 0


def test_metrics_beside_the_web_front_end_and_a_port_in_use(tmp_path: Path) -> None:
    """With browser players the endpoint counts them too; a metrics port that cannot be used
    stops the server at start with a message naming it."""
    import socket

    # no game is played: no fork server or computer pool to start (most of a server's start)
    s = Server(tmp_path / "data", "--metrics-port", "0", "--web-port", "0", "--no-fork-server",
               "--computers", "0")
    try:
        fams = scrape(s)
        assert value(fams, "casino_players_connected", front="browser") == 0
        assert value(fams, "casino_sessions_in_game", front="browser") == 0
    finally:
        assert s.stop() == 0
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        out = subprocess.run(
            [sys.executable, "-m", "casino_tui", "serve", "--port", "0", "--data-dir",
             str(tmp_path / "data"), "--metrics-port", str(port), "--no-fork-server",
             "--computers", "0"],
            capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert out.returncode == 1, out
    assert f"cannot serve the metrics on 127.0.0.1 port {port}" in out.stderr
